/* StackedDrg PoRep circuit; see porep_circuit.h and filecoin-circuits.md §1.3 for the order. */
#include "filecoin/porep_circuit.h"

#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "gadgets/sha256.h"

int cz_porep_params_for(cz_porep_params *p, uint64_t sector_size) {
    memset(p, 0, sizeof *p);
    p->sector_size = sector_size;
    unsigned sub = 0, top = 0;
    switch (sector_size) {
    case 2048ull: p->name = "2KiB", p->nodes_log2 = 6, p->layers = 2, p->challenges = 2, p->partitions = 1; break;
    case 8ull << 20: p->name = "8MiB", p->nodes_log2 = 18, p->layers = 2, p->challenges = 2, p->partitions = 1; break;
    case 512ull << 20: p->name = "512MiB", p->nodes_log2 = 24, p->layers = 2, p->challenges = 2, p->partitions = 1; break;
    case 32ull << 30: p->name = "32GiB", p->nodes_log2 = 30, p->layers = 11, p->challenges = 18, p->partitions = 10, sub = 8; break;
    case 64ull << 30:
        p->name = "64GiB", p->nodes_log2 = 31, p->layers = 11, p->challenges = 18, p->partitions = 10, sub = 8, top = 2;
        break;
    default: return cz_error(CZ_EINVAL, "porep: sector size %llu is not a registered size", (unsigned long long)sector_size);
    }
    unsigned base_bits = p->nodes_log2 - (sub ? 3 : 0) - (top ? 1 : 0);
    p->tree.sha = false;
    for (unsigned i = 0; i < base_bits / 3; i++) p->tree.levels[p->tree.nlevels++] = 8;
    if (sub) p->tree.levels[p->tree.nlevels++] = (uint8_t)sub;
    if (top) p->tree.levels[p->tree.nlevels++] = (uint8_t)top;
    p->tree_d.sha = true;
    p->tree_d.nlevels = p->nodes_log2;
    for (unsigned i = 0; i < p->nodes_log2; i++) p->tree_d.levels[i] = 2;
    return 0;
}

/* reverse_bit_numbering(num.to_bits_le()): 256 bits, the MSB-first byte stream of the LE repr. */
static void num_to_label_bits(cz_cs *cs, const cz_num *n, cz_bool out[256]) {
    cz_bool le[255];
    cz_num_to_bits_le(cs, n, le);
    cz_reverse_bit_numbering(out, le, 255);
}

/* create_label_circuit: SHA-256 over replica_id ‖ layer u32 BE ‖ node u64 BE ‖ zeros to 64 bytes ‖
 * 37 parents, output bit-reversed per byte, first 254 bits packed. */
static int create_label(cz_cs *cs, cz_num *out, cz_bool *buf, const cz_bool id[256], uint32_t layer,
                        const cz_bool node_be[64], cz_bool (*parents)[256], const unsigned *order) {
    size_t n = 0;
    for (int i = 0; i < 256; i++) buf[n++] = id[i];
    for (int i = 31; i >= 0; i--) buf[n++] = cz_bool_const((layer >> i) & 1);
    for (int i = 0; i < 64; i++) buf[n++] = node_be[i];
    while (n < 512) buf[n++] = cz_bool_const(false);
    for (int k = 0; k < 37; k++) {
        memcpy(buf + n, parents[order[k]], 256 * sizeof(cz_bool));
        n += 256;
    }
    cz_bool digest[256], rev[256];
    int rc = cz_sha256_gadget(cs, buf, n, digest);
    if (rc) return rc;
    cz_reverse_bit_numbering(rev, digest, 256);
    *out = cz_pack_bits(cs, rev, 254);
    return 0;
}

static const cz_fr *val(const cz_cs *cs, const cz_fr *v) { return cz_cs_needs_values(cs) ? v : NULL; }

/* Column alloc (rows in layer order), column hash (Poseidon arity L), PoR under comm_c. */
static int parent_column(cz_cs *cs, const cz_porep_params *p, const cz_porep_column *col, const cz_num *comm_c,
                         cz_num *rows) {
    for (unsigned l = 0; l < p->layers; l++) rows[l] = cz_num_alloc(cs, col ? val(cs, &col->rows[l]) : NULL);
    cz_num h;
    int rc = cz_poseidon_circuit(cs, &h, rows, p->layers);
    if (!rc) rc = cz_por_circuit(cs, &p->tree, &h, comm_c, col ? col->index : 0, col ? col->path : NULL);
    return rc;
}

static int challenge_synth(cz_cs *cs, const cz_porep_params *p, const cz_porep_challenge *ch, const cz_num *comm_d,
                           const cz_num *comm_c, const cz_num *comm_r_last, const cz_bool id_bits[256],
                           cz_bool *buf, cz_bool (*parent_bits)[256]) {
    bool vals = cz_cs_needs_values(cs);
    int rc;
    cz_num data_leaf = cz_num_alloc(cs, ch ? val(cs, &ch->data_leaf) : NULL);
    if ((rc = cz_por_circuit(cs, &p->tree_d, &data_leaf, comm_d, ch ? ch->d_index : 0, ch ? ch->comm_d_path : NULL)))
        return rc;
    cz_num drg[CZ_POREP_DRG_PARENTS][CZ_POREP_MAX_LAYERS], exp[CZ_POREP_EXP_PARENTS][CZ_POREP_MAX_LAYERS];
    for (int i = 0; i < CZ_POREP_DRG_PARENTS; i++)
        if ((rc = parent_column(cs, p, ch ? &ch->drg[i] : NULL, comm_c, drg[i]))) return rc;
    for (int i = 0; i < CZ_POREP_EXP_PARENTS; i++)
        if ((rc = parent_column(cs, p, ch ? &ch->exp[i] : NULL, comm_c, exp[i]))) return rc;
    /* UInt64::alloc (64 AllocatedBits, LSB first) + pack_into_input */
    uint64_t c = ch && vals ? ch->challenge : 0;
    cz_bool cbits[64], node_be[64];
    for (int i = 0; i < 64; i++) cbits[i] = cz_bit_alloc(cs, (c >> i) & 1);
    cz_pack_into_inputs(cs, cbits, 64);
    for (int i = 0; i < 64; i++) node_be[i] = cbits[63 - i];
    /* labels: layer 1 hashes the 6 DRG parents (x6 + p0), later layers DRG + expander (14+14+9) */
    cz_num labels[CZ_POREP_MAX_LAYERS];
    static const unsigned order1[37] = {0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 0,
                                        1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 0};
    unsigned order2[37];
    for (unsigned k = 0; k < 37; k++) order2[k] = k % 14;
    for (unsigned l = 1; l <= p->layers; l++) {
        for (int i = 0; i < CZ_POREP_DRG_PARENTS; i++) num_to_label_bits(cs, &drg[i][l - 1], parent_bits[i]);
        if (l > 1)
            for (int i = 0; i < CZ_POREP_EXP_PARENTS; i++)
                num_to_label_bits(cs, &exp[i][l - 2], parent_bits[CZ_POREP_DRG_PARENTS + i]);
        if ((rc = create_label(cs, &labels[l - 1], buf, id_bits, l, node_be, parent_bits, l == 1 ? order1 : order2)))
            return rc;
    }
    /* encode: (key + data) * ONE = enc, key = last label */
    const cz_num *key = &labels[p->layers - 1];
    cz_fr ev;
    cz_fr_add(&ev, &key->val, &data_leaf.val);
    cz_num enc = cz_num_alloc(cs, &ev);
    cz_lc la = CZ_LC_ZERO, lb = CZ_LC_ZERO, lc = CZ_LC_ZERO;
    cz_lc_add(cs, &la, key->var, NULL);
    cz_lc_add(cs, &la, data_leaf.var, NULL);
    cz_lc_add(cs, &lb, CZ_CS_ONE, NULL);
    cz_lc_add(cs, &lc, enc.var, NULL);
    cz_cs_enforce(cs, &la, &lb, &lc);
    cz_lc_free(cs, &la), cz_lc_free(cs, &lb), cz_lc_free(cs, &lc);
    if ((rc = cz_por_circuit(cs, &p->tree, &enc, comm_r_last, ch ? ch->r_index : 0, ch ? ch->comm_r_last_path : NULL)))
        return rc;
    /* c_x = H(labels), included in tree_c */
    cz_num cx;
    if ((rc = cz_poseidon_circuit(cs, &cx, labels, p->layers))) return rc;
    return cz_por_circuit(cs, &p->tree, &cx, comm_c, ch ? ch->c_index : 0, ch ? ch->comm_c_path : NULL);
}

/* StackedCircuit::synthesize before the challenges: replica_id (+ input, bits), comm_d, comm_r
 * (+ inputs), comm_r_last, comm_c, comm_r = Poseidon(comm_c, comm_r_last). */
static int top_synth(cz_cs *cs, const cz_porep_witness *w, cz_num *comm_d, cz_num *comm_c, cz_num *comm_r_last,
                     cz_bool id_bits[256]) {
    cz_num replica_id = cz_num_alloc(cs, w ? &w->replica_id : NULL);
    cz_num_inputize(cs, &replica_id);
    cz_bool id_le[255];
    cz_num_to_bits_le(cs, &replica_id, id_le);
    cz_reverse_bit_numbering(id_bits, id_le, 255);
    *comm_d = cz_num_alloc(cs, w ? &w->comm_d : NULL);
    cz_num_inputize(cs, comm_d);
    cz_num comm_r = cz_num_alloc(cs, w ? &w->comm_r : NULL);
    cz_num_inputize(cs, &comm_r);
    *comm_r_last = cz_num_alloc(cs, w ? &w->comm_r_last : NULL);
    *comm_c = cz_num_alloc(cs, w ? &w->comm_c : NULL);
    cz_num pre[2] = {*comm_c, *comm_r_last}, h;
    int rc = cz_poseidon_circuit(cs, &h, pre, 2);
    if (rc) return rc;
    cz_num_enforce_equal(cs, &comm_r, &h);
    return cz_cs_status(cs);
}

typedef struct {
    cz_bool *buf;
    cz_bool (*parent_bits)[256];
} scratch;

static int scratch_new(scratch *s) {
    s->buf = malloc(39 * 256 * sizeof(cz_bool));
    s->parent_bits = malloc(14 * sizeof *s->parent_bits);
    if (s->buf && s->parent_bits) return 0;
    free(s->buf), free(s->parent_bits);
    return cz_error(CZ_ENOMEM, "porep: out of memory");
}

static void scratch_free(scratch *s) { free(s->buf), free(s->parent_bits); }

typedef struct {
    const cz_porep_params *p;
    const cz_porep_witness *w;
    cz_num comm_d, comm_c, comm_r_last;
    cz_bool id_bits[256];
} synth_ctx;

/* One challenge: a block of cz_cs_record_blocks (on its own cs and thread when recording). */
static int challenge_block(cz_cs *cs, unsigned i, void *arg) {
    const synth_ctx *x = arg;
    scratch sc;
    int rc = scratch_new(&sc);
    if (rc) return rc;
    cz_cs_push_namespace(cs, "challenge");
    rc = challenge_synth(cs, x->p, x->w ? &x->w->ch[i] : NULL, &x->comm_d, &x->comm_c, &x->comm_r_last, x->id_bits,
                         sc.buf, sc.parent_bits);
    cz_cs_pop_namespace(cs);
    scratch_free(&sc);
    return rc;
}

int cz_porep_synthesize(cz_cs *cs, const cz_porep_params *p, const cz_porep_witness *w) {
    if (cz_cs_needs_values(cs) && !w) return cz_error(CZ_EINVAL, "porep: witness mode needs the vanilla proofs");
    if (!cz_cs_needs_values(cs)) w = NULL;
    synth_ctx x = {.p = p, .w = w};
    int rc = top_synth(cs, w, &x.comm_d, &x.comm_c, &x.comm_r_last, x.id_bits);
    if (rc) return rc;
    rc = cz_cs_record_blocks(cs, p->challenges, challenge_block, &x);
    return rc ? rc : cz_cs_status(cs);
}

int cz_porep_shape(const cz_porep_params *p, uint64_t *top_aux, uint64_t *ch_aux) {
    /* counted once per process and sector size: one blank challenge in count mode */
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static uint64_t cache_size[8], cache_aux[8];
    pthread_mutex_lock(&lock);
    int rc = 0;
    unsigned i = 0;
    while (i < 8 && cache_size[i] && cache_size[i] != p->sector_size) i++;
    if (i < 8 && cache_size[i] == p->sector_size) {
        *ch_aux = cache_aux[i];
    } else {
        cz_cs *cs;
        scratch sc;
        if (!(rc = cz_cs_new(&cs, CZ_CS_COUNT))) {
            cz_num d, c, r;
            cz_bool id[256];
            if (!(rc = top_synth(cs, NULL, &d, &c, &r, id)) && !(rc = scratch_new(&sc))) {
                uint64_t a0 = cz_cs_num_aux(cs);
                rc = challenge_synth(cs, p, NULL, &d, &c, &r, id, sc.buf, sc.parent_bits);
                *ch_aux = cz_cs_num_aux(cs) - a0;
                scratch_free(&sc);
            }
            cz_cs_free(cs);
        }
        if (!rc && i < 8) cache_size[i] = p->sector_size, cache_aux[i] = *ch_aux;
    }
    pthread_mutex_unlock(&lock);
    *top_aux = CZ_POREP_TOP_AUX;
    return rc;
}

int cz_porep_witness_parallel(const cz_porep_params *p, const cz_porep_witness *w, cz_fr *inputs, uint64_t inputs_cap,
                              cz_fr *aux, uint64_t aux_cap, int nthreads) {
    uint64_t top_aux, ch_aux;
    int rc = cz_porep_shape(p, &top_aux, &ch_aux);
    if (rc) return rc;
    uint64_t need_in = CZ_POREP_TOP_INPUTS + (uint64_t)CZ_POREP_CHALLENGE_INPUTS * p->challenges;
    if (inputs_cap < need_in || aux_cap < top_aux + ch_aux * p->challenges)
        return cz_error(CZ_ERANGE, "porep witness: buffers hold %llu inputs / %llu aux, the %s circuit needs %llu / %llu",
                        (unsigned long long)inputs_cap, (unsigned long long)aux_cap, p->name,
                        (unsigned long long)need_in, (unsigned long long)(top_aux + ch_aux * p->challenges));
    cz_cs *cs;
    if ((rc = cz_cs_new(&cs, CZ_CS_WITNESS))) return rc;
    cz_num comm_d, comm_c, comm_r_last;
    cz_bool id_bits[256];
    rc = cz_cs_set_value_buffers(cs, inputs, CZ_POREP_TOP_INPUTS, aux, top_aux);
    if (!rc) rc = top_synth(cs, w, &comm_d, &comm_c, &comm_r_last, id_bits);
    if (!rc && (cz_cs_num_aux(cs) != top_aux || cz_cs_num_inputs(cs) != CZ_POREP_TOP_INPUTS))
        rc = cz_error(CZ_EINVAL, "porep witness: top-level layout mismatch");
    cz_cs_free(cs);
    if (rc) return rc;
    /* Challenges are independent given the top-level values: each gets its own cs writing straight
     * into its slice of aux (the layout is fixed), and its 18 inputs go to their slots after. */
    int err = 0;
    char msg[256] = "";
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads > 0 ? nthreads : omp_get_max_threads())
    for (unsigned i = 0; i < p->challenges; i++) {
        cz_fr in[1 + CZ_POREP_CHALLENGE_INPUTS];
        cz_cs *ccs = NULL;
        scratch sc;
        int r = cz_cs_new(&ccs, CZ_CS_WITNESS);
        if (!r) r = cz_cs_set_value_buffers(ccs, in, 1 + CZ_POREP_CHALLENGE_INPUTS, aux + top_aux + ch_aux * i, ch_aux);
        if (!r && !(r = scratch_new(&sc))) {
            r = challenge_synth(ccs, p, &w->ch[i], &comm_d, &comm_c, &comm_r_last, id_bits, sc.buf, sc.parent_bits);
            scratch_free(&sc);
        }
        if (!r && (cz_cs_num_aux(ccs) != ch_aux || cz_cs_num_inputs(ccs) != 1 + CZ_POREP_CHALLENGE_INPUTS))
            r = cz_error(CZ_EINVAL, "porep witness: challenge %u layout mismatch", i);
        if (!r) memcpy(inputs + CZ_POREP_TOP_INPUTS + (uint64_t)CZ_POREP_CHALLENGE_INPUTS * i, in + 1,
                       CZ_POREP_CHALLENGE_INPUTS * sizeof(cz_fr));
        if (ccs) cz_cs_free(ccs);
        if (r) {
#pragma omp critical
            if (!err) err = r, snprintf(msg, sizeof msg, "challenge %u: %s", i, cz_error_message());
        }
    }
    /* the message was recorded on a worker thread: record it again on the caller's */
    return err ? cz_error(err, "porep witness: %s", msg) : 0;
}

int cz_porep_witness_compact(const cz_porep_params *p, const cz_porep_witness *w, cz_fr *inputs, uint64_t inputs_cap,
                             cz_wcompact *aux, int nthreads) {
    uint64_t top_aux, ch_aux;
    int rc = cz_porep_shape(p, &top_aux, &ch_aux);
    if (rc) return rc;
    uint64_t need_in = CZ_POREP_TOP_INPUTS + (uint64_t)CZ_POREP_CHALLENGE_INPUTS * p->challenges;
    if (inputs_cap < need_in)
        return cz_error(CZ_ERANGE, "porep witness: the buffer holds %llu inputs, the %s circuit needs %llu",
                        (unsigned long long)inputs_cap, p->name, (unsigned long long)need_in);
    cz_wcompact_clear(aux);
    /* bitmaps sized exactly; the dense part grows (its size depends on the values) */
    if ((rc = cz_wcompact_reserve(aux, top_aux + ch_aux * p->challenges, 0))) return rc;
    cz_cs *cs;
    if ((rc = cz_cs_new(&cs, CZ_CS_WITNESS))) return rc;
    cz_num comm_d, comm_c, comm_r_last;
    cz_bool id_bits[256];
    rc = cz_cs_set_compact_aux(cs, aux);
    if (!rc) rc = top_synth(cs, w, &comm_d, &comm_c, &comm_r_last, id_bits);
    if (!rc && (cz_cs_num_aux(cs) != top_aux || cz_cs_num_inputs(cs) != CZ_POREP_TOP_INPUTS))
        rc = cz_error(CZ_EINVAL, "porep witness: top-level layout mismatch");
    if (!rc) cz_cs_copy_inputs(cs, inputs, 0, CZ_POREP_TOP_INPUTS);
    cz_cs_free(cs);
    if (rc) return rc;
    /* Challenges in parallel, each into its own compact part; the parts are appended in challenge
     * order as they complete (ordered), so at most a few parts exist beside the result. */
    int err = 0;
    char msg[256] = "";
#pragma omp parallel for ordered schedule(dynamic, 1) num_threads(nthreads > 0 ? nthreads : omp_get_max_threads())
    for (unsigned i = 0; i < p->challenges; i++) {
        cz_wcompact part;
        cz_wcompact_init(&part);
        cz_cs *ccs = NULL;
        scratch sc;
        int r = cz_wcompact_reserve(&part, ch_aux, ch_aux / 16);
        if (!r) r = cz_cs_new(&ccs, CZ_CS_WITNESS);
        if (!r) r = cz_cs_set_compact_aux(ccs, &part);
        if (!r && !(r = scratch_new(&sc))) {
            r = challenge_synth(ccs, p, &w->ch[i], &comm_d, &comm_c, &comm_r_last, id_bits, sc.buf, sc.parent_bits);
            scratch_free(&sc);
        }
        if (!r && (cz_cs_num_aux(ccs) != ch_aux || cz_cs_num_inputs(ccs) != 1 + CZ_POREP_CHALLENGE_INPUTS))
            r = cz_error(CZ_EINVAL, "porep witness: challenge %u layout mismatch", i);
        if (!r)
            cz_cs_copy_inputs(ccs, inputs + CZ_POREP_TOP_INPUTS + (uint64_t)CZ_POREP_CHALLENGE_INPUTS * i, 1,
                              CZ_POREP_CHALLENGE_INPUTS);
        if (ccs) cz_cs_free(ccs);
#pragma omp ordered
        {
            if (!r && !err) r = cz_wcompact_append(aux, &part);
            if (r && !err) err = r, snprintf(msg, sizeof msg, "challenge %u: %s", i, cz_error_message());
        }
        cz_wcompact_free(&part);
    }
    return err ? cz_error(err, "porep witness: %s", msg) : 0;
}
