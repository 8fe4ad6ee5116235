/* CPU MSM and 0/1 batch addition (G1, G2) against naive sums built from the jacobian group law
 * (double-and-add, one mixed addition per selected base), across thread counts, with the edge
 * cases: n = 0, infinity bases, repeated and opposite bases, scalars 0, 1, r-1 and small ones,
 * bitmaps of density 0 and 1, sizes that are not multiples of 64 and stray bits past n. */
#include <stdlib.h>
#include <string.h>

#include "ec/msm.h"
#include "ec/msm_internal.h"
#include "testutil.h"

static cz_rng rng;

/* Test-local helpers per group: point equality across representations, double-and-add, random
 * points on the curve (random x until x^3 + b is a square; subgroup membership does not matter). */
#define DEFINE_HELPERS(G, F)                                                                     \
    static bool G##_eq(const cz_##G##_jac *a, const cz_##G##_jac *b) {                            \
        bool ia = cz_##G##_jac_is_infinity(a), ib = cz_##G##_jac_is_infinity(b);                  \
        if (ia || ib) return ia == ib;                                                            \
        cz_##F z1, z2, s, t;                                                                      \
        cz_##F##_sqr(&z1, &a->z);                                                                 \
        cz_##F##_sqr(&z2, &b->z);                                                                 \
        cz_##F##_mul(&s, &a->x, &z2);                                                             \
        cz_##F##_mul(&t, &b->x, &z1);                                                             \
        if (!cz_##F##_equal(&s, &t)) return false;                                                \
        cz_##F##_mul(&z1, &z1, &a->z);                                                            \
        cz_##F##_mul(&z2, &z2, &b->z);                                                            \
        cz_##F##_mul(&s, &a->y, &z2);                                                             \
        cz_##F##_mul(&t, &b->y, &z1);                                                             \
        return cz_##F##_equal(&s, &t);                                                            \
    }                                                                                             \
    static void G##_mul_raw(cz_##G##_jac *r, const cz_##G##_affine *p, const uint64_t k[4]) {     \
        cz_##G##_jac acc;                                                                         \
        cz_##G##_jac_set_infinity(&acc);                                                          \
        for (int i = 255; i >= 0; i--) {                                                          \
            cz_##G##_jac_double(&acc, &acc);                                                      \
            if ((k[i / 64] >> (i % 64)) & 1) cz_##G##_jac_add_affine(&acc, &acc, p);              \
        }                                                                                         \
        *r = acc;                                                                                 \
    }                                                                                             \
    static void G##_random_point(cz_##G##_affine *p) {                                            \
        cz_##F x, y, rhs;                                                                         \
        do {                                                                                      \
            cz_##F##_random(&x, &rng);                                                            \
            cz_##F##_sqr(&rhs, &x);                                                               \
            cz_##F##_mul(&rhs, &rhs, &x);                                                         \
            cz_##F##_add(&rhs, &rhs, &G##_b);                                                     \
        } while (cz_##F##_sqrt(&y, &rhs) != 0);                                                   \
        if (cz_rng_next(&rng) & 1) cz_##F##_neg(&y, &y);                                          \
        p->x = x;                                                                                 \
        p->y = y;                                                                                 \
    }                                                                                             \
    static void G##_naive_msm(cz_##G##_jac *r, const cz_##G##_affine *bases, const cz_fr *k, size_t n) { \
        cz_##G##_jac acc, t;                                                                      \
        cz_##G##_jac_set_infinity(&acc);                                                          \
        for (size_t i = 0; i < n; i++) {                                                          \
            uint64_t raw[4];                                                                      \
            cz_fr_to_raw(raw, &k[i]);                                                             \
            G##_mul_raw(&t, &bases[i], raw);                                                      \
            cz_##G##_jac_add(&acc, &acc, &t);                                                     \
        }                                                                                         \
        *r = acc;                                                                                 \
    }                                                                                             \
    static void G##_naive_badd(cz_##G##_jac *r, const cz_##G##_affine *bases, const uint64_t *bm, size_t n) { \
        cz_##G##_jac_set_infinity(r);                                                             \
        for (size_t i = 0; i < n; i++)                                                            \
            if ((bm[i / 64] >> (i % 64)) & 1) cz_##G##_jac_add_affine(r, r, &bases[i]);           \
    }                                                                                             \
    /* n bases from a pool of distinct random points, with some infinities, repeats and negations \
     * placed next to each other so buckets and buffered pairs meet the special cases. */         \
    static cz_##G##_affine *G##_bases(size_t n, size_t pool) {                                    \
        cz_##G##_affine *b = malloc((n ? n : 1) * sizeof *b);                                     \
        for (size_t i = 0; i < n && i < pool; i++) G##_random_point(&b[i]);                       \
        for (size_t i = pool; i < n; i++) b[i] = b[(i * 7919u) % pool];                           \
        for (size_t i = 0; i < n; i++) {                                                          \
            unsigned u = (unsigned)(cz_rng_next(&rng) % 32);                                      \
            if (u == 0) memset(&b[i], 0, sizeof b[i]);                                            \
            else if (u == 1 && i > 0) b[i] = b[i - 1];                                            \
            else if (u == 2 && i > 0) cz_##G##_affine_neg(&b[i], &b[i - 1]);                      \
        }                                                                                         \
        return b;                                                                                 \
    }

static cz_fp g1_b;
static cz_fp2 g2_b;
DEFINE_HELPERS(g1, fp)
DEFINE_HELPERS(g2, fp2)

/* Scalars: a mix of random, 0, 1, r-1 and small values. */
static void random_scalars(cz_fr *k, size_t n) {
    for (size_t i = 0; i < n; i++) {
        switch (cz_rng_next(&rng) % 8) {
        case 0: k[i] = CZ_FR_ZERO_V; break;
        case 1: k[i] = CZ_FR_ONE_V; break;
        case 2: cz_fr_neg(&k[i], &CZ_FR_ONE_V); break;
        case 3: cz_fr_set_u64(&k[i], cz_rng_next(&rng) % 70000); break;
        default: cz_fr_random(&k[i], &rng); break;
        }
    }
}

static void test_digits(void) {
    /* Booth digits rebuild the scalar (checked in Fr) and stay within [-2^(c-1), 2^(c-1)]. */
    for (int it = 0; it < 200; it++) {
        cz_fr k;
        if (it == 0) cz_fr_neg(&k, &CZ_FR_ONE_V);
        else if (it == 1) k = CZ_FR_ZERO_V;
        else cz_fr_random(&k, &rng);
        uint64_t raw[4];
        cz_fr_to_raw(raw, &k);
        for (unsigned c = 1; c <= 16; c++) {
            unsigned nw = (256 + c - 1) / c;
            cz_fr acc = CZ_FR_ZERO_V, pow2c, d;
            cz_fr_set_u64(&pow2c, (uint64_t)1 << c);
            bool in_range = true;
            for (unsigned w = nw; w-- > 0;) {
                int dig = cz_msm_digit_(raw, w, c);
                if (dig > (1 << (c - 1)) || dig < -(1 << (c - 1))) in_range = false;
                cz_fr_set_u64(&d, (uint64_t)(dig < 0 ? -dig : dig));
                if (dig < 0) cz_fr_neg(&d, &d);
                cz_fr_mul(&acc, &acc, &pow2c);
                cz_fr_add(&acc, &acc, &d);
            }
            CHECK_MSG(in_range && cz_fr_equal(&acc, &k), "digits c=%u", c);
        }
    }
    /* The plan splits points only when windows are fewer than threads. */
    CHECK(cz_msm_plan_(1u << 20, 1).chunks == 1);
    CHECK(cz_msm_plan_(1u << 13, 64).chunks > 1);
    CHECK(cz_msm_plan_(0, 4).c >= 1);
}

#define DEFINE_MSM_TESTS(G)                                                                       \
    static void G##_test_small(void) {                                                            \
        static const size_t sizes[] = {0, 1, 2, 3, 17, 100, 1000};                                \
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {                          \
            size_t n = sizes[si];                                                                 \
            cz_##G##_affine *b = G##_bases(n, n < 300 ? n : 300);                                                 \
            cz_fr *k = malloc((n ? n : 1) * sizeof *k);                                           \
            random_scalars(k, n);                                                                 \
            cz_##G##_jac want, got;                                                               \
            G##_naive_msm(&want, b, k, n);                                                        \
            cz_##G##_msm(&got, b, k, n, 0);                                                       \
            CHECK_MSG(G##_eq(&got, &want), #G " msm n=%zu", n);                                   \
            if (n == 0) CHECK(cz_##G##_jac_is_infinity(&got));                                    \
            /* Same base everywhere (buckets double) with one fixed scalar: (n k) P. */           \
            if (n > 0) {                                                                          \
                /* (not (n k mod r) P: random curve points need not lie in the subgroup) */        \
                cz_##G##_jac kp;                                                                  \
                for (size_t i = 1; i < n; i++) b[i] = b[0], k[i] = k[0];                          \
                G##_naive_msm(&kp, b, k, 1);                                                      \
                cz_##G##_jac_set_infinity(&want);                                                 \
                for (size_t i = 0; i < n; i++) cz_##G##_jac_add(&want, &want, &kp);               \
                cz_##G##_msm(&got, b, k, n, 2);                                                   \
                CHECK_MSG(G##_eq(&got, &want), #G " msm repeated n=%zu", n);                      \
            }                                                                                     \
            free(b);                                                                              \
            free(k);                                                                              \
        }                                                                                         \
    }                                                                                             \
    static void G##_test_threads(size_t n) {                                                      \
        cz_##G##_affine *b = G##_bases(n, 512);                                                  \
        cz_fr *k = malloc(n * sizeof *k);                                                         \
        random_scalars(k, n);                                                                     \
        cz_##G##_jac ref, got, lo, hi;                                                            \
        cz_##G##_msm(&ref, b, k, n, 1);                                                           \
        static const int threads[] = {2, 3, 7, 64};                                               \
        for (size_t ti = 0; ti < sizeof threads / sizeof threads[0]; ti++) {                      \
            cz_##G##_msm(&got, b, k, n, threads[ti]);                                             \
            CHECK_MSG(G##_eq(&got, &ref), #G " msm n=%zu threads=%d", n, threads[ti]);            \
        }                                                                                         \
        /* Split sums use other window widths: MSM(all) = MSM(first 1/3) + MSM(rest). */          \
        cz_##G##_msm(&lo, b, k, n / 3, 1);                                                        \
        cz_##G##_msm(&hi, b + n / 3, k + n / 3, n - n / 3, 2);                                    \
        cz_##G##_jac_add(&lo, &lo, &hi);                                                          \
        CHECK_MSG(G##_eq(&lo, &ref), #G " msm split n=%zu", n);                                   \
        free(b);                                                                                  \
        free(k);                                                                                  \
    }                                                                                             \
    static void G##_test_batch_add(size_t n, unsigned density_pct) {                              \
        cz_##G##_affine *b = G##_bases(n, 512);                                                  \
        size_t words = (n + 63) / 64;                                                             \
        uint64_t *bm = calloc(words ? words : 1, sizeof *bm);                                     \
        for (size_t i = 0; i < n; i++)                                                            \
            if (cz_rng_next(&rng) % 100 < density_pct) bm[i / 64] |= (uint64_t)1 << (i % 64);     \
        if (n % 64) bm[words - 1] |= ~(uint64_t)0 << (n % 64); /* bits past n must be ignored */  \
        cz_##G##_jac want, got;                                                                   \
        G##_naive_badd(&want, b, bm, n);                                                          \
        static const int threads[] = {1, 2, 3, 7};                                                \
        for (size_t ti = 0; ti < sizeof threads / sizeof threads[0]; ti++) {                      \
            cz_##G##_batch_add(&got, b, bm, n, threads[ti]);                                      \
            CHECK_MSG(G##_eq(&got, &want), #G " batch add n=%zu density=%u%% threads=%d", n,     \
                      density_pct, threads[ti]);                                                  \
        }                                                                                         \
        free(b);                                                                                  \
        free(bm);                                                                                 \
    }

DEFINE_MSM_TESTS(g1)
DEFINE_MSM_TESTS(g2)

int main(void) {
    cz_test_rng(&rng);
    cz_fp_set_u64(&g1_b, 4);
    g2_b.c0 = g1_b;
    g2_b.c1 = g1_b;

    test_digits();
    g1_test_small();
    g2_test_small();
    g1_test_threads(1u << 14);
    g2_test_threads(1u << 12);

    static const size_t sizes[] = {0, 1, 63, 64, 65, 1000, 70001};
    static const unsigned dens[] = {0, 1, 50, 100};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (size_t di = 0; di < sizeof dens / sizeof dens[0]; di++) {
            g1_test_batch_add(sizes[si], dens[di]);
            if (sizes[si] <= 20000) g2_test_batch_add(sizes[si], dens[di]);
        }
    g2_test_batch_add(30001, 50);
    return cz_test_finish();
}
