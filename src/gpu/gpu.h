/* GPU backend: a plain C API over the CUDA kernels in src/gpu (nothing outside src/gpu includes a .cuh
 * or needs nvcc). Device buffers hold the same bytes as the host types (cz_fr: 4x64 little-endian
 * Montgomery limbs, fully reduced; the kernels read them as 8x32), so data crosses PCIe unchanged.
 * Every function returns 0 or a negative CZ_E* code (CZ_EDEVICE with a cz_error() message for CUDA
 * failures). Streams are passed as void * (a cudaStream_t; NULL = the default stream). */
#ifndef CZ_GPU_H
#define CZ_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "ec/g1.h"
#include "ec/g2.h"
#include "ff/fr.h"
#include "r1cs/r1cs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Before the process's first CUDA call (a daemon's main): CUDA then loads every kernel when it starts
 * (CUDA_MODULE_LOADING=EAGER) unless the environment already names a mode. Under CUDA's default, lazy loading, a
 * kernel's first launch loads it and waits for the device meanwhile: a prover's first partition then ran B_G2, on
 * its own stream, late and beside the G1 tail MSM (H200, synthetic 2^27 partition, docs/perf.md: the tail MSM 69.5-76.1
 * ms instead of ~44, 946-956 ms the partition; eager: 42.8 and 943.3). 0, or -1 when setenv fails. */
int cz_gpu_load_kernels_eagerly(void);
/* How a host thread waits for its GPU work (cudaSetDeviceFlags on every device): "spin", "yield", "block"
 * or "auto" (CUDA's default: spin while there are fewer contexts than cores). CZ_EINVAL for another name. */
int cz_gpu_set_sync_mode(const char *mode);
/* Number of usable CUDA devices (0 when there is no driver or no GPU; never an error). */
int cz_gpu_device_count(void);
/* Why cz_gpu_device_count found none, in n bytes: "no NVIDIA driver found (libcuda)", "the NVIDIA driver
 * supports CUDA 12.4, this build needs CUDA 13.0: update the driver (cudaErrorInsufficientDriver)", or
 * another CUDA error by name and text ("cudaErrorNoDevice: no CUDA-capable device is detected"); "" when
 * there are devices. */
void cz_gpu_no_device_why(char *why, size_t n);
/* Selects the device for the calling thread. */
int cz_gpu_set_device(int dev);
/* A one-line description ("NVIDIA H200, 132 SMs, 139.8 GiB, sm_90"). */
int cz_gpu_describe(char *out, size_t cap);
/* Whether device `ordinal` can still be used, after a call on it failed: 0 when its context works (a
 * non-sticky error left behind, such as a failed allocation, is cleared), CZ_EDEVICE when it is broken for
 * good (a sticky error: illegal address, uncorrectable ECC, the GPU fell off the bus, ...; only a new
 * process gets a working context), with why (n bytes) naming the CUDA error ("cudaErrorIllegalAddress: an
 * illegal memory access was encountered"). Selects the device for the calling thread. */
int cz_gpu_device_check(int ordinal, char *why, size_t n);
/* Whether this build has kernels for device `ordinal` (built for its architecture, or for an older one of
 * its major version, or with PTX it can compile): 0 if so; CZ_EUNSUPPORTED when it has none, with why
 * naming the GPU, its sm_XY, the build's CZ_CUDA_ARCH and the -DCZ_CUDA_ARCH to rebuild with; CZ_EDEVICE
 * for another CUDA failure. Selects the device for the calling thread. */
int cz_gpu_arch_check(int ordinal, char *why, size_t n);
/* Device `ordinal` described without opening it (device queries, no CUDA context): desc ("NVIDIA H200, 132 SMs,
 * 139.8 GiB, sm_90"); 0 when this build's architecture list may run on it (opening it decides: cz_gpu_arch_check),
 * CZ_EUNSUPPORTED (not through cz_error) with why naming the CZ_CUDA_ARCH to rebuild with when the list rules it
 * out, CZ_EDEVICE (cz_error) when it cannot be queried. */
int cz_gpu_peek(int ordinal, char *desc, size_t dn, char *why, size_t wn);
/* Tests only: breaks device ordinal's context on purpose (a kernel writes to an invalid address, so it
 * gets the sticky cudaErrorIllegalAddress). 0 once the device reported the fault, else CZ_EDEVICE. */
int cz_gpu_fault_for_test(int ordinal);

int cz_gpu_malloc(void **dptr, size_t bytes);
void cz_gpu_free(void *dptr);
/* Synchronous: the bytes are on the device when htod returns (kernels on any stream may read them). */
int cz_gpu_memcpy_htod(void *dst, const void *src, size_t bytes);
int cz_gpu_memcpy_dtoh(void *dst, const void *src, size_t bytes);
/* Fills bytes with the byte value v (used by tests to poison outputs). */
int cz_gpu_memset(void *dptr, int v, size_t bytes);
int cz_gpu_sync(void);

/* CUDA-event timing for benchmarks: start, run work, stop returns milliseconds between the two. */
typedef struct cz_gpu_timer cz_gpu_timer;
int cz_gpu_timer_create(cz_gpu_timer **t);
void cz_gpu_timer_destroy(cz_gpu_timer *t);
int cz_gpu_timer_start(cz_gpu_timer *t, void *stream);
int cz_gpu_timer_stop(cz_gpu_timer *t, void *stream, float *ms);

/* Fills n Fr elements with pseudo-random fully reduced values derived from seed (on the device, for
 * benchmarks at sizes where host generation and upload would dominate). */
int cz_gpu_fr_random(cz_fr *d_out, size_t n, uint64_t seed);

/* Field multiplication micro-benchmark: for each of n threads, d_in holds (x, w, y) (Fr: fp = 0, 32 B each;
 * Fp: fp = 1, 48 B each, Montgomery form, fully reduced); after iters steps of x *= y, w *= y, d_out holds
 * (x, w). cios = 1 uses the naive CIOS product instead of the default carry-chain one; cios = 2 squares instead
 * (x = x^2, w = w^2 by the squaring routine; y unused). Fp only, the FP64-pipe product (fp_dfma.cuh) in a
 * share of the warps and the integer one in the others: cios = 3 / 4 all warps (low halves summed in doubles /
 * integers), 5 / 6 half, 7 / 8 a quarter; 9 / 10 w on the FP64 pipe and x on IMAD in every thread. Fr only,
 * cios = 3: Shoup's product by the constant y (field.cuh mul_shoup; its constant pair made in an untimed kernel
 * first), the same results as 0. Fp 11 / 12: a probe of the tensor pipe, four int8 mma a warp a step, alone (no
 * products; d_out holds the inputs) or beside mode 0's products (the same results as 0); 13: 32 mma a warp a step
 * beside them. *ms = kernel time (CZ_BENCH_MUL_SMEM: unused shared memory a block, gpu.cu). */
int cz_gpu_mul_bench(int fp, int cios, void *d_out, const void *d_in, size_t n, int iters, float *ms);
/* Inverts n Fp (fp2 = 0) or Fp2 elements in Montgomery form (0 gives 0) with the device routine of the
 * batch-affine rounds: serial = 0 one thread per element, 1 one thread for all of them in turn (its
 * latency); *ms is the kernel time. For tests and benchmarks. */
int cz_gpu_fp_inv_test(int fp2, int serial, void *d_out, const void *d_in, size_t n, float *ms);
/* xyzz sums of per <= 32 points a warp (warp w: in[w per ..], n points in all; G1 or G2 xyzz, the host's layout)
 * into out[w], by the reductions' warp sum: quad = 0 one lane an addition (cz_ec_add), 1 four lanes an addition
 * (the default of the MSM / batch-addition reductions). *ms = kernel time. For tests. */
int cz_gpu_ec_warp_sum_test(int g2, int quad, void *d_out, const void *d_in, size_t n, unsigned per, float *ms);

/* ---- fixed-base products of the generators (the seeded setup) ----
 * out[i] = k[i] G for i < n, G the G1 (g2 = 0; out cz_g1_affine[n]) or G2 (g2 = 1; cz_g2_affine[n])
 * generator, affine with infinity (0, 0) for k = 0: the same bytes as groth16's CPU fixed-base products.
 * tab: windows x 2^(c-1) affine points, tab[w 2^(c-1) + j] = (j + 1) 2^(c w) G (groth16/fixed_base.h's
 * table), 2 <= c <= 20, (windows - 1) c <= 256 <= windows c. Host arrays; the current device computes them
 * in chunks through ~1 GB of
 * its memory (CZ_EDEVICE, the context left usable, when that cannot be had). */
int cz_gpu_fb_mul_many(int g2, void *out, const void *tab, unsigned c, unsigned windows, const cz_fr *k, size_t n);

/* ---- inverse NTT over G1 (the Lagrange-form H query's precompute, groth16/h_lagrange.h) ----
 * In place on n = 2^log_n points at d_v, cz_g1_xyzz layout (Montgomery Fp, infinity = zz 0): v_j <- sum_i w^(-i j) v_i
 * with w the domain's root (poly/ntt.h), natural order in and out, unscaled; the same points as groth16/h_lagrange.h's
 * cz_g1_intt_unscaled for points in the prime-order subgroup (the twiddle products use its endomorphism; the H
 * query's points are there). Synchronous (waits for the device). n/2 log n double-and-add scalar multiplications of
 * 128-bit halves. */
int cz_gpu_g1_intt_unscaled(void *d_v, unsigned log_n, void *stream);
/* The Lagrange-form H bases on the device (the same points as groth16/h_lagrange.h's cz_groth16_h_lagrange):
 * d_lc, d_lh: n = 2^log_n affine points each (either may be NULL), from d_h, the params' n - 1 H points (device
 * memory, in the prime-order subgroup). Takes n * 192 bytes of device scratch beside them (+ n * 32 for Lc's
 * factors) and one G1 transform a basis: ~4 minutes each at 2^27 on an H200. Synchronous. */
int cz_gpu_h_lagrange_bases(cz_g1_affine *d_lc, cz_g1_affine *d_lh, const cz_g1_affine *d_h, unsigned log_n,
                            void *stream);
/* Checks d_lc and d_lh (either may be NULL) against d_h, all on the device as above, with one random linear
 * combination: sum_j rho^j Lh[j] = sum_{i < n-1} s (rho^n - 1) / (rho w^-i - 1) H_i (and for Lc the same with
 * g^-i H_i), rho drawn from seed, Lc's equation added t times to Lh's for a random t; a wrong point anywhere fails
 * it but with probability ~n / r. One MSM a basis and one over H, their scalars made on the device (1.81 s at 2^27
 * on an H100), and n * 32 bytes of device scratch beside the MSM's. 0 or CZ_EVERIFY. */
int cz_gpu_h_lagrange_check(const cz_g1_affine *d_lc, const cz_g1_affine *d_lh, const cz_g1_affine *d_h,
                            unsigned log_n, uint64_t seed, void *stream);

/* ---- NTT over Fr, bellperson's domain (omega = 7^((r-1)/2^k), coset generator g = 7) ----
 * Same results as src/poly/ntt.h, in place on device memory, natural order in and out. */
typedef enum {
    CZ_GPU_NTT_FORWARD = 0,       /* coefficients -> evaluations at omega^i */
    CZ_GPU_NTT_INVERSE = 1,       /* evaluations -> coefficients (with the 1/n) */
    CZ_GPU_NTT_COSET_FORWARD = 2, /* scale a_i by g^i, then forward */
    CZ_GPU_NTT_COSET_INVERSE = 3, /* inverse, then scale a_i by g^-i */
} cz_gpu_ntt_kind;

/* A plan holds the device twiddle tables of one size 2^log_n, 1 <= log_n <= 28 (CZ_ERANGE else). */
typedef struct cz_gpu_ntt cz_gpu_ntt;
int cz_gpu_ntt_create(cz_gpu_ntt **plan, unsigned log_n);
void cz_gpu_ntt_destroy(cz_gpu_ntt *plan);
/* Device bytes a plan holds (its twiddle tables; 0 for NULL), and what cz_gpu_ntt_create would take for 2^log_n
 * under the current environment (0 for a size it refuses): ~62 MB at 2^27. */
size_t cz_gpu_ntt_bytes(const cz_gpu_ntt *plan);
size_t cz_gpu_ntt_plan_bytes(unsigned log_n);
/* Transforms the 2^log_n elements at d_data (device memory) in place, asynchronously on stream. */
int cz_gpu_ntt_run(cz_gpu_ntt *plan, cz_fr *d_data, cz_gpu_ntt_kind kind, void *stream);

/* ---- G1 over resident affine bases (the cz_g1_affine layout, infinity = (0,0)) ----
 * Synchronous on stream: they return when the result is on the host. Scratch device memory is kept
 * between calls, one set per device (grown on demand; cz_gpu_g1_release_scratch frees the calling thread's
 * current device's); one caller at a time per device. */
/* r = sum of scalars[i] * bases[i], scalars Fr in Montgomery form, n < 2^31. */
int cz_gpu_g1_msm(cz_g1_jac *r, const cz_g1_affine *d_bases, const cz_fr *d_scalars, size_t n, void *stream);
/* Device bytes of the scratch cz_gpu_g1_msm takes for n points (0 for n = 0) with evenly spread digits
 * (random scalars), for memory accounting. From 2^26 points its affine bucket rounds take one chunk per
 * window when free memory allows (~13 GB at 2^27), fewer bytes in smaller chunks (keeping 2 GiB free)
 * when it does not; heavily repeated digits can need more. Needs the current device. */
size_t cz_gpu_g1_msm_scratch_bytes(size_t n);
/* k independent MSMs (1 <= k <= 4): r[i] = sum of d_scalars[i][j] * d_bases[i][j], j < n[i]. Where their
 * total takes the all-window list (CZ_GPU_MSM_ALLW; G1 2^19 .. 2^24 points by default) they share one list,
 * one sequence of affine rounds and one bucket combination (saving k - 1 times those fixed costs); this needs
 * every d_bases[i] at a whole number of points at or after d_bases[0] in one allocation, less than 2^31
 * points from it. Otherwise, or when the shared scratch does not fit, it runs them one by one
 * (cz_gpu_g1_msm). CZ_GPU_MSM_MULTI=0: always one by one (A/B). */
int cz_gpu_g1_msm_multi(cz_g1_jac *r, const cz_g1_affine *const *d_bases, const cz_fr *const *d_scalars, const size_t *n,
                        unsigned k, void *stream);
/* r = sum of the bases whose bit is set (bit i = word i/64, bit i%64, as cz_g1_batch_add), n < 2^32. */
int cz_gpu_g1_batch_add(cz_g1_jac *r, const cz_g1_affine *d_bases, const uint64_t *d_bitmap, size_t n, void *stream);
/* Pair sums: d_bases holds n bases and room for n/2 more after them; d_bases[n + i] = d_bases[2i] +
 * d_bases[2i + 1] for i < n/2 (affine, exact for infinity, equal and opposite points), n + n/2 < 2^32.
 * Asynchronous on stream. The same bases with their pair sums then give cz_gpu_g1_batch_add_pairs: the sum of
 * the bases whose bit is set, as cz_gpu_g1_batch_add, where a pair with both bits set is one point, its sum (at
 * ~50 % random ones, 3/4 of the points and additions; a PoRep partition's L, A and B measure the same). */
int cz_gpu_g1_pair_sums(cz_g1_affine *d_bases, size_t n, void *stream);
int cz_gpu_g1_batch_add_pairs(cz_g1_jac *r, const cz_g1_affine *d_bases, const uint64_t *d_bitmap, size_t n, void *stream);
void cz_gpu_g1_release_scratch(void);
/* Device bytes the current device's G1 MSM and batch-add scratch holds now (under the device's lock). */
size_t cz_gpu_g1_scratch_held(void);


/* ---- Prover pipeline pieces (gpuprove: h_pipeline.cu, spmv.cu, alloc.cu; the partition prover is in
 * gpu_prover.h). Kept in one block apart from the NTT/MSM API above. ---- */
/* Page-locked host memory: witness buffers allocated here upload at full PCIe speed. */
int cz_gpu_host_alloc(void **p, size_t bytes);
void cz_gpu_host_free(void *p);
/* Free and total memory of the current device (cudaMemGetInfo). */
int cz_gpu_mem_info(size_t *free_bytes, size_t *total_bytes);

/* h = (a*b - c) / Z as cz_groth16_compute_h: a, b, c are 2^log_n evaluations each (zero-padded) on the
 * device; afterwards d_a holds the 2^log_n coefficients of h (the last is 0 for a satisfying witness)
 * and d_b, d_c are clobbered. log_n must be the plan's size. Asynchronous on stream. */
int cz_gpu_groth16_h(cz_gpu_ntt *plan, unsigned log_n, cz_fr *d_a, cz_fr *d_b, cz_fr *d_c, void *stream);
/* The same with c in bit-reversed order (c[bitrev(i)] = evaluation i, as cz_gpu_csr_mul_vec_rev writes it),
 * which saves the permutation: the partition prover's form. */
int cz_gpu_groth16_h_crev(cz_gpu_ntt *plan, unsigned log_n, cz_fr *d_a, cz_fr *d_b, cz_fr *d_c_rev, void *stream);
/* The NTT side of the Lagrange-form H query (groth16/h_lagrange.h): y = A_coset B_coset, A_coset =
 * coset_NTT(iNTT(a)) (likewise B), 4 NTTs and a pointwise product; afterwards d_a holds y in natural order (y_j at
 * g w^j, the index of the coset Lagrange bases) and d_b is clobbered. The Lagrange-form prover's step
 * (cz_gpu_prover_lagrange). Asynchronous. */
int cz_gpu_groth16_y(cz_gpu_ntt *plan, unsigned log_n, cz_fr *d_a, cz_fr *d_b, void *stream);

/* A CSR matrix resident on the device (row_ptr u32 below 2^32 terms, else u64; col u32; val Fr or dictionary
 * indices of 1, 2 or 4 bytes), uploaded once. CZ_GPU_CSR_NARROW=0 keeps u64 row pointers and u32 indices. */
typedef struct cz_gpu_csr cz_gpu_csr;
int cz_gpu_csr_upload(cz_gpu_csr **out, const cz_csr *m);
void cz_gpu_csr_free(cz_gpu_csr *m);
/* Device bytes of a matrix stored as values: (rows + 1) row pointers (4 or 8 bytes as above), nnz * (4 + 32). */
size_t cz_gpu_csr_bytes(uint64_t rows, uint64_t nnz);
/* 1 when m's coefficients are stored dictionary-coded (*ndict distinct values; CZ_GPU_CSR_DICT=0 / 1
 * forbids / forces that form, unset: when it is the smaller), 0 when as values. */
int cz_gpu_csr_is_dict(const cz_gpu_csr *m, uint32_t *ndict);
/* d_out[i] = <row i, w> for i < rows and 0 for rows <= i < n_out; d_w = [inputs | aux] on the device
 * (the column order of src/r1cs). Asynchronous on stream. */
int cz_gpu_csr_mul_vec(cz_fr *d_out, size_t n_out, const cz_gpu_csr *m, const cz_fr *d_w, void *stream);
/* The same into bit-reversed positions: d_out[bitrev(i)] = <row i, w> (0 past the rows), i < 2^log_n. */
int cz_gpu_csr_mul_vec_rev(cz_fr *d_out, unsigned log_n, const cz_gpu_csr *m, const cz_fr *d_w, void *stream);

/* ---- G2 over resident affine bases (the cz_g2_affine layout, 192 B, infinity = (0,0)) ----
 * The same algorithms and contract as the G1 functions above (own scratch, one caller at a time). */
int cz_gpu_g2_msm(cz_g2_jac *r, const cz_g2_affine *d_bases, const cz_fr *d_scalars, size_t n, void *stream);
size_t cz_gpu_g2_msm_scratch_bytes(size_t n);
int cz_gpu_g2_batch_add(cz_g2_jac *r, const cz_g2_affine *d_bases, const uint64_t *d_bitmap, size_t n, void *stream);
int cz_gpu_g2_pair_sums(cz_g2_affine *d_bases, size_t n, void *stream);
int cz_gpu_g2_batch_add_pairs(cz_g2_jac *r, const cz_g2_affine *d_bases, const uint64_t *d_bitmap, size_t n, void *stream);
void cz_gpu_g2_release_scratch(void);
size_t cz_gpu_g2_scratch_held(void);

#ifdef __cplusplus
}
#endif

#endif
