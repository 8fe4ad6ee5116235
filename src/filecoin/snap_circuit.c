/* EmptySectorUpdate circuit; see snap_circuit.h and filecoin-circuits.md §3.3. */
#include "filecoin/snap_circuit.h"

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

typedef struct {
    cz_num *apex;   /* apex leaves, then scratch for the apex tree */
    cz_num *path_r; /* tree_r siblings */
    cz_num *path_d; /* tree_d siblings */
    cz_bool *bits;  /* digest bits */
} scratch;

int cz_snap_synthesize(cz_cs *cs, const cz_snap_params *p, const cz_snap_witness *w) {
    bool vals = cz_cs_needs_values(cs);
    if (vals && !w) return cz_error(CZ_EINVAL, "snap: witness mode needs the vanilla proofs");
    if (!vals) w = NULL;
    uint64_t kh = 0;
    if (w && cz_snap_k_and_h_select(&kh, p, w->k, w->h)) return CZ_EINVAL;
    const unsigned cbl = p->nodes_log2, pbl = p->partition_bits, hbl = 6;
    const unsigned rlen = cz_tree_path_len(&p->tree_r);
    cz_fr t40;
    cz_fr_set_u64(&t40, 1ull << 40);
    scratch sc = {malloc(p->apex_leaves * sizeof(cz_num)), malloc(rlen * sizeof(cz_num)),
                  malloc(cbl * sizeof(cz_num)), malloc(255 * 16 * sizeof(cz_bool))};
    int rc = 0;
    if (!sc.apex || !sc.path_r || !sc.path_d || !sc.bits) {
        rc = cz_error(CZ_ENOMEM, "snap: out of memory");
        goto out;
    }
    /* k_and_h_select, its bits, one packing constraint */
    cz_fr khv;
    cz_fr_set_u64(&khv, kh);
    cz_num k_and_h = cz_num_alloc(cs, &khv);
    cz_num_inputize(cs, &k_and_h);
    cz_bool khbits[4 + 6];
    for (unsigned i = 0; i < pbl + hbl; i++) khbits[i] = cz_bit_alloc(cs, (kh >> i) & 1);
    enforce_pack(cs, khbits, pbl + hbl, k_and_h.var);
    const cz_bool *pbits = khbits, *hbits = khbits + pbl;
    cz_num partition = cz_pack_bits(cs, pbits, pbl);
    cz_num comm_r_old = cz_num_alloc(cs, w ? &w->comm_r_old : NULL);
    cz_num_inputize(cs, &comm_r_old);
    cz_num comm_d_new = cz_num_alloc(cs, w ? &w->comm_d_new : NULL);
    cz_num_inputize(cs, &comm_d_new);
    cz_num comm_r_new = cz_num_alloc(cs, w ? &w->comm_r_new : NULL);
    cz_num_inputize(cs, &comm_r_new);
    cz_num phi, pre[2] = {comm_d_new, comm_r_old};
    if ((rc = cz_poseidon_circuit_tag(cs, &phi, pre, 2, &t40))) goto out;
    cz_num comm_c = cz_num_alloc(cs, w ? &w->comm_c : NULL);
    cz_num root_r_old = cz_num_alloc(cs, w ? &w->root_r_old : NULL);
    cz_num root_r_new = cz_num_alloc(cs, w ? &w->root_r_new : NULL);
    for (unsigned i = 0; i < p->apex_leaves; i++) sc.apex[i] = cz_num_alloc(cs, w ? &w->apex_leafs[i] : NULL);
    cz_num ppath[4];
    for (unsigned i = 0; i < pbl; i++)
        ppath[i] = cz_num_alloc(cs, w ? &w->ch[0].path_d_new[cbl - pbl + i] : NULL);
    /* comm_r_old / comm_r_new from comm_c and the roots: calc * ONE = comm */
    cz_num calc, rpre[2] = {comm_c, root_r_old};
    if ((rc = cz_poseidon_circuit(cs, &calc, rpre, 2))) goto out;
    cz_num_enforce_equal(cs, &calc, &comm_r_old);
    rpre[1] = root_r_new;
    if ((rc = cz_poseidon_circuit(cs, &calc, rpre, 2))) goto out;
    cz_num_enforce_equal(cs, &calc, &comm_r_new);
    /* apex_por: the apex tree in place (row by row, pairs), then the partition path to comm_d_new */
    {
        cz_num *row = malloc(p->apex_leaves * sizeof(cz_num));
        if (!row) {
            rc = cz_error(CZ_ENOMEM, "snap: out of memory");
            goto out;
        }
        memcpy(row, sc.apex, p->apex_leaves * sizeof(cz_num));
        for (unsigned n = p->apex_leaves; n > 1 && !rc; n /= 2)
            for (unsigned i = 0; i < n / 2 && !rc; i++) rc = cz_sha256_node_circuit(cs, &row[i], &row[2 * i]);
        cz_num apex_root = row[0];
        free(row);
        if (rc) goto out;
        cz_tree_shape ps = {pbl, {2, 2, 2, 2}, true};
        if ((rc = por_no_input(cs, &ps, pbits, &apex_root, ppath, &comm_d_new))) goto out;
    }
    /* gen_challenge_bits: per digest an index, the tagged hash of (comm_r_new, index), 255 bits */
    const unsigned rbits = cbl - pbl, per_digest = 254 / rbits;
    const unsigned digests = (p->challenges + per_digest - 1) / per_digest;
    if (digests > 16) {
        rc = cz_error(CZ_EINVAL, "snap: %u challenge digests", digests);
        goto out;
    }
    for (unsigned j = 0; j < digests; j++) {
        cz_fr dv, t;
        cz_fr_set_u64(&dv, digests);
        cz_fr_mul(&dv, &dv, &partition.val);
        cz_fr_set_u64(&t, j);
        cz_fr_add(&dv, &dv, &t);
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
        if ((rc = cz_poseidon_circuit_tag(cs, &digest, dpre, 2, &t40))) goto out;
        uint8_t db[32] = {0};
        if (vals) cz_fr_to_bytes_le(db, &digest.val);
        cz_bool *bits = sc.bits + 255 * j;
        for (unsigned i = 0; i < 255; i++) bits[i] = cz_bit_alloc(cs, (db[i / 8] >> (i % 8)) & 1);
        enforce_pack(cs, bits, 255, digest.var);
    }
    for (unsigned c = 0; c < p->challenges; c++) {
        const cz_snap_challenge *ch = w ? &w->ch[c] : NULL;
        /* c_bits = the challenge's random bits ‖ partition bits */
        cz_bool cb[40];
        const cz_bool *src = sc.bits + 255 * (c / per_digest) + rbits * (c % per_digest);
        memcpy(cb, src, rbits * sizeof(cz_bool));
        memcpy(cb + rbits, pbits, pbl * sizeof(cz_bool));
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
        cz_num rho, rpre2[2] = {phi, c_high};
        if ((rc = cz_poseidon_circuit_tag(cs, &rho, rpre2, 2, &t40))) goto out;
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
        for (unsigned i = 0; i < rlen; i++)
            sc.path_r[i] = cz_num_alloc(cs, ch ? val(cs, &ch->path_r_old[i]) : NULL);
        if ((rc = por_no_input(cs, &p->tree_r, cb, &leaf_r_old, sc.path_r, &root_r_old))) goto out;
        for (unsigned i = 0; i < rlen; i++)
            sc.path_r[i] = cz_num_alloc(cs, ch ? val(cs, &ch->path_r_new[i]) : NULL);
        if ((rc = por_no_input(cs, &p->tree_r, cb, &leaf_r_new, sc.path_r, &root_r_new))) goto out;
        /* select the apex leaf by the bits above the path to it (most significant first) */
        unsigned start = cbl - pbl - p->apex_bits;
        cz_num *st = malloc(p->apex_leaves * sizeof(cz_num));
        if (!st) {
            rc = cz_error(CZ_ENOMEM, "snap: out of memory");
            goto out;
        }
        memcpy(st, sc.apex, p->apex_leaves * sizeof(cz_num));
        for (unsigned b = p->apex_bits, half = p->apex_leaves / 2; b-- > 0; half /= 2)
            for (unsigned j = 0; j < half; j++) st[j] = cz_pick(cs, cb[start + b], &st[half + j], &st[j]);
        cz_num apex_leaf = st[0];
        free(st);
        unsigned dl = start;
        for (unsigned i = 0; i < dl; i++)
            sc.path_d[i] = cz_num_alloc(cs, ch ? val(cs, &ch->path_d_new[i]) : NULL);
        cz_tree_shape ds = p->tree_d;
        ds.nlevels = dl;
        if ((rc = por_no_input(cs, &ds, cb, &leaf_d_new, sc.path_d, &apex_leaf))) goto out;
    }
out:
    free(sc.apex), free(sc.path_r), free(sc.path_d), free(sc.bits);
    return rc ? rc : cz_cs_status(cs);
}
