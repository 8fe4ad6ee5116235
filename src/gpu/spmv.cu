/* a = A w, b = B w, c = C w on the device from CSR matrices uploaded once, so that per partition only
 * the witness crosses PCIe. One thread per row: rows are short (PoRep: 1-3 entries on average), and
 * the sums are exact field sums, so the result is bit-identical to cz_csr_mul_vec whatever the order.
 * The few long rows are summed by a warp each instead (their list made at upload): PoRep's A has
 * rows of up to ~930 terms (SHA-256's packing sums), 0.5 % of its rows holding ~38 % of its terms, and
 * a thread a row made each of their warps wait out the longest (32 GiB: A and B took ~90 ms, ~12x the
 * terms' own loop count).
 * Coefficients equal to 1 (most of them in real circuits) skip the multiplication, as on the CPU.
 * The coefficients are stored dictionary-coded (r1cs/csr_dict.h: a u32 index per term into the matrix's
 * distinct values; 8 bytes a term instead of 36) when that is smaller, which it is for real circuits
 * (1, -1, powers of two, a few constants), else as values (random test circuits). */
#include "gpu/cuda_util.cuh"
#include "gpu/field.cuh"
#include "gpu/gpu.h"
#include "gpu/prover_internal.h"
#include "r1cs/csr_dict.h"

struct cz_gpu_csr {
    uint64_t rows, nnz;
    uint64_t *row_ptr; /* rows + 1 */
    uint32_t *col;
    cz_dfr *val;   /* the values, or NULL: dictionary-coded */
    uint32_t *coef; /* dictionary-coded: index per term into dict */
    cz_dfr *dict;
    uint32_t ndict, one; /* one: the index of 1 in dict (UINT32_MAX: none) */
    uint32_t lmax;       /* rows of more terms than this are long (UINT32_MAX: none are) */
    uint32_t *lrows;     /* the long rows' indices, nlong of them */
    uint64_t nlong;
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

extern "C" size_t cz_gpu_csr_bytes(uint64_t rows, uint64_t nnz) {
    return (size_t)(rows + 1) * 8 + (size_t)nnz * (4 + sizeof(cz_fr));
}

static size_t dict_bytes(uint64_t rows, uint64_t nnz, uint32_t ndict) {
    return (size_t)(rows + 1) * 8 + (size_t)nnz * 8 + (size_t)ndict * sizeof(cz_fr);
}

/* CZ_GPU_CSR_DICT: 0 never, 1 always (tests), unset: when smaller */
extern "C" int cz_gpu_csr_prepare_(const cz_csr *m, cz_csr_dict *d, size_t *bytes) {
    memset(d, 0, sizeof *d);
    const uint64_t nnz = cz_r1cs_nnz(m), lb = long_rows(m, long_bound(), NULL) * 4;
    *bytes = cz_gpu_csr_bytes(m->rows, nnz) + lb;
    const char *e = getenv("CZ_GPU_CSR_DICT");
    const int knob = e && *e ? atoi(e) : -1;
    if (knob == 0 || !nnz) return 0;
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

extern "C" int cz_gpu_csr_wrap_(cz_gpu_csr **out, uint64_t rows, uint64_t *row_ptr, uint32_t *col, cz_fr *val) {
    cz_gpu_csr *m = (cz_gpu_csr *)calloc(1, sizeof *m);
    if (!m) return cz_error(CZ_ENOMEM, "GPU CSR handle");
    uint64_t nnz = 0;
    CZ_CUDA(cudaMemcpy(&nnz, row_ptr + rows, 8, cudaMemcpyDeviceToHost));
    m->rows = rows;
    m->nnz = nnz;
    m->row_ptr = row_ptr;
    m->col = col;
    m->val = (cz_dfr *)val;
    m->one = UINT32_MAX;
    m->lmax = UINT32_MAX;
    *out = m;
    return 0;
}

extern "C" int cz_gpu_csr_wrap_dict_(cz_gpu_csr **out, uint64_t rows, uint64_t *row_ptr, uint32_t *col, uint32_t *coef,
                                     cz_fr *dict, uint32_t ndict, uint32_t one) {
    int rc = cz_gpu_csr_wrap_(out, rows, row_ptr, col, NULL);
    if (!rc) (*out)->coef = coef, (*out)->dict = (cz_dfr *)dict, (*out)->ndict = ndict, (*out)->one = one;
    return rc;
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

extern "C" void cz_gpu_csr_free(cz_gpu_csr *m) {
    if (!m) return;
    cz_gpu_free(m->row_ptr);
    cz_gpu_free(m->col);
    cz_gpu_free(m->val);
    cz_gpu_free(m->coef);
    cz_gpu_free(m->dict);
    cz_gpu_free(m->lrows);
    free(m);
}

static int plain_htod(void *ctx, void *dst, const void *src, size_t bytes) {
    (void)ctx;
    return cz_gpu_memcpy_htod(dst, src, bytes);
}

extern "C" int cz_gpu_csr_upload_prepared_(cz_gpu_csr **out, const cz_csr *h, const cz_csr_dict *d,
                                           int (*htod)(void *ctx, void *dst, const void *src, size_t bytes),
                                           void *ctx) {
    if (!htod) htod = plain_htod;
    *out = NULL;
    const uint64_t rows = h->rows, nnz = cz_r1cs_nnz(h);
    const bool dict = d && d->coef;
    uint64_t *rp = NULL;
    uint32_t *col = NULL, *coef = NULL;
    cz_fr *val = NULL, *dv = NULL;
    int rc = cz_gpu_malloc((void **)&rp, (rows + 1) * 8);
    if (!rc) rc = cz_gpu_malloc((void **)&col, (nnz ? nnz : 1) * 4);
    if (!rc && !dict) rc = cz_gpu_malloc((void **)&val, (nnz ? nnz : 1) * sizeof(cz_fr));
    if (!rc && dict) rc = cz_gpu_malloc((void **)&coef, (nnz ? nnz : 1) * 4);
    if (!rc && dict) rc = cz_gpu_malloc((void **)&dv, (d->ncoeffs ? d->ncoeffs : 1) * sizeof(cz_fr));
    if (!rc && rows) rc = htod(ctx, rp, h->row_ptr, (rows + 1) * 8);
    if (!rc && !rows) rc = cz_gpu_memset(rp, 0, 8);
    if (!rc && nnz) rc = htod(ctx, col, h->col, nnz * 4);
    if (!rc && nnz && !dict) rc = htod(ctx, val, h->val, nnz * sizeof(cz_fr));
    if (!rc && nnz && dict) rc = htod(ctx, coef, d->coef, nnz * 4);
    if (!rc && dict && d->ncoeffs) rc = cz_gpu_memcpy_htod(dv, d->coeffs, d->ncoeffs * sizeof(cz_fr));
    uint32_t one = UINT32_MAX; /* the index of 1 in the dictionary */
    for (uint32_t i = 0; dict && i < d->ncoeffs; i++)
        if (cz_fr_equal(&d->coeffs[i], &CZ_FR_ONE_V)) one = i;
    if (!rc) rc = dict ? cz_gpu_csr_wrap_dict_(out, rows, rp, col, coef, dv, d->ncoeffs, one)
                       : cz_gpu_csr_wrap_(out, rows, rp, col, val);
    if (rc) {
        cz_gpu_free(rp);
        cz_gpu_free(col);
        cz_gpu_free(val);
        cz_gpu_free(coef);
        cz_gpu_free(dv);
        return rc;
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
        (*out)->lrows = dl, (*out)->nlong = nl, (*out)->lmax = lmax;
    }
    return rc;
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

/* term k of m times its witness value */
static __device__ __forceinline__ cz_dfr csr_term(const cz_gpu_csr &m, const cz_dfr *w, uint64_t k) {
    const cz_dfr x = cz_ld(w + m.col[k]);
    if (m.coef) {
        const uint32_t c = m.coef[k];
        return c == m.one ? x : cz_ld(m.dict + c) * x;
    }
    const cz_dfr v = cz_ld(m.val + k);
    return v == cz_dfr::one() ? x : v * x;
}

/* row i of m times w (0 past the last row); a long row is left to csr_long_rows (its slot written there) */
static __device__ __forceinline__ cz_dfr csr_row(const cz_gpu_csr &m, const cz_dfr *w, size_t i) {
    cz_dfr acc = cz_dfr::zero();
    if (i < m.rows) {
        const uint64_t s = m.row_ptr[i], e = m.row_ptr[i + 1];
        if (e - s > m.lmax) return acc;
        for (uint64_t k = s; k < e; k++) acc = acc + csr_term(m, w, k);
    }
    return acc;
}

/* the long rows, a warp each: lanes stride over the row's terms, then a shuffle sum; lane 0 stores at row
 * i (log_n 0) or at bitrev(i) of 2^log_n. After the kernel that wrote the other rows (same stream). */
__global__ void csr_long_rows(cz_dfr *out, const cz_gpu_csr m, const cz_dfr *w, unsigned log_n) {
    const uint64_t r = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const unsigned lane = threadIdx.x & 31;
    if (r >= m.nlong) return; /* whole warps leave together: nlong is per warp */
    const uint32_t i = m.lrows[r];
    cz_dfr acc = cz_dfr::zero();
    for (uint64_t k = m.row_ptr[i] + lane, e = m.row_ptr[i + 1]; k < e; k += 32) acc = acc + csr_term(m, w, k);
#pragma unroll
    for (unsigned off = 16; off > 0; off >>= 1) acc = acc + acc.shfl_down(off);
    if (lane == 0) cz_st(out + (log_n ? __brev(i) >> (32 - log_n) : i), acc);
}

static int launch_long(cz_dfr *out, const cz_gpu_csr *m, const cz_dfr *w, unsigned log_n, cudaStream_t st) {
    if (!m->nlong) return 0;
    csr_long_rows<<<(unsigned)((m->nlong * 32 + 255) / 256), 256, 0, st>>>(out, *m, w, log_n);
    CZ_CUDA_LAUNCHED();
    return 0;
}

__global__ void csr_mul_vec(cz_dfr *out, size_t n_out, const cz_gpu_csr m, const cz_dfr *w) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n_out) cz_st(out + i, csr_row(m, w, i));
}

/* Row i into position bitrev(i) of 2^log_n, through a tile in shared memory so the stores are coalesced (one
 * thread per row storing at bitrev(i) scatters 32-byte stores over the whole array). Write i = hi 2^(n-k) +
 * mid 2^k + lo (hi, lo of k bits): bitrev(i) = rev(lo) 2^(n-k) + rev(mid) 2^k + rev(hi). Block mid sums the
 * 2^2k rows of its tile (consecutive threads take consecutive lo: consecutive rows) into tile[hi][lo], then
 * stores them by (lo, rev(hi)): for each lo a run of 2^k consecutive positions. The tile's column index is
 * XORed with hi's top 3 bits, so both the row-wise puts and the reversed-column gets of 8 lanes hit 8
 * different 16-byte bank groups. k = min(5, n/2). */
#define REV_K 5
__global__ void __launch_bounds__(256) csr_mul_vec_rev(cz_dfr *out, const cz_gpu_csr m, const cz_dfr *w, unsigned log_n,
                                                       unsigned k) {
    __shared__ uint4 sh[2 << (2 * REV_K)]; /* two planes of 16-byte halves */
    const unsigned T = 1u << k, tile = T * T, sw = k > 3 ? k - 3 : 0, mb = log_n - 2 * k;
    const size_t mid = blockIdx.x;
    auto slot = [&](unsigned hi, unsigned lo) { return hi * T + (T >= 8 ? lo ^ ((hi >> sw) & 7) : lo); };
    for (unsigned e = threadIdx.x; e < tile; e += blockDim.x) {
        const unsigned lo = e & (T - 1), hi = e >> k;
        const cz_dfr x = csr_row(m, w, ((size_t)hi << (log_n - k)) | (mid << k) | lo);
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

extern "C" int cz_gpu_csr_mul_vec(cz_fr *d_out, size_t n_out, const cz_gpu_csr *m, const cz_fr *d_w, void *stream) {
    if (n_out < m->rows) return cz_error(CZ_ERANGE, "CSR product: %zu outputs for %llu rows", n_out,
                                         (unsigned long long)m->rows);
    if (!n_out) return 0;
    csr_mul_vec<<<(unsigned)((n_out + 255) / 256), 256, 0, (cudaStream_t)stream>>>((cz_dfr *)d_out, n_out, *m,
                                                                                 (const cz_dfr *)d_w);
    CZ_CUDA_LAUNCHED();
    return launch_long((cz_dfr *)d_out, m, (const cz_dfr *)d_w, 0, (cudaStream_t)stream);
}

extern "C" int cz_gpu_csr_mul_vec_rev(cz_fr *d_out, unsigned log_n, const cz_gpu_csr *m, const cz_fr *d_w,
                                      void *stream) {
    if (log_n < 1 || log_n > 31) return cz_error(CZ_ERANGE, "bit-reversed CSR product of 2^%u", log_n);
    const size_t n_out = (size_t)1 << log_n;
    if (n_out < m->rows) return cz_error(CZ_ERANGE, "CSR product: %zu outputs for %llu rows", n_out,
                                         (unsigned long long)m->rows);
    const unsigned k = log_n / 2 < REV_K ? log_n / 2 : REV_K;
    csr_mul_vec_rev<<<(unsigned)((size_t)1 << (log_n - 2 * k)), 256, 0, (cudaStream_t)stream>>>((cz_dfr *)d_out, *m,
                                                                                             (const cz_dfr *)d_w, log_n, k);
    CZ_CUDA_LAUNCHED();
    return launch_long((cz_dfr *)d_out, m, (const cz_dfr *)d_w, log_n, (cudaStream_t)stream);
}
