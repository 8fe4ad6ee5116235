/* Partition witnesses in either form; see witness.h. */
#include "engine/witness.h"

#include <stdlib.h>
#include <string.h>

#include "cz_error.h"

int cz_witness_synthesize(const cz_circuit *c, void *state, uint32_t partition, bool want_compact, cz_witness *out) {
    memset(out, 0, sizeof *out);
    cz_wcompact_init(&out->caux);
    if (want_compact && c->synthesize_compact) {
        out->compact = true;
        int rc = c->synthesize_compact(c, state, partition, &out->inputs, &out->ni, &out->caux);
        out->na = out->caux.n;
        return rc;
    }
    return c->synthesize(c, state, partition, &out->inputs, &out->ni, &out->aux, &out->na);
}

uint64_t cz_witness_bytes(const cz_witness *w) {
    uint64_t in = w->inputs ? w->ni * sizeof(cz_fr) : 0;
    if (w->compact) return in + cz_wcompact_bytes(&w->caux);
    return in + (w->aux ? w->na * sizeof(cz_fr) : 0);
}

int cz_backend_start_witness(cz_backend *b, int device, const cz_groth16_params *p, const cz_r1cs *r,
                             const cz_witness *w, void **pending) {
    bool gone = w->compact ? w->caux.n != w->na : !w->aux;
    if (w->ni != r->num_inputs || w->na != r->num_aux || gone)
        return cz_error(CZ_EFORMAT, "witness: %llu inputs and %llu aux%s, the circuit has %llu and %llu",
                        (unsigned long long)w->ni, (unsigned long long)w->na,
                        gone ? " (aux already freed)" : "", (unsigned long long)r->num_inputs,
                        (unsigned long long)r->num_aux);
    if (!w->compact) return b->start(b, device, p, r, w->inputs, w->aux, pending);
    if (b->start_compact) return b->start_compact(b, device, p, r, w->inputs, &w->caux, pending);
    cz_fr *dense;
    int rc = cz_wcompact_expand(&w->caux, &dense);
    if (rc) return rc;
    rc = b->start(b, device, p, r, w->inputs, dense, pending);
    free(dense);
    return rc;
}

uint64_t cz_witness_charge(uint64_t charge, bool compact, uint64_t bytes, uint64_t dense_bytes, const cz_backend *b) {
    if (!compact || !b->start_compact || b->compact_expands || dense_bytes <= bytes) return charge;
    uint64_t cut = dense_bytes - bytes;
    return charge > cut ? charge - cut : bytes < charge ? bytes : charge;
}

void cz_witness_free_aux(cz_witness *w) {
    free(w->aux);
    w->aux = NULL;
    cz_wcompact_free(&w->caux);
}

void cz_witness_free(cz_witness *w) {
    cz_witness_free_aux(w);
    free(w->inputs);
    w->inputs = NULL;
}
