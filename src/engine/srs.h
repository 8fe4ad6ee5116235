/* SRS manager: one entry per circuit with its R1CS, Groth16 parameters and prepared vk, reference
 * counted by the jobs that use it. HOT = parameters in memory; COLD = known but not loaded (a
 * parameter file may sit in param_cache). Evicting frees an entry no job references. Loads are
 * single-flight: concurrent acquirers of a loading entry wait for the one load. */
#ifndef CZ_ENGINE_SRS_H
#define CZ_ENGINE_SRS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine/circuit.h"
#include "groth16/params.h"
#include "groth16/verify.h"
#include "r1cs/r1cs.h"

typedef struct cz_srs_entry {
    const cz_circuit *circuit;
    int state; /* 0 cold, 1 loading, 2 hot */
    uint32_t refs;
    uint64_t bytes, last_used_ms, load_ms;
    cz_r1cs r1cs;
    cz_groth16_params params;
    cz_groth16_pvk pvk;
    struct cz_srs_entry *next;
} cz_srs_entry;

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    cz_srs_entry *head;
    char param_cache[512];
    int nthreads;
} cz_srs_mgr;

void cz_srs_init(cz_srs_mgr *m, const char *param_cache, int nthreads);
void cz_srs_destroy(cz_srs_mgr *m);
/* Loads if needed and takes a reference. *load_ms: time this call spent loading (0 when hot). */
int cz_srs_acquire(cz_srs_mgr *m, const cz_circuit *c, cz_srs_entry **out, uint64_t *load_ms);
void cz_srs_release(cz_srs_mgr *m, cz_srs_entry *e);
int cz_srs_preload(cz_srs_mgr *m, const cz_circuit *c, bool *already, uint64_t *load_ms);
/* CZ_EBUSY while referenced. */
int cz_srs_evict(cz_srs_mgr *m, const cz_circuit *c, bool *was_loaded, uint64_t *freed);
/* Bytes of loaded parameters (charged to the engine's memory budget). */
uint64_t cz_srs_loaded_bytes(cz_srs_mgr *m);
/* Memory pressure: evicts unreferenced entries idle for at least min_idle_ms, least recently used first,
 * until need bytes are freed. Returns the bytes freed. */
uint64_t cz_srs_evict_idle(cz_srs_mgr *m, uint64_t need, uint64_t min_idle_ms);

#endif
