/* Inverse NTT over G1 on the device: v_j <- sum_i w^(-i j) v_i over n = 2^log_n xyzz points, natural order in and
 * out, unscaled (g1_ntt_host.c's cz_gpu_g1_intt_unscaled; the CPU reference is groth16/h_lagrange.h's
 * cz_g1_intt_unscaled). The precompute of the Lagrange-form H query. A bit reversal, then one kernel a radix-2 DIT
 * stage, one butterfly a thread; the twiddle product k P splits k = k0 + k1 x^2 (k0, k1 < 2^128, the CPU MSM's
 * cz_msm_glv_split_) and runs one double-and-add over both halves with P, [x^2]P = (beta X, -Y, ZZ, ZZZ) and their
 * sum (Shamir's trick): 127 doublings and ~96 additions instead of 254 and ~127. [x^2] is that map only on the
 * prime-order subgroup, where the H query's points are. The group law is ec.cuh's complete xyzz one. Compute-bound:
 * a stage at 2^27 is 2^26 scalar multiplications against 52 GB of memory traffic. */
#include <stdlib.h>
#include <string.h>

#include "gpu/cuda_util.cuh"
#include "gpu/ec.cuh"
#include "gpu/field.cuh"
#include "gpu/fp_inv.cuh"
#include "gpu/gpu_internal.h"
#include "gpu/prover_internal.h"

typedef cz_dxyzz<cz_dfp> g1x;

/* The transform and the Lagrange bases' scaling run in pieces of G1NTT_PIECE scalar multiplications (~0.6 s at
 * 2^27 on an H200, from ~9 s a stage: a 32 GiB PoRep's build is 56 such kernels): after each the stream is
 * synchronised, and a thread that holds the device lock (a prover's creation) gives it to those waiting for it
 * (cz_gpu_lock_yield_), so another circuit's partition on the GPU waits one piece, not the ~8-minute build. While
 * partitions keep coming the build gets about one turn in two (one piece, then one partition). */
#define G1NTT_PIECE ((size_t)1 << 22)
/* CZ_GPU_G1NTT_PIECE (tests): smaller pieces, so that small transforms take several a stage */
static size_t piece_size(void) {
    const char *e = getenv("CZ_GPU_G1NTT_PIECE");
    const long v = e && *e ? atol(e) : 0;
    return v > 0 && (size_t)v < G1NTT_PIECE ? (size_t)v : G1NTT_PIECE;
}
static int piece_done(void *stream) {
    int rc = cz_gpu_stream_sync_(stream);
    if (!rc) rc = cz_gpu_lock_yield_(stream);
    return rc < 0 ? rc : 0;
}

static __global__ void g1ntt_bitrev(g1x *v, unsigned log_n) {
    const size_t n = (size_t)1 << log_n, i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const size_t j = __brev((uint32_t)i) >> (32 - log_n);
    if (i >= j) return;
    const g1x a = cz_ec_ld(v + i), b = cz_ec_ld(v + j);
    cz_ec_st(v + i, b);
    cz_ec_st(v + j, a);
}

/* k P for k = k0 + k1 x^2 (k0 in kp[0..3], k1 in kp[4..7], 32-bit words, little-endian), P in the subgroup */
static __device__ __noinline__ g1x g1ntt_mul(const g1x &p, const uint32_t *kp, const cz_dfp &beta) {
    uint32_t k[8];
#pragma unroll
    for (int i = 0; i < 8; i++) k[i] = kp[i];
    g1x q = p;
    q.x = q.x * beta;
    q.y = q.y.neg();
    const g1x pq = cz_ec_add(p, q);
    g1x acc = g1x::inf();
    bool started = false;
#pragma unroll 1
    for (int i = 127; i >= 0; i--) {
        if (started) acc = cz_ec_dbl(acc);
        const unsigned b = ((k[i >> 5] >> (i & 31)) & 1) | (((k[4 + (i >> 5)] >> (i & 31)) & 1) << 1);
        if (b) {
            const g1x &t = b == 1 ? p : b == 2 ? q : pq;
            acc = started ? cz_ec_add(acc, t) : t;
            started = true;
        }
    }
    return acc;
}

/* stage s: pairs (i0, i0 + 2^s), twiddle w^-(k 2^(log_n - 1 - s)) from tw (split, 8 words each) */
static __global__ void g1ntt_stage(g1x *v, const uint32_t *tw, unsigned log_n, unsigned s, size_t t0, size_t t1,
                                   const cz_dfp beta) {
    const size_t t = t0 + (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= t1) return;
    const size_t half = (size_t)1 << s, k = t & (half - 1), i0 = ((t >> s) << (s + 1)) + k, i1 = i0 + half;
    const g1x u = cz_ec_ld(v + i0);
    g1x x = cz_ec_ld(v + i1);
    if (k) x = g1ntt_mul(x, tw + 8 * (k << (log_n - 1 - s)), beta);
    cz_ec_st(v + i0, cz_ec_add(u, x));
    x.y = x.y.neg();
    cz_ec_st(v + i1, cz_ec_add(u, x));
}

/* The Lagrange bases' ends (g1_ntt_host.c cz_gpu_h_lagrange_bases): x[i] = k_i H_i for i < n - 1 (k_i split as
 * g1ntt_mul takes it, at ks + kstride i: kstride 8 gives each point its own scalar, 0 one scalar for all), and
 * x[n - 1] = infinity (the params hold n - 1 H points; the sums only reach i < n - 1). */
static __global__ void hl_prescale(g1x *x, const cz_daff<cz_dfp> *h, const uint32_t *ks, unsigned kstride, size_t n,
                                   size_t i0, size_t i1, const cz_dfp beta) {
    const size_t i = i0 + (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= i1) return;
    g1x p = g1x::inf();
    if (i + 1 < n) {
        const cz_daff<cz_dfp> a = cz_ec_ld_aff(h + i);
        if (!a.is_inf()) {
            p.x = a.x, p.y = a.y, p.zz = p.zzz = cz_dfp::one();
            p = g1ntt_mul(p, ks + (size_t)kstride * i, beta);
        }
    }
    cz_ec_st(x + i, p);
}

/* out[i] = x[i] as affine (infinity (0, 0)): one inversion a point, t = 1 / ZZZ, then X (t ZZ)^2 and Y t */
static __global__ void hl_affine(cz_daff<cz_dfp> *out, const g1x *x, size_t n) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const g1x p = cz_ec_ld(x + i);
    cz_dfp ax = cz_dfp::zero(), ay = cz_dfp::zero();
    if (!p.is_inf()) {
        const cz_dfp t = cz_fp_inv(p.zzz), zi = t * p.zz;
        ax = p.x * zi.sqr();
        ay = p.y * t;
    }
    cz_st(&out[i].x, ax);
    cz_st(&out[i].y, ay);
}

extern "C" int cz_gpu_hl_prescale_(void *d_x, const void *d_h, const uint32_t *d_ks, unsigned kstride, size_t n,
                                   const void *beta_mont, void *stream) {
    cz_dfp beta;
    memcpy(beta.v, beta_mont, sizeof beta.v);
    const size_t piece = piece_size();
    for (size_t i0 = 0; i0 < n; i0 += piece) {
        const size_t i1 = n - i0 < piece ? n : i0 + piece;
        hl_prescale<<<(unsigned)((i1 - i0 + 127) / 128), 128, 0, (cudaStream_t)stream>>>(
            (g1x *)d_x, (const cz_daff<cz_dfp> *)d_h, d_ks, kstride, n, i0, i1, beta);
        CZ_CUDA_LAUNCHED();
        const int rc = piece_done(stream);
        if (rc) return rc;
    }
    return 0;
}

extern "C" int cz_gpu_hl_affine_(void *d_out, const void *d_x, size_t n, void *stream) {
    hl_affine<<<(unsigned)((n + 255) / 256), 256, 0, (cudaStream_t)stream>>>((cz_daff<cz_dfp> *)d_out,
                                                                           (const g1x *)d_x, n);
    CZ_CUDA_LAUNCHED();
    return 0;
}

extern "C" int cz_gpu_g1_intt_run_(void *d_v, unsigned log_n, const uint32_t *d_tw, const void *beta_mont, void *stream) {
    cudaStream_t st = (cudaStream_t)stream;
    g1x *v = (g1x *)d_v;
    cz_dfp beta;
    memcpy(beta.v, beta_mont, sizeof beta.v);
    const size_t n = (size_t)1 << log_n, m = n / 2;
    g1ntt_bitrev<<<(unsigned)((n + 255) / 256), 256, 0, st>>>(v, log_n);
    CZ_CUDA_LAUNCHED();
    const size_t piece = piece_size();
    for (unsigned s = 0; s < log_n; s++)
        for (size_t t0 = 0; t0 < m; t0 += piece) {
            const size_t t1 = m - t0 < piece ? m : t0 + piece;
            g1ntt_stage<<<(unsigned)((t1 - t0 + 127) / 128), 128, 0, st>>>(v, d_tw, log_n, s, t0, t1, beta);
            CZ_CUDA_LAUNCHED();
            const int rc = piece_done(stream);
            if (rc) return rc;
        }
    return 0;
}

/* The Lagrange-form H's C term folded into L (prover_fold.c): for every variable j, LhC_j = sum_i C_ij Lh_i. One
 * term a thread first (lf_terms: t[k] = +-c_k Lh[row_k], the coefficient split as g1ntt_mul takes it), then the
 * column sums: an aux column a thread (lf_aux: L'_j = L_j - sum, its columns are short), an input column a block
 * (lf_in: the ONE column of a 32 GiB PoRep holds ~0.5 M terms). A term record is 12 words: the row, the sign (1:
 * negate), the 8 words of the split |c| and the term's slot in t (the host orders the records by |c|'s length, so a
 * warp's double-and-add chains are of one length: 89 % of a PoRep's C terms are +-1, most others powers of 2). */
static __global__ void lf_terms(g1x *t, const uint32_t *rec, size_t m, const cz_daff<cz_dfp> *lh, const cz_dfp beta) {
    const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= m) return;
    const uint32_t *r = rec + 12 * k;
    const cz_daff<cz_dfp> a = cz_ec_ld_aff(lh + r[0]);
    g1x p = g1x::inf();
    if (!a.is_inf()) {
        p.x = a.x, p.y = a.y, p.zz = p.zzz = cz_dfp::one();
        bool one = r[2] == 1;
#pragma unroll
        for (int i = 3; i < 10; i++) one = one && r[i] == 0;
        if (!one) p = g1ntt_mul(p, r + 2, beta);
        if (r[1]) p.y = p.y.neg();
    }
    cz_ec_st(t + r[10], p);
}

/* x[j] = L[j] - sum of t over [ptr[j], ptr[j + 1]) for j < cols */
static __global__ void lf_aux(g1x *x, const g1x *t, const uint64_t *ptr, size_t cols, const cz_daff<cz_dfp> *l) {
    const size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= cols) return;
    g1x s = g1x::inf();
    for (uint64_t k = ptr[j]; k < ptr[j + 1]; k++) s = cz_ec_add(s, cz_ec_ld(t + k));
    s.y = s.y.neg();
    const cz_daff<cz_dfp> a = cz_ec_ld_aff(l + j);
    if (!a.is_inf()) {
        g1x p;
        p.x = a.x, p.y = a.y, p.zz = p.zzz = cz_dfp::one();
        s = cz_ec_add(s, p);
    }
    cz_ec_st(x + j, s);
}

/* x[j] = sum of t over [ptr[j], ptr[j + 1]), block j */
#define LF_IN_THREADS 128
static __global__ void __launch_bounds__(LF_IN_THREADS) lf_in(g1x *x, const g1x *t, const uint64_t *ptr) {
    __shared__ g1x part[LF_IN_THREADS];
    const size_t j = blockIdx.x;
    g1x s = g1x::inf();
    for (uint64_t k = ptr[j] + threadIdx.x; k < ptr[j + 1]; k += LF_IN_THREADS) s = cz_ec_add(s, cz_ec_ld(t + k));
    part[threadIdx.x] = s;
    __syncthreads();
    for (unsigned h = LF_IN_THREADS / 2; h; h >>= 1) {
        if (threadIdx.x < h) part[threadIdx.x] = cz_ec_add(part[threadIdx.x], part[threadIdx.x + h]);
        __syncthreads();
    }
    if (!threadIdx.x) cz_ec_st(x + j, part[0]);
}

extern "C" int cz_gpu_lf_terms_(void *d_t, const uint32_t *d_rec, size_t m, const void *d_lh, const void *beta_mont,
                                void *stream) {
    if (!m) return 0;
    cz_dfp beta;
    memcpy(beta.v, beta_mont, sizeof beta.v);
    lf_terms<<<(unsigned)((m + 127) / 128), 128, 0, (cudaStream_t)stream>>>((g1x *)d_t, d_rec, m,
                                                                          (const cz_daff<cz_dfp> *)d_lh, beta);
    CZ_CUDA_LAUNCHED();
    return 0;
}

extern "C" int cz_gpu_lf_sums_(void *d_x, const void *d_t, const uint64_t *d_ptr, size_t cols, const void *d_l,
                               void *stream) {
    if (!cols) return 0;
    if (d_l)
        lf_aux<<<(unsigned)((cols + 127) / 128), 128, 0, (cudaStream_t)stream>>>(
            (g1x *)d_x, (const g1x *)d_t, d_ptr, cols, (const cz_daff<cz_dfp> *)d_l);
    else
        lf_in<<<(unsigned)cols, LF_IN_THREADS, 0, (cudaStream_t)stream>>>((g1x *)d_x, (const g1x *)d_t, d_ptr);
    CZ_CUDA_LAUNCHED();
    return 0;
}

/* The scalars of the Lagrange bases' random linear check (g1_ntt_host.c cz_gpu_h_lagrange_check), made on the
 * device (gpu_internal.h cz_gpu_lc_scalars_). Element i goes to thread i mod T, which runs its elements i = t,
 * t + T, ... from its own start power, stepping by the powers the host gives (f^T, g^T), so that a warp's loads and
 * stores are of consecutive elements. The constants are cz_gpu_lc_consts's as device values (the host's 4x64-bit
 * limbs are the device's 8x32 words, field.cuh). */
struct lc_dconsts {
    cz_dfr rho, f, fT, fTi, k, a, b, g, gT, gTi;
};
static_assert(sizeof(lc_dconsts) == sizeof(cz_gpu_lc_consts), "lc_dconsts mirrors cz_gpu_lc_consts");

/* x^e, e given as nw 64-bit words (little-endian), square and multiply from the top bit */
static CZ_DEV cz_dfr lc_pow(const cz_dfr &x, const uint64_t *e, int nw) {
    cz_dfr r = cz_dfr::one();
    for (int b = 64 * nw - 1; b >= 0; b--) {
        r = r.sqr();
        if ((e[b >> 6] >> (b & 63)) & 1) r = r * x;
    }
    return r;
}

/* out[i] = a0 f^i for i < m (c: a0 in rho, f, fT) */
static __global__ void lc_powers(cz_fr *out, size_t m, size_t T, const lc_dconsts c) {
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= T) return;
    const uint64_t e = t;
    cz_dfr x = c.rho * lc_pow(c.f, &e, 1);
    for (size_t i = t; i < m; i += T) {
        cz_st((cz_dfr *)&out[i], x);
        x = x * c.fT;
    }
}

/* out[i] = k / (rho f^i - 1) (a + b g^i) for i < m (rho f^i != 1 for every i). Montgomery's trick over the thread's
 * elements: the forward pass stores the product of the denominators before each, one inversion (Fermat: nothing
 * here is secret), then the backward pass from the thread's last element. */
static __global__ void lc_weights(cz_fr *out, size_t m, size_t T, const lc_dconsts c) {
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= T) return;
    const uint64_t e = t;
    const cz_dfr one = cz_dfr::one();
    cz_dfr x = c.rho * lc_pow(c.f, &e, 1), y = lc_pow(c.g, &e, 1), acc = one;
    size_t last = t;
    for (size_t i = t; i < m; i += T) {
        cz_st((cz_dfr *)&out[i], acc);
        acc = acc * (x - one);
        x = x * c.fT, y = y * c.gT, last = i;
    }
    constexpr uint64_t P[4] = CZ_FR_MODULUS;
    const uint64_t pm2[4] = {P[0] - 2, P[1], P[2], P[3]}; /* P[0] ends in 1: no borrow */
    cz_dfr inv = lc_pow(acc, pm2, 4) * c.k;
    x = x * c.fTi, y = y * c.gTi; /* at `last` */
    for (size_t i = last;; i -= T) {
        cz_dfr *o = (cz_dfr *)&out[i];
        const cz_dfr den = x - one;
        cz_st(o, cz_ld(o) * inv * (c.a + c.b * y));
        inv = inv * den;
        if (i < t + T) break;
        x = x * c.fTi, y = y * c.gTi;
    }
}

extern "C" int cz_gpu_lc_scalars_(cz_fr *d_out, size_t m, size_t T, int weights, const cz_gpu_lc_consts *c,
                                  void *stream) {
    if (!m) return 0;
    lc_dconsts dc;
    memcpy(&dc, c, sizeof dc);
    const unsigned blocks = (unsigned)((T + 127) / 128);
    if (weights) lc_weights<<<blocks, 128, 0, (cudaStream_t)stream>>>(d_out, m, T, dc);
    else lc_powers<<<blocks, 128, 0, (cudaStream_t)stream>>>(d_out, m, T, dc);
    CZ_CUDA_LAUNCHED();
    return 0;
}
