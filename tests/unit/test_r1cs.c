/* Constraint-system builder, CSR matrices, densities, a/b/c evaluation and the satisfaction check.
 * Oracles: a hand-checked circuit (matrices and densities written out below), and random circuits
 * whose raw, unmerged terms are kept by the test and recomputed naively (dense rows, plain dot
 * products with a multiplication for every term). */
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "r1cs/cs.h"
#include "r1cs/csr_build.h"
#include "r1cs/csr_dict.h"
#include "r1cs/r1cs.h"
#include "testutil.h"

static cz_fr fr_u64(uint64_t v) {
    cz_fr r;
    cz_fr_set_u64(&r, v);
    return r;
}

static cz_fr fr_neg_u64(uint64_t v) {
    cz_fr r = fr_u64(v);
    cz_fr_neg(&r, &r);
    return r;
}

/* ---------------------------------------------------------------- hand-checked circuit */

typedef struct { cz_fr x, y, a, b, bit, prod, z, u; } hand_vals;

static void hand_values(hand_vals *v, cz_rng *rng) {
    cz_fr t, three = fr_u64(3), two = fr_u64(2);
    cz_fr_random(&v->x, rng);
    cz_fr_random(&v->a, rng);
    cz_fr_random(&v->b, rng);
    cz_fr_random(&v->u, rng);
    v->bit = (cz_rng_next(rng) & 1) ? CZ_FR_ONE_V : CZ_FR_ZERO_V;
    cz_fr_mul(&v->prod, &v->a, &v->b);
    cz_fr_mul(&t, &three, &v->x);
    cz_fr_add(&v->y, &v->prod, &t);
    cz_fr_mul(&t, &two, &v->a);
    cz_fr_add(&t, &t, &v->b);
    cz_fr_add(&v->z, &v->x, &v->y);
    cz_fr_mul(&v->z, &v->z, &t);
}

/* The gadget, written once for every mode: values are passed only when the cs wants them, LCs are
 * built only when it wants those. Variables: inputs ONE, x, y; aux a, b, bit, prod, z, u.
 *   c0: a * b = prod
 *   c1: (ONE - bit) * bit = 0
 *   c2: (prod + 3x + u - u) * ONE = y        (u cancels: not in A's density)
 *   c3: (b + a + a) * (x + y) = z            (unsorted, repeated a merges to 2a)
 *   c4: 0 * 0 = 5u - 5u                      (an empty row) */
static void hand_circuit(cz_cs *cs, const hand_vals *v) {
    bool val = cz_cs_needs_values(cs);
    cz_cs_push_namespace(cs, "hand");
    cz_var x = cz_cs_alloc_input(cs, val ? &v->x : NULL);
    cz_var a = cz_cs_alloc(cs, val ? &v->a : NULL);
    cz_var b = cz_cs_alloc(cs, val ? &v->b : NULL);
    cz_var y = cz_cs_alloc_input(cs, val ? &v->y : NULL);
    cz_var bit = cz_cs_alloc(cs, val ? &v->bit : NULL);
    cz_var prod = cz_cs_alloc(cs, val ? &v->prod : NULL);
    cz_var z = cz_cs_alloc(cs, val ? &v->z : NULL);
    cz_var u = cz_cs_alloc(cs, val ? &v->u : NULL);
    cz_cs_pop_namespace(cs);
    cz_lc la = CZ_LC_ZERO, lb = CZ_LC_ZERO, lc = CZ_LC_ZERO;
    cz_fr three = fr_u64(3), five = fr_u64(5);
    if (cz_cs_needs_lcs(cs)) {
        cz_lc_add(cs, &la, a, NULL);
        cz_lc_add(cs, &lb, b, NULL);
        cz_lc_add(cs, &lc, prod, NULL);
    }
    cz_cs_enforce(cs, &la, &lb, &lc);
    /* From here on the LC calls run unguarded: in witness/count mode they must be no-ops. */
    cz_lc_clear(&la), cz_lc_clear(&lb), cz_lc_clear(&lc);
    cz_lc_add(cs, &la, CZ_CS_ONE, NULL);
    cz_lc_sub(cs, &la, bit, NULL);
    cz_lc_add(cs, &lb, bit, NULL);
    cz_cs_enforce(cs, &la, &lb, &lc);
    cz_lc_clear(&la), cz_lc_clear(&lb);
    cz_lc_add(cs, &la, prod, NULL);
    cz_lc_add(cs, &la, x, &three);
    cz_lc_add(cs, &la, u, NULL);
    cz_lc_sub(cs, &la, u, NULL);
    cz_lc_add(cs, &lb, CZ_CS_ONE, NULL);
    cz_lc_add(cs, &lc, y, NULL);
    cz_cs_enforce(cs, &la, &lb, &lc);
    cz_lc_clear(&la), cz_lc_clear(&lb), cz_lc_clear(&lc);
    cz_lc_add(cs, &la, b, NULL);
    cz_lc_add(cs, &la, a, NULL);
    cz_lc_add(cs, &la, a, NULL);
    cz_lc_add(cs, &lb, x, NULL);
    cz_lc_add(cs, &lb, y, NULL);
    cz_lc_add(cs, &lc, z, NULL);
    cz_cs_enforce(cs, &la, &lb, &lc);
    cz_lc_clear(&la), cz_lc_clear(&lb), cz_lc_clear(&lc);
    cz_lc_add(cs, &lc, u, &five);
    cz_lc_sub(cs, &lc, u, &five);
    cz_cs_enforce(cs, NULL, &lb, &lc); /* NULL is the zero LC */
    cz_lc_free(cs, &la), cz_lc_free(cs, &lb), cz_lc_free(cs, &lc);
}

typedef struct { uint32_t col; int64_t coeff; } ent;

/* Row r of m must be exactly the listed entries (small signed coefficients). */
static bool row_is(const cz_csr *m, uint64_t r, const ent *e, size_t n) {
    if (m->row_ptr[r + 1] - m->row_ptr[r] != n) return false;
    for (size_t i = 0; i < n; i++) {
        uint64_t k = m->row_ptr[r] + i;
        cz_fr want = e[i].coeff < 0 ? fr_neg_u64((uint64_t)-e[i].coeff) : fr_u64((uint64_t)e[i].coeff);
        if (m->col[k] != e[i].col || !cz_fr_equal(&m->val[k], &want)) return false;
    }
    return true;
}
#define ROW(m, r, ...)                                            \
    do {                                                          \
        static const ent e_[] = {__VA_ARGS__};                    \
        CHECK_MSG(row_is(m, r, e_, sizeof e_ / sizeof e_[0]), "%s row %d", #m, r); \
    } while (0)
#define EMPTY(m, r) CHECK_MSG((m)->row_ptr[(r) + 1] == (m)->row_ptr[r], "%s row %d not empty", #m, r)

static void test_hand(cz_rng *rng) {
    hand_vals v;
    hand_values(&v, rng);
    const unsigned modes[4] = {CZ_CS_RECORD, CZ_CS_WITNESS, CZ_CS_COUNT, CZ_CS_RECORD | CZ_CS_WITNESS};
    cz_r1cs rec;
    cz_fr *in = NULL, *aux = NULL;
    uint64_t nin = 0, naux = 0;
    for (int m = 0; m < 4; m++) {
        cz_cs *cs;
        CHECK(cz_cs_new(&cs, modes[m]) == 0);
        hand_circuit(cs, &v);
        CHECK(cz_cs_finalize(cs) == 0);
        CHECK_MSG(cz_cs_num_inputs(cs) == 3 && cz_cs_num_aux(cs) == 6 && cz_cs_num_constraints(cs) == 5,
                  "mode %u: %llu inputs %llu aux %llu constraints", modes[m],
                  (unsigned long long)cz_cs_num_inputs(cs), (unsigned long long)cz_cs_num_aux(cs),
                  (unsigned long long)cz_cs_num_constraints(cs));
        if (modes[m] == CZ_CS_RECORD) CHECK(cz_cs_take_r1cs(cs, &rec) == 0);
        if (modes[m] == CZ_CS_WITNESS) CHECK(cz_cs_take_witness(cs, &in, &nin, &aux, &naux) == 0);
        if (!(modes[m] & CZ_CS_WITNESS)) {
            cz_fr *i2, *a2;
            uint64_t n1, n2;
            CHECK(cz_cs_take_witness(cs, &i2, &n1, &a2, &n2) != 0);
        }
        if (!(modes[m] & CZ_CS_RECORD)) {
            cz_r1cs none;
            CHECK(cz_cs_take_r1cs(cs, &none) != 0);
        }
        cz_cs_free(cs);
    }
    /* Columns: ONE 0, x 1, y 2 | a 3, b 4, bit 5, prod 6, z 7, u 8. */
    CHECK(rec.num_inputs == 3 && rec.num_aux == 6 && rec.num_constraints == 5 && rec.num_rows == 8);
    CHECK(rec.a.rows == 8 && rec.b.rows == 8 && rec.c.rows == 8);
    ROW(&rec.a, 0, {3, 1});
    ROW(&rec.a, 1, {0, 1}, {5, -1});
    ROW(&rec.a, 2, {1, 3}, {6, 1});
    ROW(&rec.a, 3, {3, 2}, {4, 1});
    EMPTY(&rec.a, 4);
    ROW(&rec.a, 5, {0, 1});
    ROW(&rec.a, 6, {1, 1});
    ROW(&rec.a, 7, {2, 1});
    ROW(&rec.b, 0, {4, 1});
    ROW(&rec.b, 1, {5, 1});
    ROW(&rec.b, 2, {0, 1});
    ROW(&rec.b, 3, {1, 1}, {2, 1});
    for (int r = 4; r < 8; r++) EMPTY(&rec.b, r);
    ROW(&rec.c, 0, {6, 1});
    EMPTY(&rec.c, 1);
    ROW(&rec.c, 2, {2, 1});
    ROW(&rec.c, 3, {7, 1});
    for (int r = 4; r < 8; r++) EMPTY(&rec.c, r);
    CHECK(cz_r1cs_nnz(&rec.a) == 10 && cz_r1cs_nnz(&rec.b) == 5 && cz_r1cs_nnz(&rec.c) == 3);
    /* aux a, b, bit, prod are in A (u cancelled, z only in C); inputs ONE, x, y in B; aux b, bit in B. */
    CHECK(rec.a_aux_density[0] == 0xf && rec.a_aux_popcount == 4);
    CHECK(rec.b_input_density[0] == 0x7 && rec.b_input_popcount == 3);
    CHECK(rec.b_aux_density[0] == 0x6 && rec.b_aux_popcount == 2);
    CHECK(cz_density_get(rec.b_aux_density, 1) && !cz_density_get(rec.b_aux_density, 0));

    /* Witness values in allocation order. */
    CHECK(nin == 3 && naux == 6);
    if (nin == 3 && naux == 6) {
        CHECK(cz_fr_equal(&in[0], &CZ_FR_ONE_V) && cz_fr_equal(&in[1], &v.x) && cz_fr_equal(&in[2], &v.y));
        const cz_fr *want[6] = {&v.a, &v.b, &v.bit, &v.prod, &v.z, &v.u};
        for (int i = 0; i < 6; i++) CHECK(cz_fr_equal(&aux[i], want[i]));
        uint64_t bad = 99;
        CHECK(cz_r1cs_check(&bad, &rec, in, aux, 1) == 0);
        /* The corrupted z breaks c3 only; a corrupted bit (2) breaks c1 first. */
        cz_fr keep = aux[4];
        cz_fr_add(&aux[4], &aux[4], &CZ_FR_ONE_V);
        CHECK(cz_r1cs_check(&bad, &rec, in, aux, 2) == CZ_EVERIFY && bad == 3);
        aux[4] = keep;
        aux[2] = fr_u64(2);
        CHECK(cz_r1cs_check(&bad, &rec, in, aux, 2) == CZ_EVERIFY && bad == 1);
        aux[2] = v.bit;
        /* u is free (it always cancels): any value still satisfies. */
        cz_fr_random(&aux[5], rng);
        CHECK(cz_r1cs_check(&bad, &rec, in, aux, 2) == 0);
        in[0] = fr_u64(2);
        CHECK(cz_r1cs_check(&bad, &rec, in, aux, 1) == CZ_EINVAL);
    }
    free(in);
    free(aux);
    cz_r1cs_free(&rec);
}

/* ---------------------------------------------------------------- random circuits */

#define RC_MAX_VARS 96
#define RC_MAX_ROWS 160
#define RC_MAX_TERMS 14

typedef struct {
    uint32_t nterms[RC_MAX_ROWS][3];
    cz_lc_term terms[RC_MAX_ROWS][3][RC_MAX_TERMS]; /* raw, unmerged, as the gadget added them */
    cz_fr in_vals[RC_MAX_VARS], aux_vals[RC_MAX_VARS];
    uint32_t nin, naux, nrows;
} raw_circuit;

static cz_fr random_coeff(cz_rng *rng) {
    switch (cz_rng_next(rng) % 6) {
    case 0: return CZ_FR_ONE_V;
    case 1: return fr_neg_u64(1);
    case 2: return CZ_FR_ZERO_V;
    case 3: return fr_u64(2);
    default: {
        cz_fr c;
        cz_fr_random(&c, rng);
        return c;
    }
    }
}

/* Builds a random circuit in cs; the rng stream (structure and values) does not depend on the mode,
 * so the same seed gives the same circuit in every mode. raw may be NULL. */
static void random_circuit(cz_cs *cs, cz_rng *rng, raw_circuit *raw) {
    uint32_t nin = 1, naux = 0, nrows = 0;
    cz_fr in_vals[RC_MAX_VARS], aux_vals[RC_MAX_VARS];
    in_vals[0] = CZ_FR_ONE_V;
    uint32_t steps = (uint32_t)(cz_rng_next(rng) % 200);
    for (uint32_t s = 0; s < steps; s++) {
        uint64_t what = cz_rng_next(rng) % 10;
        cz_fr val = random_coeff(rng);
        const cz_fr *pv = cz_cs_needs_values(cs) ? &val : NULL;
        if (what == 0 && nin < RC_MAX_VARS) {
            in_vals[nin++] = val;
            cz_cs_alloc_input(cs, pv);
        } else if (what < 5 && naux < RC_MAX_VARS) {
            aux_vals[naux++] = val;
            cz_cs_alloc(cs, pv);
        } else if (nrows < RC_MAX_ROWS - RC_MAX_VARS) {
            cz_lc lcs[3] = {CZ_LC_ZERO, CZ_LC_ZERO, CZ_LC_ZERO};
            for (int m = 0; m < 3; m++) {
                uint32_t k = (uint32_t)(cz_rng_next(rng) % 8), n = 0;
                cz_lc_term t[RC_MAX_TERMS];
                for (uint32_t i = 0; i < k; i++) {
                    uint32_t pick = (uint32_t)(cz_rng_next(rng) % (nin + naux));
                    cz_var v = pick < nin ? cz_var_input(pick) : cz_var_aux(pick - nin);
                    cz_fr c = random_coeff(rng);
                    t[n++] = (cz_lc_term){c, v};
                    cz_lc_add(cs, &lcs[m], v, &c);
                    if (cz_rng_next(rng) % 4 == 0) { /* a cancelling pair: merges to nothing */
                        t[n].var = v;
                        cz_fr_neg(&t[n].coeff, &c);
                        cz_lc_sub(cs, &lcs[m], v, &c);
                        n++;
                    }
                }
                if (raw) {
                    raw->nterms[nrows][m] = n;
                    memcpy(raw->terms[nrows][m], t, n * sizeof *t);
                }
            }
            cz_cs_enforce(cs, &lcs[0], &lcs[1], &lcs[2]);
            for (int m = 0; m < 3; m++) cz_lc_free(cs, &lcs[m]);
            nrows++;
        }
    }
    if (raw) {
        raw->nin = nin;
        raw->naux = naux;
        raw->nrows = nrows;
        memcpy(raw->in_vals, in_vals, nin * sizeof *in_vals);
        memcpy(raw->aux_vals, aux_vals, naux * sizeof *aux_vals);
        /* bellperson's per-input rows, as the test expects finalize to add them. */
        for (uint32_t i = 0; i < nin; i++, nrows++) {
            raw->nterms[nrows][0] = 1;
            raw->terms[nrows][0][0] = (cz_lc_term){CZ_FR_ONE_V, cz_var_input(i)};
            raw->nterms[nrows][1] = raw->nterms[nrows][2] = 0;
        }
    }
}

static uint32_t raw_col(const raw_circuit *raw, cz_var v) {
    return cz_var_is_input(v) ? cz_var_index(v) : raw->nin + cz_var_index(v);
}

static void test_random_circuits(cz_rng *rng) {
    static raw_circuit raw;
    for (int iter = 0; iter < 150; iter++) {
        uint64_t seed = cz_rng_next(rng);
        cz_rng g;
        cz_r1cs r;
        cz_fr *in = NULL, *aux = NULL;
        uint64_t nin = 0, naux = 0, counts[3][3];
        const unsigned modes[3] = {CZ_CS_RECORD, CZ_CS_WITNESS, CZ_CS_COUNT};
        for (int m = 0; m < 3; m++) {
            cz_cs *cs;
            cz_rng_seed(&g, seed);
            CHECK(cz_cs_new(&cs, modes[m]) == 0);
            random_circuit(cs, &g, m == 0 ? &raw : NULL);
            CHECK_MSG(cz_cs_finalize(cs) == 0, "%s", cz_error_message());
            counts[m][0] = cz_cs_num_inputs(cs);
            counts[m][1] = cz_cs_num_aux(cs);
            counts[m][2] = cz_cs_num_constraints(cs);
            if (m == 0) CHECK(cz_cs_take_r1cs(cs, &r) == 0);
            if (m == 1) CHECK(cz_cs_take_witness(cs, &in, &nin, &aux, &naux) == 0);
            cz_cs_free(cs);
        }
        CHECK(memcmp(counts[0], counts[1], sizeof counts[0]) == 0 && memcmp(counts[0], counts[2], sizeof counts[0]) == 0);
        CHECK(counts[0][0] == raw.nin && counts[0][1] == raw.naux && counts[0][2] == raw.nrows);
        CHECK(r.num_rows == raw.nrows + raw.nin && nin == raw.nin && naux == raw.naux);
        CHECK(memcmp(in, raw.in_vals, nin * sizeof *in) == 0 && memcmp(aux, raw.aux_vals, naux * sizeof *aux) == 0);

        /* Naive matrices: dense rows summed from the raw terms; the CSR row must list exactly the
         * non-zero columns in increasing order with the same values. Densities from the dense rows. */
        uint32_t ncols = raw.nin + raw.naux;
        bool dense_a[RC_MAX_VARS * 2] = {0}, dense_b[RC_MAX_VARS * 2] = {0};
        bool ok_rows = true;
        const cz_csr *mats[3] = {&r.a, &r.b, &r.c};
        for (uint32_t row = 0; row < r.num_rows && ok_rows; row++) {
            for (int m = 0; m < 3; m++) {
                cz_fr d[RC_MAX_VARS * 2];
                memset(d, 0, sizeof d);
                for (uint32_t i = 0; i < raw.nterms[row][m]; i++) {
                    const cz_lc_term *t = &raw.terms[row][m][i];
                    cz_fr_add(&d[raw_col(&raw, t->var)], &d[raw_col(&raw, t->var)], &t->coeff);
                }
                uint64_t k = mats[m]->row_ptr[row], end = mats[m]->row_ptr[row + 1];
                for (uint32_t c = 0; c < ncols; c++) {
                    if (cz_fr_is_zero(&d[c])) continue;
                    if (m == 0) dense_a[c] = true;
                    if (m == 1) dense_b[c] = true;
                    if (k >= end || mats[m]->col[k] != c || !cz_fr_equal(&mats[m]->val[k], &d[c])) ok_rows = false;
                    k++;
                }
                if (k != end) ok_rows = false;
            }
        }
        CHECK_MSG(ok_rows, "seed %llu: CSR differs from the naive matrices", (unsigned long long)seed);
        uint64_t pa = 0, pbi = 0, pba = 0;
        bool ok_dens = true;
        for (uint32_t c = 0; c < ncols; c++) {
            if (c < raw.nin) {
                ok_dens &= cz_density_get(r.b_input_density, c) == dense_b[c];
                pbi += dense_b[c];
            } else {
                ok_dens &= cz_density_get(r.a_aux_density, c - raw.nin) == dense_a[c];
                ok_dens &= cz_density_get(r.b_aux_density, c - raw.nin) == dense_b[c];
                pa += dense_a[c];
                pba += dense_b[c];
            }
        }
        CHECK_MSG(ok_dens && pa == r.a_aux_popcount && pbi == r.b_input_popcount && pba == r.b_aux_popcount,
                  "seed %llu: densities differ from the naive recomputation", (unsigned long long)seed);

        /* a/b/c against naive dot products over the raw terms, with 1 and 2 threads; the buffers are
         * one longer than the rows and the extra entry must stay untouched. */
        cz_fr abc[3][RC_MAX_ROWS + 1], sentinel = fr_u64(12345);
        for (int nt = 1; nt <= 2; nt++) {
            for (int m = 0; m < 3; m++) abc[m][r.num_rows] = sentinel;
            cz_r1cs_eval(abc[0], abc[1], abc[2], &r, in, aux, nt);
            bool ok = true;
            for (uint32_t row = 0; row < r.num_rows; row++) {
                for (int m = 0; m < 3; m++) {
                    cz_fr acc = CZ_FR_ZERO_V, t;
                    for (uint32_t i = 0; i < raw.nterms[row][m]; i++) {
                        const cz_lc_term *tm = &raw.terms[row][m][i];
                        const cz_fr *x = cz_var_is_input(tm->var) ? &in[cz_var_index(tm->var)] : &aux[cz_var_index(tm->var)];
                        cz_fr_mul(&t, &tm->coeff, x);
                        cz_fr_add(&acc, &acc, &t);
                    }
                    ok &= cz_fr_equal(&acc, &abc[m][row]);
                }
            }
            for (int m = 0; m < 3; m++) ok &= cz_fr_equal(&abc[m][r.num_rows], &sentinel);
            CHECK_MSG(ok, "seed %llu, %d thread(s): a/b/c differ from naive dot products", (unsigned long long)seed, nt);
        }
        free(in);
        free(aux);
        cz_r1cs_free(&r);
    }
}

/* ---------------------------------------------------------------- eval on larger random matrices */

static void random_csr(cz_csr *m, uint64_t rows, uint64_t ncols, cz_rng *rng) {
    m->rows = rows;
    m->row_ptr = malloc((rows + 1) * sizeof *m->row_ptr);
    m->col = malloc(rows * 9 * sizeof *m->col);
    m->val = malloc(rows * 9 * sizeof *m->val);
    uint64_t k = 0;
    m->row_ptr[0] = 0;
    for (uint64_t r = 0; r < rows; r++) {
        uint64_t n = cz_rng_next(rng) % 9, c = cz_rng_next(rng) % 4;
        for (uint64_t i = 0; i < n && c < ncols; i++, c += 1 + cz_rng_next(rng) % (ncols / 4 + 1)) {
            m->col[k] = (uint32_t)c;
            m->val[k] = random_coeff(rng);
            if (cz_fr_is_zero(&m->val[k])) m->val[k] = fr_u64(7);
            k++;
        }
        m->row_ptr[r + 1] = k;
    }
}

static int fr_cmp(const void *x, const void *y) { return memcmp(x, y, sizeof(cz_fr)); }

static void csr_copy(cz_csr *d, const cz_csr *m) {
    const uint64_t nnz = cz_r1cs_nnz(m);
    memset(d, 0, sizeof *d);
    d->rows = m->rows;
    d->row_ptr = malloc((m->rows + 1) * sizeof *d->row_ptr);
    d->col = malloc((nnz + 1) * sizeof *d->col);
    d->val = malloc((nnz + 1) * sizeof *d->val);
    memcpy(d->row_ptr, m->row_ptr, (m->rows + 1) * sizeof *d->row_ptr);
    memcpy(d->col, m->col, nnz * sizeof *d->col);
    memcpy(d->val, m->val, nnz * sizeof *d->val);
}

/* cz_r1cs_code on a copy of r (values, w its witness, abc what r evaluates to): every term keeps its value, the
 * products and the check are the same, the host bytes drop to 8 a term plus the distinct values, and the GPU
 * upload's dictionaries (cz_csr_dict_coefs, cz_csr_dict_borrow) are the values' coding. */
static void test_coded(const cz_r1cs *r, const cz_fr *w, cz_fr *const abc[3], cz_rng *rng) {
    cz_r1cs q = *r;
    csr_copy(&q.a, &r->a), csr_copy(&q.b, &r->b), csr_copy(&q.c, &r->c);
    q.a_aux_density = q.b_input_density = q.b_aux_density = NULL;
    const uint64_t before = cz_r1cs_host_bytes(&q);
    const cz_r1cs_shape sh = cz_r1cs_shape_of(r);
    CHECK(before == cz_r1cs_shape_bytes(&sh));
    CHECK(cz_r1cs_code(&q, 1 + (int)(cz_rng_next(rng) % 4)) == 0);
    const cz_csr *orig[3] = {&r->a, &r->b, &r->c}, *cod[3] = {&q.a, &q.b, &q.c};
    uint64_t want = before;
    for (int m = 0; m < 3; m++) {
        const uint64_t nnz = cz_r1cs_nnz(orig[m]);
        CHECK_MSG(cod[m]->coef && !cod[m]->val && cod[m]->ncoeffs > 100, "matrix %d not coded", m);
        bool same = true;
        for (uint64_t k = 0; k < nnz && same; k++)
            same = cod[m]->coef[k] < cod[m]->ncoeffs && cz_fr_equal(cz_csr_coeff(cod[m], k), &orig[m]->val[k]) &&
                   cz_fr_equal(cz_csr_coeff(orig[m], k), &orig[m]->val[k]);
        CHECK_MSG(same, "matrix %d: a coded coefficient differs from its value", m);
        want = want - nnz * 28 + (uint64_t)cod[m]->ncoeffs * 32;
        /* the values' coding, copied from a coded matrix, and borrowed without a copy */
        cz_csr_dict d, c, b;
        CHECK(cz_csr_dict_coefs(&d, orig[m], 2, 1000) == 0 && cz_csr_dict_coefs(&c, cod[m], 2, 1000) == 0);
        CHECK(d.ncoeffs == cod[m]->ncoeffs && c.ncoeffs == d.ncoeffs && c.coef != cod[m]->coef &&
              memcmp(d.coef, cod[m]->coef, nnz * 4) == 0 && memcmp(c.coef, d.coef, nnz * 4) == 0 &&
              memcmp(d.coeffs, cod[m]->coeffs, d.ncoeffs * sizeof(cz_fr)) == 0 &&
              memcmp(c.coeffs, d.coeffs, d.ncoeffs * sizeof(cz_fr)) == 0);
        CHECK(cz_csr_dict_borrow(&b, cod[m]) == 0 && b.borrowed && b.coef == cod[m]->coef &&
              b.coeffs == cod[m]->coeffs && b.ncoeffs == cod[m]->ncoeffs && !b.row_ptr);
        cz_csr_dict_free(&b); /* leaves the matrix's coding: it is read below */
        CHECK(cz_csr_dict_borrow(&b, orig[m]) == CZ_EINVAL);
        cz_csr_dict_free(&d);
        cz_csr_dict_free(&c);
    }
    CHECK_MSG(cz_r1cs_host_bytes(&q) == want && want < before, "coded host bytes %llu, want %llu (of %llu)",
              (unsigned long long)cz_r1cs_host_bytes(&q), (unsigned long long)want, (unsigned long long)before);
    CHECK(cz_r1cs_code(&q, 2) == 0 && cz_r1cs_host_bytes(&q) == want); /* coded again: nothing to do */
    cz_fr *o[3];
    for (int m = 0; m < 3; m++) o[m] = malloc(r->num_rows * sizeof(cz_fr));
    for (int nt = 1; nt <= 2; nt++) {
        cz_r1cs_eval(o[0], o[1], o[2], &q, w, w + r->num_inputs, nt);
        bool eq = true;
        for (int m = 0; m < 3; m++) eq &= memcmp(o[m], abc[m], r->num_rows * sizeof(cz_fr)) == 0;
        CHECK_MSG(eq, "coded R1CS evaluates differently (%d thread(s))", nt);
    }
    uint64_t bad1 = 0, bad2 = 0;
    CHECK(cz_r1cs_check(&bad1, r, w, w + r->num_inputs, 2) == cz_r1cs_check(&bad2, &q, w, w + r->num_inputs, 1) &&
          bad1 == bad2);
    for (int m = 0; m < 3; m++) free(o[m]);
    cz_r1cs_free(&q);

    /* a matrix without 1 among its coefficients (every term multiplied), and an empty one (left as it is) */
    cz_r1cs s;
    memset(&s, 0, sizeof s);
    s.num_inputs = 1, s.num_aux = 3, s.num_rows = 3;
    uint64_t rp[4] = {0, 2, 3, 4}, rp0[4] = {0, 0, 0, 0};
    uint32_t col[4] = {0, 2, 1, 3};
    cz_fr val[4] = {fr_u64(2), fr_u64(7), fr_u64(2), fr_neg_u64(1)};
    s.a = (cz_csr){3, malloc(sizeof rp), malloc(sizeof col), malloc(sizeof val), NULL, NULL, 0};
    memcpy(s.a.row_ptr, rp, sizeof rp), memcpy(s.a.col, col, sizeof col), memcpy(s.a.val, val, sizeof val);
    s.b = (cz_csr){3, malloc(sizeof rp0), NULL, NULL, NULL, NULL, 0};
    memcpy(s.b.row_ptr, rp0, sizeof rp0);
    s.c = (cz_csr){3, malloc(sizeof rp0), NULL, NULL, NULL, NULL, 0};
    memcpy(s.c.row_ptr, rp0, sizeof rp0);
    cz_fr x[4], y[3], z[3], t[3];
    x[0] = CZ_FR_ONE_V;
    for (int i = 1; i < 4; i++) cz_fr_random(&x[i], rng);
    cz_csr_mul_vec(y, &s.a, 1, x, x + 1, 1);
    CHECK(cz_r1cs_code(&s, 1) == 0 && s.a.coef && s.a.ncoeffs == 3 && !s.b.coef && !s.c.coef);
    cz_csr_mul_vec(z, &s.a, 1, x, x + 1, 2);
    cz_fr_mul(&t[0], &val[0], &x[0]), cz_fr_mul(&t[2], &val[1], &x[2]), cz_fr_add(&t[0], &t[0], &t[2]);
    cz_fr_mul(&t[1], &val[2], &x[1]);
    cz_fr_mul(&t[2], &val[3], &x[3]);
    CHECK_MSG(memcmp(y, z, sizeof y) == 0 && memcmp(y, t, sizeof t) == 0, "coded matrix without 1: wrong products");
    cz_r1cs_free(&s);
}

static void test_eval_large(cz_rng *rng) {
    cz_r1cs r;
    memset(&r, 0, sizeof r);
    r.num_inputs = 1 + cz_rng_next(rng) % 20;
    r.num_aux = 1000 + cz_rng_next(rng) % 3000;
    r.num_rows = 20000 + cz_rng_next(rng) % 10000;
    uint64_t nc = r.num_inputs + r.num_aux;
    random_csr(&r.a, r.num_rows, nc, rng);
    random_csr(&r.b, r.num_rows, nc, rng);
    random_csr(&r.c, r.num_rows, nc, rng);
    cz_fr *w = malloc(nc * sizeof *w), *out[2][3];
    for (uint64_t i = 0; i < nc; i++) cz_fr_random(&w[i], rng);
    w[0] = CZ_FR_ONE_V;
    for (int t = 0; t < 2; t++)
        for (int m = 0; m < 3; m++) out[t][m] = malloc(r.num_rows * sizeof(cz_fr));
    cz_r1cs_eval(out[0][0], out[0][1], out[0][2], &r, w, w + r.num_inputs, 1);
    cz_r1cs_eval(out[1][0], out[1][1], out[1][2], &r, w, w + r.num_inputs, 2);
    const cz_csr *mats[3] = {&r.a, &r.b, &r.c};
    bool ok = true;
    for (int m = 0; m < 3; m++) {
        for (uint64_t row = 0; row < r.num_rows; row++) {
            cz_fr acc = CZ_FR_ZERO_V, t;
            for (uint64_t k = mats[m]->row_ptr[row]; k < mats[m]->row_ptr[row + 1]; k++) {
                cz_fr_mul(&t, &mats[m]->val[k], &w[mats[m]->col[k]]);
                cz_fr_add(&acc, &acc, &t);
            }
            ok &= cz_fr_equal(&acc, &out[0][m][row]) && cz_fr_equal(&acc, &out[1][m][row]);
        }
    }
    CHECK_MSG(ok, "eval on %llu random rows differs from naive dot products", (unsigned long long)r.num_rows);

    /* The dictionary form: same structure, every coefficient maps back, the table has no duplicate,
     * and its product equals the plain CSR's. */
    for (int m = 0; m < 3; m++) {
        cz_csr_dict d;
        CHECK(cz_csr_dict_from_csr(&d, mats[m]) == 0);
        uint64_t nnz = cz_r1cs_nnz(mats[m]);
        bool same = d.rows == mats[m]->rows && memcmp(d.row_ptr, mats[m]->row_ptr, (d.rows + 1) * 8) == 0 &&
                    memcmp(d.col, mats[m]->col, nnz * 4) == 0;
        for (uint64_t k = 0; k < nnz && same; k++)
            same = d.coef[k] < d.ncoeffs && cz_fr_equal(&d.coeffs[d.coef[k]], &mats[m]->val[k]);
        CHECK(same);
        cz_fr *sorted = malloc((d.ncoeffs + 1) * sizeof *sorted);
        memcpy(sorted, d.coeffs, d.ncoeffs * sizeof *sorted);
        qsort(sorted, d.ncoeffs, sizeof *sorted, fr_cmp);
        bool distinct = true;
        for (uint32_t i = 1; i < d.ncoeffs; i++) distinct &= !cz_fr_equal(&sorted[i - 1], &sorted[i]);
        CHECK(distinct && d.ncoeffs > 100);
        free(sorted);
        /* the parallel coding (slices merged in order) is the one-thread coding exactly, whatever the slicing */
        for (int pass = 0; pass < 2; pass++) {
            cz_csr_dict p1, pn;
            const uint64_t slice = pass ? 1 + cz_rng_next(rng) % 5000 : 1;
            CHECK(cz_csr_dict_from_csr_par(&p1, mats[m], 1, 1) == 0);
            CHECK(cz_csr_dict_from_csr_par(&pn, mats[m], 2 + pass * 3, slice) == 0);
            CHECK_MSG(p1.ncoeffs == d.ncoeffs && pn.ncoeffs == d.ncoeffs &&
                          memcmp(p1.coeffs, d.coeffs, d.ncoeffs * sizeof *d.coeffs) == 0 &&
                          memcmp(pn.coeffs, d.coeffs, d.ncoeffs * sizeof *d.coeffs) == 0 &&
                          memcmp(p1.coef, d.coef, nnz * 4) == 0 && memcmp(pn.coef, d.coef, nnz * 4) == 0,
                      "parallel dictionary coding (matrix %d, slices of >= %llu) differs from the one-thread one", m,
                      (unsigned long long)slice);
            cz_csr_dict_free(&p1);
            cz_csr_dict_free(&pn);
        }
        { /* the coding alone (the GPU upload's): the same coef and coeffs, no copy of the structure */
            cz_csr_dict c;
            CHECK(cz_csr_dict_coefs(&c, mats[m], 3, 1 + cz_rng_next(rng) % 3000) == 0);
            CHECK(c.rows == d.rows && !c.row_ptr && !c.col && c.ncoeffs == d.ncoeffs &&
                  memcmp(c.coeffs, d.coeffs, d.ncoeffs * sizeof *d.coeffs) == 0 && memcmp(c.coef, d.coef, nnz * 4) == 0);
            cz_csr_dict_free(&c);
        }
        cz_fr *o = malloc(r.num_rows * sizeof *o);
        cz_csr_dict_mul_vec(o, &d, r.num_inputs, w, w + r.num_inputs, 2);
        CHECK(memcmp(o, out[0][m], r.num_rows * sizeof *o) == 0);
        free(o);
        cz_csr_dict_free(&d);
    }

    test_coded(&r, w, out[0], rng);

    /* A satisfied system: C := a·b through one fresh aux column per row is not expressible here, so
     * instead check that the checker finds exactly the first row where a*b != c as computed naively. */
    uint64_t first = r.num_rows;
    for (uint64_t row = 0; row < r.num_rows && first == r.num_rows; row++) {
        cz_fr p;
        cz_fr_mul(&p, &out[0][0][row], &out[0][1][row]);
        if (!cz_fr_equal(&p, &out[0][2][row])) first = row;
    }
    uint64_t bad = 0;
    int rc = cz_r1cs_check(&bad, &r, w, w + r.num_inputs, 2);
    CHECK(first < r.num_rows ? (rc == CZ_EVERIFY && bad == first) : rc == 0);
    for (int t = 0; t < 2; t++)
        for (int m = 0; m < 3; m++) free(out[t][m]);
    free(w);
    cz_r1cs_free(&r);
}

/* A satisfiable random system built through the cs: constraint i is (random LC) * (random LC) =
 * t_i + c * v - extra, with t_i a fresh aux whose value makes it hold. Then every single-value
 * corruption of a t_i must be caught at row i (earlier rows do not use t_i). */
static void test_check_catches(cz_rng *rng) {
    cz_cs *cs;
    CHECK(cz_cs_new(&cs, CZ_CS_RECORD | CZ_CS_WITNESS) == 0);
    cz_var vars[64];
    int nv = 0;
    for (int i = 0; i < 16; i++) {
        cz_fr v;
        cz_fr_random(&v, rng);
        vars[nv++] = (i % 4 == 0) ? cz_cs_alloc_input(cs, &v) : cz_cs_alloc(cs, &v);
    }
    enum { NCON = 300 };
    cz_var tvars[NCON];
    for (int i = 0; i < NCON; i++) {
        cz_lc lc[3] = {CZ_LC_ZERO, CZ_LC_ZERO, CZ_LC_ZERO};
        cz_fr val[2] = {CZ_FR_ZERO_V, CZ_FR_ZERO_V}, t;
        for (int m = 0; m < 2; m++) {
            int k = 1 + (int)(cz_rng_next(rng) % 5);
            for (int j = 0; j < k; j++) {
                cz_var v = vars[cz_rng_next(rng) % (uint64_t)nv];
                cz_fr c = random_coeff(rng);
                cz_lc_add(cs, &lc[m], v, &c);
                cz_fr_mul(&t, &c, cz_cs_value(cs, v));
                cz_fr_add(&val[m], &val[m], &t);
            }
        }
        cz_fr prod, c = random_coeff(rng);
        cz_var extra = vars[cz_rng_next(rng) % (uint64_t)nv];
        cz_fr_mul(&prod, &val[0], &val[1]);
        cz_fr_mul(&t, &c, cz_cs_value(cs, extra));
        cz_fr_sub(&prod, &prod, &t);
        tvars[i] = cz_cs_alloc(cs, &prod);
        cz_lc_add(cs, &lc[2], tvars[i], NULL);
        cz_lc_add(cs, &lc[2], extra, &c);
        cz_cs_enforce(cs, &lc[0], &lc[1], &lc[2]);
        for (int m = 0; m < 3; m++) cz_lc_free(cs, &lc[m]);
    }
    CHECK(cz_cs_finalize(cs) == 0);
    cz_r1cs r;
    cz_fr *in, *aux;
    uint64_t nin, naux, bad = 0;
    CHECK(cz_cs_take_r1cs(cs, &r) == 0);
    CHECK(cz_cs_take_witness(cs, &in, &nin, &aux, &naux) == 0);
    cz_cs_free(cs);
    CHECK(cz_r1cs_check(&bad, &r, in, aux, 2) == 0);
    for (int trial = 0; trial < 20; trial++) {
        int i = (int)(cz_rng_next(rng) % NCON);
        uint32_t j = cz_var_index(tvars[i]);
        cz_fr keep = aux[j], d;
        cz_fr_random(&d, rng);
        if (cz_fr_is_zero(&d)) d = CZ_FR_ONE_V;
        cz_fr_add(&aux[j], &aux[j], &d);
        CHECK_MSG(cz_r1cs_check(&bad, &r, in, aux, 1 + trial % 2) == CZ_EVERIFY && bad == (uint64_t)i,
                  "corrupted t_%d reported at row %llu", i, (unsigned long long)bad);
        aux[j] = keep;
    }
    CHECK(cz_r1cs_check(&bad, &r, in, aux, 2) == 0);
    free(in);
    free(aux);
    cz_r1cs_free(&r);
}

/* ---------------------------------------------------------------- LC operations and errors */

static void test_lc_ops(cz_rng *rng) {
    cz_cs *cs;
    CHECK(cz_cs_new(&cs, CZ_CS_RECORD | CZ_CS_WITNESS) == 0);
    enum { N = 5000 };
    static cz_fr vals[N];
    cz_var v[N];
    for (int i = 0; i < N; i++) {
        cz_fr_random(&vals[i], rng);
        v[i] = cz_cs_alloc(cs, &vals[i]);
    }
    /* A 5000-term LC (beyond the slab-carved classes) built term by term, scaled copies, and the
     * evaluated row against the naive sum. */
    cz_lc big = CZ_LC_ZERO, sum = CZ_LC_ZERO, one = CZ_LC_ZERO;
    cz_fr want = CZ_FR_ZERO_V, s, t;
    cz_fr_random(&s, rng);
    for (int i = 0; i < N; i++) cz_lc_add(cs, &big, v[i], NULL);
    CHECK(big.n == N && big.cap >= N);
    cz_lc_add_lc(cs, &sum, &big, &s);  /* s * big */
    cz_lc cp = cz_lc_copy(cs, &big);
    cz_lc_sub_lc(cs, &sum, &cp, NULL); /* (s - 1) * big */
    cz_lc_add_lc(cs, &sum, &cp, NULL); /* s * big */
    cz_lc_free(cs, &cp);
    CHECK(cp.t == NULL && cp.n == 0);
    for (int i = 0; i < N; i++) {
        cz_fr_mul(&t, &s, &vals[i]);
        cz_fr_add(&want, &want, &t);
    }
    cz_lc_add(cs, &one, CZ_CS_ONE, NULL);
    cz_cs_enforce(cs, &sum, &one, &sum);
    /* Freed blocks are reused: a new 4-term LC after freeing one takes the same storage. */
    cz_lc x = CZ_LC_ZERO, y = CZ_LC_ZERO;
    cz_lc_add(cs, &x, v[0], NULL);
    cz_lc_term *xs = x.t;
    cz_lc_free(cs, &x);
    cz_lc_add(cs, &y, v[1], NULL);
    CHECK(y.t == xs);
    cz_lc_free(cs, &y);
    cz_lc_free(cs, &big);
    cz_lc_free(cs, &sum);
    cz_lc_free(cs, &one);
    CHECK(cz_cs_finalize(cs) == 0);
    cz_r1cs r;
    CHECK(cz_cs_take_r1cs(cs, &r) == 0);
    cz_fr *in, *aux;
    uint64_t nin, naux;
    CHECK(cz_cs_take_witness(cs, &in, &nin, &aux, &naux) == 0);
    cz_cs_free(cs);
    cz_fr a[2], b[2], c[2];
    cz_r1cs_eval(a, b, c, &r, in, aux, 2);
    CHECK(cz_fr_equal(&a[0], &want) && cz_fr_equal(&b[0], &CZ_FR_ONE_V) && cz_fr_equal(&c[0], &want));
    CHECK(cz_r1cs_nnz(&r.a) == N + 1 && r.a_aux_popcount == N && r.b_aux_popcount == 0 && r.b_input_popcount == 1);
    free(in);
    free(aux);
    cz_r1cs_free(&r);

    /* Witness and count modes: LC calls leave the LC empty and allocate nothing. */
    for (unsigned mode = CZ_CS_COUNT; mode <= CZ_CS_WITNESS; mode += CZ_CS_WITNESS) {
        CHECK(cz_cs_new(&cs, mode) == 0);
        cz_fr one_v = CZ_FR_ONE_V;
        cz_var q = cz_cs_alloc(cs, &one_v);
        cz_lc l = CZ_LC_ZERO, l2 = CZ_LC_ZERO;
        cz_lc_add(cs, &l, q, NULL);
        cz_lc_sub(cs, &l, q, &one_v);
        cz_lc_add_lc(cs, &l2, &l, NULL);
        CHECK(l.t == NULL && l.n == 0 && l2.t == NULL);
        cz_cs_enforce(cs, &l, &l, &l);
        CHECK(cz_cs_finalize(cs) == 0 && cz_cs_num_constraints(cs) == 1);
        CHECK(mode == CZ_CS_WITNESS ? cz_cs_value(cs, q) != NULL : cz_cs_value(cs, q) == NULL);
        cz_cs_free(cs);
    }
}

static void test_errors(void) {
    cz_cs *cs;
    CHECK(cz_cs_new(&cs, 7) == CZ_EINVAL && cs == NULL);
    /* A missing value in witness mode is sticky and reported by finalize. */
    CHECK(cz_cs_new(&cs, CZ_CS_WITNESS) == 0);
    cz_cs_alloc(cs, NULL);
    CHECK(cz_cs_status(cs) == CZ_EINVAL && cz_cs_finalize(cs) == CZ_EINVAL);
    cz_cs_free(cs);
    /* A variable that was never allocated. */
    CHECK(cz_cs_new(&cs, CZ_CS_RECORD) == 0);
    cz_lc l = CZ_LC_ZERO;
    cz_lc_add(cs, &l, cz_var_aux(3), NULL);
    cz_cs_enforce(cs, &l, &l, &l);
    CHECK(cz_cs_status(cs) == CZ_EINVAL && strstr(cz_error_message(), "never allocated") != NULL);
    cz_lc_free(cs, &l);
    cz_cs_free(cs);
    /* Unbalanced namespaces, a second finalize, alloc after finalize. */
    CHECK(cz_cs_new(&cs, CZ_CS_COUNT) == 0);
    cz_cs_push_namespace(cs, "open");
    CHECK(cz_cs_finalize(cs) == CZ_EINVAL);
    cz_cs_free(cs);
    CHECK(cz_cs_new(&cs, CZ_CS_RECORD) == 0);
    CHECK(cz_cs_finalize(cs) == 0 && cz_cs_finalize(cs) == CZ_EINVAL);
    cz_cs_alloc(cs, NULL);
    CHECK(cz_cs_status(cs) == CZ_EINVAL);
    cz_cs_free(cs);
    /* The empty circuit: only ONE, one input row. */
    CHECK(cz_cs_new(&cs, CZ_CS_RECORD) == 0);
    CHECK(cz_cs_finalize(cs) == 0);
    cz_r1cs r;
    CHECK(cz_cs_take_r1cs(cs, &r) == 0);
    CHECK(r.num_rows == 1 && r.num_aux == 0 && cz_r1cs_nnz(&r.a) == 1 && cz_r1cs_nnz(&r.b) == 0);
    CHECK(r.a_aux_popcount == 0 && r.b_input_popcount == 0);
    cz_fr one = CZ_FR_ONE_V;
    CHECK(cz_r1cs_check(NULL, &r, &one, NULL, 1) == 0);
    cz_r1cs_free(&r);
    cz_cs_free(cs);
    /* Witness mode with reserve: values land in place, no growth needed. */
    CHECK(cz_cs_new(&cs, CZ_CS_WITNESS) == 0);
    CHECK(cz_cs_reserve(cs, 4, 100000, 0) == 0);
    for (uint64_t i = 0; i < 100000; i++) {
        cz_fr x = fr_u64(i);
        cz_cs_alloc(cs, &x);
    }
    cz_fr *in, *aux;
    uint64_t nin, naux;
    CHECK(cz_cs_take_witness(cs, &in, &nin, &aux, &naux) == 0 && naux == 100000);
    cz_fr x99 = fr_u64(99999);
    CHECK(cz_fr_equal(&aux[99999], &x99));
    cz_cs_alloc(cs, &x99);
    CHECK(cz_cs_status(cs) == CZ_EINVAL);
    free(in);
    free(aux);
    cz_cs_free(cs);
    /* Caller-owned value buffers: filled in place, overflow is a sticky CZ_ERANGE, never freed. */
    cz_fr bin[2], baux[3];
    CHECK(cz_cs_new(&cs, CZ_CS_WITNESS) == 0);
    CHECK(cz_cs_set_value_buffers(cs, bin, 2, baux, 3) == 0);
    CHECK(cz_cs_set_value_buffers(cs, bin, 2, baux, 3) == CZ_EINVAL);
    CHECK(cz_cs_reserve(cs, 10, 10, 10) == 0);
    for (uint64_t i = 0; i < 3; i++) {
        cz_fr x = fr_u64(i + 10);
        cz_cs_alloc(cs, &x);
    }
    cz_fr x = fr_u64(77);
    cz_cs_alloc_input(cs, &x);
    CHECK(cz_cs_status(cs) == 0 && cz_fr_equal(&bin[0], &CZ_FR_ONE_V) && cz_fr_equal(&bin[1], &x));
    x = fr_u64(12);
    CHECK(cz_fr_equal(&baux[2], &x));
    cz_cs_alloc(cs, &x);
    CHECK(cz_cs_status(cs) == CZ_ERANGE);
    cz_cs_free(cs);
    CHECK(cz_cs_new(&cs, CZ_CS_RECORD) == 0);
    CHECK(cz_cs_set_value_buffers(cs, bin, 2, baux, 3) == CZ_EINVAL);
    cz_cs_free(cs);
}

/* cz_lc_terms_normalize at every sorting path (insertion up to 32 terms, merges above, a heap buffer past 256):
 * random term lists with repeated ids (some summing to zero) against a naive oracle that sums each id's
 * coefficients over the whole list and keeps the non-zero sums in id order. */
static void test_normalize(cz_rng *rng) {
    static const size_t sizes[] = {0, 1, 2, 31, 32, 33, 47, 200, 256, 257, 1000, 5000};
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
        for (int rep = 0; rep < 4; rep++) {
            const size_t n = sizes[si];
            const uint32_t ids = 1 + (uint32_t)(cz_rng_next(rng) % (rep < 2 ? n + 1 : n / 4 + 1));
            cz_lc_term *t = malloc((n ? n : 1) * sizeof *t), *raw = malloc((n ? n : 1) * sizeof *raw);
            CHECK(t && raw);
            if (!t || !raw) return;
            for (size_t i = 0; i < n; i++) {
                uint32_t id = (uint32_t)(cz_rng_next(rng) % ids);
                t[i].var = (cz_rng_next(rng) & 1) ? cz_var_aux(id) : cz_var_input(id);
                if (rep == 3 && i && (cz_rng_next(rng) & 1)) { /* cancel an earlier term */
                    t[i].var = t[i - 1].var;
                    cz_fr_neg(&t[i].coeff, &t[i - 1].coeff);
                } else {
                    cz_fr_random(&t[i].coeff, rng);
                }
            }
            memcpy(raw, t, n * sizeof *t);
            const size_t m = cz_lc_terms_normalize(t, n);
            bool ok = true;
            for (size_t k = 1; k < m; k++) ok &= t[k - 1].var.id < t[k].var.id;
            size_t expect = 0; /* every distinct id of raw with a non-zero sum is in t, with that sum */
            for (size_t i = 0; i < n; i++) {
                bool first = true;
                for (size_t j = 0; j < i && first; j++) first = raw[j].var.id != raw[i].var.id;
                if (!first) continue;
                cz_fr sum = CZ_FR_ZERO_V;
                for (size_t j = i; j < n; j++)
                    if (raw[j].var.id == raw[i].var.id) cz_fr_add(&sum, &sum, &raw[j].coeff);
                if (cz_fr_is_zero(&sum)) continue;
                expect++;
                bool found = false;
                for (size_t k = 0; k < m && !found; k++)
                    found = t[k].var.id == raw[i].var.id && cz_fr_equal(&t[k].coeff, &sum);
                ok &= found;
            }
            CHECK_MSG(ok && m == expect, "normalize of %zu terms (%u ids, rep %d): %zu left, %zu expected", n, ids, rep,
                      m, expect);
            free(t), free(raw);
        }
}

int main(void) {
    cz_rng rng;
    cz_test_rng(&rng);
    test_normalize(&rng);
    test_hand(&rng);
    test_random_circuits(&rng);
    test_eval_large(&rng);
    test_check_catches(&rng);
    test_lc_ops(&rng);
    test_errors();
    return cz_test_finish();
}
