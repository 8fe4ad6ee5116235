/* The Lagrange-form H's C term folded into L, at creation (prover_priv.h fold).
 *
 * In Lagrange form a partition's H sum is  sum_i y_i Lc_i - sum_i c_i Lh_i  with c = C w (prover_run.c: c = a b,
 * the same values for a witness that satisfies the circuit). The second sum is linear in the witness:
 *     sum_i c_i Lh_i = sum_j w_j LhC_j,   LhC_j = sum_i C_ij Lh_i,
 * so it can be paid once per prover instead of once per partition. For the aux variables it goes into the L
 * query, which a partition already sums over the same scalars: L'_j = L_j - LhC_j (the proof's C takes L's sum and
 * H's sum alike, so only their total changes hands). The inputs' part (a PoRep partition has a few hundred) stays a
 * small MSM beside the queries' tails (d_lhc_in), and Lh itself is no longer needed on the device: the Lagrange
 * form then takes the H form's device memory (Lc in place of H) instead of n points more, and a partition no longer
 * classifies c, batch-adds its ones, minus ones and twos or puts its other values into the tail MSM.
 *
 * LhC's build: C's terms by column (a counting sort on the host), one term a thread (+-|c| Lh_row by g1ntt_mul,
 * the coefficient split as the G1 NTT's twiddles are), then one thread an aux column (short columns) or one block an
 * input column (the ONE column of a 32 GiB PoRep holds ~0.5 M terms), in chunks of columns. Checked afterwards by a
 * random linear combination: with rho random per column and u = C rho,
 *     sum_aux rho_j L_j - sum_aux rho_j L'_j + sum_in rho_j LhC_j = sum_i u_i Lh_i,
 * four MSMs (the first before the fold); rho_j is a hash of (seed, j) from the OS's random seed, 254 bits, so a miss
 * has probability ~2^-254, and neither rho nor u is held whole in host memory (they go to the device a chunk at a
 * time): a fold holds C by column (~2.8 GB at 32 GiB) and its chunks, ~3.5 GB in all, in the daemon's budget while
 * it runs (cz_gpu_prover_transient_host_bytes). A prover whose fold fails the check gets L back
 * from the params and keeps Lh and c's per-partition split (the note in its build report says so).
 * Test knobs: CZ_GPU_LAG_FOLD_CORRUPT=k flips the sign of the k-th term by column (the check must refuse the fold),
 * CZ_GPU_LAG_FOLD_CHUNK=terms caps a chunk below its 2^22 (raised to the longest column), so that a test's C takes
 * several chunks and the host prepares one while the device folds another. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "ec/msm_internal.h"
#include "gpu/gpu.h"
#include "gpu/gpu_internal.h"
#include "gpu/prover_internal.h"
#include "gpu/prover_priv.h"
#include "util/rng.h"

int cz_gpu_prover_lag_fold_knob_(void) {
    const char *e = getenv("CZ_GPU_PROVER_LAG_FOLD");
    return !(e && *e == '0');
}

/* C by column: the terms of column j are k in [ptr[j], ptr[j + 1]), their rows row[k] and their positions in C's
 * CSR idx[k] (for the coefficient) */
typedef struct {
    uint32_t *ptr, *row, *idx; /* 32-bit offsets: transpose() refuses 2^32 terms or more */
    uint64_t longest;
} csc;

static void csc_free(csc *t) {
    free(t->ptr), free(t->row), free(t->idx);
    memset(t, 0, sizeof *t);
}

static int transpose(csc *t, const cz_csr *c, uint64_t ncols) {
    memset(t, 0, sizeof *t);
    const uint64_t nnz = cz_r1cs_nnz(c);
    if (nnz >= (1ull << 32) || c->rows >= (1ull << 32))
        return cz_error(CZ_ERANGE, "C's fold: %llu terms over %llu rows (at most 2^32 - 1 each)",
                        (unsigned long long)nnz, (unsigned long long)c->rows);
    t->ptr = calloc(ncols + 1, sizeof *t->ptr);
    t->row = malloc((nnz ? nnz : 1) * sizeof *t->row);
    t->idx = malloc((nnz ? nnz : 1) * sizeof *t->idx);
    if (!t->ptr || !t->row || !t->idx) {
        csc_free(t);
        return cz_error(CZ_ENOMEM, "C's fold: the transpose of %llu terms", (unsigned long long)nnz);
    }
    uint64_t bad = UINT64_MAX;
    /* each thread counts and later fills the columns of its own range, scanning every term (serial, the 32 GiB
     * PoRep's 283 M terms took ~9 s of a fold that took 30) */
#pragma omp parallel
    {
        const uint64_t nt = (uint64_t)omp_get_num_threads(), th = (uint64_t)omp_get_thread_num();
        const uint32_t lo = (uint32_t)(ncols * th / nt), hi = (uint32_t)(ncols * (th + 1) / nt);
        for (uint64_t k = 0; k < nnz; k++) {
            const uint32_t j = c->col[k];
            if (j >= lo && j < hi) t->ptr[j + 1]++;
            else if (j >= ncols && th == 0) {
#pragma omp critical(cz_fold_bad)
                if (k < bad) bad = k;
            }
        }
#pragma omp barrier
#pragma omp single
        for (uint64_t j = 0; j < ncols; j++) {
            if (t->ptr[j + 1] > t->longest) t->longest = t->ptr[j + 1];
            t->ptr[j + 1] += t->ptr[j];
        }
        /* ptr[j] as column j's cursor (terms of a column in row order), shifted back by one column below */
        if (bad == UINT64_MAX)
            for (uint64_t i = 0; i < c->rows; i++)
                for (uint64_t k = c->row_ptr[i]; k < c->row_ptr[i + 1]; k++) {
                    const uint32_t j = c->col[k];
                    if (j < lo || j >= hi) continue;
                    const uint64_t at = t->ptr[j]++;
                    t->row[at] = (uint32_t)i, t->idx[at] = (uint32_t)k;
                }
    }
    if (bad != UINT64_MAX) {
        const uint32_t j = c->col[bad];
        csc_free(t);
        return cz_error(CZ_EFORMAT, "C's fold: term %llu in column %u of %llu", (unsigned long long)bad, j,
                        (unsigned long long)ncols);
    }
    for (uint64_t j = ncols; j > 0; j--) t->ptr[j] = t->ptr[j - 1];
    t->ptr[0] = 0;
    return 0;
}

/* a term's record for lf_terms: row, sign, |v| split as k0 + k1 x^2 (the smaller of v and -v), its slot; returns
 * the bit length of the longer half (what its double-and-add costs) */
static unsigned make_rec(uint32_t *rec, uint32_t row, const cz_fr *v, uint32_t slot) {
    uint64_t raw[4], rn[4], sp[4];
    cz_fr neg;
    cz_fr_neg(&neg, v);
    cz_fr_to_raw(raw, v);
    cz_fr_to_raw(rn, &neg);
    int use_neg = 0;
    for (int w = 3; w >= 0; w--)
        if (rn[w] != raw[w]) {
            use_neg = rn[w] < raw[w];
            break;
        }
    cz_msm_glv_split_(sp, sp + 2, use_neg ? rn : raw);
    rec[0] = row, rec[1] = (uint32_t)use_neg;
    memcpy(rec + 2, sp, sizeof sp);
    rec[10] = slot, rec[11] = 0;
    const uint64_t hi0 = sp[1] ? sp[1] : sp[0], hi1 = sp[3] ? sp[3] : sp[2];
    const unsigned b0 = hi0 ? 64 * (sp[1] != 0) + 64 - (unsigned)__builtin_clzll(hi0) : 0;
    const unsigned b1 = hi1 ? 64 * (sp[3] != 0) + 64 - (unsigned)__builtin_clzll(hi1) : 0;
    return b0 > b1 ? b0 : b1;
}

#define FOLD_BINS 130 /* make_rec's lengths 0..128, and one more for the prefix */

typedef struct {
    cz_gpu_prover *pr;
    const cz_csr *c;
    const csc *t;
    uint32_t *rec[2], *tmp; /* records by length (uploaded; two, so one is filled while the other is copied), and
                             * in column order */
    uint8_t *len;
    uint64_t *ptr[2];
    uint64_t (*hist)[FOLD_BINS]; /* the counting sort's, one row a thread */
    int nt, pinned;
    void *d_rec, *d_t, *d_x, *d_ptr;
    uint64_t cap, chunks; /* chunks: how many fold_cols ran */
    long corrupt; /* CZ_GPU_LAG_FOLD_CORRUPT (tests): the term of that position by column gets the wrong sign */
    cz_fp beta;
} fold_ctx;

/* The host's part of a chunk: as many columns from j0 (below j1) as fit, their records into rec[b] ordered by
 * length (a counting sort: a warp's chains then end together) and their offsets into ptr[b]. Returns the end
 * column; *m is the chunk's terms. */
static uint64_t fold_prep(fold_ctx *x, int b, uint64_t j0, uint64_t j1, uint64_t *m_out) {
    const csc *t = x->t;
    uint64_t e = j0 + 1;
    while (e < j1 && e - j0 < x->cap && t->ptr[e + 1] - t->ptr[j0] <= x->cap) e++;
    const uint64_t k0 = t->ptr[j0], m = t->ptr[e] - k0, cols = e - j0;
    const int nt = m >= 4096 ? x->nt : 1;
    uint32_t *rec = x->rec[b];
#pragma omp parallel num_threads(nt)
    {
        const int th = omp_get_thread_num(), nth = omp_get_num_threads();
        const uint64_t lo = m * th / nth, hi = m * (th + 1) / nth;
        uint64_t *h = x->hist[th];
        memset(h, 0, FOLD_BINS * sizeof *h);
        for (uint64_t k = lo; k < hi; k++) {
            x->len[k] = (uint8_t)make_rec(x->tmp + 12 * k, t->row[k0 + k], cz_csr_coeff(x->c, t->idx[k0 + k]), (uint32_t)k);
            h[x->len[k]]++;
        }
#pragma omp barrier
#pragma omp single
        {
            if (x->corrupt >= 0 && (uint64_t)x->corrupt >= k0 && (uint64_t)x->corrupt < k0 + m)
                x->tmp[12 * (x->corrupt - k0) + 1] ^= 1;
            uint64_t off = 0; /* by length, then by thread: each thread's records stay in column order */
            for (int l = 0; l < FOLD_BINS; l++)
                for (int q = 0; q < nth; q++) {
                    const uint64_t c = x->hist[q][l];
                    x->hist[q][l] = off, off += c;
                }
        }
        for (uint64_t k = lo; k < hi; k++) memcpy(rec + 12 * h[x->len[k]]++, x->tmp + 12 * k, 48);
    }
    for (uint64_t j = 0; j <= cols; j++) x->ptr[b][j] = t->ptr[j0 + j] - k0;
    *m_out = m;
    return e;
}

/* the columns [j0, j1) of C into dst, chunk by chunk: aux columns (aux: dst is L, indexed from column ni) become
 * L_j - their sums, in place; input columns their sums (dst: LhC's input points). The host prepares the next
 * chunk while the device folds this one. */
static int fold_cols(fold_ctx *x, uint64_t j0, uint64_t j1, void *dst, int aux) {
    void *st = x->pr->st;
    uint64_t m = 0, e = j0 < j1 ? fold_prep(x, 0, j0, j1, &m) : j0;
    for (int b = 0; j0 < j1; b ^= 1) {
        const uint64_t cols = e - j0;
        int rc = cz_gpu_htod_async_(x->d_rec, x->rec[b], m * 48, st);
        if (!rc) rc = cz_gpu_htod_async_(x->d_ptr, x->ptr[b], (cols + 1) * 8, st);
        if (!rc) rc = cz_gpu_lf_terms_(x->d_t, x->d_rec, m, x->pr->d_lh, &x->beta, st);
        cz_g1_affine *out = (cz_g1_affine *)dst + (j0 - (aux ? x->pr->ni : 0));
        if (!rc) rc = cz_gpu_lf_sums_(x->d_x, x->d_t, x->d_ptr, cols, aux ? out : NULL, st);
        if (!rc) rc = cz_gpu_hl_affine_(out, x->d_x, cols, st);
        x->chunks++;
        j0 = e;
        uint64_t m2 = 0;
        const uint64_t e2 = !rc && j0 < j1 ? fold_prep(x, b ^ 1, j0, j1, &m2) : j0;
        int sr = cz_gpu_stream_sync_(st); /* the device buffers are refilled next */
        if (!rc && !sr) { /* a creation that holds the device lock lets its waiters go in between */
            const int y = cz_gpu_lock_yield_(st);
            sr = y < 0 ? y : 0;
        }
        if (rc || sr) return rc ? rc : sr;
        m = m2, e = e2;
    }
    return 0;
}

/* The check's scalars never sit whole in host memory (at 32 GiB rho and u = C rho were 8.3 GB of a fold's ~12):
 * rho_j is a hash of (seed, j), a 254-bit representation (below r, so a field element as it stands), and both rho
 * and u go to the device a chunk at a time. */
#define FOLD_CHUNK ((size_t)1 << 20)

static inline void fold_rho(cz_fr *o, uint64_t seed, uint64_t j) {
    uint64_t x = seed + 4 * j * 0x9e3779b97f4a7c15ull; /* splitmix64 over the words 4 j .. 4 j + 3 */
    for (int w = 0; w < 4; w++) {
        uint64_t z = (x += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        o->l[w] = z ^ (z >> 31);
    }
    o->l[3] &= (1ull << 62) - 1;
}

/* d_s[0, n) = rho_{j0 + k} (c NULL), or the rows [0, n) of C rho; buf holds FOLD_CHUNK scalars */
static int put_scalars(cz_fr *buf, void *d_s, uint64_t seed, uint64_t j0, size_t n, const cz_csr *c) {
    for (size_t o = 0; o < n; o += FOLD_CHUNK) {
        const size_t m = n - o < FOLD_CHUNK ? n - o : FOLD_CHUNK;
#pragma omp parallel for schedule(static) if (m >= 4096)
        for (size_t k = 0; k < m; k++) {
            if (!c) {
                fold_rho(&buf[k], seed, j0 + o + k);
                continue;
            }
            cz_fr acc, t, rj;
            memset(&acc, 0, sizeof acc);
            for (uint64_t q = c->row_ptr[o + k]; q < c->row_ptr[o + k + 1]; q++) {
                fold_rho(&rj, seed, c->col[q]);
                cz_fr_mul(&t, cz_csr_coeff(c, q), &rj);
                cz_fr_add(&acc, &acc, &t);
            }
            buf[k] = acc;
        }
        const int rc = cz_gpu_memcpy_htod((cz_fr *)d_s + o, buf, m * sizeof *buf);
        if (rc) return rc;
    }
    return 0;
}

/* the check's sums: sum rho_j L_j over aux (before or after), sum rho_j LhC_j over inputs, sum u_i Lh_i */
static int check_msm(cz_g1_jac *r, const void *d_bases, void *d_s, cz_fr *buf, uint64_t seed, uint64_t j0, size_t n,
                     const cz_csr *c, void *st) {
    cz_g1_jac_set_infinity(r);
    if (!n) return 0;
    const int held = cz_gpu_lock_drop_(); /* host work and a copy to the check's own buffer: no device lock needed */
    int rc = put_scalars(buf, d_s, seed, j0, n, c);
    cz_gpu_lock_retake_(held);
    return rc ? rc : cz_gpu_g1_msm(r, d_bases, d_s, n, st);
}

int cz_gpu_prover_lag_fold_(cz_gpu_prover *pr, const cz_groth16_params *p, const cz_r1cs *r) {
    const double t0 = cz_gpu_now_ms_();
    const uint64_t ni = pr->ni, na = pr->na, ncols = ni + na, rows = r->c.rows;
    cz_g1_affine *d_l = pr->d_q[Q_L];
    if (!pr->lag || !pr->d_lh || (!d_l && na)) return cz_error(CZ_EINVAL, "C's fold: no Lagrange-form prover with L");
    if (r->num_inputs != ni || r->num_aux != na || rows > pr->n)
        return cz_error(CZ_EFORMAT, "C's fold: C of %llu rows over %llu + %llu variables for this prover",
                        (unsigned long long)rows, (unsigned long long)r->num_inputs, (unsigned long long)r->num_aux);
    const uint64_t nnz = cz_r1cs_nnz(&r->c), most = nnz > ncols ? nnz : ncols;
    uint64_t held = (ncols + 1) * 4 + nnz * 8; /* C by column; the chunks' bytes are added below */
    cz_gpu_prover_transient_add_(held);
    csc t;
    const int dev_held = cz_gpu_lock_drop_(); /* host work */
    int rc = transpose(&t, &r->c, ncols);
    cz_gpu_lock_retake_(dev_held);
    if (rc) {
        cz_gpu_prover_transient_sub_(held);
        return rc;
    }
    const double tt = cz_gpu_now_ms_();
    fold_ctx x;
    memset(&x, 0, sizeof x);
    x.pr = pr, x.c = &r->c, x.t = &t;
    x.cap = (uint64_t)1 << 22;
    const char *ch = getenv("CZ_GPU_LAG_FOLD_CHUNK"); /* tests: small chunks, so that a small C takes several */
    if (ch && atol(ch) > 0) x.cap = (uint64_t)atol(ch);
    if (x.cap > most) x.cap = most ? most : 1;
    if (x.cap < t.longest) x.cap = t.longest;
    const char *cor = getenv("CZ_GPU_LAG_FOLD_CORRUPT");
    x.corrupt = cor && *cor ? atol(cor) : -1;
    cz_fp px, py;
    cz_msm_endo_consts_(&x.beta, &px, &py);
    const uint64_t chunks = x.cap * (48 * 3 + 1 + 16) + 16 + FOLD_CHUNK * sizeof(cz_fr);
    cz_gpu_prover_transient_add_(chunks);
    held += chunks;
    x.nt = omp_get_max_threads();
    x.tmp = malloc(x.cap * 48), x.len = malloc(x.cap), x.hist = malloc((size_t)x.nt * sizeof *x.hist);
    /* page-locked where it can be (the copies then run beside the next chunk's preparation) */
    x.pinned = 1;
    for (int b = 0; b < 2 && x.pinned; b++)
        if (cz_gpu_host_alloc((void **)&x.rec[b], x.cap * 48) || cz_gpu_host_alloc((void **)&x.ptr[b], (x.cap + 1) * 8))
            x.pinned = 0;
    if (!x.pinned)
        for (int b = 0; b < 2; b++) {
            if (x.rec[b]) cz_gpu_host_free(x.rec[b]);
            if (x.ptr[b]) cz_gpu_host_free(x.ptr[b]);
            x.rec[b] = malloc(x.cap * 48), x.ptr[b] = malloc((x.cap + 1) * 8);
        }
    if (!x.rec[0] || !x.rec[1] || !x.tmp || !x.len || !x.ptr[0] || !x.ptr[1] || !x.hist)
        rc = cz_error(CZ_ENOMEM, "C's fold: host chunk of %llu terms", (unsigned long long)x.cap);
    if (!rc) rc = cz_gpu_malloc(&x.d_rec, x.cap * 48);
    if (!rc) rc = cz_gpu_malloc(&x.d_t, x.cap * sizeof(cz_g1_xyzz));
    if (!rc) rc = cz_gpu_malloc(&x.d_x, x.cap * sizeof(cz_g1_xyzz));
    if (!rc) rc = cz_gpu_malloc(&x.d_ptr, (x.cap + 1) * 8);
    /* the check's scalars, rho per column and u = C rho per row, through one chunk */
    size_t sn = na > rows ? na : rows; /* the longest of rho's aux part, rho's inputs part and u */
    if (sn < ni) sn = ni;
    cz_fr *buf = NULL;
    int pinned = 0;
    void *d_s = NULL;
    uint64_t seed = 0;
    if (!rc && !cz_gpu_host_alloc((void **)&buf, FOLD_CHUNK * sizeof *buf)) pinned = 1;
    else if (!rc) buf = malloc(FOLD_CHUNK * sizeof *buf);
    if (!rc && !buf) rc = cz_error(CZ_ENOMEM, "C's fold: the check's chunk");
    if (!rc && cz_os_random(&seed, sizeof seed)) /* no OS randomness: the clock's (it guards against faults, not foes) */
        seed = (uint64_t)(uintptr_t)pr ^ (uint64_t)(t0 * 1e3) ^ 0x666f6c64ull;
    if (!rc) rc = cz_gpu_malloc(&d_s, (sn ? sn : 1) * sizeof(cz_fr));
    if (!rc) rc = cz_gpu_prover_dalloc_(pr, (void **)&pr->d_lhc_in, (ni ? ni : 1) * sizeof(cz_g1_affine), "LhC (inputs)");
    cz_g1_jac s_before, s_after, s_in, s_h;
    if (!rc) rc = check_msm(&s_before, d_l, d_s, buf, seed, ni, na, NULL, pr->st);
    const double t1 = cz_gpu_now_ms_();
    if (!rc) rc = fold_cols(&x, 0, ni, pr->d_lhc_in, 0);
    if (!rc) rc = fold_cols(&x, ni, ncols, d_l, 1);
    const double t2 = cz_gpu_now_ms_();
    /* d_s still holds rho's aux part from s_before (the fold has buffers of its own, the MSM reads its scalars only) */
    cz_g1_jac_set_infinity(&s_after);
    if (!rc && na) rc = cz_gpu_g1_msm(&s_after, d_l, d_s, na, pr->st);
    if (!rc) rc = check_msm(&s_in, pr->d_lhc_in, d_s, buf, seed, 0, ni, NULL, pr->st);
    if (!rc) rc = check_msm(&s_h, pr->d_lh, d_s, buf, seed, 0, rows, &r->c, pr->st);
    int bad = 0;
    if (!rc) { /* s_before - s_after + s_in = s_h */
        cz_g1_jac l;
        cz_g1_jac_neg(&l, &s_after);
        cz_g1_jac_add(&l, &l, &s_before);
        cz_g1_jac_add(&l, &l, &s_in);
        bad = !cz_g1_jac_equal(&l, &s_h);
    }
    const double t3 = cz_gpu_now_ms_();
    for (int b = 0; b < 2; b++) {
        if (x.pinned) cz_gpu_host_free(x.rec[b]), cz_gpu_host_free(x.ptr[b]);
        else free(x.rec[b]), free(x.ptr[b]);
    }
    free(x.tmp), free(x.len), free(x.hist);
    if (pinned) cz_gpu_host_free(buf);
    else free(buf);
    cz_gpu_free(x.d_rec), cz_gpu_free(x.d_t), cz_gpu_free(x.d_x), cz_gpu_free(x.d_ptr), cz_gpu_free(d_s);
    csc_free(&t);
    cz_gpu_prover_transient_sub_(held);
    const size_t l0 = strlen(pr->lag_note);
    if (!rc && !bad) {
        snprintf(pr->lag_note + l0, sizeof pr->lag_note - l0,
                 "; C (%llu terms) by column in %.1f s, folded into L in %.1f s (%llu chunks), checked in %.1f s, Lh "
                 "freed", (unsigned long long)nnz, (tt - t0) / 1e3, (t2 - t1) / 1e3, (unsigned long long)x.chunks,
                 (t3 - t2 + t1 - tt) / 1e3);
        cz_gpu_free(pr->d_lh);
        pr->d_lh = NULL;
        pr->used -= pr->n * sizeof(cz_g1_affine);
        pr->fold = 1;
        return 0;
    }
    /* not folded: L back from the params, Lh and c's split kept */
    if (!rc && na && !p->l) { /* nothing to restore L from (cz_bench_fold) */
        rc = cz_error(CZ_EVERIFY, "C's fold into L failed its check");
    } else if (!rc) {
        snprintf(pr->lag_note + l0, sizeof pr->lag_note - l0, "; C's fold into L failed its check: L restored, not folded");
        if (na) rc = cz_gpu_memcpy_htod(d_l, p->l, na * sizeof(cz_g1_affine));
    }
    if (pr->d_lhc_in) pr->used -= (ni ? ni : 1) * sizeof(cz_g1_affine);
    cz_gpu_free(pr->d_lhc_in);
    pr->d_lhc_in = NULL;
    pr->fold = 0;
    return rc;
}
