/* Circuit registry: maps a proof request (kind, sector size) or a circuit id to the circuit's shape,
 * its partition count, its parameter file and four hooks: prepare (parse + check the request once, at
 * submit, into per-job state), synthesize (the witness of one partition), public_inputs (the verifier's
 * inputs of one partition from public values alone, for the check before COMPLETED) and release; a
 * circuit may also write its witness in compact form (synthesize_compact: PoRep and the test circuit) and
 * count its R1CS without recording it (count_r1cs: every registered circuit).
 *
 * Registered: the real StackedDrg PoRep circuits for every sector size (circuit_porep.c; ids porep-2k,
 * porep-8m, porep-512m, porep-32g, porep-64g) and the built-in test circuit "porep-2k-test" (circuit.c;
 * used for 2 KiB PoRep only when [testing] builtin_test_circuit is set: e2e tests that need many fast
 * proofs), Window and Winning PoSt for every size (circuit_post.c; wpost-*, winning-*) and SnapDeals for every size
 * (circuit_snap.c; snap-*). A new circuit is one more table row (circuit.c) with its hooks. */
#ifndef CZ_ENGINE_CIRCUIT_H
#define CZ_ENGINE_CIRCUIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"
#include "ff/fr.h"
#include "r1cs/r1cs.h"
#include "r1cs/wcompact.h"

typedef struct cz_circuit {
    const char *id;
    int kind;             /* CZ_KIND_* */
    uint64_t sector_size; /* bytes */
    uint32_t partitions;
    int available;          /* 0: known id, no implementation yet */
    int is_test;            /* the built-in test circuit (never for real sectors) */
    /* Bytes charged to the memory budget per partition from its start() until it is finished, its dense
     * witness included. While it is synthesized it holds only its dense witness size, then until start()
     * the witness it holds (engine.c); a partition synthesized compact for a backend that takes the compact
     * form keeps the difference between the dense and the compact witness off its start() charge too. */
    uint64_t partition_mem;
    /* Non-zero: when no official parameter file exists, a seeded local setup is allowed (its parameters
     * come from a public seed, so they prove nothing; cached as <srs.local_cache>/cuzk-test-<id>.params). */
    uint64_t setup_seed;
    const char *params_file; /* official file name in srs.param_cache (NULL: none) */
    /* The circuit's R1CS (recorded once per SRS load; stop as cz_cs_record_circuit's, NULL: none). */
    int (*build_r1cs)(const struct cz_circuit *c, cz_r1cs *out, bool (*stop)(void *), void *stop_arg);
    /* Parses and checks the request before it is queued: CZ_EINVAL with a message naming what is wrong,
     * CZ_EUNSUPPORTED for a valid request this circuit cannot prove. *state is freed with release. */
    int (*prepare)(const struct cz_circuit *c, const cz_submit *s, void **state);
    /* The witness of one partition: inputs (inputs[0] = ONE) and aux, malloc'ed. */
    int (*synthesize)(const struct cz_circuit *c, void *state, uint32_t partition, cz_fr **inputs, uint64_t *ni,
                      cz_fr **aux, uint64_t *na);
    /* n public inputs (without ONE) of one partition, derived independently of the witness. NULL: the
     * engine verifies against the witness's own inputs (the test circuit). */
    int (*public_inputs)(const struct cz_circuit *c, void *state, uint32_t partition, cz_fr *out, uint64_t n);
    void (*release)(const struct cz_circuit *c, void *state);
    /* The partition count of a prepared request (NI-PoRep: 13 / 126); NULL: `partitions`. */
    uint32_t (*partitions_of)(const struct cz_circuit *c, void *state);
    /* Optional: the same witness as synthesize with aux in compact form (r1cs/wcompact.h), written
     * without ever holding 32 bytes per aux value; *aux (cz_wcompact_init'ed by the caller) is filled,
     * inputs malloc'ed. The engine uses it when synthesis.compact_witness is on (engine/witness.h). */
    int (*synthesize_compact)(const struct cz_circuit *c, void *state, uint32_t partition, cz_fr **inputs,
                              uint64_t *ni, cz_wcompact *aux);
    /* Optional: the shape of build_r1cs's R1CS without recording it (cz_cs_count_circuit; 32 GiB PoRep: the
     * top and one challenge of 18), so that a circuit's first SRS load on a host charges its R1CS to the
     * memory budget before recording it (engine/srs.c). NULL: the R1CS is known once recorded. */
    int (*count_r1cs)(const struct cz_circuit *c, cz_r1cs_shape *out);
} cz_circuit;

/* NULL when the id is unknown. */
const cz_circuit *cz_circuit_find(const char *id);
/* The circuit for a request: CZ_EINVAL (sector size that is no Filecoin size, or a kind outside 1..4),
 * CZ_EUNSUPPORTED (a valid request whose circuit is not available yet). use_test: 2 KiB PoRep goes to
 * the built-in test circuit. */
int cz_circuit_for_request(int kind, uint64_t sector_size, bool use_test, const cz_circuit **out);
/* The request's sector size: its sector_size, or, when that is 0, the size its registered_proof names for its
 * kind (Curio's proof-share Snap requests leave sector_size unset; cuzk-spec §1). CZ_EINVAL when sector_size is 0
 * and registered_proof names no size for the kind. */
int cz_request_sector_size(const cz_submit *s, uint64_t *size);
size_t cz_circuit_count(void);
const cz_circuit *cz_circuit_at(size_t i);

/* The real PoRep hooks (circuit_porep.c). */
int cz_porep_circuit_build(const cz_circuit *c, cz_r1cs *out, bool (*stop)(void *), void *stop_arg);
int cz_porep_circuit_count(const cz_circuit *c, cz_r1cs_shape *out);
int cz_porep_circuit_prepare(const cz_circuit *c, const cz_submit *s, void **state);
int cz_porep_circuit_synth(const cz_circuit *c, void *state, uint32_t partition, cz_fr **inputs, uint64_t *ni,
                           cz_fr **aux, uint64_t *na);
int cz_porep_circuit_synth_compact(const cz_circuit *c, void *state, uint32_t partition, cz_fr **inputs,
                                   uint64_t *ni, cz_wcompact *aux);
int cz_porep_circuit_inputs(const cz_circuit *c, void *state, uint32_t partition, cz_fr *out, uint64_t n);
void cz_porep_circuit_release(const cz_circuit *c, void *state);
uint32_t cz_porep_circuit_partitions(const cz_circuit *c, void *state);

/* Window / Winning PoSt hooks (circuit_post.c). */
int cz_post_circuit_build(const cz_circuit *c, cz_r1cs *out, bool (*stop)(void *), void *stop_arg);
int cz_post_circuit_count(const cz_circuit *c, cz_r1cs_shape *out);
int cz_post_circuit_prepare(const cz_circuit *c, const cz_submit *s, void **state);
int cz_post_circuit_synth(const cz_circuit *c, void *state, uint32_t partition, cz_fr **inputs, uint64_t *ni,
                          cz_fr **aux, uint64_t *na);
int cz_post_circuit_inputs(const cz_circuit *c, void *state, uint32_t partition, cz_fr *out, uint64_t n);
void cz_post_circuit_release(const cz_circuit *c, void *state);

/* SnapDeals hooks (circuit_snap.c). */
int cz_snap_circuit_build(const cz_circuit *c, cz_r1cs *out, bool (*stop)(void *), void *stop_arg);
int cz_snap_circuit_count(const cz_circuit *c, cz_r1cs_shape *out);
int cz_snap_circuit_prepare(const cz_circuit *c, const cz_submit *s, void **state);
int cz_snap_circuit_synth(const cz_circuit *c, void *state, uint32_t partition, cz_fr **inputs, uint64_t *ni,
                          cz_fr **aux, uint64_t *na);
int cz_snap_circuit_synth_compact(const cz_circuit *c, void *state, uint32_t partition, cz_fr **inputs, uint64_t *ni,
                                  cz_wcompact *aux);
int cz_snap_circuit_inputs(const cz_circuit *c, void *state, uint32_t partition, cz_fr *out, uint64_t n);
void cz_snap_circuit_release(const cz_circuit *c, void *state);
uint32_t cz_snap_circuit_partitions(const cz_circuit *c, void *state);

/* The built-in test circuit's size (constraints); exposed for tests. */
#define CZ_TEST_CIRCUIT_CONSTRAINTS 1022

#endif
