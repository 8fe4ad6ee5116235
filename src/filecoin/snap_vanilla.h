/* SnapDeals vanilla proofs as cuzk receives them: vanilla_proofs[k] of a SNAP_DEALS_UPDATE request is
 * the bincode of storage-proofs-update's PartitionProof<TreeR> (vanilla.rs): comm_c [32],
 * apex_leafs: Vec<[32]>, challenge_proofs: Vec<ChallengeProof{proof_r_old, proof_d_new,
 * proof_r_new}> (tree_r proofs of the sector shape, tree_d a Single binary SHA-256 proof), plus
 * the public comm_r_old, comm_d_new, comm_r_new (raw 32-byte digests) and the update proof type.
 * Also the vanilla verifier, the circuit witness and the public inputs of one partition. */
#ifndef CZ_FILECOIN_SNAP_VANILLA_H
#define CZ_FILECOIN_SNAP_VANILLA_H

#include <stddef.h>
#include <stdint.h>

#include "filecoin/post_synth.h"
#include "filecoin/post_vanilla.h"
#include "filecoin/snap_circuit.h"

typedef struct {
    cz_merkle_proof r_old, d_new, r_new;
} cz_snap_challenge_proof;

typedef struct {
    cz_fr comm_c;
    unsigned napex, nch;
    cz_fr *apex_leafs;
    cz_snap_challenge_proof *ch;
} cz_snap_partition_proof;

/* filecoin-ffi RegisteredUpdateProof: 0-4 StackedDrg{2KiB,8MiB,512MiB,32GiB,64GiB}V1 (the cuzk
 * request's registered_proof for kind SNAP_DEALS_UPDATE). 0 or CZ_EINVAL. */
int cz_snap_registered(unsigned id, uint64_t *sector_size);

/* Parses one bincode PartitionProof for p: p->apex_leaves apex leaves, p->challenges challenge
 * proofs of p's shapes, no trailing bytes. 0, CZ_EFORMAT, CZ_ERANGE or CZ_ENOMEM, naming the field. */
int cz_snap_partition_proof_parse(cz_snap_partition_proof *out, const uint8_t *buf, size_t len,
                                  const cz_snap_params *p);
int cz_snap_partition_proof_encode(const cz_snap_partition_proof *pp, const cz_snap_params *p, uint8_t **out,
                                   size_t *len);
void cz_snap_partition_proof_free(cz_snap_partition_proof *pp);

/* EmptySectorUpdate::verify for partition k with h high bits, plus what the circuit asserts
 * (every challenge's tree_d path passes through the selected apex leaf and shares the partition
 * path): comm_r_old / comm_r_new = Poseidon2(comm_c, roots), challenges from comm_r_new, every path
 * at its challenge under its root, leaf_r_new = leaf_r_old + leaf_d_new * rho. 0, CZ_EINVAL (k / h)
 * or CZ_EVERIFY naming the challenge and what failed. */
int cz_snap_partition_proof_verify(const cz_snap_partition_proof *pp, const cz_snap_params *p, unsigned k,
                                   unsigned h, const cz_fr *comm_r_old, const cz_fr *comm_d_new,
                                   const cz_fr *comm_r_new);

/* The circuit witness of partition k (pointers into pp; chs holds p->challenges entries). */
int cz_snap_witness_from_proof(cz_snap_witness *w, cz_snap_challenge *chs, const cz_snap_partition_proof *pp,
                               const cz_snap_params *p, unsigned k, unsigned h, const cz_fr *comm_r_old,
                               const cz_fr *comm_d_new, const cz_fr *comm_r_new);

/* The 4 public inputs (without ONE) in PublicInputs::to_vec order: k_and_h_select, comm_r_old,
 * comm_d_new, comm_r_new. 0 or CZ_EINVAL. */
int cz_snap_public_inputs(cz_fr out[4], const cz_snap_params *p, unsigned k, unsigned h,
                          const cz_fr *comm_r_old, const cz_fr *comm_d_new, const cz_fr *comm_r_new);

/* A synthetic updated sector for the small sizes (full trees: at most 2^20 nodes): random old
 * replica and comm_c, random new data (Sha256Domain values), the new replica encoded with the real
 * rho = H_tag(phi, high bits), so every partition's proof is consistent. */
typedef struct {
    cz_snap_params p;
    unsigned h;
    cz_fr comm_c, comm_r_old, comm_d_new, comm_r_new;
    cz_full_tree r_old, d_new, r_new;
} cz_snap_sector;
int cz_snap_synthetic_sector(cz_snap_sector *s, uint64_t sector_size, unsigned h, uint64_t seed);
/* A synthetic update of any size whose new data is all zeros (an empty deal): the old replica's nodes repeat with
 * period (0: the largest whole-subtree period of at most 2^18 nodes), random within it, so tree_r_old is cheap at 32
 * GiB (cz_full_tree_build_periodic), tree_d_new is the zero tree and the new replica, old + 0 * rho, equals the old
 * one (comm_r_new = comm_r_old). Every partition's proof passes the vanilla verifier and satisfies the circuit, as
 * a real sector's would; the witness differs from a real update's in the data leaves (zeros) and in paths that
 * repeat. 0, CZ_EINVAL (size, h, a period that spans no whole subtrees) or CZ_ENOMEM. */
int cz_snap_empty_update_sector(cz_snap_sector *s, uint64_t sector_size, unsigned h, uint64_t seed,
                                uint64_t period);
/* The vanilla PartitionProof of partition k of s (what the real prover would produce). */
int cz_snap_sector_partition_proof(cz_snap_partition_proof *out, const cz_snap_sector *s, unsigned k);
void cz_snap_sector_free(cz_snap_sector *s);

/* A PartitionProof for timing at any sector size (the daemon / bench at 512 MiB - 64 GiB, where a
 * consistent sector would need full trees): tree_r_old and tree_d_new are consistent sparse trees
 * (comm_r_old, comm_d_new, the apex leaves and the partition path are right), the challenges are
 * the real ones of comm_r_new = Poseidon2(comm_c, root_r_new) and leaf_r_new is the real encoding,
 * but root_r_new is random, since tree_r_new would depend on its own challenges. So the witness
 * is complete and every constraint holds except the p->challenges "computed root = root_r_new"
 * rows, and the vanilla verifier rejects it. comms gets comm_r_old, comm_d_new, comm_r_new.
 * 0, CZ_EINVAL or CZ_ENOMEM. */
int cz_snap_timing_partition(cz_snap_partition_proof *out, cz_fr comms[3], const cz_snap_params *p,
                             unsigned k, unsigned h, uint64_t seed);

#endif
