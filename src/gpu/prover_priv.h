/* The partition prover's private state, shared by prover.c (creation, memory accounting, destruction),
 * prover_synth.c (synthetic benchmark circuits), prover_sched.c (the streamed-bases schedule, host code that
 * tests/unit/test_gpu_stream_schedule.c also compiles) and prover_run.c (start). C only. */
#ifndef CZ_GPU_PROVER_PRIV_H
#define CZ_GPU_PROVER_PRIV_H

#include "gpu/gpu.h"
#include "gpu/gpu_internal.h"
#include "gpu/gpu_prover.h"

/* cz_gpu_g2_msm / cz_gpu_g2_batch_add exist: B_G2 stays on the device (undefine to run it on the CPU beside). */
#define CZ_GPU_HAVE_G2_MSM

#define GIB (1024.0 * 1024.0 * 1024.0)
/* the most staging buffers a streamed prover rings through (CZ_GPU_PROVER_STAGES) */
#define CZ_GPU_MAX_STAGES 4

enum { Q_L = 0, Q_A = 1, Q_B = 2 };

/* A compact witness of na aux values on the device (prover_run.c upload_compact): the is_bit and bit bitmaps,
 * then the dense values from this offset (256-byte aligned). */
static inline uint64_t cz_gpu_compact_head_(uint64_t na) { return (2 * ((na + 63) / 64 * 8) + 255) & ~(uint64_t)255; }

/* The two-vector layout's compact witness on the device (prover_priv.h two_vec): byte offsets of the inputs (0),
 * is_bit, bit, the per-word dense offsets (ceil(na / 64) + 1 u32) and the dense values, each 256-byte aligned;
 * returns the bytes for n_dense values. */
typedef struct {
    size_t is_bit, bit, offs, dense;
} cz_gpu_cw_layout;
static inline size_t cz_gpu_cw_layout_(uint64_t ni, uint64_t na, uint64_t n_dense, cz_gpu_cw_layout *l) {
    const size_t bm = (na + 63) / 64 * 8, al = 255;
    l->is_bit = (ni * 32 + al) & ~al;
    l->bit = l->is_bit + bm;
    l->offs = (l->bit + bm + al) & ~al;
    l->dense = (l->offs + ((na + 63) / 64 + 1) * 4 + al) & ~al;
    return l->dense + n_dense * 32;
}

struct cz_gpu_prover {
    int device;
    const cz_groth16_params *p; /* NULL for a synthetic prover */
    const cz_r1cs *r;
    uint64_t ni, na, rows, n;
    unsigned log_n;
    uint64_t len[3];  /* L, A, B_G1 query lengths */
    cz_g1_affine *d_h, *d_q[3];
    cz_g2_affine *d_b2; /* B_G2 bases, only with CZ_GPU_HAVE_G2_MSM */
    cz_gpu_csr *m[3];
    /* 1 (the default): c = a b on the device (cz_gpu_ab_product_), C's matrix never uploaded (m[2] NULL), which
     * holds for a witness that satisfies the circuit (one that does not gives a proof that does not verify, as
     * with C's SpMV); 0: C's SpMV from the resident matrix (CZ_GPU_C_SPMV=1, A/B), the CPU prover's reading */
    int c_ab;
    unsigned synth_b_stride; /* synthetic provers: B's aux columns are the multiples of this (else 0) */
    uint32_t *d_map[3]; /* query position -> witness index (NULL for L: aux j is witness ni + j) */
    cz_fr *d_w, *d_abc;
    /* Streamed provers short of memory (prover.c plan_stream): the witness lives in c's third of d_abc (d_w =
     * d_abc + 2 n, not allocated apart). The SpMV reads it into a and b, c = a b then overwrites it, and after
     * the H pipeline (h in a; b and c free) start() uploads and expands it again before the queries: (ni + na)
     * 32 bytes less on the device (3.9 GiB for a 32 GiB PoRep partition) for a second witness upload. Needs
     * c_ab, ni + na <= n and the largest compact form within n values (see walias_fits). No prefetch. */
    int w_alias;
    /* Streamed provers shorter still (prover.c plan_stream, after w_alias): a/b/c in two vectors (d_abc holds a
     * and b only) and the compact witness kept on the device apart (d_cw, cw_cap bytes: inputs, the two bitmaps,
     * the per-word dense offsets and the dense values, laid out by cz_gpu_cw_layout_). The SpMV reads the compact
     * form (cz_gpu_csr_mul_vec_cw); a and b go to the coset, A B / Z into a; then c = (A w)(B w) is computed again
     * into b (two more SpMVs; C's coefficients need no coset evaluations); after the H pipeline the dense witness
     * is expanded into b's vector (d_w = d_abc + n) for the queries. n 32 bytes less than w_alias (4 GiB at 32 GiB
     * PoRep) for ~20 ms of SpMV, and the witness crosses PCIe once, compact (a dense start is compacted on the
     * host). Needs c_ab, the 6-NTT H pipeline and ni + na <= n. d_cw is sized at creation for dense values (those
     * outside {0, 1}) (CZ_GPU_PROVER_CW_PERMILLE of the aux, default 32) and grown by start() when a witness has
     * more (CZ_ENOMEM when that does not fit). */
    int two_vec;
    uint8_t *d_cw;
    size_t cw_cap;
    /* dense_hint: the values outside {0, 1} a witness of this circuit is expected to have (the first start's, as
     * the backend creates the prover for it; UINT64_MAX: unknown), which sizes d_cw at creation */
    uint64_t dense_hint;
    /* Streamed provers shorter still (prover.c plan_stream, after two_vec, which it implies): the matrices' term
     * arrays (row pointers, columns, coefficient indices) in mapped page-locked host memory, read by the SpMV
     * kernels over PCIe (spmv.cu cz_gpu_csr_upload_host_); only the dictionaries and long-row lists stay on the
     * device. mat_dev / mat_hdev: the matrices' device bytes in the device form and in this one. */
    int host_mat;
    size_t mat_dev, mat_hdev;
    /* Prefetch of the next partition's witness (cz_gpu_prover_set_next): d_w2 is the spare buffer,
     * pre_* the host pointers whose upload was issued into it (done when ev_pre completes). */
    cz_fr *d_w2;
    const cz_fr *next_in, *next_aux, *pre_in, *pre_aux;
    void *ev_pre;
    /* synthetic provers, CZ_BENCH_C_MIX="zeros ones minus_ones twos" (parts in 100,000 of the rows): start() replaces
     * c = a b by values drawn in that mix, the rest random (the synthetic matrices give c ~11 % other values, a
     * real 32 GiB PoRep partition 1.36 %, which sets the Lagrange form's c tail; the pending is no proof anyway) */
    int syn_cmix_on; /* 2: CZ_BENCH_C_MIX_VARY=1, c drawn afresh each partition with one part in 100,000 fewer twos
                      * than the last (~1,300 more other values at 2^27: each partition's tail is the longest yet, as
                      * when a real proof's partition has more other values than any before) */
    unsigned syn_cmix[4];
    uint64_t syn_cmix_k;
    /* synthetic provers: host copies of the B densities and the B_G2 bases the bench attaches */
    cz_r1cs syn_r;
    cz_groth16_params syn_p;
    /* The H query in Lagrange form (CZ_GPU_PROVER_LAGRANGE=1; resident provers only; groth16/h_lagrange.h): d_h
     * then holds Lc (n points) and d_lh Lh (n points), built on the device at creation from the params' H
     * (cz_gpu_h_lagrange_bases; a synthetic prover draws them at random). start() runs y = A_coset B_coset (4 NTTs
     * instead of the H pipeline's 6), one MSM of y over Lc, and c = a b over Lh split by value (prover_run.c
     * run_c): its ones, minus ones and twos by batch addition, the rest in the shared tail MSM. d_cbm: c's three
     * bitmaps (2 ceil(n / 64) u32 words each), d_ccnt its counts and offsets. +n 96 bytes of bases (until the fold
     * below frees Lh, and with it c's buffers). */
    int lag;
    double lag_ms;     /* the bases' build or load, with their check, at creation */
    int lag_src;       /* 1: loaded from the cache (prover_lag.c), 0: built */
    char lag_note[600]; /* for the build report: H's copy, the load, build, check and write times, the cache's story */
    cz_g1_affine *d_lh;
    uint32_t *d_cbm, *d_ccnt;
    /* C's term folded into L (prover_fold.c; CZ_GPU_PROVER_LAG_FOLD=0 keeps c's split): L holds L - LhC over the
     * aux, d_lhc_in LhC's ni input points (a small MSM beside the queries' tails, subtracted from H's sum), d_lh
     * and c's buffers are gone, and start() computes neither c nor its split. */
    int fold;
    cz_g1_affine *d_lhc_in;
    /* Pair sums beside the 0/1 queries' bases (prover.c cz_gpu_prover_pair_sums_; gpu.h cz_gpu_g1_pair_sums): each
     * of d_q[] and d_b2 holds len / 2 more points after its len, point len + i = point 2i + point 2i + 1, and the
     * batch additions count a pair with both bits set as one point, its sum (cz_gpu_g1_batch_add_pairs). A mask
     * of the queries that have them: bit Q_L, Q_A, Q_B (B_G1) and CZ_GPU_PAIRS_B2. Resident provers, when
     * CZ_GPU_PROVER_PAIRS=1 (cz_gpu_prover_pairs_knob_), for the queries that fit in that order (L, A, B_G1,
     * B_G2: ~6.2, 6.2, 1.6 and 3.2 GB at 32 GiB PoRep); pairs_ms: their build. */
    unsigned pairs;
    double pairs_ms;
    double coding_ms, pin_ms; /* at creation: the matrices' device form (host), a streamed prover's pinning */
    uint32_t *d_ones, *d_cnt; /* bitmap (u32 words) and counts + offsets for the longest query */
    uint8_t *d_tail;          /* tail scalars and bases: 32 B per position of the longest query and the compact
                               * witness's bitmaps (prover.c resident_tail_bytes); streamed: 64 B per chunk position */
    size_t tail_cap;          /* its bytes */
    void *scan_temp;
    size_t scan_cap;
    cz_gpu_ntt *plan;
    void *st, *st_up, *ev_up;
    /* Compact witness uploads (prover_run.c upload_staged): two pinned host chunks of up_chunk bytes that
     * pageable parts are copied through by several threads while the other chunk is in flight, and the event
     * after each chunk's copy; allocated on the first compact start (NULL / 0 until then) */
    void *h_up[2], *ev_upc[2];
    size_t up_chunk;
    /* How its creation went (cz_gpu_prover_build_report): ms for the matrices' coding with the device
     * allocations (and, streamed, the host bases' page-locking), the bases' upload, the matrices' upload and
     * the density maps; bytes of bases uploaded, and whether through
     * pinned chunks (1) or the driver's pageable copy (0) */
    double build_ms[4];
    size_t build_bases;
    int build_staged;
    /* B_G2 beside L and A (prover_run.c): its own stream, an event after B's classification, and one buffer
     * for private copies of B's bitmap and tail offsets plus a tail area (g2buf_cap bytes in all; NULL when
     * it did not fit: B_G2 then runs after the G1 queries as before) */
    void *st2, *ev_b;
    uint8_t *d_g2buf;
    size_t g2buf_cap;
    /* work_reserve: MSM / batch-add scratch counted as used; work_min: the same with the adaptive parts (the
     * MSM's affine bucket rounds, the batch add's round chunks) at their floor, what the reserve drops to
     * when an allocation would not fit beside the full one (those parts then size themselves to the free
     * memory at call time, keeping 2 GiB free) */
    size_t limit, used, work_reserve, work_min;
    size_t alone_limit;        /* limit alone on the device (create_beside's estimate, else the total less the margin) */
    size_t mem_free, mem_total; /* the device's memory at creation */
    int beside;         /* streamed beside other provers with the plan it would have alone (plan_beside) */
    /* Streamed bases (prover.c, prover_run.c; issue 4 item 5): when only the non-base part fits, the bases
     * that do not fit beside it (H, L, A, B_G1, B_G2: h_src, the params' arrays, or a synthetic prover's
     * pinned copies, owned when h_own) stay in host memory and cross PCIe per proof in chunks of chunk1 G1 /
     * chunk2 G2 points through a ring of `stages` (2..CZ_GPU_MAX_STAGES) device staging buffers of
     * stage_bytes (d_stage) on st_up: ev_ld[i] = buffer i loaded, ev_fr[i] = the compute stream is done with
     * it. Partial residency: keep (bit SQ_i) marks the parts create() kept on the device beside the staging
     * (d_h, d_q[], d_b2, as a resident prover has them; chosen B_G2, B_G1, A, L, H while they fit: those
     * whose compute is short next to their upload first); their chunks run from device memory in the same
     * schedule, uploading nothing. h_reg[i]: a hold on the bases' registration (let go in destroy); h_stage: pinned
     * host twins of the staging buffers that pageable sources are copied through when the driver refuses
     * to page-lock them. sched: the chunk order (n_sched entries, built on the first start; u = the
     * streamed chunk's ordinal, its buffer u % stages, -1 for a kept part's chunk): see prover_sched.c.
     * s_next: the next entry to look at for an upload, s_taken: entries consumed; u_issued / u_taken:
     * streamed chunks uploaded / consumed this start. */
    int streamed, h_own, h_reg[5], stages;
    unsigned keep;
    const void *h_src[5];
    uint64_t chunk1, chunk2;
    size_t stage_bytes;
    uint8_t *d_stage[CZ_GPU_MAX_STAGES];
    void *h_stage[CZ_GPU_MAX_STAGES], *ev_ld[CZ_GPU_MAX_STAGES], *ev_fr[CZ_GPU_MAX_STAGES];
    struct cz_gpu_chunk_ { int q; int64_t u; uint64_t k0, m; } *sched;
    uint64_t n_sched, s_next, s_taken, u_issued, u_taken;
    /* Sparse uploads (prover_sched.c sparse_issue; CZ_GPU_STREAM_SPARSE=0 turns them off): h_dsrc[i] the device
     * address of h_src[i] when it is page-locked and mapped (else NULL: whole chunks by DMA); d_nz the witness's
     * nonzero bitmap (na bits), made by start() on st before the uploads (ev_nz) with nz_ready set, nz_waited once
     * st_up waits for it; d_ucnt the points copied (G1, G2); sparse_blocks the gather's grid. upx: every upload
     * done that many times (CZ_GPU_STREAM_UPX, benchmarks: a slower link). */
    const void *h_dsrc[5];
    uint32_t *d_nz;
    unsigned long long *d_ucnt;
    void *ev_nz;
    int nz_ready, nz_waited, upx;
    unsigned sparse_blocks;
    double link_gbps; /* the host-to-device rate create() measured for the streamed bases (prover.c link_gbps) */
    double link_lo;   /* the slowest of link_gbps's copies */
    /* figures create() computed (bytes): the resident need, the streamed need with the chosen staging, and
     * with the smallest chunks (cz_gpu_prover_needs) */
    size_t need_resident, need_streamed, need_streamed_min;
};

/* The Lagrange-form H's c bitmaps and counts: bytes (0 without it). */
static inline size_t cz_gpu_lag_c_bytes_(uint64_t n) {
    const size_t ng = 2 * ((n + 63) / 64);
    return 3 * ng * 4 + 2 * (ng + 2) * 4;
}

/* Points of the H-side MSM: H's n - 1, or Lc's n in the Lagrange form. */
static inline uint64_t cz_gpu_prover_h_len_(const cz_gpu_prover *pr) { return pr->lag ? pr->n : pr->n - 1; }

/* The longest of the L, A and B_G1 queries (what the tail buffer, bitmap and counts are sized for). */
static inline uint64_t cz_gpu_prover_max_len_(const cz_gpu_prover *pr) {
    uint64_t m = pr->len[0];
    for (int q = 1; q < 3; q++) m = pr->len[q] > m ? pr->len[q] : m;
    return m;
}

/* A streamed chunk of c1 G1 points as create() plans it when CZ_GPU_PROVER_CHUNK is unset, for a domain of n (H has
 * n - 1 points): chunks over 2^24 points go back to 2^24 unless H then takes at most two. Per point the H MSM
 * costs the same in chunks of 2^24 and 2^25 and less only from half of H, so the memory is better spent on
 * stages and kept parts (docs/perf.md, session 31: a 48 GB card 1,227.9 ms a 2^27 partition at 2^25, 1,195.4 at
 * 2^24; an 80 GB card 1,040.3 at 2^26 against 1,146.5 at 2^24). */
#define CZ_GPU_STREAM_CHUNK_CAP ((uint64_t)1 << 24)
static inline uint64_t cz_gpu_stream_chunk_capped_(uint64_t c1, uint64_t n) {
    const uint64_t h = n ? n - 1 : 0;
    return c1 > CZ_GPU_STREAM_CHUNK_CAP && (h + c1 - 1) / c1 > 2 ? CZ_GPU_STREAM_CHUNK_CAP : c1;
}

/* The next smaller chunk create() tries: half of c, rounded up to 64 points. */
static inline uint64_t cz_gpu_stream_half_(uint64_t c) { return (c / 2 + 63) & ~(uint64_t)63; }

/* Whether create() takes a 4th staging buffer at chunk c4 instead of three at chunk c3 (each the largest that
 * fits with the MSM scratch at its floor): when c3 is at most 2^24 points and c4 at least its half. The ring then
 * uploads the next query chunks beside each H chunk instead of stalling the MSMs: 2^27 PoRep, 24 GB card 1,369.3
 * ms a partition at 2^23 and 3 stages against 1,209.6 at 2^23 and 4; 20 GB 1,383.9 (2^23, 3) against 1,211.8
 * (2^23, 4); 16 GB 1,623.3 (2^23, 3) against 1,530.0 (2^22, 4); 2^22 and 4 stages on the 24 GB card 1,324.6
 * (docs/perf.md, session 32). Larger chunks (an 80 GB card's 2^26: H in two) keep their three. */
static inline int cz_gpu_stream_four_(uint64_t c3, uint64_t c4) {
    return c3 <= CZ_GPU_STREAM_CHUNK_CAP && c4 <= c3 && c4 >= cz_gpu_stream_half_(c3);
}

/* The streamed parts (index into h_src / h_reg; bit 1 << SQ_i is gpu_prover.h's CZ_GPU_PART_*). */
enum { SQ_H = 0, SQ_B = 1, SQ_L = 2, SQ_A = 3, SQ_B2 = 4, SQ_N = 5 };
/* Points in part i and bytes per point (96 G1, 192 G2). */
uint64_t cz_gpu_prover_part_len_(const cz_gpu_prover *pr, int i);
size_t cz_gpu_prover_part_el_(int i);
/* The device array of a kept part (NULL when streamed). */
void *cz_gpu_prover_part_dev_(const cz_gpu_prover *pr, int i);
/* The streamed-bases schedule (prover_sched.c), one start at a time: begin builds the chunk order on the
 * first start and issues the first uploads; take hands out the next chunk's bases (a staging buffer the
 * compute stream then waits for, or a kept part's device array); release, once the compute is done with
 * it, frees its staging buffer for the next upload. */
int cz_gpu_prover_stream_begin_(cz_gpu_prover *pr, cz_gpu_prove_stats *st);
int cz_gpu_prover_stream_take_(cz_gpu_prover *pr, const struct cz_gpu_chunk_ **c, const void **bases);
int cz_gpu_prover_stream_release_(cz_gpu_prover *pr, cz_gpu_prove_stats *st);

/* Device allocation through the prover's accountant (ctx = the prover); CZ_ENOMEM when over the limit. */
int cz_gpu_prover_dalloc_(void *ctx, void **ptr, size_t bytes, const char *what);
/* Streams, limit (free memory minus margin; 0 = default); *out is set even on failure (destroy it). */
int cz_gpu_prover_init_(cz_gpu_prover **out, int device, size_t margin);
/* Device scratch that one G1 / G2 batch addition of n points keeps (ba.cu, ba_g2.cu); rounds = 0: with the
 * affine rounds' chunk at its floor (what it shrinks to when device memory is short). */
size_t cz_gpu_g1_ba_scratch_bytes_(size_t n, int rounds);
size_t cz_gpu_g2_ba_scratch_bytes_(size_t n, int rounds);
/* Reserves msm.cu's scratch and allocates the per-partition buffers (len[] must be set). */
int cz_gpu_prover_alloc_working_(cz_gpu_prover *pr);
/* Streamed mode (prover.c): picks the stage count, the staging size from the memory left beside `fixed`
 * bytes (matrices and maps) and the parts to keep on the device in what is left after that; sets stages,
 * chunk1 / chunk2 / stage_bytes, keep and the need_* figures; CZ_ENOMEM (message with the sizes) when even
 * two stages of the smallest chunks do not fit. bases: device bytes of all bases (for the message). */
int cz_gpu_prover_plan_stream_(cz_gpu_prover *pr, size_t fixed, size_t bases);
/* 1 when the Lagrange-form H query is asked for (prover_priv.h lag): CZ_GPU_PROVER_LAGRANGE=1 (=0 refuses it),
 * else cz_gpu_prover_set_lagrange (prover_lag.c). */
int cz_gpu_prover_lagrange_knob_(void);
/* 0 when CZ_GPU_PROVER_LAG_FOLD=0 (a Lagrange-form prover then keeps Lh and c's per-partition split) */
int cz_gpu_prover_lag_fold_knob_(void);
/* C's term of the Lagrange-form H folded into L (prover_fold.c): needs d_lh and L on the device; on success Lh is
 * freed and fold set; a fold that fails its check restores L from p and leaves fold 0 (then 0 is returned too). */
int cz_gpu_prover_lag_fold_(cz_gpu_prover *pr, const cz_groth16_params *p, const cz_r1cs *r);
/* Allocates d_h (Lc) and d_lh (Lh) and fills them from the cache or the device build, checked against H. htod
 * (NULL: cz_gpu_memcpy_htod) copies H to the device for the build and the check, synchronously (prover.c's pinned
 * chunks: 12.9 GB at 2^27). */
int cz_gpu_prover_lagrange_bases_(cz_gpu_prover *pr, const cz_groth16_params *p,
                                  int (*htod)(void *ctx, void *dst, const void *src, size_t bytes), void *ctx);
/* Host bytes held while a prover is created (C's fold, the Lagrange bases' pinned chunks), in
 * cz_gpu_prover_transient_host_bytes from before they are allocated until they are freed. _peak_ returns the most
 * held at once since its last call (for the tests) and starts again from what is held now. */
void cz_gpu_prover_transient_add_(uint64_t bytes);
void cz_gpu_prover_transient_sub_(uint64_t bytes);
uint64_t cz_gpu_prover_transient_peak_(void);
/* 1 when CZ_GPU_PROVER_PAIRS=1: resident provers keep pair sums beside the 0/1 queries' bases (prover_priv.h pairs) */
int cz_gpu_prover_pairs_knob_(void);
#define CZ_GPU_PAIRS_B2 3 /* the bit of B_G2 in pairs (after Q_L, Q_A, Q_B) */
#define CZ_GPU_PAIRS_ALL 15u
/* The points to allocate for a query of n bases whose bit in pr->pairs is `bit` (-1: none): n, and n / 2 more for
 * their pair sums when it is set. */
static inline uint64_t cz_gpu_prover_room_(const cz_gpu_prover *pr, int bit, uint64_t n) {
    return n + (bit >= 0 && (pr->pairs >> bit & 1) ? n / 2 : 0);
}
/* The device bytes the pair sums of the queries in mask take (len[]: the queries' lengths). */
size_t cz_gpu_prover_pairs_bytes_(const uint64_t len[3], unsigned mask);
/* Fills the pair sums of every query with room for them (pairs set, the bases in place), synchronously. */
int cz_gpu_prover_pair_sums_(cz_gpu_prover *pr);
/* 1 when streamed mode is forced by CZ_GPU_PROVER_STREAM=1, 0 when forbidden (=0), -1 when unset. */
int cz_gpu_prover_stream_knob_(void);
/* Sparse uploads for a streamed prover whose host bases are in place (prover.c). */
int cz_gpu_prover_sparse_init_(cz_gpu_prover *pr);
/* A and B_G1 index maps from device density bitmaps (A aux, B inputs, B aux). */
int cz_gpu_prover_build_maps_(cz_gpu_prover *pr, const uint64_t *d_a_aux, const uint64_t *d_b_in,
                              const uint64_t *d_b_aux, uint64_t *a_len, uint64_t *b_len);

#endif
