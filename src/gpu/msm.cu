/* G1 MSM and 0/1 batch addition on the device: the G1 instantiation of msm_impl.cuh (the host side,
 * Horner over the windows and the conversion to jacobian, is in msm_host.c). */
#include "gpu/g1.cuh"
#include "gpu/msm_impl.cuh"

static scratch g_ba[CZ_GPU_SCRATCH_DEVICES][8], g_msm[CZ_GPU_SCRATCH_DEVICES][12];

extern "C" void cz_gpu_g1_release_scratch(void) {
    int dev;
    if (scratch_device(&dev)) return; /* only the current device's scratch */
    scratch_release(g_ba[dev], 8);
    scratch_release(g_msm[dev], 12);
}

extern "C" int cz_gpu_g1_batch_add_xyzz_(void *r_xyzz, const void *d_bases, const uint64_t *d_bitmap, size_t n,
                                          void *stream) {
    int dev, rc = scratch_device(&dev);
    return rc ? rc : ba_run<cz_dfp>(g_ba[dev], r_xyzz, d_bases, d_bitmap, n, stream);
}

extern "C" int cz_gpu_g1_msm_windows_(void *r_windows, unsigned *w_out, unsigned *c_out, const void *d_bases,
                                       const cz_fr *d_scalars, size_t n, void *stream) {
    int dev, rc = scratch_device(&dev);
    return rc ? rc : msm_run<cz_dfp>(g_msm[dev], r_windows, w_out, c_out, d_bases, d_scalars, n, stream);
}
