/* snarkjs (iden3) Groth16 on BLS12-381: the .zkey proving key, a prover following snarkjs' own
 * convention (so that, with r and s fixed, our proof equals snarkjs's bit for bit), a setup from known
 * toxic waste that writes a .zkey (tests and benchmarks only), and the JSON files snarkjs reads and
 * writes (proof.json, public.json, verification_key.json).
 *
 * Why a second prover path: a .zkey's H section holds [L^{2n}_{2i+1}(tau)/delta]_1 (Lagrange basis of
 * the odd points of the 2n domain) instead of bellperson's [tau^i Z(tau)/delta]_1, and snarkjs' domain
 * uses ffjavascript's roots (5^((r-1)/2^32) squared down) where bellperson's uses 7. The H scalars are
 * P = A*B - C evaluated on the odd coset omega2*omega^i; see shared/research/interop.md §3.
 *
 * Witness indices are circom's: w[0] = ONE, w[1..n_public] the public signals, then the private ones;
 * this is also cz_circom_r1cs_read's column order. */
#ifndef CZ_GROTH16_SNARKJS_H
#define CZ_GROTH16_SNARKJS_H

#include <stddef.h>
#include <stdint.h>

#include "ec/g1.h"
#include "ec/g2.h"
#include "groth16/params.h"
#include "groth16/proof.h"
#include "groth16/setup.h"
#include "poly/ntt.h"
#include "r1cs/r1cs.h"

typedef struct {
    uint32_t matrix; /* 0 = A, 1 = B */
    uint32_t row, signal;
    cz_fr value; /* Montgomery form of the coefficient (the file holds coef * R^2 mod r) */
} cz_snarkjs_coef;

typedef struct {
    uint32_t n_vars, n_public, domain_size, power;
    cz_g1_affine alpha1, beta1, delta1;
    cz_g2_affine beta2, gamma2, delta2;
    cz_g1_affine *ic; /* n_public + 1 */
    size_t n_coef;
    cz_snarkjs_coef *coef;
    cz_g1_affine *a, *b1; /* n_vars each (infinity allowed) */
    cz_g2_affine *b2;     /* n_vars */
    cz_g1_affine *c;      /* n_vars - n_public - 1 */
    cz_g1_affine *h;      /* domain_size */
} cz_snarkjs_zkey;

#define CZ_ZKEY_CHECK_SUBGROUP 1u /* also subgroup-check every point (the curve equation is always checked) */

/* Parses a groth16 zkey image (sections located through their table, any order). Errors
 * (CZ_EFORMAT / CZ_ERANGE / CZ_ECURVE / CZ_ESUBGROUP / CZ_EUNSUPPORTED) name `name`, the section and the
 * byte offset. */
int cz_snarkjs_zkey_parse(cz_snarkjs_zkey *z, const uint8_t *buf, size_t len, const char *name, unsigned flags);
int cz_snarkjs_zkey_read(cz_snarkjs_zkey *z, const char *path, unsigned flags);
/* Writes sections 1..10 as snarkjs does (section 10: zero hash, no contributions). */
int cz_snarkjs_zkey_write(const char *path, const cz_snarkjs_zkey *z);
void cz_snarkjs_zkey_free(cz_snarkjs_zkey *z);
/* A verifying key (ic copied; free with cz_groth16_vk_free). */
int cz_snarkjs_zkey_vk(cz_groth16_vk *vk, const cz_snarkjs_zkey *z);

/* The size-2^log_n domain with ffjavascript's root of unity; its coset generator g is the 2^(log_n+1)-th
 * root omega2 (omega2^2 = omega), so cz_ntt_coset_forward evaluates on snarkjs' odd coset. */
int cz_snarkjs_domain(cz_domain *d, unsigned log_n);

/* A .zkey for the circom-ordered system r (num_inputs = 1 + n_public, the input rows appended as
 * cz_circom_r1cs_read does) from known toxic waste; gamma is 1 as in snarkjs (t->gamma is ignored).
 * Test use only. */
int cz_snarkjs_setup(cz_snarkjs_zkey *z, const cz_r1cs *r, const cz_groth16_toxic *t, int nthreads);

/* Proves with the zkey for the full witness w (n_w = n_vars values, Montgomery). r, s NULL draws them
 * from the OS CSPRNG. The key's points must lie in the prime-order subgroup (a setup's always do): the
 * MSMs use the endomorphisms (cz_g1_msm_subgroup). */
int cz_snarkjs_prove(cz_groth16_proof *proof, const cz_snarkjs_zkey *z, const cz_fr *w, size_t n_w, const cz_fr *r,
                     const cz_fr *s, int nthreads);

/* JSON as snarkjs writes it (JSON.stringify(obj, null, 1)): decimal strings, affine, standard form. */
int cz_snarkjs_proof_write_json(const char *path, const cz_groth16_proof *p);
int cz_snarkjs_public_write_json(const char *path, const cz_fr *pub, size_t n);
/* verification_key.json without vk_alphabeta_12 (neither snarkjs' verifier nor ours reads it). */
int cz_snarkjs_vk_write_json(const char *path, const cz_groth16_vk *vk);
/* Readers check the curve equation and the subgroup of every point (stricter than snarkjs). */
int cz_snarkjs_proof_read_json(cz_groth16_proof *p, const char *path);
int cz_snarkjs_public_read_json(cz_fr **pub, size_t *n, const char *path);
/* beta_g1 and delta_g1 are not in the JSON: they are set to infinity (the verifier does not use them). */
int cz_snarkjs_vk_read_json(cz_groth16_vk *vk, const char *path);

#endif
