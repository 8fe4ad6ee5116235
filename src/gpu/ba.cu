/* G1 0/1 batch addition on the device: the G1 batch-addition instantiation of msm_impl.cuh, in its own
 * translation unit so it compiles beside the MSM one (msm.cu, which also releases this scratch). */
#include "gpu/g1.cuh"
#include "gpu/ba_impl.cuh"

static scratch g_ba[CZ_GPU_SCRATCH_DEVICES][8];

extern "C" size_t cz_gpu_g1_ba_scratch_held_(void) {
    int dev;
    return scratch_device(&dev) ? 0 : scratch_held(g_ba[dev], 8);
}

extern "C" void cz_gpu_g1_ba_release_scratch_(void) {
    int dev;
    if (scratch_device(&dev)) return; /* only the current device's scratch */
    scratch_release(g_ba[dev], 8);
}

extern "C" int cz_gpu_g1_batch_add_xyzz_(void *r_xyzz, const void *d_bases, const uint64_t *d_bitmap, size_t n,
                                          void *stream) {
    int dev, rc = scratch_device(&dev);
    return rc ? rc : ba_run<cz_dfp>(g_ba[dev], r_xyzz, d_bases, d_bitmap, n, false, stream);
}

extern "C" int cz_gpu_g1_batch_add_pairs_xyzz_(void *r_xyzz, const void *d_bases, const uint64_t *d_bitmap, size_t n,
                                                void *stream) {
    int dev, rc = scratch_device(&dev);
    return rc ? rc : ba_run<cz_dfp>(g_ba[dev], r_xyzz, d_bases, d_bitmap, n, true, stream);
}

extern "C" int cz_gpu_g1_pair_sums_(void *d_bases, size_t n, void *stream) {
    int dev, rc = scratch_device(&dev);
    return rc ? rc : ps_run<cz_dfp>(g_ba[dev], d_bases, n, stream);
}

/* the scratch one batch addition of n points keeps on the device, with the affine rounds at their default
 * chunk or at the smallest (the prover's memory accounting) */
extern "C" size_t cz_gpu_g1_ba_scratch_bytes_(size_t n, int rounds) { return ba_scratch_bytes<cz_dfp>(n, rounds); }
