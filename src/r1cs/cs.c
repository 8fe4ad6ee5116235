#include "r1cs/cs.h"

#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "r1cs/csr_build.h"
#include "r1cs/lc_pool.h"
#include "r1cs/wcompact.h"

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
        uint64_t limit = cz_var_is_input(v) ? cs->num_inputs : cs->num_aux;
        if (cz_var_index(v) >= limit)
            return set_err(cs, cz_error(CZ_EINVAL, "cs: constraint %llu uses %s variable %u, which was never allocated",
                                        (unsigned long long)cs->num_constraints,
                                        cz_var_is_input(v) ? "input" : "aux", cz_var_index(v)));
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
    cs->num_constraints++;
}

/* Turns variable ids into columns of [inputs | aux]. Ids are sorted, and the map keeps the order. */
static void ids_to_columns(cz_csr *m, uint64_t num_inputs) {
    uint64_t nnz = cz_r1cs_nnz(m);
    for (uint64_t k = 0; k < nnz; k++) {
        uint32_t id = m->col[k];
        if (id & CZ_VAR_AUX_BIT) m->col[k] = (uint32_t)(num_inputs + (id & ~CZ_VAR_AUX_BIT));
    }
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
    /* Synthesis is over: give the LC memory back now rather than at cz_cs_free. */
    cz_lc_pool_free(cs->pool);
    cs->pool = NULL;
    free(r->scratch);
    r->scratch = NULL;
    r->scratch_cap = 0;
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
