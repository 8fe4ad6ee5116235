/* G2 MSM on the device: the G2 MSM instantiation of msm_impl.cuh (the host side, Horner over the windows
 * and the conversion to jacobian, is in msm_host.c). The G2 batch addition is in ba_g2.cu: one
 * instantiation per translation unit, so the build compiles them in parallel. */
#include "gpu/g2.cuh"
#include "gpu/msm_impl.cuh"

static scratch g_msm[CZ_GPU_SCRATCH_DEVICES][16];

extern "C" void cz_gpu_g2_ba_release_scratch_(void);
extern "C" size_t cz_gpu_g2_ba_scratch_held_(void);

extern "C" size_t cz_gpu_g2_scratch_held(void) {
    int dev;
    if (scratch_device(&dev)) return 0;
    return scratch_held(g_msm[dev], 16) + cz_gpu_g2_ba_scratch_held_();
}

extern "C" void cz_gpu_g2_release_scratch(void) {
    int dev;
    cz_gpu_g2_ba_release_scratch_();
    if (scratch_device(&dev)) return; /* only the current device's scratch */
    scratch_release(g_msm[dev], 16);
}

extern "C" int cz_gpu_g2_msm_windows_(void *r_windows, unsigned *w_out, unsigned *c_out, const void *d_bases,
                                       const cz_fr *d_scalars, size_t n, void *stream) {
    int dev, rc = scratch_device(&dev);
    return rc ? rc : msm_run<cz_dfp2>(g_msm[dev], r_windows, w_out, c_out, d_bases, d_scalars, n, stream);
}

extern "C" size_t cz_gpu_g2_msm_scratch_bytes(size_t n) { return msm_scratch_bytes<cz_dfp2>(n); }
