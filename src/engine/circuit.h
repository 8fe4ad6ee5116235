/* Circuit registry: maps a proof request (kind, sector size) or a circuit id to the circuit's shape,
 * its partition count, the witness synthesis of one partition and the seed of its (test) parameters.
 * Real Filecoin circuits register here when they land; until then only the built-in test circuit
 * (cz_test_circuit) is available and the real ids answer "not available yet". */
#ifndef CZ_ENGINE_CIRCUIT_H
#define CZ_ENGINE_CIRCUIT_H

#include <stddef.h>
#include <stdint.h>

#include "ff/fr.h"
#include "r1cs/r1cs.h"

typedef struct cz_circuit {
    const char *id;
    int kind;             /* CZ_KIND_* */
    uint64_t sector_size; /* bytes */
    uint32_t partitions;
    int available;        /* 0: known id, no implementation yet */
    int is_test;          /* parameters come from a public seed: never for real sectors */
    uint64_t partition_mem; /* bytes charged to the memory budget per partition in flight */
    uint64_t setup_seed;
    /* The circuit's R1CS (recorded once per SRS load). */
    int (*build_r1cs)(const struct cz_circuit *c, cz_r1cs *out);
    /* Checks the request payload before it is queued (CZ_EINVAL with a message when malformed). */
    int (*validate)(const struct cz_circuit *c, const uint8_t *vanilla, size_t len);
    /* The witness of one partition: inputs (inputs[0] = ONE) and aux, malloc'ed. */
    int (*synthesize)(const struct cz_circuit *c, const uint8_t *vanilla, size_t len, uint32_t partition,
                      cz_fr **inputs, uint64_t *ni, cz_fr **aux, uint64_t *na);
} cz_circuit;

/* NULL when the id is unknown. */
const cz_circuit *cz_circuit_find(const char *id);
/* The circuit for a request: CZ_EINVAL (sector size that is no Filecoin size, or a kind outside 1..4),
 * CZ_EUNSUPPORTED (a valid request whose circuit is not available yet). */
int cz_circuit_for_request(int kind, uint64_t sector_size, const cz_circuit **out);
size_t cz_circuit_count(void);
const cz_circuit *cz_circuit_at(size_t i);

/* The built-in test circuit's size (constraints); exposed for tests. */
#define CZ_TEST_CIRCUIT_CONSTRAINTS 1022

#endif
