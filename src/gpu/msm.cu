/* G1 MSM on the device: the G1 MSM instantiation of msm_impl.cuh (the host side, Horner over the windows
 * and the conversion to jacobian, is in msm_host.c). The G1 batch addition is in ba.cu: one
 * instantiation per translation unit, so the build compiles them in parallel. */
#include "gpu/g1.cuh"
#include "gpu/msm_impl.cuh"

static scratch g_msm[CZ_GPU_SCRATCH_DEVICES][16];

extern "C" void cz_gpu_g1_ba_release_scratch_(void);
extern "C" size_t cz_gpu_g1_ba_scratch_held_(void);

extern "C" size_t cz_gpu_g1_scratch_held(void) {
    int dev;
    if (scratch_device(&dev)) return 0;
    return scratch_held(g_msm[dev], 16) + cz_gpu_g1_ba_scratch_held_();
}

extern "C" void cz_gpu_g1_release_scratch(void) {
    int dev;
    cz_gpu_g1_ba_release_scratch_();
    if (scratch_device(&dev)) return; /* only the current device's scratch */
    scratch_release(g_msm[dev], 16);
}

extern "C" int cz_gpu_g1_msm_windows_(void *r_windows, unsigned *w_out, unsigned *c_out, const void *d_bases,
                                       const cz_fr *d_scalars, size_t n, void *stream) {
    int dev, rc = scratch_device(&dev);
    return rc ? rc : msm_run<cz_dfp>(g_msm[dev], r_windows, w_out, c_out, d_bases, d_scalars, n, stream);
}

/* The segments' window sums (k W of them) for cz_gpu_g1_msm_multi; 1 when they cannot share one list. */
extern "C" int cz_gpu_g1_msm_multi_windows_(void *r_windows, unsigned *w_out, unsigned *c_out, const void *d_bases,
                                             const cz_fr *const *d_sc, const uint32_t *base0, const size_t *n, unsigned k,
                                             void *stream) {
    msm_segs sg;
    if (k < 1 || k > MSM_MAX_SEGS) return cz_error(CZ_ERANGE, "MSM of %u segments (1..%d)", k, MSM_MAX_SEGS);
    size_t tot = 0;
    sg.k = k;
    for (unsigned i = 0; i < k; i++) sg.sc[i] = d_sc[i], sg.base0[i] = base0[i], sg.n[i] = n[i], tot += n[i];
    int dev, rc = scratch_device(&dev);
    return rc ? rc : msm_run<cz_dfp>(g_msm[dev], r_windows, w_out, c_out, d_bases, d_sc[0], tot, stream, &sg);
}

extern "C" size_t cz_gpu_g1_msm_scratch_bytes(size_t n) { return msm_scratch_bytes<cz_dfp>(n); }
