/* The GPU partition prover (issue 4): H, L, A, B_G1 and the R1CS matrices resident on one GPU, so per
 * partition only the witness crosses PCIe. start() = upload witness -> a, b by SpMV, c = a b (the witness must
 * satisfy the circuit, as for any valid proof; C's matrix is not on the device unless CZ_GPU_C_SPMV=1) -> H pipeline ->
 * H MSM -> per query (L, A, B_G1) scalars 1 by bitmap batch addition and scalars outside {0, 1} by an MSM
 * over gathered bases (supraseal's split; one full MSM instead when more than half are "other").
 * B_G2 runs on the CPU (the same split: cz_g2_batch_add + cz_g2_msm) in a thread alongside the device
 * work; with CZ_GPU_HAVE_G2_MSM (prover_priv.h), once cz_gpu_g2_msm / cz_gpu_g2_batch_add land, it runs on
 * the device with the split instead. finish() is the CPU's cz_groth16_prove_finish.
 * One prover per circuit and GPU (the engine backend keeps several resident); start() holds that GPU's
 * lock (cz_gpu_lock) for its device region. When the bases do not fit, the prover streams them from host
 * memory per partition (cz_gpu_prover_create_mode below). */
#ifndef CZ_GPU_PROVER_H
#define CZ_GPU_PROVER_H

#include <stddef.h>
#include <stdint.h>

#include "groth16/prover.h"
#include "r1cs/wcompact.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cz_gpu_prover cz_gpu_prover;

/* Per-start figures (host wall clock around synchronised steps, milliseconds). */
typedef struct {
    double upload_ms;    /* witness HtoD */
    double spmv_ms;      /* a, b = A w, B w and c = a b (C w with CZ_GPU_C_SPMV=1), the expansion of a compact witness */
    double ntt_ms;       /* H pipeline (7 NTTs + pointwise) */
    double h_msm_ms;     /* H MSM (2^k - 1 points) */
    double batch_add_ms; /* L, A, B_G1 classification + 0/1 batch additions */
    double tail_msm_ms;  /* L, A, B_G1 MSMs over the "other" scalars (gather included) */
    double gpu_total_ms; /* the whole device region, upload included */
    double b_g2_cpu_ms;  /* the CPU B_G2 MSM (runs concurrently); 0 when skipped */
    double pre_ms;       /* start()'s host work before the device lock (a dense witness compacted, parts pinned) */
    double lock_ms;      /* start()'s wait for the device lock (cz_gpu_lock) */
    uint64_t htod_bytes, dtoh_bytes;
    uint64_t tail[3];    /* L, A, B_G1: number of scalars outside {0,1} */
    uint64_t ones[3];    /* number of scalars equal to 1 */
    int full_msm[3];     /* 1 where the query took one full MSM instead of the split (streamed: in some chunk) */
    int streamed;        /* 1: a streamed-bases prover (the streamed parts' bytes that crossed are in htod_bytes:
                          * whole chunks, or a sparse chunk's points copied) */
    uint64_t chunks;     /* streamed: chunks uploaded */
    unsigned streamed_parts; /* streamed: CZ_GPU_PART_* bits of the parts that crossed PCIe (the rest is kept) */
    int stages;          /* streamed: staging buffers in the ring */
    int witness_again;   /* streamed, short of memory: the witness crossed PCIe twice (cz_gpu_prover_witness_in_c) */
    int two_vectors;     /* streamed, shorter still: a/b/c in two vectors, the witness compact on the device
                          * (cz_gpu_prover_two_vectors) */
    int host_matrices;   /* and the matrices' terms read from host memory (cz_gpu_prover_host_matrices) */
    uint64_t split_chunks, full_chunks; /* streamed: query chunks (G1 and G2) split 0/1 + tail, or one MSM */
    uint64_t tail_msms;  /* streamed: MSMs over the chunks' waiting tails */
    uint64_t sparse_chunks; /* streamed: query chunks uploaded sparsely (only their points whose scalar is not 0) */
    int lagrange;        /* 1: the H query in Lagrange form (cz_gpu_prover_lagrange): ntt_ms is y = A_coset B_coset
                          * (4 NTTs), h_msm_ms y's MSM over Lc with c's classification and batch additions over Lh;
                          * c's other values join the queries' tail MSM (tail_msm_ms) */
    uint64_t c_tail;     /* Lagrange form: c's values outside {0, 1, -1, 2} */
    int c_full;          /* Lagrange form: c took one MSM over Lh instead of the split */
    int lag_fold;        /* Lagrange form with C's term folded into L at creation (CZ_GPU_PROVER_LAG_FOLD): no c, no
                          * split; l_msm then holds L's sum less the aux part of c's, h_msm the rest (their total is
                          * the same) */
    double g2_tail_ms;   /* B_G2 beside L and A (its own thread and stream): how long it still ran while the G1
                          * queries' shared tail MSM did (the two then share the device) */
    double g2_wait_ms;   /* and how long the device region waited for it once the G1 work was done */
    int g2_early;        /* B_G2 started before the NTTs, beside them and the H MSM (CZ_GPU_PROVER_G2_EARLY=1) */
    uint64_t scratch_grows; /* MSM / batch-add scratch buffers grown in the device region (a larger MSM or tail
                             * than any before on this device), and the host time that took */
    double scratch_grow_ms;
} cz_gpu_prove_stats;

/* The base arrays of a prover (bits of cz_gpu_prove_stats.streamed_parts and CZ_GPU_PROVER_KEEP). */
enum { CZ_GPU_PART_H = 1, CZ_GPU_PART_B_G1 = 2, CZ_GPU_PART_L = 4, CZ_GPU_PART_A = 8, CZ_GPU_PART_B_G2 = 16 };

/* Locks for the device regions of several users of one GPU (engine, provers): dev < 64. */
void cz_gpu_lock(int dev);
void cz_gpu_unlock(int dev);

/* Uploads params p (H, L, A, B_G1) and r's matrices and density maps to GPU `device`. p and r are
 * borrowed (they must outlive the prover: B_G2, the vk and the CPU side of B use them).
 * margin_bytes: device memory to leave free (0 = 1 GiB + 2 % of the device). Fails with CZ_ENOMEM and
 * a message with the sizes when the resident data plus the per-partition working set do not fit. */
int cz_gpu_prover_create(cz_gpu_prover **out, int device, const cz_groth16_params *p, const cz_r1cs *r,
                         size_t margin_bytes);

/* Residency modes. AUTO (what create() does): everything resident when it fits, else "streamed bases": the
 * matrices, maps and working set on the device, and of the bases (H, L, A, B_G1, B_G2) those that fit beside
 * them and the staging kept on the device (B_G2, B_G1, A, L, H in that order, whole parts), the rest in host
 * memory, page-locked once (cudaHostRegister; unregistered by destroy; staged through pinned buffers if the
 * driver refuses) and uploaded per proof in chunks through a ring of staging buffers on the upload stream
 * (uploads run up to `stages` chunks ahead of the MSMs / batch additions). RESIDENT: never stream (CZ_ENOMEM
 * instead). STREAMED: always the streamed layout (with plenty of memory every part may be kept: chunked but
 * nothing crosses PCIe).
 * Knobs (tests, benches): CZ_GPU_PROVER_STREAM=1 forces streamed (=0 forbids it), CZ_GPU_MEM_LIMIT_MB caps the
 * usable device memory, CZ_GPU_PROVER_CHUNK = G1 points per chunk (G2: half; default: from the memory left,
 * a whole query when it fits, at most 2^24 unless H then takes two chunks or one), CZ_GPU_PROVER_STAGES = staging buffers (2..4; default 3 at the largest chunk
 * where 3 fit, 4 when a 4th fits there too with the MSM scratch in full, 2 when 3 of the smallest do not), CZ_GPU_PROVER_KEEP = CZ_GPU_PART_* mask of the parts to keep on the device
 * (0: stream all, the session-5 behaviour; default: by memory), CZ_GPU_PROVER_NOPIN=1 skips page-locking
 * (the pinned staging path), CZ_GPU_STREAM_TAIL_BATCH=0 runs each chunk's tail MSM at once (default: a query's
 * consecutive chunks' tails wait in the tail buffer for one MSM).
 * A streamed layout that does not fit even at the smallest chunks keeps the witness in c's buffer
 * (cz_gpu_prover_witness_in_c) when the circuit allows it: a 32 GiB PoRep partition's non-base need drops from
 * ~22.3 to ~18.4 GiB, within a 24 GB card; shorter still, a/b/c in two vectors with the witness compact on the
 * device (cz_gpu_prover_two_vectors): 4 GiB less again at that size; and when even that does not fit, the same
 * with the matrices' terms read from host memory (cz_gpu_prover_host_matrices: a 32 GiB Window PoSt on a 16 GB
 * card).
 * CZ_ENOMEM names the resident and the streamed needs when neither fits. */
/* BESIDE (the engine backend, with other circuits' provers on the device): resident when it fits; streamed when it
 * would stream even alone on the device (its resident need above the total memory less the default margin) and
 * its streamed plan (layout, chunks, stages, kept parts) is the same beside the others as alone; else CZ_ENOMEM,
 * so the caller drops an idle prover to make room and asks again. */
enum { CZ_GPU_PROVER_AUTO = 0, CZ_GPU_PROVER_RESIDENT = 1, CZ_GPU_PROVER_STREAMED = 2, CZ_GPU_PROVER_BESIDE = 3 };
/* create_hint in mode BESIDE, knowing the device bytes the other provers hold (others_bytes: their allocations and
 * the shared MSM scratch, what dropping them all would free): what it would have alone is then the free memory
 * plus those, less the default margin (create_hint's BESIDE bounds it by the whole device). */
int cz_gpu_prover_create_beside(cz_gpu_prover **out, int device, const cz_groth16_params *p, const cz_r1cs *r,
                                size_t margin_bytes, uint64_t dense_hint, size_t others_bytes);
/* Device bytes the prover has allocated (without the shared scratch; cz_gpu_prover_device_bytes adds its reserve). */
size_t cz_gpu_prover_held_bytes(const cz_gpu_prover *pr);
/* 1 when the prover was created streamed beside other provers (CZ_GPU_PROVER_BESIDE). */
int cz_gpu_prover_is_beside(const cz_gpu_prover *pr);
int cz_gpu_prover_create_mode(cz_gpu_prover **out, int device, const cz_groth16_params *p, const cz_r1cs *r,
                              size_t margin_bytes, int mode);
/* The same knowing how many aux values outside {0, 1} a witness of this circuit has (e.g. the first start's:
 * a compact witness's n_dense, or the aux count for a dense one; UINT64_MAX: unknown, as create_mode): the
 * two-vector layout reserves that many (and 1/64 more) instead of CZ_GPU_PROVER_CW_PERMILLE's default, so a
 * PoSt witness's ~99 % are planned for instead of failing start()'s growth. */
int cz_gpu_prover_create_hint(cz_gpu_prover **out, int device, const cz_groth16_params *p, const cz_r1cs *r,
                              size_t margin_bytes, int mode, uint64_t dense_hint);
/* 1 when the prover runs the H query in Lagrange form (groth16/h_lagrange.h): CZ_GPU_PROVER_LAGRANGE=1 asks for
 * it, and create() takes it when the prover fits resident with its bases (+n 96 bytes; Lc replaces H, Lh is new)
 * and their build's scratch (n 336 bytes for the build only). The bases are built on the device from H at
 * creation (cz_gpu_h_lagrange_bases: ~8 minutes for a 32 GiB PoRep on an H200). Each start() then runs 4 NTTs
 * instead of 6 and an MSM of n points over Lc instead of n - 1 over H. C's term, sum_i c_i Lh_i with c = C w, is
 * folded into L at creation (prover_fold.c; L - C^T Lh over the aux, a small MSM of the inputs' part a partition;
 * Lh freed, so the prover then holds the H form's memory); CZ_GPU_PROVER_LAG_FOLD=0 keeps Lh and sums c = a b over
 * it each partition, mostly by batch additions. The proofs are the same bytes for a witness that satisfies the
 * circuit (cz_gpu_prove_stats.lag_fold: h_msm and l_msm then differ from the CPU's by the same point). */
int cz_gpu_prover_lagrange(const cz_gpu_prover *pr);
/* The process-wide switch for the provers created after it (the daemon's gpus.h_lagrange): on, and the directory
 * of the bases' cache (NULL or "": none, each creation builds them). A file there per H (2 n 96 bytes + 64: 25.8 GB
 * for a 32 GiB PoRep), written after a build, loaded by later creations and checked against H (prover_lag.c);
 * one that fails the check is built and written again. CZ_GPU_PROVER_LAGRANGE=0/1 and
 * CZ_GPU_PROVER_LAGRANGE_CACHE=dir override both. */
void cz_gpu_prover_set_lagrange(int on, const char *cache_dir);
/* The process-wide switch for pair sums beside the 0/1 queries of the resident provers created after it (the daemon's
 * gpus.pair_sums): each query's bases keep P_2i + P_2i+1 after them, for the queries that fit in the order L, A,
 * B_G1, B_G2, so a batch addition adds a pair of ones as one point. Off until called; CZ_GPU_PROVER_PAIRS=0/1
 * overrides. */
void cz_gpu_prover_set_pairs(int on);
/* 1 when the prover streams its bases. */
int cz_gpu_prover_is_streamed(const cz_gpu_prover *pr);
/* 1 when the prover reads its params' host bases after its creation (streamed bases, or B_G2 on the CPU in a
 * build without G2 MSMs), so they must stay in host memory; 0: only its device copies (srs.release_resident_bases). */
int cz_gpu_prover_reads_host_bases(const cz_gpu_prover *pr);
/* A streamed prover's plan: G1 points per chunk, staging buffers, CZ_GPU_PART_* mask of the kept parts
 * (all 0 for a resident prover). Any pointer may be NULL. */
void cz_gpu_prover_stream_plan(const cz_gpu_prover *pr, uint64_t *chunk, int *stages, unsigned *kept);
/* A streamed prover's host-to-device rate measured at creation (GB/s; 0 when not measured: resident, pageable
 * bases, or nothing streamed) and whether its query chunks upload sparsely (only the points whose scalar is not
 * 0: below 42 GB/s, or CZ_GPU_STREAM_SPARSE=1; never with =0). */
double cz_gpu_prover_link(const cz_gpu_prover *pr, int *sparse);
/* 1 when a streamed prover keeps the witness in c's buffer (the streamed layout did not fit otherwise, or
 * CZ_GPU_PROVER_WALIAS=1; =0 forbids it): (inputs + aux) * 32 bytes less device memory, and each start()
 * uploads the witness a second time after the H pipeline. set_next then prefetches nothing. */
int cz_gpu_prover_witness_in_c(const cz_gpu_prover *pr);
/* 1 when a streamed prover keeps a/b/c in two vectors (the layouts above did not fit, or CZ_GPU_PROVER_TWO=1;
 * =0 forbids it): the compact witness stays on the device (a dense start() compacts it on the host first), the
 * SpMV reads it, c = (A w)(B w) is computed again into b's vector once A B / Z is in a's, and the dense witness
 * is expanded into b's vector for the queries: n * 32 bytes less than the witness in c's buffer, two more SpMVs
 * a partition, the witness over PCIe once. Needs c = a b (no CZ_GPU_C_SPMV=1), the 6-NTT H pipeline and
 * inputs + aux <= n. set_next prefetches nothing. CZ_GPU_PROVER_CW_PERMILLE (default 32) sizes the compact
 * witness's device buffer at creation in thousandths of the aux values outside {0, 1}; start() grows it for a
 * denser witness, or fails with CZ_ENOMEM (nothing lost: the next start tries again). */
int cz_gpu_prover_two_vectors(const cz_gpu_prover *pr);
/* 1 when a two-vector prover also keeps its matrices' terms (row pointers, columns, coefficient indices) in
 * mapped page-locked host memory, read by the SpMV kernels over PCIe (three SpMVs a partition), only the
 * dictionaries and long-row lists on the device: taken when no layout above fits (a 32 GiB Window PoSt's
 * matrices are ~7 GB), or CZ_GPU_PROVER_HOSTMAT=1 (=0 forbids it, as CZ_GPU_PROVER_TWO=0 does). */
int cz_gpu_prover_host_matrices(const cz_gpu_prover *pr);
/* Page-locked host bytes create() allocated, held until destroy: the host layout's matrix terms (~3.6 GB
 * for a 32 GiB PoRep, ~6.8 GB for a 32 GiB Window PoSt), a streamed prover's staging buffers, a synthetic
 * prover's base copies. Not the host bases it page-locks in place (the caller's memory) nor start()'s two
 * 8 MiB upload chunks. The daemon counts them in its memory budget (cz_backend.host_bytes). */
size_t cz_gpu_prover_host_bytes(const cz_gpu_prover *pr);
/* Host bytes the creations under way hold for the while (all provers together): a Lagrange-form prover's fold of
 * C into L (C by column, its term records and the check's chunk: ~3.5 GB for a 32 GiB PoRep) and the pinned chunks
 * its bases' cache file is read or written through (64 MiB, up to four while a file loads), from before it
 * allocates them until it has freed them. The daemon counts them in its memory budget beside
 * cz_gpu_prover_host_bytes. */
uint64_t cz_gpu_prover_transient_host_bytes(void);
/* Device bytes create() computed: resident = everything on the device; streamed = without the bases, with the
 * staging chosen; streamed_min = the same at the smallest chunks (the least a streamed prover can run in).
 * The resident figure is always set; the streamed ones only when create() considered streaming (0 otherwise). */
void cz_gpu_prover_needs(const cz_gpu_prover *pr, size_t *resident, size_t *streamed, size_t *streamed_min);
void cz_gpu_prover_destroy(cz_gpu_prover *pr);
/* Device bytes the prover holds or needs for its working set (the figure create() checks). */
size_t cz_gpu_prover_device_bytes(const cz_gpu_prover *pr);
/* One line on how the prover's creation went: the matrices' coding and set-up, the bases' upload (GB, ms, GB/s,
 * pinned chunks or pageable), the matrices' upload, the density maps, and the Lagrange H bases' build or load
 * when the prover has them (their time is not in the first figure) (for the daemon's log). */
void cz_gpu_prover_build_report(const cz_gpu_prover *pr, char *out, size_t n);
/* The part of it not allocated yet: the device's shared MSM / batch-add scratch, grown on first use. */
size_t cz_gpu_prover_work_reserve(const cz_gpu_prover *pr);
/* Device bytes a resident prover of p holds at least (its bases and density maps, before the matrices and the
 * working set): when they exceed the free memory less the margin, a resident create() cannot succeed, and a
 * caller with idle provers to drop need not spend the matrices' coding to learn it. */
size_t cz_gpu_prover_floor_bytes(const cz_groth16_params *p);
/* The margin create() leaves free when given 0: 1 GiB + 2 % of a device of total bytes. */
size_t cz_gpu_prover_default_margin(size_t total);
/* The device bytes a create() plans within on a device of `free` of `total` bytes free: free + others, at most the
 * total (others: what the device's other provers hold, counted as if they were dropped; 0 for none, SIZE_MAX for not
 * known: the whole device), less margin (0: the default one), under the cap a test or bench sets with
 * CZ_GPU_MEM_LIMIT_MB / CZ_GPU_MEM_LIMIT_KB (a smaller card simulated). The backend's checks before a create() use
 * it too, so that they agree with the create(). */
size_t cz_gpu_prover_usable(size_t free, size_t total, size_t others, size_t margin);

/* The heavy part of a proof. inputs[0] must be ONE; witness buffers from cz_gpu_host_alloc upload at
 * full speed (others are registered for the copy or copied through staging). stats may be NULL.
 * nthreads: CPU threads for B_G2 (0 = OpenMP's default). */
int cz_gpu_prover_start(cz_groth16_pending *out, cz_gpu_prover *pr, const cz_fr *inputs, const cz_fr *aux,
                        int nthreads, cz_gpu_prove_stats *stats);

/* The same with aux as a compact witness (r1cs/wcompact.h, e.g. from cz_porep_witness_compact): only the
 * inputs, the two bitmaps and the values outside {0, 1} cross PCIe (16 bytes per 64 aux + 32 per "other"
 * value: 87 MB instead of 4.17 GB for a 32 GiB PoRep partition), and the device expands them in place of
 * the dense upload, in the tail buffer it already holds (no extra device memory). aux->n must be the
 * circuit's aux count (CZ_EFORMAT otherwise, also when n_dense disagrees with the bitmap). The result is
 * the same pending as start() with the dense aux. B_G2 (CPU) gathers its scalars from the compact form.
 * A witness named by set_next is not consumed: it uploads in the background here as in start(), for the
 * next start() given those pointers. */
int cz_gpu_prover_start_compact(cz_groth16_pending *out, cz_gpu_prover *pr, const cz_fr *inputs,
                                const cz_wcompact *aux, int nthreads, cz_gpu_prove_stats *stats);

/* Pipelining partitions: names the witness of the next start(). The next start() uploads it to a spare
 * device buffer (+ (inputs + aux) * 32 bytes of device memory, allocated on the first call) while its own
 * partition computes, and the start() given exactly these pointers then skips its upload. The caller
 * must not change that memory until that start() returns. Overlaps fully for page-locked memory. */
int cz_gpu_prover_set_next(cz_gpu_prover *pr, const cz_fr *inputs, const cz_fr *aux);
/* (A prover with the witness in c's buffer has no spare buffer: set_next returns 0 and start() uploads as usual.) */

/* Benchmark only: a PoRep-shaped circuit generated on the device (random off-curve bases, synthetic
 * matrices). No host params: start() skips B_G2 (b2_ans = infinity) and the pending is not a proof. */
typedef struct {
    unsigned log_n;
    uint64_t num_inputs, num_aux, num_constraints;
    unsigned a_w_lo, a_w_frac, b_w_lo, b_w_frac, c_w_lo, c_w_frac; /* row weight lo + (frac/1000) */
    unsigned b_stride;  /* B uses one aux column in b_stride */
    unsigned coeff_one; /* per mille of coefficients equal to 1 */
    unsigned coeff_pool; /* 0: the others random; else drawn from this many values, dictionary-coded (as real
                          * circuits' matrices are on the device) */
    int streamed;       /* 1: bases in pinned host memory, streamed per proof (as cz_gpu_prover_create_mode) */
} cz_gpu_synth_shape;
int cz_gpu_prover_create_synthetic(cz_gpu_prover **out, int device, const cz_gpu_synth_shape *s, uint64_t seed,
                                   size_t margin_bytes);
/* Synthetic witness (device-generated, copied into host_w = [inputs | aux], pinned or not):
 * aux 0 with p0/1000, 1 with p1/1000, random otherwise. */
int cz_gpu_prover_synth_witness(cz_gpu_prover *pr, cz_fr *host_w, unsigned p0, unsigned p1, uint64_t seed);
/* The same with B's aux columns (one in b_stride, cz_gpu_synth_shape) in their own mix p0b / p1b: in a PoRep
 * witness the variables B takes are more often neither 0 nor 1 than the rest (Poseidon's squarings: at 32 GiB
 * 3.7 % of B's aux against 1.3 % of all aux, cz_bench_porep_mix), which sets the size of B's G1 and G2 tails. */
int cz_gpu_prover_synth_witness_b(cz_gpu_prover *pr, cz_fr *host_w, unsigned p0, unsigned p1, unsigned p0b,
                                  unsigned p1b, uint64_t seed);
/* Attaches host B_G2 bases (b_len of them, borrowed) so that start() also runs B_G2 on the CPU. */
int cz_gpu_prover_synth_attach_g2(cz_gpu_prover *pr, const cz_g2_affine *host_bases);
void cz_gpu_prover_sizes(const cz_gpu_prover *pr, uint64_t *ni, uint64_t *na, uint64_t *a_len, uint64_t *b_len,
                         uint64_t nnz[3]);

/* B_G2 = sum sc[i] * bases[i] on the CPU with the 0/1 split (cz_g2_batch_add over the ones, cz_g2_msm over
 * the gathered rest; one cz_g2_msm when more than half are neither 0 nor 1). *tail_out (may be NULL) gets
 * the number of the rest. Used by start() until the device G2 MSM is switched on. */
int cz_gpu_g2_split_cpu(cz_g2_jac *r, const cz_g2_affine *bases, const cz_fr *sc, size_t n, int nthreads,
                        size_t *tail_out);

/* Engine backend (backend_gpu.c; the struct is src/engine/backend.h's cz_backend): start() proves on
 * the given device with a prover cached per device for its (params, r1cs) (several circuits resident as
 * long as they fit; the least recently used idle one makes room; streamed bases only for a circuit that does
 * not fit resident even alone on the device); finish() is the CPU's.
 * nthreads: CPU threads for B_G2. cz_backend_gpu_release frees the cached provers (and zeroes the counts; builds
 * stopped by cz_backend.abort_builds may run again). */
struct cz_backend;
/* cz_backend.prepare (engine/backend.h): the device's prover built outside the engine's turn, CZ_EBUILDING at once
 * while another thread builds one there. */
void cz_backend_gpu_init(struct cz_backend *b, int nthreads);
/* The backend's start_compact (engine/backend.h): cz_gpu_prover_start_compact on the device's cached
 * prover; cz_backend_gpu_init installs it. */
int cz_backend_gpu_start_compact(struct cz_backend *b, int device, const cz_groth16_params *p, const cz_r1cs *r,
                                 const cz_fr *inputs, const cz_wcompact *aux, void **pending);
void cz_backend_gpu_release(void);
/* Device dev's resident provers now, and the provers created / dropped (evicted, stale) since the last
 * release. */
void cz_backend_gpu_residency(int dev, int *resident, uint64_t *created, uint64_t *evicted);
/* Stops prover builds (on: a daemon shutting down cancels its work; off: builds allowed again, as at start): a
 * creation under way fails with CZ_ECANCELED at its next yield (between the ~0.6 s pieces of a Lagrange build, its
 * fold's chunks), freeing what it allocated, and the backend begins none while on (its prepare() and start() answer
 * CZ_ECANCELED where they would build). Provers already built keep proving. */
void cz_gpu_prover_abort_builds(bool on);
bool cz_gpu_prover_builds_aborted(void);
/* Whether a thread is building a prover on device dev now (its prepare() or start(); one at a time a device, but a
 * small prover, bases and maps of at most 512 MiB or CZ_GPU_SMALL_BUILD_KB, is built beside a big one). */
bool cz_backend_gpu_building(int dev);
/* At most n (1..8) resident provers per device (default 8, or CZ_GPU_MAX_RESIDENT). */
void cz_backend_gpu_set_max_resident(int n);
/* Prover creations on device dev that failed for memory (CZ_ENOMEM) beside other residents since the last
 * release (each then dropped an idle one and tried again): a switch between circuits that do not fit together
 * drops the idle one first, without such a failure, when the bases tell. */
uint64_t cz_backend_gpu_failed_creates(int dev);

#ifdef __cplusplus
}
#endif

#endif
