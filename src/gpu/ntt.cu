/* Fr NTT on device memory, natural order in and out.
 *
 * Decimation in frequency, split into passes of K <= 10 radix-2 stages (2^27 = 9+9+9). A pass
 * sees the array as independent sub-problems of size N' = 2^(K+m) (m = stages left after this
 * pass) and, for each residue L mod 2^m, does a size-2^K DIF over the elements L + a*2^m in shared
 * memory with the primitive 2^K-th root, then multiplies output f1 (bit-reversed position) by the
 * four-step twiddle w'^(L*f1), w' = omega^(2^s0). Twiddles omega^e for any e < 2^28 come from two
 * 2^14-entry tables (one product). After the passes the data are in bit-reversed order; one
 * in-place swap kernel restores natural order and applies the inverse's 1/n and the coset's g^-i.
 * Fr elements are 32 B, one DRAM sector, so the strided loads of the early passes waste no bytes. */
#include <stdlib.h>

#include "gpu/cuda_util.cuh"
#include "gpu/field.cuh"
#include "gpu/gpu.h"
#include "gpu/gpu_internal.h"

struct cz_gpu_ntt {
    unsigned log_n;
    cz_dfr *tables; /* device, CZ_NTT_T_TOTAL elements */
};

static CZ_DEV cz_dfr tw_pow(const cz_dfr *lo, const cz_dfr *hi, uint32_t e) {
    return cz_ld(lo + (e & (CZ_GPU_TW_SIZE - 1))) * cz_ld(hi + (e >> CZ_GPU_TW_BITS));
}

template <int K>
struct pass_shape {
    static constexpr int H = 1 << (K - 1);                      /* butterflies per sub-problem */
    static constexpr int S = (512 >> K) > 0 ? (512 >> K) : 1;    /* sub-problems per block */
    static constexpr int THREADS = S * H;                        /* 256, or 512 for K = 10 */
};

template <int K>
__global__ void __launch_bounds__(pass_shape<K>::THREADS)
ntt_pass(cz_dfr *d, unsigned log_n, unsigned s0, const cz_dfr *inner, const cz_dfr *tw_lo,
         const cz_dfr *tw_hi, const cz_dfr *pre_lo, const cz_dfr *pre_hi) {
    constexpr int H = pass_shape<K>::H, S = pass_shape<K>::S;
    __shared__ cz_dfr sh[S * 2 * H];
    const unsigned m = log_n - s0 - K;
    const size_t nsub = (size_t)1 << (log_n - K);
    const unsigned sub = threadIdx.x % S, bf = threadIdx.x / S;
    const size_t q = (size_t)blockIdx.x * S + sub;
    const bool live = q < nsub;
    const size_t L = q & (((size_t)1 << m) - 1);
    const size_t base = ((q >> m) << (m + K)) + L;

#pragma unroll
    for (int r = 0; r < 2; r++) {
        const unsigned a = bf + r * H;
        const size_t idx = base + ((size_t)a << m);
        cz_dfr x = cz_dfr::zero();
        if (live) {
            x = cz_ld(d + idx);
            if (pre_lo) x = x * tw_pow(pre_lo, pre_hi, (uint32_t)idx);
        }
        cz_st(&sh[a * S + sub], x);
    }
    __syncthreads();

#pragma unroll
    for (int i = 0; i < K; i++) {
        const unsigned h = H >> i;
        const unsigned pos = bf & (h - 1);
        const unsigned i0 = ((bf >> (K - 1 - i)) << (K - i)) + pos, i1 = i0 + h;
        const cz_dfr u = cz_ld(&sh[i0 * S + sub]), v = cz_ld(&sh[i1 * S + sub]);
        cz_st(&sh[i0 * S + sub], u + v);
        cz_dfr t = u - v;
        if (pos) t = t * cz_ld(inner + ((pos << i) << (CZ_GPU_INNER_LOG - K)));
        cz_st(&sh[i1 * S + sub], t);
        __syncthreads();
    }

#pragma unroll
    for (int r = 0; r < 2; r++) {
        const unsigned a = bf + r * H;
        cz_dfr x = cz_ld(&sh[a * S + sub]);
        if (m > 0) {
            const uint32_t f1 = __brev(a) >> (32 - K);
            const uint32_t e = (uint32_t)((L * f1) << s0);
            if (e) x = x * tw_pow(tw_lo, tw_hi, e);
        }
        if (live) cz_st(d + base + ((size_t)a << m), x);
    }
}

/* Bit-reversal permutation in place; mode 0: no scaling, 1: times c[0], 2: times lo/hi power table. */
__global__ void ntt_bitrev_scale(cz_dfr *d, unsigned log_n, int mode, const cz_dfr *c, const cz_dfr *lo,
                                 const cz_dfr *hi) {
    const size_t n = (size_t)1 << log_n;
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const size_t j = __brev((uint32_t)i) >> (32 - log_n);
    if (i > j) return;
    cz_dfr xi = cz_ld(d + i), xj = cz_ld(d + j);
    if (mode == 1) {
        const cz_dfr s = cz_ld(c);
        xi = xi * s;
        xj = xj * s;
    } else if (mode == 2) {
        xi = xi * tw_pow(lo, hi, (uint32_t)j); /* xi moves to position j */
        xj = xj * tw_pow(lo, hi, (uint32_t)i);
    }
    cz_st(d + i, xj);
    if (i != j) cz_st(d + j, xi);
}

extern "C" int cz_gpu_ntt_create(cz_gpu_ntt **plan, unsigned log_n) {
    *plan = NULL;
    cz_fr *host = (cz_fr *)malloc(sizeof(cz_fr) * CZ_NTT_T_TOTAL);
    if (!host) return cz_error(CZ_ENOMEM, "NTT tables");
    int rc = cz_gpu_ntt_tables_(host, log_n);
    cz_gpu_ntt *p = NULL;
    if (!rc) {
        p = (cz_gpu_ntt *)calloc(1, sizeof *p);
        if (!p) rc = cz_error(CZ_ENOMEM, "NTT plan");
    }
    if (!rc) {
        p->log_n = log_n;
        rc = cz_gpu_malloc((void **)&p->tables, sizeof(cz_fr) * CZ_NTT_T_TOTAL);
    }
    if (!rc) rc = cz_gpu_memcpy_htod(p->tables, host, sizeof(cz_fr) * CZ_NTT_T_TOTAL);
    free(host);
    if (rc) {
        cz_gpu_ntt_destroy(p);
        return rc;
    }
    *plan = p;
    return 0;
}

extern "C" void cz_gpu_ntt_destroy(cz_gpu_ntt *p) {
    if (!p) return;
    cz_gpu_free(p->tables);
    free(p);
}

template <int K>
static int launch_pass(cz_dfr *d, unsigned log_n, unsigned s0, const cz_dfr *inner, const cz_dfr *lo,
                       const cz_dfr *hi, const cz_dfr *pre_lo, const cz_dfr *pre_hi, cudaStream_t st) {
    const size_t nsub = (size_t)1 << (log_n - K);
    const unsigned blocks = (unsigned)((nsub + pass_shape<K>::S - 1) / pass_shape<K>::S);
    ntt_pass<K><<<blocks, pass_shape<K>::THREADS, 0, st>>>(d, log_n, s0, inner, lo, hi, pre_lo, pre_hi);
    CZ_CUDA_LAUNCHED();
    return 0;
}

extern "C" int cz_gpu_ntt_run(cz_gpu_ntt *p, cz_fr *d_data, cz_gpu_ntt_kind kind, void *stream) {
    if ((unsigned)kind > CZ_GPU_NTT_COSET_INVERSE) return cz_error(CZ_EINVAL, "unknown NTT kind %d", (int)kind);
    const unsigned log_n = p->log_n;
    const bool inv = kind == CZ_GPU_NTT_INVERSE || kind == CZ_GPU_NTT_COSET_INVERSE;
    const cz_dfr *t = p->tables;
    const cz_dfr *lo = t + (inv ? CZ_NTT_T_INV_LO : CZ_NTT_T_FWD_LO), *hi = t + (inv ? CZ_NTT_T_INV_HI : CZ_NTT_T_FWD_HI);
    const cz_dfr *inner = t + (inv ? CZ_NTT_T_INNER_INV : CZ_NTT_T_INNER_FWD);
    const cz_dfr *pre_lo = kind == CZ_GPU_NTT_COSET_FORWARD ? t + CZ_NTT_T_G_LO : NULL;
    const cz_dfr *pre_hi = kind == CZ_GPU_NTT_COSET_FORWARD ? t + CZ_NTT_T_G_HI : NULL;
    cudaStream_t st = (cudaStream_t)stream;
    cz_dfr *d = (cz_dfr *)d_data;

    /* passes of near-equal size, at most 10 stages each */
    const unsigned np = (log_n + 9) / 10;
    unsigned s0 = 0;
    for (unsigned k = 0; k < np; k++) {
        const unsigned K = log_n / np + (k < log_n % np ? 1 : 0);
        int rc;
        switch (K) {
#define CZ_PASS(k_) case k_: rc = launch_pass<k_>(d, log_n, s0, inner, lo, hi, pre_lo, pre_hi, st); break;
            CZ_PASS(1) CZ_PASS(2) CZ_PASS(3) CZ_PASS(4) CZ_PASS(5)
            CZ_PASS(6) CZ_PASS(7) CZ_PASS(8) CZ_PASS(9) CZ_PASS(10)
#undef CZ_PASS
            default: return cz_error(CZ_ERANGE, "NTT pass of %u stages", K);
        }
        if (rc) return rc;
        pre_lo = pre_hi = NULL; /* the coset scaling happens on the first pass's loads */
        s0 += K;
    }
    const int mode = kind == CZ_GPU_NTT_INVERSE ? 1 : kind == CZ_GPU_NTT_COSET_INVERSE ? 2 : 0;
    const size_t n = (size_t)1 << log_n;
    ntt_bitrev_scale<<<(unsigned)((n + 255) / 256), 256, 0, st>>>(d, log_n, mode, t + CZ_NTT_T_NINV,
                                                                   t + CZ_NTT_T_POST_LO, t + CZ_NTT_T_POST_HI);
    CZ_CUDA_LAUNCHED();
    return 0;
}
