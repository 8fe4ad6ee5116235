/* Host side of the device G1 inverse NTT (g1_ntt.cu): the twiddles w^-e, e < n/2, split as k0 + k1 x^2. */
#include <stdlib.h>

#include "cz_error.h"
#include "gpu/gpu.h"
#include "gpu/gpu_internal.h"
#include "ec/msm_internal.h"
#include "poly/ntt.h"

int cz_gpu_g1_intt_unscaled(void *d_v, unsigned log_n, void *stream) {
    if (log_n > CZ_NTT_MAX_LOG) return cz_error(CZ_ERANGE, "G1 NTT of 2^%u points", log_n);
    if (log_n == 0) return 0;
    cz_domain d;
    int rc = cz_domain_init(&d, log_n);
    if (rc) return rc;
    const size_t h = d.n / 2;
    uint64_t *tw = malloc(h * 4 * sizeof *tw);
    if (!tw) return cz_error(CZ_ENOMEM, "G1 NTT twiddles of 2^%u", log_n);
    cz_fr w = CZ_FR_ONE_V;
    for (size_t e = 0; e < h; e++) {
        uint64_t raw[4];
        cz_fr_to_raw(raw, &w);
        cz_msm_glv_split_(tw + 4 * e, tw + 4 * e + 2, raw); /* little-endian 64-bit limbs = 32-bit words */
        cz_fr_mul(&w, &w, &d.omega_inv);
    }
    cz_fp beta, px, py;
    cz_msm_endo_consts_(&beta, &px, &py);
    void *d_tw = NULL;
    rc = cz_gpu_malloc(&d_tw, h * 32);
    if (!rc) rc = cz_gpu_memcpy_htod(d_tw, tw, h * 32);
    free(tw);
    if (!rc) rc = cz_gpu_g1_intt_run_(d_v, log_n, (const uint32_t *)d_tw, &beta, stream);
    if (!rc) rc = cz_gpu_sync();
    cz_gpu_free(d_tw);
    return rc;
}
