/* Launchers and stream helpers behind the GPU partition prover (prover.c, prover_kern.cu, synth.cu,
 * alloc.cu); not a public API. Streams and events are void * (cudaStream_t / cudaEvent_t). */
#ifndef CZ_GPU_PROVER_INTERNAL_H
#define CZ_GPU_PROVER_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "ff/fr.h"
#include "r1cs/csr_dict.h"

struct cz_gpu_csr;

#ifdef __cplusplus
extern "C" {
#endif

int cz_gpu_stream_create_(void **s);
void cz_gpu_stream_destroy_(void *s);
int cz_gpu_stream_sync_(void *s);
int cz_gpu_event_create_(void **e);
void cz_gpu_event_destroy_(void *e);
int cz_gpu_event_record_(void *e, void *s);
/* The host waits for the work recorded in e. */
int cz_gpu_event_sync_(void *e);
/* s waits (on the device) for the work recorded in e. */
int cz_gpu_stream_wait_(void *s, void *e);
int cz_gpu_htod_async_(void *dst, const void *src, size_t bytes, void *s);
int cz_gpu_dtoh_async_(void *dst, const void *src, size_t bytes, void *s);
int cz_gpu_memset_async_(void *d, int v, size_t bytes, void *s);
int cz_gpu_dtod_(void *dst, const void *src, size_t bytes);
/* device -> device copy ordered on stream s (prover_kern.cu) */
int cz_gpu_dtod_async_s_(void *dst, const void *src, size_t bytes, void *s);
/* 1 when p is page-locked (cudaMallocHost or registered), else 0. */
int cz_gpu_host_is_pinned_(const void *p);
/* Pins [p, p+bytes) for DMA, in pieces, counted (alloc.cu): *ok = 1 when the caller now holds a registration
 * (another prover's of the same range included), to let go with cz_gpu_host_unregister_ (the last holder unpins);
 * *ok = 0 (and no error) when the driver refuses or the range was page-locked otherwise (used as is). */
int cz_gpu_host_register_(void *p, size_t bytes, int *ok);
/* The same in one piece, without pauses: a registration for one partition's copy (prover_run.c pin_parts), short
 * and often inside the device's turn, which pauses between pieces would only lengthen. */
int cz_gpu_host_register_whole_(void *p, size_t bytes, int *ok);
void cz_gpu_host_unregister_(void *p);
int cz_gpu_current_device_(int *dev);

/* Pageable host memory to the device through nbuf page-locked chunks of chunk bytes (bufs, each with its event
 * in evs): up to nt OpenMP threads copy a chunk into one buffer while earlier chunks are in flight from the
 * others, instead of the driver's single-threaded staging (~7 GB/s on the H200 host). A buffer is reused only
 * after its previous copy's event; returns once the last chunk is queued on stream s (prover_run.c). */
int cz_gpu_staged_htod_(void *dst, const void *src, size_t bytes, void *const bufs[], void *const evs[], int nbuf,
                        size_t chunk, int nt, void *s);

/* h pipeline pointwise step: a = (a*b - c) * zinv on n elements (zinv: host Montgomery value). */
int cz_gpu_h_pointwise_(cz_fr *d_a, const cz_fr *d_b, const cz_fr *d_c, size_t n, const cz_fr *zinv, void *s);

/* ---- split of one query's scalars into 0/1 (batch add) and the rest (tail MSM) ----
 * Query position k (k < len) takes witness value d_w[map ? map[k] : base + k].
 * classify: ones bit k set iff the value is 1 (Montgomery R); cnt[g] = number of values not in {0,1}
 * among positions 32g..32g+31 for g < ngroups (= 2 * words64, so the bitmap is whole u64 words);
 * cnt[ngroups] = 0. The exclusive scan of cnt (ngroups + 1 entries) gives offs; offs[ngroups] = tail.
 * scatter: tail_sc[offs] = value, tail_b[offs] = bases[k] (base_bytes each: 96 for G1, 192 for G2 affine)
 * for those positions; either output may be NULL.
 * gather_all: out[k] = value for every k (full-MSM fallback). */
int cz_gpu_split_classify_(uint32_t *ones, uint32_t *cnt, const cz_fr *d_w, const uint32_t *map, uint64_t base,
                           size_t len, void *s);
int cz_gpu_scan_u32_(uint32_t *offs, const uint32_t *cnt, size_t count, void **temp, size_t *temp_cap, void *s);
int cz_gpu_split_scatter_(cz_fr *tail_sc, void *tail_b, const cz_fr *d_w, const uint32_t *map, uint64_t base,
                          size_t len, const void *bases, size_t base_bytes, const uint32_t *offs, void *s);
int cz_gpu_gather_scalars_(cz_fr *out, const cz_fr *d_w, const uint32_t *map, uint64_t base, size_t len, void *s);
/* The same split for the Lagrange-form H's c over its n values (prover_run.c run_c), in four classes: bm holds
 * three bitmaps of ngroups = 2 ceil(n / 64) u32 words (values 1, -1, 2 in that order), cnt[g] the count of the
 * other nonzero values among positions 32g..32g+31, cnt[ngroups] = 0; scan as above, then scatter puts those
 * values and their G1 bases (96 B each) at tail_sc[offs], tail_b[offs]. */
int cz_gpu_c_classify_(uint32_t *bm, uint32_t *cnt, const cz_fr *d_c, size_t n, void *s);
int cz_gpu_c_scatter_(cz_fr *tail_sc, void *tail_b, const cz_fr *d_c, size_t n, const void *bases,
                      const uint32_t *offs, void *s);
/* map[0..) = base + i for every set bit i of bitmap (nbits bits), in order; *count = number of bits.
 * cnt: scratch of 2 * (words + 1) u32. Synchronous. */
int cz_gpu_bitmap_to_map_(uint32_t *map, size_t *count, const uint64_t *bitmap, size_t nbits, uint32_t base,
                          uint32_t *cnt, void **temp, size_t *temp_cap, void *s);
/* Compact witness -> dense (wexpand.cu): out[i] for i < n from the device copies of a cz_wcompact's is_bit,
 * bit (ceil(n / 64) words each) and dense values (16-byte aligned). cnt: scratch of 2 * (words + 1) u32.
 * Asynchronous on s. */
int cz_gpu_wcompact_expand_(cz_fr *out, const uint64_t *is_bit, const uint64_t *bit, const cz_fr *dense, size_t n,
                            uint32_t *cnt, void **temp, size_t *temp_cap, void *s);
/* Its two steps: offs[w] = the dense values before word w (ceil(n / 64) + 1 entries; cnt: scratch of as many u32),
 * then the expansion from them. Asynchronous on s. */
int cz_gpu_wcompact_offsets_(uint32_t *offs, const uint64_t *is_bit, size_t n, uint32_t *cnt, void **temp,
                             size_t *temp_cap, void *s);
int cz_gpu_wcompact_expand_offs_(cz_fr *out, const uint64_t *is_bit, const uint64_t *bit, const cz_fr *dense,
                                 const uint32_t *offs, size_t n, void *s);
/* map[i] = i for i < n */
int cz_gpu_iota_(uint32_t *map, size_t n, void *s);

/* ---- sparse uploads of streamed query chunks (prover_sched.c; prover_kern.cu) ----
 * nz: bit j (u32 words) = aux value j is not 0, from the dense aux values (nz_dense) or from a compact witness's
 * is_bit / bit bitmaps (nz_compact; ceil(na / 64) words each). Asynchronous on s. */
int cz_gpu_nz_dense_(uint32_t *nz, const cz_fr *aux, size_t na, void *s);
int cz_gpu_nz_compact_(uint32_t *nz, const uint64_t *is_bit, const uint64_t *bit, size_t na, void *s);
/* Points k < m of el bytes (96 or 192) from src (mapped page-locked host memory, cz_gpu_host_dev_ptr_) to dst, only
 * where the witness index j = map ? map[k] : base + k is an input (j < ni) or nz bit j - ni is set; the other
 * positions of dst keep what they held. `blocks` blocks of 256 threads; *cnt (device) += the points copied.
 * Asynchronous on s. */
int cz_gpu_sparse_gather_(void *dst, const void *src, size_t el, const uint32_t *map, uint64_t base, uint64_t m,
                          const uint32_t *nz, uint64_t ni, unsigned blocks, unsigned long long *cnt, void *s);
/* The device address of page-locked host memory (mapped: under unified addressing all of it is), or NULL. */
void *cz_gpu_host_dev_ptr_(const void *p);
/* The same for the whole of [p, p+bytes): NULL unless its pieces (cz_gpu_host_register_) map to one run. */
void *cz_gpu_host_dev_span_(const void *p, size_t bytes);

/* ---- synthetic data for benchmarks (synth.cu) ---- */
/* n affine "points" with random coordinates below p (not on the curve: the group law's cost does not
 * depend on it, and random coordinates never hit the doubling / infinity branches). */
int cz_gpu_synth_points_(void *d_pts, size_t n, uint64_t seed, void *s);
/* Witness of ni inputs (input 0 = ONE, the rest random) and na aux: aux value 0 with probability
 * mix[0]/1000, 1 with mix[1]/1000, else random; B's aux columns (the multiples of b_stride, 0 = 1) in
 * mix[2], mix[3] instead. */
/* Benchmarks: c's values in a chosen mix (synth.cu synth_cmix; prover_priv.h syn_cmix): the first rows of the n
 * values 0, 1, -1, 2 with mix[0..3] parts in 100,000, the others random; 0 past rows. */
int cz_gpu_synth_cmix_(cz_fr *d_c, size_t n, size_t rows, const unsigned mix[4], uint64_t seed, void *s);
int cz_gpu_synth_witness_(cz_fr *d_w, size_t ni, size_t na, const unsigned mix[4], unsigned b_stride, uint64_t seed,
                          void *s);
/* A CSR matrix of `rows` rows: row i < nc has weight w_lo or w_lo + 1 (the latter with probability
 * w_frac/1000); rows nc.. (input rows) have weight in_w (column = i - nc). Columns: kind 0 = the first
 * entry walks all aux (dense A), others uniform over [ni, ni + na); kind 1 = aux columns restricted to
 * one in `stride`, and column 0 (ONE) in one row per 1000 (B); coefficient 1 with probability one/1000.
 * Allocates the device arrays (row_ptr, col, val) through alloc (returns 0 or an error). pool > 0: the other
 * coefficients are drawn from pool random values and stored dictionary-coded, as real circuits' are (coef:
 * an index per term into dict, pool + 1 values, dict[0] = 1; val stays NULL). The widths are spmv.cu's
 * (*row_bytes: cz_gpu_csr_row_bytes_, *coef_bytes: cz_gpu_csr_coef_bytes_ of pool + 1, 0 for values). */
typedef int (*cz_gpu_alloc_fn)(void *ctx, void **p, size_t bytes, const char *what);
int cz_gpu_synth_csr_(void **row_ptr, unsigned *row_bytes, uint32_t **col, cz_fr **val, void **coef,
                      unsigned *coef_bytes, cz_fr **dict, uint64_t *nnz, uint64_t rows, uint64_t nc, uint64_t ni,
                      uint64_t na, unsigned w_lo, unsigned w_frac, unsigned in_w, int kind, unsigned stride,
                      unsigned one, unsigned pool, uint64_t seed, cz_gpu_alloc_fn alloc, void *ctx, void *s);
/* A device CSR from arrays on the device: values (coef NULL) or dictionary-coded (val NULL; one = the index of 1
 * in dict, or UINT32_MAX). */
int cz_gpu_csr_wrap_dict_(struct cz_gpu_csr **out, uint64_t rows, uint64_t *row_ptr, uint32_t *col, uint32_t *coef,
                          cz_fr *dict, uint32_t ndict, uint32_t one);
/* Density bitmaps from a device CSR: sets bit c - col_base of bits for columns c in [col_base, col_base + nbits). */
int cz_gpu_mark_columns_(uint64_t *bits, uint64_t nbits, uint64_t col_base, const uint32_t *col, uint64_t nnz, void *s);
/* Wraps device arrays (taking ownership) as a cz_gpu_csr. */
int cz_gpu_csr_wrap_(struct cz_gpu_csr **out, uint64_t rows, uint64_t *row_ptr, uint32_t *col, cz_fr *val);
/* The same for any layout: row_ptr of row_bytes (4 or 8) each; values (coef NULL) or dictionary-coded (coef of
 * coef_bytes 1, 2 or 4 each, val NULL). wrap_ and wrap_dict_ are the wide layout (8, 4). */
int cz_gpu_csr_wrap_narrow_(struct cz_gpu_csr **out, uint64_t rows, void *row_ptr, unsigned row_bytes, uint32_t *col,
                            cz_fr *val, void *coef, unsigned coef_bytes, cz_fr *dict, uint32_t ndict, uint32_t one);
/* The device layout's widths (spmv.cu): row pointers of a matrix of nnz terms (4 below 2^32 terms, else 8),
 * and dictionary indices for ndict values (1 up to 256, 2 up to 65536, else 4). CZ_GPU_CSR_NARROW=0: 8 and 4
 * always; tests: CZ_GPU_CSR_ROW_BYTES=8, CZ_GPU_CSR_COEF_BYTES=1|2|4 (used when wide enough). */
unsigned cz_gpu_csr_row_bytes_(uint64_t nnz);
unsigned cz_gpu_csr_coef_bytes_(uint64_t ndict);
/* m's device form before the upload: *bytes its device memory; *d the dictionary coding when that form is
 * chosen (d->coef != NULL; the caller frees it with cz_csr_dict_free), zeroed when the values are stored. */
int cz_gpu_csr_prepare_(const cz_csr *m, cz_csr_dict *d, size_t *bytes);
/* htod (NULL: cz_gpu_memcpy_htod) copies each host array, synchronously (the prover's pinned chunks); the
 * arrays the narrow layout shrinks go through a host temporary of the device width. */
int cz_gpu_csr_upload_prepared_(struct cz_gpu_csr **out, const cz_csr *m, const cz_csr_dict *d,
                                int (*htod)(void *ctx, void *dst, const void *src, size_t bytes), void *ctx);
/* The same with the term arrays (row pointers, columns, values or indices) in mapped page-locked host memory,
 * filled in place, which the kernels read over PCIe; the dictionary and the long rows' list on the device. For a
 * device whose memory cannot hold the matrices beside a partition (prover.c's host-matrix layout). */
int cz_gpu_csr_upload_host_(struct cz_gpu_csr **out, const cz_csr *m, const cz_csr_dict *d);
/* Moves a device matrix's term arrays into mapped host memory (as cz_gpu_csr_upload_host_ places them); its
 * device bytes drop by what moved. Synthetic provers and benchmarks. */
int cz_gpu_csr_to_host_(struct cz_gpu_csr *m);
/* Bytes of m's term arrays in host memory (0 for a device matrix). */
size_t cz_gpu_csr_host_bytes_(const struct cz_gpu_csr *m);
/* The device bytes a matrix keeps with its term arrays in host memory (the dictionary, the long rows' list):
 * before the upload (from the host matrix and the coding cz_gpu_csr_prepare_ chose) and of an uploaded one. */
size_t cz_gpu_csr_host_dev_bytes_(const cz_csr *m, const cz_csr_dict *d);
size_t cz_gpu_csr_dev_rest_(const struct cz_gpu_csr *m);
/* Page-locked host memory mapped for kernels: *p the host address, *d the device one; cz_gpu_host_free. */
int cz_gpu_host_alloc_mapped_(void **p, void **d, size_t bytes);
void cz_gpu_csr_info_(const struct cz_gpu_csr *m, uint64_t *rows, uint64_t *nnz, const uint32_t **col);
/* m's widths (coef_bytes 0: values) and device bytes (what cz_gpu_csr_prepare_ counted); any may be NULL. */
void cz_gpu_csr_layout_(const struct cz_gpu_csr *m, unsigned *row_bytes, unsigned *coef_bytes, size_t *bytes);
/* dst[i] = src[i] for n values of sb bytes (8: u64, 4: u32) into db bytes each (1, 2, 4; db = sb copies), the values
 * fitting (spmv_host.c, OpenMP). */
void cz_gpu_narrow_(void *dst, unsigned db, const void *src, unsigned sb, size_t n);

/* A compact witness on the device for cz_gpu_csr_mul_vec_cw: ni dense inputs (variables 0 .. ni-1), then na aux
 * values as r1cs/wcompact.h holds them: the is_bit / bit bitmaps (ceil(na / 64) words each), the dense values in
 * order, and offs[w] = the dense values before word w (ceil(na / 64) + 1 entries, the exclusive scan
 * cz_gpu_wcompact_expand_ makes). */
typedef struct cz_gpu_wview {
    const cz_fr *inputs;
    const uint64_t *is_bit, *bit;
    const cz_fr *dense;
    const uint32_t *offs;
    uint64_t ni, na;
} cz_gpu_wview;
/* out[i] = <row i of m, w> (mul = 0) or out[i] = out[i] * <row i of m, w> (mul = 1), for i < n_out (rows past m's
 * are 0, so mul = 1 zeroes them), natural order, the long rows by a warp each as cz_gpu_csr_mul_vec. */
int cz_gpu_csr_mul_vec_cw(cz_fr *d_out, size_t n_out, const struct cz_gpu_csr *m, const cz_gpu_wview *w, int mul,
                          void *stream);

#ifdef __cplusplus
}
#endif

#endif
