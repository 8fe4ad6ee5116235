/* The device's inverse NTT over G1 (cz_gpu_g1_intt_unscaled) against the CPU's (groth16/h_lagrange.h's
 * cz_g1_intt_unscaled, itself checked against the definition by test_h_lagrange), point for point as affine bytes,
 * on fresh random points at 2^1..2^10 (CZ_TEST_GPU_MAX_N caps it), with infinities and repeated points among them,
 * the readback poisoned first; a size past 2^28 is refused. Then the Lagrange-form H bases built on the device
 * (cz_gpu_h_lagrange_bases) against the CPU's at 2^1..2^8, and their random linear check against H
 * (cz_gpu_h_lagrange_check): it passes, of both bases and of each alone, and fails with a point of Lc or Lh replaced
 * (checked alone and with the other) and with the two swapped. First the twiddle product that both use: k0 P + k1
 * [x^2]P on the device (cz_gpu_hl_prescale_) against the CPU's for edge halves (0, 1, all ones, powers of two, bit
 * patterns) and random ones, with infinities among the points; and the check's scalars, made on the device, against
 * the host's definition. Then some sizes again with the transform and the scaling in pieces of 7
 * (CZ_GPU_G1NTT_PIECE; a prover's build yields the device between pieces). Exits 77 (skipped) without a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "ec/msm_internal.h"
#include "gpu/gpu.h"
#include "gpu/gpu_internal.h"
#include "groth16/h_lagrange.h"
#include "testutil.h"

static cz_rng rng;

static void to_xyzz(cz_g1_xyzz *r, const cz_g1_jac *p) {
    if (cz_g1_jac_is_infinity(p)) {
        cz_g1_xyzz_set_infinity(r);
        return;
    }
    cz_g1_affine a;
    cz_g1_to_affine(&a, p);
    r->x = a.x, r->y = a.y, r->zz = CZ_FP_ONE_V, r->zzz = CZ_FP_ONE_V;
}

/* the device transform of v (n jacobian points) into out (affine) */
static int device_intt(cz_g1_affine *out, const cz_g1_jac *v, unsigned log_n) {
    const size_t n = (size_t)1 << log_n;
    cz_g1_xyzz *x = malloc(n * sizeof *x);
    void *d = NULL;
    for (size_t i = 0; i < n; i++) to_xyzz(&x[i], &v[i]);
    int rc = cz_gpu_malloc(&d, n * sizeof *x);
    if (!rc) rc = cz_gpu_memcpy_htod(d, x, n * sizeof *x);
    if (!rc) rc = cz_gpu_g1_intt_unscaled(d, log_n, NULL);
    memset(x, 0xa5, n * sizeof *x);
    if (!rc) rc = cz_gpu_memcpy_dtoh(x, d, n * sizeof *x);
    for (size_t i = 0; !rc && i < n; i++) cz_g1_xyzz_to_affine(&out[i], &x[i]);
    cz_gpu_free(d);
    free(x);
    return rc;
}

static void one_size(unsigned log_n) {
    cz_domain dom;
    CHECK(cz_domain_init(&dom, log_n) == 0);
    const size_t n = dom.n;
    cz_g1_jac *v = malloc(n * sizeof *v), *ref = malloc(n * sizeof *ref);
    cz_g1_affine *got = malloc(n * sizeof *got), *want = malloc(n * sizeof *want), a;
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = cz_rng_next(&rng) % 16;
        if (r == 0) cz_g1_jac_set_infinity(&v[i]);
        else if (r == 1 && i) v[i] = v[i - 1];
        else {
            cz_g1_random(&a, &rng);
            cz_g1_jac_from_affine(&v[i], &a);
        }
    }
    memcpy(ref, v, n * sizeof *v);
    CHECK(cz_g1_intt_unscaled(&dom, ref, 1) == 0);
    cz_g1_batch_to_affine(want, ref, n);
    int rc = device_intt(got, v, log_n);
    CHECK_MSG(rc == 0, "device G1 iNTT 2^%u: %s", log_n, cz_error_message());
    size_t bad = 0, first = n;
    for (size_t i = 0; !rc && i < n; i++)
        if (memcmp(&got[i], &want[i], sizeof got[i])) {
            if (!bad) first = i;
            bad++;
        }
    CHECK_MSG(bad == 0, "device G1 iNTT 2^%u: %zu of %zu points differ from the CPU's, first at %zu", log_n, bad, n,
              first);
    free(v), free(ref), free(got), free(want);
}

/* cz_gpu_h_lagrange_bases against the CPU's cz_groth16_h_lagrange on n - 1 fresh random H points (one of them
 * infinity from 2^3 on), both bases, the readback poisoned first */
static void check_bases(unsigned log_n) {
    cz_domain dom;
    CHECK(cz_domain_init(&dom, log_n) == 0);
    const size_t n = dom.n;
    cz_g1_affine *h = malloc((n - 1) * sizeof *h), *want = malloc(2 * n * sizeof *want), *got = malloc(2 * n * sizeof *got);
    for (size_t i = 0; i + 1 < n; i++) cz_g1_random(&h[i], &rng);
    if (n >= 8) memset(&h[cz_rng_next(&rng) % (n - 1)], 0, sizeof *h); /* (0, 0) */
    CHECK(cz_groth16_h_lagrange(want, want + n, &dom, h, n - 1, 1) == 0);
    void *d_h = NULL, *d_l = NULL;
    int rc = cz_gpu_malloc(&d_h, (n - 1) * sizeof *h);
    if (!rc) rc = cz_gpu_malloc(&d_l, 2 * n * sizeof *h);
    if (!rc) rc = cz_gpu_memcpy_htod(d_h, h, (n - 1) * sizeof *h);
    if (!rc) rc = cz_gpu_memset(d_l, 0x5a, 2 * n * sizeof *h);
    if (!rc) rc = cz_gpu_h_lagrange_bases(d_l, (cz_g1_affine *)d_l + n, d_h, log_n, NULL);
    memset(got, 0xa5, 2 * n * sizeof *got);
    if (!rc) rc = cz_gpu_memcpy_dtoh(got, d_l, 2 * n * sizeof *got);
    CHECK_MSG(rc == 0, "Lagrange bases 2^%u: %s", log_n, cz_error_message());
    for (int k = 0; k < 2 && !rc; k++) {
        size_t bad = 0, first = n;
        for (size_t j = 0; j < n; j++)
            if (memcmp(&got[k * n + j], &want[k * n + j], sizeof *got)) {
                if (!bad) first = j;
                bad++;
            }
        CHECK_MSG(bad == 0, "Lagrange bases 2^%u, %s: %zu of %zu points differ from the CPU's, first at %zu", log_n,
                  k ? "Lh" : "Lc", bad, n, first);
    }
    /* the random linear check: passes on the bases, fails with one point of either replaced by another */
    const uint64_t seed = cz_rng_next(&rng);
    rc = cz_gpu_h_lagrange_check(d_l, (cz_g1_affine *)d_l + n, d_h, log_n, seed, NULL);
    CHECK_MSG(rc == 0, "Lagrange check 2^%u: %s", log_n, cz_error_message());
    for (int k = 0; k < 2; k++) { /* each basis alone (it passes), then with a point replaced, alone and with both */
        cz_g1_affine *lc = k ? NULL : d_l, *lh = k ? (cz_g1_affine *)d_l + n : NULL;
        rc = cz_gpu_h_lagrange_check(lc, lh, d_h, log_n, seed + 2, NULL);
        CHECK_MSG(rc == 0, "Lagrange check 2^%u of %s alone: %s", log_n, k ? "Lh" : "Lc", cz_error_message());
        const size_t j = cz_rng_next(&rng) % n, o = k * n + j, src = (1 - k) * n + (j + 1) % n;
        if (!memcmp(&want[o], &want[src], sizeof *want)) continue;
        CHECK(cz_gpu_memcpy_htod((cz_g1_affine *)d_l + o, &want[src], sizeof *want) == 0);
        rc = cz_gpu_h_lagrange_check(lc, lh, d_h, log_n, seed + 1, NULL);
        CHECK_MSG(rc == CZ_EVERIFY, "Lagrange check 2^%u: %s[%zu] replaced, got %d", log_n, k ? "Lh" : "Lc", j, rc);
        rc = cz_gpu_h_lagrange_check(d_l, (cz_g1_affine *)d_l + n, d_h, log_n, seed + 3, NULL);
        CHECK_MSG(rc == CZ_EVERIFY, "Lagrange check 2^%u of both: %s[%zu] replaced, got %d", log_n, k ? "Lh" : "Lc",
                  j, rc);
        CHECK(cz_gpu_memcpy_htod((cz_g1_affine *)d_l + o, &want[o], sizeof *want) == 0);
    }
    /* Lc and Lh swapped: the check of both fails (at n = 2 they are the same points: s H_0 twice) */
    if (memcmp(want, want + n, n * sizeof *want)) {
        rc = cz_gpu_h_lagrange_check((cz_g1_affine *)d_l + n, d_l, d_h, log_n, seed + 4, NULL);
        CHECK_MSG(rc == CZ_EVERIFY, "Lagrange check 2^%u: Lc and Lh swapped, got %d", log_n, rc);
    }
    cz_gpu_free(d_h), cz_gpu_free(d_l);
    free(h), free(want), free(got);
}

/* The check's scalars (cz_gpu_lc_run_) against the host's definition, every element, the output poisoned first: the
 * powers rho f^i and the weights k / (rho f^i - 1) (a + b g^i), random constants (a or b 0 too), m elements over
 * T threads: the default (m here), 1, 3, m / 2 + 1 (threads of one and two elements) and m */
static void check_scalars(size_t m) {
    const size_t ts[] = {0, 1, 3, m / 2 + 1, m};
    cz_fr *got = malloc(m * sizeof *got), *want = malloc(m * sizeof *want);
    cz_fr *d = NULL;
    CHECK(cz_gpu_malloc((void **)&d, m * sizeof *d) == 0);
    for (int w = 0; w < 2; w++)
        for (unsigned ti = 0; ti < 5; ti++) {
            cz_gpu_lc_consts c;
            memset(&c, 0, sizeof c);
            cz_fr_random(&c.rho, &rng), cz_fr_random(&c.f, &rng), cz_fr_random(&c.g, &rng);
            cz_fr_random(&c.k, &rng), cz_fr_random(&c.a, &rng), cz_fr_random(&c.b, &rng);
            if (ti == 1) memset(&c.a, 0, sizeof c.a);
            if (ti == 2) memset(&c.b, 0, sizeof c.b);
            cz_fr x = c.rho, y = CZ_FR_ONE_V, t;
            for (size_t i = 0; i < m; i++) {
                if (!w) want[i] = x;
                else { /* k / (x - 1) (a + b y) */
                    cz_fr_sub(&t, &x, &CZ_FR_ONE_V);
                    CHECK(cz_fr_inv(&t, &t) == 0);
                    cz_fr_mul(&want[i], &t, &c.k);
                    cz_fr_mul(&t, &c.b, &y);
                    cz_fr_add(&t, &t, &c.a);
                    cz_fr_mul(&want[i], &want[i], &t);
                }
                cz_fr_mul(&x, &x, &c.f), cz_fr_mul(&y, &y, &c.g);
            }
            int rc = cz_gpu_memset(d, 0x5a, m * sizeof *d);
            if (!rc) rc = cz_gpu_lc_run_(d, m, w, &c, ts[ti], NULL);
            if (!rc) rc = cz_gpu_sync();
            memset(got, 0xa5, m * sizeof *got);
            if (!rc) rc = cz_gpu_memcpy_dtoh(got, d, m * sizeof *got);
            CHECK_MSG(rc == 0, "check scalars m %zu: %s", m, cz_error_message());
            size_t bad = 0, first = m;
            for (size_t i = 0; !rc && i < m; i++)
                if (memcmp(&got[i], &want[i], sizeof *got)) {
                    if (!bad) first = i;
                    bad++;
                }
            CHECK_MSG(bad == 0, "check %s, m %zu, T %zu: %zu differ from the host's, first at %zu",
                      w ? "weights" : "powers", m, ts[ti], bad, first);
        }
    cz_gpu_free(d);
    free(got), free(want);
}

/* one 128-bit half: edge values by kind, else random */
static void edge_half(uint64_t h[2], unsigned kind) {
    static const uint64_t pat[][2] = {
        {0, 0}, {1, 0}, {2, 0}, {3, 0}, {15, 0}, {17, 0}, {31, 0}, {~0ull, ~0ull}, {~0ull, 0}, {0, 1ull << 63},
        {0, 1}, {0x5555555555555555ull, 0x5555555555555555ull}, {0xaaaaaaaaaaaaaaaaull, 0xaaaaaaaaaaaaaaaaull},
        {0xfffffffffffffff7ull, 0x7fffffffffffffffull}, {0x8000000000000001ull, 0x8000000000000000ull},
        {0xf0f0f0f0f0f0f0f0ull, 0x0f0f0f0f0f0f0f0full}};
    const unsigned np = sizeof pat / sizeof pat[0];
    if (kind < np) h[0] = pat[kind][0], h[1] = pat[kind][1];
    else h[0] = cz_rng_next(&rng), h[1] = cz_rng_next(&rng);
}

/* the transform's twiddle product k0 P + k1 [x^2]P on the device (through the bases' prescale, one scalar a point)
 * against the CPU for every pair of edge halves and random ones, and for halves split from random scalars against
 * k P; the points random with infinities among them */
static void check_products(void) {
    const unsigned ne = 18; /* 16 patterns and 2 random */
    const size_t m = ne * ne + 64, n = m + 1;  /* prescale makes point n - 1 infinity */
    cz_g1_affine *p = malloc(m * sizeof *p), *got = malloc(n * sizeof *got), *want = malloc(m * sizeof *want);
    cz_g1_jac *wj = malloc(m * sizeof *wj);
    uint64_t *k = malloc(m * 4 * sizeof *k);
    cz_fp beta, px, py;
    cz_msm_endo_consts_(&beta, &px, &py);
    for (size_t i = 0; i < m; i++) {
        const int inf = i % 37 == 5;
        if (inf) memset(&p[i], 0, sizeof p[i]);
        else cz_g1_random(&p[i], &rng);
        cz_g1_jac pj, qj, t;
        cz_g1_affine q;
        cz_g1_jac_from_affine(&pj, &p[i]);
        if (i < (size_t)ne * ne) { /* k0 P + k1 [x^2]P, [x^2] the CPU MSM's */
            edge_half(k + 4 * i, (unsigned)(i / ne));
            edge_half(k + 4 * i + 2, (unsigned)(i % ne));
            cz_g1_msm_endo_(&q, &p[i]);
            cz_g1_jac_from_affine(&qj, &q);
            cz_g1_mul_raw(&wj[i], &pj, k + 4 * i, 128);
            cz_g1_mul_raw(&t, &qj, k + 4 * i + 2, 128);
            cz_g1_jac_add(&wj[i], &wj[i], &t);
        } else { /* a random scalar split as the twiddles are: k P */
            cz_fr sc;
            uint64_t raw[4];
            cz_fr_random(&sc, &rng);
            cz_fr_to_raw(raw, &sc);
            cz_msm_glv_split_(k + 4 * i, k + 4 * i + 2, raw);
            cz_g1_mul(&wj[i], &pj, &sc);
        }
        if (inf) cz_g1_jac_set_infinity(&wj[i]);
    }
    cz_g1_batch_to_affine(want, wj, m);
    void *d_p = NULL, *d_x = NULL, *d_k = NULL, *d_o = NULL;
    int rc = cz_gpu_malloc(&d_p, m * sizeof *p);
    if (!rc) rc = cz_gpu_malloc(&d_x, n * sizeof(cz_g1_xyzz));
    if (!rc) rc = cz_gpu_malloc(&d_k, m * 32);
    if (!rc) rc = cz_gpu_malloc(&d_o, n * sizeof *got);
    if (!rc) rc = cz_gpu_memcpy_htod(d_p, p, m * sizeof *p);
    if (!rc) rc = cz_gpu_memcpy_htod(d_k, k, m * 32);
    if (!rc) rc = cz_gpu_memset(d_o, 0x5a, n * sizeof *got);
    if (!rc) rc = cz_gpu_hl_prescale_(d_x, d_p, (const uint32_t *)d_k, 8, n, &beta, NULL);
    if (!rc) rc = cz_gpu_hl_affine_(d_o, d_x, n, NULL);
    if (!rc) rc = cz_gpu_sync();
    memset(got, 0xa5, n * sizeof *got);
    if (!rc) rc = cz_gpu_memcpy_dtoh(got, d_o, n * sizeof *got);
    CHECK_MSG(rc == 0, "G1 products: %s", cz_error_message());
    size_t bad = 0, first = m;
    for (size_t i = 0; !rc && i < m; i++)
        if (memcmp(&got[i], &want[i], sizeof *got)) {
            if (!bad) first = i;
            bad++;
        }
    CHECK_MSG(bad == 0, "G1 products: %zu of %zu differ from the CPU's, first at %zu", bad, m, first);
    cz_g1_affine z;
    memset(&z, 0, sizeof z);
    CHECK_MSG(!rc && !memcmp(&got[m], &z, sizeof z), "G1 products: the last point is not infinity");
    cz_gpu_free(d_p), cz_gpu_free(d_x), cz_gpu_free(d_k), cz_gpu_free(d_o);
    free(p), free(got), free(want), free(wj), free(k);
}

int main(void) {
    if (cz_gpu_device_count() <= 0) {
        printf("SKIP: no CUDA device\n");
        return 77;
    }
    cz_test_rng(&rng);
    const size_t cap = cz_test_gpu_max_n((size_t)1 << 10);
    check_products();
    printf("twiddle products checked\n");
    /* up to 2^16 + 5 unless CZ_TEST_GPU_MAX_N is set lower */
    const size_t ms[] = {1, 2, 3, 7, 64, 1000, 4097, ((size_t)1 << 16) + 5};
    const size_t scap = cz_test_gpu_max_n(ms[7]);
    for (unsigned i = 0; i < sizeof ms / sizeof ms[0] && ms[i] <= scap; i++) check_scalars(ms[i]);
    printf("the Lagrange check's scalars checked\n");
    for (unsigned log_n = 1; log_n <= 10 && ((size_t)1 << log_n) <= cap; log_n++) {
        one_size(log_n);
        printf("2^%u checked\n", log_n);
    }
    for (unsigned log_n = 1; log_n <= 8 && ((size_t)1 << log_n) <= cap; log_n++) {
        check_bases(log_n);
        printf("Lagrange bases 2^%u checked\n", log_n);
    }
    /* the transform and the bases' scaling in pieces (the build yields the device lock between them): 7 butterflies or
     * points a piece, so that every size past 2^3 takes several a stage, the last one short */
    setenv("CZ_GPU_G1NTT_PIECE", "7", 1);
    for (unsigned log_n = 4; log_n <= 10 && ((size_t)1 << log_n) <= cap; log_n += 3) {
        one_size(log_n);
        printf("2^%u checked in pieces of 7\n", log_n);
    }
    for (unsigned log_n = 4; log_n <= 8 && ((size_t)1 << log_n) <= cap; log_n += 4) {
        check_bases(log_n);
        printf("Lagrange bases 2^%u checked in pieces of 7\n", log_n);
    }
    unsetenv("CZ_GPU_G1NTT_PIECE");
    CHECK(cz_gpu_g1_intt_unscaled(NULL, 29, NULL) == CZ_ERANGE);
    CHECK(cz_gpu_h_lagrange_bases(NULL, NULL, NULL, 0, NULL) == CZ_ERANGE);
    return cz_test_finish();
}
