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

/* The host parts a start() copies to the device, as slots of v: the inputs, then the dense aux or the compact
 * form's is_bit, bit and dense values (parts of 0 bytes left out). Returns how many. */
#define WITNESS_PARTS 4
static int witness_parts(cz_witness *v, void **slot[WITNESS_PARTS], uint64_t bytes[WITNESS_PARTS]) {
    const uint64_t bm = (v->caux.n + 63) / 64 * sizeof(uint64_t);
    void **sl[WITNESS_PARTS] = {(void **)&v->inputs, NULL, NULL, NULL};
    uint64_t b[WITNESS_PARTS] = {v->ni * sizeof(cz_fr), 0, 0, 0};
    if (v->compact) {
        sl[1] = (void **)&v->caux.is_bit, sl[2] = (void **)&v->caux.bit, sl[3] = (void **)&v->caux.dense;
        b[1] = b[2] = bm, b[3] = v->caux.n_dense * sizeof(cz_fr);
    } else {
        sl[1] = (void **)&v->aux, b[1] = v->na * sizeof(cz_fr);
    }
    int k = 0;
    for (int i = 0; i < WITNESS_PARTS; i++)
        if (sl[i] && *sl[i] && b[i]) slot[k] = sl[i], bytes[k++] = b[i];
    return k;
}

/* Bytes of v's parts laid out 64-byte aligned in a staging buffer (off: each part's offset). */
static uint64_t stage_layout(cz_witness *v, void **slot[WITNESS_PARTS], uint64_t bytes[WITNESS_PARTS],
                             uint64_t off[WITNESS_PARTS], int *k) {
    uint64_t need = 0;
    *k = witness_parts(v, slot, bytes);
    for (int i = 0; i < *k; i++) off[i] = need, need += (bytes[i] + 63) & ~(uint64_t)63;
    return need;
}

/* The capacity a copy of `need` bytes allocates into st on `device`, or 0 when st's buffer holds it (need <= max):
 * the witness plus room for the next partitions' slightly larger parts (compact witnesses vary; a dense one of
 * 4 GB does not). A buffer over CZ_STAGE_KEEP_MAX used for less than a quarter of it is replaced by one of the
 * witness's size: a worker that staged one dense 32 GiB Window PoSt witness (4.1 GB) would otherwise hold that
 * much page-locked memory of the budget through every PoRep partition after it (87 MB each); the next Window
 * PoSt allocates again (~0.2 s, outside the device's lock). */
static uint64_t stage_cap(const cz_witness_stage *st, int device, uint64_t need) {
    if (st->buf && st->cap >= need && st->device == device && (st->cap <= CZ_STAGE_KEEP_MAX || need >= st->cap / 4))
        return 0;
    const uint64_t slack = (uint64_t)64 << 20;
    return need + (need / 4 < slack ? need / 4 : slack);
}

uint64_t cz_witness_stage_grow(const cz_backend *b, const cz_witness_stage *st, int device, const cz_witness *w,
                               uint64_t max) {
    if (!b->host_alloc || !b->host_free) return 0;
    cz_witness v = *w;
    void **slot[WITNESS_PARTS];
    uint64_t bytes[WITNESS_PARTS], off[WITNESS_PARTS];
    int k;
    const uint64_t need = stage_layout(&v, slot, bytes, off, &k);
    return need && need <= max ? stage_cap(st, device, need) : 0;
}

int cz_witness_stage_copy(cz_backend *b, int device, cz_witness_stage *st, const cz_witness *w, uint64_t max,
                          cz_witness *view) {
    if (!b->host_alloc || !b->host_free) return 0;
    cz_witness v = *w; /* its part pointers are w's until the copy replaces them */
    void **slot[WITNESS_PARTS];
    uint64_t bytes[WITNESS_PARTS], off[WITNESS_PARTS];
    int k;
    const uint64_t need = stage_layout(&v, slot, bytes, off, &k);
    if (!need || need > max) return 0;
    const uint64_t cap = stage_cap(st, device, need);
    if (cap) {
        if (st->buf) b->host_free(b, st->buf);
        st->buf = NULL, st->cap = 0;
        if (b->host_alloc(b, device, &st->buf, cap) || !st->buf) {
            st->buf = NULL;
            return 0;
        }
        st->cap = cap, st->device = device;
    }
    uint8_t *base = st->buf;
    /* 4 MiB pieces on up to 4 threads (a 32 GiB PoRep partition's 87 MB: ~2 ms), 8 from 1 GiB (a dense 32 GiB
     * Window PoSt one: 4.06 GB) */
    const uint64_t piece = (uint64_t)4 << 20;
    uint64_t pieces[WITNESS_PARTS + 1] = {0};
    for (int i = 0; i < k; i++) pieces[i + 1] = pieces[i] + (bytes[i] + piece - 1) / piece;
#pragma omp parallel for schedule(dynamic) num_threads(need >> 30 ? 8 : 4)
    for (uint64_t j = 0; j < pieces[k]; j++) {
        int i = 0;
        while (j >= pieces[i + 1]) i++;
        const uint64_t o = (j - pieces[i]) * piece, len = bytes[i] - o < piece ? bytes[i] - o : piece;
        memcpy(base + off[i] + o, (const uint8_t *)*slot[i] + o, len);
    }
    for (int i = 0; i < k; i++) *slot[i] = base + off[i];
    *view = v;
    return 1;
}

void cz_witness_stage_free(cz_backend *b, cz_witness_stage *st) {
    if (st->buf && b->host_free) b->host_free(b, st->buf);
    st->buf = NULL, st->cap = 0;
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
