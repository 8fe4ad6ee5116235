/* PoRep public values outside the circuit (verifier side): porep_id, replica_id, interactive
 * challenges and the public-input vector in StackedCompound::generate_public_inputs order
 * (filecoin-circuits.md §1.2). */
#ifndef CZ_FILECOIN_POREP_INPUTS_H
#define CZ_FILECOIN_POREP_INPUTS_H

#include <stdbool.h>
#include <stdint.h>

#include "filecoin/c1.h"

/* porep_id(): registered-proof id u64 LE, nonce 0 u64 LE, zeros (rust-filecoin-proofs-api). */
void cz_porep_id(uint8_t out[32], unsigned proof_id);
/* generate_replica_id: SHA256(prover_id ‖ sector_id u64 BE ‖ ticket ‖ comm_d ‖ porep_id), byte 31
 * &= 0x3f (LE Fr bytes). */
void cz_porep_replica_id(uint8_t out[32], const uint8_t prover_id[32], uint64_t sector_id, const uint8_t ticket[32],
                         const uint8_t comm_d[32], const uint8_t porep_id[32]);
/* InteractiveChallenges::derive: challenge j = (SHA256(replica_id ‖ seed ‖ j u32 LE) as LE integer
 * mod (nodes - 1)) + 1, for j = first .. first + n - 1. */
void cz_porep_interactive_challenges(uint64_t *out, unsigned n, unsigned first, const uint8_t replica_id[32],
                                     const uint8_t seed[32], uint64_t nodes);
/* The 3 + 18 C public inputs of partition k from public values alone (a verifier's view): challenges
 * from replica_id and seed (interactive PoRep), parents from the graph of porep_id (api_1_0: the
 * ApiVersion 1.0.0 DRG order). out holds 3 + 18 p->challenges values. 0 or CZ_ERANGE (a commitment
 * >= r). */
int cz_porep_inputs_from_public(cz_fr *out, const cz_porep_params *p, const uint8_t porep_id[32], bool api_1_0,
                                const uint8_t replica_id[32], const uint8_t comm_d[32], const uint8_t comm_r[32],
                                const uint8_t seed[32], unsigned k);

/* The 3 + 18 C public inputs (without ONE) of partition k: replica_id, comm_d, comm_r, then per
 * challenge its index (tree_d), the 6 DRG and 8 expander parent indices, the challenge, and twice
 * more the challenge (tree_r, tree_c). The challenges are derived from the seed (interactive PoRep:
 * V1 / V1_1 proofs) and must equal the C1's. With graph, the parents are derived from the graph
 * (V1_1: ApiVersion 1.1) and must equal the C1 columns' indices; without, the C1's are taken (e.g.
 * for synthetic C1s). 0, CZ_EINVAL, CZ_ERANGE, CZ_EUNSUPPORTED or CZ_EVERIFY (the C1 disagrees;
 * the message names partition, challenge and field). */
int cz_porep_public_inputs(cz_fr *out, const cz_c1 *c1, unsigned k, bool graph);

#endif
