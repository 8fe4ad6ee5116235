/* neptune 11's legacy Poseidon circuit (circuit.rs: PoseidonCircuit::hash, quintic_s_box*,
 * square_sum, mul_sum, product_mds*), in its allocation and constraint order. An element is either
 * an allocated variable or a Num (a linear combination, possibly with a ONE term, plus its value);
 * MDS and sparse products only build Nums, s-boxes allocate. */
#include <string.h>

#include "cz_error.h"
#include "gadgets/poseidon_impl.h"

typedef struct {
    bool alloc;
    cz_var var; /* alloc */
    cz_lc lc;   /* Num (record mode only) */
    cz_fr val;
} elt;

#define MAXT 37

/* dst.lc += s * e (as Elt::scale then Num::add); dst.val += s * e.val. */
static void elt_add_scaled(cz_cs *cs, elt *dst, const elt *e, const cz_fr *s, bool vals) {
    if (vals) {
        cz_fr p;
        cz_fr_mul(&p, &e->val, s);
        cz_fr_add(&dst->val, &dst->val, &p);
    }
    if (!cz_cs_needs_lcs(cs)) return;
    if (e->alloc) cz_lc_add(cs, &dst->lc, e->var, s);
    else cz_lc_add_lc(cs, &dst->lc, &e->lc, s);
}

static void elt_free(cz_cs *cs, elt *e) { cz_lc_free(cs, &e->lc); }

static void enforce3(cz_cs *cs, cz_lc *a, cz_lc *b, cz_lc *c) {
    cz_cs_enforce(cs, a, b, c);
    cz_lc_free(cs, a), cz_lc_free(cs, b), cz_lc_free(cs, c);
}

/* Elt::ensure_allocated(enforce = true): a Num becomes v with (lc) * ONE = v. */
static cz_num ensure_allocated(cz_cs *cs, elt *e) {
    if (e->alloc) return (cz_num){e->var, e->val};
    cz_num v = cz_num_alloc(cs, &e->val);
    cz_lc b = CZ_LC_ZERO, c = CZ_LC_ZERO;
    cz_lc_add(cs, &b, CZ_CS_ONE, NULL);
    cz_lc_add(cs, &c, v.var, NULL);
    cz_cs_enforce(cs, &e->lc, &b, &c);
    cz_lc_free(cs, &b), cz_lc_free(cs, &c);
    return v;
}

/* square_sum: (x + k) * (x + k) = r. */
static cz_num square_sum(cz_cs *cs, const cz_fr *k, const cz_num *x) {
    cz_fr v;
    cz_fr_add(&v, &x->val, k);
    cz_fr_sqr(&v, &v);
    cz_num r = cz_num_alloc(cs, &v);
    cz_lc a = CZ_LC_ZERO, b = CZ_LC_ZERO, c = CZ_LC_ZERO;
    cz_lc_add(cs, &a, x->var, NULL), cz_lc_add(cs, &a, CZ_CS_ONE, k);
    cz_lc_add(cs, &b, x->var, NULL), cz_lc_add(cs, &b, CZ_CS_ONE, k);
    cz_lc_add(cs, &c, r.var, NULL);
    enforce3(cs, &a, &b, &c);
    return r;
}

/* AllocatedNum::square: x * x = r. */
static cz_num square(cz_cs *cs, const cz_num *x) {
    cz_fr v;
    cz_fr_sqr(&v, &x->val);
    cz_num r = cz_num_alloc(cs, &v);
    cz_lc a = CZ_LC_ZERO, b = CZ_LC_ZERO, c = CZ_LC_ZERO;
    cz_lc_add(cs, &a, x->var, NULL);
    cz_lc_add(cs, &b, x->var, NULL);
    cz_lc_add(cs, &c, r.var, NULL);
    enforce3(cs, &a, &b, &c);
    return r;
}

/* mul_sum(a, b, pre, post): r = a (b + pre) + post, (b + pre) * a = r - post. */
static cz_num mul_sum(cz_cs *cs, const cz_num *a, const cz_num *b, const cz_fr *pre, const cz_fr *post) {
    cz_fr v = b->val;
    if (pre) cz_fr_add(&v, &v, pre);
    cz_fr_mul(&v, &v, &a->val);
    if (post) cz_fr_add(&v, &v, post);
    cz_num r = cz_num_alloc(cs, &v);
    cz_lc la = CZ_LC_ZERO, lb = CZ_LC_ZERO, lc = CZ_LC_ZERO;
    cz_lc_add(cs, &la, b->var, NULL);
    if (pre) cz_lc_add(cs, &la, CZ_CS_ONE, pre);
    cz_lc_add(cs, &lb, a->var, NULL);
    cz_lc_add(cs, &lc, r.var, NULL);
    if (post) cz_lc_sub(cs, &lc, CZ_CS_ONE, post);
    enforce3(cs, &la, &lb, &lc);
    return r;
}

/* quintic_s_box: l = ensure_allocated(e); l2, l4, l5 = l4 * l + post. Frees e's LC. */
static void sbox(cz_cs *cs, elt *e, const cz_fr *post) {
    cz_num l = ensure_allocated(cs, e);
    cz_num l2 = square(cs, &l);
    cz_num l4 = square(cs, &l2);
    cz_num l5 = mul_sum(cs, &l4, &l, NULL, post);
    elt_free(cs, e);
    *e = (elt){true, l5.var, CZ_LC_ZERO, l5.val};
}

/* result_j = sum_i m[i][j] e_i for a full t x t matrix. */
static void product_matrix(cz_cs *cs, elt *e, const cz_fr *m, unsigned t, bool vals) {
    elt r[MAXT];
    for (unsigned j = 0; j < t; j++) {
        r[j] = (elt){false, {0}, CZ_LC_ZERO, CZ_FR_ZERO_V};
        for (unsigned i = 0; i < t; i++) elt_add_scaled(cs, &r[j], &e[i], &m[i * t + j], vals);
    }
    for (unsigned i = 0; i < t; i++) elt_free(cs, &e[i]);
    memcpy(e, r, t * sizeof(elt));
}

/* Sparse M'': result_0 = sum_i w_hat_i e_i; result_j = e_j + v_rest_{j-1} e_0. */
static void product_sparse(cz_cs *cs, elt *e, const cz_fr *w_hat, const cz_fr *v_rest, unsigned t, bool vals) {
    elt r0 = {false, {0}, CZ_LC_ZERO, CZ_FR_ZERO_V};
    for (unsigned i = 0; i < t; i++) elt_add_scaled(cs, &r0, &e[i], &w_hat[i], vals);
    for (unsigned j = 1; j < t; j++) {
        elt r = {false, {0}, CZ_LC_ZERO, CZ_FR_ZERO_V};
        elt_add_scaled(cs, &r, &e[j], &CZ_FR_ONE_V, vals);
        elt_add_scaled(cs, &r, &e[0], &v_rest[j - 1], vals);
        elt_free(cs, &e[j]);
        e[j] = r;
    }
    elt_free(cs, &e[0]);
    e[0] = r0;
}

int cz_poseidon_circuit_tag(cz_cs *cs, cz_num *out, const cz_num *in, unsigned arity, const cz_fr *tag) {
    const cz_poseidon_consts *c = cz_poseidon_constants(arity);
    if (!c) return cz_error(CZ_EINVAL, "poseidon circuit: arity %u not supported", arity);
    unsigned t = c->t, half = c->rf / 2, rp = c->rp;
    bool vals = cz_cs_needs_values(cs);
    if (vals && !cz_cs_needs_lcs(cs)) {
        /* witness mode: no linear combination is ever read, so run the native permutation and
         * write only the variables the circuit allocates (same order, same values, same count) */
        cz_fr s[MAXT];
        if (tag) s[0] = *tag;
        else s[0] = c->merkle_tag;
        for (unsigned i = 1; i < t; i++) s[i] = in[i - 1].val;
        cz_poseidon_permute_(c, s, cs, out);
        return cz_cs_status(cs);
    }
    elt e[MAXT];
    const cz_fr *k = c->crc;
    /* first full round: the tag's s-box is a constant (pre key, x^5, post key) */
    cz_fr tv;
    if (tag) tv = *tag;
    else cz_fr_set_u64(&tv, (1ull << arity) - 1);
    cz_fr x2;
    cz_fr_add(&tv, &tv, &k[0]);
    cz_fr_sqr(&x2, &tv), cz_fr_sqr(&x2, &x2), cz_fr_mul(&tv, &tv, &x2);
    cz_fr_add(&tv, &tv, &k[t]);
    e[0] = (elt){false, {0}, CZ_LC_ZERO, tv};
    cz_lc_add(cs, &e[0].lc, CZ_CS_ONE, &tv);
    for (unsigned i = 1; i < t; i++) {
        cz_num x = in[i - 1];
        if (!vals) x.val = CZ_FR_ZERO_V;
        cz_num l2 = square_sum(cs, &k[i], &x);
        cz_num l4 = square(cs, &l2);
        cz_num l5 = mul_sum(cs, &l4, &x, &k[i], &k[t + i]);
        e[i] = (elt){true, l5.var, CZ_LC_ZERO, l5.val};
    }
    k += 2 * t;
    unsigned round = 0;
    /* product_mds: pre-sparse matrix after round half-1, sparse ones in the partial rounds, M else */
#define PRODUCT()                                                                                  \
    do {                                                                                           \
        if (round == half - 1) product_matrix(cs, e, c->pre_sparse, t, vals);                     \
        else if (round > half - 1 && round < half + rp) {                                          \
            unsigned ix = round - half;                                                            \
            product_sparse(cs, e, c->w_hat + ix * t, c->v_rest + ix * (t - 1), t, vals);           \
        } else product_matrix(cs, e, c->mds, t, vals);                                             \
        round++;                                                                                   \
    } while (0)
    PRODUCT();
    for (unsigned r = 1; r < half; r++) {
        for (unsigned i = 0; i < t; i++) sbox(cs, &e[i], &k[i]);
        k += t;
        PRODUCT();
    }
    for (unsigned r = 0; r < rp; r++) {
        sbox(cs, &e[0], k);
        k += 1;
        PRODUCT();
    }
    for (unsigned r = 0; r + 1 < half; r++) {
        for (unsigned i = 0; i < t; i++) sbox(cs, &e[i], &k[i]);
        k += t;
        PRODUCT();
    }
    for (unsigned i = 0; i < t; i++) sbox(cs, &e[i], NULL);
    PRODUCT();
#undef PRODUCT
    *out = ensure_allocated(cs, &e[1]);
    for (unsigned i = 0; i < t; i++) elt_free(cs, &e[i]);
    return cz_cs_status(cs);
}
