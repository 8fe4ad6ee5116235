/* a = A w, b = B w, c = C w on the device from CSR matrices uploaded once, so that per partition only
 * the witness crosses PCIe. One thread per row: rows are short (PoRep: 1-3 entries on average), and
 * the sums are exact field sums, so the result is bit-identical to cz_csr_mul_vec whatever the order.
 * Coefficients equal to 1 (most of them in real circuits) skip the multiplication, as on the CPU. */
#include "gpu/cuda_util.cuh"
#include "gpu/field.cuh"
#include "gpu/gpu.h"
#include "gpu/prover_internal.h"

struct cz_gpu_csr {
    uint64_t rows, nnz;
    uint64_t *row_ptr; /* rows + 1 */
    uint32_t *col;
    cz_dfr *val;
};

extern "C" size_t cz_gpu_csr_bytes(uint64_t rows, uint64_t nnz) {
    return (size_t)(rows + 1) * 8 + (size_t)nnz * (4 + sizeof(cz_fr));
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
    *out = m;
    return 0;
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
    free(m);
}

extern "C" int cz_gpu_csr_upload(cz_gpu_csr **out, const cz_csr *h) {
    *out = NULL;
    const uint64_t rows = h->rows, nnz = cz_r1cs_nnz(h);
    uint64_t *rp = NULL;
    uint32_t *col = NULL;
    cz_fr *val = NULL;
    int rc = cz_gpu_malloc((void **)&rp, (rows + 1) * 8);
    if (!rc) rc = cz_gpu_malloc((void **)&col, (nnz ? nnz : 1) * 4);
    if (!rc) rc = cz_gpu_malloc((void **)&val, (nnz ? nnz : 1) * sizeof(cz_fr));
    if (!rc && rows) rc = cz_gpu_memcpy_htod(rp, h->row_ptr, (rows + 1) * 8);
    if (!rc && !rows) rc = cz_gpu_memset(rp, 0, 8);
    if (!rc && nnz) rc = cz_gpu_memcpy_htod(col, h->col, nnz * 4);
    if (!rc && nnz) rc = cz_gpu_memcpy_htod(val, h->val, nnz * sizeof(cz_fr));
    if (!rc) rc = cz_gpu_csr_wrap_(out, rows, rp, col, val);
    if (rc) {
        cz_gpu_free(rp);
        cz_gpu_free(col);
        cz_gpu_free(val);
    }
    return rc;
}

/* log_rev > 0: row i goes to position bitrev(i) of 2^log_rev (scattered 32-byte stores, one sector each). */
__global__ void csr_mul_vec(cz_dfr *out, size_t n_out, uint64_t rows, const uint64_t *rp, const uint32_t *col,
                            const cz_dfr *val, const cz_dfr *w, unsigned log_rev) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n_out) return;
    cz_dfr acc = cz_dfr::zero();
    if (i < rows) {
        const cz_dfr one = cz_dfr::one();
        for (uint64_t k = rp[i], e = rp[i + 1]; k < e; k++) {
            const cz_dfr x = cz_ld(w + col[k]), v = cz_ld(val + k);
            acc = acc + (v == one ? x : v * x);
        }
    }
    cz_st(out + (log_rev ? (size_t)(__brev((uint32_t)i) >> (32 - log_rev)) : i), acc);
}

extern "C" int cz_gpu_csr_mul_vec(cz_fr *d_out, size_t n_out, const cz_gpu_csr *m, const cz_fr *d_w, void *stream) {
    if (n_out < m->rows) return cz_error(CZ_ERANGE, "CSR product: %zu outputs for %llu rows", n_out,
                                         (unsigned long long)m->rows);
    if (!n_out) return 0;
    csr_mul_vec<<<(unsigned)((n_out + 255) / 256), 256, 0, (cudaStream_t)stream>>>(
        (cz_dfr *)d_out, n_out, m->rows, m->row_ptr, m->col, m->val, (const cz_dfr *)d_w, 0);
    CZ_CUDA_LAUNCHED();
    return 0;
}

extern "C" int cz_gpu_csr_mul_vec_rev(cz_fr *d_out, unsigned log_n, const cz_gpu_csr *m, const cz_fr *d_w,
                                      void *stream) {
    if (log_n < 1 || log_n > 31) return cz_error(CZ_ERANGE, "bit-reversed CSR product of 2^%u", log_n);
    const size_t n_out = (size_t)1 << log_n;
    if (n_out < m->rows) return cz_error(CZ_ERANGE, "CSR product: %zu outputs for %llu rows", n_out,
                                         (unsigned long long)m->rows);
    csr_mul_vec<<<(unsigned)((n_out + 255) / 256), 256, 0, (cudaStream_t)stream>>>(
        (cz_dfr *)d_out, n_out, m->rows, m->row_ptr, m->col, m->val, (const cz_dfr *)d_w, log_n);
    CZ_CUDA_LAUNCHED();
    return 0;
}
