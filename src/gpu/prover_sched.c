/* The streamed-bases schedule of the GPU partition prover (prover_run.c drives it, prover.c plans it): the
 * chunk order, and the ring of staging buffers the streamed chunks flow through. Host code only: its device
 * work goes through four wrappers of prover_internal.h (stream wait, async upload, event record, stream
 * sync), so tests/unit/test_gpu_stream_schedule.c #includes this file with those four renamed to stubs that
 * model the two streams, and checks the schedule in the CPU-only suite (and under the sanitizers, which
 * build without CUDA). */
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "gpu/prover_internal.h"
#include "gpu/prover_priv.h"

/* A part's length, point size and device array (plan, schedule and kept-part uploads share them). */
uint64_t cz_gpu_prover_part_len_(const cz_gpu_prover *pr, int i) {
    return i == SQ_H ? pr->n - 1 : i == SQ_L ? pr->len[Q_L] : i == SQ_A ? pr->len[Q_A] : pr->len[Q_B];
}
size_t cz_gpu_prover_part_el_(int i) { return i == SQ_B2 ? sizeof(cz_g2_affine) : sizeof(cz_g1_affine); }
void *cz_gpu_prover_part_dev_(const cz_gpu_prover *pr, int i) {
    return i == SQ_H ? (void *)pr->d_h : i == SQ_B2 ? (void *)pr->d_b2 : (void *)pr->d_q[i == SQ_L ? Q_L : i == SQ_A ? Q_A : Q_B];
}

/* ---- streamed bases (prover.c chose the chunks, the stages and the kept parts): the schedule's streamed
 * chunks flow through a ring of `stages` device staging buffers; uploads run on st_up up to `stages` chunks
 * ahead of the compute on st (each chunk's device calls return when their result is on the host, so a
 * released buffer's upload and compute are over); kept parts' chunks read device memory and upload
 * nothing. ---- */
static uint64_t sq_len(const cz_gpu_prover *pr, int i) { return cz_gpu_prover_part_len_(pr, i); }

static int sq_kept(const cz_gpu_prover *pr, int i) { return (int)(pr->keep >> i & 1); }

/* The chunk order. The streamed chunks: a query chunk first (it and the first H chunk load during the SpMV
 * and the H pipeline), then each H chunk followed by a run of query chunks (L, A, B_G1, B_G2 in turn), so the
 * long H MSMs hide the uploads of the query chunks, whose batch additions are shorter than their uploads.
 * The runs spread the query chunks evenly over the H chunks (ceil(left / (H chunks left + 1)) after each), so
 * the last H chunk still has a few uploads to hide instead of all the queries' after it, but at most
 * stages - 1 (what can upload beside an H chunk in the ring); with 2 stages H and query chunks alternate,
 * the rest after (the session-5 order). The kept parts' chunks (same order of parts, then H) go one after each streamed query chunk: that
 * chunk's release starts an upload, which the kept chunk's compute then hides; once no streamed query is
 * left, one after each streamed H chunk; the rest at the end. */
static int build_schedule(cz_gpu_prover *pr) {
    static const int qorder[4] = {SQ_L, SQ_A, SQ_B, SQ_B2};
    static const int korder[SQ_N] = {SQ_L, SQ_A, SQ_B, SQ_B2, SQ_H};
    uint64_t total = 0, q_left = 0, h_left = 0;
    for (int i = 0; i < SQ_N; i++) {
        const uint64_t c = i == SQ_B2 ? pr->chunk2 : pr->chunk1, k = (sq_len(pr, i) + c - 1) / c;
        total += k;
        if (!sq_kept(pr, i)) *(i == SQ_H ? &h_left : &q_left) += k;
    }
    pr->sched = malloc((total + 1) * sizeof *pr->sched);
    if (!pr->sched) return cz_error(CZ_ENOMEM, "GPU prover: chunk schedule of %llu", (unsigned long long)total);
    uint64_t hk = 0, qk = 0, n = 0, u = 0, kk = 0, run = 1;
    int qi = 0, ki = 0;
    while (n < total) {
        while (qi < 4 && (sq_kept(pr, qorder[qi]) || qk >= sq_len(pr, qorder[qi]))) qi++, qk = 0;
        while (ki < SQ_N && (!sq_kept(pr, korder[ki]) || kk >= sq_len(pr, korder[ki]))) ki++, kk = 0;
        int q;
        if (q_left && (run || !h_left)) q = qorder[qi];
        else if (h_left) q = SQ_H;
        else if (ki < SQ_N) q = -1; /* only kept chunks left */
        else break;                 /* not reached: total counts every chunk */
        if (q >= 0) {
            uint64_t *k = q == SQ_H ? &hk : &qk;
            const uint64_t c = q == SQ_B2 ? pr->chunk2 : pr->chunk1, left = sq_len(pr, q) - *k;
            pr->sched[n].q = q, pr->sched[n].u = (int64_t)u++, pr->sched[n].k0 = *k, pr->sched[n].m = left < c ? left : c;
            *k += pr->sched[n++].m;
            if (q == SQ_H) {
                h_left--;
                run = h_left ? (q_left + h_left) / (h_left + 1) : q_left;
                if (h_left && run > (uint64_t)pr->stages - 1) run = (uint64_t)pr->stages - 1;
                if (q_left) continue; /* kept chunks between H chunks only once no streamed query is left */
            } else {
                q_left--;
                run -= run > 0;
            }
        }
        if (ki < SQ_N) { /* a kept chunk after each streamed query chunk (or alone once nothing streams) */
            const int p = korder[ki];
            const uint64_t c = p == SQ_B2 ? pr->chunk2 : pr->chunk1, left = sq_len(pr, p) - kk;
            pr->sched[n].q = p, pr->sched[n].u = -1, pr->sched[n].k0 = kk, pr->sched[n].m = left < c ? left : c;
            kk += pr->sched[n++].m;
        }
    }
    pr->n_sched = n;
    return 0;
}

/* A query chunk's sparse upload (pr->nz_ready: start() made the nz bitmap of this witness; the part's host bases
 * mapped for the device, h_dsrc): only the points whose scalar is not 0 cross PCIe, read by a kernel on st_up
 * (cz_gpu_sparse_gather_), the others left as the buffer held them (no kernel reads them): a PoRep witness's aux
 * values are 0 in about half the positions (a real 32 GiB partition moves 30.1 of 47.4 GB). The first one of a
 * start waits for ev_nz (the bitmap, made on the compute stream). Counted into htod_bytes at the end of the start
 * (the device counts the points it copied, d_ucnt: G1, G2). */
static int sparse_issue(cz_gpu_prover *pr, const struct cz_gpu_chunk_ *c, int b) {
    int rc = 0;
    if (!pr->nz_waited) rc = cz_gpu_stream_wait_(pr->st_up, pr->ev_nz), pr->nz_waited = 1;
    const int q = c->q == SQ_L ? Q_L : c->q == SQ_A ? Q_A : Q_B; /* B_G2 takes B's map */
    const uint32_t *map = pr->d_map[q] ? pr->d_map[q] + c->k0 : NULL;
    const uint64_t base = pr->d_map[q] ? 0 : (q == Q_L ? pr->ni : 0) + c->k0;
    const size_t el = cz_gpu_prover_part_el_(c->q);
    for (int x = 0; x < (pr->upx > 1 ? pr->upx : 1) && !rc; x++)
        rc = cz_gpu_sparse_gather_(pr->d_stage[b], (const uint8_t *)pr->h_dsrc[c->q] + c->k0 * el, el, map, base, c->m,
                                   pr->d_nz, pr->ni, pr->sparse_blocks, pr->d_ucnt + (c->q == SQ_B2), pr->st_up);
    return rc;
}

/* Issues streamed chunk uploads, in schedule order, while a staging buffer is free. A pageable source goes
 * through the buffer's pinned host twin (its previous upload is over: that chunk was released). upx (benchmark
 * knob CZ_GPU_STREAM_UPX, default 1): each upload done that many times, as over a slower link. */
static int stream_issue(cz_gpu_prover *pr, cz_gpu_prove_stats *st) {
    int rc = 0;
    while (!rc && pr->u_issued - pr->u_taken < (uint64_t)pr->stages && pr->s_next < pr->n_sched) {
        const struct cz_gpu_chunk_ *c = &pr->sched[pr->s_next++];
        if (c->u < 0) continue; /* kept */
        const int b = (int)(c->u % pr->stages);
        const size_t bytes = c->m * cz_gpu_prover_part_el_(c->q);
        const void *src = (const uint8_t *)pr->h_src[c->q] + c->k0 * cz_gpu_prover_part_el_(c->q);
        const int sparse = pr->nz_ready && c->q != SQ_H && pr->h_dsrc[c->q] && !pr->h_stage[b];
        if (pr->h_stage[b]) {
            memcpy(pr->h_stage[b], src, bytes);
            src = pr->h_stage[b];
        }
        rc = cz_gpu_stream_wait_(pr->st_up, pr->ev_fr[b]);
        if (sparse && !rc) rc = sparse_issue(pr, c, b);
        for (int x = 0; !sparse && x < (pr->upx > 1 ? pr->upx : 1) && !rc; x++)
            rc = cz_gpu_htod_async_(pr->d_stage[b], src, bytes, pr->st_up);
        if (!rc) rc = cz_gpu_event_record_(pr->ev_ld[b], pr->st_up);
        pr->u_issued++;
        st->chunks++;
        if (sparse) st->sparse_chunks++;
        else st->htod_bytes += bytes;
        st->streamed_parts |= 1u << c->q;
    }
    return rc;
}

/* Starts the sequence (before the SpMV: the first `stages` chunks land while a, b, c and H are computed). */
int cz_gpu_prover_stream_begin_(cz_gpu_prover *pr, cz_gpu_prove_stats *st) {
    int rc = 0;
    if (pr->u_issued != pr->u_taken) rc = cz_gpu_stream_sync_(pr->st_up); /* a failed start left uploads */
    if (!rc && !pr->sched) rc = build_schedule(pr);
    pr->s_next = pr->s_taken = pr->u_issued = pr->u_taken = 0;
    pr->nz_waited = 0;
    st->streamed = 1, st->stages = pr->stages;
    return rc ? rc : stream_issue(pr, st);
}

/* The next chunk: a kept part's device array, or a staging buffer the compute stream waits for. */
int cz_gpu_prover_stream_take_(cz_gpu_prover *pr, const struct cz_gpu_chunk_ **c, const void **bases) {
    const struct cz_gpu_chunk_ *e = &pr->sched[pr->s_taken];
    *c = e;
    if (e->u < 0) {
        *bases = (const uint8_t *)cz_gpu_prover_part_dev_(pr, e->q) + e->k0 * cz_gpu_prover_part_el_(e->q);
        return 0;
    }
    if ((uint64_t)e->u >= pr->u_issued)
        return cz_error(CZ_EINVAL, "GPU prover: streamed chunk %llu not uploaded", (unsigned long long)e->u);
    const int b = (int)(e->u % pr->stages);
    *bases = pr->d_stage[b];
    return cz_gpu_stream_wait_(pr->st, pr->ev_ld[b]);
}

/* Done with the chunk taken last: a staging buffer is free for the upload `stages` chunks on. */
int cz_gpu_prover_stream_release_(cz_gpu_prover *pr, cz_gpu_prove_stats *st) {
    const struct cz_gpu_chunk_ *e = &pr->sched[pr->s_taken++];
    if (e->u < 0) return 0;
    int rc = cz_gpu_event_record_(pr->ev_fr[e->u % pr->stages], pr->st);
    pr->u_taken++;
    return rc ? rc : stream_issue(pr, st);
}
