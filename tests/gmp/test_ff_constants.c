/* Re-derives every constant of src/ff/constants.h with GMP, from the curve seed x alone, so that a
 * mistyped or stale constant fails here. The header is also scanned: a #define that this test does
 * not check is reported, so a constant added later cannot escape the check. */
#include <stdio.h>

#include "cz_error.h"
#include "ff/constants.h"
#include "ff_gmp.h"

#define MAX_NAMES 64
static const char *checked[MAX_NAMES];
static int n_checked;

static void mark(const char *name) {
    if (n_checked < MAX_NAMES) checked[n_checked++] = name;
}

static void check_limbs(const char *name, const uint64_t *l, int n, const mpz_t want) {
    mpz_t got;
    mpz_init(got);
    ff_limbs_to_mpz(got, l, n);
    CHECK_MSG(mpz_cmp(got, want) == 0, "%s = %s, want %s", name, ff_hx(got), ff_hx(want));
    mpz_clear(got);
    mark(name);
}

/* The constant's name is its own token text, so the report names exactly what is wrong. */
#define LIMBS(NAME, n, want)                \
    do {                                    \
        static const uint64_t v_[n] = NAME; \
        check_limbs(#NAME, v_, n, want);    \
    } while (0)

static void check_u64(const char *name, uint64_t got, const mpz_t want) {
    mpz_t g;
    mpz_init(g);
    mpz_import(g, 1, -1, 8, 0, 0, &got);
    CHECK_MSG(mpz_cmp(g, want) == 0, "%s = %s, want %s", name, ff_hx(g), ff_hx(want));
    mpz_clear(g);
    mark(name);
}

/* Common Montgomery constants of a field with n limbs: modulus, R, R^2, R^3, -m^-1 mod 2^64. */
static void check_mont(const ff_field *f, const uint64_t *mod, const uint64_t *r1, const uint64_t *r2,
                       const uint64_t *r3, uint64_t inv, const char *pfx) {
    char name[64];
    mpz_t t, w;
    mpz_inits(t, w, NULL);
    snprintf(name, sizeof name, "%s_MODULUS", pfx);
    check_limbs(strdup(name), mod, f->n, f->p);
    snprintf(name, sizeof name, "%s_R", pfx);
    check_limbs(strdup(name), r1, f->n, f->R);
    mpz_powm_ui(t, f->R, 2, f->p);
    snprintf(name, sizeof name, "%s_R2", pfx);
    check_limbs(strdup(name), r2, f->n, t);
    mpz_powm_ui(t, f->R, 3, f->p);
    snprintf(name, sizeof name, "%s_R3", pfx);
    check_limbs(strdup(name), r3, f->n, t);
    /* -m^-1 mod 2^64 */
    mpz_set_ui(w, 0);
    mpz_setbit(w, 64);
    mpz_invert(t, f->p, w);
    mpz_sub(t, w, t);
    snprintf(name, sizeof name, "%s_INV", pfx);
    check_u64(strdup(name), inv, t);
    /* mont_impl.h's carry-free CIOS and adds need the top limb below (2^64 - 1)/2 - 1. */
    CHECK_MSG(mod[f->n - 1] < 0x7ffffffffffffffeULL, "%s: top limb too large for no-carry CIOS", pfx);
    mpz_clears(t, w, NULL);
}

static void plain(mpz_t out, const ff_field *f, long num_add, unsigned long shift_div) {
    /* (p + num_add) / 2^shift_div, exact */
    if (num_add >= 0)
        mpz_add_ui(out, f->p, (unsigned long)num_add);
    else
        mpz_sub_ui(out, f->p, (unsigned long)-num_add);
    CHECK(mpz_scan1(out, 0) >= shift_div);
    mpz_fdiv_q_2exp(out, out, shift_div);
}

static void to_mont(mpz_t out, const ff_field *f, unsigned long v) {
    mpz_mul_ui(out, f->R, v);
    mpz_mod(out, out, f->p);
}

int main(void) {
    ff_field FP, FR;
    cz_test_seed();
    CHECK_MSG(ff_moduli_ok(), "moduli strings in ff_gmp.h do not follow from x");
    ff_field_init(&FP, "fp", FF_P_HEX, 6);
    ff_field_init(&FR, "fr", FF_R_HEX, 4);
    mpz_t t, u;
    mpz_inits(t, u, NULL);

    {
        static const uint64_t m[] = CZ_FP_MODULUS, r1[] = CZ_FP_R, r2[] = CZ_FP_R2, r3[] = CZ_FP_R3;
        check_mont(&FP, m, r1, r2, r3, CZ_FP_INV, "CZ_FP");
    }
    {
        static const uint64_t m[] = CZ_FR_MODULUS, r1[] = CZ_FR_R, r2[] = CZ_FR_R2, r3[] = CZ_FR_R3;
        check_mont(&FR, m, r1, r2, r3, CZ_FR_INV, "CZ_FR");
    }

    /* Exponents used by inversion, Legendre symbols and square roots. */
    plain(t, &FP, -2, 0);
    LIMBS(CZ_FP_P_MINUS_2, 6, t);
    plain(t, &FR, -2, 0);
    LIMBS(CZ_FR_R_MINUS_2, 4, t);
    plain(t, &FP, -1, 1);
    LIMBS(CZ_FP_P_MINUS_1_OVER_2, 6, t);
    plain(t, &FR, -1, 1);
    LIMBS(CZ_FR_R_MINUS_1_OVER_2, 4, t);
    CHECK_MSG(mpz_fdiv_ui(FP.p, 4) == 3, "p = 3 mod 4 (sqrt by (p+1)/4, Fp2 = Fp[u]/(u^2+1))");
    plain(t, &FP, 1, 2);
    LIMBS(CZ_FP_P_PLUS_1_OVER_4, 6, t);
    plain(t, &FP, -3, 2);
    LIMBS(CZ_FP_P_MINUS_3_OVER_4, 6, t);

    /* Fr 2-adicity: r - 1 = 2^s t with t odd. */
    mpz_sub_ui(t, FR.p, 1);
    unsigned long s = mpz_scan1(t, 0);
    mpz_fdiv_q_2exp(t, t, s);
    mpz_set_ui(u, CZ_FR_TWO_ADICITY);
    check_u64("CZ_FR_TWO_ADICITY", s, u);
    LIMBS(CZ_FR_T, 4, t);
    mpz_sub_ui(u, t, 1);
    mpz_fdiv_q_2exp(u, u, 1);
    LIMBS(CZ_FR_T_MINUS1_OVER_2, 4, u);

    /* 7 must be a quadratic non-residue, so 7^t has order exactly 2^s (and generates the 2-part). */
    mpz_set_ui(u, 7);
    CHECK_MSG(mpz_legendre(u, FR.p) == -1, "7 is not a non-residue mod r");
    to_mont(u, &FR, 7);
    LIMBS(CZ_FR_GENERATOR_MONT, 4, u);
    mpz_t w;
    mpz_init_set_ui(w, 7);
    mpz_powm(w, w, t, FR.p); /* plain root of unity */
    mpz_mul(u, w, FR.R);
    mpz_mod(u, u, FR.p);
    LIMBS(CZ_FR_ROOT_OF_UNITY_MONT, 4, u);
    /* exact order 2^32: w^(2^31) = -1 */
    mpz_set_ui(u, 0);
    mpz_setbit(u, 31);
    mpz_powm(u, w, u, FR.p);
    mpz_add_ui(u, u, 1);
    CHECK_MSG(mpz_cmp(u, FR.p) == 0, "root of unity: w^(2^31) != -1");

    /* cz_fr_root_of_unity(k): exact order 2^k for every k, and k > 32 refused. */
    for (unsigned k = 0; k <= 33; k++) {
        cz_fr z;
        int rc = cz_fr_root_of_unity(&z, k);
        if (k > 32) {
            CHECK(rc == CZ_ERANGE);
            break;
        }
        ff_elem e = {.fr = z};
        ff_plain(&FR, u, &e);
        mpz_set_ui(t, 0);
        mpz_setbit(t, k);
        mpz_powm(t, u, t, FR.p);
        bool one = mpz_cmp_ui(t, 1) == 0, prim = true;
        if (k > 0) {
            mpz_set_ui(t, 0);
            mpz_setbit(t, k - 1);
            mpz_powm(t, u, t, FR.p);
            prim = mpz_cmp_ui(t, 1) != 0;
        }
        CHECK_MSG(rc == 0 && one && prim, "cz_fr_root_of_unity(%u) does not have order 2^%u", k, k);
    }

    /* Curve constant b = 4 and one, Montgomery form. */
    to_mont(u, &FP, 4);
    LIMBS(CZ_FP_B_MONT, 6, u);
    to_mont(u, &FP, 1);
    LIMBS(CZ_FP_ONE_MONT, 6, u);

    /* Tower facts the field code relies on: -1 is a non-residue in Fp (u^2 = -1 gives a field), and
     * 2 = norm(1+u) is a non-residue, so 1+u is not a square in Fp2 (the Fp6 non-residue). */
    mpz_sub_ui(u, FP.p, 1);
    CHECK(mpz_legendre(u, FP.p) == -1);
    mpz_set_ui(u, 2);
    CHECK(mpz_legendre(u, FP.p) == -1);

    /* Every constant in the header must have been checked above (stale or new constants fail). */
    char path[4096];
    snprintf(path, sizeof path, "%s", __FILE__);
    char *slash = strrchr(path, '/');
    if (slash) *slash = 0;
    strncat(path, "/../../src/ff/constants.h", sizeof path - strlen(path) - 1);
    FILE *fh = fopen(path, "r");
    CHECK_MSG(fh != NULL, "cannot open %s to list its constants", path);
    int defines = 0;
    if (fh) {
        char line[1024], name[128];
        while (fgets(line, sizeof line, fh)) {
            if (sscanf(line, "#define %127s", name) != 1 || strcmp(name, "CZ_FF_CONSTANTS_H") == 0) continue;
            defines++;
            bool found = false;
            for (int i = 0; i < n_checked; i++) found = found || strcmp(checked[i], name) == 0;
            CHECK_MSG(found, "constants.h defines %s, which this test does not re-derive", name);
        }
        fclose(fh);
    }
    printf("%d constants in constants.h, %d checked\n", defines, n_checked);
    mpz_clears(t, u, w, NULL);
    ff_field_clear(&FP);
    ff_field_clear(&FR);
    return cz_test_finish();
}
