/* GPU partition prover, start(): witness upload (or prefetched; or a compact witness expanded on the device),
 * SpMV, H pipeline, H MSM, the 0/1 split of L, A, B_G1 on the device, and B_G2 on the CPU alongside
 * (gpu_prover.h); with streamed bases, H and the queries chunk by chunk from the staging buffers. */
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "ec/msm.h"
#include "gpu/gpu_internal.h"
#include "gpu/prover_internal.h"
#include "gpu/prover_priv.h"
#include "gpu/wcompact_gather.h"

/* ---- start ---- */
typedef struct {
    const cz_gpu_prover *pr;
    const cz_fr *inputs, *aux;
    const cz_wcompact *caux; /* instead of aux for start_compact */
    int nthreads;
    cz_error_kept err; /* its code and message, for the thread that joins it */
    cz_g2_jac r;
    double ms;
} g2_job;

int cz_gpu_g2_split_cpu(cz_g2_jac *r, const cz_g2_affine *bases, const cz_fr *sc, size_t n, int nthreads,
                        size_t *tail_out) {
    const size_t nw = (n + 63) / 64;
    uint64_t *ones = calloc(nw + 1, 8);
    uint32_t *cnt = malloc((nw + 1) * sizeof *cnt);
    if (!ones || !cnt) {
        free(ones), free(cnt);
        return cz_error(CZ_ENOMEM, "B_G2 split: bitmap of %zu", n);
    }
#pragma omp parallel for schedule(static) num_threads(nthreads > 0 ? nthreads : omp_get_max_threads())
    for (size_t w = 0; w < nw; w++) {
        uint64_t b = 0;
        uint32_t c = 0;
        for (size_t i = w * 64; i < n && i < w * 64 + 64; i++) {
            if (cz_fr_equal(&sc[i], &CZ_FR_ONE_V)) b |= (uint64_t)1 << (i & 63);
            else if (!cz_fr_is_zero(&sc[i])) c++;
        }
        ones[w] = b, cnt[w] = c;
    }
    size_t tail = 0;
    for (size_t w = 0; w < nw; w++) {
        uint32_t c = cnt[w];
        cnt[w] = (uint32_t)tail;
        tail += c;
    }
    if (tail_out) *tail_out = tail;
    if (2 * tail > n) { /* mostly "other": one MSM is cheaper than the split */
        free(ones), free(cnt);
        return cz_g2_msm(r, bases, sc, n, nthreads);
    }
    cz_g2_affine *tb = malloc((tail + 1) * sizeof *tb);
    cz_fr *ts = malloc((tail + 1) * sizeof *ts);
    if (!tb || !ts) {
        free(ones), free(cnt), free(tb), free(ts);
        return cz_error(CZ_ENOMEM, "B_G2 split: tail of %zu", tail);
    }
#pragma omp parallel for schedule(static) num_threads(nthreads > 0 ? nthreads : omp_get_max_threads())
    for (size_t w = 0; w < nw; w++) {
        size_t o = cnt[w];
        for (size_t i = w * 64; i < n && i < w * 64 + 64; i++)
            if (!cz_fr_equal(&sc[i], &CZ_FR_ONE_V) && !cz_fr_is_zero(&sc[i])) tb[o] = bases[i], ts[o++] = sc[i];
    }
    cz_g2_jac ba, tm;
    cz_g2_batch_add(&ba, bases, ones, n, nthreads);
    int rc = cz_g2_msm(&tm, tb, ts, tail, nthreads);
    if (!rc) cz_g2_jac_add(r, &ba, &tm);
    free(ones), free(cnt), free(tb), free(ts);
    return rc;
}

/* B_G2 on the CPU: gather the B scalars in query order (as cz_groth16_prove_start), then the same 0/1
 * split as on the device (cz_g2_batch_add + cz_g2_msm over the rest). */
static int g2_cpu(g2_job *j) {
    const cz_gpu_prover *pr = j->pr;
    const cz_r1cs *r = pr->r;
    double t0 = cz_gpu_now_ms_();
    cz_fr *sb = malloc((pr->len[Q_B] + 1) * sizeof *sb);
    if (!sb) return cz_error(CZ_ENOMEM, "GPU prover: B_G2 scalars");
    size_t kb = 0;
    for (uint64_t i = 0; i < pr->ni; i++)
        if (cz_density_get(r->b_input_density, i)) sb[kb++] = j->inputs[i];
    /* aux: 130 M density bits at PoRep size, so in parallel (popcount prefix per block of 64 words; for a
     * compact witness also the prefix of its dense values, so each block walks its own part) */
    const size_t nw = (pr->na + 63) / 64, nblk = (nw + 63) / 64;
    size_t *off = malloc((nblk + 1) * sizeof *off);
    uint64_t *rk = j->caux ? malloc((nblk + 1) * sizeof *rk) : NULL;
    if (!off || (j->caux && !rk)) {
        free(off), free(rk);
        free(sb);
        return cz_error(CZ_ENOMEM, "GPU prover: B_G2 gather");
    }
    const int nt = j->nthreads > 0 ? j->nthreads : omp_get_max_threads();
#pragma omp parallel for schedule(static) num_threads(nt)
    for (size_t b = 0; b < nblk; b++) {
        size_t c = 0;
        for (size_t w = b * 64; w < nw && w < b * 64 + 64; w++) {
            uint64_t x = r->b_aux_density[w];
            if (w == nw - 1 && (pr->na & 63)) x &= ((uint64_t)1 << (pr->na & 63)) - 1;
            c += (size_t)__builtin_popcountll(x);
        }
        off[b] = c;
        if (rk) rk[b] = cz_wcompact_dense_in_words(j->caux, b * 64, b * 64 + 64);
    }
    size_t acc = kb;
    uint64_t racc = 0;
    for (size_t b = 0; b < nblk; b++) {
        size_t c = off[b];
        off[b] = acc;
        acc += c;
        if (rk) {
            uint64_t d = rk[b];
            rk[b] = racc;
            racc += d;
        }
    }
#pragma omp parallel for schedule(static) num_threads(nt)
    for (size_t b = 0; b < nblk; b++) {
        size_t o = off[b];
        if (rk) {
            cz_wcompact_gather_density(sb + o, j->caux, r->b_aux_density, b * 64, b * 64 + 64, rk[b]);
            continue;
        }
        for (size_t i = b * 4096; i < pr->na && i < b * 4096 + 4096; i++)
            if (cz_density_get(r->b_aux_density, i)) sb[o++] = j->aux[i];
    }
    kb = acc;
    free(off);
    free(rk);
    const int rc = cz_gpu_g2_split_cpu(&j->r, pr->p->b_g2, sb, kb, j->nthreads, NULL);
    free(sb);
    j->ms = cz_gpu_now_ms_() - t0;
    return rc;
}
static void *g2_thread(void *arg) {
    g2_job *j = arg;
    cz_error_keep(&j->err, g2_cpu(j));
    return NULL;
}

int cz_gpu_prover_set_next(cz_gpu_prover *pr, const cz_fr *inputs, const cz_fr *aux) {
    if (pr->w_alias || pr->two_vec) return 0; /* short of memory: no spare buffer, start() uploads as usual */
    int rc = cz_gpu_set_device(pr->device);
    if (!rc && !pr->d_w2) rc = cz_gpu_prover_dalloc_(pr, (void **)&pr->d_w2, (pr->ni + pr->na) * sizeof(cz_fr), "prefetch buffer");
    if (!rc && !pr->ev_pre) rc = cz_gpu_event_create_(&pr->ev_pre);
    if (rc) return rc;
    pr->next_in = inputs, pr->next_aux = aux;
    return 0;
}

/* Issues the upload of the witness named by set_next into the spare buffer on the upload stream, so it
 * overlaps this partition's compute (asynchronous for page-locked memory). */
static int prefetch_next(cz_gpu_prover *pr) {
    if (!pr->next_in) return 0;
    int rc = cz_gpu_htod_async_(pr->d_w2, pr->next_in, pr->ni * sizeof(cz_fr), pr->st_up);
    if (!rc) rc = cz_gpu_htod_async_(pr->d_w2 + pr->ni, pr->next_aux, pr->na * sizeof(cz_fr), pr->st_up);
    if (!rc) rc = cz_gpu_event_record_(pr->ev_pre, pr->st_up);
    pr->pre_in = rc ? NULL : pr->next_in, pr->pre_aux = rc ? NULL : pr->next_aux;
    pr->next_in = pr->next_aux = NULL;
    return rc;
}

/* Page-locks the parts of 1 MiB or more that are not pinned yet; reg[i] = 1 for those it holds (a part that
 * cannot be locked stays pageable). unpin_parts lets them go. */
static void pin_parts(int k, const void *const src[], const size_t bytes[], int reg[]) {
    for (int i = 0; i < k; i++)
        if (bytes[i] >= ((size_t)1 << 20)) cz_gpu_host_register_whole_((void *)src[i], bytes[i], &reg[i]);
}
static void unpin_parts(int k, const void *const src[], const int reg[]) {
    for (int i = 0; i < k; i++)
        if (reg[i]) cz_gpu_host_unregister_((void *)src[i]);
}

/* Copies k host parts to the device on the upload stream, with pin: page-locking big pageable sources for
 * the copy (unlocked again once it is done), and makes the compute stream wait for them. */
static int upload_parts(cz_gpu_prover *pr, int k, void *const dst[], const void *const src[], const size_t bytes[],
                        int pin) {
    int reg[4] = {0, 0, 0, 0}, rc = 0;
    if (pin) pin_parts(k, src, bytes, reg);
    for (int i = 0; i < k && !rc; i++) rc = cz_gpu_htod_async_(dst[i], src[i], bytes[i], pr->st_up);
    if (!rc) rc = cz_gpu_event_record_(pr->ev_up, pr->st_up);
    if (!rc) rc = cz_gpu_stream_wait_(pr->st, pr->ev_up);
    int rc2 = cz_gpu_stream_sync_(pr->st_up); /* before unregistering */
    unpin_parts(k, src, reg);
    return rc ? rc : rc2;
}

/* Pageable parts cross PCIe through two pinned host chunks (pr->h_up, pr->up_chunk bytes each): OpenMP threads
 * copy chunk i into one while chunk i-1 is in flight from the other, instead of the driver's single-threaded
 * staging of a pageable cudaMemcpyAsync (12.5-14 ms for the 86.7 MB of a compact 32 GiB PoRep witness on the
 * H200 machine, ~7 GB/s). Pinned parts go straight. Returns once the last chunk is queued (the compute stream
 * waits for ev_up); a buffer is reused only after its previous copy's event. Not the default: see
 * upload_compact. */
static int upload_staged(cz_gpu_prover *pr, int k, void *const dst[], const void *const src[], const size_t bytes[]) {
    int rc = 0;
    if (!pr->up_chunk) { /* 8 MiB; CZ_GPU_UP_CHUNK (bytes, 64 .. 64 MiB, a multiple of 64) for tests */
        const char *e = getenv("CZ_GPU_UP_CHUNK");
        long long v = e && *e ? atoll(e) : 8ll << 20;
        v = v < 64 ? 64 : v > (64ll << 20) ? 64ll << 20 : v;
        pr->up_chunk = (size_t)v & ~(size_t)63;
    }
    const size_t chunk = pr->up_chunk;
    for (int i = 0; i < 2 && !rc; i++) {
        if (!pr->h_up[i]) rc = cz_gpu_host_alloc(&pr->h_up[i], chunk);
        if (!rc && !pr->ev_upc[i]) rc = cz_gpu_event_create_(&pr->ev_upc[i]);
    }
    if (rc) { /* no pinned chunks (host memory short): the driver's pageable copy */
        return upload_parts(pr, k, dst, src, bytes, 0);
    }
    int nt = omp_get_max_threads();
    nt = nt < 1 ? 1 : nt > 8 ? 8 : nt;
    for (int i = 0; i < k && !rc; i++) {
        if (!bytes[i]) continue;
        if (cz_gpu_host_is_pinned_(src[i])) rc = cz_gpu_htod_async_(dst[i], src[i], bytes[i], pr->st_up);
        else rc = cz_gpu_staged_htod_(dst[i], src[i], bytes[i], pr->h_up, pr->ev_upc, 2, chunk, nt, pr->st_up);
    }
    if (!rc) rc = cz_gpu_event_record_(pr->ev_up, pr->st_up);
    if (!rc) rc = cz_gpu_stream_wait_(pr->st, pr->ev_up);
    return rc;
}

int cz_gpu_staged_htod_(void *dst, const void *src, size_t bytes, void *const bufs[], void *const evs[], int nbuf,
                        size_t chunk, int nt, void *s) {
    int rc = 0;
    for (size_t off = 0, i = 0; off < bytes && !rc; off += chunk, i++) {
        const int b = (int)(i % (size_t)nbuf);
        const size_t len = bytes - off < chunk ? bytes - off : chunk;
        rc = cz_gpu_event_sync_(evs[b]); /* its previous copy has left (at once if never recorded) */
        if (rc) break;
        const uint8_t *from = (const uint8_t *)src + off;
        uint8_t *to = (uint8_t *)bufs[b];
        const size_t per = ((len + (size_t)nt - 1) / (size_t)nt + 63) & ~(size_t)63;
#pragma omp parallel for schedule(static) num_threads(nt)
        for (int t = 0; t < nt; t++) {
            const size_t a = (size_t)t * per, e = a + per < len ? a + per : len;
            if (a < e) memcpy(to + a, from + a, e - a);
        }
        rc = cz_gpu_htod_async_((uint8_t *)dst + off, to, len, s);
        if (!rc) rc = cz_gpu_event_record_(evs[b], s);
    }
    return rc;
}

/* CZ_GPU_UP_STAGED: 2 (default) page-locking each part of 1 MiB or more for its copy (upload_parts; start() locks
 * a compact witness's parts before it takes the device), 0 the driver's pageable copy, 1 through the pinned chunks
 * (upload_staged). H200 machine, 2^27 PoRep-shaped partition (86.7 MB, session 10, 4 runs each): upload_ms
 * 10.0-10.9 / 12.5-14.0 / 2.5-54.2, gpu_total_ms median 975.4 / 978.0 / 986.2: the chunks' threads made the copy
 * erratic there (the benchmark's own threads beside them), so page-locking is the default. */
static int up_how(void) {
    const char *e = getenv("CZ_GPU_UP_STAGED");
    return e && *e ? atoi(e) : 2;
}

/* the host parts of a compact witness's upload: inputs, is_bit, bit, the dense values */
static void compact_parts(const cz_gpu_prover *pr, const cz_fr *inputs, const cz_wcompact *w, const void *src[4],
                          size_t bytes[4]) {
    const size_t bm = (pr->na + 63) / 64 * 8;
    src[0] = inputs, src[1] = w->is_bit, src[2] = w->bit, src[3] = w->dense;
    bytes[0] = pr->ni * sizeof(cz_fr), bytes[1] = bytes[2] = pr->na ? bm : 0, bytes[3] = w->n_dense * sizeof(cz_fr);
}

/* A compact witness's four parts (compact_parts) to dst[] as up_how() says; the compute stream waits for them. */
static int upload_compact_parts(cz_gpu_prover *pr, const cz_fr *inputs, const cz_wcompact *w, void *const dst[4]) {
    const void *src[4];
    size_t bytes[4];
    compact_parts(pr, inputs, w, src, bytes);
    const int how = up_how();
    return how == 1 ? upload_staged(pr, 4, dst, src, bytes) : upload_parts(pr, 4, dst, src, bytes, how == 2);
}

/* Compact witness: inputs into d_w, then is_bit, bit and the dense values into the tail buffer (free until
 * the queries; 32 bytes per position of the longest query, L's na included, and the bitmaps' 16 bytes per 64
 * values: prover.c resident_tail_bytes), expanded into d_w's aux part on the compute stream. A
 * prefetch set up for a dense start is left alone (it writes only the spare buffer). again: the second
 * upload of a prover with the witness in c's buffer (after the H pipeline). */
static int upload_compact(cz_gpu_prover *pr, const cz_fr *inputs, const cz_wcompact *w, int again) {
    const size_t bm = (pr->na + 63) / 64 * 8, doff = cz_gpu_compact_head_(pr->na);
    /* streamed: the tail buffer is chunk-sized; a, b, c (3 n >= 3 na values, written by the SpMV after the
     * expansion on the same stream) hold the compact form instead: a and b when the witness is in c's third,
     * b alone the second time (h is in a) */
    uint8_t *area = pr->streamed ? (uint8_t *)(pr->d_abc + (again ? pr->n : 0)) : pr->d_tail;
    const size_t cap = !pr->streamed ? pr->tail_cap : (again ? 1 : pr->w_alias ? 2 : 3) * pr->n * sizeof(cz_fr);
    if (doff + w->n_dense * sizeof(cz_fr) > cap)
        return cz_error(CZ_ERANGE, "GPU prover: compact witness of %llu dense values does not fit the tail buffer",
                        (unsigned long long)w->n_dense);
    uint64_t *d_isb = (uint64_t *)area, *d_bit = (uint64_t *)(area + bm);
    cz_fr *d_dense = (cz_fr *)(area + doff);
    void *const dst[4] = {pr->d_w, d_isb, d_bit, d_dense};
    int rc = upload_compact_parts(pr, inputs, w, dst);
    /* d_cnt holds 2 * (2 * nw + 2) u32, nw = bm / 8 (sized for the longest query, >= na); the expansion needs
     * 2 * (nw + 1) */
    if (!rc) rc = cz_gpu_wcompact_expand_(pr->d_w + pr->ni, d_isb, d_bit, d_dense, pr->na, pr->d_cnt, &pr->scan_temp,
                                          &pr->scan_cap, pr->st);
    return rc;
}

/* Two-vector layout (prover_priv.h two_vec): the compact witness into d_cw (grown first when this one has more
 * dense values than it holds), its per-word dense offsets computed there, and its view for the SpMV. */
static int upload_cw(cz_gpu_prover *pr, const cz_fr *inputs, const cz_wcompact *w, cz_gpu_wview *v) {
    cz_gpu_cw_layout l;
    const size_t need = cz_gpu_cw_layout_(pr->ni, pr->na, w->n_dense, &l);
    int rc = 0;
    if (need > pr->cw_cap) { /* a denser witness than reserved: the old buffer goes first, so the two never add up */
        cz_gpu_free(pr->d_cw);
        pr->used -= pr->cw_cap;
        pr->d_cw = NULL, pr->cw_cap = 0;
        rc = cz_gpu_prover_dalloc_(pr, (void **)&pr->d_cw, need, "compact witness");
        if (rc) { /* the accountant's message copied first: cz_error writes the buffer it would read */
            char why[400];
            snprintf(why, sizeof why, "%s", cz_error_message());
            return cz_error(CZ_ENOMEM, "GPU prover (a/b/c in two vectors): a compact witness with %llu values outside "
                            "{0, 1} needs %.3f GiB on the device: %s", (unsigned long long)w->n_dense, need / GIB, why);
        }
        pr->cw_cap = need;
    }
    uint8_t *d = pr->d_cw;
    void *const dst[4] = {d, d + l.is_bit, d + l.bit, d + l.dense};
    rc = upload_compact_parts(pr, inputs, w, dst);
    if (!rc) rc = cz_gpu_wcompact_offsets_((uint32_t *)(d + l.offs), (const uint64_t *)(d + l.is_bit), pr->na,
                                          pr->d_cnt, &pr->scan_temp, &pr->scan_cap, pr->st);
    v->inputs = (const cz_fr *)d, v->ni = pr->ni, v->na = pr->na;
    v->is_bit = (const uint64_t *)(d + l.is_bit), v->bit = (const uint64_t *)(d + l.bit);
    v->offs = (const uint32_t *)(d + l.offs), v->dense = (const cz_fr *)(d + l.dense);
    return rc;
}

/* c = (A w)(B w) at bit-reversed positions into d_c from the compact witness (the H pipeline's make_c) */
typedef struct {
    cz_gpu_prover *pr;
    const cz_gpu_wview *v;
} cw_ctx;

static int cw_make_c(void *ctx, cz_fr *d_c, void *s) {
    const cw_ctx *x = ctx;
    int rc = cz_gpu_csr_mul_vec_cw(d_c, x->pr->n, x->pr->m[0], x->v, 0, s);
    if (!rc) rc = cz_gpu_csr_mul_vec_cw(d_c, x->pr->n, x->pr->m[1], x->v, 1, s);
    return rc ? rc : cz_gpu_bitrev_tiled_(d_c, x->pr->log_n, s);
}

/* The witness's nonzero bitmap for the streamed chunks' sparse uploads (prover_sched.c sparse_issue), made on the
 * compute stream before any of them (they wait for ev_nz): from the dense aux values (aux) or a compact view's
 * bitmaps (v). Nothing without a bitmap buffer (resident provers, CZ_GPU_STREAM_SPARSE=0). */
static int sparse_begin(cz_gpu_prover *pr, const cz_fr *aux, const cz_gpu_wview *v) {
    pr->nz_ready = 0;
    if (!pr->d_nz) return 0;
    /* a failed start's uploads may still run (stream_begin would wait for them after this) */
    int rc = pr->u_issued != pr->u_taken ? cz_gpu_stream_sync_(pr->st_up) : 0;
    if (!rc) rc = cz_gpu_memset_async_(pr->d_ucnt, 0, 2 * sizeof *pr->d_ucnt, pr->st);
    if (!rc) rc = v ? cz_gpu_nz_compact_(pr->d_nz, v->is_bit, v->bit, pr->na, pr->st) : cz_gpu_nz_dense_(pr->d_nz, aux, pr->na, pr->st);
    if (!rc) rc = cz_gpu_event_record_(pr->ev_nz, pr->st);
    pr->nz_ready = !rc;
    return rc;
}

/* The sparse uploads' bytes into htod_bytes (the points the device copied; every chunk is computed, so their
 * uploads are over). */
static int sparse_end(cz_gpu_prover *pr, cz_gpu_prove_stats *st) {
    if (!pr->nz_ready) return 0;
    pr->nz_ready = 0;
    if (!st->sparse_chunks) return 0;
    unsigned long long c[2] = {0, 0};
    int rc = cz_gpu_dtoh_async_(c, pr->d_ucnt, sizeof c, pr->st_up);
    if (!rc) rc = cz_gpu_stream_sync_(pr->st_up);
    if (!rc) st->htod_bytes += c[0] * sizeof(cz_g1_affine) + c[1] * sizeof(cz_g2_affine);
    return rc;
}

/* The two-vector layout's device work up to the queries: a, b from the compact witness, h in a (c computed
 * again into b meanwhile), then the dense witness expanded into b's vector (d_w) for the queries. */
static int run_two(cz_gpu_prover *pr, const cz_fr *inputs, const cz_wcompact *caux, cz_gpu_prove_stats *st, double *t) {
    cz_gpu_wview v;
    const double t0 = cz_gpu_now_ms_();
    int rc = upload_cw(pr, inputs, caux, &v);
    st->htod_bytes += cz_wcompact_upload_bytes(pr->ni, caux);
    st->two_vectors = 1, st->host_matrices = pr->host_mat;
    *t = cz_gpu_now_ms_(), st->upload_ms = *t - t0;
    if (!rc) rc = sparse_begin(pr, NULL, &v);
    if (!rc) rc = cz_gpu_prover_stream_begin_(pr, st);
    cz_fr *a = pr->d_abc, *b = a + pr->n;
    if (!rc) rc = cz_gpu_csr_mul_vec_cw(a, pr->n, pr->m[0], &v, 0, pr->st);
    if (!rc) rc = cz_gpu_csr_mul_vec_cw(b, pr->n, pr->m[1], &v, 0, pr->st);
    if (!rc) rc = cz_gpu_stream_sync_(pr->st);
    st->spmv_ms = cz_gpu_now_ms_() - *t, *t = cz_gpu_now_ms_();
    cw_ctx x = {pr, &v};
    if (!rc) rc = cz_gpu_groth16_h_two_(pr->plan, pr->log_n, a, b, cw_make_c, &x, pr->st);
    /* b's vector free again: the dense witness for the queries */
    if (!rc) rc = cz_gpu_dtod_async_s_(pr->d_w, v.inputs, pr->ni * sizeof(cz_fr), pr->st);
    if (!rc) rc = cz_gpu_wcompact_expand_offs_(pr->d_w + pr->ni, v.is_bit, v.bit, v.dense, v.offs, pr->na, pr->st);
    if (!rc) rc = cz_gpu_stream_sync_(pr->st);
    st->ntt_ms = cz_gpu_now_ms_() - *t, *t = cz_gpu_now_ms_();
    return rc;
}

static int upload_witness(cz_gpu_prover *pr, const cz_fr *inputs, const cz_fr *aux) {
    if (pr->pre_in && pr->pre_in == inputs && pr->pre_aux == aux) { /* already on its way: swap buffers */
        cz_fr *t = pr->d_w;
        pr->d_w = pr->d_w2, pr->d_w2 = t;
        pr->pre_in = pr->pre_aux = NULL;
        return cz_gpu_stream_wait_(pr->st, pr->ev_pre);
    }
    if (pr->pre_in) { /* a prefetch nobody asked for: let it land before the spare buffer is reused */
        int rc = cz_gpu_stream_sync_(pr->st_up);
        pr->pre_in = pr->pre_aux = NULL;
        if (rc) return rc;
    }
    void *const dst[2] = {pr->d_w, pr->d_w + pr->ni};
    const void *const src[2] = {inputs, aux};
    const size_t bytes[2] = {pr->ni * sizeof(cz_fr), pr->na * sizeof(cz_fr)};
    return upload_parts(pr, 2, dst, src, bytes, 1);
}

/* Query q's 0/1 classification into d_ones / d_cnt (offsets at d_cnt + groups + 1), *tail = the count of
 * values outside {0, 1}; the compute stream is synchronised. */
static int classify_range(cz_gpu_prover *pr, const uint32_t *map, uint64_t base, uint64_t len, uint32_t *tail) {
    const size_t groups = 2 * ((len + 63) / 64);
    uint32_t *offs = pr->d_cnt + groups + 1;
    int rc = cz_gpu_split_classify_(pr->d_ones, pr->d_cnt, pr->d_w, map, base, len, pr->st);
    if (!rc) rc = cz_gpu_scan_u32_(offs, pr->d_cnt, groups + 1, &pr->scan_temp, &pr->scan_cap, pr->st);
    if (!rc) rc = cz_gpu_dtoh_async_(tail, offs + groups, 4, pr->st);
    if (!rc) rc = cz_gpu_stream_sync_(pr->st);
    return rc;
}

static int classify(cz_gpu_prover *pr, int q, uint32_t *tail) {
    return classify_range(pr, pr->d_map[q], q == Q_L ? pr->ni : 0, pr->len[q], tail);
}

/* The G1 tails waiting for one shared MSM (cz_gpu_g1_msm_multi): each query's tail scalars and bases in its
 * own part of d_tail, parts at multiples of 768 B (so every part's bases lie a whole number of points after
 * the first part's), its batch-addition result, and its answer's address (written by tails_flush). */
#define TAIL_PARTS 4 /* L, A, B_G1 and the Lagrange-form H's c (cz_gpu_g1_msm_multi takes up to 4) */
typedef struct {
    unsigned k;
    cz_g1_jac *ans[TAIL_PARTS], ba[TAIL_PARTS];
    const cz_g1_affine *tb[TAIL_PARTS];
    const cz_fr *tsc[TAIL_PARTS];
    size_t n[TAIL_PARTS], used; /* used: bytes of d_tail taken */
} tail_batch;

static int tails_flush(cz_gpu_prover *pr, tail_batch *b, cz_gpu_prove_stats *st) {
    if (!b->k) return 0;
    const double t1 = cz_gpu_now_ms_();
    cz_g1_jac r[TAIL_PARTS];
    int rc = cz_gpu_g1_msm_multi(r, b->tb, b->tsc, b->n, b->k, pr->st);
    for (unsigned i = 0; i < b->k && !rc; i++) cz_g1_jac_add(b->ans[i], &b->ba[i], &r[i]);
    st->tail_msm_ms += cz_gpu_now_ms_() - t1;
    st->dtoh_bytes += 32 * 192 * (uint64_t)b->k;
    if (getenv("CZ_GPU_PROVER_PROFILE"))
        fprintf(stderr, "tails of %u queries (%zu points): msm %.2f ms\n", b->k, b->n[0] + (b->k > 1 ? b->n[1] : 0) +
                (b->k > 2 ? b->n[2] : 0) + (b->k > 3 ? b->n[3] : 0), cz_gpu_now_ms_() - t1);
    b->k = 0, b->used = 0;
    return rc;
}

/* One query: 0/1 batch addition + tail MSM, or one full MSM when the tail is more than half or its scalars and
 * bases do not fit the tail buffer (up to ~a quarter of the longest query: prover.c resident_tail_bytes). With batch, the
 * tail is scattered into the batch's next part of d_tail and its MSM left to tails_flush (which *ans then
 * waits for); a batch that has no room for it is flushed first, and so is a batch with parts waiting when
 * this query needs d_tail from its start (a full MSM gathers its scalars there, a tail that runs alone is
 * scattered there). */
static int run_query(cz_gpu_prover *pr, int q, cz_g1_jac *ans, cz_gpu_prove_stats *st, tail_batch *batch) {
    const uint64_t len = pr->len[q], base = q == Q_L ? pr->ni : 0;
    const uint32_t *map = pr->d_map[q];
    cz_g1_jac_set_infinity(ans);
    if (!len) return 0;
    const size_t groups = 2 * ((len + 63) / 64);
    uint32_t *offs = pr->d_cnt + groups + 1, tail = 0;
    double t0 = cz_gpu_now_ms_();
    int rc = classify(pr, q, &tail);
    if (rc) return rc;
    st->tail[q] = tail;
    st->dtoh_bytes += 4;
    const int prof = getenv("CZ_GPU_PROVER_PROFILE") != NULL; /* benchmark diagnostics: where a query's time goes */
    const double tc = cz_gpu_now_ms_();
    /* scalars, then bases, each part rounded up to 768 B (a whole number of 96-B points) */
    const size_t sb = ((size_t)tail * 32 + 767) / 768 * 768, bb = ((size_t)tail * 96 + 767) / 768 * 768;
    if (2 * (uint64_t)tail <= len && sb + bb <= pr->tail_cap) {
        cz_g1_jac ba, tm;
        rc = pr->pairs >> q & 1 ? cz_gpu_g1_batch_add_pairs(&ba, pr->d_q[q], (const uint64_t *)pr->d_ones, len, pr->st)
                       : cz_gpu_g1_batch_add(&ba, pr->d_q[q], (const uint64_t *)pr->d_ones, len, pr->st);
        double t1 = cz_gpu_now_ms_();
        st->batch_add_ms += t1 - t0;
        if (prof)
            fprintf(stderr, "query %d: len %llu tail %u classify %.2f ms batch add %.2f ms\n", q, (unsigned long long)len,
                    tail, tc - t0, t1 - tc);
        /* no room (which covers a tail too big to queue at all: it then runs alone from d_tail's start) */
        if (!rc && batch && (batch->used + sb + bb > pr->tail_cap || batch->k >= TAIL_PARTS)) rc = tails_flush(pr, batch, st);
        const int queued = !rc && batch && sb + bb <= pr->tail_cap;
        uint8_t *at = pr->d_tail + (queued ? batch->used : 0);
        cz_fr *tsc = (cz_fr *)at;
        cz_g1_affine *tb = (cz_g1_affine *)(at + sb);
        if (!rc)
            rc = cz_gpu_split_scatter_(tsc, tb, pr->d_w, map, base, len, pr->d_q[q], sizeof(cz_g1_affine), offs, pr->st);
        if (queued) {
            const unsigned i = batch->k++;
            batch->ans[i] = ans, batch->ba[i] = ba, batch->tb[i] = tb, batch->tsc[i] = tsc, batch->n[i] = tail;
            batch->used += sb + bb;
            st->tail_msm_ms += cz_gpu_now_ms_() - t1;
            st->dtoh_bytes += 192; /* the batch addition's result; tails_flush counts the MSM's */
            return rc;
        }
        if (!rc) rc = cz_gpu_g1_msm(&tm, tb, tsc, tail, pr->st);
        if (rc) return rc;
        cz_g1_jac_add(ans, &ba, &tm);
        st->tail_msm_ms += cz_gpu_now_ms_() - t1;
        if (prof) fprintf(stderr, "query %d: tail msm %.2f ms\n", q, cz_gpu_now_ms_() - t1);
        st->dtoh_bytes += 192 + 32 * 192;
    } else {
        const cz_fr *sc = pr->d_w + pr->ni;
        if (map) {
            /* the scalars go to d_tail's start: the tails waiting there first (found by test_gpu_prover's "mid"
             * witness: B split, then A full overwrote B's waiting tail) */
            if (batch) rc = tails_flush(pr, batch, st);
            if (!rc) rc = cz_gpu_gather_scalars_((cz_fr *)pr->d_tail, pr->d_w, map, base, len, pr->st);
            sc = (const cz_fr *)pr->d_tail;
        }
        double t1 = cz_gpu_now_ms_();
        st->batch_add_ms += t1 - t0;
        if (!rc) rc = cz_gpu_g1_msm(ans, pr->d_q[q], sc, len, pr->st);
        st->tail_msm_ms += cz_gpu_now_ms_() - t1;
        st->full_msm[q] = 1;
        st->dtoh_bytes += 32 * 192;
    }
    return rc;
}

/* The Lagrange-form H's c (prover_priv.h lag): sum_j c_j Lh[j] into *ans over its n values (natural order) split
 * by value: ones, minus ones and twos by batch addition over Lh (ones - minus ones + 2 twos: the batch's part for
 * c), the other nonzero values scattered with their bases into the tail batch (empty when this runs), whose MSM
 * (tails_flush) completes *ans. One MSM of c over Lh instead when more than half are other values or their tail
 * does not fit the tail buffer. In a 32 GiB PoRep partition c is 80 % zeros, 3 % ones, 3 % minus ones, 12.6 % twos
 * and 1.4 % other values (cz_bench_porep_mix). */
static int run_c(cz_gpu_prover *pr, const cz_fr *c, cz_g1_jac *ans, cz_gpu_prove_stats *st, tail_batch *batch) {
    const uint64_t n = pr->n;
    const size_t ng = 2 * ((n + 63) / 64);
    uint32_t *offs = pr->d_ccnt + ng + 1, tail = 0;
    const double t0 = cz_gpu_now_ms_();
    int rc = cz_gpu_c_classify_(pr->d_cbm, pr->d_ccnt, c, n, pr->st);
    if (!rc) rc = cz_gpu_scan_u32_(offs, pr->d_ccnt, ng + 1, &pr->scan_temp, &pr->scan_cap, pr->st);
    if (!rc) rc = cz_gpu_dtoh_async_(&tail, offs + ng, 4, pr->st);
    if (!rc) rc = cz_gpu_stream_sync_(pr->st);
    if (rc) return rc;
    st->c_tail = tail;
    st->dtoh_bytes += 4;
    const size_t sb = ((size_t)tail * 32 + 767) / 768 * 768, bb = ((size_t)tail * 96 + 767) / 768 * 768;
    if (2 * (uint64_t)tail > n || batch->k || sb + bb > pr->tail_cap) {
        st->c_full = 1;
        st->dtoh_bytes += 32 * 192;
        return cz_gpu_g1_msm(ans, pr->d_lh, c, n, pr->st);
    }
    cz_g1_jac part[3], ba;
    for (int k = 0; k < 3 && !rc; k++)
        rc = cz_gpu_g1_batch_add(&part[k], pr->d_lh, (const uint64_t *)(pr->d_cbm + k * ng), n, pr->st);
    if (rc) return rc;
    cz_g1_jac_neg(&part[1], &part[1]);
    cz_g1_jac_double(&part[2], &part[2]);
    cz_g1_jac_add(&ba, &part[0], &part[1]);
    cz_g1_jac_add(&ba, &ba, &part[2]);
    st->dtoh_bytes += 3 * 192;
    if (getenv("CZ_GPU_PROVER_PROFILE"))
        fprintf(stderr, "c over Lh: %u other values, classification and batch additions %.2f ms\n", tail,
                cz_gpu_now_ms_() - t0);
    if (!tail) {
        *ans = ba;
        return 0;
    }
    cz_fr *tsc = (cz_fr *)pr->d_tail;
    cz_g1_affine *tb = (cz_g1_affine *)(pr->d_tail + sb);
    rc = cz_gpu_c_scatter_(tsc, tb, c, n, pr->d_lh, offs, pr->st);
    batch->ans[0] = ans, batch->ba[0] = ba, batch->tb[0] = tb, batch->tsc[0] = tsc, batch->n[0] = tail;
    batch->k = 1, batch->used = sb + bb;
    return rc;
}

/* The Lagrange-form H with C's term folded into L (prover_fold.c): what remains of c's sum is the inputs' part,
 * sum_{j < ni} w_j LhC_j, queued as a part of the tail batch (empty when this runs; one MSM of its own if it does
 * not fit the tail buffer). */
static int lag_inputs(cz_gpu_prover *pr, cz_g1_jac *ans, cz_gpu_prove_stats *st, tail_batch *batch) {
    const size_t ni = pr->ni, sb = (ni * 32 + 767) / 768 * 768, bb = (ni * 96 + 767) / 768 * 768;
    cz_g1_jac_set_infinity(ans);
    if (!ni) return 0;
    if (batch && batch->k < TAIL_PARTS && batch->used + sb + bb <= pr->tail_cap) {
        uint8_t *at = pr->d_tail + batch->used;
        int rc = cz_gpu_dtod_async_s_(at, pr->d_w, ni * sizeof(cz_fr), pr->st);
        if (!rc) rc = cz_gpu_dtod_async_s_(at + sb, pr->d_lhc_in, ni * sizeof(cz_g1_affine), pr->st);
        const unsigned i = batch->k++;
        batch->ans[i] = ans, batch->tb[i] = (const cz_g1_affine *)(at + sb), batch->tsc[i] = (const cz_fr *)at;
        batch->n[i] = ni;
        cz_g1_jac_set_infinity(&batch->ba[i]);
        batch->used += sb + bb;
        return rc;
    }
    st->dtoh_bytes += 32 * 192;
    return cz_gpu_g1_msm(ans, pr->d_lhc_in, pr->d_w, ni, pr->st);
}

#ifdef CZ_GPU_HAVE_G2_MSM
/* B_G2 on the device on stream sm, from B's classification: ones (bitmap) and offs (tail offsets; its
 * [groups] entry = tail), a tail area tbuf of cap bytes. 0/1 split when the tail with its 192-byte bases
 * fits, else one full MSM (its scalars gathered into tbuf, which must then hold 32 B per B position). */
static int b_g2_on(const cz_gpu_prover *pr, cz_g2_jac *ans, const uint32_t *ones, const uint32_t *offs, uint8_t *tbuf,
                   size_t cap, uint64_t tail, int full, void *sm) {
    const uint64_t len = pr->len[Q_B];
    cz_g2_jac_set_infinity(ans);
    if (!len) return 0;
    if (getenv("CZ_GPU_PROVER_G2_FAIL")) /* tests: its failure reaches the caller, with its message, from either path */
        return cz_error(CZ_EDEVICE, "failed on purpose (CZ_GPU_PROVER_G2_FAIL)");
    const size_t sc_bytes = ((size_t)tail * 32 + 255) & ~(size_t)255;
    int rc;
    if (!full && sc_bytes + (size_t)tail * sizeof(cz_g2_affine) <= cap) {
        cz_g2_jac ba, tm;
        cz_fr *tsc = (cz_fr *)tbuf;
        cz_g2_affine *tb = (cz_g2_affine *)(tbuf + sc_bytes);
        rc = pr->pairs >> CZ_GPU_PAIRS_B2 & 1 ? cz_gpu_g2_batch_add_pairs(&ba, pr->d_b2, (const uint64_t *)ones, len, sm)
                       : cz_gpu_g2_batch_add(&ba, pr->d_b2, (const uint64_t *)ones, len, sm);
        if (!rc) rc = cz_gpu_split_scatter_(tsc, tb, pr->d_w, pr->d_map[Q_B], 0, len, pr->d_b2, sizeof(cz_g2_affine), offs, sm);
        if (!rc) rc = cz_gpu_g2_msm(&tm, tb, tsc, tail, sm);
        if (!rc) cz_g2_jac_add(ans, &ba, &tm);
        return rc;
    }
    rc = cz_gpu_gather_scalars_((cz_fr *)tbuf, pr->d_w, pr->d_map[Q_B], 0, len, sm);
    if (!rc) rc = cz_gpu_g2_msm(ans, pr->d_b2, (const cz_fr *)tbuf, len, sm);
    return rc;
}

/* B_G2 after the G1 queries, on the compute stream: d_ones and the offsets still hold B's classification
 * (run_query(Q_B) ran last), the tail buffer is free. */
static int run_b_g2(cz_gpu_prover *pr, cz_g2_jac *ans, cz_gpu_prove_stats *st) {
    const size_t groups = 2 * ((pr->len[Q_B] + 63) / 64);
    return b_g2_on(pr, ans, pr->d_ones, pr->d_cnt + groups + 1, pr->d_tail, pr->tail_cap, st->tail[Q_B], st->full_msm[Q_B],
                   pr->st);
}

/* B_G2 beside L and A: a thread of its own drives stream st2 (the G1 / G2 calls wait on their stream
 * on the host), from private copies of B's bitmap and offsets taken on the compute stream right after
 * B's classification; the G1 and G2 MSM / batch-add scratch are separate, so the two never share a buffer. */
typedef struct {
    const cz_gpu_prover *pr;
    uint64_t tail;
    cz_g2_jac r;
    cz_error_kept err; /* its code and message, for the thread that joins it */
    double ms, end;    /* its time, and when it ended (cz_gpu_now_ms_) */
} g2_dev_job;

static void *g2_dev_thread(void *arg) {
    g2_dev_job *j = arg;
    const cz_gpu_prover *pr = j->pr;
    double t0 = cz_gpu_now_ms_();
    const size_t lb = pr->len[Q_B], words = (lb + 63) / 64, groups = 2 * words;
    const size_t bm_bytes = 2 * (words + 2) * 8, offs_bytes = 2 * (groups + 2) * 4, head = (bm_bytes + offs_bytes + 255) & ~(size_t)255;
    uint32_t *ones = (uint32_t *)pr->d_g2buf, *offs = (uint32_t *)(pr->d_g2buf + bm_bytes);
    int rc = cz_gpu_set_device(pr->device);
    if (!rc) rc = b_g2_on(pr, &j->r, ones, offs, pr->d_g2buf + head, pr->g2buf_cap - head, j->tail, 0, pr->st2);
    cz_error_keep(&j->err, rc);
    j->end = cz_gpu_now_ms_();
    j->ms = j->end - t0;
    return NULL;
}

/* Starts B_G2 beside the G1 queries when its tail fits the side buffer (after run_query(Q_B)); 1 if started. */
static int start_b_g2(cz_gpu_prover *pr, g2_dev_job *j, pthread_t *th, const cz_gpu_prove_stats *st) {
    const size_t lb = pr->len[Q_B], words = (lb + 63) / 64, groups = 2 * words;
    const size_t bm_bytes = 2 * (words + 2) * 8, offs_bytes = 2 * (groups + 2) * 4, head = (bm_bytes + offs_bytes + 255) & ~(size_t)255;
    const uint64_t tail = st->tail[Q_B];
    if (!pr->d_g2buf || !pr->st2 || !lb || st->full_msm[Q_B] || getenv("CZ_GPU_PROVER_G2_SEQ")) return 0;
    if (head + (((size_t)tail * 32 + 255) & ~(size_t)255) + (size_t)tail * sizeof(cz_g2_affine) > pr->g2buf_cap) return 0;
    /* copies on the compute stream (after the classification), then st2 waits for them: the ones bitmap's groups
     * words (what the classification wrote and the batch addition reads) and the groups + 1 offsets */
    int rc = cz_gpu_dtod_async_s_(pr->d_g2buf, pr->d_ones, groups * 4, pr->st);
    if (!rc) rc = cz_gpu_dtod_async_s_(pr->d_g2buf + bm_bytes, pr->d_cnt + groups + 1, (groups + 1) * 4, pr->st);
    if (!rc) rc = cz_gpu_event_record_(pr->ev_b, pr->st);
    if (!rc) rc = cz_gpu_stream_wait_(pr->st2, pr->ev_b);
    if (rc) return 0; /* the sequential path still works */
    memset(j, 0, sizeof *j);
    j->pr = pr, j->tail = tail;
    return pthread_create(th, NULL, g2_dev_thread, j) == 0;
}
#endif

/* Streamed bases: the chunk order and the staging ring (cz_gpu_prover_stream_begin_ / take_ / release_) are in
 * prover_sched.c. */

/* Streamed chunks' tails waiting for one MSM. A part's consecutive chunks append their tail scalars and bases
 * to the tail buffer (scalars from its start, bases from sc_cap), and one MSM over them all runs when a chunk of
 * another part comes, the next tail does not fit, a chunk needs the buffer from its start (one MSM over the
 * chunk) or the chunks end: an MSM a chunk paid its fixed costs every time (H200, 32 GiB PoRep-shaped partition
 * in 2^22-point chunks, a 24 GB card: 72 G1 tail MSMs of ~55 K points, 232 ms). CZ_GPU_STREAM_TAIL_BATCH=0:
 * one MSM a chunk, as before (A/B). */
typedef struct {
    int part, g2; /* SQ_* of the waiting tails (-1: none), and whether G2 */
    void *acc;    /* the part's sum: the MSM's result is added there */
    uint64_t n, cap;
    size_t sc_cap;
    int each; /* CZ_GPU_STREAM_TAIL_BATCH=0 */
} stail;

static void stail_init(stail *t) {
    memset(t, 0, sizeof *t);
    t->part = -1;
    const char *e = getenv("CZ_GPU_STREAM_TAIL_BATCH");
    t->each = e && *e == '0';
}

/* The waiting tails' MSM into their part's sum; its time into tail_msm_ms (G1) or *g2_ms (G2, may be NULL:
 * the caller times it). */
static int stail_flush(cz_gpu_prover *pr, stail *t, cz_gpu_prove_stats *st, double *g2_ms) {
    int rc = 0;
    if (t->part >= 0 && t->n) {
        const double t0 = cz_gpu_now_ms_();
        const cz_fr *tsc = (const cz_fr *)pr->d_tail;
        const void *tb = pr->d_tail + t->sc_cap;
        st->tail_msms++;
        if (t->g2) {
            cz_g2_jac r, s;
            rc = cz_gpu_g2_msm(&r, tb, tsc, t->n, pr->st);
            if (!rc) s = *(cz_g2_jac *)t->acc, cz_g2_jac_add((cz_g2_jac *)t->acc, &s, &r);
            st->dtoh_bytes += 32 * 384;
            if (g2_ms) *g2_ms += cz_gpu_now_ms_() - t0;
        } else {
            cz_g1_jac r, s;
            rc = cz_gpu_g1_msm(&r, tb, tsc, t->n, pr->st);
            if (!rc) s = *(cz_g1_jac *)t->acc, cz_g1_jac_add((cz_g1_jac *)t->acc, &s, &r);
            st->dtoh_bytes += 32 * 192;
            st->tail_msm_ms += cz_gpu_now_ms_() - t0;
        }
    }
    t->part = -1, t->n = 0;
    return rc;
}

/* One chunk [k0, k0 + m) of a query (witness index map[k], or base + k without a map) over its staged bases:
 * the 0/1 split (batch addition now, the chunk's other scalars appended to t's waiting tails) or, when more
 * than half of the chunk is "other", one MSM over the chunk. The sum over the chunks is the query's (the split
 * is per chunk). g2: B_G2 (G2 bases and results); part: its SQ_* (t must hold no other part's tails). */
static int stream_chunk(cz_gpu_prover *pr, int g2, int part, const uint32_t *map, uint64_t base, uint64_t k0,
                        uint64_t m, const void *bases, void *acc, uint64_t *tail_sum, int *full, stail *t,
                        cz_gpu_prove_stats *st) {
    const uint32_t *cmap = map ? map + k0 : NULL;
    const uint64_t cbase = map ? 0 : base + k0;
    const size_t groups = 2 * ((m + 63) / 64), el = g2 ? sizeof(cz_g2_affine) : sizeof(cz_g1_affine);
    const size_t cap = 64 * (size_t)pr->chunk1 + 4096;
    /* the layout for this kind of point: up to pmax tails, scalars in [0, sc_cap), bases after */
    const uint64_t pmax = (cap - 256) / (32 + el);
    uint32_t *offs = pr->d_cnt + groups + 1, tail = 0;
    double t0 = cz_gpu_now_ms_();
    int rc = classify_range(pr, cmap, cbase, m, &tail);
    if (rc) return rc;
    *tail_sum += tail;
    st->dtoh_bytes += 4;
    cz_g1_jac g1[2], t1;
    cz_g2_jac g2r[2], t2;
    cz_fr *tsc = (cz_fr *)pr->d_tail;
    if (2 * (uint64_t)tail <= m && tail <= pmax) {
        st->split_chunks++;
        if (t->part >= 0 && t->n + tail > t->cap) rc = stail_flush(pr, t, st, NULL); /* full: the waiting ones go */
        if (t->part < 0) {
            t->part = part, t->g2 = g2, t->acc = acc, t->n = 0, t->cap = pmax;
            t->sc_cap = ((size_t)pmax * 32 + 255) & ~(size_t)255;
        }
        const uint64_t *ones = (const uint64_t *)pr->d_ones;
        if (!rc)
            rc = g2 ? cz_gpu_g2_batch_add(&g2r[0], bases, ones, m, pr->st) : cz_gpu_g1_batch_add(&g1[0], bases, ones, m, pr->st);
        double t1_ = cz_gpu_now_ms_();
        if (!g2) st->batch_add_ms += t1_ - t0;
        if (!rc)
            rc = cz_gpu_split_scatter_(tsc + t->n, pr->d_tail + t->sc_cap + t->n * el, pr->d_w, cmap, cbase, m, bases, el,
                                       offs, pr->st);
        t->n += tail;
        if (!g2) st->tail_msm_ms += cz_gpu_now_ms_() - t1_;
        if (!rc && t->each) rc = stail_flush(pr, t, st, NULL);
        st->dtoh_bytes += g2 ? 384 : 192;
        if (g2) cz_g2_jac_set_infinity(&g2r[1]);
        else cz_g1_jac_set_infinity(&g1[1]);
    } else { /* one MSM over the chunk; its scalars gathered into the tail buffer (32 B per position) */
        const cz_fr *sc = pr->d_w + cbase;
        st->full_chunks++;
        if (cmap) {
            rc = stail_flush(pr, t, st, NULL); /* the gather overwrites the waiting tails */
            if (!rc) rc = cz_gpu_gather_scalars_(tsc, pr->d_w, cmap, 0, m, pr->st);
            sc = tsc;
        }
        double t1_ = cz_gpu_now_ms_();
        if (!g2) st->batch_add_ms += t1_ - t0;
        cz_g1_jac_set_infinity(&g1[0]);
        cz_g2_jac_set_infinity(&g2r[0]);
        if (!rc) rc = g2 ? cz_gpu_g2_msm(&g2r[1], bases, sc, m, pr->st) : cz_gpu_g1_msm(&g1[1], bases, sc, m, pr->st);
        if (!g2) st->tail_msm_ms += cz_gpu_now_ms_() - t1_;
        st->dtoh_bytes += g2 ? 32 * 384 : 32 * 192;
        *full = 1;
    }
    if (rc) return rc;
    if (g2) {
        cz_g2_jac_add(&t2, &g2r[0], &g2r[1]);
        g2r[0] = *(cz_g2_jac *)acc;
        cz_g2_jac_add((cz_g2_jac *)acc, &g2r[0], &t2);
    } else {
        cz_g1_jac_add(&t1, &g1[0], &g1[1]);
        g1[0] = *(cz_g1_jac *)acc;
        cz_g1_jac_add((cz_g1_jac *)acc, &g1[0], &t1);
    }
    return 0;
}

/* H, L, A, B_G1 and B_G2 over the streamed chunks in schedule order (the first two were issued by
 * cz_gpu_prover_stream_begin_). Each part's time includes its chunks' waits for their uploads. */
static int run_streamed(cz_gpu_prover *pr, cz_groth16_pending *out, cz_gpu_prove_stats *st) {
    cz_g1_jac_set_infinity(&out->h_msm);
    cz_g1_jac_set_infinity(&out->l_msm);
    cz_g1_jac_set_infinity(&out->a_ans);
    cz_g1_jac_set_infinity(&out->b1_ans);
    cz_g2_jac_set_infinity(&out->b2_ans);
    cz_g1_jac *ans[SQ_N] = {&out->h_msm, &out->b1_ans, &out->l_msm, &out->a_ans, NULL};
    static const int qof[SQ_N] = {-1, Q_B, Q_L, Q_A, Q_B};
    uint64_t tail2 = 0;
    int full2 = 0, rc = 0;
    stail tw;
    stail_init(&tw);
    for (uint64_t i = 0; !rc && i < pr->n_sched; i++) {
        const struct cz_gpu_chunk_ *c = NULL;
        const void *bases = NULL;
        /* another query's chunk: the waiting tails' MSM first (H chunks leave them waiting) */
        if (tw.part >= 0 && pr->sched[i].q != SQ_H && pr->sched[i].q != tw.part) rc = stail_flush(pr, &tw, st, &st->b_g2_cpu_ms);
        if (rc) break;
        const double t0 = cz_gpu_now_ms_();
        rc = cz_gpu_prover_stream_take_(pr, &c, &bases);
        if (rc) break;
        const int q = qof[c->q];
        if (c->q == SQ_H) {
            cz_g1_jac r, t;
            rc = cz_gpu_g1_msm(&r, bases, pr->d_abc + c->k0, c->m, pr->st);
            if (!rc) t = out->h_msm, cz_g1_jac_add(&out->h_msm, &t, &r);
            st->dtoh_bytes += 32 * 192;
            st->h_msm_ms += cz_gpu_now_ms_() - t0;
        } else if (c->q == SQ_B2) {
            rc = stream_chunk(pr, 1, SQ_B2, pr->d_map[Q_B], 0, c->k0, c->m, bases, &out->b2_ans, &tail2, &full2, &tw, st);
            st->b_g2_cpu_ms += cz_gpu_now_ms_() - t0; /* on the device */
        } else {
            rc = stream_chunk(pr, 0, c->q, pr->d_map[q], q == Q_L ? pr->ni : 0, c->k0, c->m, bases, ans[c->q],
                              &st->tail[q], &st->full_msm[q], &tw, st);
        }
        if (!rc) rc = cz_gpu_prover_stream_release_(pr, st);
    }
    if (!rc) rc = stail_flush(pr, &tw, st, &st->b_g2_cpu_ms);
    if (!rc) rc = sparse_end(pr, st);
    pr->nz_ready = 0;
    return rc;
}

static int run_device(cz_gpu_prover *pr, cz_groth16_pending *out, const cz_fr *inputs, const cz_fr *aux,
                      const cz_wcompact *caux, cz_gpu_prove_stats *st) {
    double t0 = cz_gpu_now_ms_(), t;
    int rc = cz_gpu_set_device(pr->device);
    if (pr->two_vec) { /* start() compacted a dense witness */
        if (!rc) rc = run_two(pr, inputs, caux, st, &t);
        if (!rc) rc = run_streamed(pr, out, st);
        st->gpu_total_ms = cz_gpu_now_ms_() - t0;
        return rc;
    }
    if (!rc) rc = caux ? upload_compact(pr, inputs, caux, 0) : upload_witness(pr, inputs, aux);
    const uint64_t wbytes = caux ? cz_wcompact_upload_bytes(pr->ni, caux) : (pr->ni + pr->na) * sizeof(cz_fr);
    st->htod_bytes += wbytes;
    t = cz_gpu_now_ms_(), st->upload_ms = t - t0; /* the expansion, if any, is queued and lands in spmv_ms */
    if (!rc && pr->streamed) rc = sparse_begin(pr, pr->d_w + pr->ni, NULL);
    if (!rc && pr->streamed) rc = cz_gpu_prover_stream_begin_(pr, st);
    cz_fr *a = pr->d_abc, *b = a + pr->n, *c = b + pr->n;
    cz_fr *v[3] = {a, b, c};
    /* c into bit-reversed positions for the 6-NTT H pipeline (cz_gpu_groth16_h_crev); a b instead of C's SpMV
     * unless asked (c_ab); the Lagrange form takes c in natural order */
    const int six = cz_gpu_h_six_() && pr->log_n >= 1 && !pr->lag;
    const int no_c = pr->fold; /* C's term is in L: no c at all */
    for (int k = 0; k < (pr->c_ab || no_c ? 2 : 3) && !rc; k++)
        rc = k == 2 && six ? cz_gpu_csr_mul_vec_rev(v[k], pr->log_n, pr->m[k], pr->d_w, pr->st)
                           : cz_gpu_csr_mul_vec(v[k], pr->n, pr->m[k], pr->d_w, pr->st);
    if (!rc && pr->c_ab && !no_c) rc = cz_gpu_ab_product_(c, a, b, pr->log_n, six, pr->st);
    if (!rc && pr->syn_cmix_on && !no_c) {
        uint64_t seed = 0xc0ffee;
        if (pr->syn_cmix_on > 1) { /* each partition afresh, one twos part less than the last (~1,300 more others) */
            if (pr->syn_cmix_k && pr->syn_cmix[3]) pr->syn_cmix[3]--;
            seed += pr->syn_cmix_k++;
        }
        rc = cz_gpu_synth_cmix_(c, pr->n, pr->rows, pr->syn_cmix, seed, pr->st);
    }
    if (!rc) rc = prefetch_next(pr); /* after the SpMV launches: a pageable copy then blocks during them */
    if (!rc) rc = cz_gpu_stream_sync_(pr->st);
    st->spmv_ms = cz_gpu_now_ms_() - t, t = cz_gpu_now_ms_();
#ifdef CZ_GPU_HAVE_G2_MSM
    /* CZ_GPU_PROVER_G2_EARLY=1 (A/B; not yet measured): B's classification and B_G2 here, so B_G2 runs beside the
     * NTTs and the H MSM instead of beside L's and A's batch additions and the tails. Resident provers whose
     * witness stays where it is (not in c's buffer, not compact on the device); B split (else after, as before). */
    const int want_g2 = pr->p || pr->d_b2; /* real params, or a synthetic prover's device B_G2 */
    g2_dev_job g2j;
    pthread_t g2th;
    int g2_started = 0;
    const char *ge = getenv("CZ_GPU_PROVER_G2_EARLY");
    if (!rc && ge && ge[0] == '1' && want_g2 && !pr->streamed && !pr->w_alias && !pr->two_vec &&
        pr->len[Q_B]) {
        uint32_t tb = 0;
        rc = classify(pr, Q_B, &tb);
        if (!rc && 2 * (uint64_t)tb <= pr->len[Q_B]) {
            st->tail[Q_B] = tb;
            g2_started = st->g2_early = start_b_g2(pr, &g2j, &g2th, st);
        }
        st->batch_add_ms += cz_gpu_now_ms_() - t, t = cz_gpu_now_ms_(); /* where run_query counts a classification */
    }
#endif
    if (!rc) rc = pr->lag ? cz_gpu_groth16_y(pr->plan, pr->log_n, a, b, pr->st)
                  : six   ? cz_gpu_groth16_h_crev(pr->plan, pr->log_n, a, b, c, pr->st)
                          : cz_gpu_groth16_h(pr->plan, pr->log_n, a, b, c, pr->st);
    if (!rc) rc = cz_gpu_stream_sync_(pr->st);
    st->ntt_ms = cz_gpu_now_ms_() - t, t = cz_gpu_now_ms_();
    if (!rc && pr->w_alias) { /* the witness again, into c's third (b's holds a compact form meanwhile) */
        rc = caux ? upload_compact(pr, inputs, caux, 1) : upload_witness(pr, inputs, aux);
        st->htod_bytes += wbytes;
        st->witness_again = 1;
        st->upload_ms += cz_gpu_now_ms_() - t, t = cz_gpu_now_ms_();
    }
    if (pr->streamed) {
        if (!rc) rc = run_streamed(pr, out, st);
        st->gpu_total_ms = cz_gpu_now_ms_() - t0;
        return rc;
    }
    /* the three G1 tails in one MSM (the tail buffer: 32 B per position of the longest query, so it holds
     * them when they are short, as in PoRep: 1.3 % of the aux values), and the Lagrange form's c with them */
    tail_batch tbt = {0};
    cz_g1_jac c_ans;
    if (!rc) rc = cz_gpu_g1_msm(&out->h_msm, pr->d_h, a, cz_gpu_prover_h_len_(pr), pr->st);
    st->dtoh_bytes += 32 * 192;
    if (!rc && pr->lag) rc = pr->fold ? lag_inputs(pr, &c_ans, st, &tbt) : run_c(pr, c, &c_ans, st, &tbt);
    st->lag_fold = pr->fold;
    st->h_msm_ms = cz_gpu_now_ms_() - t;
    st->lagrange = pr->lag;
#ifdef CZ_GPU_HAVE_G2_MSM
    /* B first: its classification feeds B_G2, which then runs beside L and A on its own stream */
    double tg = 0;
    if (!rc) rc = run_query(pr, Q_B, &out->b1_ans, st, &tbt);
    if (!rc && want_g2 && !g2_started) {
        tg = cz_gpu_now_ms_();
        g2_started = start_b_g2(pr, &g2j, &g2th, st);
    }
    if (!rc) rc = run_query(pr, Q_L, &out->l_msm, st, &tbt);
    if (!rc) rc = run_query(pr, Q_A, &out->a_ans, st, &tbt);
    /* B_G2 runs on beside the G1 tail MSM (waiting for it first was measured 3 ms slower: docs/perf.md, entry 46a7c52 / 4c314c5) */
    const double tj = cz_gpu_now_ms_();
    if (!rc) rc = tails_flush(pr, &tbt, st);
    if (g2_started) {
        const double tf1 = cz_gpu_now_ms_();
        pthread_join(g2th, NULL);
        if (!rc) rc = cz_error_take(&g2j.err, "B_G2 beside the G1 queries");
        out->b2_ans = g2j.r;
        st->b_g2_cpu_ms = g2j.ms; /* beside L and A: overlaps their batch_add / tail times */
        /* B_G2's overlap with the tails [tj, tf1], and the wait for it after them */
        const double e = g2j.end < tf1 ? g2j.end : tf1;
        st->g2_tail_ms = e > tj ? e - tj : 0;
        st->g2_wait_ms = g2j.end > tf1 ? g2j.end - tf1 : 0;
    } else if (!rc && want_g2) {
        /* sequential: B_G2 after the G1 queries; d_ones / offsets must hold B's classification again */
        uint32_t tb = 0;
        if (!rc && pr->len[Q_B]) rc = classify(pr, Q_B, &tb); /* same tail as st->tail[Q_B] */
        tg = cz_gpu_now_ms_();
        if (!rc) rc = run_b_g2(pr, &out->b2_ans, st);
        st->b_g2_cpu_ms = cz_gpu_now_ms_() - tg; /* on the device in this build */
    }
    (void)tg;
#else
    if (!rc) rc = run_query(pr, Q_L, &out->l_msm, st, &tbt);
    if (!rc) rc = run_query(pr, Q_A, &out->a_ans, st, &tbt);
    if (!rc) rc = run_query(pr, Q_B, &out->b1_ans, st, &tbt);
    if (!rc) rc = tails_flush(pr, &tbt, st);
#endif
    if (!rc && pr->lag) { /* h = y over Lc - c over Lh (c's tail MSM ran with the queries') */
        cz_g1_jac t2 = out->h_msm;
        cz_g1_jac_neg(&c_ans, &c_ans);
        cz_g1_jac_add(&out->h_msm, &t2, &c_ans);
    }
    st->gpu_total_ms = cz_gpu_now_ms_() - t0;
    return rc;
}

static int start(cz_groth16_pending *out, cz_gpu_prover *pr, const cz_fr *inputs, const cz_fr *aux,
                 const cz_wcompact *caux, int nthreads, cz_gpu_prove_stats *stats) {
    cz_gpu_prove_stats local;
    if (!stats) stats = &local;
    memset(stats, 0, sizeof *stats);
    const double t_in = cz_gpu_now_ms_();
    if (pr->ni == 0 || !cz_fr_equal(&inputs[0], &CZ_FR_ONE_V))
        return cz_error(CZ_EINVAL, "prove: the first input must be ONE");
    /* a/b/c in two vectors: the device keeps the witness compact, so a dense one is compacted here, before the
     * device is taken */
    cz_wcompact dense_cw;
    cz_wcompact_init(&dense_cw);
    if (pr->two_vec && !caux) {
        int rc = cz_wcompact_from_dense(&dense_cw, aux, pr->na);
        if (rc) {
            cz_wcompact_free(&dense_cw);
            return rc;
        }
        caux = &dense_cw;
    }
    g2_job job;
    memset(&job, 0, sizeof job);
    job.pr = pr, job.inputs = inputs, job.aux = aux, job.caux = caux, job.nthreads = nthreads;
    cz_g2_jac_set_infinity(&job.r);
    pthread_t th;
    int have_thread = 0;
#ifndef CZ_GPU_HAVE_G2_MSM
    if (pr->p) have_thread = pthread_create(&th, NULL, g2_thread, &job) == 0;
#endif
    /* A compact witness's big parts are page-locked here, before the device is taken, so the other worker's
     * kernels run meanwhile (upload_parts finds them pinned and only copies); unlocked after it is released.
     * H200, 2^27 PoRep-shaped partition (86.7 MB, CZ_GPU_PIN_EARLY=0 / default, medians of 8 runs): upload_ms
     * 7.0-8.2 -> 1.7, gpu_total 959.8 -> 954.8 ms; two workers on one prover 961.8 -> 957.9 ms a partition (wall).
     * The daemon's engine holds its own device lock around start(), so it copies the witness into page-locked
     * memory before that (cz_witness_stage_copy) and this finds nothing to lock. */
    const void *src[4] = {NULL, NULL, NULL, NULL};
    size_t bytes[4] = {0, 0, 0, 0};
    int reg[4] = {0, 0, 0, 0};
    const char *early = getenv("CZ_GPU_PIN_EARLY"); /* 0: inside the device region, as before (A/B) */
    if (caux && up_how() == 2 && !(early && *early == '0') && !cz_gpu_set_device(pr->device)) {
        compact_parts(pr, inputs, caux, src, bytes);
        pin_parts(4, src, bytes, reg);
    }
    const double t_lock = cz_gpu_now_ms_();
    cz_gpu_lock(pr->device);
    const double t_dev = cz_gpu_now_ms_();
    uint64_t g0, g1;
    double gms0, gms1;
    cz_gpu_scratch_growth_(pr->device, &g0, &gms0);
    int rc = run_device(pr, out, inputs, aux, caux, stats);
    cz_gpu_scratch_growth_(pr->device, &g1, &gms1); /* the scratch grown in the region (B_G2's thread included) */
    stats->scratch_grows = g1 - g0, stats->scratch_grow_ms = gms1 - gms0;
    stats->pre_ms = t_lock - t_in, stats->lock_ms = t_dev - t_lock;
    cz_gpu_unlock(pr->device);
    unpin_parts(4, src, reg);
#ifndef CZ_GPU_HAVE_G2_MSM
    if (pr->p && !have_thread) g2_thread(&job); /* no thread available: run it here */
#endif
    if (have_thread) pthread_join(th, NULL);
    cz_wcompact_free(&dense_cw);
    if (!rc) rc = cz_error_take(&job.err, "B_G2 on the host");
#ifndef CZ_GPU_HAVE_G2_MSM
    out->b2_ans = job.r;
    stats->b_g2_cpu_ms = job.ms;
#else
    if (!pr->p && !pr->d_b2 && !pr->streamed) out->b2_ans = job.r; /* no B_G2 at all: infinity */
#endif
    return rc;
}


int cz_gpu_prover_start(cz_groth16_pending *out, cz_gpu_prover *pr, const cz_fr *inputs, const cz_fr *aux,
                        int nthreads, cz_gpu_prove_stats *stats) {
    return start(out, pr, inputs, aux, NULL, nthreads, stats);
}

int cz_gpu_prover_start_compact(cz_groth16_pending *out, cz_gpu_prover *pr, const cz_fr *inputs,
                                const cz_wcompact *aux, int nthreads, cz_gpu_prove_stats *stats) {
    if (stats) memset(stats, 0, sizeof *stats);
    int rc = cz_wcompact_check_for(aux, pr->na);
    return rc ? rc : start(out, pr, inputs, NULL, aux, nthreads, stats);
}
