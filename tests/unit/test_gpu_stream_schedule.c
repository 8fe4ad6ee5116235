/* The GPU prover's streamed-bases schedule (src/gpu/prover_sched.c: chunk order, staging ring) on the host,
 * no GPU and no CUDA needed: the file is compiled here with its four device calls (stream wait, async upload,
 * event record, stream sync) renamed to stubs that model the two streams as ordered work queues and the
 * events as positions in them, the way CUDA orders them:
 *  - record(e, s) captures "the work enqueued on s so far"; wait(s, e) makes s's later work run after what e
 *    captured (an event never recorded: no dependency); an upload is a work item of the upload stream, a
 *    taken chunk's compute one of the compute stream; a chunk's compute returns on the host when it is done
 *    (the prover's chunk calls do), so the uploads it waited for are then done too.
 * Over fresh random layouts (part lengths incl. 0, chunk sizes incl. one chunk for the longest part and
 * chunk2 < chunk1, 2..4 stages, every keep mask, pinned and pageable host bases) and fixed edge cases, each
 * prover started several times, some starts failing (an injected device error in an upload or a wait) or
 * abandoned with uploads in flight, the next one complete, it checks:
 *  - every point of every part is handed to the compute exactly once, with the right bytes;
 *  - kept parts' chunks read their device array and upload nothing; only streamed parts' host bases (or the
 *    host twins of the staging buffers) are uploaded, only into a staging buffer, within its size;
 *  - an upload into staging buffer b is ordered after the compute that last read b (it waited for ev_fr[b]
 *    recorded after that chunk's release); a compute reads a staging buffer only after the upload that
 *    wrote it (it waited for ev_ld[b]); a host twin is overwritten only once its last upload is done
 *    (across a failed start too: stream_begin must let the uploads left in flight land);
 *  - the ring never runs more than `stages` uploads ahead of the releases, and is kept full;
 *  - chunk sizes 1..chunk1 (chunk2 for B_G2), the schedule length, and the stats (htod_bytes, chunks,
 *    streamed_parts, stages), u_issued / u_taken. */
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define cz_gpu_stream_wait_ model_wait
#define cz_gpu_htod_async_ model_htod
#define cz_gpu_event_record_ model_record
#define cz_gpu_stream_sync_ model_sync
#define cz_gpu_sparse_gather_ model_sparse
#include "gpu/prover_sched.c"

enum { UP = 0, CP = 1, MAXS = CZ_GPU_MAX_STAGES };

/* A prover layout, and its parts as the test sees them (independently of prover_sched.c). */
static const size_t EL[SQ_N] = {96, 96, 96, 96, 192}; /* H, B_G1, L, A: G1 affine; B_G2: G2 affine */

typedef struct {
    uint64_t n, len[3], chunk1, chunk2;
    int stages, pageable, sparse; /* sparse: the query parts' host bases mapped, the nz bitmap made (nz_ready) */
    unsigned keep;
} layout;

static uint64_t plen(const layout *l, int i) {
    switch (i) {
    case SQ_H: return l->n - 1;
    case SQ_L: return l->len[Q_L];
    case SQ_A: return l->len[Q_A];
    default: return l->len[Q_B]; /* B_G1 and B_G2 */
    }
}
static uint64_t pchunk(const layout *l, int i) { return i == SQ_B2 ? l->chunk2 : l->chunk1; }

typedef struct {
    int recorded, stream;
    uint64_t pos; /* work items of its stream it captured */
} model_event;

/* The model: two streams as queues of work items, in the order the host enqueued them. */
typedef struct {
    cz_gpu_prover *pr;
    const layout *lay;
    int stream_id[2]; /* their addresses are the stream handles */
    model_event ld[MAXS], fr[MAXS], nz; /* nz: the bitmap's event, recorded on the compute stream */
    uint64_t ops[2];   /* items enqueued on each stream */
    uint64_t after[2]; /* stream s's later items run after the first after[s] items of the other stream */
    uint64_t up_done;  /* upload items known done on the host */
    uint64_t reader[MAXS], loaded[MAXS], twin[MAXS]; /* 1 + the last compute reading / upload writing staging
                                                        buffer b, upload reading host twin b (0: none) */
    /* this start */
    uint64_t uploads, released, up_bytes, sparse, sparse_bytes; /* sparse: sparse uploads (their bytes) */
    long calls, fail_at; /* the fail_at-th wait / upload call fails (0: none) */
    int failed;
    /* every start */
    unsigned long bad, printed;
    char desc[200];
} model;
static model M;

static cz_rng rng;
static unsigned long n_starts[3]; /* starts that ran in full, were abandoned, failed (RUN_* order) */
static uint64_t rnd(uint64_t n) { return n ? cz_rng_next(&rng) % n : 0; }

static void bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void bad(const char *fmt, ...) {
    M.bad++;
    if (M.printed++ >= 12) return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", M.desc);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static int stream_of(const void *s) { return s == &M.stream_id[UP] ? UP : s == &M.stream_id[CP] ? CP : -1; }
static int buf_of(const void *d) {
    for (int b = 0; b < M.pr->stages; b++)
        if (d == M.pr->d_stage[b]) return b;
    return -1;
}
static int injected(void) {
    if (!M.fail_at || ++M.calls != M.fail_at) return 0;
    M.failed = 1;
    return 1;
}

int model_wait(void *s, void *e) {
    if (injected()) return cz_error(CZ_EDEVICE, "injected: stream wait");
    const int si = stream_of(s);
    model_event *ev = e;
    const int ld = ev >= M.ld && ev < M.ld + MAXS, fr = ev >= M.fr && ev < M.fr + MAXS;
    if (si < 0 || (!ld && !fr && ev != &M.nz)) {
        bad("wait on an unknown stream or event");
        return 0;
    }
    if (ev->recorded && ev->stream != si && ev->pos > M.after[si]) M.after[si] = ev->pos;
    return 0;
}

int model_record(void *e, void *s) {
    const int si = stream_of(s);
    model_event *ev = e;
    const int ld = ev >= M.ld && ev < M.ld + MAXS, fr = ev >= M.fr && ev < M.fr + MAXS;
    if (si < 0 || (ld && si != UP) || (fr && si != CP) || (!ld && !fr)) {
        bad("event recorded on the wrong stream (ev_ld on the upload stream, ev_fr on the compute stream)");
        return 0;
    }
    ev->recorded = 1, ev->stream = si, ev->pos = M.ops[si];
    return 0;
}

int model_sync(void *s) {
    const int si = stream_of(s);
    if (si < 0) bad("sync of an unknown stream");
    if (si == UP) M.up_done = M.ops[UP];
    return 0;
}

int model_htod(void *dst, const void *src, size_t bytes, void *s) {
    const cz_gpu_prover *pr = M.pr;
    const int b = buf_of(dst);
    if (stream_of(s) != UP) bad("upload on the compute stream");
    if (b < 0 || bytes == 0 || bytes > pr->stage_bytes) {
        bad("upload of %zu bytes into %s", bytes,
            b < 0 ? "memory that is no staging buffer" : "a staging buffer");
        return 0;
    }
    /* the checks before the injected failure: the host twin was already overwritten */
    if (M.reader[b] > M.after[UP])
        bad("upload into staging buffer %d not ordered after the compute that last read it", b);
    int t = -1;
    for (int i = 0; i < pr->stages; i++)
        if (pr->h_stage[i] && src == pr->h_stage[i]) t = i;
    if (t >= 0) {
        if (M.twin[t] > M.up_done) bad("host twin %d overwritten while its last upload may still run", t);
    } else {
        int q = -1;
        for (int i = 0; i < SQ_N; i++) {
            const uint8_t *h = pr->h_src[i];
            const size_t n = plen(M.lay, i) * EL[i];
            if ((const uint8_t *)src >= h && (const uint8_t *)src + bytes <= h + n) q = i;
        }
        if (q < 0) {
            bad("upload from memory that is no streamed part's bases");
            return 0; /* not copied: it may not be memory at all */
        }
        if (pr->keep >> q & 1)
            bad("upload of a kept part (%d)", q);
        else if (pr->h_stage[0])
            bad("pageable bases uploaded without their host twin");
    }
    if (M.uploads + 1 - M.released > (uint64_t)pr->stages)
        bad("ring overrun: %llu uploads ahead of the releases, %d stages",
            (unsigned long long)(M.uploads + 1 - M.released), pr->stages);
    if (injected()) return cz_error(CZ_EDEVICE, "injected: upload");
    memcpy(dst, src, bytes);
    const uint64_t item = M.ops[UP]++;
    M.loaded[b] = item + 1;
    if (t >= 0) M.twin[t] = item + 1;
    M.uploads++, M.up_bytes += bytes;
    return 0;
}

/* A sparse upload: an upload of the whole chunk (the model copies every point; the device copies those whose
 * scalar is not 0), from the part's device-mapped address (the host one here), after the nz bitmap. */
int model_sparse(void *dst, const void *src, size_t el, const uint32_t *map, uint64_t base, uint64_t m,
                 const uint32_t *nz, uint64_t ni, unsigned blocks, unsigned long long *cnt, void *s) {
    const cz_gpu_prover *pr = M.pr;
    (void)map, (void)base, (void)ni;
    if (!M.lay->sparse) bad("sparse upload in a layout without the bitmap");
    if (nz != pr->d_nz || blocks != pr->sparse_blocks || cnt != pr->d_ucnt + (el == 192))
        bad("sparse upload: bitmap %p, %u blocks, counter %p", (const void *)nz, blocks, (void *)cnt);
    if (el != 96 && el != 192) bad("sparse upload of %zu-byte points", el);
    if (src == pr->h_src[SQ_H] || (el == 96) == (src >= pr->h_src[SQ_B2] && src < (const void *)((const uint8_t *)pr->h_src[SQ_B2] + plen(M.lay, SQ_B2) * 192)))
        bad("sparse upload of H, or of a point size not its part's");
    if (!M.nz.recorded || M.nz.pos > M.after[UP]) bad("sparse upload not ordered after the nz bitmap");
    const uint64_t up0 = M.up_bytes;
    const int rc = model_htod(dst, src, m * el, s);
    M.sparse++, M.sparse_bytes += M.up_bytes - up0;
    return rc;
}

/* ---- one prover layout ---- */

typedef struct {
    uint8_t *host[SQ_N], *dev[SQ_N], *cover[SQ_N];
} arrays;

/* Every buffer is a view ending at the end of one malloc'd block of POOL bytes, allocated once: no
 * allocation per layout (fast under ASan), and reading or writing past a buffer's end still hits the
 * block's redzone. */
enum { POOL = 320 * 192, NPOOL = 3 * SQ_N + 2 * MAXS };
static uint8_t *pool[NPOOL];
static void *view(int i, size_t bytes) {
    if (bytes > POOL) {
        fprintf(stderr, "layout needs %zu bytes, the pool has %d\n", bytes, POOL);
        exit(1);
    }
    return pool[i] + POOL - bytes;
}

static uint64_t ring_want(uint64_t streamed_total, int stages) {
    const uint64_t left = streamed_total - M.released;
    return left < (uint64_t)stages ? left : (uint64_t)stages;
}

enum { RUN_FULL, RUN_ABANDON, RUN_FAIL };

/* One start; mode RUN_ABANDON stops after arg - 1 chunks, RUN_FAIL fails the arg-th wait / upload call.
 * Returns 1 when the start ran to its end (then everything was checked). */
static int one_start(cz_gpu_prover *pr, const layout *l, arrays *a, int mode, uint64_t arg) {
    uint64_t want_total = 0, want_streamed = 0, want_bytes = 0, want_sparse = 0, want_sbytes = 0;
    unsigned want_parts = 0;
    for (int i = 0; i < SQ_N; i++) {
        const uint64_t k = (plen(l, i) + pchunk(l, i) - 1) / pchunk(l, i);
        want_total += k;
        if (!(l->keep >> i & 1)) {
            want_streamed += k, want_bytes += plen(l, i) * EL[i];
            if (plen(l, i)) want_parts |= 1u << i;
            if (l->sparse && !l->pageable && i != SQ_H) want_sparse += k, want_sbytes += plen(l, i) * EL[i];
        }
        memset(a->cover[i], 0, plen(l, i));
    }
    M.uploads = M.released = M.up_bytes = M.sparse = M.sparse_bytes = 0;
    /* start() made the nz bitmap on the compute stream (a work item) before stream_begin */
    memset(&M.nz, 0, sizeof M.nz);
    if (l->sparse) {
        M.ops[CP]++;
        M.nz.recorded = 1, M.nz.stream = CP, M.nz.pos = M.ops[CP];
        pr->nz_ready = 1;
    }
    M.calls = 0, M.fail_at = mode == RUN_FAIL ? (long)arg : 0, M.failed = 0;
    cz_gpu_prove_stats st;
    memset(&st, 0, sizeof st);
    int rc = cz_gpu_prover_stream_begin_(pr, &st);
    if (rc) {
        if (!M.failed || rc != CZ_EDEVICE) bad("stream_begin: %d (%s)", rc, cz_error_message());
        return 0;
    }
    if (pr->n_sched != want_total)
        bad("schedule of %llu chunks, want %llu", (unsigned long long)pr->n_sched,
            (unsigned long long)want_total);
    if (!M.failed && M.uploads != ring_want(want_streamed, l->stages))
        bad("stream_begin issued %llu uploads, want %llu", (unsigned long long)M.uploads,
            (unsigned long long)ring_want(want_streamed, l->stages));
    for (uint64_t i = 0; i < pr->n_sched && i < want_total; i++) {
        if (mode == RUN_ABANDON && i + 1 == arg) return 0; /* the rest left in flight */
        const struct cz_gpu_chunk_ *c = NULL;
        const void *bases = NULL;
        rc = cz_gpu_prover_stream_take_(pr, &c, &bases);
        if (rc) {
            if (!M.failed || rc != CZ_EDEVICE)
                bad("take %llu: %d (%s)", (unsigned long long)i, rc, cz_error_message());
            return 0;
        }
        const int q = c->q;
        if (q < 0 || q >= SQ_N) {
            bad("chunk %llu of part %d", (unsigned long long)i, q);
            return 0;
        }
        const int kept = l->keep >> q & 1;
        const uint64_t len = plen(l, q), el = EL[q];
        if (c->m == 0 || c->m > pchunk(l, q) || c->k0 > len || c->m > len - c->k0) {
            bad("chunk %llu of part %d: [%llu, +%llu) of %llu points, chunk size %llu", (unsigned long long)i,
                q, (unsigned long long)c->k0, (unsigned long long)c->m, (unsigned long long)len,
                (unsigned long long)pchunk(l, q));
            return 0;
        }
        if ((c->u < 0) != kept)
            bad("part %d: %s chunk marked %s", q, kept ? "kept" : "streamed", c->u < 0 ? "kept" : "streamed");
        const int b = buf_of(bases);
        if (kept) {
            if (bases != a->dev[q] + c->k0 * el)
                bad("kept part %d chunk at k0 %llu does not read its device array", q,
                    (unsigned long long)c->k0);
            else if (memcmp(bases, a->dev[q] + c->k0 * el, c->m * el))
                bad("kept chunk bytes");
        } else if (b < 0) {
            bad("streamed part %d chunk not in a staging buffer", q);
        } else {
            if (!M.loaded[b] || M.loaded[b] > M.after[CP])
                bad("compute reads staging buffer %d before the upload that wrote it", b);
            if (memcmp(bases, a->host[q] + c->k0 * el, c->m * el))
                bad("part %d chunk [%llu, +%llu) in staging buffer %d: wrong bytes", q,
                    (unsigned long long)c->k0, (unsigned long long)c->m, b);
        }
        for (uint64_t k = c->k0; k < c->k0 + c->m; k++) a->cover[q][k]++;
        /* the chunk's compute: a work item of the compute stream, done on the host when it returns */
        const uint64_t item = M.ops[CP]++;
        if (!kept && b >= 0) M.reader[b] = item + 1;
        if (M.after[CP] > M.up_done) M.up_done = M.after[CP];
        if (!kept) M.released++;
        rc = cz_gpu_prover_stream_release_(pr, &st);
        if (rc) {
            if (!M.failed || rc != CZ_EDEVICE)
                bad("release %llu: %d (%s)", (unsigned long long)i, rc, cz_error_message());
            return 0;
        }
        if (M.uploads - M.released != ring_want(want_streamed, l->stages))
            bad("after chunk %llu: %llu uploads in flight, want %llu (the ring kept full)",
                (unsigned long long)i, (unsigned long long)(M.uploads - M.released),
                (unsigned long long)ring_want(want_streamed, l->stages));
    }
    if (M.failed) bad("an injected failure was not reported");
    for (int i = 0; i < SQ_N; i++)
        for (uint64_t k = 0; k < plen(l, i); k++)
            if (a->cover[i][k] != 1) {
                bad("part %d point %llu handed out %d times", i, (unsigned long long)k, a->cover[i][k]);
                break;
            }
    if (M.uploads != want_streamed || st.chunks != want_streamed)
        bad("%llu uploads, stats %llu chunks, want %llu", (unsigned long long)M.uploads,
            (unsigned long long)st.chunks, (unsigned long long)want_streamed);
    /* sparse uploads' bytes are counted by the device (prover_run.c sparse_end), not here */
    if (st.htod_bytes != want_bytes - want_sbytes || M.up_bytes != want_bytes)
        bad("htod_bytes %llu, uploaded %llu, want %llu - %llu sparse", (unsigned long long)st.htod_bytes,
            (unsigned long long)M.up_bytes, (unsigned long long)want_bytes, (unsigned long long)want_sbytes);
    if (st.sparse_chunks != want_sparse || M.sparse != want_sparse || M.sparse_bytes != want_sbytes)
        bad("sparse chunks: stats %llu, uploads %llu (%llu bytes), want %llu (%llu bytes)",
            (unsigned long long)st.sparse_chunks, (unsigned long long)M.sparse, (unsigned long long)M.sparse_bytes,
            (unsigned long long)want_sparse, (unsigned long long)want_sbytes);
    if (st.streamed_parts != want_parts) bad("streamed_parts %#x, want %#x", st.streamed_parts, want_parts);
    if (st.streamed != 1 || st.stages != l->stages)
        bad("stats streamed %d stages %d", st.streamed, st.stages);
    if (pr->u_issued != want_streamed || pr->u_taken != want_streamed || pr->s_taken != want_total)
        bad("u_issued %llu u_taken %llu s_taken %llu", (unsigned long long)pr->u_issued,
            (unsigned long long)pr->u_taken, (unsigned long long)pr->s_taken);
    return 1;
}

/* A prover of layout l with fresh random bases, started nstarts times: modes[s] / args[s] for all but the
 * last start, which always runs in full (args NULL or 0: a random failing call / abandon point). */
static void run_layout(const layout *l, int nstarts, const int *modes, const uint64_t *args) {
    cz_gpu_prover pr;
    memset(&pr, 0, sizeof pr);
    memset(&M, 0, offsetof(model, bad)); /* fresh streams and events */
    M.pr = &pr, M.lay = l;
    snprintf(M.desc, sizeof M.desc,
             "n %llu L %llu A %llu B %llu chunk1 %llu chunk2 %llu stages %d keep %#x %s%s",
             (unsigned long long)l->n, (unsigned long long)l->len[Q_L], (unsigned long long)l->len[Q_A],
             (unsigned long long)l->len[Q_B], (unsigned long long)l->chunk1, (unsigned long long)l->chunk2,
             l->stages, l->keep, l->pageable ? "pageable" : "pinned", l->sparse ? " sparse" : "");
    pr.n = l->n;
    memcpy(pr.len, l->len, sizeof pr.len);
    pr.chunk1 = l->chunk1, pr.chunk2 = l->chunk2, pr.stages = l->stages, pr.keep = l->keep, pr.streamed = 1;
    pr.st = &M.stream_id[CP], pr.st_up = &M.stream_id[UP];
    /* the planner's staging size: a chunk of either kind fits (exact, so an overflow is an ASan report) */
    pr.stage_bytes = l->chunk1 * 96 > l->chunk2 * 192 ? l->chunk1 * 96 : l->chunk2 * 192;
    for (int b = 0; b < l->stages; b++) {
        pr.d_stage[b] = view(3 * SQ_N + b, pr.stage_bytes);
        if (l->pageable) pr.h_stage[b] = view(3 * SQ_N + MAXS + b, pr.stage_bytes);
        pr.ev_ld[b] = &M.ld[b], pr.ev_fr[b] = &M.fr[b];
    }
    arrays a;
    for (int i = 0; i < SQ_N; i++) {
        const size_t bytes = plen(l, i) * EL[i];
        a.host[i] = view(i, bytes), a.dev[i] = view(SQ_N + i, bytes),
        a.cover[i] = view(2 * SQ_N + i, plen(l, i));
        cz_rng_bytes(&rng, a.host[i], bytes);
        for (size_t j = 0; j < bytes; j++) a.dev[i][j] = a.host[i][j] ^ 0x5a; /* the device copy differs */
        pr.h_src[i] = a.host[i];
        /* as cz_gpu_prover_sparse_init_ maps them: the query parts, not H, not with host twins */
        if (l->sparse && i != SQ_H && !l->pageable) pr.h_dsrc[i] = a.host[i];
    }
    static uint32_t nz_dummy[8];
    if (l->sparse) pr.d_nz = nz_dummy, pr.d_ucnt = (unsigned long long *)(nz_dummy + 4), pr.ev_nz = &M.nz;
    pr.sparse_blocks = 1 + (unsigned)rnd(100);
    pr.d_h = (cz_g1_affine *)a.dev[SQ_H], pr.d_b2 = (cz_g2_affine *)a.dev[SQ_B2];
    pr.d_q[Q_L] = (cz_g1_affine *)a.dev[SQ_L], pr.d_q[Q_A] = (cz_g1_affine *)a.dev[SQ_A];
    pr.d_q[Q_B] = (cz_g1_affine *)a.dev[SQ_B];
    int parts_ok = 1; /* the part helpers prover.c and prover_run.c share with the schedule */
    for (int i = 0; i < SQ_N; i++)
        parts_ok &= cz_gpu_prover_part_len_(&pr, i) == plen(l, i) && cz_gpu_prover_part_el_(i) == EL[i] &&
                    cz_gpu_prover_part_dev_(&pr, i) == a.dev[i];
    CHECK_MSG(parts_ok, "%s: a part's length, point size or device array", M.desc);
    uint64_t streamed = 0, total = 0;
    for (int i = 0; i < SQ_N; i++) {
        const uint64_t k = (plen(l, i) + pchunk(l, i) - 1) / pchunk(l, i);
        total += k;
        if (!(l->keep >> i & 1)) streamed += k;
    }
    for (int s = 0; s < nstarts; s++) {
        const int mode = s == nstarts - 1 ? RUN_FULL : modes[s];
        /* a failure among the first 3 calls per streamed chunk (at most 2 per upload, 1 per take): may fall
         * past the last call, then the start runs in full */
        uint64_t arg = args && s < nstarts - 1 ? args[s] : 0;
        if (!arg)
            arg = mode == RUN_FAIL ? 1 + rnd(3 * streamed + 1) : mode == RUN_ABANDON ? 1 + rnd(total + 1) : 0;
        const unsigned long bad0 = M.bad;
        const int full = one_start(&pr, l, &a, mode, arg);
        if (mode == RUN_FULL && !full) bad("start %d did not run to its end", s);
        n_starts[full ? RUN_FULL : M.failed ? RUN_FAIL : RUN_ABANDON]++;
        CHECK_MSG(M.bad == bad0, "%s: start %d (mode %d, %llu)", M.desc, s, mode, (unsigned long long)arg);
    }
    free(pr.sched);
}

static uint64_t g1max(const layout *l) {
    uint64_t m = l->n - 1;
    for (int q = 0; q < 3; q++) m = l->len[q] > m ? l->len[q] : m;
    return m ? m : 1;
}

/* the planner's chunk2: chunk1 / 2 clipped to B's length, at least 1 */
static uint64_t plan_chunk2(const layout *l) {
    uint64_t c = l->chunk1 / 2 ? l->chunk1 / 2 : 1;
    return l->len[Q_B] && c > l->len[Q_B] ? l->len[Q_B] : c;
}

static void random_layout(layout *l) {
    memset(l, 0, sizeof *l);
    l->n = rnd(16) ? 2 + rnd(200) : 1;
    for (int q = 0; q < 3; q++) l->len[q] = rnd(q == Q_B ? 5 : 8) ? rnd(200) : 0;
    const uint64_t g = g1max(l);
    switch (rnd(6)) {
    case 0: l->chunk1 = g; break;          /* one chunk for the longest part */
    case 1: l->chunk1 = 1 + rnd(4); break; /* many small chunks */
    default: l->chunk1 = 1 + rnd(g); break;
    }
    switch (rnd(3)) {
    case 0: l->chunk2 = plan_chunk2(l); break;
    case 1: l->chunk2 = 1 + rnd(l->chunk1); break;
    default: l->chunk2 = 1 + rnd(l->len[Q_B] + 2); break; /* also above chunk1 */
    }
    l->stages = 2 + (int)rnd(MAXS - 1);
    const uint64_t k = rnd(8);
    l->keep = k == 0 ? 0 : k == 1 ? (1u << SQ_N) - 1 : (unsigned)rnd(1u << SQ_N);
    l->pageable = (int)rnd(2);
    l->sparse = (int)rnd(2);
}

static void random_modes(int *modes, int n) {
    for (int i = 0; i < n; i++) modes[i] = (int)rnd(3);
}

static void run1(const layout *l) { run_layout(l, 1, NULL, NULL); }
static void run2(const layout *l) { /* two full starts */
    static const int full[1] = {RUN_FULL};
    run_layout(l, 2, full, NULL);
}

/* create()'s chunk cap (prover_priv.h cz_gpu_stream_chunk_capped_): over 2^24 points only when H (n - 1 points)
 * then takes at most two chunks; at or under 2^24 untouched. */
static void chunk_cap(void) {
    const uint64_t M = (uint64_t)1 << 20;
    static const struct { uint64_t c1, n, want; } t[] = {
        {32 * M, 128 * M, 16 * M},  /* a 48 GB card at 2^27: 2^25 -> 2^24 */
        {64 * M, 128 * M, 64 * M},  /* an 80 GB card: H in two chunks */
        {128 * M, 128 * M, 128 * M}, {256 * M, 128 * M, 256 * M}, /* one chunk */
        {16 * M, 128 * M, 16 * M}, {8 * M, 128 * M, 8 * M}, {16 * M + 64, 128 * M, 16 * M},
        {32 * M, 64 * M, 32 * M},   /* 2^26 domain: two chunks */
        {32 * M, 64 * M + 4 * M, 16 * M}, /* H of 68 M - 1 points: three chunks of 2^25 */
        {64 * M, 256 * M, 16 * M},  /* 2^28 domain: four chunks */
        {128 * M, 256 * M, 128 * M},
        {32 * M, 0, 32 * M},        /* no H */
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
        const uint64_t got = cz_gpu_stream_chunk_capped_(t[i].c1, t[i].n);
        CHECK_MSG(got == t[i].want, "chunk %llu for n %llu: %llu, want %llu", (unsigned long long)t[i].c1,
                  (unsigned long long)t[i].n, (unsigned long long)got, (unsigned long long)t[i].want);
    }
}

/* create()'s 4th stage (prover_priv.h cz_gpu_stream_four_): three at c3 (at most 2^24 points) give way to four
 * at c4 when c4 is at least half of c3. */
static void four_stages(void) {
    const uint64_t M = (uint64_t)1 << 20;
    static const struct { uint64_t c3, c4; int want; } t[] = {
        {16 * M, 8 * M, 1},   /* 24 GB card: 2^24 x 3 -> 2^23 x 4 */
        {8 * M, 8 * M, 1},    /* 20 GB (alias) / 24 GB: the same chunk */
        {8 * M, 4 * M, 1},    /* 16 GB, matrices in host memory: 2^23 x 3 -> 2^22 x 4 */
        {16 * M, 4 * M, 0},   /* a quarter: 2^22 x 4 measured slower than 2^23 x 4 */
        {2 * M, 1 * M, 1}, {2 * M, M / 2, 0},
        {32 * M, 16 * M, 0}, {64 * M, 64 * M, 0}, /* over the cap: an 80 GB card's 2^26 keeps three */
        {16 * M - 64, 8 * M, 1}, {16 * M - 64, 8 * M - 64, 0}, /* halves round up to 64 points */
        {16 * M + 64, 8 * M + 64, 0}, /* just over the cap */
        {8 * M, 16 * M, 0},   /* never a larger chunk */
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++)
        CHECK_MSG(cz_gpu_stream_four_(t[i].c3, t[i].c4) == t[i].want, "c3 %llu c4 %llu: want %d",
                  (unsigned long long)t[i].c3, (unsigned long long)t[i].c4, t[i].want);
}

int main(void) {
    cz_test_rng(&rng);
    chunk_cap();
    four_stages();
    for (int i = 0; i < NPOOL; i++) pool[i] = malloc(POOL);
    const int nrand = getenv("CZ_SCHED_LAYOUTS") ? atoi(getenv("CZ_SCHED_LAYOUTS")) : 5000;
    /* fixed shapes (fresh bases), each with 2..4 stages, pinned, pageable and pinned with sparse uploads */
    for (int stages = 2; stages <= MAXS; stages++)
        for (int pg = 0; pg < 3; pg++) {
            layout l = {.n = 129, .len = {150, 90, 0}, .stages = stages, .pageable = pg == 1, .sparse = pg == 2}; /* B absent */
            l.chunk1 = 32, l.chunk2 = plan_chunk2(&l);
            for (unsigned keep = 0; keep < (1u << SQ_N); keep++) l.keep = keep, run2(&l);
            layout f = {.n = 257, .len = {200, 120, 77}, .stages = stages, .pageable = pg == 1, .sparse = pg == 2};
            f.chunk1 = g1max(&f),
            f.chunk2 = plan_chunk2(&f); /* one chunk for the longest part; chunk2 < chunk1 */
            for (unsigned keep = 0; keep < (1u << SQ_N); keep++) f.keep = keep, run2(&f);
            f.chunk1 = 40, f.chunk2 = 7, f.keep = 0; /* chunk2 well below chunk1, everything streamed */
            run2(&f);
            f.keep = (1u << SQ_N) - 1; /* everything kept: not one upload */
            run2(&f);
            layout h = {.n = 65, .chunk1 = 16, .chunk2 = 1, .stages = stages, .pageable = pg == 1, .sparse = pg == 2};
            run1(&h); /* H alone */
            h.n = 1, h.len[Q_A] = 33;
            run1(&h); /* H empty */
            h.len[Q_A] = 0;
            run1(&h); /* nothing at all */
            /* restarts after a failed start: a failure in stream_begin's first wait, its first upload, the
             * first take's wait (the ring full), mid-run; two failures in a row; starts abandoned right
             * after stream_begin and after a few chunks (uploads left in flight) */
            f.chunk1 = 30, f.chunk2 = 15;
            const uint64_t s2 = 2 * (uint64_t)stages;
            const struct {
                int modes[2];
                uint64_t args[2];
            } rs[] = {
                {{RUN_FAIL}, {1}},
                {{RUN_FAIL}, {2}},
                {{RUN_FAIL}, {s2 + 1}},
                {{RUN_FAIL}, {s2 + 4}},
                {{RUN_FAIL, RUN_FAIL}, {s2 + 2, 3}},
                {{RUN_ABANDON}, {1}},
                {{RUN_ABANDON}, {4}},
                {{RUN_ABANDON, RUN_FAIL}, {1, 2}},
            };
            for (unsigned keep = 0; keep < (1u << SQ_N); keep += 9)
                for (size_t r = 0; r < sizeof rs / sizeof rs[0]; r++) {
                    f.keep = keep;
                    const unsigned long early = n_starts[RUN_FAIL] + n_starts[RUN_ABANDON];
                    run_layout(&f, rs[r].modes[1] ? 3 : 2, rs[r].modes, rs[r].args);
                    if (!keep) /* all streamed: each failure / stop point is reached */
                        CHECK(n_starts[RUN_FAIL] + n_starts[RUN_ABANDON] - early ==
                              (rs[r].modes[1] ? 2u : 1u));
                }
        }
    /* random layouts, three starts each (the first two full, failing or abandoned at random) */
    for (int it = 0; it < nrand; it++) {
        layout l;
        int modes[2];
        random_layout(&l);
        random_modes(modes, 2);
        run_layout(&l, 3, modes, NULL);
    }
    /* the restarts were exercised: some starts did fail or stop early */
    CHECK(n_starts[RUN_FAIL] > 100 && n_starts[RUN_ABANDON] > 100);
    printf("%d random layouts; starts: %lu in full, %lu abandoned with uploads in flight, %lu failed\n",
           nrand, n_starts[RUN_FULL], n_starts[RUN_ABANDON], n_starts[RUN_FAIL]);
    for (int i = 0; i < NPOOL; i++) free(pool[i]);
    return cz_test_finish();
}
