/* GPU partition prover: creation with resident params and matrices, memory accounting, destruction
 * (gpu_prover.h; start() is in prover_run.c, synthetic circuits in prover_synth.c).
 * Every device allocation goes through one accountant (cz_gpu_prover_dalloc_): the limit is the free memory
 * at creation minus a safety margin, and the lazily grown MSM / batch-add scratch (G1 and G2, the
 * affine rounds' buffers included) is reserved up front (work_reserve; its adaptive parts drop to their
 * floor, work_min, when the full reserve does not fit), so a prover that does not fit fails at creation
 * with CZ_ENOMEM and the sizes, not in the middle of a proof.
 * When everything but the bases fits, create() builds a streamed-bases prover instead (gpu_prover.h): the
 * chunk size is the largest (a whole query, halved down to 2^16 points) whose ring of staging buffers, tail
 * buffer and MSM scratch fit beside the matrices, maps and witness buffers; whole base arrays are then kept
 * on the device in what is left (plan_keep). */
#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cz_error.h"
#include "gpu/gpu_internal.h"
#include "gpu/prover_internal.h"
#include "gpu/prover_priv.h"
#include "poly/ntt.h"

/* ---- locks ---- */
/* A ticket lock a device: the device region goes to its waiters in the order they asked, so a long holder that
 * yields (cz_gpu_lock_yield_: a prover's creation between the pieces of its Lagrange build) lets every thread that
 * was waiting through before it takes the device again. held: the device whose lock the calling thread holds. */
static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint64_t next, serving;
} g_locks[64];
static pthread_once_t g_locks_once = PTHREAD_ONCE_INIT;
static _Thread_local int tl_held = -1;
static _Thread_local int tl_whole; /* cz_gpu_lock_whole_: this thread's yields and drops do nothing */
static void locks_init(void) {
    for (int i = 0; i < 64; i++) pthread_mutex_init(&g_locks[i].mu, NULL), pthread_cond_init(&g_locks[i].cv, NULL);
}
void cz_gpu_lock(int dev) {
    pthread_once(&g_locks_once, locks_init);
    const int d = dev & 63;
    pthread_mutex_lock(&g_locks[d].mu);
    const uint64_t t = g_locks[d].next++;
    while (g_locks[d].serving != t) pthread_cond_wait(&g_locks[d].cv, &g_locks[d].mu);
    pthread_mutex_unlock(&g_locks[d].mu);
    tl_held = d;
}
void cz_gpu_unlock(int dev) {
    const int d = dev & 63;
    tl_held = -1;
    pthread_mutex_lock(&g_locks[d].mu);
    g_locks[d].serving++;
    pthread_cond_broadcast(&g_locks[d].cv);
    pthread_mutex_unlock(&g_locks[d].mu);
}

int cz_gpu_lock_waiters_(int dev) {
    pthread_once(&g_locks_once, locks_init);
    const int d = dev & 63;
    pthread_mutex_lock(&g_locks[d].mu);
    const uint64_t w = g_locks[d].next - g_locks[d].serving;
    pthread_mutex_unlock(&g_locks[d].mu);
    return w > 1 ? (int)(w - 1) : 0; /* less the holder */
}

/* Set by cz_gpu_prover_abort_builds (a daemon shutting down): a creation's next yield fails, so a build of minutes
 * stops within one of its pieces. */
static atomic_int g_builds_aborted;
void cz_gpu_prover_abort_builds(bool on) { atomic_store(&g_builds_aborted, on ? 1 : 0); }
bool cz_gpu_prover_builds_aborted(void) { return atomic_load(&g_builds_aborted) != 0; }

void cz_gpu_lock_whole_(int on) { tl_whole = on; }

int cz_gpu_lock_yield_(void *stream) {
    if (cz_gpu_prover_builds_aborted())
        return cz_error(CZ_ECANCELED, "GPU prover build stopped: builds were aborted (the daemon is shutting down)");
    const int d = tl_held;
    if (d < 0 || tl_whole || !cz_gpu_lock_waiters_(d)) return 0;
    const int rc = cz_gpu_stream_sync_(stream); /* the device goes to them with none of this thread's work on it */
    if (rc) return rc; /* a broken context: the caller fails with it, still holding the lock */
    cz_gpu_unlock(d);
    cz_gpu_lock(d);
    return 1;
}

int cz_gpu_lock_drop_(void) {
    if (tl_whole) return -1; /* kept: cz_gpu_lock_retake_(-1) does nothing */
    const int d = tl_held;
    if (d >= 0) cz_gpu_unlock(d);
    return d;
}

void cz_gpu_lock_retake_(int held) {
    if (held >= 0) cz_gpu_lock(held);
}

double cz_gpu_now_ms_(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* ---- memory accounting ---- */
/* Upper bound of msm.cu's / msm_g2.cu's scratch for an MSM of N points without the affine bucket rounds
 * (their window choice, +10 %), point = bytes of one xyzz bucket (192 G1, 384 G2): the floor the MSM
 * falls back to when memory is short. With aff, what the MSM itself says it takes at full size
 * (cz_gpu_g1_msm_scratch_bytes: the affine rounds one chunk per window, ~13 GB more at 2^27), +10 %. */
static size_t msm_scratch_est(size_t N, size_t point, int aff) {
    if (aff) {
        const size_t b = point == 192 ? cz_gpu_g1_msm_scratch_bytes(N) : cz_gpu_g2_msm_scratch_bytes(N);
        return b + b / 10;
    }
    size_t c = N < ((size_t)1 << 14) ? 8 : N < ((size_t)1 << 25) ? 16 : 20, W = (256 + c - 1) / c, nb = (size_t)1 << (c - 1);
    size_t b = N * 32 + 3 * N * 4 + W * N * 4 + 2 * W * (nb + 1) * 4 + W * nb * point + (W * (nb / 64) + W) * point +
               N * 8 + ((size_t)1 << 20);
    return b + b / 10;
}

/* Everything the MSMs and batch additions of one partition keep on the device between calls: G1 MSM (the
 * largest is H's), G1 batch add (the longest query), and with B_G2 on the device its MSM and batch add.
 * full = 0: the adaptive parts at their floor (the G1 MSM without its affine rounds, round chunks of 2^16). */
/* full: the full size; else the floor, never above the full size (small MSMs: the floor's fixed 1 MiB exceeds the
 * affine rounds' own scratch, and the accountant then held less than create() planned with) */
static size_t part(int full, size_t floor, size_t whole) { return full || whole < floor ? whole : floor; }
static size_t work_est(size_t msm_n, size_t maxlen, size_t b_len, int full) {
    size_t w = part(full, msm_scratch_est(msm_n, 192, 0), msm_scratch_est(msm_n, 192, 1)) +
               part(full, cz_gpu_g1_ba_scratch_bytes_(maxlen, 0), cz_gpu_g1_ba_scratch_bytes_(maxlen, 1));
#ifdef CZ_GPU_HAVE_G2_MSM
    if (b_len)
        w += msm_scratch_est(b_len, 384, 0) +
             part(full, cz_gpu_g2_ba_scratch_bytes_(b_len, 0), cz_gpu_g2_ba_scratch_bytes_(b_len, 1));
#else
    (void)b_len;
#endif
    return w;
}

/* 1 if bytes more fit beside what is allocated and the scratch reserve; the reserve drops to its floor
 * when only that fits (the adaptive scratch then sizes itself to what is left at call time). */
static int fits(cz_gpu_prover *pr, size_t bytes) {
    if (pr->used + bytes + pr->work_reserve > pr->limit && pr->used + bytes + pr->work_min <= pr->limit)
        pr->work_reserve = pr->work_min;
    return pr->used + bytes + pr->work_reserve <= pr->limit;
}

/* Counts bytes against the limit (CZ_ENOMEM with the sizes when they do not fit). */
static int charge(cz_gpu_prover *pr, size_t bytes, const char *what) {
    if (!fits(pr, bytes))
        return cz_error(CZ_ENOMEM,
                        "GPU prover: %s (%.2f GiB) does not fit: %.2f GiB allocated + %.2f GiB MSM working set, "
                        "limit %.2f GiB (free memory minus the safety margin)",
                        what, bytes / GIB, pr->used / GIB, pr->work_reserve / GIB, pr->limit / GIB);
    pr->used += bytes;
    return 0;
}

int cz_gpu_prover_dalloc_(void *ctx, void **ptr, size_t bytes, const char *what) {
    cz_gpu_prover *pr = ctx;
    *ptr = NULL;
    int rc = charge(pr, bytes, what);
    if (!rc && (rc = cz_gpu_malloc(ptr, bytes ? bytes : 1))) pr->used -= bytes;
    return rc;
}

/* tests and benches: behave as a smaller card (CZ_GPU_MEM_LIMIT_MB caps the usable memory) */
static size_t mem_cap(size_t limit) {
    const char *lim = getenv("CZ_GPU_MEM_LIMIT_MB");
    if (lim && atoll(lim) > 0 && (size_t)atoll(lim) << 20 < limit) limit = (size_t)atoll(lim) << 20;
    lim = getenv("CZ_GPU_MEM_LIMIT_KB"); /* the same in KiB, for tests whose layouts differ by less than 1 MiB */
    if (lim && atoll(lim) > 0 && (size_t)atoll(lim) << 10 < limit) limit = (size_t)atoll(lim) << 10;
    return limit;
}

int cz_gpu_prover_init_(cz_gpu_prover **out, int device, size_t margin) {
    *out = NULL;
    int rc = cz_gpu_set_device(device);
    if (rc) return rc;
    cz_gpu_prover *pr = calloc(1, sizeof *pr);
    if (!pr) return cz_error(CZ_ENOMEM, "GPU prover");
    pr->device = device;
    size_t fr, tot;
    rc = cz_gpu_mem_info(&fr, &tot);
    if (rc) {
        free(pr);
        return rc;
    }
    pr->limit = cz_gpu_prover_usable(fr, tot, 0, margin);
    pr->mem_free = fr, pr->mem_total = tot;
    const char *cs = getenv("CZ_GPU_C_SPMV");
    pr->c_ab = !(cs && cs[0] == '1');
    pr->dense_hint = UINT64_MAX;
    if (!rc) rc = cz_gpu_stream_create_(&pr->st);
    if (!rc) rc = cz_gpu_stream_create_(&pr->st_up);
    if (!rc) rc = cz_gpu_event_create_(&pr->ev_up);
    *out = pr;
    return rc;
}

/* The two-vector layout's dense values reserved at creation (prover_priv.h two_vec): CZ_GPU_PROVER_CW_PERMILLE
 * thousandths of the aux values (default 32: a 32 GiB PoRep partition has ~13, 1.7 M of 130 M; start() grows the
 * buffer for a witness with more). */
static uint64_t cw_reserve(const cz_gpu_prover *pr) {
    const char *e = getenv("CZ_GPU_PROVER_CW_PERMILLE");
    long long pm = e && *e ? atoll(e) : 32;
    pm = pm < 0 ? 0 : pm > 1000 ? 1000 : pm;
    uint64_t r = pr->na / 1000 * (uint64_t)pm + pr->na % 1000 * (uint64_t)pm / 1000;
    /* a witness of this circuit seen denser (a PoSt witness: ~99 % outside {0, 1}): its count and 1/64 more */
    if (!(e && *e) && pr->dense_hint != UINT64_MAX) {
        const uint64_t h = pr->dense_hint + pr->dense_hint / 64;
        if (h > r) r = h;
    }
    return r < pr->na ? r : pr->na;
}

/* A resident prover's B_G2 side buffers (alloc_working_): B's bitmap and offsets (len/8 + len/16 bytes) and a tail
 * area of 32 B per B position; 0 without B_G2 on the device. */
static size_t g2_side_bytes(const cz_gpu_prover *pr) {
#ifdef CZ_GPU_HAVE_G2_MSM
    const size_t lb = pr->len[Q_B];
    return lb ? 2 * ((lb + 63) / 64 + 2) * 8 + 2 * (2 * ((lb + 63) / 64) + 2) * 4 + 32 * lb + 4096 : 0;
#else
    (void)pr;
    return 0;
#endif
}

/* A resident prover's tail buffer (prover_priv.h d_tail): 32 B per position of the longest query, which holds a full
 * MSM's gathered scalars, and the compact witness's bitmaps, so that any compact witness fits (upload_compact); a
 * query's 0/1 split takes its tail's scalars and bases (128 B a point) only when they fit, tails up to ~a quarter
 * of the query (a PoRep partition's are 1.2-4.6 %: cz_bench_porep_mix), else one full MSM (prover_run.c
 * run_query). It was 64 B per position, tails up to a half: ~4.2 GB more at 32 GiB. */
static size_t resident_tail_bytes(const cz_gpu_prover *pr) {
    return 32 * (size_t)cz_gpu_prover_max_len_(pr) + cz_gpu_compact_head_(pr->na) + 4096;
}

/* Sizes known: reserve msm.cu's scratch and allocate the per-partition buffers. */
int cz_gpu_prover_alloc_working_(cz_gpu_prover *pr) {
    const uint64_t maxlen = cz_gpu_prover_max_len_(pr);
    const uint64_t hn = cz_gpu_prover_h_len_(pr);
    size_t msm_n = hn > maxlen ? hn : maxlen, ba_n = maxlen, g2_n = pr->len[Q_B];
    if (pr->lag && !pr->fold && pr->n > ba_n) ba_n = pr->n; /* c over Lh */
    size_t tail_bytes = resident_tail_bytes(pr);
    if (pr->streamed) { /* MSMs, batch additions and tails over one chunk at a time */
        msm_n = ba_n = pr->chunk1, g2_n = pr->len[Q_B] ? pr->chunk2 : 0;
        tail_bytes = 64 * (size_t)pr->chunk1 + 4096;
    }
    pr->work_reserve = work_est(msm_n, ba_n, g2_n, 1);
    pr->work_min = work_est(msm_n, ba_n, g2_n, 0);
    const size_t words = (maxlen + 63) / 64, groups = 2 * words;
    int rc = cz_gpu_ntt_create(&pr->plan, pr->log_n);
    /* the plan allocates its own tables: charged here (work_need counts them beforehand) */
    if (!rc) rc = charge(pr, cz_gpu_ntt_bytes(pr->plan), "NTT plan");
    /* two vectors: c computed into b (two_vec), or no c at all once C is folded into L (prover_run.c no_c; 4.3 GB at
     * 32 GiB). The plan (work_need) counts three for a Lagrange prover, as its fold may fail its check and keep c. */
    const int nvec = pr->two_vec || (pr->fold && !pr->w_alias) ? 2 : 3;
    if (!rc) rc = cz_gpu_prover_dalloc_(pr, (void **)&pr->d_abc, nvec * pr->n * sizeof(cz_fr),
                                        pr->two_vec ? "a, b (c computed into b)" : nvec == 2 ? "a, b (C folded: no c)"
                                                                                             : "a, b, c");
    if (!rc && pr->w_alias) pr->d_w = pr->d_abc + 2 * pr->n;
    else if (!rc && pr->two_vec) { /* the dense witness goes into b's vector after the H pipeline */
        cz_gpu_cw_layout l;
        pr->d_w = pr->d_abc + pr->n;
        pr->cw_cap = cz_gpu_cw_layout_(pr->ni, pr->na, cw_reserve(pr), &l);
        rc = cz_gpu_prover_dalloc_(pr, (void **)&pr->d_cw, pr->cw_cap, "compact witness");
    } else if (!rc) rc = cz_gpu_prover_dalloc_(pr, (void **)&pr->d_w, (pr->ni + pr->na) * sizeof(cz_fr), "witness");
    if (!rc) rc = cz_gpu_prover_dalloc_(pr, (void **)&pr->d_ones, (groups + 2) * 4, "0/1 bitmap");
    if (!rc) rc = cz_gpu_prover_dalloc_(pr, (void **)&pr->d_cnt, 2 * (groups + 2) * 4, "split counts");
    if (!rc) rc = cz_gpu_prover_dalloc_(pr, (void **)&pr->d_tail, tail_bytes, "tail scalars and bases");
    if (!rc && pr->lag && !pr->fold) {
        const size_t ng = 2 * ((pr->n + 63) / 64);
        rc = cz_gpu_prover_dalloc_(pr, (void **)&pr->d_cbm, 3 * ng * 4, "c's bitmaps (Lagrange H)");
        if (!rc) rc = cz_gpu_prover_dalloc_(pr, (void **)&pr->d_ccnt, cz_gpu_lag_c_bytes_(pr->n) - 3 * ng * 4,
                                            "c's split counts (Lagrange H)");
    }
    pr->tail_cap = tail_bytes;
    for (int i = 0; i < pr->stages && pr->streamed && !rc; i++) {
        rc = cz_gpu_prover_dalloc_(pr, (void **)&pr->d_stage[i], pr->stage_bytes, "base staging buffer");
        if (!rc) rc = cz_gpu_event_create_(&pr->ev_ld[i]);
        if (!rc) rc = cz_gpu_event_create_(&pr->ev_fr[i]);
    }
    if (pr->streamed) return rc; /* B_G2 runs after the G1 queries, from the staging buffers */
#ifdef CZ_GPU_HAVE_G2_MSM
    /* B_G2 beside L and A: B's bitmap and offsets (len/8 + len/16 bytes) and a tail area of 32 B per B
     * position (a tail up to ~14 % of B with its 224 B per point; PoRep's is ~1.3 %, the tests' 10 %);
     * optional (only if it fits) */
    if (!rc && pr->len[Q_B] && !pr->d_g2buf) {
        const size_t cap = g2_side_bytes(pr);
        if (cz_gpu_prover_dalloc_(pr, (void **)&pr->d_g2buf, cap, "B_G2 side buffers") == 0) pr->g2buf_cap = cap;
        else pr->d_g2buf = NULL; /* B_G2 then runs after L and A, as before */
        if (!rc) rc = cz_gpu_stream_create_(&pr->st2);
        if (!rc) rc = cz_gpu_event_create_(&pr->ev_b);
    }
#endif
    return rc;
}

/* A and B_G1 maps from the density bitmaps (d_bits: aux bits of A, input bits of B, aux bits of B). */
int cz_gpu_prover_build_maps_(cz_gpu_prover *pr, const uint64_t *d_a_aux, const uint64_t *d_b_in, const uint64_t *d_b_aux,
                      uint64_t *a_len, uint64_t *b_len) {
    size_t na_cnt = 0, bi_cnt = 0, ba_cnt = 0;
    const size_t wa = (pr->na + 63) / 64, wi = (pr->ni + 63) / 64;
    uint32_t *cnt = NULL;
    int rc = cz_gpu_malloc((void **)&cnt, 2 * ((wa > wi ? wa : wi) + 2) * 4);
    uint32_t *ta = NULL, *tb = NULL;
    /* worst-case maps first; they are copied to exact sizes below */
    if (!rc) rc = cz_gpu_malloc((void **)&ta, (pr->ni + pr->na + 1) * 4);
    if (!rc) rc = cz_gpu_malloc((void **)&tb, (pr->ni + pr->na + 1) * 4);
    if (!rc) rc = cz_gpu_iota_(ta, pr->ni, pr->st);
    if (!rc) rc = cz_gpu_bitmap_to_map_(ta + pr->ni, &na_cnt, d_a_aux, pr->na, (uint32_t)pr->ni, cnt, &pr->scan_temp,
                                        &pr->scan_cap, pr->st);
    if (!rc) rc = cz_gpu_bitmap_to_map_(tb, &bi_cnt, d_b_in, pr->ni, 0, cnt, &pr->scan_temp, &pr->scan_cap, pr->st);
    if (!rc) rc = cz_gpu_bitmap_to_map_(tb + bi_cnt, &ba_cnt, d_b_aux, pr->na, (uint32_t)pr->ni, cnt, &pr->scan_temp,
                                        &pr->scan_cap, pr->st);
    *a_len = pr->ni + na_cnt;
    *b_len = bi_cnt + ba_cnt;
    if (!rc) rc = cz_gpu_prover_dalloc_(pr, (void **)&pr->d_map[Q_A], (*a_len + 1) * 4, "A index map");
    if (!rc) rc = cz_gpu_prover_dalloc_(pr, (void **)&pr->d_map[Q_B], (*b_len + 1) * 4, "B index map");
    if (!rc) rc = cz_gpu_dtod_(pr->d_map[Q_A], ta, *a_len * 4);
    if (!rc) rc = cz_gpu_dtod_(pr->d_map[Q_B], tb, *b_len * 4);
    cz_gpu_free(cnt);
    cz_gpu_free(ta);
    cz_gpu_free(tb);
    return rc;
}

/* Per-partition device bytes beside the matrices, maps and bases: witness, a/b/c, bitmap and counts, the
 * tail buffer (resident: resident_tail_bytes, else 64 B per chunk position), the NTT plan's tables and the MSM /
 * batch-add scratch at its floor (full = 0) or in full (1), for MSMs of msm_n points, G1 batch additions and tails
 * of ba_n, G2 ones of g2_n. */
static size_t work_need(const cz_gpu_prover *pr, size_t msm_n, size_t ba_n, size_t g2_n, int full, int resident) {
    const uint64_t maxlen = cz_gpu_prover_max_len_(pr);
    cz_gpu_cw_layout l;
    const size_t wit = pr->two_vec ? cz_gpu_cw_layout_(pr->ni, pr->na, cw_reserve(pr), &l)
                       : pr->w_alias ? 0 : (pr->ni + pr->na) * 32;
    const size_t lag = pr->lag ? cz_gpu_lag_c_bytes_(pr->n) : 0;
    const size_t tail = resident ? resident_tail_bytes(pr) : 64 * ba_n + 4096;
    return wit + (pr->two_vec ? 2 : 3) * pr->n * 32 + tail + 3 * ((maxlen + 63) / 64 * 2 + 2) * 4 + lag +
           cz_gpu_ntt_plan_bytes(pr->log_n) + work_est(msm_n, pr->lag && pr->n > ba_n ? pr->n : ba_n, g2_n, full);
}

/* Everything resident, the MSM scratch at its floor (full = 0) or in full (1); *work gets the per-partition part. */
static size_t resident_need_(const cz_gpu_prover *pr, size_t fixed, size_t bases, size_t *work, int full) {
    const uint64_t maxlen = cz_gpu_prover_max_len_(pr);
    const uint64_t hn = cz_gpu_prover_h_len_(pr);
    const size_t msm_n = hn > maxlen ? hn : maxlen;
    /* B_G2's side buffers too: optional in alloc_working_, but allocated before the bases when they fit, so a plan
     * without them admitted creates that then ran short (test_gpu_prover's partial pair sums; ~1 GB at 32 GiB) */
    *work = work_need(pr, msm_n, maxlen, pr->len[Q_B], full, 1) + g2_side_bytes(pr);
    return fixed + bases + *work;
}
static size_t resident_need(const cz_gpu_prover *pr, size_t fixed, size_t bases, size_t *work) {
    return resident_need_(pr, fixed, bases, work, 0);
}

/* A streamed prover's nonzero bitmap of the aux (pr->d_nz) and its two counters (d_ucnt). */
static size_t sparse_bytes(const cz_gpu_prover *pr) { return (pr->na + 63) / 64 * 8 + 256; }

/* Streamed with chunks of c1 G1 points (c2 = c1 / 2 G2 points, both clipped to the longest query): the
 * same without the bases, plus k staging buffers of *stage bytes; full: the MSM scratch in full. */
static size_t stream_need(const cz_gpu_prover *pr, size_t fixed, uint64_t c1, int k, uint64_t *c2, size_t *stage,
                          int full) {
    *c2 = c1 / 2 ? c1 / 2 : 1;
    if (*c2 > pr->len[Q_B]) *c2 = pr->len[Q_B];
    *stage = c1 * sizeof(cz_g1_affine) > *c2 * sizeof(cz_g2_affine) ? c1 * sizeof(cz_g1_affine) : *c2 * sizeof(cz_g2_affine);
    return fixed + (size_t)k * *stage + work_need(pr, c1, c1, pr->len[Q_B] ? *c2 : 0, full, 0) + sparse_bytes(pr);
}

/* Which parts to keep on the device in `spare` bytes: CZ_GPU_PROVER_KEEP (a CZ_GPU_PART_* mask) when set, else
 * whole parts in the order B_G2, B_G1, A, L, H while they fit: every kept byte saves one byte of PCIe per
 * proof, and the queries' batch additions are short next to their uploads (they stall the ring), while the
 * long H MSM chunks hide their own uploads. */
static unsigned plan_keep(const cz_gpu_prover *pr, size_t spare) {
    const char *e = getenv("CZ_GPU_PROVER_KEEP");
    if (e && *e) return (unsigned)strtoul(e, NULL, 0) & ((1u << SQ_N) - 1);
    static const int order[SQ_N] = {SQ_B2, SQ_B, SQ_A, SQ_L, SQ_H};
    unsigned keep = 0;
    for (int j = 0; j < SQ_N; j++) {
        const size_t b = cz_gpu_prover_part_len_(pr, order[j]) * cz_gpu_prover_part_el_(order[j]);
        if (b <= spare) keep |= 1u << order[j], spare -= b;
    }
    return keep;
}

/* Whether the witness can live in c's third of a, b, c (prover_priv.h w_alias): c from a b (C's SpMV would read
 * the witness while writing c), the dense witness within n values, and the largest compact form (two bitmaps
 * and every aux value dense, as prover_run.c upload_compact lays it out) within n values too, since the second
 * upload lands in b's third while h holds a's. */
static int walias_fits(const cz_gpu_prover *pr) {
    return pr->c_ab && pr->ni + pr->na <= pr->n && cz_gpu_compact_head_(pr->na) + pr->na * 32 <= pr->n * 32;
}

/* Whether a/b/c can live in two vectors (prover_priv.h two_vec): c from a b, the 6-NTT H pipeline (c computed
 * into b once A B / Z is in a) and the dense witness within n values (it is expanded into b's vector for the
 * queries). */
static int two_fits(const cz_gpu_prover *pr) { return pr->c_ab && cz_gpu_h_six_() && pr->ni + pr->na <= pr->n; }

/* CZ_GPU_PROVER_WALIAS / CZ_GPU_PROVER_TWO: 1 that layout whenever it fits (TWO first), 0 never, unset only when
 * the layouts before it do not fit (-1). */
static int layout_knob(const char *name) {
    const char *e = getenv(name);
    return e && *e ? atoi(e) != 0 : -1;
}

/* The streamed layouts, from the most device memory to the least: the witness apart, in c's buffer, a/b/c in
 * two vectors with the witness compact, and that with the matrices' terms in host memory. */
enum { LAY_PLAIN, LAY_ALIAS, LAY_TWO, LAY_HOST };

/* Whether the matrices' terms may live in host memory (prover_priv.h host_mat): the two-vector layout, and
 * something to gain. */
static int host_fits(const cz_gpu_prover *pr) { return two_fits(pr) && pr->mat_dev > pr->mat_hdev; }

static int layout_allowed(const cz_gpu_prover *pr, int lay, int wknob, int tknob, int hknob) {
    if (lay == LAY_ALIAS) return wknob != 0 && walias_fits(pr);
    if (lay == LAY_TWO) return tknob != 0 && two_fits(pr);
    if (lay == LAY_HOST) return hknob != 0 && host_fits(pr); /* hknob is 0 when tknob is */
    return 1;
}

/* Device bytes beside the working set in layout lay: `fixed`, less the matrices' terms when they are in host
 * memory. */
static size_t lay_fixed(const cz_gpu_prover *pr, size_t fixed, int lay) {
    return lay == LAY_HOST ? fixed - (pr->mat_dev - pr->mat_hdev) : fixed;
}

static void set_layout(cz_gpu_prover *pr, int lay) {
    pr->w_alias = lay == LAY_ALIAS, pr->two_vec = lay >= LAY_TWO, pr->host_mat = lay == LAY_HOST;
}

int cz_gpu_prover_stream_knob_(void) {
    const char *e = getenv("CZ_GPU_PROVER_STREAM");
    return e && *e ? atoi(e) != 0 : -1;
}

/* The chunk: CZ_GPU_PROVER_CHUNK, else the longest G1 query (all of it in one chunk) halved until the ring
 * of staging buffers fits, down to 2^16 points (smaller chunks would leave the MSMs' fixed costs dominant),
 * and no more than 2^24 points unless H then takes at most two chunks.
 * Stages: CZ_GPU_PROVER_STAGES, else 3 (uploads run further ahead of the short batch additions), 4 when a
 * 4th fits at up to half a chunk of at most 2^24 points (cz_gpu_stream_four_) or at that chunk with the MSM
 * scratch in full, or 2 when even 3 of the smallest chunks do not fit.
 * Then the parts to keep, in the memory left with the MSM scratch in full (kept bases must not push the
 * MSMs onto their slower floor). The order (a stage before a kept part; halving the chunk for a 3rd stage
 * rather than keeping 2 with bigger chunks) follows a timing model of the schedule (PCIe at 35-55 GB/s,
 * MSM and batch-add times of docs/perf.md), not a measurement yet. */
int cz_gpu_prover_plan_stream_(cz_gpu_prover *pr, size_t fixed, size_t bases) {
    uint64_t g1max = cz_gpu_prover_max_len_(pr), c2;
    if (pr->n - 1 > g1max) g1max = pr->n - 1;
    if (!g1max) g1max = 1;
    const uint64_t floor = g1max < ((uint64_t)1 << 16) ? g1max : (uint64_t)1 << 16;
    const char *e = getenv("CZ_GPU_PROVER_CHUNK");
    const uint64_t knob = e ? strtoull(e, NULL, 10) : 0;
    const char *ek = getenv("CZ_GPU_PROVER_STAGES");
    int k = ek && *ek ? atoi(ek) : 3;
    const int k_knob = ek && *ek;
    k = k < 2 ? 2 : k > CZ_GPU_MAX_STAGES ? CZ_GPU_MAX_STAGES : k;
    size_t stage, need = 0, work;
    uint64_t c1 = 0;
    if (!pr->need_resident) pr->need_resident = resident_need(pr, fixed, bases, &work); /* synthetic provers */
    const int wknob = layout_knob("CZ_GPU_PROVER_WALIAS"), tknob = layout_knob("CZ_GPU_PROVER_TWO"), k0 = k;
    const int hknob = tknob == 0 ? 0 : layout_knob("CZ_GPU_PROVER_HOSTMAT");
    const int first = hknob == 1 && host_fits(pr)  ? LAY_HOST
                      : tknob == 1 && two_fits(pr) ? LAY_TWO
                      : wknob == 1 && walias_fits(pr) ? LAY_ALIAS
                                                      : LAY_PLAIN;
    /* every allowed layout from the first: the one with the largest chunk that fits, the earlier on a tie (each
     * later one costs a little: the witness crossing twice, two more SpMVs; the matrices in host memory only for
     * 4x the chunk), a layout asked for as soon as it fits. On a 24 GB card (2^27) the plain layout fits at
     * 2^21-point chunks, a/b/c in two vectors at 2^24: 1,625 against 1,397 ms a partition (docs/perf.md, session
     * 29). */
    const uint64_t top = knob ? (knob < g1max ? knob : g1max) : g1max;
    int best = -1, last = first;
    uint64_t best_c1 = 0;
    int best_k = 0;
    for (int lay = first; lay <= LAY_HOST; lay++) {
        if (lay != first && !layout_allowed(pr, lay, wknob, tknob, hknob)) continue;
        last = lay;
        set_layout(pr, lay);
        const size_t fx = lay_fixed(pr, fixed, lay);
        for (k = k0;; k--) {
            c1 = top;
            need = stream_need(pr, fx, c1, k, &c2, &stage, 0);
            while (!knob && need > pr->limit && c1 > floor) {
                c1 = cz_gpu_stream_half_(c1);
                c1 = c1 < floor ? floor : c1;
                need = stream_need(pr, fx, c1, k, &c2, &stage, 0);
            }
            if (need <= pr->limit || k_knob || k == 2) break;
        }
        if (need > pr->limit) continue;
        /* chunks between 2^24 points and half of H buy the H MSM nothing (cz_gpu_stream_chunk_capped_) */
        const uint64_t cc = knob ? c1 : cz_gpu_stream_chunk_capped_(c1, pr->n);
        const int capped = cc != c1;
        if (capped) c1 = cc, need = stream_need(pr, fx, c1, k, &c2, &stage, 0);
        /* a 4th stage at up to half the chunk (cz_gpu_stream_four_), the MSM scratch at its floor */
        if (!k_knob && k == 3) {
            uint64_t c4 = c1;
            size_t n4 = stream_need(pr, fx, c4, 4, &c2, &stage, 0);
            while (!knob && n4 > pr->limit && c4 > floor) {
                c4 = cz_gpu_stream_half_(c4);
                c4 = c4 < floor ? floor : c4;
                n4 = stream_need(pr, fx, c4, 4, &c2, &stage, 0);
            }
            if (n4 <= pr->limit && cz_gpu_stream_four_(c1, c4)) c1 = c4, k = 4, need = n4;
        }
        /* the matrices read over PCIe (three SpMVs a partition: ~0.2 s at 32 GiB PoRep) only when nothing on the
         * device fits or for chunks 4x as large: on a 16 GB card 2^23 against 2^21, 1,593 against 1,639 ms a
         * partition (docs/perf.md, session 30); 2^23 against 2^22 would not pay (20 / 24 GB cards, session 29) */
        const int take = best < 0 ? 1 : lay == LAY_HOST && lay != first ? c1 + 256 > 4 * best_c1 /* two halvings */
                                                                         : c1 > best_c1;
        if (take) best = lay, best_c1 = c1, best_k = k;
        /* asked for, or nothing larger to gain */
        if (lay == first && first != LAY_PLAIN) break;
        if (c1 == top || capped) break;
    }
    const int lay = best >= 0 ? best : last; /* none fits: the last tried names itself in the error */
    set_layout(pr, lay);
    fixed = lay_fixed(pr, fixed, lay);
    if (best >= 0) c1 = best_c1, k = best_k;
    need = stream_need(pr, fixed, c1, k, &c2, &stage, 0);
    size_t st_min;
    pr->need_streamed = need;
    pr->need_streamed_min = stream_need(pr, fixed, knob ? c1 : floor, 2, &c2, &st_min, 0);
    need = stream_need(pr, fixed, c1, k, &c2, &stage, 0); /* c2 and stage of the chosen chunk */
    if (need > pr->limit)
        return cz_error(CZ_ENOMEM,
                        "GPU prover does not fit on device %d, resident or streamed: resident needs %.2f GiB (bases "
                        "%.2f GiB), streamed needs %.2f GiB without the bases (matrices and maps %.2f, staging %d x "
                        "%.3f, per-partition working set %.2f%s, chunks of %llu G1 points) but %.2f GiB is usable "
                        "(free memory minus the margin)",
                        pr->device, pr->need_resident / GIB, bases / GIB, need / GIB, fixed / GIB, k, stage / GIB,
                        (need - fixed - (size_t)k * stage) / GIB,
                        pr->host_mat  ? " with a/b/c in two vectors, the witness compact and the matrices in host memory"
                        : pr->two_vec ? " with a/b/c in two vectors and the witness compact"
                        : pr->w_alias ? " with the witness in c's buffer" : "",
                        (unsigned long long)c1, pr->limit / GIB);
    /* 64 MiB of slack for what the accountant does not see (scan scratch) */
    const size_t slack = (size_t)64 << 20;
    /* a 4th stage before any kept part when it fits at this chunk with the MSM scratch in full: the ring
     * then hides more of the query uploads behind each H chunk */
    if (!k_knob && k == 3 && stream_need(pr, fixed, c1, 4, &c2, &stage, 1) + slack <= pr->limit) k = 4;
    need = stream_need(pr, fixed, c1, k, &c2, &stage, 0);
    pr->need_streamed = need;
    pr->streamed = 1, pr->chunk1 = c1, pr->chunk2 = c2 ? c2 : 1, pr->stage_bytes = stage, pr->stages = k;
    const size_t full = stream_need(pr, fixed, c1, k, &c2, &stage, 1) + slack;
    pr->keep = plan_keep(pr, full < pr->limit ? pr->limit - full : 0);
    return 0;
}

/* The streamed plan's choices (layout, chunk, stages, kept parts). */
static void plan_sig(const cz_gpu_prover *pr, uint64_t sig[4]) {
    sig[0] = (uint64_t)pr->w_alias | (uint64_t)pr->two_vec << 1 | (uint64_t)pr->host_mat << 2;
    sig[1] = pr->chunk1, sig[2] = (uint64_t)pr->stages, sig[3] = pr->keep;
}

/* CZ_GPU_PROVER_BESIDE for a prover that streams even alone on the device: streamed beside the other provers when
 * its plan is the one it would have alone (their memory costs it nothing a partition: on an 80 GB card a 32 GiB
 * PoRep's beside a 0.2 GiB Winning PoSt's, which used to be dropped, so that the next Winning PoSt built it again:
 * 1.2-2.4 s on an H100, docs/perf.md session 53), else CZ_ENOMEM: the caller makes room. */
static int plan_beside(cz_gpu_prover *pr, size_t fixed, size_t bases) {
    const size_t limit = pr->limit;
    uint64_t alone[4], here[4];
    pr->limit = pr->alone_limit;
    int rc = cz_gpu_prover_plan_stream_(pr, fixed, bases);
    pr->limit = limit;
    if (rc) return rc; /* streamed does not fit even alone: the caller's eviction and AUTO say so */
    plan_sig(pr, alone);
    rc = cz_gpu_prover_plan_stream_(pr, fixed, bases);
    if (!rc) plan_sig(pr, here);
    if (!rc && memcmp(alone, here, sizeof alone))
        rc = cz_error(CZ_ENOMEM, "GPU prover on device %d streams its bases either way, but beside the other provers "
                      "(%.2f GiB usable, %.2f alone) it would keep less on the device or take smaller chunks (kept "
                      "parts 0x%llx / 0x%llx, chunks of %llu / %llu points)", pr->device, limit / GIB,
                      pr->alone_limit / GIB, (unsigned long long)here[3], (unsigned long long)alone[3],
                      (unsigned long long)here[1], (unsigned long long)alone[1]);
    pr->beside = !rc;
    return rc;
}

/* Page-locks the host bases once (those the driver refuses, and all with CZ_GPU_PROVER_NOPIN=1, go through
 * two pinned staging buffers instead). Bases another prover registered (the same circuit's on another GPU) are
 * held too, so that its destroy does not unpin them under this one; memory page-locked otherwise (a seeded
 * setup's own) is used as is. */
static int pin_host_bases(cz_gpu_prover *pr) {
    const char *e = getenv("CZ_GPU_PROVER_NOPIN");
    int stage = e && atoi(e) != 0, rc = 0;
    for (int i = 0; i < SQ_N && !rc && !stage; i++) {
        const uint64_t len = cz_gpu_prover_part_len_(pr, i);
        if (!len || (pr->keep >> i & 1)) continue;
        rc = cz_gpu_host_register_((void *)pr->h_src[i], len * cz_gpu_prover_part_el_(i), &pr->h_reg[i]);
        if (!pr->h_reg[i] && !cz_gpu_host_is_pinned_(pr->h_src[i])) stage = 1;
    }
    for (int i = 0; i < pr->stages && !rc && stage; i++) rc = cz_gpu_host_alloc(&pr->h_stage[i], pr->stage_bytes);
    return rc;
}

/* The host-to-device rate of the streamed bases' link in GB/s: the best of LINK_PROBES copies of up to 256 MB from
 * the largest streamed part's page-locked bases into staging buffer 0 (after a 4 MB one), each done upx times as the
 * uploads are (the rate of a link upx times slower); 0 when no part streams. *lo: the slowest copy's rate. One copy
 * was the rule until session 50, and an H100 80 GB host measured 25.1 GB/s for a prover created while the first
 * proof's partitions were being synthesized, then 54.6 for the same link once idle: below the sparse rule's 42, the
 * prover took sparse uploads for its life. The best of three is the link's own rate; a dip must last all three. */
#define LINK_PROBES 3
static double link_gbps(cz_gpu_prover *pr, double *lo, int *err) {
    int big = -1;
    size_t bytes = 0;
    *lo = 0, *err = 0;
    for (int i = 0; i < SQ_N; i++) {
        const size_t b = cz_gpu_prover_part_len_(pr, i) * cz_gpu_prover_part_el_(i);
        if (!(pr->keep >> i & 1) && b > bytes) big = i, bytes = b;
    }
    if (big < 0 || !pr->d_stage[0]) return 0;
    bytes = bytes < pr->stage_bytes ? bytes : pr->stage_bytes;
    bytes = bytes < ((size_t)256 << 20) ? bytes : (size_t)256 << 20;
    int rc = cz_gpu_htod_async_(pr->d_stage[0], pr->h_src[big], bytes < ((size_t)4 << 20) ? bytes : (size_t)4 << 20,
                                pr->st_up);
    if (!rc) rc = cz_gpu_stream_sync_(pr->st_up);
    double best = 0, worst = 0;
    for (int k = 0; k < LINK_PROBES && !rc; k++) {
        const double t0 = cz_gpu_now_ms_();
        for (int x = 0; x < pr->upx && !rc; x++) rc = cz_gpu_htod_async_(pr->d_stage[0], pr->h_src[big], bytes, pr->st_up);
        if (!rc) rc = cz_gpu_stream_sync_(pr->st_up);
        const double ms = cz_gpu_now_ms_() - t0;
        if (rc || ms <= 0) break;
        const double g = (double)bytes / 1e6 / ms; /* upx copies: the rate of a link upx times slower */
        best = g > best ? g : best;
        worst = k == 0 || g < worst ? g : worst;
    }
    *err = rc; /* a failed copy fails the creation (with its message), not the next kernel launch's check */
    if (rc || best <= 0) return 0;
    *lo = worst;
    return best;
}

/* Sparse uploads of the streamed query chunks (prover_sched.c sparse_issue), once the host bases are page-locked.
 * The gather kernel moves ~37 % fewer bytes for a PoRep partition (47.3 -> 29.7 GB) but holds SMs while it waits
 * on PCIe, which the MSMs beside it lose: on the H200 (PCIe 5, 55 GB/s) a 32 GiB PoRep partition on a simulated
 * 24 GB card took 1,319 ms with it against 1,204 without; at half that rate (CZ_GPU_STREAM_UPX=2, 27 GB/s, a PCIe 4
 * card's) 1,642 against 1,901-1,976, and 0.85-0.90 of the whole chunks' time on the 16 / 20 / 48 / 80 GB cards too
 * (docs/perf.md, session 33). So they are on when the link measures below CZ_GPU_STREAM_SPARSE_GBPS (default 42,
 * where the two measured lines cross, linear in the transfer time), or always with CZ_GPU_STREAM_SPARSE=1,
 * never with 0: each streamed query part whose host bases the device can address; the bitmap and counters
 * (planned in stream_need). CZ_GPU_STREAM_SPARSE_BLOCKS: the gather's grid (default 64 blocks of 256 threads, the
 * best of 16 / 64 / 256 at 55 GB/s and of 32 / 64 / 128 at 27); CZ_GPU_STREAM_UPX (benchmarks): every upload done
 * that many times. */
int cz_gpu_prover_sparse_init_(cz_gpu_prover *pr) {
    const char *e = getenv("CZ_GPU_STREAM_SPARSE"), *g = getenv("CZ_GPU_STREAM_SPARSE_BLOCKS"), *x = getenv("CZ_GPU_STREAM_UPX");
    const char *t = getenv("CZ_GPU_STREAM_SPARSE_GBPS");
    pr->sparse_blocks = g && atoi(g) > 0 && atoi(g) <= 4096 ? (unsigned)atoi(g) : 64;
    pr->upx = x && atoi(x) > 1 && atoi(x) <= 16 ? atoi(x) : 1;
    if (pr->h_stage[0]) return 0; /* pageable bases: whole chunks through the host twins */
    int err;
    pr->link_gbps = link_gbps(pr, &pr->link_lo, &err);
    if (err) return err;
    const int force = e ? atoi(e) : -1;
    const double below = t && atof(t) > 0 ? atof(t) : 42.0;
    if (force == 0 || (force != 1 && pr->link_gbps >= below)) return 0;
    int any = 0;
    for (int i = 0; i < SQ_N; i++) {
        if (i == SQ_H || (pr->keep >> i & 1) || !cz_gpu_prover_part_len_(pr, i)) continue;
        pr->h_dsrc[i] = cz_gpu_host_dev_span_(pr->h_src[i], cz_gpu_prover_part_len_(pr, i) * cz_gpu_prover_part_el_(i));
        any |= pr->h_dsrc[i] != NULL;
    }
    if (!any) return 0;
    int rc = cz_gpu_prover_dalloc_(pr, (void **)&pr->d_nz, sparse_bytes(pr), "nonzero bitmap");
    if (!rc) pr->d_ucnt = (unsigned long long *)((uint8_t *)pr->d_nz + (pr->na + 63) / 64 * 8);
    if (!rc) rc = cz_gpu_event_create_(&pr->ev_nz);
    if (rc) memset(pr->h_dsrc, 0, sizeof pr->h_dsrc);
    return rc;
}

/* The resident bases (47.5 GB at 32 GiB PoRep) cross PCIe once per prover: the driver's pageable copy runs at
 * ~7 GB/s on the H200 host, so pageable sources of a chunk or more go through BUILD_BUFS page-locked chunks
 * filled by up to 8 threads (cz_gpu_staged_htod_). CZ_GPU_BUILD_STAGED=0 keeps the driver's copy (to compare),
 * as does a host short of page-locked memory; CZ_GPU_BUILD_CHUNK (bytes, 64 .. 64 MiB, a multiple of 64) is for
 * tests. */
enum { BUILD_BUFS = 3 };
typedef struct {
    void *buf[BUILD_BUFS], *ev[BUILD_BUFS];
    size_t chunk;
    int nt, ok;
} build_copy;

static void build_copy_init(build_copy *c) {
    memset(c, 0, sizeof *c);
    const char *e = getenv("CZ_GPU_BUILD_STAGED");
    if (e && *e && atoi(e) == 0) return;
    e = getenv("CZ_GPU_BUILD_CHUNK");
    long long v = e && *e ? atoll(e) : 64ll << 20;
    v = v < 64 ? 64 : v > (64ll << 20) ? 64ll << 20 : v;
    c->chunk = (size_t)v & ~(size_t)63;
    int rc = 0;
    for (int i = 0; i < BUILD_BUFS && !rc; i++) {
        rc = cz_gpu_host_alloc(&c->buf[i], c->chunk);
        if (!rc) rc = cz_gpu_event_create_(&c->ev[i]);
    }
    c->nt = omp_get_max_threads() < 8 ? omp_get_max_threads() : 8;
    c->ok = !rc && c->nt > 0;
}

static void build_copy_free(build_copy *c) {
    for (int i = 0; i < BUILD_BUFS; i++) cz_gpu_host_free(c->buf[i]), cz_gpu_event_destroy_(c->ev[i]);
    memset(c, 0, sizeof *c);
}

/* A build's host work and copies into the prover's own buffers need no device lock: a creation that holds it (the
 * backend's) lets it go meanwhile, so another circuit's partition (a Winning PoSt's) runs beside a 32 GiB PoRep's
 * build of ~5 s (the matrices' coding ~1 s, its 47.5 GB of resident bases ~2 s, the matrices ~1 s; a streamed
 * prover's pinning of its host bases ~2 s) instead of after it; its kernels (maps, pair sums) keep the lock.
 * CZ_GPU_BUILD_LOCKED=1 keeps it throughout (A/B, tests). */
static int build_drop(void) {
    const char *e = getenv("CZ_GPU_BUILD_LOCKED");
    return e && atoi(e) == 1 ? -1 : cz_gpu_lock_drop_();
}

/* Synchronous: the copy is on the device when it returns. Its callers run it without the device lock (build_drop
 * around each stretch of copies; the Lagrange build's H copy drops it itself). */
static int build_htod(cz_gpu_prover *pr, const build_copy *c, void *dst, const void *src, size_t bytes) {
    if (!c->ok || bytes < c->chunk || cz_gpu_host_is_pinned_(src)) return cz_gpu_memcpy_htod(dst, src, bytes);
    int rc = cz_gpu_staged_htod_(dst, src, bytes, c->buf, c->ev, BUILD_BUFS, c->chunk, c->nt, pr->st_up);
    int rc2 = cz_gpu_stream_sync_(pr->st_up);
    return rc ? rc : rc2;
}

/* A streamed prover's kept parts onto the device (as a resident prover has them), as the resident bases are: through
 * c's page-locked chunks (the driver's pageable copy: ~7 GB/s), without the device lock. */
static int upload_kept(cz_gpu_prover *pr, const build_copy *c) {
    static const char *what[SQ_N] = {"H query (kept)", "B_G1 query (kept)", "L query (kept)", "A query (kept)",
                                     "B_G2 query (kept)"};
    int rc = 0;
    for (int i = 0; i < SQ_N && !rc; i++) {
        if (!(pr->keep >> i & 1)) continue;
        const size_t bytes = cz_gpu_prover_part_len_(pr, i) * cz_gpu_prover_part_el_(i);
        void *d = NULL;
        rc = cz_gpu_prover_dalloc_(pr, &d, bytes, what[i]);
        if (!rc && bytes) rc = build_htod(pr, c, d, pr->h_src[i], bytes);
        if (i == SQ_H) pr->d_h = d;
        else if (i == SQ_B2) pr->d_b2 = d;
        else pr->d_q[i == SQ_L ? Q_L : i == SQ_A ? Q_A : Q_B] = d;
    }
    return rc;
}

/* n points of size bytes from h into a new device array *d, with room for n / 2 more after them when pr->pairs
 * has bit `bit` (a 0/1 query's pair sums, cz_gpu_prover_pair_sums_; -1: never) */
static int upload_bases(cz_gpu_prover *pr, const build_copy *c, void **d, const void *h, size_t n, size_t size,
                        int bit, const char *what) {
    int rc = cz_gpu_prover_dalloc_(pr, d, cz_gpu_prover_room_(pr, bit, n) * size, what);
    if (!rc && n) rc = build_htod(pr, c, *d, h, n * size);
    if (!rc) pr->build_bases += n * size;
    return rc;
}

typedef struct {
    cz_gpu_prover *pr;
    const build_copy *c;
} build_ctx;

static int build_htod_cb(void *ctx, void *dst, const void *src, size_t bytes) {
    const build_ctx *x = ctx;
    return build_htod(x->pr, x->c, dst, src, bytes);
}

/* h in the device form cz_gpu_csr_prepare_ chose (d, b bytes), its arrays through c's chunks */
static int upload_csr(cz_gpu_prover *pr, const build_copy *c, cz_gpu_csr **m, const cz_csr *h, const cz_csr_dict *d,
                      size_t b) {
    if (pr->host_mat) b = cz_gpu_csr_host_dev_bytes_(h, d); /* the terms in mapped host memory */
    if (!fits(pr, b)) return cz_error(CZ_ENOMEM, "GPU prover: matrices do not fit");
    build_ctx x = {pr, c};
    int rc = pr->host_mat ? cz_gpu_csr_upload_host_(m, h, d) : cz_gpu_csr_upload_prepared_(m, h, d, build_htod_cb, &x);
    if (!rc) pr->used += b;
    return rc;
}

static int upload_bits(uint64_t **d, const uint64_t *h, size_t nbits) {
    size_t bytes = ((nbits + 63) / 64 + 1) * 8;
    int rc = cz_gpu_malloc((void **)d, bytes);
    if (!rc) rc = cz_gpu_memcpy_htod(*d, h, bytes);
    return rc;
}

static size_t bases_bytes(const cz_groth16_params *p) {
    size_t b = (p->h_len + p->l_len + p->a_len + p->b_len) * sizeof(cz_g1_affine);
#ifdef CZ_GPU_HAVE_G2_MSM
    b += p->b_len * sizeof(cz_g2_affine);
#endif
    return b;
}

/* The Lagrange-form H's bases beside H's (Lc has one point more, Lh is new) and its build's device scratch (H
 * itself, the transform's xyzz points, Lc's factors, the twiddles: cz_gpu_h_lagrange_bases). */
static size_t lag_extra(uint64_t n) { return (n + 1) * sizeof(cz_g1_affine); }
static size_t lag_build_bytes(uint64_t n) { return n * (96 + 192 + 32 + 16) + ((size_t)1 << 20); }

static size_t maps_bytes(const cz_groth16_params *p) { return (p->a_len + p->b_len + 2) * 4; }

/* Pair sums (prover_priv.h pairs): a batch addition at ~50 % ones 0.78x, a 2^27 partition 847.5 -> 837.2 ms, for
 * 17.1 GB more of device memory at 32 GiB (docs/perf.md session 47). Off in the library unless asked for
 * (cz_gpu_prover_set_pairs: the daemon's gpus.pair_sums, on by default); CZ_GPU_PROVER_PAIRS=0/1 overrides. */
static int g_pairs = -1;
void cz_gpu_prover_set_pairs(int on) { g_pairs = on ? 1 : 0; }
int cz_gpu_prover_pairs_knob_(void) {
    const char *e = getenv("CZ_GPU_PROVER_PAIRS");
    if (e && *e) return e[0] == '1';
    return g_pairs > 0;
}

size_t cz_gpu_prover_pairs_bytes_(const uint64_t len[3], unsigned mask) {
    size_t s = 0;
    for (int q = 0; q < 3; q++)
        if (mask >> q & 1) s += (size_t)(len[q] / 2) * sizeof(cz_g1_affine);
#ifdef CZ_GPU_HAVE_G2_MSM
    if (mask >> CZ_GPU_PAIRS_B2 & 1) s += (size_t)(len[Q_B] / 2) * sizeof(cz_g2_affine);
#endif
    return s;
}

/* The queries (L, A, B_G1, B_G2 in turn) whose pair sums fit beside a resident prover of `bases` bytes of bases
 * and `fixed` more with its MSM scratch in full; *extra gets their bytes. In full: pair sums take only memory the
 * prover would leave free. Weighed against the scratch's floor they pushed it there (the synthetic 2^27 Lagrange
 * prover, session 47: 134.5 -> 125.0 GiB counted), and a G1 MSM on its floor grows its scratch at run time into
 * all but 2 GiB of the free memory, which leaves no room for another circuit's prover beside it (a Winning PoSt's
 * 0.2 GiB one beside a 32 GiB PoRep's would evict it). */
static unsigned pairs_fit(const cz_gpu_prover *pr, size_t fixed, size_t bases, size_t *extra) {
    static const int order[4] = {Q_L, Q_A, Q_B, CZ_GPU_PAIRS_B2};
    unsigned m = 0;
    size_t work;
    *extra = 0;
    for (int k = 0; k < 4; k++) {
        const size_t b = cz_gpu_prover_pairs_bytes_(pr->len, 1u << order[k]);
        if (b && resident_need_(pr, fixed, bases + *extra + b, &work, 1) <= pr->limit) m |= 1u << order[k], *extra += b;
    }
    return m;
}

int cz_gpu_prover_pair_sums_(cz_gpu_prover *pr) {
    if (!pr->pairs) return 0;
    const double t0 = cz_gpu_now_ms_();
    int rc = 0;
    for (int q = 0; q < 3 && !rc; q++)
        if ((pr->pairs >> q & 1) && pr->d_q[q] && pr->len[q] > 1) rc = cz_gpu_g1_pair_sums(pr->d_q[q], pr->len[q], pr->st);
#ifdef CZ_GPU_HAVE_G2_MSM
    if (!rc && (pr->pairs >> CZ_GPU_PAIRS_B2 & 1) && pr->d_b2 && pr->len[Q_B] > 1)
        rc = cz_gpu_g2_pair_sums(pr->d_b2, pr->len[Q_B], pr->st);
#endif
    if (!rc) rc = cz_gpu_stream_sync_(pr->st);
    pr->pairs_ms = cz_gpu_now_ms_() - t0;
    return rc;
}

size_t cz_gpu_prover_floor_bytes(const cz_groth16_params *p) { return bases_bytes(p) + maps_bytes(p); }

int cz_gpu_prover_create(cz_gpu_prover **out, int device, const cz_groth16_params *p, const cz_r1cs *r,
                         size_t margin_bytes) {
    return cz_gpu_prover_create_mode(out, device, p, r, margin_bytes, CZ_GPU_PROVER_AUTO);
}

int cz_gpu_prover_create_mode(cz_gpu_prover **out, int device, const cz_groth16_params *p, const cz_r1cs *r,
                              size_t margin_bytes, int mode) {
    return cz_gpu_prover_create_hint(out, device, p, r, margin_bytes, mode, UINT64_MAX);
}

static int create_(cz_gpu_prover **out, int device, const cz_groth16_params *p, const cz_r1cs *r, size_t margin_bytes,
                   int mode, uint64_t dense_hint, size_t others);

int cz_gpu_prover_create_hint(cz_gpu_prover **out, int device, const cz_groth16_params *p, const cz_r1cs *r,
                              size_t margin_bytes, int mode, uint64_t dense_hint) {
    return create_(out, device, p, r, margin_bytes, mode, dense_hint, SIZE_MAX);
}

int cz_gpu_prover_create_beside(cz_gpu_prover **out, int device, const cz_groth16_params *p, const cz_r1cs *r,
                                size_t margin_bytes, uint64_t dense_hint, size_t others_bytes) {
    return create_(out, device, p, r, margin_bytes, CZ_GPU_PROVER_BESIDE, dense_hint, others_bytes);
}

/* others: the device bytes the other provers hold (SIZE_MAX: not known; the whole device then bounds what it would
 * have alone) */
static int create_(cz_gpu_prover **out, int device, const cz_groth16_params *p, const cz_r1cs *r, size_t margin_bytes,
                   int mode, uint64_t dense_hint, size_t others) {
    *out = NULL;
    cz_domain d;
    int rc = cz_domain_for_size(&d, r->num_rows);
    if (rc) return rc;
    const uint64_t ni = r->num_inputs, na = r->num_aux, n = d.n;
    if (d.log_n < 1) return cz_error(CZ_ERANGE, "GPU prover: domain of size 1 (at least 2 rows needed)");
    if (ni + na >= ((uint64_t)1 << 32)) return cz_error(CZ_ERANGE, "GPU prover: %llu variables (max 2^32-1)",
                                                        (unsigned long long)(ni + na));
    if (p->h_len != n - 1 || p->l_len != na || p->vk.ic_len != ni || p->a_len != ni + r->a_aux_popcount ||
        p->b_len != r->b_input_popcount + r->b_aux_popcount)
        return cz_error(CZ_EFORMAT, "GPU prover: params do not fit the circuit (H %zu/%llu, L %zu/%llu, A %zu, B %zu)",
                        p->h_len, (unsigned long long)(n - 1), p->l_len, (unsigned long long)na, p->a_len, p->b_len);
    cz_gpu_prover *pr;
    rc = cz_gpu_prover_init_(&pr, device, margin_bytes);
    if (!pr) return rc;
    pr->p = p;
    pr->r = r;
    pr->dense_hint = dense_hint;
    /* alone on the device (CZ_GPU_PROVER_BESIDE): the free memory and what the others hold (not known: all of it),
     * less the default margin */
    pr->alone_limit = cz_gpu_prover_usable(pr->mem_free, pr->mem_total, others, 0);
    pr->ni = ni, pr->na = na, pr->rows = r->num_rows, pr->n = n, pr->log_n = d.log_n;
    pr->len[Q_L] = na, pr->len[Q_A] = p->a_len, pr->len[Q_B] = p->b_len;
    const double t0 = cz_gpu_now_ms_();
    /* the matrices' device form (dictionary-coded coefficients for real circuits) decides their size */
    const cz_csr *hm[3] = {&r->a, &r->b, &r->c};
    cz_csr_dict dict[3];
    size_t mb[3] = {0, 0, 0}, mat = 0;
    const int nm = pr->c_ab ? 2 : 3; /* C stays on the host when c = a b */
    memset(dict, 0, sizeof dict);
    int held = build_drop(); /* host work (~1 s at 32 GiB): the device to whoever waits for it meanwhile */
    for (int k = 0; k < nm && !rc; k++) rc = cz_gpu_csr_prepare_(hm[k], &dict[k], &mb[k]);
    cz_gpu_lock_retake_(held);
    pr->coding_ms = cz_gpu_now_ms_() - t0;
    for (int k = 0; k < nm && !rc; k++) mat += mb[k];
    pr->mat_dev = mat;
    size_t bases = bases_bytes(p);
    /* resident when it fits (or asked), else streamed bases (or asked); the knob overrides both ways */
    const int knob = cz_gpu_prover_stream_knob_();
    if (knob == 1) mode = CZ_GPU_PROVER_STREAMED;
    if (knob == 0 && (mode == CZ_GPU_PROVER_AUTO || mode == CZ_GPU_PROVER_BESIDE)) mode = CZ_GPU_PROVER_RESIDENT;
    const size_t maps = maps_bytes(p);
    size_t work;
    /* the H query in Lagrange form when asked and the prover fits resident with it and its build's scratch */
    pr->lag = cz_gpu_prover_lagrange_knob_() && mode != CZ_GPU_PROVER_STREAMED;
    if (pr->lag && (resident_need(pr, mat + maps, bases + lag_extra(n), &work) > pr->limit ||
                    lag_extra(n) + lag_build_bytes(n) > pr->limit))
        pr->lag = 0;
    if (pr->lag) bases += lag_extra(n);
    /* pair sums when asked, for the queries that fit resident with them (they never make a prover streamed) */
    if (cz_gpu_prover_pairs_knob_() && mode != CZ_GPU_PROVER_STREAMED) {
        size_t pb = 0;
        pr->pairs = pairs_fit(pr, mat + maps, bases, &pb);
        bases += pb;
    }
    pr->need_resident = resident_need(pr, mat + maps, bases, &work);
    /* BESIDE: streamed here only if it would stream even alone on the device (else CZ_ENOMEM below: resident once
     * the others make room); that the plan is the same as alone is checked with the plan below */
    const int beside = mode == CZ_GPU_PROVER_BESIDE && pr->need_resident > pr->limit &&
                       pr->need_resident > pr->alone_limit;
    const int stream = mode == CZ_GPU_PROVER_STREAMED || beside ||
                       (mode == CZ_GPU_PROVER_AUTO && pr->need_resident > pr->limit);
    if (!rc && !stream && pr->need_resident > pr->limit)
        rc = cz_error(CZ_ENOMEM,
                      "GPU prover does not fit on device %d: needs %.2f GiB (bases %.2f, matrices %.2f, maps %.2f, "
                      "per-partition working set %.2f) but %.2f GiB is usable (free memory minus the margin)",
                      pr->device, pr->need_resident / GIB, bases / GIB, mat / GIB, maps / GIB, work / GIB, pr->limit / GIB);
    if (!rc && stream) {
        pr->h_src[SQ_H] = p->h, pr->h_src[SQ_L] = p->l, pr->h_src[SQ_A] = p->a, pr->h_src[SQ_B] = p->b_g1;
        pr->h_src[SQ_B2] = p->b_g2;
        for (int k = 0; k < nm; k++) pr->mat_hdev += cz_gpu_csr_host_dev_bytes_(hm[k], &dict[k]);
        if (beside) rc = plan_beside(pr, mat + maps, bases);
        else rc = cz_gpu_prover_plan_stream_(pr, mat + maps, bases);
    }
    build_copy bc;
    build_copy_init(&bc);
    pr->build_staged = bc.ok;
    build_ctx bx = {pr, &bc};
    if (!rc && pr->lag) rc = cz_gpu_prover_lagrange_bases_(pr, p, build_htod_cb, &bx);
    /* C's term into L (prover_fold.c) before the working set: L first, the fold's check has the room it needs */
    const double tf = cz_gpu_now_ms_();
    if (!rc && pr->lag && cz_gpu_prover_lag_fold_knob_()) {
        held = build_drop();
        rc = upload_bases(pr, &bc, (void **)&pr->d_q[Q_L], p->l, p->l_len, sizeof(cz_g1_affine), Q_L, "L query");
        cz_gpu_lock_retake_(held);
        if (!rc) pr->build_bases -= p->l_len * sizeof(cz_g1_affine); /* its time is the fold's */
        if (!rc) rc = cz_gpu_prover_lag_fold_(pr, p, r);
    }
    const double tf2 = cz_gpu_now_ms_();
    if (!rc) rc = cz_gpu_prover_alloc_working_(pr);
    /* the copies and host work below go without the device lock (build_drop), in one stretch each: kept parts and
     * the pinning; the bases; the matrices. Each retake waits for the partitions let in meanwhile. */
    if (!rc && stream) { /* page-locking the host bases is the driver's host work (seconds at 32 GiB) */
        held = build_drop();
        rc = upload_kept(pr, &bc);
        const double tp = cz_gpu_now_ms_();
        if (!rc) rc = pin_host_bases(pr);
        pr->pin_ms = cz_gpu_now_ms_() - tp;
        cz_gpu_lock_retake_(held);
    }
    if (!rc && stream) rc = cz_gpu_prover_sparse_init_(pr); /* its link probe with the device to itself */
    double t1 = cz_gpu_now_ms_();
    const size_t g1 = sizeof(cz_g1_affine);
    held = build_drop();
    if (!rc && !stream && !pr->lag) rc = upload_bases(pr, &bc, (void **)&pr->d_h, p->h, p->h_len, g1, -1, "H query");
    if (!rc && !stream && !pr->d_q[Q_L]) rc = upload_bases(pr, &bc, (void **)&pr->d_q[Q_L], p->l, p->l_len, g1, Q_L, "L query");
    if (!rc && !stream) rc = upload_bases(pr, &bc, (void **)&pr->d_q[Q_A], p->a, p->a_len, g1, Q_A, "A query");
    if (!rc && !stream) rc = upload_bases(pr, &bc, (void **)&pr->d_q[Q_B], p->b_g1, p->b_len, g1, Q_B, "B_G1 query");
#ifdef CZ_GPU_HAVE_G2_MSM
    if (!rc && !stream)
        rc = upload_bases(pr, &bc, (void **)&pr->d_b2, p->b_g2, p->b_len, sizeof(cz_g2_affine), CZ_GPU_PAIRS_B2, "B_G2 query");
#endif
    cz_gpu_lock_retake_(held);
    double t2 = cz_gpu_now_ms_();
    /* after C's fold, which rewrote L; their time is reported apart (pairs_ms) */
    if (!rc && !stream && pr->pairs) {
        rc = cz_gpu_prover_pair_sums_(pr);
        t2 = cz_gpu_now_ms_();
    }
    held = build_drop();
    for (int k = 0; k < nm && !rc; k++) rc = upload_csr(pr, &bc, &pr->m[k], hm[k], &dict[k], mb[k]);
    cz_gpu_lock_retake_(held);
    build_copy_free(&bc);
    for (int k = 0; k < 3; k++) cz_csr_dict_free(&dict[k]);
    double t3 = cz_gpu_now_ms_();
    uint64_t *ba = NULL, *bi = NULL, *bb = NULL, a_len = 0, b_len = 0;
    if (!rc) rc = upload_bits(&ba, r->a_aux_density, na);
    if (!rc) rc = upload_bits(&bi, r->b_input_density, ni);
    if (!rc) rc = upload_bits(&bb, r->b_aux_density, na);
    if (!rc) rc = cz_gpu_prover_build_maps_(pr, ba, bi, bb, &a_len, &b_len);
    if (!rc && (a_len != p->a_len || b_len != p->b_len))
        rc = cz_error(CZ_EFORMAT, "GPU prover: density maps give A %llu / B %llu, params hold %zu / %zu",
                      (unsigned long long)a_len, (unsigned long long)b_len, p->a_len, p->b_len);
    cz_gpu_free(ba);
    cz_gpu_free(bi);
    cz_gpu_free(bb);
    if (rc) {
        cz_gpu_prover_destroy(pr);
        return rc;
    }
    /* the Lagrange bases and C's fold have their own figures in the report (L's upload for the fold is in it) */
    pr->build_ms[0] = t1 - t0 - pr->lag_ms - (tf2 - tf);
    pr->lag_ms += tf2 - tf;
    pr->build_ms[1] = t2 - t1, pr->build_ms[2] = t3 - t2;
    pr->build_ms[3] = cz_gpu_now_ms_() - t3;
    *out = pr;
    return 0;
}

void cz_gpu_prover_build_report(const cz_gpu_prover *pr, char *out, size_t n) {
    const double ms = pr->build_ms[1];
    char pin[64] = "";
    if (pr->streamed) snprintf(pin, sizeof pin, ", the host bases page-locked in %.0f ms", pr->pin_ms);
    snprintf(out, n,
             "matrices' coding and set-up %.0f ms (the coding %.0f ms%s), bases %.2f GB in %.0f ms (%.1f GB/s, %s), "
             "matrices' upload %.0f ms, density maps and the rest %.0f ms",
             pr->build_ms[0], pr->coding_ms, pin, pr->build_bases / 1e9, ms, ms > 0 ? pr->build_bases / 1e6 / ms : 0.0,
             pr->build_staged ? "pinned chunks" : "pageable", pr->build_ms[2], pr->build_ms[3]);
    size_t l = strlen(out);
    if (pr->pairs && l < n)
        snprintf(out + l, n - l, "; pair sums beside%s%s%s%s (%.2f GB) in %.0f ms", pr->pairs >> Q_L & 1 ? " L" : "",
                 pr->pairs >> Q_A & 1 ? " A" : "", pr->pairs >> Q_B & 1 ? " B_G1" : "",
                 pr->pairs >> CZ_GPU_PAIRS_B2 & 1 ? " B_G2" : "", cz_gpu_prover_pairs_bytes_(pr->len, pr->pairs) / 1e9,
                 pr->pairs_ms);
    l = strlen(out);
    if (pr->lag && l < n)
        snprintf(out + l, n - l, "; H in Lagrange form, its bases %s in %.1f s%s%s", pr->lag_src ? "loaded and checked"
                 : "built on the device and checked", pr->lag_ms / 1e3, pr->lag_note[0] ? ": " : "", pr->lag_note);
    l = strlen(out);
    if (pr->w_alias && l < n) snprintf(out + l, n - l, "; the witness in c's buffer (uploaded twice a partition)");
    if (pr->two_vec && l < n)
        snprintf(out + l, n - l, "; a/b/c in two vectors, the witness compact on the device (%.2f GiB reserved)",
                 pr->cw_cap / GIB);
    const size_t l2 = strlen(out);
    if (pr->host_mat && l2 < n)
        snprintf(out + l2, n - l2, "; the matrices' terms in host memory (%.2f GB, read over PCIe by the SpMV)",
                 (pr->mat_dev - pr->mat_hdev) / 1e9);
    const size_t l3 = strlen(out);
    if (pr->streamed && l3 < n && pr->link_gbps > 0)
        snprintf(out + l3, n - l3, "; link %.1f GB/s (best of %d copies, slowest %.1f): %s", pr->link_gbps, LINK_PROBES,
                 pr->link_lo, pr->d_nz ? "query chunks uploaded sparsely (the points whose scalar is not 0)" : "whole chunks");
    const size_t l4 = strlen(out);
    if (pr->streamed && l4 < n) { /* the plan: what an operator compares across creations on one card */
        static const char *name[SQ_N] = {" H", " B_G1", " L", " A", " B_G2"};
        char kept[64] = "";
        for (int i = 0; i < SQ_N; i++)
            if (pr->keep >> i & 1) strcat(kept, name[i]);
        snprintf(out + l4, n - l4, "; streamed in chunks of %llu points (B_G2 %llu), %d staging buffers, kept on the "
                 "device:%s; planned within %.2f GiB", (unsigned long long)pr->chunk1, (unsigned long long)pr->chunk2,
                 pr->stages, kept[0] ? kept : " none", pr->limit / GIB);
    const size_t l5 = strlen(out);
    if (pr->beside && l5 < n)
        snprintf(out + l5, n - l5, " beside the device's other provers (the plan it has alone, within %.2f GiB)",
                 pr->alone_limit / GIB);
    }
}

double cz_gpu_prover_link(const cz_gpu_prover *pr, int *sparse) {
    if (sparse) *sparse = pr->d_nz != NULL;
    return pr->link_gbps;
}


void cz_gpu_prover_sizes(const cz_gpu_prover *pr, uint64_t *ni, uint64_t *na, uint64_t *a_len, uint64_t *b_len,
                         uint64_t nnz[3]) {
    *ni = pr->ni, *na = pr->na, *a_len = pr->len[Q_A], *b_len = pr->len[Q_B];
    for (int k = 0; k < 3; k++) {
        uint64_t r_;
        const uint32_t *col;
        nnz[k] = 0;
        if (pr->m[k]) cz_gpu_csr_info_(pr->m[k], &r_, &nnz[k], &col);
    }
}

size_t cz_gpu_prover_device_bytes(const cz_gpu_prover *pr) { return pr->used + pr->work_reserve; }
int cz_gpu_prover_is_streamed(const cz_gpu_prover *pr) { return pr->streamed; }
int cz_gpu_prover_is_beside(const cz_gpu_prover *pr) { return pr->beside; }
int cz_gpu_prover_reads_host_bases(const cz_gpu_prover *pr) {
#ifdef CZ_GPU_HAVE_G2_MSM
    return pr->streamed;
#else
    return 1; /* B_G2 on the CPU (prover_run.c g2_thread) over p's B_G2 bases */
#endif
}
int cz_gpu_prover_lagrange(const cz_gpu_prover *pr) { return pr->lag; }
int cz_gpu_prover_witness_in_c(const cz_gpu_prover *pr) { return pr->w_alias; }
int cz_gpu_prover_two_vectors(const cz_gpu_prover *pr) { return pr->two_vec; }
int cz_gpu_prover_host_matrices(const cz_gpu_prover *pr) { return pr->host_mat; }
/* Host bytes the creations under way hold for the while (cz_gpu_prover_transient_host_bytes): C's folds (prover_fold.c)
 * and the Lagrange bases' pinned chunks (prover_lag.c); the peak is for the tests */
static _Atomic uint64_t g_transient, g_transient_peak;

void cz_gpu_prover_transient_add_(uint64_t bytes) {
    const uint64_t now = atomic_fetch_add(&g_transient, bytes) + bytes;
    uint64_t peak = atomic_load(&g_transient_peak);
    while (now > peak && !atomic_compare_exchange_weak(&g_transient_peak, &peak, now)) {}
}
void cz_gpu_prover_transient_sub_(uint64_t bytes) { atomic_fetch_sub(&g_transient, bytes); }
uint64_t cz_gpu_prover_transient_host_bytes(void) { return atomic_load(&g_transient); }
uint64_t cz_gpu_prover_transient_peak_(void) {
    return atomic_exchange(&g_transient_peak, atomic_load(&g_transient));
}

size_t cz_gpu_prover_host_bytes(const cz_gpu_prover *pr) {
    size_t b = 0;
    for (int k = 0; k < 3; k++)
        if (pr->m[k]) b += cz_gpu_csr_host_bytes_(pr->m[k]);
    for (int i = 0; i < CZ_GPU_MAX_STAGES; i++)
        if (pr->h_stage[i]) b += pr->stage_bytes;
    for (int i = 0; i < SQ_N; i++)
        if (pr->h_own && pr->h_src[i]) b += cz_gpu_prover_part_len_(pr, i) * cz_gpu_prover_part_el_(i);
    return b;
}
void cz_gpu_prover_stream_plan(const cz_gpu_prover *pr, uint64_t *chunk, int *stages, unsigned *kept) {
    if (chunk) *chunk = pr->streamed ? pr->chunk1 : 0;
    if (stages) *stages = pr->streamed ? pr->stages : 0;
    if (kept) *kept = pr->streamed ? pr->keep : 0;
}
void cz_gpu_prover_needs(const cz_gpu_prover *pr, size_t *resident, size_t *streamed, size_t *streamed_min) {
    if (resident) *resident = pr->need_resident;
    if (streamed) *streamed = pr->need_streamed;
    if (streamed_min) *streamed_min = pr->need_streamed_min;
}
size_t cz_gpu_prover_work_reserve(const cz_gpu_prover *pr) { return pr->work_reserve; }
size_t cz_gpu_prover_held_bytes(const cz_gpu_prover *pr) { return pr->used; }
size_t cz_gpu_prover_default_margin(size_t total) { return ((size_t)1 << 30) + total / 50; }

size_t cz_gpu_prover_usable(size_t free, size_t total, size_t others, size_t margin) {
    if (!margin) margin = cz_gpu_prover_default_margin(total);
    const size_t fa = others < total - (free < total ? free : total) ? free + others : total;
    return mem_cap(fa > margin ? fa - margin : 0);
}

void cz_gpu_prover_destroy(cz_gpu_prover *pr) {
    if (!pr) return;
    cz_gpu_set_device(pr->device);
    if (pr->streamed) cz_gpu_stream_sync_(pr->st_up); /* a failed start may leave chunk uploads queued */
    cz_gpu_free(pr->d_h);
    cz_gpu_free(pr->d_lh);
    cz_gpu_free(pr->d_lhc_in);
    cz_gpu_free(pr->d_cbm);
    cz_gpu_free(pr->d_ccnt);
    cz_gpu_free(pr->d_b2);
    for (int q = 0; q < 3; q++) {
        cz_gpu_free(pr->d_q[q]);
        cz_gpu_free(pr->d_map[q]);
        cz_gpu_csr_free(pr->m[q]);
    }
    if (!pr->w_alias && !pr->two_vec) cz_gpu_free(pr->d_w);
    cz_gpu_free(pr->d_cw);
    cz_gpu_free(pr->d_w2);
    cz_gpu_event_destroy_(pr->ev_pre);
    cz_gpu_free(pr->d_abc);
    cz_gpu_free(pr->d_ones);
    cz_gpu_free(pr->d_cnt);
    cz_gpu_free(pr->d_tail);
    cz_gpu_free(pr->d_g2buf);
    cz_gpu_free(pr->d_nz);
    cz_gpu_event_destroy_(pr->ev_nz);
    for (int i = 0; i < CZ_GPU_MAX_STAGES; i++) {
        cz_gpu_free(pr->d_stage[i]);
        cz_gpu_event_destroy_(pr->ev_ld[i]);
        cz_gpu_event_destroy_(pr->ev_fr[i]);
        cz_gpu_host_free(pr->h_stage[i]);
    }
    free(pr->sched);
    for (int i = 0; i < SQ_N; i++) {
        if (pr->h_reg[i]) cz_gpu_host_unregister_((void *)pr->h_src[i]);
        if (pr->h_own && pr->h_src[i]) cz_gpu_host_free((void *)pr->h_src[i]);
    }
    for (int i = 0; i < 2; i++) {
        cz_gpu_host_free(pr->h_up[i]);
        cz_gpu_event_destroy_(pr->ev_upc[i]);
    }
    cz_gpu_event_destroy_(pr->ev_b);
    cz_gpu_stream_destroy_(pr->st2);
    cz_gpu_free(pr->scan_temp);
    cz_gpu_ntt_destroy(pr->plan);
    cz_gpu_event_destroy_(pr->ev_up);
    cz_gpu_stream_destroy_(pr->st);
    cz_gpu_stream_destroy_(pr->st_up);
    free(pr->syn_r.b_input_density);
    free(pr->syn_r.b_aux_density);
    cz_gpu_g1_release_scratch(); /* this device's MSM scratch was reserved by this prover */
    cz_gpu_g2_release_scratch();
    free(pr);
}

