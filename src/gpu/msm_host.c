/* Host side of the GPU MSM / batch addition (G1 and G2): converts the device's xyzz results with the
 * host group law (src/ec), and does the final Horner over the window sums (a few hundred operations). */
#include <stdlib.h> /* getenv */
#include <string.h>

#include "cz_error.h"
#include "ec/g1.h"
#include "ec/g2.h"
#include "gpu/gpu.h"

int cz_gpu_g1_batch_add_xyzz_(void *r_xyzz, const void *d_bases, const uint64_t *d_bitmap, size_t n, void *stream);
int cz_gpu_g1_batch_add_pairs_xyzz_(void *r_xyzz, const void *d_bases, const uint64_t *d_bitmap, size_t n, void *stream);
int cz_gpu_g1_pair_sums_(void *d_bases, size_t n, void *stream);
int cz_gpu_g1_msm_windows_(void *r_windows, unsigned *w_out, unsigned *c_out, const void *d_bases,
                           const cz_fr *d_scalars, size_t n, void *stream);
int cz_gpu_g2_batch_add_xyzz_(void *r_xyzz, const void *d_bases, const uint64_t *d_bitmap, size_t n, void *stream);
int cz_gpu_g2_batch_add_pairs_xyzz_(void *r_xyzz, const void *d_bases, const uint64_t *d_bitmap, size_t n, void *stream);
int cz_gpu_g2_pair_sums_(void *d_bases, size_t n, void *stream);
int cz_gpu_g2_msm_windows_(void *r_windows, unsigned *w_out, unsigned *c_out, const void *d_bases,
                           const cz_fr *d_scalars, size_t n, void *stream);

int cz_gpu_g1_batch_add(cz_g1_jac *r, const cz_g1_affine *d_bases, const uint64_t *d_bitmap, size_t n, void *stream) {
    cz_g1_xyzz s;
    int rc = cz_gpu_g1_batch_add_xyzz_(&s, d_bases, d_bitmap, n, stream);
    if (rc) return rc;
    cz_g1_jac_from_xyzz(r, &s);
    return 0;
}

int cz_gpu_g1_pair_sums(cz_g1_affine *d_bases, size_t n, void *stream) { return cz_gpu_g1_pair_sums_(d_bases, n, stream); }

int cz_gpu_g1_batch_add_pairs(cz_g1_jac *r, const cz_g1_affine *d_bases, const uint64_t *d_bitmap, size_t n, void *stream) {
    cz_g1_xyzz s;
    int rc = cz_gpu_g1_batch_add_pairs_xyzz_(&s, d_bases, d_bitmap, n, stream);
    if (rc) return rc;
    cz_g1_jac_from_xyzz(r, &s);
    return 0;
}

/* r = sum of 2^(c w) win[w], w < W (Horner) */
static void g1_horner(cz_g1_jac *r, const cz_g1_xyzz *win, unsigned W, unsigned c) {
    cz_g1_jac acc, t;
    cz_g1_jac_set_infinity(&acc);
    for (int w = (int)W - 1; w >= 0; w--) {
        for (unsigned i = 0; i < c; i++) cz_g1_jac_double(&acc, &acc);
        cz_g1_jac_from_xyzz(&t, &win[w]);
        cz_g1_jac_add(&acc, &acc, &t);
    }
    *r = acc;
}

int cz_gpu_g1_msm(cz_g1_jac *r, const cz_g1_affine *d_bases, const cz_fr *d_scalars, size_t n, void *stream) {
    cz_g1_xyzz win[32];
    unsigned W, c;
    int rc = cz_gpu_g1_msm_windows_(win, &W, &c, d_bases, d_scalars, n, stream);
    if (rc) return rc;
    g1_horner(r, win, W, c);
    return 0;
}

int cz_gpu_g1_msm_multi_windows_(void *r_windows, unsigned *w_out, unsigned *c_out, const void *d_bases,
                                 const cz_fr *const *d_sc, const uint32_t *base0, const size_t *n, unsigned k, void *stream);

int cz_gpu_g1_msm_multi(cz_g1_jac *r, const cz_g1_affine *const *d_bases, const cz_fr *const *d_scalars, const size_t *n,
                        unsigned k, void *stream) {
    if (k < 1 || k > 4) return cz_error(CZ_ERANGE, "GPU multi-MSM of %u parts (1..4)", k);
    const char *e = getenv("CZ_GPU_MSM_MULTI");
    int shared = k > 1 && !(e && *e && atoi(e) == 0);
    uint32_t base0[4];
    size_t tot = 0;
    for (unsigned i = 0; i < k && shared; i++) { /* bases addressable from d_bases[0] by a 31-bit index */
        const char *b0 = (const char *)d_bases[0], *bi = (const char *)d_bases[i];
        const size_t d = (size_t)(bi - b0), pts = d / sizeof(cz_g1_affine);
        if (bi < b0 || d % sizeof(cz_g1_affine) || pts + n[i] >= ((size_t)1 << 31)) shared = 0;
        base0[i] = (uint32_t)pts;
        tot += n[i];
    }
    if (shared && tot < ((size_t)1 << 31)) {
        cz_g1_xyzz win[4 * 32]; /* k W window sums (W <= 32) */
        unsigned W, c;
        int rc = cz_gpu_g1_msm_multi_windows_(win, &W, &c, d_bases[0], d_scalars, base0, n, k, stream);
        if (rc == 0)
            for (unsigned i = 0; i < k; i++) g1_horner(&r[i], win + (size_t)i * W, W, c);
        if (rc <= 0) return rc;
    }
    for (unsigned i = 0; i < k; i++) {
        int rc = cz_gpu_g1_msm(&r[i], d_bases[i], d_scalars[i], n[i], stream);
        if (rc) return rc;
    }
    return 0;
}

int cz_gpu_g2_batch_add(cz_g2_jac *r, const cz_g2_affine *d_bases, const uint64_t *d_bitmap, size_t n, void *stream) {
    cz_g2_xyzz s;
    int rc = cz_gpu_g2_batch_add_xyzz_(&s, d_bases, d_bitmap, n, stream);
    if (rc) return rc;
    cz_g2_jac_from_xyzz(r, &s);
    return 0;
}

int cz_gpu_g2_pair_sums(cz_g2_affine *d_bases, size_t n, void *stream) { return cz_gpu_g2_pair_sums_(d_bases, n, stream); }

int cz_gpu_g2_batch_add_pairs(cz_g2_jac *r, const cz_g2_affine *d_bases, const uint64_t *d_bitmap, size_t n, void *stream) {
    cz_g2_xyzz s;
    int rc = cz_gpu_g2_batch_add_pairs_xyzz_(&s, d_bases, d_bitmap, n, stream);
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
