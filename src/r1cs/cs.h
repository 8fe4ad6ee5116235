/* Constraint-system builder: the one API every gadget is written against, run in three modes.
 *
 *   CZ_CS_RECORD   builds the CSR matrices A, B, C and the densities (once per circuit shape);
 *   CZ_CS_WITNESS  stores variable values only and builds no linear combination (the hot path,
 *                  ~130 M allocations per 32 GiB PoRep partition);
 *   CZ_CS_COUNT    counts inputs, aux variables and constraints only.
 * The modes are bit flags: CZ_CS_RECORD | CZ_CS_WITNESS records the matrices and keeps values.
 *
 * Gadgets ask cz_cs_needs_lcs(cs) before building linear combinations and cz_cs_needs_values(cs)
 * before computing values; every cz_lc_* call is also a cheap no-op when LCs are not needed, so a
 * gadget that does not ask still works, only slower. Variables: CZ_CS_ONE is input 0 (allocated by
 * cz_cs_new with value 1), cz_cs_alloc_input adds inputs 1, 2, ..., cz_cs_alloc adds aux 0, 1, ....
 *
 * Errors inside synthesis (out of memory, a missing value in witness mode, a variable that was never
 * allocated, too many variables) are sticky: the call does nothing harmful, the first error is kept,
 * and cz_cs_status / cz_cs_finalize return it. This keeps alloc and enforce free of status checks.
 *
 * Linear combinations take their term storage from per-cs size-class free lists carved out of large
 * slabs, so building one never calls malloc in steady state. An LC is a small value (pointer, length,
 * capacity) owned by the gadget that built it: release it with cz_lc_free (or reuse it after
 * cz_lc_clear). Terms are appended unmerged; enforce sorts and merges them. One cs per thread.
 *
 * A gadget, e.g. bellpepper's AllocatedBit ((ONE - b) * b = 0), written once for all modes:
 *     cz_var b = cz_cs_alloc(cs, cz_cs_needs_values(cs) ? (bit ? &CZ_FR_ONE_V : &CZ_FR_ZERO_V) : NULL);
 *     if (cz_cs_needs_lcs(cs)) {
 *         cz_lc l = CZ_LC_ZERO, r = CZ_LC_ZERO;
 *         cz_lc_add(cs, &l, CZ_CS_ONE, NULL);
 *         cz_lc_sub(cs, &l, b, NULL);
 *         cz_lc_add(cs, &r, b, NULL);
 *         cz_cs_enforce(cs, &l, &r, NULL);
 *         cz_lc_free(cs, &l);
 *         cz_lc_free(cs, &r);
 *     } else {
 *         cz_cs_enforce(cs, NULL, NULL, NULL);   // still counted, builds nothing
 *     } */
#ifndef CZ_R1CS_CS_H
#define CZ_R1CS_CS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ff/fr.h"
#include "r1cs/r1cs.h"
#include "r1cs/wcompact.h"

enum { CZ_CS_COUNT = 0, CZ_CS_RECORD = 1, CZ_CS_WITNESS = 2 };

/* A variable: inputs are ids 0..2^31-1 (ONE = 0), aux variable j is id CZ_VAR_AUX_BIT | j. Sorting
 * ids therefore sorts variables in column order [inputs | aux]. */
typedef struct { uint32_t id; } cz_var;
#define CZ_VAR_AUX_BIT 0x80000000u
#define CZ_VAR_MAX_INDEX 0x7fffffffu
#define CZ_CS_ONE ((cz_var){0})
static inline bool cz_var_is_input(cz_var v) { return !(v.id & CZ_VAR_AUX_BIT); }
static inline uint32_t cz_var_index(cz_var v) { return v.id & ~CZ_VAR_AUX_BIT; }
static inline cz_var cz_var_input(uint32_t i) { return (cz_var){i}; }
static inline cz_var cz_var_aux(uint32_t j) { return (cz_var){CZ_VAR_AUX_BIT | j}; }

typedef struct { cz_fr coeff; cz_var var; } cz_lc_term;
typedef struct { cz_lc_term *t; uint32_t n, cap; } cz_lc;
#define CZ_LC_ZERO ((cz_lc){NULL, 0, 0})

struct cz_cs_record;
struct cz_lc_pool;

/* Exposed only so the hot calls below can be inline; read it through the functions. */
typedef struct cz_cs {
    unsigned mode;
    int err;                      /* first sticky error, 0 if none */
    uint64_t num_inputs, num_aux, num_constraints;
    uint64_t input_limit, aux_limit; /* fast-path bounds: value capacity, or the id limit */
    cz_fr *inputs, *aux;          /* values (CZ_CS_WITNESS only) */
    int ns_depth;
    bool finalized, values_taken, external_values;
    struct cz_cs_record *rec;     /* CZ_CS_RECORD only */
    struct cz_lc_pool *pool;      /* CZ_CS_RECORD only */
    struct cz_wcompact *compact_aux; /* witness mode: aux values go here instead (see below) */
    /* cz_cs_record_blocks: threads for the blocks (1, the default: serial; 0: all), and whether blocks
     * turned out not to share one shape. A block's own cs may use variables below *_shared (the part
     * before the blocks) and from *_base on (its own), none between (another block's). */
    int record_threads;
    bool blocks_differ;
    /* A recording's way out (cz_cs_record_circuit's stop): asked before each block and every 65,536 constraints;
     * once it answers true the recording ends with CZ_ECANCELED (a sticky error: the blocks not yet begun are
     * skipped, those under way end at their next status check). NULL: never. */
    bool (*stop)(void *arg);
    void *stop_arg;
    uint64_t input_shared, aux_shared, input_base, aux_base;
    /* cz_cs_count_circuit: record mode whose matrices only count rows and terms (LCs are still built and
     * normalized, so merged and cancelled terms count as recording would), and whose cz_cs_record_blocks
     * runs block 0 alone and multiplies its shape by the block count. */
    bool count_terms;
} cz_cs;

/* Creates a cs in mode and allocates ONE. 0, CZ_EINVAL (bad mode) or CZ_ENOMEM. */
int cz_cs_new(cz_cs **cs, unsigned mode);
void cz_cs_free(cz_cs *cs);
/* Capacity hints (e.g. from a cached shape) so synthesis never reallocates. 0 or CZ_ENOMEM.
 * Does nothing to values when the caller supplied the value buffers. */
int cz_cs_reserve(cz_cs *cs, uint64_t num_inputs, uint64_t num_aux, uint64_t num_constraints);
/* Witness mode, before any alloc: values go straight into the caller's buffers (e.g. pinned memory
 * the GPU reads, reused across partitions), never reallocated or freed by the cs. inputs[0] is set
 * to ONE. Allocating past a capacity is a sticky CZ_ERANGE. 0 or CZ_EINVAL. */
int cz_cs_set_value_buffers(cz_cs *cs, cz_fr *inputs, uint64_t inputs_cap, cz_fr *aux, uint64_t aux_cap);

/* Witness mode, before any aux alloc: aux values are appended to w (r1cs/wcompact.h: bitmaps for the
 * 0/1 values, the rest dense) instead of a 32-byte array; inputs are kept as usual. Every aux alloc
 * then takes the (out-of-line) slow path; cz_cs_value returns NULL for aux variables and
 * cz_cs_take_witness returns no aux array. 0 or CZ_EINVAL. */
int cz_cs_set_compact_aux(cz_cs *cs, struct cz_wcompact *w);

static inline bool cz_cs_needs_lcs(const cz_cs *cs) { return cs->mode & CZ_CS_RECORD; }
static inline bool cz_cs_needs_values(const cz_cs *cs) { return cs->mode & CZ_CS_WITNESS; }
/* The first sticky error (0 if none); its message was recorded with cz_error when it happened. */
static inline int cz_cs_status(const cz_cs *cs) { return cs->err; }

cz_var cz_cs_alloc_slow_(cz_cs *cs, const cz_fr *value, bool input);
void cz_cs_enforce_record_(cz_cs *cs, const cz_lc *a, const cz_lc *b, const cz_lc *c);

/* New aux / input variable. value may be NULL unless the cs is in witness mode (then it is a sticky
 * CZ_EINVAL); outside witness mode the value is ignored. */
static inline cz_var cz_cs_alloc(cz_cs *cs, const cz_fr *value) {
    if (cs->num_aux >= cs->aux_limit || ((cs->mode & CZ_CS_WITNESS) && !value)) {
        /* compact aux (limit 0): appended here, inline; anything unusual goes to the slow path */
        if (cs->compact_aux && value && cs->num_aux <= CZ_VAR_MAX_INDEX && !cs->finalized && !cs->values_taken &&
            !cz_wcompact_push(cs->compact_aux, value))
            return cz_var_aux((uint32_t)cs->num_aux++);
        return cz_cs_alloc_slow_(cs, value, false);
    }
    if (cs->mode & CZ_CS_WITNESS) cs->aux[cs->num_aux] = *value;
    return cz_var_aux((uint32_t)cs->num_aux++);
}
static inline cz_var cz_cs_alloc_input(cz_cs *cs, const cz_fr *value) {
    if (cs->num_inputs >= cs->input_limit || ((cs->mode & CZ_CS_WITNESS) && !value))
        return cz_cs_alloc_slow_(cs, value, true);
    if (cs->mode & CZ_CS_WITNESS) cs->inputs[cs->num_inputs] = *value;
    return cz_var_input((uint32_t)cs->num_inputs++);
}

/* Adds the constraint a * b = c. The LCs are only read (the caller still owns them); NULL is the
 * zero LC, so a gadget that skipped building LCs may pass NULLs in any mode. Outside record mode it
 * only counts (an enforce after finalize is a sticky error in record mode, not checked otherwise). */
static inline void cz_cs_enforce(cz_cs *cs, const cz_lc *a, const cz_lc *b, const cz_lc *c) {
    if (cs->mode & CZ_CS_RECORD) cz_cs_enforce_record_(cs, a, b, c);
    else cs->num_constraints++;
}

/* A variable's value in witness mode; NULL otherwise or for an unknown variable. */
static inline const cz_fr *cz_cs_value(const cz_cs *cs, cz_var v) {
    if (!(cs->mode & CZ_CS_WITNESS)) return NULL;
    uint64_t i = cz_var_index(v);
    if (cz_var_is_input(v)) return i < cs->num_inputs ? &cs->inputs[i] : NULL;
    return i < cs->num_aux && !cs->compact_aux ? &cs->aux[i] : NULL;
}

/* Copies the values of inputs first .. first + n - 1 (witness mode, every one allocated) to out: the compact
 * witness paths keep the inputs in the cs and hand them on this way. */
static inline void cz_cs_copy_inputs(const cz_cs *cs, cz_fr *out, uint32_t first, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) out[i] = *cz_cs_value(cs, cz_var_input(first + i));
}

/* Synthesizes nblocks repeated blocks, fn(cs, i, ctx) for i = 0 .. nblocks - 1, as the loop
 *     for (i = 0; i < nblocks && !rc; i++) rc = fn(cs, i, ctx);
 * would, and gives the same matrices. In record mode (without values) with record_threads != 1, block 0
 * runs on a cs of its own with counting matrices to learn a block's shape (inputs, aux, constraints,
 * terms of A, B and C), the matrices are reserved for all blocks, and blocks 0 .. nblocks - 1 run on
 * OpenMP threads, each on its own cs whose variables are numbered where the loop would number them and
 * whose rows go straight into their slot. That needs blocks of one shape that use only variables from
 * before the blocks and their own: a block that does otherwise sets cs->blocks_differ and fails the
 * synthesis with CZ_EUNSUPPORTED (record again with record_threads = 1; cz_cs_record_circuit does). Any
 * other error is the lowest failing block's.
 * On a counting cs (count_terms: cz_cs_count_circuit) only block 0 runs, as above, and the counts grow by
 * nblocks times its shape: the other blocks never run, so nothing checks that they share block 0's shape
 * (a circuit whose blocks differ gets a wrong count; the SRS manager warns when a recording disagrees). */
int cz_cs_record_blocks(cz_cs *cs, unsigned nblocks, int (*fn)(cz_cs *cs, unsigned i, void *ctx), void *ctx);

/* A circuit's matrices: synth(cs, arg) on a new record-mode cs with record_threads = nthreads (0: all;
 * the environment's CZ_RECORD_THREADS, when set, instead), then finalize; when its blocks differ
 * (cz_cs_record_blocks), once more serially. stop (NULL: none; stop(stop_arg) is called from the recording's
 * threads) ends it early with CZ_ECANCELED (a daemon's shutdown need not wait for a 32 GiB PoRep's ~7 s recording
 * on 16 cores, minutes on a small host). */
int cz_cs_record_circuit(cz_r1cs *out, int (*synth)(cz_cs *cs, const void *arg), const void *arg, int nthreads,
                         bool (*stop)(void *stop_arg), void *stop_arg);

/* The shape of the matrices cz_cs_record_circuit would record for synth(cs, arg) (rows and inputs
 * including the per-input rows finalize appends: one term each in A), without storing a term: synth runs
 * on a counting cs (count_terms) and each cz_cs_record_blocks inside it synthesizes its block 0 only.
 * Exact when the blocks share one shape, as cz_cs_record_blocks's threads need anyway; memory and time are
 * those of the part before the blocks and one block (32 GiB PoRep: the top and one challenge of 18, 0.7 s
 * on one core, where its recording holds ~29 GB of matrices). */
int cz_cs_count_circuit(cz_r1cs_shape *out, int (*synth)(cz_cs *cs, const void *arg), const void *arg);

/* Namespaces only nest (names are not kept); finalize checks that pushes and pops balance. */
static inline void cz_cs_push_namespace(cz_cs *cs, const char *name) { (void)name; cs->ns_depth++; }
static inline void cz_cs_pop_namespace(cz_cs *cs) { cs->ns_depth--; }

/* Ends synthesis: appends bellperson's per-input rows x_i * 0 = 0 (record mode: A gets the input's
 * column, B and C stay empty; every mode: num_rows = num_constraints + num_inputs), converts the
 * matrices to column order and computes the densities. Returns the sticky error if there is one,
 * CZ_EINVAL for unbalanced namespaces or a second call. */
int cz_cs_finalize(cz_cs *cs);
static inline uint64_t cz_cs_num_inputs(const cz_cs *cs) { return cs->num_inputs; }
static inline uint64_t cz_cs_num_aux(const cz_cs *cs) { return cs->num_aux; }
/* The circuit's own constraints (without the rows finalize appends). */
static inline uint64_t cz_cs_num_constraints(const cz_cs *cs) { return cs->num_constraints; }

/* Moves the finished matrices (record mode, after finalize) into *out; the cs keeps nothing. */
int cz_cs_take_r1cs(cz_cs *cs, cz_r1cs *out);
/* Moves the value vectors (witness mode) out: *inputs (num_inputs, ONE first) and *aux (num_aux),
 * both freed with free() (or, with cz_cs_set_value_buffers, the caller's own buffers back).
 * Works before or after finalize. */
int cz_cs_take_witness(cz_cs *cs, cz_fr **inputs, uint64_t *num_inputs, cz_fr **aux, uint64_t *num_aux);

/* ---- linear combinations (no-ops unless cz_cs_needs_lcs) ---- */

int cz_lc_grow_(cz_cs *cs, cz_lc *lc, uint32_t extra);

/* lc += coeff * v (coeff NULL means 1). */
static inline void cz_lc_add(cz_cs *cs, cz_lc *lc, cz_var v, const cz_fr *coeff) {
    if (!(cs->mode & CZ_CS_RECORD)) return;
    if (lc->n == lc->cap && cz_lc_grow_(cs, lc, 1)) return;
    cz_lc_term *t = &lc->t[lc->n++];
    t->var = v;
    if (coeff) t->coeff = *coeff;
    else t->coeff = CZ_FR_ONE_V;
}
/* lc -= coeff * v (coeff NULL means 1). */
static inline void cz_lc_sub(cz_cs *cs, cz_lc *lc, cz_var v, const cz_fr *coeff) {
    if (!(cs->mode & CZ_CS_RECORD)) return;
    cz_fr m;
    cz_fr_neg(&m, coeff ? coeff : &CZ_FR_ONE_V);
    cz_lc_add(cs, lc, v, &m);
}
/* dst += scale * src, dst -= scale * src (scale NULL means 1; dst may not be src). */
void cz_lc_add_lc(cz_cs *cs, cz_lc *dst, const cz_lc *src, const cz_fr *scale);
void cz_lc_sub_lc(cz_cs *cs, cz_lc *dst, const cz_lc *src, const cz_fr *scale);
/* A copy of src with its own storage. */
cz_lc cz_lc_copy(cz_cs *cs, const cz_lc *src);
/* Empties lc, keeping its storage for reuse. */
static inline void cz_lc_clear(cz_lc *lc) { lc->n = 0; }
/* Returns lc's storage to the cs and sets it to CZ_LC_ZERO. */
void cz_lc_free(cz_cs *cs, cz_lc *lc);

#endif
