/* UInt32 and MultiEq as bellperson builds them; see uint32.h. */
#include "gadgets/uint32.h"

void cz_multieq_init(cz_multieq *m, cz_cs *cs) {
    m->cs = cs;
    m->bits_used = 0;
    m->lhs = CZ_LC_ZERO;
    m->rhs = CZ_LC_ZERO;
}

/* MultiEq::accumulate: lhs * ONE = rhs. */
static void multieq_flush(cz_multieq *m) {
    cz_cs *cs = m->cs;
    if (cz_cs_needs_lcs(cs)) {
        cz_lc one = CZ_LC_ZERO;
        cz_lc_add(cs, &one, CZ_CS_ONE, NULL);
        cz_cs_enforce(cs, &m->lhs, &one, &m->rhs);
        cz_lc_free(cs, &one);
        cz_lc_clear(&m->lhs);
        cz_lc_clear(&m->rhs);
    } else {
        cz_cs_enforce(cs, NULL, NULL, NULL);
    }
    m->bits_used = 0;
}

void cz_multieq_finish(cz_multieq *m) {
    if (m->bits_used > 0) multieq_flush(m);
    cz_lc_free(m->cs, &m->lhs);
    cz_lc_free(m->cs, &m->rhs);
}

cz_u32 cz_u32_constant(uint32_t v) {
    cz_u32 x;
    for (int i = 0; i < 32; i++) x.bits[i] = cz_bool_const((v >> i) & 1);
    x.value = v;
    return x;
}

cz_u32 cz_u32_from_bits_be(const cz_bool bits[32]) {
    cz_u32 x;
    x.value = 0;
    for (int i = 0; i < 32; i++) {
        x.bits[i] = bits[31 - i];
        x.value |= (uint32_t)x.bits[i].val << i;
    }
    return x;
}

void cz_u32_into_bits_be(cz_bool out[32], const cz_u32 *x) {
    for (int i = 0; i < 32; i++) out[i] = x->bits[31 - i];
}

cz_u32 cz_u32_rotr(const cz_u32 *x, unsigned by) {
    by %= 32;
    cz_u32 r;
    for (unsigned i = 0; i < 32; i++) r.bits[i] = x->bits[(i + by) % 32];
    r.value = by ? (x->value >> by) | (x->value << (32 - by)) : x->value;
    return r;
}

cz_u32 cz_u32_shr(const cz_u32 *x, unsigned by) {
    cz_u32 r;
    for (unsigned i = 0; i < 32; i++) r.bits[i] = i + by < 32 ? x->bits[i + by] : cz_bool_const(false);
    r.value = by < 32 ? x->value >> by : 0;
    return r;
}

cz_u32 cz_u32_xor(cz_cs *cs, const cz_u32 *a, const cz_u32 *b) {
    cz_u32 r;
    for (int i = 0; i < 32; i++) r.bits[i] = cz_bool_xor(cs, a->bits[i], b->bits[i]);
    r.value = a->value ^ b->value;
    return r;
}

cz_u32 cz_u32_sha256_ch(cz_cs *cs, const cz_u32 *a, const cz_u32 *b, const cz_u32 *c) {
    cz_u32 r;
    for (int i = 0; i < 32; i++) r.bits[i] = cz_bool_sha256_ch(cs, a->bits[i], b->bits[i], c->bits[i]);
    r.value = (a->value & b->value) ^ (~a->value & c->value);
    return r;
}

cz_u32 cz_u32_sha256_maj(cz_cs *cs, const cz_u32 *a, const cz_u32 *b, const cz_u32 *c) {
    cz_u32 r;
    for (int i = 0; i < 32; i++) r.bits[i] = cz_bool_sha256_maj(cs, a->bits[i], b->bits[i], c->bits[i]);
    r.value = (a->value & b->value) ^ (a->value & c->value) ^ (b->value & c->value);
    return r;
}

cz_u32 cz_u32_addmany(cz_multieq *m, const cz_u32 *const *ops, unsigned n) {
    cz_cs *cs = m->cs;
    uint64_t sum = 0;
    bool all_const = true;
    for (unsigned k = 0; k < n; k++) {
        sum += ops[k]->value;
        for (int i = 0; i < 32 && all_const; i++) all_const = cz_bool_is_const(ops[k]->bits[i]);
    }
    if (all_const) return cz_u32_constant((uint32_t)sum);
    uint64_t max = (uint64_t)n * 0xffffffffull;
    unsigned nbits = 0;
    cz_bool res[64];
    bool vals = cz_cs_needs_values(cs);
    while (max) {
        res[nbits] = cz_bit_alloc(cs, vals && ((sum >> nbits) & 1));
        nbits++;
        max >>= 1;
    }
    /* MultiEq::enforce_equal(nbits, sum of operands, sum of result bits) */
    if (m->bits_used + nbits >= 254) multieq_flush(m);
    if (cz_cs_needs_lcs(cs)) {
        unsigned off = m->bits_used;
        for (unsigned k = 0; k < n; k++)
            for (unsigned i = 0; i < 32; i++) cz_bool_lc_add(cs, &m->lhs, ops[k]->bits[i], cz_gadget_pow2(off + i));
        for (unsigned i = 0; i < nbits; i++) cz_lc_add(cs, &m->rhs, res[i].var, cz_gadget_pow2(off + i));
    }
    m->bits_used += nbits;
    cz_u32 r;
    for (int i = 0; i < 32; i++) r.bits[i] = res[i];
    r.value = (uint32_t)sum;
    return r;
}
