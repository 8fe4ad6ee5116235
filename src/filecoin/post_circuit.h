/* The FallbackPoSt circuit of rust-fil-proofs (storage-proofs-post fallback/circuit.rs,
 * Sector::synthesize), used for both Winning PoSt (66 "sectors" x 1 challenge, one Groth16 proof)
 * and Window PoSt (2 / 2349 / 2300 sectors x 10 challenges per partition), in upstream's
 * allocation and constraint order for every mode of the cs (filecoin-circuits.md §3.2).
 *
 * Per sector: aux comm_r_last, comm_c, comm_r (this order, unlike PoRep), inputize comm_r,
 * Poseidon2(comm_c, comm_r_last), comm_r * ONE = hash; per challenge a PoR whose leaf is a fresh
 * aux (Root::Val) under comm_r_last, its leaf index packed into one input. synthesize_extendable
 * (sector chunks synthesised apart and appended) gives the same order, so sectors are independent
 * and their witnesses can be built in parallel. */
#ifndef CZ_FILECOIN_POST_CIRCUIT_H
#define CZ_FILECOIN_POST_CIRCUIT_H

#include <stdint.h>

#include "gadgets/por.h"

typedef enum { CZ_POST_WINNING = 0, CZ_POST_WINDOW = 1 } cz_post_kind;

typedef struct {
    const char *name; /* "WinningPoSt-2KiB", ... */
    cz_post_kind kind;
    uint64_t sector_size;
    unsigned nodes_log2;
    unsigned sectors;    /* circuit sectors per partition: 66 (Winning), 2 / 2349 / 2300 (Window) */
    unsigned challenges; /* per circuit sector: 1 (Winning) or 10 (Window) */
    cz_tree_shape tree;  /* tree_r_last: Poseidon, arity-8 base levels then sub / top */
    unsigned tree_extra; /* how many of tree's last levels are sub (1) and top (2) trees */
} cz_post_params;

/* Parameters of kind at sector_size (2 KiB, 8 MiB, 512 MiB, 32 GiB, 64 GiB). 0 or CZ_EINVAL. */
int cz_post_params_for(cz_post_params *p, cz_post_kind kind, uint64_t sector_size);

/* One Merkle inclusion proof as the circuit consumes it (and the vanilla formats carry it). */
typedef struct {
    cz_fr root, leaf;
    uint64_t index; /* the leaf index its path encodes (path_index()) */
    unsigned nsib;  /* cz_tree_path_len(shape) */
    cz_fr *sib;     /* siblings level by level, leaf first */
} cz_merkle_proof;

/* One circuit sector: the commitments and p->challenges inclusion proofs (roots = comm_r_last). */
typedef struct {
    cz_fr comm_r, comm_c, comm_r_last;
    const cz_merkle_proof *proofs;
} cz_post_sector;

/* Inputs (without ONE) and aux variables per circuit sector. */
static inline uint64_t cz_post_sector_inputs(const cz_post_params *p) { return 1u + p->challenges; }
uint64_t cz_post_sector_aux(const cz_post_params *p);

/* Synthesizes one partition of p->sectors sectors (a test may lower p->sectors for a reduced
 * circuit). sectors is read only in witness mode (may be NULL otherwise). 0 or the cs's sticky
 * error / CZ_EINVAL. */
int cz_post_synthesize(cz_cs *cs, const cz_post_params *p, const cz_post_sector *sectors);

/* Witness of one partition with the sectors in parallel (nthreads <= 0: OpenMP's default), written
 * straight into the caller's buffers: inputs = ONE + p->sectors * (1 + challenges), aux = p->sectors
 * * cz_post_sector_aux. The same values in the same order as cz_post_synthesize in witness mode.
 * 0, CZ_ERANGE (buffers too small) or the first failing sector's error. */
int cz_post_witness_parallel(const cz_post_params *p, const cz_post_sector *sectors, cz_fr *inputs,
                             uint64_t inputs_cap, cz_fr *aux, uint64_t aux_cap, int nthreads);

#endif
