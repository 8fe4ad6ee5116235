/* The 192-byte Groth16 proof of bellperson (proof.rs): compressed A (G1, 48) ‖ B (G2, 96) ‖ C (G1, 48).
 * Decoding validates each point (flags, field range, curve, subgroup) and rejects infinity, as
 * bellperson's Proof::read does. */
#ifndef CZ_GROTH16_PROOF_H
#define CZ_GROTH16_PROOF_H

#include <stdint.h>

#include "ec/g1.h"
#include "ec/g2.h"

#define CZ_GROTH16_PROOF_BYTES 192

typedef struct {
    cz_g1_affine a;
    cz_g2_affine b;
    cz_g1_affine c;
} cz_groth16_proof;

void cz_groth16_proof_encode(uint8_t out[CZ_GROTH16_PROOF_BYTES], const cz_groth16_proof *p);
/* Errors name the element (A, B or C), its byte offset and the problem. */
int cz_groth16_proof_decode(cz_groth16_proof *p, const uint8_t in[CZ_GROTH16_PROOF_BYTES]);
/* Multi-partition proof bytes (partitions concatenated, as MultiProof::write): len must be a whole number
 * of proofs, at most max of them; *count gets the number decoded. Errors name `name`, the partition and
 * its byte offset. */
int cz_groth16_proofs_decode(cz_groth16_proof *out, size_t max, size_t *count, const uint8_t *buf, size_t len,
                             const char *name);

#endif
