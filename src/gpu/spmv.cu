/* a = A w, b = B w, c = C w on the device from CSR matrices uploaded once, so that per partition only
 * the witness crosses PCIe. One thread per row: rows are short (PoRep: 1-3 entries on average), and
 * the sums are exact field sums, so the result is bit-identical to cz_csr_mul_vec whatever the order.
 * The few long rows are summed by a warp each instead (their list made at upload): PoRep's A has
 * rows of up to ~930 terms (SHA-256's packing sums), 0.5 % of its rows holding ~38 % of its terms, and
 * a thread a row made each of their warps wait out the longest (32 GiB: A and B took ~90 ms, ~12x the
 * terms' own loop count).
 * Coefficients equal to 1 (most of them in real circuits) skip the multiplication, as on the CPU.
 * The coefficients are stored dictionary-coded (r1cs/csr_dict.h: an index per term into the matrix's
 * distinct values) when that is smaller, which it is for real circuits (1, -1, powers of two, a few
 * constants), else as values (random test circuits).
 * Narrow layout (what lets a 2^27 partition fit a 16 GB card): row pointers are u32 when the terms number
 * below 2^32 (32 GiB PoRep's A has ~310 M) and the indices take 1, 2 or 4 bytes as the dictionary needs
 * (PoRep: A 1,331 values -> 2 bytes, B 12 -> 1 byte), so a dictionary term costs 6 or 5 bytes instead of 8
 * and a row 4 bytes instead of 8 (32 GiB: A 3.52 -> 2.38 GB, B 2.08 -> 1.17 GB). The kernels are templates over the
 * two widths (and the witness' form), so their loops hold no width branch; each launch dispatches once.
 * The witness is read either dense (32 bytes a variable) or compact (r1cs/wcompact.h: 0/1 bitmaps and the
 * other values in order), where a 0/1 value makes its term the coefficient or nothing: no product at all. */
#include "gpu/cuda_util.cuh"
#include "gpu/field.cuh"
#include "gpu/gpu.h"
#include "gpu/prover_internal.h"
#include "r1cs/csr_dict.h"

struct cz_gpu_csr {
    uint64_t rows, nnz;
    void *row_ptr;  /* rows + 1, row_bytes each (u32 or u64) */
    uint32_t *col;
    cz_dfr *val;    /* the values, or NULL: dictionary-coded */
    void *coef;     /* dictionary-coded: index per term into dict, coef_bytes each (u8, u16 or u32) */
    cz_dfr *dict;
    uint32_t ndict, one; /* one: the index of 1 in dict (UINT32_MAX: none) */
    uint32_t lmax;       /* rows of more terms than this are long (UINT32_MAX: none are) */
    uint32_t *lrows;     /* the long rows' indices, nlong of them */
    uint64_t nlong;
    unsigned row_bytes, coef_bytes; /* coef_bytes 0: values */
    size_t bytes;                   /* device bytes of the arrays above */
    /* host: row_ptr, col and val / coef live in mapped page-locked host memory (kernels read them over PCIe;
     * h[] are the host addresses to free, host_bytes their size; bytes then counts dict and lrows only) */
    int host;
    void *h[4];
    size_t host_bytes;
};

/* CZ_GPU_SPMV_LONG: the long-row bound (terms; 0: every row by one thread), default 8 */
static uint32_t long_bound(void) {
    const char *e = getenv("CZ_GPU_SPMV_LONG");
    if (!e || !*e) return 8;
    const long v = atol(e);
    return v <= 0 ? UINT32_MAX : (uint32_t)v;
}

/* rows of m longer than lmax (out may be NULL: the count only) */
static uint64_t long_rows(const cz_csr *m, uint32_t lmax, uint32_t *out) {
    uint64_t n = 0;
    if (lmax == UINT32_MAX) return 0;
    for (uint64_t i = 0; i < m->rows; i++)
        if (m->row_ptr[i + 1] - m->row_ptr[i] > lmax) {
            if (out) out[n] = (uint32_t)i;
            n++;
        }
    return n;
}

/* CZ_GPU_CSR_NARROW=0: the wide layout (u64 row pointers, u32 indices), for A/B measurement */
static bool narrow_on(void) {
    const char *e = getenv("CZ_GPU_CSR_NARROW");
    return !(e && *e && atoi(e) == 0);
}

extern "C" unsigned cz_gpu_csr_row_bytes_(uint64_t nnz) {
    if (!narrow_on() || nnz > UINT32_MAX) return 8;
    const char *e = getenv("CZ_GPU_CSR_ROW_BYTES"); /* tests: 8 forces the u64 form on small matrices */
    return e && atoi(e) == 8 ? 8 : 4;
}

extern "C" unsigned cz_gpu_csr_coef_bytes_(uint64_t ndict) {
    if (!narrow_on()) return 4;
    const unsigned need = ndict <= 256 ? 1 : ndict <= 65536 ? 2 : 4;
    const char *e = getenv("CZ_GPU_CSR_COEF_BYTES"); /* tests: a wider index than needed; too narrow is ignored */
    const int k = e && *e ? atoi(e) : 0;
    return (k == 1 || k == 2 || k == 4) && (unsigned)k >= need ? (unsigned)k : need;
}

extern "C" size_t cz_gpu_csr_bytes(uint64_t rows, uint64_t nnz) {
    return (size_t)(rows + 1) * cz_gpu_csr_row_bytes_(nnz) + (size_t)nnz * (4 + sizeof(cz_fr));
}

static size_t dict_bytes(uint64_t rows, uint64_t nnz, uint32_t ndict) {
    return (size_t)(rows + 1) * cz_gpu_csr_row_bytes_(nnz) + (size_t)nnz * (4 + cz_gpu_csr_coef_bytes_(ndict)) +
           (size_t)ndict * sizeof(cz_fr);
}

/* CZ_GPU_CSR_DICT: 0 never, 1 always (tests), unset: when smaller */
extern "C" int cz_gpu_csr_prepare_(const cz_csr *m, cz_csr_dict *d, size_t *bytes) {
    memset(d, 0, sizeof *d);
    const uint64_t nnz = cz_r1cs_nnz(m), lb = long_rows(m, long_bound(), NULL) * 4;
    *bytes = cz_gpu_csr_bytes(m->rows, nnz) + lb;
    const char *e = getenv("CZ_GPU_CSR_DICT");
    const int knob = e && *e ? atoi(e) : -1;
    if (knob == 0 || !nnz) return 0; /* values (a coded matrix's expanded as they are copied: tests) */
    if (m->coef) { /* coded on the host (the engine's R1CS): its coding, not a copy */
        cz_csr_dict_borrow(d, m);
        *bytes = dict_bytes(m->rows, nnz, d->ncoeffs) + lb;
        return 0;
    }
    if (cz_csr_dict_coefs(d, m, 0, (uint64_t)1 << 20)) { /* 2^32 distinct values, or no host memory: values */
        memset(d, 0, sizeof *d);
        return 0;
    }
    const size_t db = dict_bytes(m->rows, nnz, d->ncoeffs) + lb;
    if (knob == 1 || db < *bytes) {
        *bytes = db;
        return 0;
    }
    cz_csr_dict_free(d);
    return 0;
}

/* The handle over device arrays of the given widths (taking ownership); bytes: the arrays' sizes. */
static int make_csr(cz_gpu_csr **out, uint64_t rows, uint64_t nnz, void *row_ptr, unsigned row_bytes, uint32_t *col,
                    cz_fr *val, void *coef, unsigned coef_bytes, cz_fr *dict, uint32_t ndict, uint32_t one) {
    cz_gpu_csr *m = (cz_gpu_csr *)calloc(1, sizeof *m);
    if (!m) return cz_error(CZ_ENOMEM, "GPU CSR handle");
    m->rows = rows;
    m->nnz = nnz;
    m->row_ptr = row_ptr;
    m->row_bytes = row_bytes;
    m->col = col;
    m->val = (cz_dfr *)val;
    m->coef = coef;
    m->coef_bytes = coef ? coef_bytes : 0;
    m->dict = coef ? (cz_dfr *)dict : NULL;
    m->ndict = coef ? ndict : 0;
    m->one = coef ? one : UINT32_MAX;
    m->lmax = UINT32_MAX;
    m->bytes = (size_t)(rows + 1) * row_bytes + (size_t)nnz * 4 +
               (coef ? (size_t)nnz * coef_bytes + (size_t)ndict * sizeof(cz_fr) : (size_t)nnz * sizeof(cz_fr));
    *out = m;
    return 0;
}

extern "C" int cz_gpu_csr_wrap_narrow_(cz_gpu_csr **out, uint64_t rows, void *row_ptr, unsigned row_bytes,
                                       uint32_t *col, cz_fr *val, void *coef, unsigned coef_bytes, cz_fr *dict,
                                       uint32_t ndict, uint32_t one) {
    *out = NULL;
    if ((row_bytes != 4 && row_bytes != 8) || (coef && coef_bytes != 1 && coef_bytes != 2 && coef_bytes != 4))
        return cz_error(CZ_EINVAL, "GPU CSR: %u-byte row pointers, %u-byte indices", row_bytes, coef_bytes);
    uint64_t nnz = 0; /* little-endian: a u32 count lands in the low half */
    CZ_CUDA(cudaMemcpy(&nnz, (uint8_t *)row_ptr + rows * row_bytes, row_bytes, cudaMemcpyDeviceToHost));
    return make_csr(out, rows, nnz, row_ptr, row_bytes, col, val, coef, coef_bytes, dict, ndict, one);
}

extern "C" int cz_gpu_csr_wrap_(cz_gpu_csr **out, uint64_t rows, uint64_t *row_ptr, uint32_t *col, cz_fr *val) {
    return cz_gpu_csr_wrap_narrow_(out, rows, row_ptr, 8, col, val, NULL, 0, NULL, 0, UINT32_MAX);
}

extern "C" int cz_gpu_csr_wrap_dict_(cz_gpu_csr **out, uint64_t rows, uint64_t *row_ptr, uint32_t *col, uint32_t *coef,
                                     cz_fr *dict, uint32_t ndict, uint32_t one) {
    return cz_gpu_csr_wrap_narrow_(out, rows, row_ptr, 8, col, NULL, coef, 4, dict, ndict, one);
}

extern "C" int cz_gpu_csr_is_dict(const cz_gpu_csr *m, uint32_t *ndict) {
    if (ndict) *ndict = m->ndict;
    return m->coef != NULL;
}

extern "C" void cz_gpu_csr_info_(const cz_gpu_csr *m, uint64_t *rows, uint64_t *nnz, const uint32_t **col) {
    *rows = m->rows;
    *nnz = m->nnz;
    *col = m->col;
}

extern "C" void cz_gpu_csr_layout_(const cz_gpu_csr *m, unsigned *row_bytes, unsigned *coef_bytes, size_t *bytes) {
    if (row_bytes) *row_bytes = m->row_bytes;
    if (coef_bytes) *coef_bytes = m->coef_bytes;
    if (bytes) *bytes = m->bytes;
}

extern "C" size_t cz_gpu_csr_host_bytes_(const cz_gpu_csr *m) { return m->host_bytes; }

extern "C" size_t cz_gpu_csr_host_dev_bytes_(const cz_csr *m, const cz_csr_dict *d) {
    return (d && d->coef ? (size_t)d->ncoeffs * sizeof(cz_fr) : 0) + long_rows(m, long_bound(), NULL) * 4;
}

extern "C" size_t cz_gpu_csr_dev_rest_(const cz_gpu_csr *m) {
    return (m->dict ? (size_t)m->ndict * sizeof(cz_fr) : 0) + (size_t)m->nlong * 4;
}

/* The arrays whose size grows with the terms (row pointers, columns, values or indices): 4 of them, NULL where
 * absent, with the byte sizes they were allocated with. */
static void big_arrays(const cz_gpu_csr *m, void **a[4], size_t sz[4]) {
    a[0] = &((cz_gpu_csr *)m)->row_ptr, sz[0] = (size_t)(m->rows + 1) * m->row_bytes;
    a[1] = (void **)&((cz_gpu_csr *)m)->col, sz[1] = (size_t)(m->nnz ? m->nnz : 1) * 4;
    a[2] = (void **)&((cz_gpu_csr *)m)->val, sz[2] = m->val ? (size_t)(m->nnz ? m->nnz : 1) * sizeof(cz_fr) : 0;
    a[3] = &((cz_gpu_csr *)m)->coef, sz[3] = m->coef ? (size_t)(m->nnz ? m->nnz : 1) * m->coef_bytes : 0;
}

extern "C" int cz_gpu_csr_to_host_(cz_gpu_csr *m) {
    if (m->host) return 0;
    void **a[4], *hp[4] = {NULL, NULL, NULL, NULL}, *dp[4] = {NULL, NULL, NULL, NULL};
    size_t sz[4];
    big_arrays(m, a, sz);
    int rc = 0;
    for (int i = 0; i < 4 && !rc; i++) {
        if (!*a[i] || !sz[i]) continue;
        rc = cz_gpu_host_alloc_mapped_(&hp[i], &dp[i], sz[i]);
        /* a matrix without terms has one-element placeholders that nothing wrote (compute-sanitizer's initcheck) */
        if (!rc && (i == 0 || m->nnz)) rc = cz_gpu_memcpy_dtoh(hp[i], *a[i], sz[i]);
    }
    if (rc) {
        for (int i = 0; i < 4; i++) cz_gpu_host_free(hp[i]);
        return rc;
    }
    for (int i = 0; i < 4; i++)
        if (hp[i]) cz_gpu_free(*a[i]), *a[i] = dp[i], m->h[i] = hp[i];
    m->host = 1, m->host_bytes = m->bytes - cz_gpu_csr_dev_rest_(m), m->bytes -= m->host_bytes;
    return 0;
}

extern "C" void cz_gpu_csr_free(cz_gpu_csr *m) {
    if (!m) return;
    if (m->host) {
        for (int i = 0; i < 4; i++) cz_gpu_host_free(m->h[i]);
    } else {
        cz_gpu_free(m->row_ptr);
        cz_gpu_free(m->col);
        cz_gpu_free(m->val);
        cz_gpu_free(m->coef);
    }
    cz_gpu_free(m->dict);
    cz_gpu_free(m->lrows);
    free(m);
}

static int plain_htod(void *ctx, void *dst, const void *src, size_t bytes) {
    (void)ctx;
    return cz_gpu_memcpy_htod(dst, src, bytes);
}

typedef int (*htod_fn)(void *ctx, void *dst, const void *src, size_t bytes);

/* n host values of src_bytes each (8: u64, 4: u32) to dst as dst_bytes each: through a host temporary
 * (spmv_host.c's parallel narrowing, freed after the synchronous copy) when narrower, else as they are */
static int htod_narrowed(htod_fn htod, void *ctx, void *dst, unsigned dst_bytes, const void *src, unsigned src_bytes,
                         size_t n, const char *what) {
    if (dst_bytes == src_bytes) return htod(ctx, dst, src, n * src_bytes);
    void *t = malloc(n * dst_bytes);
    if (!t) return cz_error(CZ_ENOMEM, "GPU CSR: %zu bytes of narrowed %s on the host", n * dst_bytes, what);
    cz_gpu_narrow_(t, dst_bytes, src, src_bytes, n);
    const int rc = htod(ctx, dst, t, n * dst_bytes);
    free(t);
    return rc;
}

/* Where an upload puts the term arrays: device memory through htod, or (host) mapped page-locked host memory
 * filled in place. */
typedef struct {
    int host;
    htod_fn htod;
    void *ctx;
    void *h[4]; /* host addresses of the mapped arrays (row pointers, columns, values, indices) */
} up_dst;

static int up_alloc(up_dst *u, int slot, void **d, size_t bytes) {
    return u->host ? cz_gpu_host_alloc_mapped_(&u->h[slot], d, bytes) : cz_gpu_malloc(d, bytes);
}

/* n values of src_bytes from src into slot's array d as dst_bytes each */
static int up_copy(up_dst *u, int slot, void *d, unsigned dst_bytes, const void *src, unsigned src_bytes, size_t n,
                   const char *what) {
    if (!u->host) return htod_narrowed(u->htod, u->ctx, d, dst_bytes, src, src_bytes, n, what);
    if (dst_bytes == src_bytes) memcpy(u->h[slot], src, n * src_bytes);
    else cz_gpu_narrow_(u->h[slot], dst_bytes, src, src_bytes, n);
    return 0;
}

static void up_free(up_dst *u, void *d[4]) {
    for (int i = 0; i < 4; i++) {
        if (u->host) cz_gpu_host_free(u->h[i]), u->h[i] = NULL;
        else cz_gpu_free(d[i]);
    }
}

static int upload_impl(cz_gpu_csr **out, const cz_csr *h, const cz_csr_dict *d, up_dst *u) {
    if (!u->htod) u->htod = plain_htod;
    *out = NULL;
    const uint64_t rows = h->rows, nnz = cz_r1cs_nnz(h);
    const bool dict = d && d->coef;
    /* the widths prepare_ counted (the same knobs, read again) */
    const unsigned rb = cz_gpu_csr_row_bytes_(nnz), cb = dict ? cz_gpu_csr_coef_bytes_(d->ncoeffs) : 0;
    void *arr[4] = {NULL, NULL, NULL, NULL}; /* row pointers, columns, values, indices */
    cz_fr *dv = NULL;
    int rc = up_alloc(u, 0, &arr[0], (rows + 1) * rb);
    if (!rc) rc = up_alloc(u, 1, &arr[1], (nnz ? nnz : 1) * 4);
    if (!rc && !dict) rc = up_alloc(u, 2, &arr[2], (nnz ? nnz : 1) * sizeof(cz_fr));
    if (!rc && dict) rc = up_alloc(u, 3, &arr[3], (nnz ? nnz : 1) * cb);
    if (!rc && dict) rc = cz_gpu_malloc((void **)&dv, (d->ncoeffs ? d->ncoeffs : 1) * sizeof(cz_fr));
    if (!rc && rows) rc = up_copy(u, 0, arr[0], rb, h->row_ptr, 8, rows + 1, "row pointers");
    if (!rc && !rows) rc = u->host ? (memset(u->h[0], 0, rb), 0) : cz_gpu_memset(arr[0], 0, rb);
    if (!rc && nnz) rc = up_copy(u, 1, arr[1], 4, h->col, 4, nnz, "columns");
    if (!rc && nnz && !dict) {
        const cz_fr *v = h->val;
        cz_fr *t = NULL;
        if (!v) { /* a coded host matrix stored as values (CZ_GPU_CSR_DICT=0): expanded for the copy */
            if (!(t = (cz_fr *)malloc(nnz * sizeof(cz_fr))))
                rc = cz_error(CZ_ENOMEM, "GPU CSR: %llu expanded values on the host", (unsigned long long)nnz);
            for (uint64_t k = 0; t && k < nnz; k++) t[k] = *cz_csr_coeff(h, k);
            v = t;
        }
        if (!rc) rc = up_copy(u, 2, arr[2], sizeof(cz_fr), v, sizeof(cz_fr), nnz, "values");
        free(t);
    }
    if (!rc && nnz && dict) rc = up_copy(u, 3, arr[3], cb, d->coef, 4, nnz, "coefficient indices");
    if (!rc && dict && d->ncoeffs) rc = cz_gpu_memcpy_htod(dv, d->coeffs, d->ncoeffs * sizeof(cz_fr));
    uint32_t one = UINT32_MAX; /* the index of 1 in the dictionary */
    for (uint32_t i = 0; dict && i < d->ncoeffs; i++)
        if (cz_fr_equal(&d->coeffs[i], &CZ_FR_ONE_V)) one = i;
    if (!rc) rc = make_csr(out, rows, nnz, arr[0], rb, (uint32_t *)arr[1], (cz_fr *)arr[2], arr[3], cb, dv,
                           dict ? d->ncoeffs : 0, one);
    if (rc) {
        up_free(u, arr);
        cz_gpu_free(dv);
        return rc;
    }
    if (u->host) {
        cz_gpu_csr *m = *out;
        m->host = 1, m->host_bytes = m->bytes - cz_gpu_csr_dev_rest_(m); /* no long rows' list yet */
        m->bytes -= m->host_bytes;
        memcpy(m->h, u->h, sizeof m->h);
    }
    const uint32_t lmax = long_bound();
    const uint64_t nl = long_rows(h, lmax, NULL);
    if (nl) {
        uint32_t *hl = (uint32_t *)malloc(nl * 4), *dl = NULL;
        if (!hl) rc = cz_error(CZ_ENOMEM, "GPU CSR: the long rows' list");
        if (!rc) long_rows(h, lmax, hl), rc = cz_gpu_malloc((void **)&dl, nl * 4);
        if (!rc) rc = cz_gpu_memcpy_htod(dl, hl, nl * 4);
        free(hl);
        if (rc) {
            cz_gpu_free(dl);
            cz_gpu_csr_free(*out);
            *out = NULL;
            return rc;
        }
        (*out)->lrows = dl, (*out)->nlong = nl, (*out)->lmax = lmax, (*out)->bytes += nl * 4;
    }
    return rc;
}

extern "C" int cz_gpu_csr_upload_prepared_(cz_gpu_csr **out, const cz_csr *h, const cz_csr_dict *d, htod_fn htod,
                                           void *ctx) {
    up_dst u = {0, htod, ctx, {NULL, NULL, NULL, NULL}};
    return upload_impl(out, h, d, &u);
}

extern "C" int cz_gpu_csr_upload_host_(cz_gpu_csr **out, const cz_csr *h, const cz_csr_dict *d) {
    up_dst u = {1, NULL, NULL, {NULL, NULL, NULL, NULL}};
    return upload_impl(out, h, d, &u);
}

extern "C" int cz_gpu_csr_upload(cz_gpu_csr **out, const cz_csr *h) {
    cz_csr_dict d;
    size_t bytes;
    *out = NULL;
    int rc = cz_gpu_csr_prepare_(h, &d, &bytes);
    if (!rc) rc = cz_gpu_csr_upload_prepared_(out, h, &d, NULL, NULL);
    cz_csr_dict_free(&d);
    return rc;
}

/* ---- the kernels' view of a matrix: row-pointer type RP, coefficient form CF ---- */

/* coefficients as values */
struct cf_val {
    const cz_dfr *val;
    CZ_DEV cz_dfr value(uint64_t k) const { return cz_ld(val + k); }
    CZ_DEV cz_dfr times(uint64_t k, const cz_dfr &x) const {
        const cz_dfr v = cz_ld(val + k);
        return v == cz_dfr::one() ? x : v * x;
    }
};

/* coefficients dictionary-coded with indices of type I */
template <class I>
struct cf_dict {
    const I *coef;
    const cz_dfr *dict;
    uint32_t one;
    CZ_DEV cz_dfr value(uint64_t k) const { return cz_ld(dict + coef[k]); }
    CZ_DEV cz_dfr times(uint64_t k, const cz_dfr &x) const {
        const uint32_t c = coef[k];
        return c == one ? x : cz_ld(dict + c) * x;
    }
};

template <class RP, class CF>
struct csr_view {
    const RP *row_ptr;
    const uint32_t *col;
    CF cf;
    uint64_t rows;
    uint32_t lmax;
    const uint32_t *lrows;
    uint64_t nlong;
};

/* ---- the witness: get() gives 0 (the value is 0), 1 (it is 1) or 2 (x holds it) ---- */

/* w = [inputs | aux] as 32-byte values: always 2, so the compiler drops the other cases */
struct w_dense {
    const cz_dfr *w;
    CZ_DEV int get(uint32_t c, cz_dfr &x) const {
        x = cz_ld(w + c);
        return 2;
    }
};

/* the compact form (cz_gpu_wview): one bitmap word (the bitmaps of 32 GiB PoRep's 130 M aux are 16 MB each,
 * so they stay in L2) instead of 32 bytes for a 0/1 value, which most aux values are */
struct w_compact {
    const cz_dfr *inputs, *dense;
    const uint64_t *is_bit, *bit;
    const uint32_t *offs;
    uint64_t ni;
    CZ_DEV int get(uint32_t c, cz_dfr &x) const {
        if (c < ni) {
            x = cz_ld(inputs + c);
            return 2;
        }
        const uint64_t i = c - ni, wd = i >> 6, m = (uint64_t)1 << (i & 63), ib = is_bit[wd];
        if (ib & m) return (bit[wd] & m) ? 1 : 0;
        x = cz_ld(dense + offs[wd] + __popcll(~ib & (m - 1)));
        return 2;
    }
};

/* acc += term k of m times its witness value */
template <class V, class W>
static CZ_DEV void add_term(cz_dfr &acc, const V &m, const W &w, uint64_t k) {
    cz_dfr x;
    const int kind = w.get(m.col[k], x);
    if (kind == 2) acc = acc + m.cf.times(k, x);
    else if (kind == 1) acc = acc + m.cf.value(k);
}

/* row i of m times w (0 past the last row); a long row is left to csr_long_rows (is_long set, 0 returned) */
template <class V, class W>
static CZ_DEV cz_dfr csr_row(const V &m, const W &w, size_t i, bool &is_long) {
    cz_dfr acc = cz_dfr::zero();
    is_long = false;
    if (i < m.rows) {
        const uint64_t s = m.row_ptr[i], e = m.row_ptr[i + 1];
        if (e - s > m.lmax) {
            is_long = true;
            return acc;
        }
        for (uint64_t k = s; k < e; k++) add_term(acc, m, w, k);
    }
    return acc;
}

/* the long rows, a warp each: lanes stride over the row's terms, then a shuffle sum; lane 0 stores at row
 * i (log_n 0) or at bitrev(i) of 2^log_n, or (MUL) multiplies the sum into what is there. After the kernel
 * that wrote the other rows (same stream). */
template <class V, class W, bool MUL>
__global__ void csr_long_rows(cz_dfr *out, const V m, const W w, unsigned log_n) {
    const uint64_t r = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const unsigned lane = threadIdx.x & 31;
    if (r >= m.nlong) return; /* whole warps leave together: nlong is per warp */
    const uint32_t i = m.lrows[r];
    cz_dfr acc = cz_dfr::zero();
    for (uint64_t k = (uint64_t)m.row_ptr[i] + lane, e = m.row_ptr[i + 1]; k < e; k += 32) add_term(acc, m, w, k);
#pragma unroll
    for (unsigned off = 16; off > 0; off >>= 1) acc = acc + acc.shfl_down(off);
    if (lane == 0) {
        cz_dfr *p = out + (log_n ? __brev(i) >> (32 - log_n) : i);
        cz_st(p, MUL ? cz_ld(p) * acc : acc);
    }
}

template <class V, class W, bool MUL>
static int launch_long(cz_dfr *out, const V &m, const W &w, unsigned log_n, cudaStream_t st) {
    if (!m.nlong) return 0;
    csr_long_rows<V, W, MUL><<<(unsigned)((m.nlong * 32 + 255) / 256), 256, 0, st>>>(out, m, w, log_n);
    CZ_CUDA_LAUNCHED();
    return 0;
}

/* out[i] = row i (MUL: out[i] * row i; 0 past the rows); MUL leaves the long rows' slots to csr_long_rows */
template <class V, class W, bool MUL>
__global__ void csr_mul_vec(cz_dfr *out, size_t n_out, const V m, const W w) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n_out) return;
    bool is_long;
    const cz_dfr r = csr_row(m, w, i, is_long);
    if (!MUL) cz_st(out + i, r);
    else if (!is_long) cz_st(out + i, i < m.rows ? cz_ld(out + i) * r : r);
}

/* Row i into position bitrev(i) of 2^log_n, through a tile in shared memory so the stores are coalesced (one
 * thread per row storing at bitrev(i) scatters 32-byte stores over the whole array). Write i = hi 2^(n-k) +
 * mid 2^k + lo (hi, lo of k bits): bitrev(i) = rev(lo) 2^(n-k) + rev(mid) 2^k + rev(hi). Block mid sums the
 * 2^2k rows of its tile (consecutive threads take consecutive lo: consecutive rows) into tile[hi][lo], then
 * stores them by (lo, rev(hi)): for each lo a run of 2^k consecutive positions. The tile's column index is
 * XORed with hi's top 3 bits, so both the row-wise puts and the reversed-column gets of 8 lanes hit 8
 * different 16-byte bank groups. k = min(5, n/2). */
#define REV_K 5
template <class V, class W>
__global__ void __launch_bounds__(256) csr_mul_vec_rev(cz_dfr *out, const V m, const W w, unsigned log_n, unsigned k) {
    __shared__ uint4 sh[2 << (2 * REV_K)]; /* two planes of 16-byte halves */
    const unsigned T = 1u << k, tile = T * T, sw = k > 3 ? k - 3 : 0, mb = log_n - 2 * k;
    const size_t mid = blockIdx.x;
    auto slot = [&](unsigned hi, unsigned lo) { return hi * T + (T >= 8 ? lo ^ ((hi >> sw) & 7) : lo); };
    for (unsigned e = threadIdx.x; e < tile; e += blockDim.x) {
        const unsigned lo = e & (T - 1), hi = e >> k;
        bool is_long;
        const cz_dfr x = csr_row(m, w, ((size_t)hi << (log_n - k)) | (mid << k) | lo, is_long);
        const unsigned s = slot(hi, lo);
        sh[s] = make_uint4(x.v[0], x.v[1], x.v[2], x.v[3]);
        sh[s + tile] = make_uint4(x.v[4], x.v[5], x.v[6], x.v[7]);
    }
    __syncthreads();
    const size_t rmid = mb ? __brev((uint32_t)mid) >> (32 - mb) : 0;
    for (unsigned e = threadIdx.x; e < tile; e += blockDim.x) {
        const unsigned hh = e & (T - 1), lo = e >> k, hi = k ? __brev(hh) >> (32 - k) : 0, s = slot(hi, lo);
        const size_t rlo = k ? __brev(lo) >> (32 - k) : 0;
        const uint4 a = sh[s], b = sh[s + tile];
        uint4 *q = reinterpret_cast<uint4 *>(out + ((rlo << (log_n - k)) | (rmid << k) | hh));
        q[0] = a, q[1] = b;
    }
}

/* f(view) with m's widths as types: the one width dispatch of a launch */
template <class RP, class F>
static int with_coef(const cz_gpu_csr *m, F &&f) {
    auto view = [m](auto cf) {
        return csr_view<RP, decltype(cf)>{(const RP *)m->row_ptr, m->col, cf, m->rows, m->lmax, m->lrows, m->nlong};
    };
    if (!m->coef) return f(view(cf_val{m->val}));
    switch (m->coef_bytes) {
    case 1: return f(view(cf_dict<uint8_t>{(const uint8_t *)m->coef, m->dict, m->one}));
    case 2: return f(view(cf_dict<uint16_t>{(const uint16_t *)m->coef, m->dict, m->one}));
    default: return f(view(cf_dict<uint32_t>{(const uint32_t *)m->coef, m->dict, m->one}));
    }
}

template <class F>
static int with_view(const cz_gpu_csr *m, F &&f) {
    return m->row_bytes == 4 ? with_coef<uint32_t>(m, f) : with_coef<uint64_t>(m, f);
}

extern "C" int cz_gpu_csr_mul_vec(cz_fr *d_out, size_t n_out, const cz_gpu_csr *m, const cz_fr *d_w, void *stream) {
    if (n_out < m->rows) return cz_error(CZ_ERANGE, "CSR product: %zu outputs for %llu rows", n_out,
                                         (unsigned long long)m->rows);
    if (!n_out) return 0;
    cudaStream_t st = (cudaStream_t)stream;
    const w_dense w = {(const cz_dfr *)d_w};
    return with_view(m, [&](auto v) {
        using V = decltype(v);
        csr_mul_vec<V, w_dense, false><<<(unsigned)((n_out + 255) / 256), 256, 0, st>>>((cz_dfr *)d_out, n_out, v, w);
        CZ_CUDA_LAUNCHED();
        return launch_long<V, w_dense, false>((cz_dfr *)d_out, v, w, 0, st);
    });
}

extern "C" int cz_gpu_csr_mul_vec_rev(cz_fr *d_out, unsigned log_n, const cz_gpu_csr *m, const cz_fr *d_w,
                                      void *stream) {
    if (log_n < 1 || log_n > 31) return cz_error(CZ_ERANGE, "bit-reversed CSR product of 2^%u", log_n);
    const size_t n_out = (size_t)1 << log_n;
    if (n_out < m->rows) return cz_error(CZ_ERANGE, "CSR product: %zu outputs for %llu rows", n_out,
                                         (unsigned long long)m->rows);
    const unsigned k = log_n / 2 < REV_K ? log_n / 2 : REV_K;
    cudaStream_t st = (cudaStream_t)stream;
    const w_dense w = {(const cz_dfr *)d_w};
    return with_view(m, [&](auto v) {
        using V = decltype(v);
        csr_mul_vec_rev<V, w_dense><<<(unsigned)((size_t)1 << (log_n - 2 * k)), 256, 0, st>>>((cz_dfr *)d_out, v, w,
                                                                                           log_n, k);
        CZ_CUDA_LAUNCHED();
        return launch_long<V, w_dense, false>((cz_dfr *)d_out, v, w, log_n, st);
    });
}

extern "C" int cz_gpu_csr_mul_vec_cw(cz_fr *d_out, size_t n_out, const cz_gpu_csr *m, const cz_gpu_wview *wv, int mul,
                                     void *stream) {
    if (n_out < m->rows) return cz_error(CZ_ERANGE, "CSR product: %zu outputs for %llu rows", n_out,
                                         (unsigned long long)m->rows);
    if (!n_out) return 0;
    cudaStream_t st = (cudaStream_t)stream;
    const w_compact w = {(const cz_dfr *)wv->inputs, (const cz_dfr *)wv->dense, wv->is_bit, wv->bit, wv->offs, wv->ni};
    const unsigned blocks = (unsigned)((n_out + 255) / 256);
    return with_view(m, [&](auto v) {
        using V = decltype(v);
        if (mul) csr_mul_vec<V, w_compact, true><<<blocks, 256, 0, st>>>((cz_dfr *)d_out, n_out, v, w);
        else csr_mul_vec<V, w_compact, false><<<blocks, 256, 0, st>>>((cz_dfr *)d_out, n_out, v, w);
        CZ_CUDA_LAUNCHED();
        return mul ? launch_long<V, w_compact, true>((cz_dfr *)d_out, v, w, 0, st)
                   : launch_long<V, w_compact, false>((cz_dfr *)d_out, v, w, 0, st);
    });
}
