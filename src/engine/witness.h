/* A partition's witness as the engine holds it between synthesis and the prover. Inputs are always
 * 32-byte values (a few dozen; the verifier needs them after the prover is done); aux is dense or, when
 * the circuit can write it (cz_circuit.synthesize_compact: PoRep), compact (r1cs/wcompact.h: bitmaps
 * for the 0/1 values, the rest dense). A 32 GiB PoRep partition's aux is 4.17 GB dense, ~87 MB compact:
 * that is what every partition synthesized ahead of the prover holds, and what crosses PCIe when the
 * backend takes the compact form (cz_backend.start_compact). */
#ifndef CZ_ENGINE_WITNESS_H
#define CZ_ENGINE_WITNESS_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/backend.h"
#include "engine/circuit.h"
#include "r1cs/wcompact.h"

typedef struct {
    cz_fr *inputs; /* ni values, inputs[0] = ONE */
    uint64_t ni, na;
    bool compact;     /* aux is in caux, else in aux */
    cz_fr *aux;       /* na dense values (NULL when compact or after cz_witness_free_aux) */
    cz_wcompact caux; /* na values, compact */
} cz_witness;

/* Partition `partition` of a prepared request: the compact form when want_compact and the circuit has a
 * compact producer, else the dense one. *out is overwritten (free it with cz_witness_free, also after a
 * failure). */
int cz_witness_synthesize(const cz_circuit *c, void *state, uint32_t partition, bool want_compact, cz_witness *out);
/* Host bytes the witness holds now (inputs + aux in its form; after cz_witness_free_aux, the inputs). */
uint64_t cz_witness_bytes(const cz_witness *w);
/* Bytes of the same witness in dense form: (ni + na) * 32. */
static inline uint64_t cz_witness_dense_bytes(const cz_witness *w) { return (w->ni + w->na) * (uint64_t)sizeof(cz_fr); }
/* Hands the witness to b's start: a compact one to start_compact when b has one, else expanded into a
 * temporary dense aux for start() (freed before returning). CZ_EFORMAT when the witness does not have
 * the circuit's input / aux counts. */
int cz_backend_start_witness(cz_backend *b, int device, const cz_groth16_params *p, const cz_r1cs *r,
                             const cz_witness *w, void **pending);
/* The memory-budget charge of a partition in start() and until it is finished. `charge` (cz_circuit.partition_mem, capped by the
 * budget) counts its dense witness; a compact witness that b takes as is (start_compact, never expanded on
 * the host: the GPU) holds `bytes` instead of `dense_bytes`, so the charge shrinks by the difference
 * (never below min(bytes, charge)). A dense witness, or a backend that expands (the CPU's start_compact,
 * or none: the engine expands for start()), keeps the whole charge. */
uint64_t cz_witness_charge(uint64_t charge, bool compact, uint64_t bytes, uint64_t dense_bytes, const cz_backend *b);
/* A worker's page-locked copy of the witness it hands to start() (cz_backend.host_alloc). */
typedef struct {
    void *buf;
    uint64_t cap;
    int device;
} cz_witness_stage;
/* Copies the host parts a start() uploads (the inputs, then the dense aux or the compact form's is_bit, bit
 * and dense values) into st's buffer (allocated, or grown, through b->host_alloc on `device`; 64-byte
 * aligned parts) and sets *view to w with its parts there, for start(): a read-only view, valid until the
 * next copy into st (never grow or free it). Returns 1 when staged, 0 when not: b has no host_alloc, the
 * parts exceed max bytes, or the allocation failed (start() then takes w itself). */
int cz_witness_stage_copy(cz_backend *b, int device, cz_witness_stage *st, const cz_witness *w, uint64_t max,
                          cz_witness *view);
/* The capacity the next cz_witness_stage_copy of w into st would allocate (replacing st's buffer, if any), or 0
 * when it allocates nothing: w fits in st's buffer on `device`, or is not staged (no host_alloc, nothing to
 * copy, over max bytes). The engine charges its memory budget for it first (engine.c gpu_main). Less than
 * st's capacity when that is over CZ_STAGE_KEEP_MAX and w needs under a quarter of it: the buffer shrinks. */
#define CZ_STAGE_KEEP_MAX ((uint64_t)1 << 30)
uint64_t cz_witness_stage_grow(const cz_backend *b, const cz_witness_stage *st, int device, const cz_witness *w,
                               uint64_t max);
void cz_witness_stage_free(cz_backend *b, cz_witness_stage *st);
/* Frees aux (after start: the verifier still needs the inputs). */
void cz_witness_free_aux(cz_witness *w);
void cz_witness_free(cz_witness *w);

#endif
