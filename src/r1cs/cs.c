#include "r1cs/cs.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "r1cs/csr_build.h"
#include "r1cs/lc_pool.h"
#include "r1cs/wcompact.h"
#include "util/mem.h"

struct cz_cs_record {
    cz_csr_builder m[3];
    cz_lc_term *scratch; /* a copy of one LC being normalized (enforce must not reorder the caller's) */
    size_t scratch_cap;
    cz_r1cs out;         /* filled by finalize */
    bool have_out;
};

static int set_err(cz_cs *cs, int code) {
    if (!cs->err) cs->err = code;
    return code;
}

static int grow_values(cz_cs *cs, bool input, uint64_t want, bool huge) {
    cz_fr **v = input ? &cs->inputs : &cs->aux;
    uint64_t *limit = input ? &cs->input_limit : &cs->aux_limit;
    if (want <= *limit) return 0;
    if (cs->external_values)
        return cz_error(CZ_ERANGE, "cs: more than the %llu %s values the caller's buffer holds",
                        (unsigned long long)*limit, input ? "input" : "aux");
    cz_fr *p = realloc(*v, want * sizeof *p);
    if (!p)
        return cz_error(CZ_ENOMEM, "cs: out of memory for %llu %s values", (unsigned long long)want,
                        input ? "input" : "aux");
    if (huge) cz_advise_hugepages(p, want * sizeof *p);
    *v = p;
    *limit = want;
    return 0;
}

int cz_cs_new(cz_cs **out, unsigned mode) {
    *out = NULL;
    if (mode & ~(unsigned)(CZ_CS_RECORD | CZ_CS_WITNESS)) return cz_error(CZ_EINVAL, "cs: unknown mode %u", mode);
    cz_cs *cs = calloc(1, sizeof *cs);
    if (!cs) return cz_error(CZ_ENOMEM, "cs: out of memory");
    cs->mode = mode;
    cs->record_threads = 1;
    /* Without values the fast path only has to respect the id space. */
    cs->input_limit = cs->aux_limit = (mode & CZ_CS_WITNESS) ? 0 : (uint64_t)CZ_VAR_MAX_INDEX + 1;
    int rc = 0;
    if (mode & CZ_CS_RECORD) {
        cs->rec = calloc(1, sizeof *cs->rec);
        if (!cs->rec) rc = cz_error(CZ_ENOMEM, "cs: out of memory");
        else rc = cz_lc_pool_new(&cs->pool);
    }
    if (!rc && (mode & CZ_CS_WITNESS)) rc = grow_values(cs, true, 16, false) ? CZ_ENOMEM : grow_values(cs, false, 1024, false);
    if (rc) {
        cz_cs_free(cs);
        return rc;
    }
    cz_cs_alloc_input(cs, &CZ_FR_ONE_V);
    *out = cs;
    return 0;
}

void cz_cs_free(cz_cs *cs) {
    if (!cs) return;
    if (cs->rec) {
        for (int i = 0; i < 3; i++) cz_csr_builder_free(&cs->rec->m[i]);
        free(cs->rec->scratch);
        cz_r1cs_free(&cs->rec->out);
        free(cs->rec);
    }
    cz_lc_pool_free(cs->pool);
    if (!cs->external_values) {
        free(cs->inputs);
        free(cs->aux);
    }
    free(cs);
}

int cz_cs_reserve(cz_cs *cs, uint64_t num_inputs, uint64_t num_aux, uint64_t num_constraints) {
    int rc;
    if ((cs->mode & CZ_CS_WITNESS) && !cs->external_values) {
        if (num_inputs > (uint64_t)CZ_VAR_MAX_INDEX + 1 || num_aux > (uint64_t)CZ_VAR_MAX_INDEX + 1)
            return cz_error(CZ_ERANGE, "cs: reserve beyond the variable id space");
        if ((rc = grow_values(cs, true, num_inputs, true)) ||
            (!cs->compact_aux && (rc = grow_values(cs, false, num_aux, true))))
            return rc;
    }
    if (cs->rec) {
        /* A rough 2.5 terms per row is what the Filecoin circuits average; it is only a hint. */
        for (int i = 0; i < 3; i++)
            if ((rc = cz_csr_builder_reserve(&cs->rec->m[i], num_constraints + num_inputs,
                                             num_constraints * 5 / 2)))
                return rc;
    }
    return 0;
}

int cz_cs_set_value_buffers(cz_cs *cs, cz_fr *inputs, uint64_t inputs_cap, cz_fr *aux, uint64_t aux_cap) {
    if (!(cs->mode & CZ_CS_WITNESS) || cs->num_inputs != 1 || cs->num_aux != 0 || cs->external_values ||
        cs->values_taken || cs->finalized || cs->compact_aux)
        return cz_error(CZ_EINVAL, "cs: value buffers must be set once, in witness mode, before any alloc");
    if (!inputs || !aux || inputs_cap < 1)
        return cz_error(CZ_EINVAL, "cs: value buffers need room for ONE");
    uint64_t lim = (uint64_t)CZ_VAR_MAX_INDEX + 1;
    free(cs->inputs);
    free(cs->aux);
    cs->inputs = inputs;
    cs->aux = aux;
    cs->input_limit = inputs_cap < lim ? inputs_cap : lim;
    cs->aux_limit = aux_cap < lim ? aux_cap : lim;
    cs->external_values = true;
    cs->inputs[0] = CZ_FR_ONE_V;
    return 0;
}

int cz_cs_set_compact_aux(cz_cs *cs, struct cz_wcompact *w) {
    if (!(cs->mode & CZ_CS_WITNESS) || cs->num_aux != 0 || cs->compact_aux || cs->values_taken || cs->finalized || !w)
        return cz_error(CZ_EINVAL, "cs: compact aux must be set once, in witness mode, before any aux alloc");
    if (!cs->external_values) free(cs->aux);
    cs->aux = NULL;
    cs->aux_limit = 0; /* every aux alloc takes the slow path, which appends to w */
    cs->compact_aux = w;
    return 0;
}

cz_var cz_cs_alloc_slow_(cz_cs *cs, const cz_fr *value, bool input) {
    uint64_t *n = input ? &cs->num_inputs : &cs->num_aux;
    if (cs->finalized || cs->values_taken) {
        set_err(cs, cz_error(CZ_EINVAL, "cs: alloc after finalize or after the witness was taken"));
        return CZ_CS_ONE;
    }
    if (*n > CZ_VAR_MAX_INDEX) {
        set_err(cs, cz_error(CZ_ERANGE, "cs: more than 2^31 %s variables", input ? "input" : "aux"));
        return CZ_CS_ONE;
    }
    if (cs->mode & CZ_CS_WITNESS) {
        if (!value) {
            set_err(cs, cz_error(CZ_EINVAL, "cs: %s variable %llu allocated without a value in witness mode",
                                 input ? "input" : "aux", (unsigned long long)*n));
            return CZ_CS_ONE;
        }
        if (!input && cs->compact_aux) {
            int rc = cz_wcompact_push(cs->compact_aux, value);
            if (rc) {
                set_err(cs, rc);
                return CZ_CS_ONE;
            }
            return cz_var_aux((uint32_t)(*n)++);
        }
        uint64_t cap = input ? cs->input_limit : cs->aux_limit;
        if (*n >= cap) {
            uint64_t want = cap * 2 > (uint64_t)CZ_VAR_MAX_INDEX + 1 ? (uint64_t)CZ_VAR_MAX_INDEX + 1 : cap * 2;
            if (want < 16) want = 16;
            int rc = grow_values(cs, input, want, false);
            if (rc) {
                set_err(cs, rc);
                return CZ_CS_ONE;
            }
        }
        (input ? cs->inputs : cs->aux)[*n] = *value;
    }
    uint32_t idx = (uint32_t)(*n)++;
    return input ? cz_var_input(idx) : cz_var_aux(idx);
}

/* Copies lc into the scratch buffer, checks its variables exist and normalizes it. */
static int prepare_lc(cz_cs *cs, const cz_lc *lc, size_t *n_out) {
    struct cz_cs_record *r = cs->rec;
    static const cz_lc zero = {NULL, 0, 0};
    if (!lc) lc = &zero;
    if (lc->n > r->scratch_cap) {
        size_t cap = lc->n < 64 ? 64 : lc->n;
        cz_lc_term *s = realloc(r->scratch, cap * sizeof *s);
        if (!s) return set_err(cs, cz_error(CZ_ENOMEM, "cs: out of memory"));
        r->scratch = s;
        r->scratch_cap = cap;
    }
    for (uint32_t i = 0; i < lc->n; i++) {
        cz_var v = lc->t[i].var;
        const bool in = cz_var_is_input(v);
        const uint64_t x = cz_var_index(v), limit = in ? cs->num_inputs : cs->num_aux;
        if (x >= limit)
            return set_err(cs, cz_error(CZ_EINVAL, "cs: constraint %llu uses %s variable %llu, which was never allocated",
                                        (unsigned long long)cs->num_constraints, in ? "input" : "aux",
                                        (unsigned long long)x));
        if (x >= (in ? cs->input_shared : cs->aux_shared) && x < (in ? cs->input_base : cs->aux_base)) {
            cs->blocks_differ = true; /* another block's variable: only the serial loop can record this */
            return set_err(cs, cz_error(CZ_EUNSUPPORTED, "cs: constraint %llu uses %s variable %llu of another block",
                                        (unsigned long long)cs->num_constraints, in ? "input" : "aux",
                                        (unsigned long long)x));
        }
        r->scratch[i] = lc->t[i];
    }
    *n_out = cz_lc_terms_normalize(r->scratch, lc->n);
    return 0;
}

void cz_cs_enforce_record_(cz_cs *cs, const cz_lc *a, const cz_lc *b, const cz_lc *c) {
    if (cs->err) return;
    if (cs->finalized) {
        set_err(cs, cz_error(CZ_EINVAL, "cs: enforce after finalize"));
        return;
    }
    const cz_lc *lcs[3] = {a, b, c};
    for (int i = 0; i < 3; i++) {
        size_t n = 0;
        if (prepare_lc(cs, lcs[i], &n)) return;
        int rc = cz_csr_builder_push(&cs->rec->m[i], cs->rec->scratch, n);
        if (rc) {
            set_err(cs, rc);
            return;
        }
    }
    if (!(++cs->num_constraints & 0xffff) && cs->stop && cs->stop(cs->stop_arg)) /* a block can take seconds */
        set_err(cs, cz_error(CZ_ECANCELED, "cs: recording stopped at constraint %llu",
                             (unsigned long long)cs->num_constraints));
}

/* Turns variable ids into columns of [inputs | aux]. Ids are sorted, and the map keeps the order. */
static void ids_to_columns(cz_csr *m, uint64_t num_inputs) {
    const int64_t nnz = (int64_t)cz_r1cs_nnz(m);
#pragma omp parallel for schedule(static) if (nnz > (1 << 22))
    for (int64_t k = 0; k < nnz; k++) {
        uint32_t id = m->col[k];
        if (id & CZ_VAR_AUX_BIT) m->col[k] = (uint32_t)(num_inputs + (id & ~CZ_VAR_AUX_BIT));
    }
}

/* Synthesis is over: gives the LC memory back now rather than at cz_cs_free. */
static void release_lcs(cz_cs *cs) {
    cz_lc_pool_free(cs->pool);
    cs->pool = NULL;
    free(cs->rec->scratch);
    cs->rec->scratch = NULL;
    cs->rec->scratch_cap = 0;
}

static int finalize_record(cz_cs *cs) {
    struct cz_cs_record *r = cs->rec;
    if (cs->num_inputs + cs->num_aux > UINT32_MAX)
        return cz_error(CZ_ERANGE, "cs: %llu variables do not fit 32-bit column indices",
                        (unsigned long long)(cs->num_inputs + cs->num_aux));
    int rc;
    for (uint64_t i = 0; i < cs->num_inputs; i++) {
        cz_lc_term t = {CZ_FR_ONE_V, cz_var_input((uint32_t)i)};
        if ((rc = cz_csr_builder_push(&r->m[0], &t, 1)) || (rc = cz_csr_builder_push(&r->m[1], NULL, 0)) ||
            (rc = cz_csr_builder_push(&r->m[2], NULL, 0)))
            return rc;
    }
    if (cs->count_terms) { /* the builders hold counts only: nothing to convert (cz_cs_count_circuit reads them) */
        release_lcs(cs);
        return 0;
    }
    cz_r1cs *o = &r->out;
    o->num_inputs = cs->num_inputs;
    o->num_aux = cs->num_aux;
    o->num_constraints = cs->num_constraints;
    o->num_rows = cs->num_constraints + cs->num_inputs;
    cz_csr_builder_finish(&r->m[0], &o->a);
    cz_csr_builder_finish(&r->m[1], &o->b);
    cz_csr_builder_finish(&r->m[2], &o->c);
    if (!o->a.row_ptr || !o->b.row_ptr || !o->c.row_ptr) return cz_error(CZ_ENOMEM, "cs: out of memory");
    ids_to_columns(&o->a, cs->num_inputs);
    ids_to_columns(&o->b, cs->num_inputs);
    ids_to_columns(&o->c, cs->num_inputs);
    if ((rc = cz_r1cs_compute_densities(o))) return rc;
    r->have_out = true;
    release_lcs(cs);
    return 0;
}

int cz_cs_finalize(cz_cs *cs) {
    if (cs->err) return cs->err;
    if (cs->finalized) return cz_error(CZ_EINVAL, "cs: finalize called twice");
    if (cs->ns_depth != 0)
        return set_err(cs, cz_error(CZ_EINVAL, "cs: %d namespace(s) pushed but not popped", cs->ns_depth));
    if (cs->rec) {
        int rc = finalize_record(cs);
        if (rc) return set_err(cs, rc);
    }
    cs->finalized = true;
    /* Every later alloc takes the slow path, which refuses it. */
    cs->input_limit = cs->aux_limit = 0;
    return 0;
}

int cz_cs_take_r1cs(cz_cs *cs, cz_r1cs *out) {
    memset(out, 0, sizeof *out);
    if (!cs->rec || !cs->rec->have_out)
        return cz_error(CZ_EINVAL, "cs: no matrices to take (record mode, after a successful finalize)");
    *out = cs->rec->out;
    memset(&cs->rec->out, 0, sizeof cs->rec->out);
    cs->rec->have_out = false;
    return 0;
}

int cz_cs_take_witness(cz_cs *cs, cz_fr **inputs, uint64_t *num_inputs, cz_fr **aux, uint64_t *num_aux) {
    *inputs = *aux = NULL;
    *num_inputs = *num_aux = 0;
    if (!(cs->mode & CZ_CS_WITNESS) || cs->values_taken)
        return cz_error(CZ_EINVAL, "cs: no witness to take (witness mode, taken once)");
    if (cs->err) return cs->err;
    *inputs = cs->inputs;
    *aux = cs->aux;
    *num_inputs = cs->num_inputs;
    *num_aux = cs->num_aux;
    cs->inputs = cs->aux = NULL;
    /* Any later alloc goes to the slow path and fails there instead of writing through NULL. */
    cs->input_limit = cs->aux_limit = 0;
    cs->values_taken = true;
    return 0;
}

/* ---- blocks on threads ---- */

typedef struct {
    uint64_t inputs, aux, constraints, nnz[3];
} block_shape;

/* Counts so far; a block's matrices count from where their slot (or the counting pass) starts. */
static block_shape shape_of(const cz_cs *cs) {
    block_shape b = {cs->num_inputs, cs->num_aux, cs->num_constraints, {0}};
    for (int k = 0; k < 3; k++) b.nnz[k] = cs->rec->m[k].nnz;
    return b;
}

/* A cs for block i, numbered where the serial loop would number it (at: cs before the blocks, d: a block's
 * shape; d NULL: block 0 with counting matrices, to learn that shape). */
static int block_cs(cz_cs **out, const cz_cs *cs, unsigned i, const block_shape *at, const block_shape *d) {
    int rc = cz_cs_new(out, CZ_CS_RECORD);
    if (rc) return rc;
    cz_cs *b = *out;
    b->stop = cs->stop, b->stop_arg = cs->stop_arg;
    b->input_shared = at->inputs, b->aux_shared = at->aux;
    b->num_inputs = b->input_base = at->inputs + (d ? i * d->inputs : 0);
    b->num_aux = b->aux_base = at->aux + (d ? i * d->aux : 0);
    b->num_constraints = at->constraints + (d ? i * d->constraints : 0);
    for (int k = 0; k < 3; k++) {
        const cz_csr_builder *m = &cs->rec->m[k];
        b->rec->m[k] = d ? (cz_csr_builder){.row_cap = d->constraints + 1,
                                            .nnz = at->nnz[k] + i * d->nnz[k], .nnz_cap = at->nnz[k] + (i + 1) * d->nnz[k],
                                            .row_ptr = m->row_ptr + at->constraints + i * d->constraints,
                                            .col = m->col, .val = m->val, .fixed = true}
                         : (cz_csr_builder){.rows = at->constraints, .nnz = at->nnz[k], .count_only = true};
    }
    return 0;
}

/* The block's shape check: 0, the block's own error, or CZ_EUNSUPPORTED with *differ set when it used
 * another block's variables or does not end where block i of shape d ends. */
static int block_done(cz_cs *b, unsigned i, int rc, const block_shape *at, const block_shape *d, bool *differ) {
    if (!rc) rc = b->err;
    for (int k = 0; k < 3; k++) /* a slot overflowed: more rows or terms than block 0 */
        if (b->rec->m[k].overflowed) *differ = true;
    if (!rc && b->ns_depth) rc = cz_error(CZ_EINVAL, "cs: block %u leaves %d namespace(s) pushed", i, b->ns_depth);
    if (!rc) {
        block_shape want = {at->inputs + (i + 1) * d->inputs, at->aux + (i + 1) * d->aux,
                            at->constraints + (i + 1) * d->constraints, {0}};
        for (int k = 0; k < 3; k++) want.nnz[k] = at->nnz[k] + (i + 1) * d->nnz[k];
        block_shape end = shape_of(b);
        if (memcmp(&end, &want, sizeof end)) *differ = true;
    }
    if (b->blocks_differ) *differ = true;
    return *differ ? cz_error(CZ_EUNSUPPORTED, "cs: block %u does not have block 0's shape", i) : rc;
}

/* Block 0 once on a cs of its own with counting matrices: *d, a block's shape (what it adds to at, cs before
 * the blocks). 0, block 0's error, or CZ_ERANGE when nblocks such blocks overflow the variable ids. */
static int learn_block(cz_cs *cs, unsigned nblocks, int (*fn)(cz_cs *, unsigned, void *), void *ctx,
                       const block_shape *at, block_shape *d) {
    cz_cs *b0;
    int rc = block_cs(&b0, cs, 0, at, NULL);
    if (rc) return rc;
    rc = fn(b0, 0, ctx);
    if (!rc) rc = b0->err;
    if (!rc && b0->ns_depth) rc = cz_error(CZ_EINVAL, "cs: block 0 leaves %d namespace(s) pushed", b0->ns_depth);
    *d = shape_of(b0); /* (block 0 cannot use another block's variables: there is none before it) */
    cz_cs_free(b0);
    if (rc) return rc;
    d->inputs -= at->inputs, d->aux -= at->aux, d->constraints -= at->constraints;
    for (int k = 0; k < 3; k++) d->nnz[k] -= at->nnz[k];
    if (at->inputs + nblocks * d->inputs > (uint64_t)CZ_VAR_MAX_INDEX + 1 ||
        at->aux + nblocks * d->aux > (uint64_t)CZ_VAR_MAX_INDEX + 1)
        return cz_error(CZ_ERANGE, "cs: %u blocks need more than 2^31 variables", nblocks);
    return 0;
}

/* cs's counts as after nblocks blocks of shape d from at: every block's rows, terms and variables. */
static void blocks_end(cz_cs *cs, unsigned nblocks, const block_shape *at, const block_shape *d) {
    for (int k = 0; k < 3; k++) {
        cs->rec->m[k].rows = at->constraints + nblocks * d->constraints;
        cs->rec->m[k].nnz = at->nnz[k] + nblocks * d->nnz[k];
    }
    cs->num_inputs = at->inputs + nblocks * d->inputs, cs->num_aux = at->aux + nblocks * d->aux;
    cs->num_constraints = at->constraints + nblocks * d->constraints;
}

/* Whether the recording's stop asks it to end before block i (with the message its CZ_ECANCELED carries). */
static bool stopped(const cz_cs *cs, unsigned i, unsigned nblocks) {
    if (!cs->stop || !cs->stop(cs->stop_arg)) return false;
    cz_error(CZ_ECANCELED, "cs: recording stopped before block %u of %u", i, nblocks);
    return true;
}

int cz_cs_record_blocks(cz_cs *cs, unsigned nblocks, int (*fn)(cz_cs *cs, unsigned i, void *ctx), void *ctx) {
    int rc = 0;
    const bool ok = cs->mode == CZ_CS_RECORD && nblocks > 1 && !cs->err && !cs->finalized && !cs->input_base &&
                    !cs->aux_base;
    const bool count = ok && cs->count_terms, par = ok && !count && cs->record_threads != 1;
    if (!count && !par) {
        for (unsigned i = 0; i < nblocks && !rc; i++)
            rc = stopped(cs, i, nblocks) ? set_err(cs, CZ_ECANCELED) : fn(cs, i, ctx);
        return rc ? rc : cs->err;
    }
    /* Block 0 once with counting matrices: a block's shape, so every block's slot is known up front (or,
     * counting, the whole count: blocks 1 .. nblocks - 1 are assumed to have block 0's shape, unchecked). */
    const block_shape at = shape_of(cs);
    block_shape d;
    if ((rc = learn_block(cs, nblocks, fn, ctx, &at, &d))) return set_err(cs, rc);
    if (count) {
        blocks_end(cs, nblocks, &at, &d);
        return 0;
    }
    const uint64_t n_in = at.inputs + nblocks * d.inputs;
    /* every row and term of the blocks, plus the input rows finalize appends (one term each in A) */
    const uint64_t rows = at.constraints + nblocks * d.constraints + n_in;
    for (int k = 0; k < 3; k++)
        if ((rc = cz_csr_builder_reserve(&cs->rec->m[k], rows, at.nnz[k] + nblocks * d.nnz[k] + (k ? 0 : n_in))))
            return set_err(cs, rc);
    int err = 0;
    unsigned bad = nblocks;
    bool differ = false;
    char msg[512] = "";
    const int nt = cs->record_threads > 0 ? cs->record_threads : omp_get_max_threads();
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt)
    for (unsigned i = 0; i < nblocks; i++) {
        bool dif = false;
        cz_cs *b;
        int r = stopped(cs, i, nblocks) ? CZ_ECANCELED : block_cs(&b, cs, i, &at, &d);
        if (!r) {
            r = block_done(b, i, fn(b, i, ctx), &at, &d, &dif);
            cz_cs_free(b); /* its matrices are windows: cs's stay */
        }
        if (r) {
#pragma omp critical(cz_cs_blocks)
            {
                if (dif) differ = true;
                if (i < bad) bad = i, err = r, snprintf(msg, sizeof msg, "%s", cz_error_message());
            }
        }
    }
    if (differ) {
        cs->blocks_differ = true;
        return set_err(cs, cz_error(CZ_EUNSUPPORTED, "cs: blocks of different shapes (%s): record them serially", msg));
    }
    if (err) return set_err(cs, cz_error(err, "%s", msg)); /* the message again, on the caller's thread */
    blocks_end(cs, nblocks, &at, &d);
    return 0;
}

int cz_cs_record_circuit(cz_r1cs *out, int (*synth)(cz_cs *cs, const void *arg), const void *arg, int nthreads,
                         bool (*stop)(void *stop_arg), void *stop_arg) {
    memset(out, 0, sizeof *out);
    const char *env = getenv("CZ_RECORD_THREADS"); /* 1: the serial loop (to compare), n: n threads */
    if (env && *env) nthreads = atoi(env);
    for (int pass = 0; pass < 2; pass++) {
        cz_cs *cs;
        int rc = cz_cs_new(&cs, CZ_CS_RECORD);
        if (rc) return rc;
        cs->record_threads = pass ? 1 : nthreads;
        cs->stop = stop, cs->stop_arg = stop_arg;
        if (!(rc = synth(cs, arg)) && !(rc = cz_cs_finalize(cs))) rc = cz_cs_take_r1cs(cs, out);
        const bool again = rc && cs->blocks_differ && !pass;
        cz_cs_free(cs);
        if (!again) return rc;
    }
    return 0; /* not reached */
}

int cz_cs_count_circuit(cz_r1cs_shape *out, int (*synth)(cz_cs *cs, const void *arg), const void *arg) {
    memset(out, 0, sizeof *out);
    cz_cs *cs;
    int rc = cz_cs_new(&cs, CZ_CS_RECORD);
    if (rc) return rc;
    cs->count_terms = true;
    for (int k = 0; k < 3; k++) cs->rec->m[k].count_only = true;
    if (!(rc = synth(cs, arg)) && !(rc = cz_cs_finalize(cs))) {
        *out = (cz_r1cs_shape){cs->num_inputs, cs->num_aux, cs->num_constraints, cs->num_constraints + cs->num_inputs,
                               {cs->rec->m[0].nnz, cs->rec->m[1].nnz, cs->rec->m[2].nnz}};
        for (int k = 0; k < 3; k++) /* every enforce and input row pushed one row into each matrix */
            if (cs->rec->m[k].rows != out->num_rows)
                rc = cz_error(CZ_EINVAL, "cs: count: matrix %d has %llu rows, the circuit %llu", k,
                              (unsigned long long)cs->rec->m[k].rows, (unsigned long long)out->num_rows);
    }
    if (rc) memset(out, 0, sizeof *out);
    cz_cs_free(cs);
    return rc;
}
