/* A synthetic C1 for any sector size: vanilla proofs consistent with the circuit, made without
 * sealing a sector. Trees are computed only along the opened paths (every other node is a
 * pseudo-random value derived from the seed and its position, so shared siblings agree); labels
 * of the challenged nodes are computed from their parents' column rows exactly as the vanilla
 * create_label does; comm_r = Poseidon(comm_c, comm_r_last). Challenges are the interactive ones
 * derived from replica_id and seed, so cz_porep_public_inputs accepts the result.
 *
 * Not a real sector: parent indices are pseudo-random (not the DRG / expander graph) and the
 * parents' own labels are random, so a graph-aware vanilla verifier would reject it; the circuit
 * does not check either and is fully satisfied. */
#ifndef CZ_FILECOIN_SYNTH_H
#define CZ_FILECOIN_SYNTH_H

#include "filecoin/c1.h"

/* Fills *c1 (free with cz_c1_free) for sector_size with partitions partitions, everything derived
 * from seed. 0, CZ_EINVAL or CZ_ENOMEM. */
int cz_porep_synthetic_c1(cz_c1 *c1, uint64_t sector_size, unsigned partitions, uint64_t seed);

#endif
