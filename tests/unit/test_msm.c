/* CPU MSM and 0/1 batch addition (G1, G2) against naive sums built from the jacobian group law
 * (double-and-add, one mixed addition per selected base), against one scalar multiplication
 * (sum k_i a_i) G for subgroup bases a_i G, and across thread counts; the batch-affine bucket path
 * under forced plans (tiny batches, every window width class) and around the automatic switch; edge cases: n = 0, infinity
 * bases, repeated and opposite bases, scalars 0, 1, r-1 and small ones, bitmaps of density 0 and 1,
 * sizes that are not multiples of 64 and stray bits past n. The subgroup MSMs (endomorphism split) run
 * in the subgroup and batch-affine tests too, and against the naive sum with scalars on the split's
 * boundaries; the [x^2] maps against a scalar multiplication. */
#include <stdlib.h>
#include <string.h>

#include "ec/ec_endo.h"
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
    CHECK(cz_msm_plan_(1u << 20, 1, 1).chunks == 1);
    CHECK(cz_msm_plan_(1u << 13, 64, 1).chunks > 1);
    CHECK(cz_msm_plan_(0, 4, 2).c >= 1);
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
    /* Subgroup bases (i+1) G: the MSM must equal (sum k_i (i+1)) G, with the sum taken in Fr     \
     * and one scalar multiplication by the ec module's w-NAF code as the reference. */           \
    static void G##_test_subgroup(size_t n, int nthreads) {                                       \
        cz_##G##_affine g, *b = malloc(n * sizeof *b);                                            \
        cz_##G##_jac *j = malloc(n * sizeof *j), acc, want, got;                                  \
        cz_fr *k = malloc(n * sizeof *k), sum = CZ_FR_ZERO_V, t;                                  \
        cz_##G##_generator(&g);                                                                   \
        cz_##G##_jac_from_affine(&acc, &g);                                                       \
        for (size_t i = 0; i < n; i++) {                                                          \
            j[i] = acc;                                                                           \
            cz_##G##_jac_add_affine(&acc, &acc, &g);                                              \
        }                                                                                         \
        cz_##G##_batch_to_affine(b, j, n);                                                        \
        random_scalars(k, n);                                                                     \
        for (size_t i = 0; i < n; i++) {                                                          \
            if (i % 97 == 5) { /* an infinity base contributes nothing */                         \
                memset(&b[i], 0, sizeof b[i]);                                                    \
                continue;                                                                         \
            }                                                                                     \
            cz_fr_set_u64(&t, i + 1);                                                             \
            cz_fr_mul(&t, &t, &k[i]);                                                             \
            cz_fr_add(&sum, &sum, &t);                                                            \
        }                                                                                         \
        cz_##G##_jac_from_affine(&acc, &g);                                                       \
        cz_##G##_mul(&want, &acc, &sum);                                                          \
        cz_##G##_msm(&got, b, k, n, nthreads);                                                    \
        CHECK_MSG(G##_eq(&got, &want) && cz_##G##_jac_equal(&got, &want),                         \
                  #G " msm subgroup n=%zu threads=%d", n, nthreads);                              \
        cz_##G##_msm_subgroup(&got, b, k, n, nthreads);                                           \
        CHECK_MSG(cz_##G##_jac_equal(&got, &want), #G " msm_subgroup n=%zu threads=%d", n, nthreads); \
        free(b);                                                                                  \
        free(j);                                                                                  \
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

/* Stress of the batch-affine bucket path. Bases are small multiples e_i G of the generator
 * (e_i in [-M, M], 0 = the infinity base), so the reference is one scalar multiplication
 * (sum_i k_i e_i) G with the sum taken in Fr: cheap enough to check every prefix size against
 * every plan. Patterns put the same base with the same scalar into one bucket several times in a
 * row (doubling inside a batch, then busy buckets that must wait), P and -P with equal scalars
 * (the bucket empties), infinity bases, and scalars 0, 1, r-1, all equal, mostly bits. */
#define BA_M 24
enum { PAT_MIXED, PAT_RUNS, PAT_PAIRS, PAT_EQUAL, PAT_BITS, PAT_COUNT };

static void pattern(int *e, cz_fr *k, size_t n, int pat) {
    cz_fr common;
    cz_fr_random(&common, &rng);
    for (size_t i = 0; i < n; i++) {
        int v = 1 + (int)(cz_rng_next(&rng) % BA_M);
        e[i] = cz_rng_next(&rng) & 1 ? v : -v;
        random_scalars(&k[i], 1);
    }
    switch (pat) {
    case PAT_MIXED: /* some infinities, repeats and negations of the previous base */
        for (size_t i = 1; i < n; i++) {
            unsigned u = (unsigned)(cz_rng_next(&rng) % 8);
            if (u == 0) e[i] = 0;
            else if (u == 1) e[i] = e[i - 1], k[i] = k[i - 1];
            else if (u == 2) e[i] = -e[i - 1], k[i] = k[i - 1];
        }
        break;
    case PAT_RUNS: /* runs of 1..9 copies of one (base, scalar) */
        for (size_t i = 0; i < n;) {
            size_t len = 1 + cz_rng_next(&rng) % 9;
            for (size_t j = 1; j < len && i + j < n; j++) e[i + j] = e[i], k[i + j] = k[i];
            i += len;
        }
        break;
    case PAT_PAIRS: /* P, -P with one scalar, so most buckets empty again; the scalars mostly 1 or r-1 */
        for (size_t i = 0; i + 1 < n; i += 2) {
            if (i % 6 == 0) k[i] = CZ_FR_ONE_V;
            else if (i % 6 == 2) cz_fr_neg(&k[i], &CZ_FR_ONE_V);
            e[i + 1] = -e[i], k[i + 1] = k[i];
        }
        break;
    case PAT_EQUAL: /* one scalar everywhere (every point in the same bucket of every window) */
        for (size_t i = 0; i < n; i++) k[i] = common;
        if (n > 3) e[3] = 0;
        break;
    case PAT_BITS: /* mostly 0 and 1 (a witness of bits): the 0/1 split, with repeats and negations */
        for (size_t i = 0; i < n; i++) {
            unsigned u = (unsigned)(cz_rng_next(&rng) % 10);
            if (u < 4) k[i] = CZ_FR_ZERO_V;
            else if (u < 8) k[i] = CZ_FR_ONE_V;
            if (i > 0 && u % 3 == 0) e[i] = -e[i - 1];
            if (i > 0 && u % 5 == 1) e[i] = e[i - 1];
        }
        break;
    }
}

#define DEFINE_BA_TESTS(G)                                                                        \
    /* tab[e + BA_M] = e G for |e| <= BA_M (tab[BA_M] = infinity). */                             \
    static void G##_small_multiples(cz_##G##_affine tab[2 * BA_M + 1]) {                         \
        cz_##G##_affine g;                                                                        \
        cz_##G##_jac j[2 * BA_M + 1], acc;                                                        \
        cz_##G##_generator(&g);                                                                   \
        cz_##G##_jac_set_infinity(&acc);                                                          \
        for (int e = 0; e <= BA_M; e++) {                                                         \
            j[BA_M + e] = acc;                                                                    \
            cz_##G##_jac_neg(&j[BA_M - e], &acc);                                                 \
            cz_##G##_jac_add_affine(&acc, &acc, &g);                                              \
        }                                                                                         \
        cz_##G##_batch_to_affine(tab, j, 2 * BA_M + 1);                                           \
    }                                                                                             \
    /* MSM of the first m of (e, k) under the current plan against (sum k_i e_i) G. */            \
    static bool G##_ba_check(const cz_##G##_affine *tab, const int *e, const cz_fr *k, size_t m,  \
                             int nthreads) {                                                      \
        cz_##G##_affine *b = malloc((m ? m : 1) * sizeof *b), g;                                  \
        cz_fr sum = CZ_FR_ZERO_V, t;                                                              \
        for (size_t i = 0; i < m; i++) {                                                          \
            b[i] = tab[e[i] + BA_M];                                                              \
            cz_fr_set_u64(&t, (uint64_t)(e[i] < 0 ? -e[i] : e[i]));                               \
            if (e[i] < 0) cz_fr_neg(&t, &t);                                                      \
            cz_fr_mul(&t, &t, &k[i]);                                                             \
            cz_fr_add(&sum, &sum, &t);                                                            \
        }                                                                                         \
        cz_##G##_jac want, got, gj;                                                               \
        cz_##G##_generator(&g);                                                                   \
        cz_##G##_jac_from_affine(&gj, &g);                                                        \
        cz_##G##_mul(&want, &gj, &sum);                                                           \
        int rc = cz_##G##_msm(&got, b, k, m, nthreads);                                           \
        bool ok = rc == 0 && cz_##G##_jac_equal(&got, &want);                                     \
        rc = cz_##G##_msm_subgroup(&got, b, k, m, nthreads); /* e_i G: subgroup bases */          \
        ok = ok && rc == 0 && cz_##G##_jac_equal(&got, &want);                                    \
        free(b);                                                                                  \
        return ok;                                                                                \
    }                                                                                             \
    static void G##_test_batch_affine(size_t n) {                                                 \
        cz_##G##_affine tab[2 * BA_M + 1];                                                        \
        G##_small_multiples(tab);                                                                 \
        int *e = malloc(n * sizeof *e);                                                           \
        cz_fr *k = malloc(n * sizeof *k);                                                         \
        /* (c, batch, chunks): tiny batches hit the queue, the spill and the final flush often;  \
         * c = 1 puts every point of a window into one bucket. */                                 \
        static const cz_msm_plan plans[] = {{4, 0, 1, 1}, {4, 0, 1, 2},  {4, 0, 2, 3},  {2, 0, 1, 4},   \
                                            {5, 0, 3, 5}, {7, 0, 1, 8},  {9, 0, 1, 16},  {11, 0, 1, 1024}, \
                                            {1, 0, 1, 3}, {8, 0, 4, 64}};                         \
        const size_t np = sizeof plans / sizeof plans[0];                                         \
        int fails = 0, runs = 0;                                                                  \
        for (int pat = 0; pat < PAT_COUNT; pat++) {                                               \
            pattern(e, k, n, pat);                                                                \
            for (size_t pi = 0; pi < np; pi++) {                                                  \
                cz_msm_force_plan_ = plans[pi];                                                   \
                size_t cap = plans[pi].batch;                                                     \
                /* Sizes around the batch boundaries, and the whole input (batches below 4 points \
                 * pay an inversion per addition when all points share a bucket: kept short). */  \
                size_t sizes[] = {0, 1, 2, cap - 1, cap, cap + 1, 2 * cap, 2 * cap + 1, 3 * cap + 2, \
                                  cap >= 4 ? n : 9 * cap + 3};                                    \
                for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {                  \
                    size_t m = sizes[si];                                                         \
                    if (m > n || (si > 0 && m == sizes[si - 1])) continue;                        \
                    int t = 1 + (int)((pi + si + (size_t)pat) % 8);                               \
                    runs++;                                                                       \
                    if (!G##_ba_check(tab, e, k, m, t)) {                                         \
                        fails++;                                                                  \
                        CHECK_MSG(0, #G " batch-affine pattern %d c=%u batch=%zu chunks=%zu n=%zu threads=%d", \
                                  pat, plans[pi].c, cap, plans[pi].chunks, m, t);                 \
                    }                                                                             \
                }                                                                                 \
            }                                                                                     \
        }                                                                                         \
        cz_msm_force_plan_ = (cz_msm_plan){0};                                                    \
        CHECK_MSG(fails == 0, #G " batch-affine: %d of %d runs wrong", fails, runs);             \
        free(e);                                                                                  \
        free(k);                                                                                  \
    }                                                                                             \
    /* The automatic plan around the size where it switches to batch-affine buckets. */           \
    static void G##_test_batch_affine_auto(unsigned group) {                                      \
        for (int t = 1; t <= 2; t++) {                                                            \
            size_t first = 0;                                                                     \
            for (size_t n = 256; n <= ((size_t)1 << 16) && !first; n += 16)                       \
                if (cz_msm_plan_(n, t, group).batch) first = n;                                   \
            CHECK_MSG(first > 0, #G " the plan never picks batch-affine buckets (threads=%d)", t); \
            if (!first) continue;                                                                 \
            while (first > 256 && cz_msm_plan_(first - 1, t, group).batch) first--;               \
            size_t n = first + 2;                                                                 \
            cz_##G##_affine tab[2 * BA_M + 1];                                                    \
            G##_small_multiples(tab);                                                             \
            int *e = malloc(n * sizeof *e);                                                       \
            cz_fr *k = malloc(n * sizeof *k);                                                     \
            pattern(e, k, n, t == 1 ? PAT_MIXED : PAT_RUNS);                                      \
            for (size_t m = first - 1; m <= n; m++)                                               \
                CHECK_MSG(G##_ba_check(tab, e, k, m, t), #G " msm auto plan n=%zu threads=%d (batch %zu)", m, \
                          t, cz_msm_plan_(m, t, group).batch);                                    \
            free(e);                                                                              \
            free(k);                                                                              \
        }                                                                                         \
    }

DEFINE_BA_TESTS(g1)
DEFINE_BA_TESTS(g2)

/* The subgroup MSMs' endomorphism path. L = x^2 as a plain integer (|x| = CZ_BLS_X_ABS). */
static void L_raw(uint64_t l[4]) {
    cz_u128 sq = (cz_u128)CZ_BLS_X_ABS * CZ_BLS_X_ABS;
    l[0] = (uint64_t)sq, l[1] = (uint64_t)(sq >> 64), l[2] = l[3] = 0;
}

/* Scalars that sit on the split's boundaries: L - 1, L, L + 1, 2^128 - 1, 2^128, r - 1, r - L, small
 * multiples of L, below 2^64, 0 and 1; otherwise random (random_scalars' mix). */
static void endo_scalars(cz_fr *k, size_t n) {
    random_scalars(k, n);
    uint64_t l[4], v[4];
    L_raw(l);
    for (size_t i = 0; i < n; i++) {
        unsigned u = (unsigned)(cz_rng_next(&rng) % 12);
        memcpy(v, l, sizeof v);
        switch (u) {
        case 0: v[0] -= 1; break; /* L's low limb is 2^32-aligned: no borrow */
        case 1: break;
        case 2: v[0] += 1; break;
        case 3: v[0] = v[1] = ~(uint64_t)0; break;
        case 4: v[0] = v[1] = 0, v[2] = 1; break;
        case 5: cz_fr_from_raw(&k[i], v), cz_fr_neg(&k[i], &k[i]); continue; /* r - L */
        case 6: { cz_fr m; cz_fr_from_raw(&k[i], v), cz_fr_set_u64(&m, 1 + cz_rng_next(&rng) % 1000), cz_fr_mul(&k[i], &k[i], &m); continue; }
        case 7: cz_fr_set_u64(&k[i], cz_rng_next(&rng)); continue;
        default: continue;
        }
        CHECK(cz_fr_from_raw(&k[i], v) == 0);
    }
}

#define DEFINE_ENDO_TESTS(G, F)                                                                   \
    /* n random subgroup bases (random multiples of the generator) with infinities and repeats. */ \
    static cz_##G##_affine *G##_subgroup_bases(size_t n) {                                        \
        cz_##G##_affine g, *b = malloc((n ? n : 1) * sizeof *b);                                  \
        cz_##G##_jac *j = malloc((n ? n : 1) * sizeof *j), gj;                                    \
        cz_##G##_generator(&g);                                                                   \
        cz_##G##_jac_from_affine(&gj, &g);                                                        \
        for (size_t i = 0; i < n; i++) {                                                          \
            cz_fr e;                                                                              \
            cz_fr_random(&e, &rng);                                                               \
            cz_##G##_mul(&j[i], &gj, &e);                                                         \
        }                                                                                         \
        cz_##G##_batch_to_affine(b, j, n);                                                        \
        for (size_t i = 1; i < n; i++) {                                                          \
            unsigned u = (unsigned)(cz_rng_next(&rng) % 16);                                      \
            if (u == 0) memset(&b[i], 0, sizeof b[i]);                                            \
            else if (u == 1) b[i] = b[i - 1];                                                     \
            else if (u == 2) cz_##G##_affine_neg(&b[i], &b[i - 1]);                               \
        }                                                                                         \
        free(j);                                                                                  \
        return b;                                                                                 \
    }                                                                                             \
    static void G##_test_endo(void) {                                                             \
        /* The map is [L]: on subgroup points against a scalar multiplication by L, and on the     \
         * infinity. */                                                                           \
        uint64_t l[4];                                                                            \
        L_raw(l);                                                                                 \
        cz_fr lf;                                                                                 \
        CHECK(cz_fr_from_raw(&lf, l) == 0);                                                       \
        cz_##G##_affine *b = G##_subgroup_bases(40), m;                                           \
        for (size_t i = 0; i < 40; i++) {                                                         \
            cz_##G##_jac pj, want, got;                                                           \
            cz_##G##_jac_from_affine(&pj, &b[i]);                                                 \
            cz_##G##_mul(&want, &pj, &lf);                                                        \
            cz_##G##_msm_endo_(&m, &b[i]);                                                        \
            cz_##G##_jac_from_affine(&got, &m);                                                   \
            CHECK_MSG(cz_##G##_jac_equal(&got, &want), #G " endo map = [x^2], point %zu", i);     \
        }                                                                                         \
        free(b);                                                                                  \
        /* Against the naive double-and-add, small n (0, 1, 2 included), several thread counts;   \
         * and with every base equal and every scalar equal (one bucket per window). */           \
        static const size_t sizes[] = {0, 1, 2, 3, 17, 100, 600};                                 \
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {                          \
            size_t n = sizes[si];                                                                 \
            b = G##_subgroup_bases(n);                                                            \
            cz_fr *k = malloc((n ? n : 1) * sizeof *k);                                           \
            endo_scalars(k, n);                                                                   \
            cz_##G##_jac want, got;                                                               \
            G##_naive_msm(&want, b, k, n);                                                        \
            for (int t = 1; t <= 3; t++) {                                                        \
                CHECK(cz_##G##_msm_subgroup(&got, b, k, n, t) == 0);                              \
                CHECK_MSG(G##_eq(&got, &want), #G " msm_subgroup n=%zu threads=%d", n, t);        \
            }                                                                                     \
            if (n > 1) {                                                                          \
                for (size_t i = 1; i < n; i++) b[i] = b[0], k[i] = k[0];                          \
                G##_naive_msm(&want, b, k, n);                                                    \
                CHECK(cz_##G##_msm_subgroup(&got, b, k, n, 2) == 0);                              \
                CHECK_MSG(G##_eq(&got, &want), #G " msm_subgroup repeated n=%zu", n);             \
            }                                                                                     \
            free(b);                                                                              \
            free(k);                                                                              \
        }                                                                                         \
    }

DEFINE_ENDO_TESTS(g1, fp)
DEFINE_ENDO_TESTS(g2, fp2)

/* psi^2 as the G2 map computes it (Fp factors) equals psi applied twice, on any curve point (so the
 * factors are norms, with no u part); beta is a nontrivial cube root of unity. */
static void test_endo_consts(void) {
    for (int i = 0; i < 20; i++) {
        cz_g2_affine p, a, b;
        g2_random_point(&p);
        cz_g2_psi(&a, &p);
        cz_g2_psi(&a, &a);
        cz_g2_msm_endo_(&b, &p);
        CHECK_MSG(cz_fp2_equal(&a.x, &b.x) && cz_fp2_equal(&a.y, &b.y), "psi^2 by Fp factors");
    }
    cz_fp beta, x2, y2, t;
    cz_msm_endo_consts_(&beta, &x2, &y2);
    cz_fp_sqr(&t, &beta);
    cz_fp_mul(&t, &t, &beta);
    CHECK(cz_fp_equal(&t, &CZ_FP_ONE_V) && !cz_fp_equal(&beta, &CZ_FP_ONE_V));
}

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
    g1_test_subgroup(1u << 13, 2);
    g1_test_subgroup(777, 3);
    g2_test_subgroup(1u << 12, 2);
    g2_test_subgroup(100, 1);
    g1_test_batch_affine(700);
    g2_test_batch_affine(260);
    g1_test_batch_affine_auto(1);
    g2_test_batch_affine_auto(2);
    test_endo_consts();
    g1_test_endo();
    g2_test_endo();

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
