/* Host side of the GPU MSM / batch addition (G1 and G2): converts the device's xyzz results with the
 * host group law (src/ec), and does the final Horner over the window sums (a few hundred operations). */
#include <string.h>

#include "ec/g1.h"
#include "ec/g2.h"
#include "gpu/gpu.h"

int cz_gpu_g1_batch_add_xyzz_(void *r_xyzz, const void *d_bases, const uint64_t *d_bitmap, size_t n, void *stream);
int cz_gpu_g1_msm_windows_(void *r_windows, unsigned *w_out, unsigned *c_out, const void *d_bases,
                           const cz_fr *d_scalars, size_t n, void *stream);
int cz_gpu_g2_batch_add_xyzz_(void *r_xyzz, const void *d_bases, const uint64_t *d_bitmap, size_t n, void *stream);
int cz_gpu_g2_msm_windows_(void *r_windows, unsigned *w_out, unsigned *c_out, const void *d_bases,
                           const cz_fr *d_scalars, size_t n, void *stream);

int cz_gpu_g1_batch_add(cz_g1_jac *r, const cz_g1_affine *d_bases, const uint64_t *d_bitmap, size_t n, void *stream) {
    cz_g1_xyzz s;
    int rc = cz_gpu_g1_batch_add_xyzz_(&s, d_bases, d_bitmap, n, stream);
    if (rc) return rc;
    cz_g1_jac_from_xyzz(r, &s);
    return 0;
}

int cz_gpu_g1_msm(cz_g1_jac *r, const cz_g1_affine *d_bases, const cz_fr *d_scalars, size_t n, void *stream) {
    cz_g1_xyzz win[32];
    unsigned W, c;
    int rc = cz_gpu_g1_msm_windows_(win, &W, &c, d_bases, d_scalars, n, stream);
    if (rc) return rc;
    cz_g1_jac acc, t;
    cz_g1_jac_set_infinity(&acc);
    for (int w = (int)W - 1; w >= 0; w--) {
        for (unsigned i = 0; i < c; i++) cz_g1_jac_double(&acc, &acc);
        cz_g1_jac_from_xyzz(&t, &win[w]);
        cz_g1_jac_add(&acc, &acc, &t);
    }
    *r = acc;
    return 0;
}

int cz_gpu_g2_batch_add(cz_g2_jac *r, const cz_g2_affine *d_bases, const uint64_t *d_bitmap, size_t n, void *stream) {
    cz_g2_xyzz s;
    int rc = cz_gpu_g2_batch_add_xyzz_(&s, d_bases, d_bitmap, n, stream);
    if (rc) return rc;
    cz_g2_jac_from_xyzz(r, &s);
    return 0;
}

int cz_gpu_g2_msm(cz_g2_jac *r, const cz_g2_affine *d_bases, const cz_fr *d_scalars, size_t n, void *stream) {
    cz_g2_xyzz win[32];
    unsigned W, c;
    int rc = cz_gpu_g2_msm_windows_(win, &W, &c, d_bases, d_scalars, n, stream);
    if (rc) return rc;
    cz_g2_jac acc, t;
    cz_g2_jac_set_infinity(&acc);
    for (int w = (int)W - 1; w >= 0; w--) {
        for (unsigned i = 0; i < c; i++) cz_g2_jac_double(&acc, &acc);
        cz_g2_jac_from_xyzz(&t, &win[w]);
        cz_g2_jac_add(&acc, &acc, &t);
    }
    *r = acc;
    return 0;
}
