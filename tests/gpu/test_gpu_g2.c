/* GPU G2 MSM and 0/1 batch addition against the CPU (src/ec/msm.c cz_g2_msm / cz_g2_batch_add) on fresh
 * random data, 1..2^16 points: random subgroup points from a pool (repeats exercise the doubling
 * paths), an infinity base, random full-width scalars with 0, 1 and r-1 mixed in; then edge cases:
 * all scalars zero, all bases infinity, one base repeated with one scalar everywhere (every addition in
 * a bucket is a doubling), all scalars r-1. Bitmaps at ~50 %, all ones, all zeros, lengths that are
 * not a multiple of 64; P and -P alternating, P, -P, 2P and infinity mixed. Every MSM under check_msm's
 * modes (default, xyzz, the affine rounds' variants, two window widths), the batch addition under ba_modes'
 * knob settings, and again over the bases with their pair sums (cz_gpu_g2_pair_sums, each sum checked byte for
 * byte against the host's; cz_gpu_g2_batch_add_pairs). Results poisoned before each call. Exits 77 (skipped)
 * without a GPU. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "ec/msm.h"
#include "gpu/gpu.h"
#include "gpu_knobs.h"
#include "testutil.h"

#define POOL 256

static cz_g2_affine *d_bases;
static cz_fr *d_sc;
static uint64_t *d_bm;

static void check_msm(const cz_g2_affine *bases, const cz_fr *sc, size_t n, const char *what) {
    CHECK(cz_gpu_memcpy_htod(d_bases, bases, n * sizeof *bases) == 0);
    CHECK(cz_gpu_memcpy_htod(d_sc, sc, n * sizeof *sc) == 0);
    cz_g2_jac cpu, gpu;
    cz_g2_msm(&cpu, bases, sc, n, 0);
    /* bucket accumulation: the size's default, xyzz per bucket, per-window flat affine rounds (CZ_GPU_MSM_ALLW=0)
     * over whole windows and in chunks of 2^12 sorted positions (several chunks per window), the per-segment
     * affine rounds (CZ_GPU_MSM_FLAT=0) likewise, the flat rounds with the plain forward pass (CZ_GPU_MSF_PF=0),
     * the flat rounds on two work streams (CZ_GPU_MSM_WSTREAMS=2) over half windows and chunks of 2^12, all
     * windows as one flat list (CZ_GPU_MSM_ALLW=1) whole and in chunks of 2^12, the latter with interleaved
     * round buffers (CZ_GPU_AFF_SOA=0), and per-window flat rounds in chunks of 2^12 with the one-block inversion
     * kernel (CZ_GPU_BINV=0; one work stream inverts per block by default), and the window widths G2 takes for
     * PoRep's B_G2 tail (13) and from 2^21 points (16), which the sizes here would not pick (CZ_GPU_MSM_C) */
    static const char *const modes[][9] = {
        {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL}, {"0", NULL, NULL, NULL, NULL, NULL, NULL, NULL},
        {"1", NULL, NULL, NULL, NULL, "0", NULL, NULL},   {"1", "12", NULL, NULL, NULL, "0", NULL, NULL},
        {"1", NULL, "0", NULL, NULL, NULL, NULL, NULL},   {"1", "12", "0", NULL, NULL, NULL, NULL, NULL},
        {"1", "12", NULL, "0", NULL, "0", NULL, NULL},    {"1", NULL, NULL, NULL, "2", "0", NULL, NULL},
        {"1", "12", NULL, NULL, "2", "0", NULL, NULL},    {NULL, NULL, NULL, NULL, NULL, "1", NULL, NULL},
        {NULL, "12", NULL, NULL, NULL, "1", "0", NULL},   {"1", "12", NULL, NULL, NULL, "0", NULL, "0"},
        {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "13"}, {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "16"}};
    static const char *const knobs[9] = {"CZ_GPU_MSM_AFF",      "CZ_GPU_MSM_AFF_CHUNK_LOG", "CZ_GPU_MSM_FLAT", "CZ_GPU_MSF_PF",
                                         "CZ_GPU_MSM_WSTREAMS", "CZ_GPU_MSM_ALLW",          "CZ_GPU_AFF_SOA",  "CZ_GPU_BINV",
                                         "CZ_GPU_MSM_C"};
    const int nmodes = (int)(sizeof modes / sizeof modes[0]);
    for (int k = 0; k < nmodes; k++) {
        set_knobs(knobs, modes[k], 9);
        memset(&gpu, 0xa5, sizeof gpu);
        int rc = cz_gpu_g2_msm(&gpu, d_bases, d_sc, n, NULL);
        CHECK_MSG(rc == 0, "g2 msm %zu (%s, mode %d): %s", n, what, k, cz_error_message());
        CHECK_MSG(cz_g2_jac_equal(&cpu, &gpu), "GPU G2 MSM of %zu points (%s, mode %d) differs from the CPU", n, what, k);
    }
    set_knobs(knobs, modes[0], 9);
}

/* knob settings: {CZ_GPU_BA_AFF_MIN, CZ_GPU_AFF_SOA, CZ_GPU_BINV}: the default (xyzz sums at these sizes), the
 * default rounds from one point on with split (default) and interleaved round buffers, and with the one-block
 * inversion kernel instead of per block; so the G2 affine rounds are checked at small sizes, not only timed at
 * 2^24 */
static const char *const ba_modes[][3] = {
    {NULL, NULL, NULL}, {"1", NULL, NULL}, {"1", "0", NULL}, {"1", NULL, "0"},
};
#define N_BA_MODES 4
static const char *const ba_knobs[3] = {"CZ_GPU_BA_AFF_MIN", "CZ_GPU_AFF_SOA", "CZ_GPU_BINV"};

static void ba_mode(int k) { set_knobs(ba_knobs, ba_modes[k], 3); }

/* bases with room for their pair sums (cz_gpu_g2_pair_sums), max_n + max_n / 2 + 1 points */
static cz_g2_affine *d_pairs;

/* The pair sums of bases (n points) on the device, into room poisoned with 0xa5 bytes, each byte for byte the
 * host's bases[2i] + bases[2i + 1], the point after them untouched; then cz_gpu_g2_batch_add_pairs (d_bm) under
 * every knob setting against the CPU's cpu. */
static void check_pairs(const cz_g2_affine *bases, size_t n, const cz_g2_jac *cpu, const char *what) {
    const size_t np = n / 2;
    CHECK(cz_gpu_memcpy_htod(d_pairs, bases, n * sizeof *bases) == 0);
    CHECK(cz_gpu_memset(d_pairs + n, 0xa5, (np + 1) * sizeof *bases) == 0);
    int rc = cz_gpu_g2_pair_sums(d_pairs, n, NULL);
    CHECK_MSG(rc == 0, "g2 pair sums of %zu points (%s): %s", n, what, cz_error_message());
    cz_g2_affine *got = malloc((np + 1) * sizeof *got), *want = malloc((np + 1) * sizeof *want);
    cz_g2_jac *sum = malloc((np + 1) * sizeof *sum);
    CHECK(cz_gpu_memcpy_dtoh(got, d_pairs + n, (np + 1) * sizeof *got) == 0);
    for (size_t i = 0; i < np; i++) {
        cz_g2_jac a;
        cz_g2_jac_from_affine(&a, &bases[2 * i]);
        cz_g2_jac_add_affine(&sum[i], &a, &bases[2 * i + 1]);
    }
    cz_g2_batch_to_affine(want, sum, np);
    size_t bad = 0;
    for (size_t i = 0; i < np; i++) bad += memcmp(&want[i], &got[i], sizeof *got) != 0;
    CHECK_MSG(bad == 0, "%zu of %zu GPU G2 pair sums of %zu points (%s) differ from the host's", bad, np, n, what);
    uint8_t poison[sizeof(cz_g2_affine)];
    memset(poison, 0xa5, sizeof poison);
    CHECK_MSG(memcmp(&got[np], poison, sizeof poison) == 0, "G2 pair sums of %zu points wrote past their room", n);
    free(got), free(want), free(sum);
    cz_g2_jac gpu;
    for (int k = 0; k < N_BA_MODES; k++) {
        ba_mode(k);
        memset(&gpu, 0xa5, sizeof gpu);
        rc = cz_gpu_g2_batch_add_pairs(&gpu, d_pairs, d_bm, n, NULL);
        CHECK_MSG(rc == 0, "g2 batch add with pair sums %zu (%s, mode %d): %s", n, what, k, cz_error_message());
        CHECK_MSG(cz_g2_jac_equal(cpu, &gpu), "GPU G2 batch add with pair sums of %zu points (%s, mode %d) differs from the CPU",
                  n, what, k);
    }
    ba_mode(0);
}

static void check_ba(const cz_g2_affine *bases, const uint64_t *bm, size_t n, const char *what) {
    size_t nw = (n + 63) / 64;
    CHECK(cz_gpu_memcpy_htod(d_bases, bases, n * sizeof *bases) == 0);
    CHECK(cz_gpu_memcpy_htod(d_bm, bm, nw * sizeof *bm) == 0);
    cz_g2_jac cpu, gpu;
    cz_g2_batch_add(&cpu, bases, bm, n, 0);
    for (int k = 0; k < N_BA_MODES; k++) {
        ba_mode(k);
        memset(&gpu, 0xa5, sizeof gpu);
        int rc = cz_gpu_g2_batch_add(&gpu, d_bases, d_bm, n, NULL);
        CHECK_MSG(rc == 0, "g2 batch add %zu (%s, mode %d): %s", n, what, k, cz_error_message());
        CHECK_MSG(cz_g2_jac_equal(&cpu, &gpu), "GPU G2 batch add of %zu points (%s, mode %d) differs from the CPU", n,
                  what, k);
    }
    ba_mode(0);
    check_pairs(bases, n, &cpu, what);
}

int main(void) {
    if (cz_gpu_device_count() <= 0) {
        printf("SKIP: no CUDA device\n");
        return 77;
    }
    char desc[256];
    if (!cz_gpu_describe(desc, sizeof desc)) printf("device: %s\n", desc);
    cz_rng rng;
    cz_test_rng(&rng);

    cz_g2_affine *pool = malloc(POOL * sizeof *pool);
    for (int i = 0; i < POOL; i++) cz_g2_random(&pool[i], &rng);
    memset(&pool[0], 0, sizeof pool[0]); /* one infinity base in the pool */

    const size_t max_n = (size_t)1 << 16;
    cz_g2_affine *bases = malloc(max_n * sizeof *bases);
    cz_fr *sc = malloc(max_n * sizeof *sc);
    uint64_t *bm = malloc((max_n / 64 + 1) * sizeof *bm);
    int rc = cz_gpu_malloc((void **)&d_bases, max_n * sizeof *bases);
    if (!rc) rc = cz_gpu_malloc((void **)&d_sc, max_n * sizeof *sc);
    if (!rc) rc = cz_gpu_malloc((void **)&d_bm, (max_n / 64 + 1) * sizeof *bm);
    if (!rc) rc = cz_gpu_malloc((void **)&d_pairs, (max_n + max_n / 2 + 1) * sizeof *bases);
    CHECK_MSG(rc == 0, "alloc: %s", cz_error_message());
    if (rc) return cz_test_finish();
    cz_fr one = CZ_FR_ONE_V, m1;
    cz_fr_neg(&m1, &one);

    static const size_t sizes[] = {1, 63, 1024, 1024 + 37, 4096, 1 << 14, (1 << 16) - 3, 1 << 16};
    /* CZ_TEST_GPU_MAX_N caps the sizes (compute-sanitizer runs: every kernel path, small data) */
    const size_t cap = cz_test_gpu_max_n(max_n);
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        if (sizes[si] > cap) continue;
        size_t n = sizes[si], nw = (n + 63) / 64;
        for (size_t i = 0; i < n; i++) {
            bases[i] = pool[cz_rng_next(&rng) % POOL];
            cz_fr_random(&sc[i], &rng);
        }
        if (n > 8) {
            sc[1] = one;
            sc[2] = m1;
            memset(&sc[3], 0, sizeof sc[3]);
            sc[5] = sc[4]; /* a repeated (scalar, base) pair */
            bases[5] = bases[4];
        }
        check_msm(bases, sc, n, "random");
        for (int pat = 0; pat < 3; pat++) {
            for (size_t w = 0; w < nw; w++) bm[w] = pat == 0 ? cz_rng_next(&rng) : pat == 1 ? ~(uint64_t)0 : 0;
            check_ba(bases, bm, n, pat == 0 ? "~50%" : pat == 1 ? "all ones" : "all zeros");
        }
        printf("n = %zu checked\n", n);
    }

    /* edge cases at 4096 points (at the cap when it is lower: memcheck runs, where G2 kernels are slow) */
    const size_t n = cap < 4096 ? (cap < 64 ? 64 : cap / 64 * 64) : 4096;
    memset(sc, 0, n * sizeof *sc);
    check_msm(bases, sc, n, "all scalars zero");
    for (size_t i = 0; i < n; i++) cz_fr_random(&sc[i], &rng);
    memset(bases, 0, n * sizeof *bases);
    check_msm(bases, sc, n, "all bases infinity");
    for (size_t w = 0; w < n / 64; w++) bm[w] = cz_rng_next(&rng);
    check_ba(bases, bm, n, "all bases infinity");
    for (size_t i = 0; i < n; i++) bases[i] = pool[1], sc[i] = sc[0];
    check_msm(bases, sc, n, "one base, one scalar");
    for (size_t w = 0; w < n / 64; w++) bm[w] = ~(uint64_t)0;
    check_ba(bases, bm, n, "one base repeated");
    { /* P, -P, 2P and infinity at random: doublings, cancellations and infinity operands in every round */
        cz_g2_affine p = pool[1], np, p2;
        cz_g2_affine_neg(&np, &p);
        cz_g2_jac j;
        cz_g2_jac_from_affine(&j, &p);
        cz_g2_jac_double(&j, &j);
        cz_g2_to_affine(&p2, &j);
        for (size_t i = 0; i < n + 37; i++) {
            unsigned r = cz_rng_next(&rng) & 3;
            if (r == 3) memset(&bases[i], 0, sizeof bases[i]);
            else bases[i] = r == 0 ? p : r == 1 ? np : p2;
        }
        for (size_t w = 0; w < n / 64 + 1; w++) bm[w] = cz_rng_next(&rng) | 0x5555555555555555ull;
        check_ba(bases, bm, n + 37, "P, -P, 2P, infinity");
    }
    for (size_t i = 0; i < n; i++) bases[i] = pool[1 + cz_rng_next(&rng) % (POOL - 1)], sc[i] = m1;
    check_msm(bases, sc, n, "all scalars r-1");
    /* P and -P alternating with one scalar: every first-round affine pair cancels; then P, -P, 2P and
     * infinity at random with four scalars (doublings, cancellations, infinity operands in the rounds) */
    cz_g2_affine p = pool[1 + cz_rng_next(&rng) % (POOL - 1)], np, p2;
    cz_g2_affine_neg(&np, &p);
    cz_g2_jac j;
    cz_g2_jac_from_affine(&j, &p);
    cz_g2_jac_double(&j, &j);
    cz_g2_to_affine(&p2, &j);
    for (size_t i = 0; i < n; i++) bases[i] = i & 1 ? np : p, sc[i] = sc[0];
    check_msm(bases, sc, n, "P and -P, one scalar");
    cz_fr ks[4];
    for (int q = 0; q < 4; q++) cz_fr_random(&ks[q], &rng);
    for (size_t i = 0; i < n; i++) {
        unsigned r = cz_rng_next(&rng) & 3;
        bases[i] = r == 0 ? p : r == 1 ? np : r == 2 ? p2 : pool[0];
        sc[i] = ks[cz_rng_next(&rng) & 3];
    }
    check_msm(bases, sc, n, "P, -P, 2P, infinity; four scalars");

    cz_gpu_free(d_bases);
    cz_gpu_free(d_sc);
    cz_gpu_free(d_bm);
    cz_gpu_free(d_pairs);
    cz_gpu_g2_release_scratch();
    free(pool);
    free(bases);
    free(sc);
    free(bm);
    return cz_test_finish();
}
