/* Shared between the .cu files and the host-side C helpers of the GPU backend (not a public API). */
#ifndef CZ_GPU_INTERNAL_H
#define CZ_GPU_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "ff/fr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The device G1 inverse NTT's launches (g1_ntt.cu) over n = 2^log_n xyzz points, twiddles w^-e (e < n/2) split
 * as k0 + k1 x^2 (cz_msm_glv_split_: 2 + 2 64-bit limbs) in d_tw, beta_mont the G1 endomorphism's cube root of
 * unity (Montgomery Fp, 48 bytes); queued on stream. */
int cz_gpu_g1_intt_run_(void *d_v, unsigned log_n, const uint32_t *d_tw, const void *beta_mont, void *stream);
/* The Lagrange bases' ends (g1_ntt.cu): d_x[i] = k_i H_i (xyzz) for i < n - 1 from the n - 1 affine points d_h,
 * k_i split as above at d_ks + kstride i (32-bit words; kstride 0: one scalar for all), d_x[n - 1] = infinity;
 * then d_out[i] = d_x[i] as affine. Queued on stream. */
int cz_gpu_hl_prescale_(void *d_x, const void *d_h, const uint32_t *d_ks, unsigned kstride, size_t n,
                        const void *beta_mont, void *stream);
int cz_gpu_hl_affine_(void *d_out, const void *d_x, size_t n, void *stream);
/* The C term's fold into L (g1_ntt.cu, prover_fold.c): d_t[s_k] = +-c_k Lh[row_k] (xyzz) for the m term records at
 * d_rec (12 words each: row, sign, the 8 words of |c_k| split as above, the slot s_k, one unused); then, over cols columns whose terms are
 * d_t[d_ptr[j] .. d_ptr[j + 1]), d_x[j] = d_l[j] - their sum (aux columns, d_l the L points) or, d_l NULL, their sum
 * (input columns, a block each). Queued on stream. */
int cz_gpu_lf_terms_(void *d_t, const uint32_t *d_rec, size_t m, const void *d_lh, const void *beta_mont,
                     void *stream);
int cz_gpu_lf_sums_(void *d_x, const void *d_t, const uint64_t *d_ptr, size_t cols, const void *d_l, void *stream);
/* The scalars of the Lagrange bases' random linear check (g1_ntt.cu; g1_ntt_host.c cz_gpu_h_lagrange_check), over m
 * elements in T threads (T <= m; CZ_GPU_LC_THREADS at most), thread t taking elements t, t + T, ...; fT = f^T,
 * fTi = f^-T, gT = g^T, gTi = g^-T. weights 0: d_out[i] = rho f^i; 1: d_out[i] = k / (rho f^i - 1) (a + b g^i), every
 * rho f^i != 1. Queued on stream. */
#define CZ_GPU_LC_THREADS ((size_t)1 << 18)
typedef struct {
    cz_fr rho, f, fT, fTi, k, a, b, g, gT, gTi;
} cz_gpu_lc_consts;
int cz_gpu_lc_scalars_(cz_fr *d_out, size_t m, size_t T, int weights, const cz_gpu_lc_consts *c, void *stream);
/* The same from c's rho, f, k, a, b and g (g1_ntt_host.c: the step powers filled in; T 0: min(m,
 * CZ_GPU_LC_THREADS)). */
int cz_gpu_lc_run_(cz_fr *d_out, size_t m, int weights, cz_gpu_lc_consts *c, size_t T, void *stream);

/* Twiddle exponents up to 2^28 are split as lo (14 bits) + hi (14 bits): omega^e = lo[e & M] * hi[e >> 14]. */
#define CZ_GPU_TW_BITS 14
#define CZ_GPU_TW_SIZE (1u << CZ_GPU_TW_BITS)
/* In-pass butterflies use powers of the primitive 2^10-th root (independent of n in bellperson's family). */
#define CZ_GPU_INNER_LOG 10
#define CZ_GPU_INNER_SIZE (1u << (CZ_GPU_INNER_LOG - 1))

/* Offsets (in elements) of the tables of one NTT plan. */
enum {
    CZ_NTT_T_FWD_LO = 0,
    CZ_NTT_T_FWD_HI = 1 * CZ_GPU_TW_SIZE,
    CZ_NTT_T_INV_LO = 2 * CZ_GPU_TW_SIZE,
    CZ_NTT_T_INV_HI = 3 * CZ_GPU_TW_SIZE,
    CZ_NTT_T_G_LO = 4 * CZ_GPU_TW_SIZE,    /* g^i */
    CZ_NTT_T_G_HI = 5 * CZ_GPU_TW_SIZE,    /* g^(i << 14) */
    CZ_NTT_T_POST_LO = 6 * CZ_GPU_TW_SIZE, /* n^-1 * g^-i */
    CZ_NTT_T_POST_HI = 7 * CZ_GPU_TW_SIZE, /* g^-(i << 14) */
    CZ_NTT_T_INNER_FWD = 8 * CZ_GPU_TW_SIZE,
    CZ_NTT_T_INNER_INV = 8 * CZ_GPU_TW_SIZE + CZ_GPU_INNER_SIZE,
    CZ_NTT_T_NINV = 8 * CZ_GPU_TW_SIZE + 2 * CZ_GPU_INNER_SIZE,
    CZ_NTT_T_GN_LO = 8 * CZ_GPU_TW_SIZE + 2 * CZ_GPU_INNER_SIZE + 1, /* n^-1 * g^i (hi: CZ_NTT_T_G_HI) */
    CZ_NTT_T_TOTAL = 9 * CZ_GPU_TW_SIZE + 2 * CZ_GPU_INNER_SIZE + 1,
};

/* Fills t[CZ_NTT_T_TOTAL] for the domain of size 2^log_n (host arithmetic from src/ff). */
int cz_gpu_ntt_tables_(cz_fr *t, unsigned log_n);
/* t[e] = w^(e << s) for e < size, w the primitive 2^log_n-th root (its inverse when inv). */
int cz_gpu_ntt_direct_(cz_fr *t, unsigned log_n, unsigned s, size_t size, int inv);

/* The H pipeline's order-agnostic transforms (no permutation pass; the pointwise step between them
 * permutes instead, cz_gpu_h_pointwise_rev_):
 *  COSET_EVAL:     evaluations on the domain (natural) -> evaluations on the coset g*omega^j (natural),
 *                  i.e. inverse then coset forward, with the coefficients never in natural order;
 *  INV_REV_TO_NAT: coset evaluations at bit-reversed positions -> coefficients (natural), the coset
 *                  inverse's 1/n and g^-i included. */
enum { CZ_GPU_H_COSET_EVAL = 0, CZ_GPU_H_INV_REV_TO_NAT = 1 };
struct cz_gpu_ntt;
int cz_gpu_ntt_h_step_(struct cz_gpu_ntt *p, cz_fr *d_data, int step, void *stream);
/* The 6-NTT H pipeline (h_host.c): C needs no coset evaluations, since its coset inverse transform is
 * its coefficients (deg C < n), and the coset inverse transform is linear:
 *   h = coset_inverse((A B - C) / Z) = coset_inverse(A B / Z) - C_coefficients / Z.
 *  h_c:     bit-reversed evaluations -> natural coefficients times *k (k = Z^-1 / n: the unscaled inverse
 *           DIT passes, k on the last stores);
 *  h_final: INV_REV_TO_NAT, then minus d_sub[i] on the last stores (d_sub = h_c's output; NULL: none). */
int cz_gpu_h_six_(void); /* 1 unless CZ_GPU_H_SEVEN=1 */
int cz_gpu_ntt_h_c_(struct cz_gpu_ntt *p, cz_fr *d_c, const cz_fr *k, void *stream);
int cz_gpu_ntt_h_final_(struct cz_gpu_ntt *p, cz_fr *d_a, const cz_fr *d_sub, void *stream);
/* h in two vectors (h_host.c): a, b (evaluations, natural) to the coset, A B / Z into d_a (bit-reversed), then
 * make_c writes c's evaluations at bit-reversed positions into d_b (a and b are gone by then, so it computes them
 * again), and h = coset_inverse(A B / Z) - C_coefficients / Z lands in d_a as cz_gpu_groth16_h_crev leaves it. */
int cz_gpu_groth16_h_two_(struct cz_gpu_ntt *plan, unsigned log_n, cz_fr *d_a, cz_fr *d_b,
                          int (*make_c)(void *ctx, cz_fr *d_c_rev, void *stream), void *ctx, void *stream);
/* In-place bit-reversal permutation of 2^log_n elements. */
int cz_gpu_bitrev_(cz_fr *d, unsigned log_n, void *stream);
/* The same through shared-memory tiles (coalesced loads and stores; h_pipeline.cu), cz_gpu_bitrev_ below 2^8. */
int cz_gpu_bitrev_tiled_(cz_fr *d, unsigned log_n, void *stream);
/* a[bitrev(i)] = (a[i] * b[i] - c[i]) * zinv for i < 2^log_n, in place (b, c unchanged); c == NULL: no
 * subtraction (the 6-NTT pipeline). */
int cz_gpu_h_pointwise_rev_(cz_fr *d_a, const cz_fr *d_b, const cz_fr *d_c, unsigned log_n, const cz_fr *zinv,
                            void *s);
/* c = a b for i < 2^log_n, into c[bitrev(i)] when rev (the 6-NTT pipeline's c), else c[i]. For a satisfied
 * R1CS, C w = (A w)(B w) row by row (padding rows are 0 in all three), so the prover needs neither C's SpMV
 * nor C's matrix on the device. With rev, c must not alias a or b; without, c may be a (cz_gpu_groth16_y's y). */
int cz_gpu_ab_product_(cz_fr *d_c, const cz_fr *d_a, const cz_fr *d_b, unsigned log_n, int rev, void *s);

/* MSM / batch-add scratch growth (alloc.cu; msm_impl.cuh's scratch_get): frees the slot's buffer and allocates bytes
 * (*p / *cap: the slot, NULL / 0 on failure; CZ_ENOMEM when the device has no room), counting the growth and its host
 * time per device. A buffer grown before gets an eighth more, at most 64 MiB, ahead (not when that does not fit): a
 * proof's partitions differ a little in their tails, and each one longer than any before grew the tail MSM's buffers
 * again, 39-63 ms of host time a partition (H200, 2^27 Lagrange form, docs/perf.md). CZ_GPU_SCRATCH_SLACK=0: exact sizes (A/B). */
int cz_gpu_scratch_grow_(void **p, size_t *cap, size_t bytes);
/* Tests (gpu.cu): CZ_CUDA on cuda_error (a cudaError_t): 0 for cudaSuccess, CZ_ENOMEM for
 * cudaErrorMemoryAllocation, else CZ_EDEVICE; runs without a device. */
int cz_gpu_cuda_status_for_test_(int cuda_error);
/* Device dev's scratch growths so far and the host time they took (prover stats: scratch_grows); 0 for an unknown dev. */
void cz_gpu_scratch_growth_(int dev, uint64_t *count, double *ms);

/* The device lock (gpu_prover.h cz_gpu_lock, a ticket lock) seen from inside a long holder, a prover's creation with
 * the Lagrange-form H: how many threads wait for device dev; a yield (when some wait and the calling thread holds a
 * device's lock: stream synchronised, the lock given to them in turn and taken again; 1 when it did, 0 when there
 * was nothing to do, < 0 when the synchronisation failed, CZ_ECANCELED at once after cz_gpu_prover_abort_builds:
 * every caller is a creation, which then fails and frees what it allocated); and a section without it for host
 * work (drop: the device the thread held, -1 when none; retake takes that one again). No-ops for a thread that
 * holds none (tests and benchmarks that build provers alone). */
int cz_gpu_lock_waiters_(int dev);
int cz_gpu_lock_yield_(void *stream);
int cz_gpu_lock_drop_(void);
void cz_gpu_lock_retake_(int held);
/* on: the calling thread's yields and drops do nothing (a small prover's build, beside a big one's: it holds the
 * lock throughout, ~0.1-2 s, instead of waiting a piece of the big one's, ~0.6 s, at each of its own steps; a
 * yield still fails after cz_gpu_prover_abort_builds); off: as before. */
void cz_gpu_lock_whole_(int on);

/* The GPU code's wall clock: CLOCK_MONOTONIC in milliseconds (prover.c; the provers' and the backend's timings). */
double cz_gpu_now_ms_(void);
/* Takes the calling thread's pending CUDA error (cudaGetLastError): 0 when none, else CZ_EDEVICE naming it. Tests
 * call it between cases: an error a failed call leaves pending fails the next kernel launch's check elsewhere. */
int cz_gpu_take_error_(void);

#ifdef __cplusplus
}
#endif

#endif
