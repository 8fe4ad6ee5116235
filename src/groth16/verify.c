#include "groth16/verify.h"

#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "ec/msm.h"
#include "util/rng.h"

int cz_groth16_pvk_init(cz_groth16_pvk *pvk, const cz_groth16_vk *vk) {
    memset(pvk, 0, sizeof *pvk);
    if (vk->ic_len == 0)
        return cz_error(CZ_EINVAL, "verifying key: empty IC (it holds at least ONE)");
    pvk->ic = malloc(vk->ic_len * sizeof *pvk->ic);
    if (!pvk->ic)
        return cz_error(CZ_ENOMEM, "verifying key: cannot copy %zu IC points", vk->ic_len);
    memcpy(pvk->ic, vk->ic, vk->ic_len * sizeof *pvk->ic);
    pvk->ic_len = vk->ic_len;
    pvk->alpha_g1 = vk->alpha_g1;
    cz_g2_prepare(&pvk->beta_g2, &vk->beta_g2);
    cz_g2_prepare(&pvk->gamma_g2, &vk->gamma_g2);
    cz_g2_prepare(&pvk->delta_g2, &vk->delta_g2);
    return 0;
}

void cz_groth16_pvk_free(cz_groth16_pvk *pvk) {
    free(pvk->ic);
    pvk->ic = NULL;
    pvk->ic_len = 0;
}

/* Checks prod_j e(z_j A_j, B_j) * e(-sum z_j IC_j, gamma) * e(-sum z_j C_j, delta) * e(-(sum z_j) alpha, beta) = 1,
 * with z = 1 for a single proof (then it is exactly bellperson's equation, rearranged). */
static int check(const cz_groth16_pvk *pvk, const cz_groth16_proof *proofs, const cz_fr *const *inputs,
                 size_t n_inputs, size_t k, const cz_fr *z) {
    if (n_inputs + 1 != pvk->ic_len)
        return cz_error(CZ_EINVAL, "verify: %zu public inputs given, the verifying key expects %zu", n_inputs,
                        pvk->ic_len - 1);
    int rc = CZ_ENOMEM;
    cz_fr *s = calloc(pvk->ic_len + k, sizeof *s); /* IC scalars, then the z_j again for the C sum */
    cz_g1_affine *pa = malloc((k + 3) * sizeof *pa), *cs = malloc((k ? k : 1) * sizeof *cs);
    cz_g2_affine *pb = malloc((k ? k : 1) * sizeof *pb);
    cz_g1_jac *tj = malloc((k + 3) * sizeof *tj);
    if (!s || !pa || !cs || !pb || !tj) {
        rc = cz_error(CZ_ENOMEM, "verify: out of memory for %zu proofs", k);
        goto done;
    }
    for (size_t j = 0; j < k; j++) {
        cz_fr_add(&s[0], &s[0], &z[j]);
        for (size_t i = 0; i < n_inputs; i++) {
            cz_fr t;
            cz_fr_mul(&t, &z[j], &inputs[j][i]);
            cz_fr_add(&s[i + 1], &s[i + 1], &t);
        }
        cz_g1_jac a;
        cz_g1_jac_from_affine(&a, &proofs[j].a);
        cz_g1_mul(&tj[j], &a, &z[j]);
        pb[j] = proofs[j].b;
        cs[j] = proofs[j].c;
    }
    cz_g1_jac acc_ic, acc_c, acc_alpha, alpha;
    if ((rc = cz_g1_msm(&acc_ic, pvk->ic, s, pvk->ic_len, 0))) goto done;
    memcpy(s + pvk->ic_len, z, k * sizeof *z);
    if ((rc = cz_g1_msm(&acc_c, cs, s + pvk->ic_len, k, 0))) goto done;
    cz_g1_jac_from_affine(&alpha, &pvk->alpha_g1);
    cz_g1_mul(&acc_alpha, &alpha, &s[0]);
    cz_g1_jac_neg(&tj[k], &acc_ic);
    cz_g1_jac_neg(&tj[k + 1], &acc_c);
    cz_g1_jac_neg(&tj[k + 2], &acc_alpha);
    cz_g1_batch_to_affine(pa, tj, k + 3);

    const cz_g2_prepared *q[3] = {&pvk->gamma_g2, &pvk->delta_g2, &pvk->beta_g2};
    cz_fp12 f1, f2, e;
    cz_miller_loop(&f1, pa, pb, k);
    cz_miller_loop_prepared(&f2, pa + k, q, 3);
    cz_fp12_mul(&f1, &f1, &f2);
    cz_final_exponentiation(&e, &f1);
    rc = cz_fp12_is_one(&e) ? 0 : cz_error(CZ_EVERIFY, "verify: the pairing equation does not hold");
done:
    free(s);
    free(pa);
    free(cs);
    free(pb);
    free(tj);
    return rc;
}

int cz_groth16_verify(const cz_groth16_pvk *pvk, const cz_groth16_proof *proof, const cz_fr *inputs,
                      size_t n_inputs) {
    const cz_fr one = CZ_FR_ONE_V;
    return check(pvk, proof, &inputs, n_inputs, 1, &one);
}

int cz_groth16_verify_bytes(const cz_groth16_pvk *pvk, const uint8_t bytes[CZ_GROTH16_PROOF_BYTES],
                            const cz_fr *inputs, size_t n_inputs) {
    cz_groth16_proof p;
    int rc = cz_groth16_proof_decode(&p, bytes);
    return rc ? rc : cz_groth16_verify(pvk, &p, inputs, n_inputs);
}

int cz_groth16_verify_batch(const cz_groth16_pvk *pvk, const cz_groth16_proof *proofs, const cz_fr *const *inputs,
                            size_t n_inputs, size_t k) {
    if (k == 0)
        return 0;
    cz_fr *z = malloc(k * sizeof *z);
    if (!z)
        return cz_error(CZ_ENOMEM, "verify: out of memory for %zu proofs", k);
    for (size_t j = 0; j < k; j++) {
        uint64_t raw[4] = {0, 0, 0, 0};
        do {
            if (cz_os_random(raw, 16) != 0) {
                free(z);
                return cz_error(CZ_EIO, "verify: cannot read the OS CSPRNG for the batch scalars");
            }
        } while (raw[0] == 0 && raw[1] == 0);
        cz_fr_from_raw(&z[j], raw); /* < 2^128 < r, cannot fail */
    }
    int rc = check(pvk, proofs, inputs, n_inputs, k, z);
    free(z);
    return rc;
}
