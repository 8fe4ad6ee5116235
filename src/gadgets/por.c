/* Insertion, tree node hashes and PoR as storage-proofs-core builds them; see por.h. */
#include "gadgets/por.h"

#include "cz_error.h"
#include "gadgets/sha256.h"

/* insert_4 / insert_8 are the hand-optimised tables of insertion.rs; the pick order below is
 * theirs (each line is pick(cond, if_true, if_false)). */
int cz_insert(cz_cs *cs, cz_num *out, const cz_num *cur, const cz_bool *bits, const cz_num *sib, unsigned arity) {
    const cz_num *a = cur;
    if (arity == 2) {
        out[0] = cz_pick(cs, bits[0], &sib[0], a);
        out[1] = cz_pick(cs, bits[0], a, &sib[0]);
        return 0;
    }
    if (arity == 4) {
        const cz_num *b = &sib[0], *c = &sib[1], *d = &sib[2];
        cz_bool b0 = bits[0], b1 = bits[1];
        cz_num t;
        t = cz_pick(cs, b0, b, a), out[0] = cz_pick(cs, b1, b, &t);
        t = cz_pick(cs, b0, a, b), out[1] = cz_pick(cs, b1, c, &t);
        t = cz_pick(cs, b0, d, a), out[2] = cz_pick(cs, b1, &t, c);
        t = cz_pick(cs, b0, a, d), out[3] = cz_pick(cs, b1, &t, d);
        return 0;
    }
    if (arity == 8) {
        const cz_num *b = &sib[0], *c = &sib[1], *d = &sib[2], *e = &sib[3], *f = &sib[4], *g = &sib[5], *h = &sib[6];
        cz_bool b0 = bits[0], b1 = bits[1], b2 = bits[2];
        if (b0.kind != CZ_BOOL_IS || b1.kind != CZ_BOOL_IS)
            return cz_error(CZ_EINVAL, "insert_8: index bits must be allocated and unnegated");
        /* AllocatedBit::nor(b0, b1), then AllocatedBit::and(b0, b1) */
        cz_bool nor = cz_bool_and(cs, cz_bool_not(b0), cz_bool_not(b1));
        cz_bool and = cz_bool_and(cs, b0, b1);
        cz_num t, u;
        t = cz_pick(cs, nor, a, b), out[0] = cz_pick(cs, b2, b, &t);
        t = cz_pick(cs, b0, a, b), u = cz_pick(cs, b1, c, &t), out[1] = cz_pick(cs, b2, c, &u);
        t = cz_pick(cs, b0, d, a), u = cz_pick(cs, b1, &t, c), out[2] = cz_pick(cs, b2, d, &u);
        t = cz_pick(cs, and, a, d), out[3] = cz_pick(cs, b2, e, &t);
        t = cz_pick(cs, nor, a, f), out[4] = cz_pick(cs, b2, &t, e);
        t = cz_pick(cs, b0, a, f), u = cz_pick(cs, b1, g, &t), out[5] = cz_pick(cs, b2, &u, f);
        t = cz_pick(cs, b0, h, a), u = cz_pick(cs, b1, &t, g), out[6] = cz_pick(cs, b2, &u, g);
        t = cz_pick(cs, and, a, h), out[7] = cz_pick(cs, b2, &t, h);
        return 0;
    }
    return cz_error(CZ_EINVAL, "insert: arity %u not supported (2, 4, 8)", arity);
}

int cz_sha256_node_circuit(cz_cs *cs, cz_num *out, const cz_num children[2]) {
    cz_bool le[255], pre[512], digest[256], rev[256];
    for (int k = 0; k < 2; k++) {
        cz_num_to_bits_le(cs, &children[k], le);
        cz_reverse_bit_numbering(pre + 256 * k, le, 255);
    }
    int rc = cz_sha256_gadget(cs, pre, 512, digest);
    if (rc) return rc;
    cz_reverse_bit_numbering(rev, digest, 256);
    *out = cz_pack_bits(cs, rev, 254);
    return cz_cs_status(cs);
}

void cz_sha256_node(cz_fr *out, const cz_fr *left, const cz_fr *right) {
    uint8_t buf[64], d[32];
    cz_fr_to_bytes_le(buf, left);
    cz_fr_to_bytes_le(buf + 32, right);
    cz_sha256_bytes(d, buf, 64);
    d[31] &= 0x3f;
    cz_fr_from_bytes_le(out, d);
}

unsigned cz_tree_path_len(const cz_tree_shape *s) {
    unsigned n = 0;
    for (unsigned i = 0; i < s->nlevels; i++) n += s->levels[i] - 1u;
    return n;
}

static unsigned log2u(unsigned a) { return a == 2 ? 1 : a == 4 ? 2 : a == 8 ? 3 : 0; }

int cz_por_circuit(cz_cs *cs, const cz_tree_shape *s, const cz_num *leaf, const cz_num *root, uint64_t index,
                   const cz_fr *siblings) {
    cz_bool bits[64];
    unsigned nbits = 0;
    cz_num cur = *leaf;
    bool vals = cz_cs_needs_values(cs);
    for (unsigned lv = 0; lv < s->nlevels; lv++) {
        unsigned ar = s->levels[lv], lb = log2u(ar);
        if (!lb || nbits + lb > 64 || (s->sha && ar != 2))
            return cz_error(CZ_EINVAL, "por: level %u has unsupported arity %u", lv, ar);
        cz_bool *lbits = bits + nbits;
        for (unsigned i = 0; i < lb; i++, nbits++) lbits[i] = cz_bit_alloc(cs, vals && ((index >> nbits) & 1));
        cz_num sib[7], ins[8];
        for (unsigned i = 0; i + 1 < ar; i++) sib[i] = cz_num_alloc(cs, vals ? siblings++ : NULL);
        int rc = cz_insert(cs, ins, &cur, lbits, sib, ar);
        if (!rc) rc = s->sha ? cz_sha256_node_circuit(cs, &cur, ins) : cz_poseidon_circuit(cs, &cur, ins, ar);
        if (rc) return rc;
    }
    cz_pack_into_inputs(cs, bits, nbits);
    cz_num_enforce_equal(cs, &cur, root);
    return cz_cs_status(cs);
}

int cz_por_root(cz_fr *root, const cz_tree_shape *s, const cz_fr *leaf, uint64_t index, const cz_fr *siblings) {
    cz_fr cur = *leaf;
    for (unsigned lv = 0; lv < s->nlevels; lv++) {
        unsigned ar = s->levels[lv], lb = log2u(ar);
        if (!lb) return cz_error(CZ_EINVAL, "por: level %u has unsupported arity %u", lv, ar);
        unsigned pos = index & (ar - 1);
        index >>= lb;
        cz_fr node[8];
        for (unsigned i = 0, j = 0; i < ar; i++) node[i] = i == pos ? cur : siblings[j++];
        siblings += ar - 1;
        int rc = s->sha ? (cz_sha256_node(&cur, &node[0], &node[1]), 0) : cz_poseidon_hash(&cur, node, ar);
        if (rc) return rc;
    }
    *root = cur;
    return 0;
}
