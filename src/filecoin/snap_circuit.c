/* EmptySectorUpdate circuit; see snap_circuit.h and filecoin-circuits.md §3.3. */
#include "filecoin/snap_circuit.h"

#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"

int cz_snap_params_for(cz_snap_params *p, uint64_t sector_size) {
    memset(p, 0, sizeof *p);
    unsigned sub = 0, top = 0;
    switch (sector_size) {
    case 1024ull: p->name = "SnapDeals-1KiB", sub = 4; break;
    case 2048ull: p->name = "SnapDeals-2KiB"; break;
    case 4096ull: p->name = "SnapDeals-4KiB", sub = 2; break;
    case 8192ull: p->name = "SnapDeals-8KiB", sub = 4; break;
    case 16384ull: p->name = "SnapDeals-16KiB", sub = 8; break;
    case 32768ull: p->name = "SnapDeals-32KiB", sub = 8, top = 2; break;
    case 8ull << 20: p->name = "SnapDeals-8MiB"; break;
    case 512ull << 20: p->name = "SnapDeals-512MiB"; break;
    case 32ull << 30: p->name = "SnapDeals-32GiB", sub = 8; break;
    case 64ull << 30: p->name = "SnapDeals-64GiB", sub = 8, top = 2; break;
    default:
        return cz_error(CZ_EINVAL, "snap: sector size %llu is not a registered size",
                        (unsigned long long)sector_size);
    }
    p->sector_size = sector_size;
    uint64_t nodes = sector_size / 32;
    while ((1ull << p->nodes_log2) < nodes) p->nodes_log2++;
    /* constants.rs: partition_count, challenge_count, apex_leaf_count, hs */
    p->partitions = nodes <= 1u << 8 ? 1 : nodes <= 1u << 10 ? 2 : nodes <= 1u << 19 ? 4 : 16;
    p->partition_bits = p->partitions == 1 ? 0 : p->partitions == 2 ? 1 : p->partitions == 4 ? 2 : 4;
    p->challenges = nodes <= 1u << 19 ? 10 : 86;
    p->apex_leaves = nodes <= 1u << 8 ? 8 : 128;
    p->apex_bits = p->apex_leaves == 8 ? 3 : 7;
    for (unsigned i = 0; i < 6; i++) p->hs[i] = nodes <= 1u << 10 ? 1 : 7 + i;
    unsigned base_bits = p->nodes_log2 - (sub == 8 ? 3 : sub == 4 ? 2 : sub == 2 ? 1 : 0) - (top ? 1 : 0);
    for (unsigned i = 0; i < base_bits / 3; i++) p->tree_r.levels[p->tree_r.nlevels++] = 8;
    if (sub) p->tree_r.levels[p->tree_r.nlevels++] = (uint8_t)sub, p->tree_r_extra++;
    if (top) p->tree_r.levels[p->tree_r.nlevels++] = (uint8_t)top, p->tree_r_extra++;
    p->tree_d.sha = true;
    p->tree_d.nlevels = p->nodes_log2;
    for (unsigned i = 0; i < p->nodes_log2; i++) p->tree_d.levels[i] = 2;
    return 0;
}

int cz_snap_h_index(const cz_snap_params *p, unsigned h) {
    for (int i = 0; i < 6; i++)
        if (p->hs[i] == h) return i;
    return -1;
}

int cz_snap_k_and_h_select(uint64_t *out, const cz_snap_params *p, unsigned k, unsigned h) {
    int hi = cz_snap_h_index(p, h);
    if (hi < 0 || k >= p->partitions)
        return cz_error(CZ_EINVAL, "%s: partition %u / h %u not allowed (%u partitions, h in %u..%u)",
                        p->name, k, h, p->partitions, p->hs[0], p->hs[5]);
    *out = (uint64_t)k | (1ull << hi) << p->partition_bits;
    return 0;
}

void cz_snap_hash_tag(cz_fr *out, const cz_fr *a, const cz_fr *b) {
    cz_fr in[2] = {*a, *b}, t;
    cz_fr_set_u64(&t, 1ull << 40);
    cz_poseidon_hash_tag(out, in, 2, &t);
}

void cz_snap_challenges(uint32_t *out, const cz_snap_params *p, const cz_fr *comm_r_new, unsigned k) {
    unsigned rbits = p->nodes_log2 - p->partition_bits, per_digest = 254 / rbits;
    unsigned digests = (p->challenges + per_digest - 1) / per_digest;
    uint64_t di = (uint64_t)k * digests;
    uint8_t bytes[32];
    for (unsigned c = 0, i = 0; c < p->challenges; c++) {
        if (i == 0) {
            cz_fr idx, d;
            cz_fr_set_u64(&idx, di);
            cz_snap_hash_tag(&d, comm_r_new, &idx);
            cz_fr_to_bytes_le(bytes, &d);
        }
        uint32_t v = 0;
        for (unsigned b = 0; b < rbits; b++) {
            unsigned bit = i * rbits + b;
            v |= (uint32_t)((bytes[bit / 8] >> (bit % 8)) & 1) << b;
        }
        out[c] = v | (uint32_t)k << rbits;
        if (++i == per_digest) i = 0, di++;
    }
}

/* ---- gadgets (gadgets.rs) ---- */

static const cz_fr *val(const cz_cs *cs, const cz_fr *v) { return cz_cs_needs_values(cs) ? v : NULL; }

/* (sum 2^i bits_i) * ONE = target */
static void enforce_pack(cz_cs *cs, const cz_bool *bits, unsigned n, cz_var target) {
    cz_lc la = CZ_LC_ZERO, lb = CZ_LC_ZERO, lc = CZ_LC_ZERO;
    for (unsigned i = 0; i < n; i++) cz_bool_lc_add(cs, &la, bits[i], cz_gadget_pow2(i));
    cz_lc_add(cs, &lb, CZ_CS_ONE, NULL);
    cz_lc_add(cs, &lc, target, NULL);
    cz_cs_enforce(cs, &la, &lb, &lc);
    cz_lc_free(cs, &la), cz_lc_free(cs, &lb), cz_lc_free(cs, &lc);
}

/* a * b = c with a fresh c (AllocatedNum::mul) */
static cz_num num_mul(cz_cs *cs, const cz_num *a, const cz_num *b) {
    cz_fr v;
    cz_fr_mul(&v, &a->val, &b->val);
    cz_num c = cz_num_alloc(cs, &v);
    cz_lc la = CZ_LC_ZERO, lb = CZ_LC_ZERO, lc = CZ_LC_ZERO;
    cz_lc_add(cs, &la, a->var, NULL);
    cz_lc_add(cs, &lb, b->var, NULL);
    cz_lc_add(cs, &lc, c.var, NULL);
    cz_cs_enforce(cs, &la, &lb, &lc);
    cz_lc_free(cs, &la), cz_lc_free(cs, &lb), cz_lc_free(cs, &lc);
    return c;
}

static unsigned lg(unsigned a) { return a == 2 ? 1 : a == 4 ? 2 : 3; }

/* por_no_challenge_input: per level insert(cur, next bits, siblings) and the node hash, then
 * computed * ONE = root. sib: the path's allocated siblings level by level. */
static int por_no_input(cz_cs *cs, const cz_tree_shape *s, const cz_bool *bits, const cz_num *leaf,
                        const cz_num *sib, const cz_num *root) {
    cz_num cur = *leaf, ins[8];
    for (unsigned l = 0; l < s->nlevels; l++) {
        unsigned a = s->levels[l];
        int rc = cz_insert(cs, ins, &cur, bits, sib, a);
        if (!rc) rc = s->sha ? cz_sha256_node_circuit(cs, &cur, ins) : cz_poseidon_circuit(cs, &cur, ins, a);
        if (rc) return rc;
        bits += lg(a), sib += a - 1;
    }
    cz_num_enforce_equal(cs, &cur, root);
    return cz_cs_status(cs);
}

/* What the challenges share with the part before them (values only matter in witness mode; a
 * challenge synthesised in its own cs reads them, never their variables). */
typedef struct {
    cz_fr t40;
    cz_bool khbits[4 + 6];
    cz_num phi, root_r_old, root_r_new;
    cz_num *apex;  /* apex leaves */
    cz_bool *bits; /* digest bits, 255 per digest */
    unsigned rbits, per_digest;
} snap_top;

static void top_free(snap_top *t) { free(t->apex), free(t->bits); }

/* Everything before the challenge loop: k_and_h_select .. gen_challenge_bits. */
static int top_synth(cz_cs *cs, const cz_snap_params *p, const cz_snap_witness *w, snap_top *t) {
    bool vals = cz_cs_needs_values(cs);
    uint64_t kh = 0;
    if (w && cz_snap_k_and_h_select(&kh, p, w->k, w->h)) return CZ_EINVAL;
    const unsigned cbl = p->nodes_log2, pbl = p->partition_bits, hbl = 6;
    cz_fr_set_u64(&t->t40, 1ull << 40);
    t->rbits = cbl - pbl, t->per_digest = 254 / t->rbits;
    const unsigned digests = (p->challenges + t->per_digest - 1) / t->per_digest;
    if (digests > 16 || pbl > 4) return cz_error(CZ_EINVAL, "snap: %u challenge digests", digests);
    t->apex = malloc(p->apex_leaves * sizeof(cz_num));
    t->bits = malloc(255 * digests * sizeof(cz_bool));
    cz_num *row = malloc(p->apex_leaves * sizeof(cz_num));
    int rc = 0;
    if (!t->apex || !t->bits || !row) {
        rc = cz_error(CZ_ENOMEM, "snap: out of memory");
        goto out;
    }
    /* k_and_h_select, its bits, one packing constraint */
    cz_fr khv;
    cz_fr_set_u64(&khv, kh);
    cz_num k_and_h = cz_num_alloc(cs, &khv);
    cz_num_inputize(cs, &k_and_h);
    for (unsigned i = 0; i < pbl + hbl; i++) t->khbits[i] = cz_bit_alloc(cs, (kh >> i) & 1);
    enforce_pack(cs, t->khbits, pbl + hbl, k_and_h.var);
    const cz_bool *pbits = t->khbits;
    cz_num partition = cz_pack_bits(cs, pbits, pbl);
    cz_num comm_r_old = cz_num_alloc(cs, w ? &w->comm_r_old : NULL);
    cz_num_inputize(cs, &comm_r_old);
    cz_num comm_d_new = cz_num_alloc(cs, w ? &w->comm_d_new : NULL);
    cz_num_inputize(cs, &comm_d_new);
    cz_num comm_r_new = cz_num_alloc(cs, w ? &w->comm_r_new : NULL);
    cz_num_inputize(cs, &comm_r_new);
    cz_num pre[2] = {comm_d_new, comm_r_old};
    if ((rc = cz_poseidon_circuit_tag(cs, &t->phi, pre, 2, &t->t40))) goto out;
    cz_num comm_c = cz_num_alloc(cs, w ? &w->comm_c : NULL);
    t->root_r_old = cz_num_alloc(cs, w ? &w->root_r_old : NULL);
    t->root_r_new = cz_num_alloc(cs, w ? &w->root_r_new : NULL);
    for (unsigned i = 0; i < p->apex_leaves; i++) t->apex[i] = cz_num_alloc(cs, w ? &w->apex_leafs[i] : NULL);
    cz_num ppath[4];
    for (unsigned i = 0; i < pbl; i++)
        ppath[i] = cz_num_alloc(cs, w ? &w->ch[0].path_d_new[cbl - pbl + i] : NULL);
    /* comm_r_old / comm_r_new from comm_c and the roots: calc * ONE = comm */
    cz_num calc, rpre[2] = {comm_c, t->root_r_old};
    if ((rc = cz_poseidon_circuit(cs, &calc, rpre, 2))) goto out;
    cz_num_enforce_equal(cs, &calc, &comm_r_old);
    rpre[1] = t->root_r_new;
    if ((rc = cz_poseidon_circuit(cs, &calc, rpre, 2))) goto out;
    cz_num_enforce_equal(cs, &calc, &comm_r_new);
    /* apex_por: the apex tree row by row (pairs, in place), then the partition path to comm_d_new */
    memcpy(row, t->apex, p->apex_leaves * sizeof(cz_num));
    for (unsigned n = p->apex_leaves; n > 1 && !rc; n /= 2)
        for (unsigned i = 0; i < n / 2 && !rc; i++) rc = cz_sha256_node_circuit(cs, &row[i], &row[2 * i]);
    if (rc) goto out;
    cz_tree_shape ps = {pbl, {2, 2, 2, 2}, true};
    if ((rc = por_no_input(cs, &ps, pbits, &row[0], ppath, &comm_d_new))) goto out;
    /* gen_challenge_bits: per digest an index, the tagged hash of (comm_r_new, index), 255 bits */
    for (unsigned j = 0; j < digests; j++) {
        cz_fr dv, tj;
        cz_fr_set_u64(&dv, digests);
        cz_fr_mul(&dv, &dv, &partition.val);
        cz_fr_set_u64(&tj, j);
        cz_fr_add(&dv, &dv, &tj);
        cz_num di = cz_num_alloc(cs, &dv);
        cz_lc la = CZ_LC_ZERO, lb = CZ_LC_ZERO, lc = CZ_LC_ZERO;
        cz_fr cd, cj;
        cz_fr_set_u64(&cd, digests), cz_fr_set_u64(&cj, j);
        cz_lc_add(cs, &la, partition.var, &cd);
        cz_lc_add(cs, &la, CZ_CS_ONE, &cj);
        cz_lc_add(cs, &lb, CZ_CS_ONE, NULL);
        cz_lc_add(cs, &lc, di.var, NULL);
        cz_cs_enforce(cs, &la, &lb, &lc);
        cz_lc_free(cs, &la), cz_lc_free(cs, &lb), cz_lc_free(cs, &lc);
        cz_num digest, dpre[2] = {comm_r_new, di};
        if ((rc = cz_poseidon_circuit_tag(cs, &digest, dpre, 2, &t->t40))) goto out;
        uint8_t db[32] = {0};
        if (vals) cz_fr_to_bytes_le(db, &digest.val);
        cz_bool *bits = t->bits + 255 * j;
        for (unsigned i = 0; i < 255; i++) bits[i] = cz_bit_alloc(cs, (db[i / 8] >> (i % 8)) & 1);
        enforce_pack(cs, bits, 255, digest.var);
    }
out:
    free(row);
    return rc ? rc : cz_cs_status(cs);
}

/* Challenge c of the loop in EmptySectorUpdateCircuit::synthesize. */
static int challenge_synth(cz_cs *cs, const cz_snap_params *p, const snap_top *t, const cz_snap_challenge *ch,
                           unsigned c) {
    const unsigned cbl = p->nodes_log2, pbl = p->partition_bits, rlen = cz_tree_path_len(&p->tree_r);
    const cz_bool *hbits = t->khbits + pbl;
    cz_num *path = malloc((rlen > cbl ? rlen : cbl) * sizeof(cz_num)),
           *st = malloc(p->apex_leaves * sizeof(cz_num));
    int rc = 0;
    if (!path || !st) {
        rc = cz_error(CZ_ENOMEM, "snap: out of memory");
        goto out;
    }
    /* c_bits = the challenge's random bits ‖ partition bits */
    cz_bool cb[40];
    memcpy(cb, t->bits + 255 * (c / t->per_digest) + t->rbits * (c % t->per_digest),
           t->rbits * sizeof(cz_bool));
    memcpy(cb + t->rbits, t->khbits, pbl * sizeof(cz_bool));
    /* get_challenge_high_bits */
    cz_num orz[6];
    cz_fr sum = CZ_FR_ZERO_V;
    for (unsigned i = 0; i < 6; i++) {
        unsigned h = p->hs[i];
        cz_num high = cz_pack_bits(cs, cb + cbl - h, h);
        cz_fr ov = cz_bool_bit(hbits[i]) ? high.val : CZ_FR_ZERO_V;
        orz[i] = cz_num_alloc(cs, &ov);
        cz_fr_add(&sum, &sum, &ov);
        cz_lc la = CZ_LC_ZERO, lb = CZ_LC_ZERO, lc = CZ_LC_ZERO;
        cz_lc_add(cs, &la, high.var, NULL);
        cz_lc_add(cs, &lb, hbits[i].var, NULL);
        cz_lc_add(cs, &lc, orz[i].var, NULL);
        cz_cs_enforce(cs, &la, &lb, &lc);
        cz_lc_free(cs, &la), cz_lc_free(cs, &lb), cz_lc_free(cs, &lc);
    }
    cz_num c_high = cz_num_alloc(cs, &sum);
    {
        cz_lc la = CZ_LC_ZERO, lb = CZ_LC_ZERO, lc = CZ_LC_ZERO;
        for (unsigned i = 0; i < 6; i++) cz_lc_add(cs, &la, orz[i].var, NULL);
        cz_lc_add(cs, &lb, CZ_CS_ONE, NULL);
        cz_lc_add(cs, &lc, c_high.var, NULL);
        cz_cs_enforce(cs, &la, &lb, &lc);
        cz_lc_free(cs, &la), cz_lc_free(cs, &lb), cz_lc_free(cs, &lc);
    }
    cz_num rho, rpre[2] = {t->phi, c_high};
    if ((rc = cz_poseidon_circuit_tag(cs, &rho, rpre, 2, &t->t40))) goto out;
    cz_num leaf_r_old = cz_num_alloc(cs, ch ? val(cs, &ch->leaf_r_old) : NULL);
    cz_num leaf_d_new = cz_num_alloc(cs, ch ? val(cs, &ch->leaf_d_new) : NULL);
    /* label_r_new */
    cz_num prod = num_mul(cs, &leaf_d_new, &rho);
    cz_fr nv;
    cz_fr_add(&nv, &leaf_r_old.val, &prod.val);
    cz_num leaf_r_new = cz_num_alloc(cs, &nv);
    {
        cz_lc la = CZ_LC_ZERO, lb = CZ_LC_ZERO, lc = CZ_LC_ZERO;
        cz_lc_add(cs, &la, leaf_r_old.var, NULL);
        cz_lc_add(cs, &la, prod.var, NULL);
        cz_lc_add(cs, &lb, CZ_CS_ONE, NULL);
        cz_lc_add(cs, &lc, leaf_r_new.var, NULL);
        cz_cs_enforce(cs, &la, &lb, &lc);
        cz_lc_free(cs, &la), cz_lc_free(cs, &lb), cz_lc_free(cs, &lc);
    }
    if (ch && !cz_fr_equal(&nv, &ch->leaf_r_new)) {
        rc = cz_error(CZ_EINVAL, "snap: challenge %u: leaf_r_new != leaf_r_old + leaf_d_new * rho", c);
        goto out;
    }
    for (unsigned i = 0; i < rlen; i++) path[i] = cz_num_alloc(cs, ch ? val(cs, &ch->path_r_old[i]) : NULL);
    if ((rc = por_no_input(cs, &p->tree_r, cb, &leaf_r_old, path, &t->root_r_old))) goto out;
    for (unsigned i = 0; i < rlen; i++) path[i] = cz_num_alloc(cs, ch ? val(cs, &ch->path_r_new[i]) : NULL);
    if ((rc = por_no_input(cs, &p->tree_r, cb, &leaf_r_new, path, &t->root_r_new))) goto out;
    /* select the apex leaf by the bits above the path to it (most significant first) */
    unsigned start = cbl - pbl - p->apex_bits;
    memcpy(st, t->apex, p->apex_leaves * sizeof(cz_num));
    for (unsigned b = p->apex_bits, half = p->apex_leaves / 2; b-- > 0; half /= 2)
        for (unsigned j = 0; j < half; j++) st[j] = cz_pick(cs, cb[start + b], &st[half + j], &st[j]);
    for (unsigned i = 0; i < start; i++) path[i] = cz_num_alloc(cs, ch ? val(cs, &ch->path_d_new[i]) : NULL);
    cz_tree_shape ds = p->tree_d;
    ds.nlevels = start;
    rc = por_no_input(cs, &ds, cb, &leaf_d_new, path, &st[0]);
out:
    free(path), free(st);
    return rc ? rc : cz_cs_status(cs);
}

typedef struct {
    const cz_snap_params *p;
    const cz_snap_witness *w;
    snap_top t;
} synth_ctx;

/* One challenge: a block of cz_cs_record_blocks (on its own cs and thread when recording). */
static int challenge_block(cz_cs *cs, unsigned c, void *arg) {
    const synth_ctx *x = arg;
    cz_cs_push_namespace(cs, "challenge");
    int rc = challenge_synth(cs, x->p, &x->t, x->w ? &x->w->ch[c] : NULL, c);
    cz_cs_pop_namespace(cs);
    return rc;
}

int cz_snap_synthesize(cz_cs *cs, const cz_snap_params *p, const cz_snap_witness *w) {
    if (cz_cs_needs_values(cs) && !w)
        return cz_error(CZ_EINVAL, "snap: witness mode needs the vanilla proofs");
    if (!cz_cs_needs_values(cs)) w = NULL;
    synth_ctx x = {.p = p, .w = w};
    int rc = top_synth(cs, p, w, &x.t);
    if (!rc) rc = cz_cs_record_blocks(cs, p->challenges, challenge_block, &x);
    top_free(&x.t);
    return rc ? rc : cz_cs_status(cs);
}

int cz_snap_shape(const cz_snap_params *p, uint64_t *top_aux, uint64_t *ch_aux) {
    /* counted once per process and sector size: the top part and one blank challenge */
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static uint64_t cache_size[16], cache_top[16], cache_ch[16];
    pthread_mutex_lock(&lock);
    int rc = 0;
    unsigned i = 0;
    while (i < 16 && cache_size[i] && cache_size[i] != p->sector_size) i++;
    if (i < 16 && cache_size[i] == p->sector_size) {
        *top_aux = cache_top[i], *ch_aux = cache_ch[i];
    } else {
        cz_cs *cs;
        snap_top t = {0};
        if (!(rc = cz_cs_new(&cs, CZ_CS_COUNT))) {
            if (!(rc = top_synth(cs, p, NULL, &t))) {
                *top_aux = cz_cs_num_aux(cs);
                rc = challenge_synth(cs, p, &t, NULL, 0);
                *ch_aux = cz_cs_num_aux(cs) - *top_aux;
            }
            top_free(&t);
            cz_cs_free(cs);
        }
        if (!rc && i < 16) cache_size[i] = p->sector_size, cache_top[i] = *top_aux, cache_ch[i] = *ch_aux;
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

int cz_snap_witness_parallel(const cz_snap_params *p, const cz_snap_witness *w, cz_fr *inputs,
                             uint64_t inputs_cap, cz_fr *aux, uint64_t aux_cap, int nthreads) {
    uint64_t top_aux, ch_aux;
    int rc = cz_snap_shape(p, &top_aux, &ch_aux);
    if (rc) return rc;
    if (!w) return cz_error(CZ_EINVAL, "snap witness: no vanilla proof");
    if (inputs_cap < CZ_SNAP_INPUTS || aux_cap < top_aux + ch_aux * p->challenges)
        return cz_error(CZ_ERANGE,
                        "snap witness: buffers hold %llu inputs / %llu aux, the %s circuit needs %u / %llu",
                        (unsigned long long)inputs_cap, (unsigned long long)aux_cap, p->name, CZ_SNAP_INPUTS,
                        (unsigned long long)(top_aux + ch_aux * p->challenges));
    cz_cs *cs;
    if ((rc = cz_cs_new(&cs, CZ_CS_WITNESS))) return rc;
    snap_top t = {0};
    rc = cz_cs_set_value_buffers(cs, inputs, CZ_SNAP_INPUTS, aux, top_aux);
    if (!rc) rc = top_synth(cs, p, w, &t);
    if (!rc && (cz_cs_num_aux(cs) != top_aux || cz_cs_num_inputs(cs) != CZ_SNAP_INPUTS))
        rc = cz_error(CZ_EINVAL, "snap witness: top-level layout mismatch");
    cz_cs_free(cs);
    if (rc) {
        top_free(&t);
        return rc;
    }
    /* Challenges are independent given the top part's values: each writes its own aux slice. */
    int err = 0;
    char msg[256] = "";
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads > 0 ? nthreads : omp_get_max_threads())
    for (unsigned c = 0; c < p->challenges; c++) {
        cz_fr one[1];
        cz_cs *ccs = NULL;
        int r = cz_cs_new(&ccs, CZ_CS_WITNESS);
        if (!r) r = cz_cs_set_value_buffers(ccs, one, 1, aux + top_aux + ch_aux * c, ch_aux);
        if (!r) r = challenge_synth(ccs, p, &t, &w->ch[c], c);
        if (!r && cz_cs_num_aux(ccs) != ch_aux)
            r = cz_error(CZ_EINVAL, "snap witness: challenge %u layout mismatch", c);
        if (ccs) cz_cs_free(ccs);
        if (r) {
#pragma omp critical
            if (!err) err = r, snprintf(msg, sizeof msg, "challenge %u: %s", c, cz_error_message());
        }
    }
    top_free(&t);
    return err ? cz_error(err, "snap witness: %s", msg) : 0;
}

int cz_snap_witness_compact(const cz_snap_params *p, const cz_snap_witness *w, cz_fr *inputs, uint64_t inputs_cap,
                            cz_wcompact *aux, int nthreads) {
    uint64_t top_aux, ch_aux;
    int rc = cz_snap_shape(p, &top_aux, &ch_aux);
    if (rc) return rc;
    if (!w) return cz_error(CZ_EINVAL, "snap witness: no vanilla proof");
    if (inputs_cap < CZ_SNAP_INPUTS)
        return cz_error(CZ_ERANGE, "snap witness: the buffer holds %llu inputs, the %s circuit needs %u",
                        (unsigned long long)inputs_cap, p->name, CZ_SNAP_INPUTS);
    cz_wcompact_clear(aux);
    /* bitmaps sized exactly; the dense part grows (its size depends on the values) */
    if ((rc = cz_wcompact_reserve(aux, top_aux + ch_aux * p->challenges, 0))) return rc;
    cz_cs *cs;
    if ((rc = cz_cs_new(&cs, CZ_CS_WITNESS))) return rc;
    snap_top t = {0};
    rc = cz_cs_set_compact_aux(cs, aux);
    if (!rc) rc = top_synth(cs, p, w, &t);
    if (!rc && (cz_cs_num_aux(cs) != top_aux || cz_cs_num_inputs(cs) != CZ_SNAP_INPUTS))
        rc = cz_error(CZ_EINVAL, "snap witness: top-level layout mismatch");
    if (!rc) cz_cs_copy_inputs(cs, inputs, 0, CZ_SNAP_INPUTS);
    cz_cs_free(cs);
    if (rc) {
        top_free(&t);
        return rc;
    }
    /* Challenges in parallel, each into its own compact part; the parts are appended in challenge order as
     * they complete (ordered), so at most a few parts exist beside the result. */
    int err = 0;
    char msg[256] = "";
#pragma omp parallel for ordered schedule(dynamic, 1) num_threads(nthreads > 0 ? nthreads : omp_get_max_threads())
    for (unsigned c = 0; c < p->challenges; c++) {
        cz_wcompact part;
        cz_wcompact_init(&part);
        cz_cs *ccs = NULL;
        int r = cz_wcompact_reserve(&part, ch_aux, ch_aux / 16);
        if (!r) r = cz_cs_new(&ccs, CZ_CS_WITNESS);
        if (!r) r = cz_cs_set_compact_aux(ccs, &part);
        if (!r) r = challenge_synth(ccs, p, &t, &w->ch[c], c);
        if (!r && cz_cs_num_aux(ccs) != ch_aux) r = cz_error(CZ_EINVAL, "snap witness: challenge %u layout mismatch", c);
        if (ccs) cz_cs_free(ccs);
#pragma omp ordered
        {
            if (!r && !err) r = cz_wcompact_append(aux, &part);
            if (r && !err) err = r, snprintf(msg, sizeof msg, "challenge %u: %s", c, cz_error_message());
        }
        cz_wcompact_free(&part);
    }
    top_free(&t);
    return err ? cz_error(err, "snap witness: %s", msg) : 0;
}
