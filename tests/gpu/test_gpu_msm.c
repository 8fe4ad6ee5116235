/* GPU G1 MSM and 0/1 batch addition against the CPU (src/ec/msm.c) on fresh random data, 2^10..2^20:
 * random subgroup points from a pool (repeats exercise the doubling paths), some infinity bases,
 * random scalars with 0, 1 and r-1 mixed in, and at 1..33 points structured ones (small integers, powers of two,
 * r - small, r - 2^b); bitmaps at ~50 %, all ones, all zeros and lengths that
 * are not a multiple of 64. The batch addition runs under ten settings of its knobs (ba_modes: the
 * default xyzz sums at these sizes, the fused rounds with q = 8, 2, 1, with and without prefetch, in
 * chunks of 2^14 down to 3 points, the previous rounds with split and interleaved buffers and with the
 * one-block inversion kernel instead of per-block inversions); then the
 * exceptional cases of the affine rounds on purpose: one point everywhere (every pair a doubling, at
 * every level), P and -P alternating (every pair cancels), halves that cancel only in later rounds,
 * all infinity, random mixtures of P, -P, 2P and infinity, a single selected point, none. Every batch addition
 * also runs over the bases with their pair sums (cz_gpu_g1_pair_sums, each sum checked byte for byte against the
 * host's, so the exceptional patterns give doubled, cancelled and infinity pairs; cz_gpu_g1_batch_add_pairs).
 * Results poisoned before each call. Exits 77 (skipped) without a GPU. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "ec/msm.h"
#include "gpu/gpu.h"
#include "gpu_knobs.h"
#include "testutil.h"

#define POOL 512

static int same(const cz_g1_jac *a, const cz_g1_jac *b) { return cz_g1_jac_equal(a, b); }

/* knob settings of the batch addition: {CZ_GPU_BA_AFF_MIN, CZ_GPU_BA_CHUNK_LOG, CZ_GPU_AFF_SOA, CZ_GPU_BINV},
 * NULL = unset: the default (affine rounds only above 2^20 selected points, so here the xyzz sums), the default
 * rounds (baa_run) down to the smallest sizes, in chunks of 2^14, with interleaved round buffers
 * (CZ_GPU_AFF_SOA=0; the default splits x and y), and with the inversions by the one-block kernel (CZ_GPU_BINV=0,
 * baa_inv) instead of per block in the backward passes, in chunks of 2^14. (The fused rounds, CZ_GPU_BA_FUSED with
 * CZ_GPU_BA_Q and CZ_GPU_BA_PF, were removed after 2489c26.) */
static const char *const ba_modes[][4] = {
    {NULL, NULL, NULL, NULL}, {"1", NULL, NULL, NULL}, {"3", "14", NULL, NULL},
    {"1", NULL, "0", NULL},   {"1", "14", NULL, "0"},
};
#define N_BA_MODES 5
static const char *const ba_knobs[4] = {"CZ_GPU_BA_AFF_MIN", "CZ_GPU_BA_CHUNK_LOG", "CZ_GPU_AFF_SOA", "CZ_GPU_BINV"};

static void ba_mode(int k) { set_knobs(ba_knobs, ba_modes[k], 4); }

/* MSM bucket accumulation: the size's default (xyzz per bucket below 2^19, all windows as one flat list from
 * 2^19), xyzz per bucket at every size (CZ_GPU_MSM_AFF=0), the per-window flat affine rounds
 * (CZ_GPU_MSM_ALLW=0) over whole windows and in chunks of 2^16 and 2^10 sorted positions (runs cut by chunk
 * borders), the per-segment affine rounds (CZ_GPU_MSM_FLAT=0) over whole windows and in chunks of 2^16, the
 * flat rounds' plain forward pass (CZ_GPU_MSF_PF=0; the default keeps loads in flight) over whole windows and
 * chunks of 2^10, the flat rounds on one work stream (CZ_GPU_MSM_WSTREAMS=1;
 * the default is two, with half-window chunks) and on two with each stream's grid halved and chunks of 2^16
 * (CZ_GPU_MSF_GDIV=2), all windows as one flat list at every size (CZ_GPU_MSM_ALLW=1: zero digits kept as key
 * 0) whole and in chunks of 2^10 (chunks that cross windows), and the interleaved round buffers
 * (CZ_GPU_AFF_SOA=0; the default splits x and y) both ways, and the rounds' inversions the other way round (CZ_GPU_BINV: per block
 * in the backward passes on two work streams, whose default is the one-block kernel, and that kernel for the
 * all-window list, whose default is per block), and the per-window rounds' early stop (CZ_GPU_MSF_TAIL: the
 * default stops once no run is longer than 12 and adds the rest per bucket; 0 runs every round; 1000000 no
 * round at all, the tail reading the sorted entries and signs; 1 and 3 with chunks of 2^10, whose runs the
 * tail cuts at chunk borders), and the bucket combination's chunks (CZ_GPU_MSM_CHUNK: the default at these sizes
 * is 4 buckets a thread; 64, and 1, every bucket its own double-and-add), and every window sorted before the
 * per-window rounds (CZ_GPU_MSM_SORT_FIRST=1, its own key buffer each; in chunks of 2^10 on two work streams, and
 * whole on one): {CZ_GPU_MSM_AFF, CZ_GPU_MSM_AFF_CHUNK_LOG,
 * CZ_GPU_MSM_FLAT, CZ_GPU_MSF_PF, CZ_GPU_MSM_WSTREAMS, CZ_GPU_MSF_GDIV, CZ_GPU_MSM_ALLW, CZ_GPU_AFF_SOA,
 * CZ_GPU_BINV, CZ_GPU_MSF_TAIL, CZ_GPU_MSM_CHUNK, CZ_GPU_MSM_SORT_FIRST} */
static const char *const msm_modes[][12] = {
    {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"0", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"1", NULL, NULL, NULL, NULL, NULL, "0", NULL, NULL, NULL, NULL, NULL},
    {"1", "16", NULL, NULL, NULL, NULL, "0", NULL, NULL, NULL, NULL, NULL},
    {"1", "10", NULL, NULL, NULL, NULL, "0", NULL, NULL, NULL, NULL, NULL},
    {"1", NULL, "0", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"1", "16", "0", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"1", NULL, NULL, "0", NULL, NULL, "0", NULL, NULL, NULL, NULL, NULL},
    {"1", "10", NULL, "0", NULL, NULL, "0", NULL, NULL, NULL, NULL, NULL},
    {"1", NULL, NULL, NULL, "1", NULL, "0", NULL, NULL, NULL, NULL, NULL},
    {"1", "16", NULL, NULL, "2", "2", "0", NULL, NULL, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL, NULL, "1", NULL, NULL, NULL, NULL, NULL},
    {NULL, "10", NULL, NULL, NULL, NULL, "1", NULL, NULL, NULL, NULL, NULL},
    {"1", "16", NULL, NULL, NULL, NULL, "0", "0", NULL, NULL, NULL, NULL},
    {NULL, "10", NULL, "0", NULL, NULL, "1", "0", NULL, NULL, NULL, NULL},
    {"1", "10", NULL, NULL, NULL, NULL, "0", NULL, "1", NULL, NULL, NULL},
    {NULL, "10", NULL, NULL, NULL, NULL, "1", NULL, "0", NULL, NULL, NULL},
    {"1", NULL, NULL, NULL, NULL, NULL, "0", NULL, NULL, "0", NULL, NULL},
    {"1", NULL, NULL, NULL, NULL, NULL, "0", NULL, NULL, "1000000", NULL, NULL},
    {"1", "10", NULL, NULL, NULL, NULL, "0", NULL, NULL, "1", NULL, NULL},
    {"1", "10", NULL, NULL, "1", NULL, "0", NULL, NULL, "3", NULL, NULL},
    {"0", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "64", NULL},
    {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "1", NULL},
    {"1", "16", NULL, NULL, NULL, NULL, "0", NULL, NULL, NULL, "2", NULL},
    {"1", "10", NULL, NULL, NULL, NULL, "0", NULL, NULL, NULL, NULL, "1"},
    {"1", NULL, NULL, NULL, "1", NULL, "0", NULL, NULL, NULL, NULL, "1"},
};
#define N_MSM_MODES 26

static const char *const msm_knobs[12] = {"CZ_GPU_MSM_AFF",      "CZ_GPU_MSM_AFF_CHUNK_LOG", "CZ_GPU_MSM_FLAT",
                                          "CZ_GPU_MSF_PF",       "CZ_GPU_MSM_WSTREAMS",      "CZ_GPU_MSF_GDIV",
                                          "CZ_GPU_MSM_ALLW",     "CZ_GPU_AFF_SOA",           "CZ_GPU_BINV",
                                          "CZ_GPU_MSF_TAIL",     "CZ_GPU_MSM_CHUNK",         "CZ_GPU_MSM_SORT_FIRST"};

static void msm_mode(int k) { set_knobs(msm_knobs, msm_modes[k], 12); }

/* GPU MSM of bases/sc (n points) under every mode against the CPU. */
static void check_msm(const cz_g1_affine *bases, const cz_fr *sc, size_t n, cz_g1_affine *d_bases, cz_fr *d_sc, const char *what) {
    CHECK(cz_gpu_memcpy_htod(d_bases, bases, n * sizeof *bases) == 0);
    CHECK(cz_gpu_memcpy_htod(d_sc, sc, n * sizeof *sc) == 0);
    cz_g1_jac cpu, gpu;
    cz_g1_msm(&cpu, bases, sc, n, 0);
    for (int k = 0; k < N_MSM_MODES; k++) {
        msm_mode(k);
        memset(&gpu, 0xa5, sizeof gpu);
        int rc = cz_gpu_g1_msm(&gpu, d_bases, d_sc, n, NULL);
        CHECK_MSG(rc == 0, "msm %zu (%s, mode %d): %s", n, what, k, cz_error_message());
        CHECK_MSG(same(&cpu, &gpu), "GPU MSM of %zu points (%s, mode %d) differs from the CPU", n, what, k);
    }
    msm_mode(0);
}

/* bases with room for their pair sums (cz_gpu_g1_pair_sums), max_n + max_n / 2 + 1 points */
static cz_g1_affine *g_d_pairs;

/* The pair sums of bases (n points) on the device, into room poisoned with 0xa5 bytes: each one byte for byte the
 * host's bases[2i] + bases[2i + 1] (every one to 2^18 points, a sample beyond), and the point after them untouched;
 * then the batch addition over them (cz_gpu_g1_batch_add_pairs) under every knob setting against the CPU's cpu. */
static void check_pairs(const cz_g1_affine *bases, const uint64_t *d_bm, size_t n, const cz_g1_jac *cpu, const char *what) {
    const size_t np = n / 2, step = np <= ((size_t)1 << 17) ? 1 : 61;
    CHECK(cz_gpu_memcpy_htod(g_d_pairs, bases, n * sizeof *bases) == 0);
    CHECK(cz_gpu_memset(g_d_pairs + n, 0xa5, (np + 1) * sizeof *bases) == 0);
    int rc = cz_gpu_g1_pair_sums(g_d_pairs, n, NULL);
    CHECK_MSG(rc == 0, "pair sums of %zu points (%s): %s", n, what, cz_error_message());
    cz_g1_affine *got = malloc((np + 1) * sizeof *got), *want = malloc((np + 1) * sizeof *want);
    cz_g1_jac *sum = malloc((np + 1) * sizeof *sum);
    CHECK(cz_gpu_memcpy_dtoh(got, g_d_pairs + n, (np + 1) * sizeof *got) == 0);
    size_t k = 0, bad = 0;
    for (size_t i = 0; i < np; i += step, k++) {
        cz_g1_jac a;
        cz_g1_jac_from_affine(&a, &bases[2 * i]);
        cz_g1_jac_add_affine(&sum[k], &a, &bases[2 * i + 1]);
    }
    cz_g1_batch_to_affine(want, sum, k);
    k = 0;
    for (size_t i = 0; i < np; i += step, k++) bad += memcmp(&want[k], &got[i], sizeof *got) != 0;
    CHECK_MSG(bad == 0, "%zu of %zu GPU pair sums of %zu points (%s) differ from the host's", bad, k, n, what);
    uint8_t poison[sizeof(cz_g1_affine)];
    memset(poison, 0xa5, sizeof poison);
    CHECK_MSG(memcmp(&got[np], poison, sizeof poison) == 0, "pair sums of %zu points wrote past their room", n);
    free(got), free(want), free(sum);
    cz_g1_jac gpu;
    for (int m = 0; m < N_BA_MODES; m++) {
        ba_mode(m);
        memset(&gpu, 0xa5, sizeof gpu);
        rc = cz_gpu_g1_batch_add_pairs(&gpu, g_d_pairs, d_bm, n, NULL);
        CHECK_MSG(rc == 0, "batch add with pair sums %zu (%s, mode %d): %s", n, what, m, cz_error_message());
        CHECK_MSG(same(cpu, &gpu), "GPU batch add with pair sums of %zu points (%s, mode %d) differs from the CPU", n,
                  what, m);
    }
    ba_mode(0);
}

/* GPU batch add of bases/bm (n points) under every knob setting against the CPU, without and with pair sums. */
static void check_ba(const cz_g1_affine *bases, const uint64_t *bm, size_t n, cz_g1_affine *d_bases, uint64_t *d_bm,
                     const char *what) {
    const size_t nw = (n + 63) / 64;
    CHECK(cz_gpu_memcpy_htod(d_bases, bases, n * sizeof *bases) == 0);
    CHECK(cz_gpu_memcpy_htod(d_bm, bm, nw * sizeof *bm) == 0);
    cz_g1_jac cpu, gpu;
    cz_g1_batch_add(&cpu, bases, bm, n, 0);
    for (int k = 0; k < N_BA_MODES; k++) {
        ba_mode(k);
        memset(&gpu, 0xa5, sizeof gpu);
        int rc = cz_gpu_g1_batch_add(&gpu, d_bases, d_bm, n, NULL);
        CHECK_MSG(rc == 0, "batch add %zu (%s, mode %d): %s", n, what, k, cz_error_message());
        CHECK_MSG(same(&cpu, &gpu), "GPU batch add of %zu points (%s, mode %d) differs from the CPU", n, what, k);
    }
    ba_mode(0);
    check_pairs(bases, d_bm, n, &cpu, what);
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0); /* a run cut by a timeout keeps what it printed */
    if (cz_gpu_device_count() <= 0) {
        printf("SKIP: no CUDA device\n");
        return 77;
    }
    char desc[256];
    if (!cz_gpu_describe(desc, sizeof desc)) printf("device: %s\n", desc);
    cz_rng rng;
    cz_test_rng(&rng);

    cz_g1_affine *pool = malloc(POOL * sizeof *pool);
    for (int i = 0; i < POOL; i++) cz_g1_random(&pool[i], &rng);
    memset(&pool[0], 0, sizeof pool[0]); /* one infinity base in the pool */

    const size_t max_n = (size_t)1 << 20;
    cz_g1_affine *bases = malloc(max_n * sizeof *bases);
    cz_fr *sc = malloc(max_n * sizeof *sc);
    uint64_t *bm = malloc((max_n / 64 + 1) * sizeof *bm);
    cz_g1_affine *d_bases;
    cz_fr *d_sc;
    uint64_t *d_bm;
    int rc = cz_gpu_malloc((void **)&d_bases, max_n * sizeof *bases);
    if (!rc) rc = cz_gpu_malloc((void **)&d_sc, max_n * sizeof *sc);
    if (!rc) rc = cz_gpu_malloc((void **)&d_bm, (max_n / 64 + 1) * sizeof *bm);
    if (!rc) rc = cz_gpu_malloc((void **)&g_d_pairs, (max_n + max_n / 2 + 1) * sizeof *bases);
    CHECK_MSG(rc == 0, "alloc: %s", cz_error_message());
    if (rc) return cz_test_finish();

    /* CZ_TEST_GPU_MAX_N caps the sizes (compute-sanitizer runs: every kernel path, small data) */
    const size_t cap = cz_test_gpu_max_n(max_n);
    static const size_t sizes[] = {1, 63, 1024, 1024 + 37, 4096, 1 << 14, 1 << 16, 1 << 18, (1 << 20) - 5, 1 << 20};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t n = sizes[si], nw = (n + 63) / 64;
        if (n > cap) continue;
        for (size_t i = 0; i < n; i++) {
            bases[i] = pool[cz_rng_next(&rng) % POOL];
            cz_fr_random(&sc[i], &rng);
        }
        if (n > 8) {
            cz_fr one = CZ_FR_ONE_V;
            sc[1] = one;                 /* 1 */
            cz_fr_neg(&sc[2], &one);     /* r - 1 */
            memset(&sc[3], 0, sizeof sc[3]); /* 0 */
            sc[5] = sc[4];               /* a repeated (scalar, base) pair */
            bases[5] = bases[4];
        }
        check_msm(bases, sc, n, d_bases, d_sc, "random scalars");

        /* batch addition: ~50 % ones, all ones, all zeros */
        for (int pat = 0; pat < 3; pat++) {
            for (size_t w = 0; w < nw; w++)
                bm[w] = pat == 0 ? cz_rng_next(&rng) : pat == 1 ? ~(uint64_t)0 : 0;
            /* bits beyond n are set on purpose: they must be ignored */
            char what[32];
            snprintf(what, sizeof what, "pattern %d", pat);
            check_ba(bases, bm, n, d_bases, d_bm, what);
        }
        printf("n = %zu checked\n", n);
    }

    /* several MSMs in one call (cz_gpu_g1_msm_multi): k = 1..4 parts of random sizes (empty ones too) whose
     * bases lie at random whole-point gaps in one allocation and whose scalars lie apart, each against the
     * CPU; shared list forced (CZ_GPU_MSM_ALLW=1) whole and in chunks of 2^10 that cross parts, the size's
     * default (one by one at these sizes), CZ_GPU_MSM_MULTI=0, and bases a non-whole number of points apart
     * (one by one) */
    {
        const size_t tot_max = cap < ((size_t)1 << 18) ? cap : ((size_t)1 << 18);
        for (int trial = 0; trial < 8 && tot_max >= 64; trial++) {
            const unsigned k = 1 + (unsigned)trial % 4;
            size_t n[4], bo[4], so[4], used = 0;
            const cz_g1_affine *db[4];
            const cz_fr *ds[4];
            const int misalign = trial == 7;
            for (unsigned i = 0; i < k; i++) {
                n[i] = trial == 5 && i == 1 ? 0 : cz_rng_next(&rng) % (tot_max / (2 * k));
                bo[i] = used + cz_rng_next(&rng) % 7; /* gap of 0..6 points */
                used = bo[i] + n[i];
            }
            if (used > max_n / 2) continue;
            /* the gaps hold written bytes: the misaligned trial's parts read 32 B past their last point, and
             * compute-sanitizer's initcheck (scripts/gpu-check.sh) would report a read of never-written memory */
            CHECK(cz_gpu_memset(d_bases, 0, (used + 1) * sizeof *bases) == 0);
            for (unsigned i = 0; i < k; i++) {
                so[i] = max_n / 2 + bo[i]; /* scalars in the upper half of d_sc */
                for (size_t j = 0; j < n[i]; j++) {
                    bases[bo[i] + j] = pool[cz_rng_next(&rng) % POOL];
                    cz_fr_random(&sc[so[i] + j], &rng);
                }
                if (n[i] > 4) memset(&sc[so[i] + 2], 0, sizeof sc[0]); /* a zero digit everywhere */
                CHECK(cz_gpu_memcpy_htod(d_bases + bo[i], bases + bo[i], n[i] * sizeof *bases) == 0);
                CHECK(cz_gpu_memcpy_htod(d_sc + so[i], sc + so[i], n[i] * sizeof *sc) == 0);
                db[i] = (const cz_g1_affine *)((const char *)(d_bases + bo[i]) + (misalign && i ? 32 : 0));
                ds[i] = d_sc + so[i];
            }
            cz_g1_jac cpu[4], gpu[4];
            for (unsigned i = 0; i < k; i++) cz_g1_msm(&cpu[i], bases + bo[i], sc + so[i], n[i], 0);
            static const char *const mk[2] = {"CZ_GPU_MSM_ALLW", "CZ_GPU_MSM_MULTI"};
            static const char *const mm[4][2] = {{"1", NULL}, {"1", "0"}, {NULL, NULL}, {NULL, "0"}};
            for (int m = 0; m < 4; m++) {
                set_knobs(mk, mm[m], 2);
                if (m == 1) setenv("CZ_GPU_MSM_AFF_CHUNK_LOG", "10", 1);
                memset(gpu, 0xa5, sizeof gpu);
                rc = cz_gpu_g1_msm_multi(gpu, db, ds, n, k, NULL);
                unsetenv("CZ_GPU_MSM_AFF_CHUNK_LOG");
                CHECK_MSG(rc == 0, "multi-MSM (trial %d, mode %d): %s", trial, m, cz_error_message());
                for (unsigned i = 0; i < k && !rc && !misalign; i++)
                    CHECK_MSG(same(&cpu[i], &gpu[i]), "GPU multi-MSM part %u of %u (%zu points, mode %d) differs from the CPU",
                              i, k, n[i], m);
            }
            if (misalign) { /* parts 1.. read 32 B into their bases: compare with the one-by-one MSMs of the same */
                cz_g1_jac one[4];
                for (unsigned i = 0; i < k; i++) CHECK(cz_gpu_g1_msm(&one[i], db[i], ds[i], n[i], NULL) == 0);
                for (unsigned i = 0; i < k; i++) CHECK_MSG(same(&one[i], &gpu[i]), "misaligned multi-MSM part %u", i);
            }
            set_knobs(mk, mm[2], 2);
            printf("multi-MSM of %u parts (%zu %zu %zu %zu points) checked\n", k, n[0], k > 1 ? n[1] : 0, k > 2 ? n[2] : 0,
                   k > 3 ? n[3] : 0);
        }
    }

    /* structured scalars at tiny sizes (a prover's tail can be one or two points holding small witness values):
     * small integers, powers of two, r - small, r - 2^b and random ones mixed, every MSM mode against the CPU */
    for (int trial = 0; trial < 96; trial++) {
        static const size_t tn[] = {1, 2, 3, 5, 9, 33};
        const size_t n = tn[trial % 6];
        for (size_t i = 0; i < n; i++) {
            bases[i] = pool[cz_rng_next(&rng) % POOL];
            uint64_t raw[4] = {0, 0, 0, 0};
            const unsigned b = (unsigned)(cz_rng_next(&rng) % 254);
            cz_fr t;
            switch (cz_rng_next(&rng) % 5) {
            case 0: cz_fr_set_u64(&sc[i], 2 + cz_rng_next(&rng) % 1000); break;
            case 1: raw[b / 64] = (uint64_t)1 << (b % 64), cz_fr_from_raw(&sc[i], raw); break;
            case 2: cz_fr_set_u64(&t, 1 + cz_rng_next(&rng) % 1000), cz_fr_neg(&sc[i], &t); break;
            case 3: raw[b / 64] = (uint64_t)1 << (b % 64), cz_fr_from_raw(&t, raw), cz_fr_neg(&sc[i], &t); break;
            default: cz_fr_random(&sc[i], &rng);
            }
        }
        char what[48];
        snprintf(what, sizeof what, "structured scalars, trial %d", trial);
        check_msm(bases, sc, n, d_bases, d_sc, what);
    }
    printf("structured scalars at 1..33 points checked\n");

    /* exceptional cases of the affine rounds */
    static const size_t esizes[] = {2, 3, 1024 + 37, (1 << 16) + 3};
    for (size_t si = 0; si < sizeof esizes / sizeof esizes[0]; si++) {
        const size_t n = esizes[si], nw = (n + 63) / 64;
        if (n > cap && n > 3) continue;
        cz_g1_affine p = pool[1 + cz_rng_next(&rng) % (POOL - 1)], np, p2, inf;
        cz_g1_affine_neg(&np, &p);
        cz_g1_jac j;
        cz_g1_jac_from_affine(&j, &p);
        cz_g1_jac_double(&j, &j);
        cz_g1_to_affine(&p2, &j);
        memset(&inf, 0, sizeof inf);
        for (int pat = 0; pat < 6; pat++) {
            for (size_t i = 0; i < n; i++) {
                switch (pat) {
                case 0: bases[i] = p; break;                      /* doublings at every level */
                case 1: bases[i] = i & 1 ? np : p; break;         /* every first-round pair cancels */
                case 2: bases[i] = i < n / 2 ? p : np; break;     /* cancels in the last rounds */
                case 3: bases[i] = inf; break;
                case 4: { /* P, -P, 2P, infinity at random */
                    unsigned r = cz_rng_next(&rng) & 3;
                    bases[i] = r == 0 ? p : r == 1 ? np : r == 2 ? p2 : inf;
                    break;
                }
                default: { /* few distinct pool points with negations: repeats and cancellations */
                    cz_g1_affine q = pool[cz_rng_next(&rng) % 4];
                    if (cz_rng_next(&rng) & 1) cz_g1_affine_neg(&q, &q);
                    bases[i] = q;
                }
                }
            }
            for (int bp = 0; bp < 2; bp++) {
                for (size_t w = 0; w < nw; w++) bm[w] = bp ? cz_rng_next(&rng) : ~(uint64_t)0;
                char what[48];
                snprintf(what, sizeof what, "exceptional %d, %s", pat, bp ? "~50 %" : "all ones");
                check_ba(bases, bm, n, d_bases, d_bm, what);
            }
        }
        /* MSM: one base and one scalar everywhere (one bucket per window, doublings at every level),
         * P and -P with one scalar (cancels), all bases infinity, four bases and four scalars at random,
         * random bases with scalars that differ only in their low 8 bits (window 0's runs are short, every
         * later window piles all points into one or two buckets: the affine rounds, sized from window
         * 0, must shrink their chunk or regrow their buffers for the later windows), scalars below 2^40 */
        cz_fr k1, ks[4];
        cz_fr_random(&k1, &rng);
        for (int q = 0; q < 4; q++) cz_fr_random(&ks[q], &rng);
        uint64_t hi[4];
        cz_fr_to_raw(hi, &k1);
        hi[3] &= 0x0fffffffffffffffULL; /* below r whatever the low byte */
        for (int pat = 0; pat < 6; pat++) {
            for (size_t i = 0; i < n; i++) {
                switch (pat) {
                case 5: { /* scalars below 2^40: the upper windows are all zero digits (an empty list after
                           * the zeros), the middle ones partly */
                    uint64_t v[4] = {cz_rng_next(&rng) & 0xffffffffffULL, 0, 0, 0};
                    bases[i] = pool[cz_rng_next(&rng) % POOL];
                    CHECK(cz_fr_from_raw(&sc[i], v) == 0);
                    break;
                }
                case 0: bases[i] = p; sc[i] = k1; break;
                case 1: bases[i] = i & 1 ? np : p; sc[i] = k1; break;
                case 2: bases[i] = inf; sc[i] = ks[cz_rng_next(&rng) & 3]; break;
                case 3: bases[i] = pool[cz_rng_next(&rng) % 4]; sc[i] = ks[cz_rng_next(&rng) & 3]; break;
                default: {
                    uint64_t v[4] = {(hi[0] & ~(uint64_t)0xff) | (cz_rng_next(&rng) & 0xff), hi[1], hi[2], hi[3]};
                    bases[i] = pool[cz_rng_next(&rng) % POOL];
                    CHECK(cz_fr_from_raw(&sc[i], v) == 0);
                }
                }
            }
            char what[32];
            snprintf(what, sizeof what, "exceptional %d", pat);
            check_msm(bases, sc, n, d_bases, d_sc, what);
        }
        /* one selected point; none */
        for (size_t i = 0; i < n; i++) bases[i] = pool[cz_rng_next(&rng) % POOL];
        memset(bm, 0, nw * sizeof *bm);
        size_t at = cz_rng_next(&rng) % n;
        bm[at / 64] = (uint64_t)1 << (at % 64);
        check_ba(bases, bm, n, d_bases, d_bm, "one point");
        bm[at / 64] = 0;
        check_ba(bases, bm, n, d_bases, d_bm, "none");
        printf("exceptional batch additions of %zu points checked\n", n);
    }
    /* cz_gpu_g1_msm_scratch_bytes against the device memory an MSM takes from released scratch (xyzz
     * and affine buckets, whole windows and chunks of 2^16): within the allocator's rounding (2 MiB per
     * buffer) and the estimate's slack on the longest run */
    const size_t sn = cap < max_n ? cap : max_n;
    const int sanitized = under_initcheck();
    for (size_t i = 0; i < sn; i++) {
        bases[i] = pool[cz_rng_next(&rng) % POOL];
        cz_fr_random(&sc[i], &rng);
    }
    CHECK(cz_gpu_memcpy_htod(d_bases, bases, sn * sizeof *bases) == 0);
    CHECK(cz_gpu_memcpy_htod(d_sc, sc, sn * sizeof *sc) == 0);
    CHECK(cz_gpu_g1_msm_scratch_bytes(0) == 0);
    for (int k = 0; k < N_MSM_MODES; k++) {
        msm_mode(k);
        cz_g1_jac r;
        CHECK(cz_gpu_g1_msm(&r, d_bases, d_sc, sn, NULL) == 0); /* streams and events created */
        cz_gpu_g1_release_scratch();
        size_t f0, f1, tot;
        CHECK(cz_gpu_mem_info(&f0, &tot) == 0);
        CHECK(cz_gpu_g1_msm(&r, d_bases, d_sc, sn, NULL) == 0);
        CHECK(cz_gpu_mem_info(&f1, &tot) == 0);
        const size_t used = f0 - f1, est = cz_gpu_g1_msm_scratch_bytes(sn), slack = (size_t)32 << 20;
        if (!sanitized) {
            CHECK_MSG(used <= est + slack && used + slack + est / 8 >= est,
                      "MSM scratch of %zu points (mode %d): %zu bytes taken, %zu estimated", sn, k, used, est);
        }
        printf("MSM scratch of %zu points, mode %d: %zu bytes taken, %zu estimated\n", sn, k, used, est);
    }
    msm_mode(0);

    /* all-zero scalars give infinity */
    memset(sc, 0, 4096 * sizeof *sc);
    CHECK(cz_gpu_memcpy_htod(d_sc, sc, 4096 * sizeof *sc) == 0);
    cz_g1_jac gpu;
    memset(&gpu, 0xa5, sizeof gpu);
    CHECK(cz_gpu_g1_msm(&gpu, d_bases, d_sc, 4096, NULL) == 0);
    CHECK(cz_g1_jac_is_infinity(&gpu));

    cz_gpu_free(d_bases);
    cz_gpu_free(d_sc);
    cz_gpu_free(d_bm);
    cz_gpu_free(g_d_pairs);
    cz_gpu_g1_release_scratch();
    free(pool);
    free(bases);
    free(sc);
    free(bm);
    return cz_test_finish();
}
