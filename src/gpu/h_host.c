/* H on the device: the transforms of cz_groth16_compute_h (src/groth16/prover.c) in the same order,
 * with the pointwise product, subtraction and division by Z(g w^i) = g^n - 1 fused into one kernel.
 * Nothing leaves the device. */
#include "cz_error.h"
#include "gpu/gpu.h"
#include "gpu/gpu_internal.h"
#include "gpu/prover_internal.h"
#include "poly/ntt.h"

int cz_gpu_groth16_h(cz_gpu_ntt *plan, unsigned log_n, cz_fr *d_a, cz_fr *d_b, cz_fr *d_c, void *stream) {
    cz_domain d;
    int rc = cz_domain_init(&d, log_n);
    if (rc) return rc;
    cz_fr z = d.g, zinv;
    for (unsigned i = 0; i < log_n; i++) cz_fr_sqr(&z, &z);
    cz_fr_sub(&z, &z, &CZ_FR_ONE_V);
    if (cz_fr_inv(&zinv, &z)) return cz_error(CZ_EINVAL, "Z vanishes on the coset (g^n = 1)");
    cz_fr *v[3] = {d_a, d_b, d_c};
    /* order-agnostic transforms (ntt.cu): no bit-reversal pass, the pointwise step permutes instead */
    for (int k = 0; k < 3 && !rc; k++) rc = cz_gpu_ntt_h_step_(plan, v[k], CZ_GPU_H_COSET_EVAL, stream);
    if (!rc) rc = cz_gpu_h_pointwise_rev_(d_a, d_b, d_c, log_n, &zinv, stream);
    if (!rc) rc = cz_gpu_ntt_h_step_(plan, d_a, CZ_GPU_H_INV_REV_TO_NAT, stream);
    return rc;
}
