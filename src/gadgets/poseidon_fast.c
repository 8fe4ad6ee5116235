/* The fast Poseidon permutation: neptune's optimised static form (compressed round keys, one
 * pre-sparse matrix, sparse matrices in the partial rounds, x^5 in 3 multiplications, the default
 * tag kept in Montgomery form). The same routine fills the gadget's witness (values only), so the
 * gadget and the hash cannot drift apart. */
#include "gadgets/poseidon_impl.h"

/* The dot product sum_k a[k sa] * b[k sb] over n terms. (Lazy reduction was tried and lost on this
 * EPYC: summing unreduced 512-bit products in C with one Montgomery reduction per row, and summing
 * the reduced products as plain integers with one final reduction, were both slower than the ADX
 * assembly multiplication and modular addition per term.) */
static inline void dot(cz_fr *r, const cz_fr *a, size_t sa, const cz_fr *b, size_t sb, unsigned n) {
    cz_fr acc, p;
    cz_fr_mul(&acc, &a[0], &b[0]);
    for (unsigned e = 1; e < n; e++) cz_fr_mul(&p, &a[e * sa], &b[e * sb]), cz_fr_add(&acc, &acc, &p);
    *r = acc;
}

/* out_j = sum_i s_i m[i][j] for a full t x t matrix. */
static inline void mat(cz_fr *s, const cz_fr *m, unsigned t) {
    cz_fr r[37];
    for (unsigned j = 0; j < t; j++) dot(&r[j], s, 1, m + j, t, t);
    for (unsigned j = 0; j < t; j++) s[j] = r[j];
}

/* Sparse M'': s_0' = sum_i w_i s_i, s_j' = s_j + v_{j-1} s_0. */
static inline void sparse(cz_fr *s, const cz_fr *w, const cz_fr *v, unsigned t) {
    cz_fr r0, p;
    dot(&r0, w, 1, s, 1, t);
    for (unsigned j = 1; j < t; j++) cz_fr_mul(&p, &v[j - 1], &s[0]), cz_fr_add(&s[j], &s[j], &p);
    s[0] = r0;
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
