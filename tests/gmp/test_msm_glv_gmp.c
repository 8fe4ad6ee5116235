/* The endomorphism split of the subgroup MSMs (cz_msm_glv_split_) against GMP: k = k0 + k1 L exactly as
 * integers, 0 <= k0 < L and 0 <= k1 < 2^128, with L = x^2 for the BLS parameter x; L itself is checked
 * against r (r = x^4 - x^2 + 1, so L^2 - L + 1 = r), hence [L] is the eigenvalue the maps must realise.
 * Scalars: uniform in [0, r), uniform 255-bit (the split's whole domain), and edges (0, 1, r-1, L-1,
 * L, L+1, 2^128 +- 1, multiples of L and their neighbours, r - L, 2^255 - 1). */
#include <gmp.h>

#include "ec/ec_endo.h"
#include "ec/msm_internal.h"
#include "ff/fr.h"
#include "testutil.h"

static mpz_t L, two128;
static int checked;

static void to_mpz(mpz_t z, const uint64_t *l, int n) { mpz_import(z, (size_t)n, -1, 8, 0, 0, l); }

static void from_mpz(uint64_t k[4], const mpz_t z) {
    k[0] = k[1] = k[2] = k[3] = 0;
    size_t cnt = 0;
    mpz_export(k, &cnt, -1, 8, 0, 0, z);
}

static void check_split(const mpz_t kz) {
    uint64_t k[4], k0[2], k1[2];
    from_mpz(k, kz);
    cz_msm_glv_split_(k0, k1, k);
    mpz_t a, b, s;
    mpz_inits(a, b, s, NULL);
    to_mpz(a, k0, 2);
    to_mpz(b, k1, 2);
    mpz_mul(s, b, L);
    mpz_add(s, s, a);
    bool ok = mpz_cmp(s, kz) == 0 && mpz_cmp(a, L) < 0 && mpz_cmp(b, two128) < 0;
    if (!ok) gmp_fprintf(stderr, "split of %Zx: k0 = %Zx, k1 = %Zx\n", kz, a, b);
    CHECK_MSG(ok, "glv split");
    checked++;
    mpz_clears(a, b, s, NULL);
}

int main(void) {
    cz_rng rng;
    cz_test_rng(&rng);
    mpz_t r, x, t, k;
    mpz_inits(r, x, t, k, L, two128, NULL);
    const uint64_t rl[4] = CZ_FR_MODULUS;
    to_mpz(r, rl, 4);
    mpz_set_ui(x, 0);
    const uint64_t xl = CZ_BLS_X_ABS;
    to_mpz(x, &xl, 1);
    mpz_mul(L, x, x);
    mpz_ui_pow_ui(two128, 2, 128);
    /* L^2 - L + 1 = r: L is x^2 for the curve's own parameter. */
    mpz_mul(t, L, L);
    mpz_sub(t, t, L);
    mpz_add_ui(t, t, 1);
    CHECK_MSG(mpz_cmp(t, r) == 0, "L^2 - L + 1 = r");
    CHECK(mpz_cmp(L, two128) < 0);

    /* Edges. */
    const long deltas[] = {-2, -1, 0, 1, 2};
    mpz_t base[8];
    for (int i = 0; i < 8; i++) mpz_init(base[i]);
    mpz_set_ui(base[0], 0);
    mpz_set(base[1], L);
    mpz_mul_ui(base[2], L, 2);
    mpz_set(base[3], two128);
    mpz_mul(base[4], L, L); /* L^2 = r + L - 1 > r: still below 2^255 */
    mpz_sub(base[5], r, L);
    mpz_set(base[6], r);
    mpz_ui_pow_ui(base[7], 2, 255);
    for (int i = 0; i < 8; i++)
        for (size_t d = 0; d < sizeof deltas / sizeof deltas[0]; d++) {
            if (deltas[d] < 0) mpz_sub_ui(k, base[i], (unsigned long)-deltas[d]);
            else mpz_add_ui(k, base[i], (unsigned long)deltas[d]);
            if (mpz_sgn(k) < 0 || mpz_sizeinbase(k, 2) > 255) continue;
            check_split(k);
        }
    /* Multiples of L and their neighbours up to r. */
    for (int i = 0; i < 200; i++) {
        uint64_t m = cz_rng_next(&rng);
        mpz_mul_ui(k, L, m >> 1);
        if (mpz_cmp(k, r) >= 0) mpz_mod(k, k, r);
        check_split(k);
        mpz_add_ui(k, k, 1);
        check_split(k);
    }
    /* Uniform in [0, r) (Fr elements, as the MSM sees them) and uniform 255-bit integers. */
    for (int i = 0; i < 20000; i++) {
        cz_fr f;
        uint64_t raw[4];
        cz_fr_random(&f, &rng);
        cz_fr_to_raw(raw, &f);
        to_mpz(k, raw, 4);
        check_split(k);
        for (int j = 0; j < 4; j++) raw[j] = cz_rng_next(&rng);
        raw[3] >>= 1 + (cz_rng_next(&rng) % 63); /* 255 bits and shorter */
        to_mpz(k, raw, 4);
        check_split(k);
    }
    CHECK(checked > 40000);
    for (int i = 0; i < 8; i++) mpz_clear(base[i]);
    mpz_clears(r, x, t, k, L, two128, NULL);
    return cz_test_finish();
}
