/* The fast Poseidon permutation (neptune's optimised static form: compressed round keys, one
 * pre-sparse matrix, sparse matrices in the partial rounds) with lazily reduced dot products: each
 * matrix row sums t unreduced 512-bit products and pays one Montgomery reduction instead of t. The
 * same routine fills the gadget's witness (values only), so gadget and hash cannot drift apart. */
#include "gadgets/poseidon_impl.h"

static const uint64_t P[4] = CZ_FR_MODULUS;

/* acc (9 limbs) += a * b (plain 512-bit product of the Montgomery limbs). */
static inline void mac_wide(uint64_t acc[9], const cz_fr *a, const cz_fr *b) {
    uint64_t p[8] = {0};
    for (int i = 0; i < 4; i++) {
        uint64_t carry = 0;
        for (int j = 0; j < 4; j++) {
            cz_u128 u = (cz_u128)a->l[i] * b->l[j] + p[i + j] + carry;
            p[i + j] = (uint64_t)u;
            carry = (uint64_t)(u >> 64);
        }
        p[i + 4] = carry;
    }
    uint64_t c = 0;
    for (int k = 0; k < 8; k++) {
        cz_u128 u = (cz_u128)acc[k] + p[k] + c;
        acc[k] = (uint64_t)u;
        c = (uint64_t)(u >> 64);
    }
    acc[8] += c;
}

/* r = acc / 2^256 mod p, fully reduced. acc < n p^2 with n <= 37 gives a REDC result below
 * (n p / 2^256 + 1) p < 18 p, so subtracting 16p, 8p, 4p, 2p, p where they fit finishes it. */
static inline void redc_wide(cz_fr *r, uint64_t t[9]) {
    for (int i = 0; i < 4; i++) {
        uint64_t m = t[i] * (uint64_t)CZ_FR_INV, carry = 0;
        for (int j = 0; j < 4; j++) {
            cz_u128 u = (cz_u128)m * P[j] + t[i + j] + carry;
            t[i + j] = (uint64_t)u;
            carry = (uint64_t)(u >> 64);
        }
        for (int k = i + 4; k < 9 && carry; k++) {
            cz_u128 u = (cz_u128)t[k] + carry;
            t[k] = (uint64_t)u;
            carry = (uint64_t)(u >> 64);
        }
    }
    uint64_t v[5] = {t[4], t[5], t[6], t[7], t[8]};
    for (int s = 4; s >= 0; s--) {
        uint64_t q[5], d[5], borrow = 0;
        for (int i = 0; i < 5; i++) {
            uint64_t pi = i < 4 ? P[i] : 0, lo = i > 0 ? P[i - 1] : 0;
            q[i] = s ? (pi << s) | (lo >> (64 - s)) : pi;
        }
        for (int i = 0; i < 5; i++) {
            cz_u128 u = (cz_u128)v[i] - q[i] - borrow;
            d[i] = (uint64_t)u;
            borrow = (uint64_t)(u >> 64) & 1;
        }
        uint64_t keep = 0 - borrow; /* borrow: v < q, keep v */
        for (int i = 0; i < 5; i++) v[i] = (v[i] & keep) | (d[i] & ~keep);
    }
    for (int i = 0; i < 4; i++) r->l[i] = v[i];
}

/* out_j = sum_i s_i m[i][j] for a full t x t matrix. */
static inline void mat(cz_fr *s, const cz_fr *m, unsigned t) {
    cz_fr r[37];
    for (unsigned j = 0; j < t; j++) {
        uint64_t acc[9] = {0};
        for (unsigned i = 0; i < t; i++) mac_wide(acc, &s[i], &m[i * t + j]);
        redc_wide(&r[j], acc);
    }
    for (unsigned j = 0; j < t; j++) s[j] = r[j];
}

/* Sparse M'': s_0' = sum_i w_i s_i, s_j' = s_j + v_{j-1} s_0. */
static inline void sparse(cz_fr *s, const cz_fr *w, const cz_fr *v, unsigned t) {
    uint64_t acc[9] = {0};
    for (unsigned i = 0; i < t; i++) mac_wide(acc, &w[i], &s[i]);
    cz_fr p;
    for (unsigned j = 1; j < t; j++) cz_fr_mul(&p, &v[j - 1], &s[0]), cz_fr_add(&s[j], &s[j], &p);
    redc_wide(&s[0], acc);
}

/* x^5 (+ post) in 3 multiplications; with cs, allocates x (when alloc_in), x^2, x^4, x^5 + post and
 * counts their constraints as the circuit's quintic_s_box (ensure_allocated, square, square, mul_sum). */
static inline void sbox(cz_fr *x, const cz_fr *post, cz_cs *cs, bool alloc_in, cz_var *last) {
    cz_fr x2, x4;
    cz_fr_sqr(&x2, x);
    cz_fr_sqr(&x4, &x2);
    if (cs) {
        if (alloc_in) cz_cs_alloc(cs, x), cz_cs_enforce(cs, NULL, NULL, NULL);
        cz_cs_alloc(cs, &x2), cz_cs_enforce(cs, NULL, NULL, NULL);
        cz_cs_alloc(cs, &x4), cz_cs_enforce(cs, NULL, NULL, NULL);
    }
    cz_fr_mul(x, x, &x4);
    if (post) cz_fr_add(x, x, post);
    if (cs) *last = cz_cs_alloc(cs, x), cz_cs_enforce(cs, NULL, NULL, NULL);
}

void cz_poseidon_permute_(const cz_poseidon_consts *c, cz_fr *s, cz_cs *cs, cz_num *out) {
    unsigned t = c->t, half = c->rf / 2, rp = c->rp;
    const cz_fr *k = c->crc;
    cz_var last;
    /* first full round: pre key, x^5, post key; the tag (s[0]) is a constant in the circuit */
    for (unsigned i = 0; i < t; i++) {
        cz_fr_add(&s[i], &s[i], &k[i]);
        sbox(&s[i], &k[t + i], i ? cs : NULL, false, &last);
    }
    k += 2 * t;
    mat(s, half > 1 ? c->mds : c->pre_sparse, t);
    for (unsigned r = 1; r < half; r++, k += t) {
        for (unsigned i = 0; i < t; i++) sbox(&s[i], &k[i], cs, true, &last);
        mat(s, r == half - 1 ? c->pre_sparse : c->mds, t);
    }
    for (unsigned r = 0; r < rp; r++, k++) {
        sbox(&s[0], k, cs, true, &last);
        sparse(s, c->w_hat + r * t, c->v_rest + r * (t - 1), t);
    }
    for (unsigned r = 0; r + 1 < half; r++, k += t) {
        for (unsigned i = 0; i < t; i++) sbox(&s[i], &k[i], cs, true, &last);
        mat(s, c->mds, t);
    }
    for (unsigned i = 0; i < t; i++) sbox(&s[i], NULL, cs, true, &last);
    mat(s, c->mds, t);
    if (cs) {
        /* ensure_allocated(digest) */
        out->var = cz_cs_alloc(cs, &s[1]), out->val = s[1];
        cz_cs_enforce(cs, NULL, NULL, NULL);
    }
}
