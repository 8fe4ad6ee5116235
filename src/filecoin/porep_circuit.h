/* The StackedDrg PoRep (C2) circuit of rust-fil-proofs (storage-proofs-porep stacked/circuit/
 * proof.rs StackedCircuit::synthesize and params.rs Proof::synthesize), one partition, in exactly
 * upstream's allocation and constraint order, for every mode of the cs (count mode needs no
 * witness at all). */
#ifndef CZ_FILECOIN_POREP_CIRCUIT_H
#define CZ_FILECOIN_POREP_CIRCUIT_H

#include <stdint.h>

#include "gadgets/por.h"
#include "r1cs/wcompact.h"

#define CZ_POREP_MAX_LAYERS 11
#define CZ_POREP_DRG_PARENTS 6
#define CZ_POREP_EXP_PARENTS 8
#define CZ_POREP_MAX_CHALLENGES 18

typedef struct {
    const char *name;
    uint64_t sector_size;
    unsigned nodes_log2;  /* tree_d depth */
    unsigned layers;      /* 2 or 11 */
    unsigned challenges;  /* per partition */
    unsigned partitions;
    cz_tree_shape tree;   /* tree_r_last / tree_c (Poseidon, arity-8 base) */
    cz_tree_shape tree_d; /* binary SHA-256 */
} cz_porep_params;

/* Parameters for 2 KiB, 8 MiB, 512 MiB, 32 GiB or 64 GiB (fills *p). 0 or CZ_EINVAL. */
int cz_porep_params_for(cz_porep_params *p, uint64_t sector_size);

/* One opened column: node index (the index its tree_c path encodes), the L labels (row r =
 * layer r + 1), its tree_c path. */
typedef struct {
    uint64_t index;
    cz_fr rows[CZ_POREP_MAX_LAYERS];
    const cz_fr *path; /* cz_tree_path_len(tree) siblings */
} cz_porep_column;

/* What the circuit consumes from one vanilla challenge proof. */
typedef struct {
    uint64_t challenge;                         /* labeling_proofs[0].node: the UInt64 input */
    uint64_t d_index, r_index, c_index;         /* leaf indices the three paths encode */
    cz_fr data_leaf;
    const cz_fr *comm_d_path;      /* nodes_log2 siblings */
    const cz_fr *comm_r_last_path; /* tree siblings */
    const cz_fr *comm_c_path;      /* tree siblings (of c_x) */
    cz_porep_column drg[CZ_POREP_DRG_PARENTS], exp[CZ_POREP_EXP_PARENTS];
} cz_porep_challenge;

typedef struct {
    cz_fr replica_id, comm_d, comm_r, comm_r_last, comm_c;
    const cz_porep_challenge *ch; /* challenges entries */
} cz_porep_witness;

/* Layout constants: the part before the challenges (ONE + 3 inputs, 571 aux) and per challenge. */
#define CZ_POREP_TOP_INPUTS 4
#define CZ_POREP_TOP_AUX 571
#define CZ_POREP_CHALLENGE_INPUTS 18

/* Synthesizes one partition. w is read only in witness mode (may be NULL otherwise).
 * 0 or the cs's sticky error. */
int cz_porep_synthesize(cz_cs *cs, const cz_porep_params *p, const cz_porep_witness *w);

/* Aux variables before the challenges and per challenge (counted once per sector size). */
int cz_porep_shape(const cz_porep_params *p, uint64_t *top_aux, uint64_t *ch_aux);

/* Witness of one partition, challenges in parallel on nthreads (<= 0: OpenMP's default), written
 * straight into caller buffers (inputs: ONE + 3 + 18 C values, aux: 571 + C * per-challenge):
 * the same values, in the same order, as cz_porep_synthesize in witness mode.
 * 0, CZ_ERANGE (buffers too small) or the first challenge's error. */
int cz_porep_witness_parallel(const cz_porep_params *p, const cz_porep_witness *w, cz_fr *inputs, uint64_t inputs_cap,
                              cz_fr *aux, uint64_t aux_cap, int nthreads);

/* The same witness with aux in compact form (r1cs/wcompact.h), written by the cs directly, never as
 * 32 bytes per value: *aux is emptied and refilled (init it once, reuse it across partitions).
 * Challenges run in parallel, each into its own part, appended in order. 0, CZ_ERANGE, CZ_ENOMEM or
 * the first challenge's error. */
int cz_porep_witness_compact(const cz_porep_params *p, const cz_porep_witness *w, cz_fr *inputs, uint64_t inputs_cap,
                             cz_wcompact *aux, int nthreads);

#endif
