/* A synthetic C1 for any sector size: vanilla proofs consistent with the circuit, made without
 * sealing a sector. The sector is a CC one (its data all zeros, so tree_d is the zero tree and comm_d
 * the zero commitment, known before anything else), bound to miner f0<miner_id>'s sector sector_number:
 * replica_id is generate_replica_id of them, the ticket, comm_d and porep_id, as the chain recomputes it
 * (cz_porep_check_sector accepts it). Trees r_last and c are computed only along the opened paths (every
 * other node is a pseudo-random value derived from the seed and its position, so shared siblings agree).
 * Challenges are the interactive ones derived from replica_id and seed; parents are the real DRG and
 * expander parents of the proof's porep_id graph (V1_1), so both cz_porep_public_inputs and cz_c1_verify
 * accept it with the graph check on. The challenged nodes' labels are the real create_label of their
 * parents' rows (a challenged parent's rows are its own real labels); the rows of other parents are
 * pseudo-random, as nothing (circuit or vanilla verifier) recomputes them; comm_r = Poseidon(comm_c,
 * comm_r_last). Not a real sector: no full tree r_last or c, no labels beyond the opened ones. */
#ifndef CZ_FILECOIN_SYNTH_H
#define CZ_FILECOIN_SYNTH_H

#include "filecoin/c1.h"

/* Fills *c1 (free with cz_c1_free) for sector_size with partitions partitions, everything but the
 * sector's identity derived from seed. 0, CZ_EINVAL or CZ_ENOMEM. */
int cz_porep_synthetic_c1(cz_c1 *c1, uint64_t sector_size, unsigned partitions, uint64_t seed, uint64_t miner_id,
                          uint64_t sector_number);

/* A real C1 of a small sector sealed in memory (seal_small.c), for any registered proof of 2 KiB or
 * 8 MiB from API 1.1 on (ids 5, 6, 10, 11, 15, 16: interactive, SyntheticPoRep, NI-PoRep) as miner
 * f0<miner_id>'s sector sector_number: random Fr32 data, ticket and seed from seed; replica_id derived
 * from them, the miner's prover_id and the sector number; every
 * label and full tree_d / tree_c / tree_r_last computed; all partitions of the proof (NI: 13) with
 * the challenges its kind derives. The sparse generator above cannot serve the synthetic and NI
 * kinds: their challenges depend on comm_r, which commits to every node. 8 MiB takes seconds.
 * 0, CZ_EINVAL (another proof) or CZ_ENOMEM. */
int cz_porep_sealed_c1(cz_c1 *c1, unsigned proof_id, uint64_t seed, uint64_t miner_id, uint64_t sector_number);

/* Shape-exact but random witness inputs for one partition (benchmarks: they time synthesis, the values
 * do not satisfy the circuit): random challenges, rows, paths and commitments from seed. w->ch and
 * *pool (the paths) are malloc'ed: free both. 0 or CZ_ENOMEM. */
int cz_porep_witness_random(cz_porep_witness *w, cz_fr **pool, const cz_porep_params *p, uint64_t seed);

#endif
