/* GPU G1 MSM and 0/1 batch addition against the CPU (src/ec/msm.c) on fresh random data, 2^10..2^20:
 * random subgroup points from a pool (repeats exercise the doubling paths), some infinity bases,
 * random scalars with 0, 1 and r-1 mixed in; bitmaps at ~50 %, all ones, all zeros and lengths that
 * are not a multiple of 64. Results poisoned before each call. Exits 77 (skipped) without a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "ec/msm.h"
#include "gpu/gpu.h"
#include "testutil.h"

#define POOL 512

static int same(const cz_g1_jac *a, const cz_g1_jac *b) { return cz_g1_jac_equal(a, b); }

int main(void) {
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
    CHECK_MSG(rc == 0, "alloc: %s", cz_error_message());
    if (rc) return cz_test_finish();

    static const size_t sizes[] = {1, 63, 1024, 1024 + 37, 4096, 1 << 14, 1 << 16, 1 << 18, (1 << 20) - 5, 1 << 20};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t n = sizes[si], nw = (n + 63) / 64;
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
        CHECK(cz_gpu_memcpy_htod(d_bases, bases, n * sizeof *bases) == 0);
        CHECK(cz_gpu_memcpy_htod(d_sc, sc, n * sizeof *sc) == 0);
        cz_g1_jac cpu, gpu;
        cz_g1_msm(&cpu, bases, sc, n, 0);
        memset(&gpu, 0xa5, sizeof gpu);
        rc = cz_gpu_g1_msm(&gpu, d_bases, d_sc, n, NULL);
        CHECK_MSG(rc == 0, "msm %zu: %s", n, cz_error_message());
        CHECK_MSG(same(&cpu, &gpu), "GPU MSM of %zu points differs from the CPU", n);

        /* batch addition: ~50 % ones, all ones, all zeros */
        for (int pat = 0; pat < 3; pat++) {
            for (size_t w = 0; w < nw; w++)
                bm[w] = pat == 0 ? cz_rng_next(&rng) : pat == 1 ? ~(uint64_t)0 : 0;
            /* bits beyond n are set on purpose: they must be ignored */
            CHECK(cz_gpu_memcpy_htod(d_bm, bm, nw * sizeof *bm) == 0);
            cz_g1_batch_add(&cpu, bases, bm, n, 0);
            memset(&gpu, 0xa5, sizeof gpu);
            rc = cz_gpu_g1_batch_add(&gpu, d_bases, d_bm, n, NULL);
            CHECK_MSG(rc == 0, "batch add %zu: %s", n, cz_error_message());
            CHECK_MSG(same(&cpu, &gpu), "GPU batch add of %zu points (pattern %d) differs from the CPU", n, pat);
        }
        printf("n = %zu checked\n", n);
    }
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
    cz_gpu_g1_release_scratch();
    free(pool);
    free(bases);
    free(sc);
    free(bm);
    return cz_test_finish();
}
