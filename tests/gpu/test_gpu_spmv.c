/* The device SpMV's layouts and its compact-witness form (spmv.cu) against the CPU, on fresh random matrices:
 *  - every layout: coefficients as values and dictionary-coded with 1-, 2- and 4-byte indices (the natural width
 *    and wider ones forced by CZ_GPU_CSR_COEF_BYTES, a too-narrow request ignored), u32 and u64 row pointers
 *    (CZ_GPU_CSR_ROW_BYTES=8) and the wide layout (CZ_GPU_CSR_NARROW=0); dictionaries of exactly 3, 256, 257,
 *    65,536 and 65,537 values (the width boundaries), one of a fresh value per term, and a matrix of empty rows;
 *    long rows on (the default bound, and 1: every row of two terms or more) and off (CZ_GPU_SPMV_LONG=0);
 *  - the layout chosen (widths, dictionary or values) is what the knobs ask, and the device bytes the upload
 *    allocated equal cz_gpu_csr_prepare_'s count and the formula (rows + 1) rb + nnz (4 + cb) + ndict 32
 *    (dictionary) or (rows + 1) rb + nnz 36 (values), plus 4 a long row; the arrays the layout narrows pass
 *    through the caller's htod in their device width;
 *  - per layout and witness (mostly 0/1, mostly dense, all bits, no bits, PoRep-like; aux counts not a multiple of
 *    64, one below 64): cz_gpu_csr_mul_vec (padding rows to n_out included), cz_gpu_csr_mul_vec_rev (every
 *    position of 2^log_n), cz_gpu_csr_mul_vec_cw with mul = 0 and mul = 1 (out preloaded with random values;
 *    rows past the matrix zeroed) against cz_csr_mul_vec, each output poisoned first, every element compared;
 *  - the term arrays in mapped host memory (every layout, the default long-row bound): uploaded there
 *    (cz_gpu_csr_upload_host_) and moved there from the device (cz_gpu_csr_to_host_), the device keeping exactly
 *    the dictionary and the long rows' list, every product as above;
 *  - the wide wrappers (cz_gpu_csr_wrap_, cz_gpu_csr_wrap_dict_) over arrays uploaded by hand;
 *  - the synthetic prover (CZ_BENCH_POOL-style pool of 1,331: 2-byte indices) charges the narrow sizes: its device
 *    bytes are (rows + 1) 4 + 2 nnz per matrix below those of the wide layout, and it proves.
 * Exits 77 (skipped) without a GPU. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "gpu/gpu.h"
#include "gpu/gpu_prover.h"
#include "gpu/prover_internal.h"
#include "groth16/prover.h"
#include "r1cs/r1cs.h"
#include "r1cs/wcompact.h"
#include "testutil.h"

static cz_rng rng;

static int cmp_u32(const void *a, const void *b) {
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Row lengths as test_gpu_prover's build_long: mostly 1-2, some 3-8, 8-9 (at the default long-row bound and one
 * past it), 9-40 and 100-1,000 terms, some empty (lng 0: every row 0-3 terms; lng < 0: every row empty).
 * Columns distinct and increasing below nv. pool > 0: the coefficients are pool distinct values (pool[0] = 1),
 * the first pool terms taking each once (so a dictionary has exactly pool values when nnz >= pool), the rest 1
 * a third of the time, else drawn from the pool; pool = 0: a fresh random value per term (a third of them 1). */
static void make_matrix(cz_csr *m, uint64_t rows, uint64_t nv, uint32_t pool, int lng) {
    m->rows = rows;
    m->row_ptr = malloc((rows + 1) * sizeof *m->row_ptr);
    size_t cap = 1024;
    m->col = malloc(cap * sizeof *m->col);
    m->val = malloc(cap * sizeof *m->val);
    cz_fr *pv = malloc((pool ? pool : 1) * sizeof *pv);
    pv[0] = CZ_FR_ONE_V;
    for (uint32_t i = 1; i < pool; i++) cz_fr_random(&pv[i], &rng);
    uint64_t nnz = 0;
    m->row_ptr[0] = 0;
    for (uint64_t r = 0; r < rows; r++) {
        unsigned u = (unsigned)(cz_rng_next(&rng) % 100), len;
        if (lng < 0) len = 0;
        else if (!lng) len = u % 4;
        else if (u < 50) len = 1 + u % 2;
        else if (u < 70) len = 3 + u % 6;
        else if (u < 80) len = 8 + u % 2;
        else if (u < 92) len = 9 + (unsigned)(cz_rng_next(&rng) % 32);
        else if (u < 96) len = 100 + (unsigned)(cz_rng_next(&rng) % 900);
        else len = 0;
        if (len > nv) len = (unsigned)nv;
        if (nnz + len > cap) {
            while (nnz + len > cap) cap *= 2;
            m->col = realloc(m->col, cap * sizeof *m->col);
            m->val = realloc(m->val, cap * sizeof *m->val);
        }
        uint32_t *c = m->col + nnz;
        for (unsigned j = 0; j < len; j++) c[j] = (uint32_t)(cz_rng_next(&rng) % nv);
        qsort(c, len, sizeof *c, cmp_u32);
        unsigned k = 0;
        for (unsigned j = 0; j < len; j++)
            if (!k || c[j] != c[k - 1]) c[k++] = c[j];
        for (unsigned j = 0; j < k; j++, nnz++) {
            cz_fr *v = &m->val[nnz];
            if (pool && nnz < pool) *v = pv[nnz];
            else if (cz_rng_next(&rng) % 3 == 0) *v = CZ_FR_ONE_V;
            else if (pool) *v = pv[cz_rng_next(&rng) % pool];
            else cz_fr_random(v, &rng);
        }
        m->row_ptr[r + 1] = nnz;
    }
    free(pv);
}

static void free_matrix(cz_csr *m) {
    free(m->row_ptr);
    free(m->col);
    free(m->val);
}

/* one witness on the host and the device, dense and compact, with the CPU's products of the matrix */
typedef struct {
    uint64_t ni, na;
    cz_fr *inputs, *aux;
    cz_fr *d_w;            /* [inputs | aux] */
    cz_fr *d_in, *d_dense; /* the compact form's parts */
    uint64_t *d_is_bit, *d_bit;
    uint32_t *d_offs;
    cz_fr *ref; /* <row i, w>, the matrix's rows */
    cz_gpu_wview view;
} witness;

/* 0 with probability p0 %, 1 with p1 %, else random */
static void mixed(cz_fr *x, unsigned p0, unsigned p1) {
    const unsigned u = (unsigned)(cz_rng_next(&rng) % 100);
    if (u < p0) *x = CZ_FR_ZERO_V;
    else if (u < p0 + p1) *x = CZ_FR_ONE_V;
    else cz_fr_random(x, &rng);
}

static int make_witness(witness *w, const cz_csr *m, uint64_t ni, uint64_t na, unsigned p0, unsigned p1) {
    memset(w, 0, sizeof *w);
    w->ni = ni, w->na = na;
    w->inputs = malloc(ni * sizeof(cz_fr));
    w->aux = malloc((na ? na : 1) * sizeof(cz_fr));
    w->inputs[0] = CZ_FR_ONE_V;
    for (uint64_t i = 1; i < ni; i++) mixed(&w->inputs[i], p0, p1);
    for (uint64_t i = 0; i < na; i++) mixed(&w->aux[i], p0, p1);
    w->ref = malloc((m->rows ? m->rows : 1) * sizeof(cz_fr));
    cz_csr_mul_vec(w->ref, m, ni, w->inputs, w->aux, 0);
    cz_wcompact c;
    cz_wcompact_init(&c);
    int rc = cz_wcompact_from_dense(&c, w->aux, na);
    const uint64_t nw = (na + 63) / 64;
    uint32_t *offs = malloc((nw + 1) * sizeof *offs);
    offs[0] = 0;
    for (uint64_t k = 0; k < nw && !rc; k++) { /* the clear is_bit bits below na */
        uint64_t x = ~c.is_bit[k];
        if (k == nw - 1 && (na & 63)) x &= ((uint64_t)1 << (na & 63)) - 1;
        offs[k + 1] = offs[k] + (uint32_t)__builtin_popcountll(x);
    }
    CHECK_MSG(rc || offs[nw] == c.n_dense, "witness: %u dense values by the bitmap, %llu stored", offs[nw],
              (unsigned long long)c.n_dense);
    const size_t fr = sizeof(cz_fr);
    if (!rc) rc = cz_gpu_malloc((void **)&w->d_w, (ni + na) * fr);
    if (!rc) rc = cz_gpu_malloc((void **)&w->d_in, ni * fr);
    if (!rc) rc = cz_gpu_malloc((void **)&w->d_dense, (c.n_dense ? c.n_dense : 1) * fr);
    if (!rc) rc = cz_gpu_malloc((void **)&w->d_is_bit, (nw ? nw : 1) * 8);
    if (!rc) rc = cz_gpu_malloc((void **)&w->d_bit, (nw ? nw : 1) * 8);
    if (!rc) rc = cz_gpu_malloc((void **)&w->d_offs, (nw + 1) * 4);
    if (!rc) rc = cz_gpu_memcpy_htod(w->d_w, w->inputs, ni * fr);
    if (!rc && na) rc = cz_gpu_memcpy_htod(w->d_w + ni, w->aux, na * fr);
    if (!rc) rc = cz_gpu_memcpy_htod(w->d_in, w->inputs, ni * fr);
    if (!rc && c.n_dense) rc = cz_gpu_memcpy_htod(w->d_dense, c.dense, c.n_dense * fr);
    if (!rc && nw) rc = cz_gpu_memcpy_htod(w->d_is_bit, c.is_bit, nw * 8);
    if (!rc && nw) rc = cz_gpu_memcpy_htod(w->d_bit, c.bit, nw * 8);
    if (!rc) rc = cz_gpu_memcpy_htod(w->d_offs, offs, (nw + 1) * 4);
    w->view = (cz_gpu_wview){w->d_in, w->d_is_bit, w->d_bit, w->d_dense, w->d_offs, ni, na};
    free(offs);
    cz_wcompact_free(&c);
    return rc;
}

static void free_witness(witness *w) {
    free(w->inputs);
    free(w->aux);
    free(w->ref);
    cz_gpu_free(w->d_w);
    cz_gpu_free(w->d_in);
    cz_gpu_free(w->d_dense);
    cz_gpu_free(w->d_is_bit);
    cz_gpu_free(w->d_bit);
    cz_gpu_free(w->d_offs);
}

/* a device layout: the knobs' values (NULL: unset) */
typedef struct {
    const char *dict, *narrow, *row_bytes, *coef_bytes;
} layout;

static void set_knob(const char *name, const char *v) {
    if (v) setenv(name, v, 1);
    else unsetenv(name);
}

static void set_layout(const layout *l) {
    set_knob("CZ_GPU_CSR_DICT", l->dict);
    set_knob("CZ_GPU_CSR_NARROW", l->narrow);
    set_knob("CZ_GPU_CSR_ROW_BYTES", l->row_bytes);
    set_knob("CZ_GPU_CSR_COEF_BYTES", l->coef_bytes);
}

static const layout layouts[] = {
    {"0", NULL, NULL, NULL}, {"0", NULL, "8", NULL}, {"0", "0", NULL, NULL},
    {"1", NULL, NULL, NULL}, {"1", NULL, NULL, "1"}, {"1", NULL, NULL, "2"}, {"1", NULL, NULL, "4"},
    {"1", NULL, "8", NULL},  {"1", NULL, "8", "2"},  {"1", NULL, "8", "4"},  {"1", "0", NULL, NULL},
    {"1", "0", NULL, "1"},
};

static size_t htod_bytes;
static int counting_htod(void *ctx, void *dst, const void *src, size_t bytes) {
    (void)ctx;
    htod_bytes += bytes;
    /* in two pieces, as a chunked copy would */
    const size_t h = bytes / 2;
    int rc = h ? cz_gpu_memcpy_htod(dst, src, h) : 0;
    if (!rc) rc = cz_gpu_memcpy_htod((uint8_t *)dst + h, (const uint8_t *)src + h, bytes - h);
    return rc;
}

/* memcmp of n elements; *first the first differing index */
static size_t count_bad(const cz_fr *got, const cz_fr *want, size_t n, size_t *first) {
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        if (memcmp(&got[i], &want[i], sizeof(cz_fr)) && !bad++) *first = i;
    return bad;
}

/* every product of g against the CPU for witness w */
static void check_products(const cz_gpu_csr *g, const cz_csr *m, const witness *w, const char *what) {
    const uint64_t rows = m->rows;
    const size_t n_out = rows + 7, fr = sizeof(cz_fr);
    unsigned log_n = 1;
    while (((size_t)1 << log_n) < rows) log_n++;
    log_n += (unsigned)(cz_rng_next(&rng) % 2);
    const size_t nr = (size_t)1 << log_n, cap = nr > n_out ? nr : n_out;
    cz_fr *want = calloc(cap, fr), *got = malloc(cap * fr), *pre = malloc(n_out * fr), *d_o = NULL;
    int rc = cz_gpu_malloc((void **)&d_o, cap * fr);
    size_t bad, first = 0;
    /* natural order, dense witness: rows then zero padding */
    memcpy(want, w->ref, rows * fr);
    if (!rc) rc = cz_gpu_memset(d_o, 0xa5, n_out * fr);
    if (!rc) rc = cz_gpu_csr_mul_vec(d_o, n_out, g, w->d_w, NULL);
    if (!rc) rc = cz_gpu_memcpy_dtoh(got, d_o, n_out * fr);
    bad = rc ? 0 : count_bad(got, want, n_out, &first);
    CHECK_MSG(!rc && !bad, "%s: dense SpMV: %zu of %zu differ, first %zu (%s)", what, bad, n_out, first,
              rc ? cz_error_message() : "");
    /* compact witness, mul = 0 */
    if (!rc) rc = cz_gpu_memset(d_o, 0xa5, n_out * fr);
    if (!rc) rc = cz_gpu_csr_mul_vec_cw(d_o, n_out, g, &w->view, 0, NULL);
    if (!rc) rc = cz_gpu_memcpy_dtoh(got, d_o, n_out * fr);
    bad = rc ? 0 : count_bad(got, want, n_out, &first);
    CHECK_MSG(!rc && !bad, "%s: compact-witness SpMV: %zu of %zu differ, first %zu (%s)", what, bad, n_out, first,
              rc ? cz_error_message() : "");
    /* compact witness, mul = 1 over random values: out * row, 0 past the rows */
    for (size_t i = 0; i < n_out; i++) cz_fr_random(&pre[i], &rng);
    for (size_t i = 0; i < n_out; i++) {
        if (i < rows) cz_fr_mul(&want[i], &pre[i], &w->ref[i]);
        else want[i] = CZ_FR_ZERO_V;
    }
    if (!rc) rc = cz_gpu_memcpy_htod(d_o, pre, n_out * fr);
    if (!rc) rc = cz_gpu_csr_mul_vec_cw(d_o, n_out, g, &w->view, 1, NULL);
    if (!rc) rc = cz_gpu_memcpy_dtoh(got, d_o, n_out * fr);
    bad = rc ? 0 : count_bad(got, want, n_out, &first);
    CHECK_MSG(!rc && !bad, "%s: compact-witness SpMV with mul = 1: %zu of %zu differ, first %zu (%s)", what, bad,
              n_out, first, rc ? cz_error_message() : "");
    /* bit-reversed, dense witness: every position of 2^log_n */
    for (size_t i = 0; i < nr; i++) {
        size_t j = 0;
        for (unsigned b = 0; b < log_n; b++) j |= ((i >> b) & 1) << (log_n - 1 - b);
        want[j] = i < rows ? w->ref[i] : CZ_FR_ZERO_V;
    }
    if (!rc && rows <= nr) {
        rc = cz_gpu_memset(d_o, 0xa5, nr * fr);
        if (!rc) rc = cz_gpu_csr_mul_vec_rev(d_o, log_n, g, w->d_w, NULL);
        if (!rc) rc = cz_gpu_memcpy_dtoh(got, d_o, nr * fr);
        bad = rc ? 0 : count_bad(got, want, nr, &first);
        CHECK_MSG(!rc && !bad, "%s: bit-reversed SpMV (2^%u): %zu of %zu differ, first position %zu (%s)", what,
                  log_n, bad, nr, first, rc ? cz_error_message() : "");
    }
    CHECK_MSG(rc == 0, "%s: %s", what, cz_error_message());
    cz_gpu_free(d_o);
    free(want);
    free(got);
    free(pre);
}

static unsigned need_coef_bytes(uint64_t ndict) { return ndict <= 256 ? 1 : ndict <= 65536 ? 2 : 4; }

/* m (made with pool, make_matrix) in layout l with long-row bound lb (NULL: the default 8, "0": none): the layout,
 * the bytes, the products */
static void test_layout(const cz_csr *m, uint32_t pool, witness *ws, int nws, const layout *l, const char *lb,
                        const char *name) {
    set_layout(l);
    set_knob("CZ_GPU_SPMV_LONG", lb);
    const uint64_t rows = m->rows, nnz = cz_r1cs_nnz(m);
    const long lbv = lb ? atol(lb) : 8;
    uint64_t nlong = 0;
    for (uint64_t i = 0; i < rows && lbv > 0; i++) nlong += m->row_ptr[i + 1] - m->row_ptr[i] > (uint64_t)lbv;
    char what[200];
    snprintf(what, sizeof what, "%s (%llu rows, %llu terms), DICT=%s NARROW=%s ROW_BYTES=%s COEF_BYTES=%s LONG=%s",
             name, (unsigned long long)rows, (unsigned long long)nnz, l->dict ? l->dict : "-",
             l->narrow ? l->narrow : "-", l->row_bytes ? l->row_bytes : "-", l->coef_bytes ? l->coef_bytes : "-",
             lb ? lb : "-");
    cz_csr_dict d;
    size_t prep = 0;
    cz_gpu_csr *g = NULL;
    int rc = cz_gpu_csr_prepare_(m, &d, &prep);
    htod_bytes = 0;
    if (!rc) rc = cz_gpu_csr_upload_prepared_(&g, m, &d, counting_htod, NULL);
    CHECK_MSG(rc == 0, "%s: upload: %s", what, cz_error_message());
    if (rc) {
        cz_csr_dict_free(&d);
        return;
    }
    const int wide = l->narrow != NULL, dict = l->dict[0] == '1' && nnz > 0;
    uint32_t ndict = 0;
    CHECK_MSG(cz_gpu_csr_is_dict(g, &ndict) == dict, "%s: dictionary form %d", what, !dict);
    CHECK_MSG(!dict || !pool || ndict == pool, "%s: %u values in the dictionary, want %u", what, ndict, pool);
    const unsigned rb_want = wide || l->row_bytes ? 8 : 4;
    unsigned cb_want = 0;
    if (dict) {
        const unsigned need = need_coef_bytes(ndict), k = l->coef_bytes ? (unsigned)atoi(l->coef_bytes) : 0;
        cb_want = wide ? 4 : k >= need ? k : need;
    }
    unsigned rb, cb;
    size_t bytes;
    cz_gpu_csr_layout_(g, &rb, &cb, &bytes);
    CHECK_MSG(rb == rb_want && cb == cb_want, "%s: %u-byte row pointers and %u-byte indices, want %u and %u", what, rb,
              cb, rb_want, cb_want);
    const size_t formula = (rows + 1) * rb_want + nnz * 4 + (dict ? nnz * cb_want + (size_t)ndict * 32 : nnz * 32) +
                           nlong * 4;
    CHECK_MSG(bytes == prep && bytes == formula, "%s: %zu device bytes, prepare_ counted %zu, the formula %zu", what,
              bytes, prep, formula);
    const size_t through = (rows + 1) * rb_want + nnz * 4 + nnz * (dict ? cb_want : 32);
    CHECK_MSG(htod_bytes == through, "%s: %zu bytes through htod, want %zu", what, htod_bytes, through);
    for (int k = 0; k < nws; k++) check_products(g, m, &ws[k], what);
    /* the term arrays in mapped host memory: made there (upload_host_) and moved there (to_host), the same
     * products; on the device only the dictionary and the long rows' list */
    const size_t rest = (dict ? (size_t)ndict * 32 : 0) + nlong * 4;
    CHECK_MSG(cz_gpu_csr_host_dev_bytes_(m, &d) == rest && cz_gpu_csr_dev_rest_(g) == rest,
              "%s: %zu / %zu device bytes beside host terms, want %zu", what, cz_gpu_csr_host_dev_bytes_(m, &d),
              cz_gpu_csr_dev_rest_(g), rest);
    if (!lb) { /* the default long-row bound only: the kernels are the same */
        cz_gpu_csr *h = NULL;
        rc = cz_gpu_csr_upload_host_(&h, m, &d);
        CHECK_MSG(rc == 0, "%s: host upload: %s", what, cz_error_message());
        if (!rc) {
            size_t hb = 0;
            cz_gpu_csr_layout_(h, NULL, NULL, &hb);
            CHECK_MSG(hb == rest && cz_gpu_csr_host_bytes_(h) == formula - rest,
                      "%s: host terms: %zu device bytes (want %zu), %zu host bytes (want %zu)", what, hb, rest,
                      cz_gpu_csr_host_bytes_(h), formula - rest);
            char hw[260];
            snprintf(hw, sizeof hw, "%s, terms in host memory", what);
            for (int k = 0; k < nws; k++) check_products(h, m, &ws[k], hw);
            cz_gpu_csr_free(h);
        }
        rc = cz_gpu_csr_to_host_(g);
        CHECK_MSG(rc == 0, "%s: to_host: %s", what, cz_error_message());
        size_t gb = 0;
        cz_gpu_csr_layout_(g, NULL, NULL, &gb);
        CHECK_MSG(!rc && gb == rest && cz_gpu_csr_host_bytes_(g) == formula - rest,
                  "%s: moved to host: %zu device bytes (want %zu), %zu host bytes (want %zu)", what, gb, rest,
                  cz_gpu_csr_host_bytes_(g), formula - rest);
        char mw[260];
        snprintf(mw, sizeof mw, "%s, terms moved to host memory", what);
        if (!rc) check_products(g, m, &ws[0], mw);
    }
    cz_gpu_csr_free(g);
    cz_csr_dict_free(&d);
}

/* the wide wrappers over arrays uploaded by hand (what the synthetic prover used before the narrow layout) */
static void test_wrap(const cz_csr *m, const witness *w) {
    const uint64_t rows = m->rows, nnz = cz_r1cs_nnz(m);
    cz_csr_dict d;
    memset(&d, 0, sizeof d);
    int rc = cz_csr_dict_coefs(&d, m, 0, (uint64_t)1 << 20);
    for (int dict = 0; dict < 2 && !rc; dict++) {
        uint64_t *rp = NULL;
        uint32_t *col = NULL, *coef = NULL;
        cz_fr *val = NULL, *dv = NULL;
        rc = cz_gpu_malloc((void **)&rp, (rows + 1) * 8);
        if (!rc) rc = cz_gpu_malloc((void **)&col, nnz * 4);
        if (!rc) rc = cz_gpu_memcpy_htod(rp, m->row_ptr, (rows + 1) * 8);
        if (!rc) rc = cz_gpu_memcpy_htod(col, m->col, nnz * 4);
        if (!rc && !dict) rc = cz_gpu_malloc((void **)&val, nnz * sizeof(cz_fr));
        if (!rc && !dict) rc = cz_gpu_memcpy_htod(val, m->val, nnz * sizeof(cz_fr));
        if (!rc && dict) rc = cz_gpu_malloc((void **)&coef, nnz * 4);
        if (!rc && dict) rc = cz_gpu_memcpy_htod(coef, d.coef, nnz * 4);
        if (!rc && dict) rc = cz_gpu_malloc((void **)&dv, d.ncoeffs * sizeof(cz_fr));
        if (!rc && dict) rc = cz_gpu_memcpy_htod(dv, d.coeffs, d.ncoeffs * sizeof(cz_fr));
        uint32_t one = UINT32_MAX;
        for (uint32_t i = 0; i < d.ncoeffs; i++)
            if (cz_fr_equal(&d.coeffs[i], &CZ_FR_ONE_V)) one = i;
        cz_gpu_csr *g = NULL;
        if (!rc) rc = dict ? cz_gpu_csr_wrap_dict_(&g, rows, rp, col, coef, dv, d.ncoeffs, one)
                           : cz_gpu_csr_wrap_(&g, rows, rp, col, val);
        CHECK_MSG(rc == 0, "wrap (dict %d): %s", dict, cz_error_message());
        if (rc) break;
        unsigned rb, cb;
        size_t bytes;
        cz_gpu_csr_layout_(g, &rb, &cb, &bytes);
        CHECK(rb == 8 && cb == (dict ? 4u : 0u));
        CHECK(bytes == (rows + 1) * 8 + nnz * 4 + (dict ? nnz * 4 + (size_t)d.ncoeffs * 32 : nnz * 32));
        check_products(g, m, w, dict ? "wrap_dict_" : "wrap_");
        cz_gpu_csr_free(g);
    }
    CHECK_MSG(rc == 0, "wrap: %s", cz_error_message());
    cz_csr_dict_free(&d);
}

/* the synthetic prover charges the narrow layout: 4 bytes a row pointer and 2 an index (pool 1,331) less than
 * the wide one, the same matrices otherwise (same seed) */
static void test_synthetic(void) {
    cz_gpu_synth_shape s = {0};
    s.log_n = 14;
    s.num_inputs = 300;
    s.num_aux = 15000, s.num_constraints = 16000;
    s.a_w_lo = 2, s.a_w_frac = 375, s.b_w_lo = 1, s.c_w_lo = 2, s.c_w_frac = 170;
    s.b_stride = 4;
    s.coeff_one = 900;
    s.coeff_pool = 1331;
    const uint64_t seed = cz_rng_next(&rng);
    size_t dev[2] = {0, 0};
    uint64_t nnz[2][3];
    for (int wide = 0; wide < 2; wide++) {
        set_knob("CZ_GPU_CSR_NARROW", wide ? "0" : NULL);
        cz_gpu_prover *pr = NULL;
        int rc = cz_gpu_prover_create_synthetic(&pr, 0, &s, seed, 0);
        CHECK_MSG(rc == 0, "synthetic prover (wide %d): %s", wide, cz_error_message());
        if (rc) return;
        uint64_t ni, na, a_len, b_len;
        cz_gpu_prover_sizes(pr, &ni, &na, &a_len, &b_len, nnz[wide]);
        dev[wide] = cz_gpu_prover_device_bytes(pr);
        cz_fr *w = malloc((ni + na) * sizeof *w);
        cz_groth16_pending pd;
        cz_gpu_prove_stats st;
        rc = cz_gpu_prover_synth_witness(pr, w, 514, 473, cz_rng_next(&rng));
        if (!rc) rc = cz_gpu_prover_start(&pd, pr, w, w + ni, 0, &st);
        CHECK_MSG(rc == 0, "synthetic start (wide %d): %s", wide, cz_error_message());
        free(w);
        cz_gpu_prover_destroy(pr);
    }
    set_knob("CZ_GPU_CSR_NARROW", NULL);
    const uint64_t rows = s.num_constraints + s.num_inputs;
    size_t saved = 0;
    for (int k = 0; k < 3; k++) {
        CHECK(nnz[0][k] == nnz[1][k]);
        if (nnz[0][k]) saved += (rows + 1) * 4 + nnz[0][k] * 2;
    }
    CHECK_MSG(dev[1] - dev[0] == saved, "synthetic prover: %zu device bytes narrow, %zu wide, want %zu less", dev[0],
              dev[1], saved);
}

int main(void) {
    if (cz_gpu_device_count() <= 0) {
        printf("SKIP: no CUDA device\n");
        return 77;
    }
    cz_test_rng(&rng);
    static const struct {
        uint64_t ni, na, rows;
        uint32_t pool;
        int lng;
        const char *name;
    } mats[] = {
        {5, 37, 60, 3, 1, "3 values, 37 aux"},
        {10, 2013, 3000, 256, 1, "256 values"},
        {10, 2013, 3000, 257, 1, "257 values"},
        {40, 50001, 6000, 65536, 1, "65,536 values"},
        {40, 50001, 6000, 65537, 1, "65,537 values"},
        {7, 5000, 4000, 0, 1, "a value per term"},
        {3, 200, 5000, 12, 0, "12 values, no long rows"},
        {3, 100, 10, 0, -1, "empty rows"},
    };
    static const unsigned mixes[][2] = {{45, 45}, {5, 5}, {50, 50}, {0, 0}, {60, 38}};
    static const char *const long_modes[3] = {NULL, "1", "0"};
    for (size_t mi = 0; mi < sizeof mats / sizeof mats[0]; mi++) {
        cz_csr m;
        make_matrix(&m, mats[mi].rows, mats[mi].ni + mats[mi].na, mats[mi].pool, mats[mi].lng);
        if (mats[mi].pool > 1) CHECK(cz_r1cs_nnz(&m) >= mats[mi].pool);
        witness ws[5];
        int nws = 0, rc = 0;
        for (; nws < 5 && !rc; nws++)
            rc = make_witness(&ws[nws], &m, mats[mi].ni, mats[mi].na, mixes[nws][0], mixes[nws][1]);
        CHECK_MSG(rc == 0, "witness: %s", cz_error_message());
        for (size_t li = 0; li < sizeof layouts / sizeof layouts[0] && !rc; li++)
            for (int l = 0; l < 3; l++)
                test_layout(&m, mats[mi].pool, ws, nws, &layouts[li], long_modes[l], mats[mi].name);
        set_layout(&(layout){NULL, NULL, NULL, NULL});
        unsetenv("CZ_GPU_SPMV_LONG");
        if (!rc && cz_r1cs_nnz(&m)) test_wrap(&m, &ws[0]);
        for (int k = 0; k < nws; k++) free_witness(&ws[k]);
        free_matrix(&m);
        printf("%s checked\n", mats[mi].name);
    }
    test_synthetic();
    printf("synthetic prover checked\n");
    return cz_test_finish();
}
