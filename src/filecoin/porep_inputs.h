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
/* prover_id of a miner actor id: the payload of its ID address (f0...), the id as an unsigned LEB128
 * varint, zero-padded to 32 bytes (lotus/Curio toProverID). */
void cz_porep_prover_id(uint8_t out[32], uint64_t miner_id);
/* Whether the C1 was sealed for miner f0<miner_id>'s sector sector_number: its replica_id must be the one
 * generate_replica_id derives from their prover_id and sector id, the C1's ticket and comm_d, and its porep_id
 * (what the chain's verifier recomputes: a proof of a C1 bound to another sector fails on chain). 0 or
 * CZ_EVERIFY, the message naming both sides. */
int cz_porep_check_sector(const cz_c1 *c1, uint64_t miner_id, uint64_t sector_number);
/* How a registered proof derives its challenges (rust-filecoin-proofs-api registry.rs features):
 * ids 0..9 (V1, V1_1) interactive, 10..14 V1_1_Feat_SyntheticPoRep, 15..19
 * V1_2_Feat_NonInteractivePoRep. All use the same circuit and graph (ApiVersion >= 1.1 except V1). */
typedef enum { CZ_POREP_INTERACTIVE = 0, CZ_POREP_SYNTHETIC = 1, CZ_POREP_NI = 2 } cz_porep_kind;
static inline cz_porep_kind cz_porep_kind_of(unsigned proof_id) {
    return proof_id >= 15 ? CZ_POREP_NI : proof_id >= 10 ? CZ_POREP_SYNTHETIC : CZ_POREP_INTERACTIVE;
}
/* Partitions of a proof of this kind: p->partitions (1 / 10), NI-PoRep 13 (sectors <= 1 GiB) or
 * 126 (get_porep_non_interactive_partitions; the challenges per partition stay 2 / 18). */
unsigned cz_porep_kind_partitions(const cz_porep_params *p, cz_porep_kind kind);

/* InteractiveChallenges::derive: challenge j = (SHA256(replica_id ‖ seed ‖ j u32 LE) as LE integer
 * mod (nodes - 1)) + 1, for j = first .. first + n - 1. */
void cz_porep_interactive_challenges(uint64_t *out, unsigned n, unsigned first, const uint8_t replica_id[32],
                                     const uint8_t seed[32], uint64_t nodes);
/* NiChallenges::derive: as interactive, with h = SHA256("filecoin.io|PoRep|1|NonInteractive|1" ‖
 * replica_id ‖ comm_r ‖ j u32 LE) (no seed). */
void cz_porep_ni_challenges(uint64_t *out, unsigned n, unsigned first, const uint8_t replica_id[32],
                            const uint8_t comm_r[32], uint64_t nodes);
/* Synthetic PoRep (challenges.rs, synthetic module). The synthetic challenges: min(nodes, 2^18) of
 * them, challenge i = 32 keystream bytes at offset 32 i of ChaCha20 (nonce "synth-porep\0", key =
 * BLAKE2b-256 keyed "filecoin.io|PoRep|1|Synthetic|1|Generation" of replica_id ‖ comm_r), reduced as
 * an interactive hash. The PoRep challenge j selects synthetic challenge (u32 LE at offset 4 j of
 * ChaCha20 keyed by BLAKE2b-256 "...|Selection" of replica_id ‖ seed) mod the count. */
uint64_t cz_porep_synth_count(uint64_t nodes);
uint64_t cz_porep_synth_challenge(uint64_t i, const uint8_t replica_id[32], const uint8_t comm_r[32], uint64_t nodes);
void cz_porep_synth_indexes(uint64_t *out, unsigned n, unsigned first, const uint8_t replica_id[32],
                            const uint8_t seed[32], uint64_t num_synth);
/* PoRep challenges first .. first + n - 1 of a kind, from the (num_synth) synthetic challenges for
 * CZ_POREP_SYNTHETIC (num_synth = cz_porep_synth_count(nodes) for real proofs). */
void cz_porep_synth_challenges(uint64_t *out, unsigned n, unsigned first, const uint8_t replica_id[32],
                               const uint8_t comm_r[32], const uint8_t seed[32], uint64_t nodes, uint64_t num_synth);
/* Partition k's C challenges for a kind (seed unused by NI, comm_r unused by interactive). */
void cz_porep_partition_challenges(uint64_t *out, cz_porep_kind kind, unsigned C, unsigned k, uint64_t nodes,
                                   const uint8_t replica_id[32], const uint8_t comm_r[32], const uint8_t seed[32]);

/* The 3 + 18 C public inputs of partition k from public values alone (a verifier's view): challenges
 * derived by kind (interactive from replica_id and seed, synthetic also from comm_r, NI from
 * replica_id and comm_r), parents from the graph of porep_id (api_1_0: the
 * ApiVersion 1.0.0 DRG order). out holds 3 + 18 p->challenges values. 0 or CZ_ERANGE (a commitment
 * >= r). */
int cz_porep_inputs_from_public(cz_fr *out, const cz_porep_params *p, const uint8_t porep_id[32], bool api_1_0,
                                cz_porep_kind kind, const uint8_t replica_id[32], const uint8_t comm_d[32], const uint8_t comm_r[32],
                                const uint8_t seed[32], unsigned k);

/* The 3 + 18 C public inputs (without ONE) of partition k: replica_id, comm_d, comm_r, then per
 * challenge its index (tree_d), the 6 DRG and 8 expander parent indices, the challenge, and twice
 * more the challenge (tree_r, tree_c). The challenges are derived by the proof's kind (interactive,
 * synthetic or NI) and must equal the C1's. With graph, the parents are derived from the graph
 * (V1_1: ApiVersion 1.1) and must equal the C1 columns' indices; without, the C1's are taken (e.g.
 * for synthetic C1s). 0, CZ_EINVAL, CZ_ERANGE or CZ_EVERIFY (the C1 disagrees;
 * the message names partition, challenge and field). */
int cz_porep_public_inputs(cz_fr *out, const cz_c1 *c1, unsigned k, bool graph);

#endif
