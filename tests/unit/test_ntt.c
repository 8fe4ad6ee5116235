/* NTT against its definitions: every transform of every size 2^0..2^10 equals the naive O(n^2)
 * sum, larger sizes (several passes, blocked bit reversal, threads) are spot-checked at random
 * points and by round trips. Roots of unity are re-derived here from r written out in hex. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "poly/fr_fast.h"
#include "poly/ntt.h"
#include "testutil.h"

/* r - 1 for BLS12-381 (r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001). */
static const char *R_MINUS_1_HEX = "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000000";

static void r_minus_1(uint64_t e[4]) {
    uint8_t be[32];
    cz_hex_decode(be, 32, R_MINUS_1_HEX);
    for (int i = 0; i < 4; i++) {
        e[i] = 0;
        for (int j = 0; j < 8; j++) e[i] |= (uint64_t)be[31 - (8 * i + j)] << (8 * j);
    }
}

/* 7^((r-1)/2^k), computed with the exponent shifted here rather than taken from the library. */
static void ref_root(cz_fr *w, unsigned k) {
    uint64_t e[4];
    r_minus_1(e);
    for (unsigned s = 0; s < k; s++) {
        for (int i = 0; i < 3; i++) e[i] = (e[i] >> 1) | (e[i + 1] << 63);
        e[3] >>= 1;
    }
    cz_fr seven;
    cz_fr_set_u64(&seven, 7);
    cz_fr_pow(w, &seven, e, 4);
}

static void fr_pow_u64(cz_fr *r, const cz_fr *a, uint64_t e) { cz_fr_pow(r, a, &e, 1); }

/* sum_i a_i x^i (Horner) */
static void eval_at(cz_fr *r, const cz_fr *a, size_t n, const cz_fr *x) {
    cz_fr acc = CZ_FR_ZERO_V;
    for (size_t i = n; i-- > 0;) {
        cz_fr_mul(&acc, &acc, x);
        cz_fr_add(&acc, &acc, &a[i]);
    }
    *r = acc;
}

static void random_vec(cz_fr *a, size_t n, cz_rng *rng) {
    for (size_t i = 0; i < n; i++) cz_fr_random(&a[i], rng);
}

static int vec_equal(const cz_fr *a, const cz_fr *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!cz_fr_equal(&a[i], &b[i])) return 0;
    return 1;
}

/* Evaluations of a at shift * w^k for all k (shift = 1: the plain domain). */
static void naive_eval(cz_fr *out, const cz_fr *a, size_t n, const cz_fr *w, const cz_fr *shift) {
    cz_fr x = *shift;
    for (size_t k = 0; k < n; k++) {
        eval_at(&out[k], a, n, &x);
        cz_fr_mul(&x, &x, w);
    }
}

/* The NTT's private add/sub/mul against ff/fr.h on random values and the edge cases 0, 1, p-1. */
static void test_fast_arith(cz_rng *rng) {
    cz_fr edge[4];
    edge[0] = CZ_FR_ZERO_V;
    edge[1] = CZ_FR_ONE_V;
    cz_fr_neg(&edge[2], &CZ_FR_ONE_V);
    edge[3] = (cz_fr){{1, 0, 0, 0}}; /* the smallest nonzero representation (2^-256 mod r) */
#ifdef CZ_FRF_HAVE_ADX_ASM
    int adx = cz_frf_cpu_has_adx();
#endif
    int ok = 1;
    for (int i = 0; i < 200000; i++) {
        cz_fr x, y, r1, r2;
        if (i < 16) {
            x = edge[i / 4];
            y = edge[i % 4];
        } else {
            cz_fr_random(&x, rng);
            cz_fr_random(&y, rng);
        }
        cz_fr_mul(&r1, &x, &y);
        cz_frf_mul(&r2, &x, &y);
        ok &= cz_fr_equal(&r1, &r2);
#ifdef CZ_FRF_HAVE_ADX_ASM
        if (adx) {
            cz_frf_mul_adx(&r2, &x, &y);
            ok &= cz_fr_equal(&r1, &r2);
            r2 = x; /* output aliasing an input */
            cz_frf_mul_adx(&r2, &r2, &y);
            ok &= cz_fr_equal(&r1, &r2);
        }
#endif
        cz_fr_add(&r1, &x, &y);
        cz_frf_add(&r2, &x, &y);
        ok &= cz_fr_equal(&r1, &r2);
        cz_fr_sub(&r1, &x, &y);
        cz_frf_sub(&r2, &x, &y);
        ok &= cz_fr_equal(&r1, &r2);
    }
    CHECK_MSG(ok, "fast Fr arithmetic differs from ff/fr.h");
}

static void test_roots(void) {
    cz_fr minus_one;
    cz_fr_neg(&minus_one, &CZ_FR_ONE_V);
    for (unsigned k = 0; k <= 32; k++) {
        cz_fr w, lib, t;
        ref_root(&w, k);
        CHECK(cz_fr_root_of_unity(&lib, k) == 0);
        CHECK_MSG(cz_fr_equal(&w, &lib), "root of unity 2^%u", k);
        /* exact order 2^k: w^(2^(k-1)) = -1 (so the order does not divide 2^(k-1)), w^(2^k) = 1 */
        t = w;
        for (unsigned i = 0; i + 1 < k; i++) cz_fr_sqr(&t, &t);
        if (k > 0) {
            CHECK_MSG(cz_fr_equal(&t, &minus_one), "omega_2^%u^(2^%u) != -1", k, k - 1);
            cz_fr_sqr(&t, &t);
        }
        CHECK_MSG(cz_fr_equal(&t, &CZ_FR_ONE_V), "omega_2^%u^(2^%u) != 1", k, k);
    }
}

static void test_domain(void) {
    for (unsigned k = 0; k <= CZ_NTT_MAX_LOG; k++) {
        cz_domain d;
        CHECK(cz_domain_init(&d, k) == 0);
        cz_fr w, t;
        ref_root(&w, k);
        CHECK(d.n == (size_t)1 << k && d.log_n == k);
        CHECK(cz_fr_equal(&d.omega, &w));
        cz_fr_mul(&t, &d.omega, &d.omega_inv);
        CHECK(cz_fr_equal(&t, &CZ_FR_ONE_V));
        cz_fr_set_u64(&t, (uint64_t)d.n);
        cz_fr_mul(&t, &t, &d.n_inv);
        CHECK(cz_fr_equal(&t, &CZ_FR_ONE_V));
        cz_fr_set_u64(&t, 7);
        CHECK(cz_fr_equal(&d.g, &t));
        cz_fr_mul(&t, &d.g, &d.g_inv);
        CHECK(cz_fr_equal(&t, &CZ_FR_ONE_V));
    }
    cz_domain d;
    CHECK(cz_domain_init(&d, CZ_NTT_MAX_LOG + 1) == CZ_ERANGE);
    CHECK(cz_domain_init(&d, 40) == CZ_ERANGE);
    /* a hand-made oversized domain must be refused by every transform, leaving the data alone */
    cz_domain big;
    CHECK(cz_domain_init(&big, 3) == 0);
    big.log_n = 29;
    cz_fr one[1] = {CZ_FR_ONE_V};
    CHECK(cz_ntt_forward(&big, one) == CZ_ERANGE);
    CHECK(cz_ntt_inverse(&big, one) == CZ_ERANGE);
    CHECK(cz_ntt_coset_forward(&big, one) == CZ_ERANGE);
    CHECK(cz_ntt_coset_inverse(&big, one) == CZ_ERANGE);
    CHECK(cz_ntt_divide_by_z_on_coset(&big, one) == CZ_ERANGE);
    CHECK(cz_fr_equal(&one[0], &CZ_FR_ONE_V));

    struct { size_t m; unsigned k; } cases[] = {{0, 0}, {1, 0}, {2, 1}, {3, 2}, {4, 2}, {5, 3}, {1000, 10},
                                                 {1024, 10}, {1025, 11}, {(size_t)1 << 28, 28}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK(cz_domain_for_size(&d, cases[i].m) == 0);
        CHECK_MSG(d.log_n == cases[i].k, "for_size(%zu) gave 2^%u", cases[i].m, d.log_n);
    }
    CHECK(cz_domain_for_size(&d, ((size_t)1 << 28) + 1) == CZ_ERANGE);
}

/* All four transforms against their definitions, for every size up to 2^max_log. */
static void test_naive(cz_rng *rng, unsigned max_log) {
    size_t nmax = (size_t)1 << max_log;
    cz_fr *a = malloc(nmax * sizeof(cz_fr)), *b = malloc(nmax * sizeof(cz_fr)), *ref = malloc(nmax * sizeof(cz_fr));
    for (unsigned k = 0; k <= max_log; k++) {
        cz_domain d;
        CHECK(cz_domain_init(&d, k) == 0);
        size_t n = d.n;
        cz_fr w, winv, g, ginv, ninv, one = CZ_FR_ONE_V;
        ref_root(&w, k);
        cz_fr_inv(&winv, &w);
        cz_fr_set_u64(&g, 7);
        cz_fr_inv(&ginv, &g);
        cz_fr_set_u64(&ninv, n);
        cz_fr_inv(&ninv, &ninv);

        /* forward: b_k = a(w^k) */
        random_vec(a, n, rng);
        memcpy(b, a, n * sizeof(cz_fr));
        CHECK(cz_ntt_forward(&d, b) == 0);
        naive_eval(ref, a, n, &w, &one);
        CHECK_MSG(vec_equal(b, ref, n), "forward 2^%u", k);

        /* inverse: b_i = (1/n) sum_k a_k w^(-ik) */
        memcpy(b, a, n * sizeof(cz_fr));
        CHECK(cz_ntt_inverse(&d, b) == 0);
        naive_eval(ref, a, n, &winv, &one);
        for (size_t i = 0; i < n; i++) cz_fr_mul(&ref[i], &ref[i], &ninv);
        CHECK_MSG(vec_equal(b, ref, n), "inverse 2^%u", k);

        /* coset forward: b_k = a(g w^k) */
        memcpy(b, a, n * sizeof(cz_fr));
        CHECK(cz_ntt_coset_forward(&d, b) == 0);
        naive_eval(ref, a, n, &w, &g);
        CHECK_MSG(vec_equal(b, ref, n), "coset forward 2^%u", k);

        /* coset inverse: the polynomial b interpolates a on the coset, i.e. b(g w^k) = a_k */
        memcpy(b, a, n * sizeof(cz_fr));
        CHECK(cz_ntt_coset_inverse(&d, b) == 0);
        naive_eval(ref, b, n, &w, &g);
        CHECK_MSG(vec_equal(a, ref, n), "coset inverse 2^%u", k);

        /* edge inputs: zero stays zero, the constant 1 evaluates to all ones, a delta at 0 inverts to 1/n */
        memset(b, 0, n * sizeof(cz_fr));
        CHECK(cz_ntt_forward(&d, b) == 0);
        int ok = 1;
        for (size_t i = 0; i < n; i++) ok &= cz_fr_is_zero(&b[i]);
        memset(b, 0, n * sizeof(cz_fr));
        b[0] = one;
        CHECK(cz_ntt_forward(&d, b) == 0);
        for (size_t i = 0; i < n; i++) ok &= cz_fr_equal(&b[i], &one);
        CHECK(cz_ntt_inverse(&d, b) == 0);
        ok &= cz_fr_equal(&b[0], &one);
        for (size_t i = 1; i < n; i++) ok &= cz_fr_is_zero(&b[i]);
        CHECK_MSG(ok, "edge inputs 2^%u", k);
        /* p - 1 everywhere: -(sum w^ik) is -n at k = 0 and 0 elsewhere */
        cz_fr m1, mn;
        cz_fr_neg(&m1, &one);
        cz_fr_set_u64(&mn, n);
        cz_fr_neg(&mn, &mn);
        for (size_t i = 0; i < n; i++) b[i] = m1;
        CHECK(cz_ntt_forward(&d, b) == 0);
        ok = cz_fr_equal(&b[0], &mn);
        for (size_t i = 1; i < n; i++) ok &= cz_fr_is_zero(&b[i]);
        CHECK_MSG(ok, "all p-1 input 2^%u", k);
    }
    free(a);
    free(b);
    free(ref);
}

/* Large sizes: a few random outputs of forward and coset forward against Horner evaluation, then
 * the round trip. */
static void test_large(cz_rng *rng, unsigned k, int coset) {
    cz_domain d;
    CHECK(cz_domain_init(&d, k) == 0);
    size_t n = d.n;
    cz_fr *a = malloc(n * sizeof(cz_fr)), *b = malloc(n * sizeof(cz_fr));
    random_vec(a, n, rng);
    memcpy(b, a, n * sizeof(cz_fr));
    cz_fr w, g;
    ref_root(&w, k);
    cz_fr_set_u64(&g, coset ? 7 : 1);
    CHECK(coset ? cz_ntt_coset_forward(&d, b) == 0 : cz_ntt_forward(&d, b) == 0);
    size_t idx[6] = {0, 1, n - 1, cz_rng_next(rng) & (n - 1), cz_rng_next(rng) & (n - 1), n / 2 + 1};
    for (int j = 0; j < 6; j++) {
        cz_fr x, v;
        fr_pow_u64(&x, &w, idx[j]);
        cz_fr_mul(&x, &x, &g);
        eval_at(&v, a, n, &x);
        CHECK_MSG(cz_fr_equal(&v, &b[idx[j]]), "%s 2^%u at %zu", coset ? "coset forward" : "forward", k, idx[j]);
    }
    CHECK(coset ? cz_ntt_coset_inverse(&d, b) == 0 : cz_ntt_inverse(&d, b) == 0);
    CHECK_MSG(vec_equal(a, b, n), "%s round trip 2^%u", coset ? "coset" : "plain", k);
    free(a);
    free(b);
}

/* Z(x) = x^n - 1 evaluated at each coset point, multiplied back. */
static void test_divide_by_z(cz_rng *rng, unsigned k) {
    cz_domain d;
    CHECK(cz_domain_init(&d, k) == 0);
    size_t n = d.n;
    cz_fr *a = malloc(n * sizeof(cz_fr)), *b = malloc(n * sizeof(cz_fr));
    random_vec(a, n, rng);
    a[0] = CZ_FR_ZERO_V;
    memcpy(b, a, n * sizeof(cz_fr));
    CHECK(cz_ntt_divide_by_z_on_coset(&d, b) == 0);
    cz_fr w, x;
    ref_root(&w, k);
    cz_fr_set_u64(&x, 7);
    int ok = 1;
    for (size_t i = 0; i < n; i++) {
        cz_fr z, t;
        fr_pow_u64(&z, &x, n);
        cz_fr_sub(&z, &z, &CZ_FR_ONE_V);
        cz_fr_mul(&t, &b[i], &z);
        ok &= cz_fr_equal(&t, &a[i]);
        cz_fr_mul(&x, &x, &w);
    }
    CHECK_MSG(ok, "divide_by_z_on_coset 2^%u", k);
    free(a);
    free(b);
}

/* One and two threads must give the same bytes (and so must the default count). */
static void test_threads(cz_rng *rng, unsigned k) {
    cz_domain d;
    CHECK(cz_domain_init(&d, k) == 0);
    size_t n = d.n;
    cz_fr *a = malloc(n * sizeof(cz_fr)), *b1 = malloc(n * sizeof(cz_fr)), *b2 = malloc(n * sizeof(cz_fr));
    random_vec(a, n, rng);
    int saved = omp_get_max_threads();
    int (*fns[4])(const cz_domain *, cz_fr *) = {cz_ntt_forward, cz_ntt_inverse, cz_ntt_coset_forward,
                                                  cz_ntt_coset_inverse};
    for (int f = 0; f < 4; f++) {
        memcpy(b1, a, n * sizeof(cz_fr));
        memcpy(b2, a, n * sizeof(cz_fr));
        omp_set_num_threads(1);
        CHECK(fns[f](&d, b1) == 0);
        omp_set_num_threads(2);
        CHECK(fns[f](&d, b2) == 0);
        CHECK_MSG(vec_equal(b1, b2, n), "transform %d differs between 1 and 2 threads at 2^%u", f, k);
    }
    omp_set_num_threads(saved);
    free(a);
    free(b1);
    free(b2);
}

int main(void) {
    cz_rng rng;
    cz_test_rng(&rng);
    test_fast_arith(&rng);
    test_roots();
    test_domain();
    test_naive(&rng, 10);
    /* 2^11, 2^12: two passes, blocked bit reversal, multi-threaded */
    for (unsigned k = 11; k <= 12; k++) {
        cz_domain d;
        CHECK(cz_domain_init(&d, k) == 0);
        size_t n = d.n;
        cz_fr *a = malloc(n * sizeof(cz_fr)), *b = malloc(n * sizeof(cz_fr)), *ref = malloc(n * sizeof(cz_fr));
        cz_fr w, one = CZ_FR_ONE_V;
        ref_root(&w, k);
        random_vec(a, n, &rng);
        memcpy(b, a, n * sizeof(cz_fr));
        CHECK(cz_ntt_forward(&d, b) == 0);
        naive_eval(ref, a, n, &w, &one);
        CHECK_MSG(vec_equal(b, ref, n), "forward 2^%u", k);
        free(a);
        free(b);
        free(ref);
    }
    for (unsigned k = 13; k <= 20; k++) test_large(&rng, k, 0);
    test_large(&rng, 16, 1);
    test_divide_by_z(&rng, 10);
    test_divide_by_z(&rng, 0);
    test_threads(&rng, 12);
    test_threads(&rng, 17);
    return cz_test_finish();
}
