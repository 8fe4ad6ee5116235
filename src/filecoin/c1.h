/* The C1 output (SealCommitPhase1Output JSON, rust-filecoin-proofs-api seal.rs) and lotus'
 * Commit2In wrapper ({"Phase1Out": base64(C1 JSON), ...}), parsed into what the PoRep circuit
 * consumes. Every error names the partition, challenge and field (filecoin-circuits.md §3.1). */
#ifndef CZ_FILECOIN_C1_H
#define CZ_FILECOIN_C1_H

#include <stddef.h>
#include <stdint.h>

#include "filecoin/porep_circuit.h"

typedef struct {
    char registered_proof[64];
    unsigned proof_id; /* RegisteredSealProof id (0..19): porep_id bytes 0..8 */
    cz_porep_params params;
    uint8_t comm_r[32], comm_d[32], replica_id[32], seed[32], ticket[32];
    unsigned partitions, challenges; /* challenges per partition */
    cz_porep_challenge *ch;          /* partitions * challenges, partition-major */
    cz_fr *comm_r_last, *comm_c;     /* per challenge: the roots its tree_r / tree_c paths name */
    cz_fr *pool;                     /* path storage */
} cz_c1;

/* Parses a raw C1 JSON or a lotus Commit2In wrapper, for any of the 20 registered StackedDrg proofs
 * (V1, V1_1, V1_1_Feat_SyntheticPoRep, V1_2_Feat_NonInteractivePoRep); vanilla_proofs must hold the
 * proof's partitions (1 / 10; NI-PoRep 13 / 126). 0, CZ_EFORMAT, CZ_EINVAL (unknown proof),
 * CZ_ERANGE (a value >= r) or CZ_ENOMEM; on error *c1 holds nothing. */
int cz_c1_parse(cz_c1 *c1, const char *text, size_t len);
/* Reads (util/file.h: a file or a stream such as a pipe, up to 1 GiB) and parses a C1 file. */
int cz_c1_load(cz_c1 *c1, const char *path);
void cz_c1_free(cz_c1 *c1);
/* The raw C1 JSON (serde_json compact form, upstream's field order) of c1, e.g. of a generated C1
 * (synth.h) for tools that read C1 files; what the parser drops (labels, column leaves, labeling
 * parents) is recomputed from the parents' rows. *out is NUL-terminated, freed with free().
 * 0, CZ_EINVAL (empty c1) or CZ_ENOMEM. */
int cz_c1_to_json(const cz_c1 *c1, char **out, size_t *len);

/* The circuit witness of partition k (pointers into c1). 0, CZ_EINVAL (k out of range, or the
 * partition's challenges disagree on comm_r_last / comm_c) or CZ_ERANGE (a commitment >= r). */
int cz_c1_witness(const cz_c1 *c1, unsigned k, cz_porep_witness *w);

#endif
