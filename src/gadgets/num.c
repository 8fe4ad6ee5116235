/* AllocatedNum, multipack, pick, equal; see num.h. */
#include "gadgets/num.h"

cz_num cz_num_alloc(cz_cs *cs, const cz_fr *value) {
    cz_num n;
    n.val = (value && cz_cs_needs_values(cs)) ? *value : CZ_FR_ZERO_V;
    n.var = cz_cs_alloc(cs, value);
    return n;
}

void cz_num_inputize(cz_cs *cs, const cz_num *n) {
    cz_var x = cz_cs_alloc_input(cs, &n->val);
    cz_lc la = CZ_LC_ZERO, lb = CZ_LC_ZERO, lc = CZ_LC_ZERO;
    cz_lc_add(cs, &la, x, NULL);
    cz_lc_add(cs, &lb, CZ_CS_ONE, NULL);
    cz_lc_add(cs, &lc, n->var, NULL);
    cz_cs_enforce(cs, &la, &lb, &lc);
    cz_lc_free(cs, &la), cz_lc_free(cs, &lb), cz_lc_free(cs, &lc);
}

void cz_num_to_bits_le(cz_cs *cs, const cz_num *n, cz_bool out[255]) {
    uint64_t raw[4] = {0, 0, 0, 0};
    if (cz_cs_needs_values(cs)) cz_fr_to_raw(raw, &n->val);
    for (int i = 0; i < 255; i++) out[i] = cz_bit_alloc(cs, (raw[i >> 6] >> (i & 63)) & 1);
    cz_lc lc = CZ_LC_ZERO;
    if (cz_cs_needs_lcs(cs)) {
        for (int i = 0; i < 255; i++) cz_lc_add(cs, &lc, out[i].var, cz_gadget_pow2(i));
        cz_lc_sub(cs, &lc, n->var, NULL);
    }
    cz_cs_enforce(cs, NULL, NULL, &lc);
    cz_lc_free(cs, &lc);
}

/* Num::add_bool_with_coeff over the first n bits (n <= 254): value and LC. */
static void pack_lc(cz_cs *cs, cz_lc *lc, cz_fr *val, const cz_bool *bits, size_t n) {
    *val = CZ_FR_ZERO_V;
    bool vals = cz_cs_needs_values(cs);
    for (size_t i = 0; i < n; i++) {
        if (vals && bits[i].val) cz_fr_add(val, val, cz_gadget_pow2((unsigned)i));
        cz_bool_lc_add(cs, lc, bits[i], cz_gadget_pow2((unsigned)i));
    }
}

cz_num cz_pack_bits(cz_cs *cs, const cz_bool *bits, size_t n) {
    if (n > 254) n = 254;
    cz_lc la = CZ_LC_ZERO, lb = CZ_LC_ZERO, lc = CZ_LC_ZERO;
    cz_fr v;
    pack_lc(cs, &la, &v, bits, n);
    cz_num x = cz_num_alloc(cs, &v);
    cz_lc_add(cs, &lb, CZ_CS_ONE, NULL);
    cz_lc_add(cs, &lc, x.var, NULL);
    cz_cs_enforce(cs, &la, &lb, &lc);
    cz_lc_free(cs, &la), cz_lc_free(cs, &lb), cz_lc_free(cs, &lc);
    return x;
}

void cz_pack_into_inputs(cz_cs *cs, const cz_bool *bits, size_t n) {
    for (size_t off = 0; off < n; off += 254) {
        size_t m = n - off < 254 ? n - off : 254;
        cz_lc la = CZ_LC_ZERO, lb = CZ_LC_ZERO, lc = CZ_LC_ZERO;
        cz_fr v;
        pack_lc(cs, &la, &v, bits + off, m);
        cz_var x = cz_cs_alloc_input(cs, &v);
        cz_lc_add(cs, &lb, CZ_CS_ONE, NULL);
        cz_lc_add(cs, &lc, x, NULL);
        cz_cs_enforce(cs, &la, &lb, &lc);
        cz_lc_free(cs, &la), cz_lc_free(cs, &lb), cz_lc_free(cs, &lc);
    }
}

cz_num cz_pick(cz_cs *cs, cz_bool cond, const cz_num *a, const cz_num *b) {
    cz_num c = cz_num_alloc(cs, cond.val ? &a->val : &b->val);
    if (cz_cs_needs_lcs(cs)) {
        cz_lc la = CZ_LC_ZERO, lb = CZ_LC_ZERO, lc = CZ_LC_ZERO;
        cz_lc_add(cs, &la, b->var, NULL);
        cz_lc_sub(cs, &la, a->var, NULL);
        cz_bool_lc_add(cs, &lb, cond, NULL);
        cz_lc_add(cs, &lc, b->var, NULL);
        cz_lc_sub(cs, &lc, c.var, NULL);
        cz_cs_enforce(cs, &la, &lb, &lc);
        cz_lc_free(cs, &la), cz_lc_free(cs, &lb), cz_lc_free(cs, &lc);
    } else {
        cz_cs_enforce(cs, NULL, NULL, NULL);
    }
    return c;
}

void cz_num_enforce_equal(cz_cs *cs, const cz_num *a, const cz_num *b) {
    cz_lc la = CZ_LC_ZERO, lb = CZ_LC_ZERO, lc = CZ_LC_ZERO;
    cz_lc_add(cs, &la, a->var, NULL);
    cz_lc_add(cs, &lb, CZ_CS_ONE, NULL);
    cz_lc_add(cs, &lc, b->var, NULL);
    cz_cs_enforce(cs, &la, &lb, &lc);
    cz_lc_free(cs, &la), cz_lc_free(cs, &lb), cz_lc_free(cs, &lc);
}

size_t cz_reverse_bit_numbering(cz_bool *out, const cz_bool *bits, size_t n) {
    size_t m = (n + 7) / 8 * 8;
    for (size_t i = 0; i < m; i++) {
        size_t src = (i & ~(size_t)7) | (7 - (i & 7));
        out[i] = src < n ? bits[src] : cz_bool_const(false);
    }
    return m;
}
