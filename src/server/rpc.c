/* gRPC plumbing (rpc.h). Each call goes REQUESTED -> (SEND_INITIAL_METADATA + RECV_MESSAGE) -> a handler
 * thread decodes, calls the engine and answers with SEND_MESSAGE + SEND_STATUS -> freed.
 * RECV_CLOSE_ON_SERVER runs as its own batch from the start (tag = ctx + 1): it completes when the call
 * ends, with cancelled = 1 when the client went away (disconnect, deadline, cancel) before the answer.
 * A Prove handler blocked in the engine then returns, and the engine cancels the job when nobody else
 * awaits it. The ctx is freed when both batches are done (refs). */
#include "server/rpc.h"

#include <errno.h>
#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/slice.h>
#include <grpc/support/alloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk/v1/proving.pb-c.h"
#include "cz_error.h"
#include "engine/log.h"

#define T "cuzk::server"

enum { ST_REQUESTED, ST_RECEIVED, ST_SENT };

/* A call_ctx goes from the thread that starts a batch on it to the completion-queue thread that gets the batch's
 * event: gRPC orders the two, but Debian's libgrpc is not built with ThreadSanitizer, which then cannot see that
 * order (scripts/tsan.sh). Under -fsanitize=thread the hand-off is declared to it; otherwise this is no code. */
#if defined(__SANITIZE_THREAD__)
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#define HANDOFF_SEND(c) __tsan_release(c)
#define HANDOFF_TAKE(c) __tsan_acquire(c)
#else
#define HANDOFF_SEND(c) ((void)(c))
#define HANDOFF_TAKE(c) ((void)(c))
#endif

struct cz_rpc_server {
    cz_engine *e;
    grpc_server *server;
    grpc_completion_queue *cq;
    pthread_t cq_thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int handlers; /* handler threads alive */
    int accepting;
    int shutdown_seen;
    int shutdown_tag;
};

typedef struct {
    cz_rpc_server *s;
    int state; /* ST_*: the cq thread reads it at a batch's event, after the hand-off (HANDOFF_SEND / _TAKE) */
    grpc_call *call;
    grpc_call_details details;
    grpc_metadata_array md;
    grpc_byte_buffer *req, *resp;
    grpc_slice status_details;
    int cancelled;
    atomic_int gone; /* the client went away (set from the close batch; read by the handler thread) */
    int refs;          /* outstanding batches: the main one and the close one */
} call_ctx;

int cz_rpc_status_from_rc(int rc) {
    switch (rc) {
    case 0: return GRPC_STATUS_OK;
    case CZ_EINVAL:
    case CZ_EFORMAT:
    case CZ_ERANGE: return GRPC_STATUS_INVALID_ARGUMENT;
    case CZ_EUNSUPPORTED: return GRPC_STATUS_UNIMPLEMENTED;
    case CZ_ENOTFOUND: return GRPC_STATUS_NOT_FOUND;
    case CZ_EFULL:
    case CZ_ENOMEM: return GRPC_STATUS_RESOURCE_EXHAUSTED;
    case CZ_ESHUTDOWN:
    case CZ_EDEVICE: return GRPC_STATUS_UNAVAILABLE; /* every GPU lost: this daemon cannot prove (others may) */
    case CZ_EBUSY:
    case CZ_ENOPARAMS: return GRPC_STATUS_FAILED_PRECONDITION;
    case CZ_EEXIST: return GRPC_STATUS_ALREADY_EXISTS;
    default: return GRPC_STATUS_INTERNAL;
    }
}

static void request_next(cz_rpc_server *s) {
    call_ctx *c = calloc(1, sizeof *c);
    if (!c) return;
    c->s = s;
    c->state = ST_REQUESTED;
    grpc_call_details_init(&c->details);
    grpc_metadata_array_init(&c->md);
    HANDOFF_SEND(c);
    if (grpc_server_request_call(s->server, &c->call, &c->details, &c->md, s->cq, s->cq, c) != GRPC_CALL_OK) {
        grpc_call_details_destroy(&c->details);
        grpc_metadata_array_destroy(&c->md);
        free(c);
    }
}

static void ctx_free(call_ctx *c);
/* Drops one batch's reference (under s->mu: the close batch completes on the cq thread). */
static void ctx_unref(call_ctx *c) {
    cz_rpc_server *s = c->s;
    pthread_mutex_lock(&s->mu);
    int left = --c->refs;
    pthread_mutex_unlock(&s->mu);
    if (!left) ctx_free(c);
}

static void ctx_free(call_ctx *c) {
    if (c->call) grpc_call_unref(c->call);
    if (c->req) grpc_byte_buffer_destroy(c->req);
    if (c->resp) grpc_byte_buffer_destroy(c->resp);
    grpc_slice_unref(c->status_details);
    grpc_call_details_destroy(&c->details);
    grpc_metadata_array_destroy(&c->md);
    free(c);
}

/* ---- message helpers ---- */

typedef struct {
    uint8_t *buf;
    size_t len;
} packed;

#define PACK(type, msg, out)                                            \
    do {                                                                \
        (out).len = cuzk__v1__##type##__get_packed_size(msg);           \
        (out).buf = malloc((out).len ? (out).len : 1);                  \
        if ((out).buf) cuzk__v1__##type##__pack(msg, (out).buf);        \
    } while (0)

static void fill_submit(cz_submit *s, const Cuzk__V1__SubmitProofRequest *r) {
    memset(s, 0, sizeof *s);
    s->request_id = r->request_id;
    s->kind = (int)r->proof_kind;
    s->sector_size = r->sector_size;
    s->registered_proof = r->registered_proof;
    s->priority = (int)r->priority;
    s->vanilla = r->vanilla_proof.data;
    s->vanilla_len = r->vanilla_proof.len;
    s->n_vanillas = r->n_vanilla_proofs;
    s->sector_number = r->sector_number;
    s->miner_id = r->miner_id;
    s->randomness = r->randomness.len ? r->randomness.data : NULL;
    s->randomness_len = r->randomness.len;
    s->partition_index = r->partition_index;
    s->comm_r_old = r->comm_r_old.len ? r->comm_r_old.data : NULL;
    s->comm_r_old_len = r->comm_r_old.len;
    s->comm_r_new = r->comm_r_new.len ? r->comm_r_new.data : NULL;
    s->comm_r_new_len = r->comm_r_new.len;
    s->comm_d_new = r->comm_d_new.len ? r->comm_d_new.data : NULL;
    s->comm_d_new_len = r->comm_d_new.len;
}

static int submit(cz_engine *e, const Cuzk__V1__SubmitProofRequest *r, char job_id[CZ_JOB_ID_MAX], uint32_t *qpos,
                  bool from_prove) {
    int rc = r->proof_kind < 1 || r->proof_kind > 4 ? cz_error(CZ_EINVAL, "invalid proof_kind: %d", (int)r->proof_kind)
             : (int)r->proof_kind == CZ_KIND_POREP
                 ? cz_c1_wrapper_check(r->vanilla_proof.data, r->vanilla_proof.len, r->sector_size)
                 : 0;
    if (rc) {
        cz_engine_count_rejected(e, (int)r->proof_kind, rc);
        return rc;
    }
    cz_submit s;
    fill_submit(&s, r);
    s.from_prove = from_prove;
    /* vanilla_proofs as (pointer, length) arrays: the engine does not see protobuf-c types */
    size_t n = r->n_vanilla_proofs;
    const uint8_t **vp = calloc(n ? n : 1, sizeof *vp);
    size_t *vl = calloc(n ? n : 1, sizeof *vl);
    if (!vp || !vl) {
        free(vp), free(vl);
        return cz_error(CZ_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++) vp[i] = r->vanilla_proofs[i].data, vl[i] = r->vanilla_proofs[i].len;
    s.vanillas = vp, s.vanilla_lens = vl;
    rc = cz_engine_submit(e, &s, job_id, qpos);
    free(vp), free(vl);
    return rc;
}

/* Prove's submit failures that are the request's payload (a C1 or vanilla proof that does not parse or verify, a
 * sector size or circuit this daemon cannot prove, parameters it does not have): cuzk finds these while it proves
 * and answers an OK RPC with status FAILED, and so does Prove here. SubmitProof keeps the gRPC codes (docs/daemon.md),
 * and so do refusals that are not the payload's: a bad proof_kind (cuzk's INVALID_ARGUMENT), the pending bound,
 * a shutdown or every GPU lost, a request_id in use with another payload. */
static bool prove_fails_in_band(int rc) {
    switch (rc) {
    case CZ_EINVAL:
    case CZ_EFORMAT:
    case CZ_ERANGE:
    case CZ_ECURVE:
    case CZ_ESUBGROUP:
    case CZ_EVERIFY:
    case CZ_EUNSUPPORTED:
    case CZ_ENOPARAMS: return true;
    default: return false;
    }
}

static void fill_await(Cuzk__V1__AwaitProofResponse *m, const cz_result *r) {
    cuzk__v1__await_proof_response__init(m);
    m->job_id = (char *)r->job_id;
    m->status = (Cuzk__V1__AwaitProofResponse__Status)r->status;
    m->proof.data = r->proof;
    m->proof.len = r->proof_len;
    m->error_message = (char *)r->error;
    m->queue_wait_ms = r->queue_wait_ms;
    m->srs_load_ms = r->srs_load_ms;
    m->synthesis_ms = r->synthesis_ms;
    m->gpu_compute_ms = r->gpu_compute_ms;
    m->total_ms = r->total_ms;
}

/* Runs one RPC; returns a gRPC status and fills out (on OK) or msg. */
static int handle(cz_engine *e, const char *method, const uint8_t *in, size_t inlen, packed *out, char *msg,
                  size_t msgcap, const atomic_int *gone) {
    int rc = 0;
    const char *pre = "/cuzk.v1.ProvingEngine/";
    if (strncmp(method, pre, strlen(pre))) {
        snprintf(msg, msgcap, "unknown service in %s", method);
        return GRPC_STATUS_UNIMPLEMENTED;
    }
    const char *m = method + strlen(pre);
#define BAD_REQ()                                                   \
    do {                                                            \
        snprintf(msg, msgcap, "malformed %s request", m);           \
        return GRPC_STATUS_INVALID_ARGUMENT;                        \
    } while (0)
#define FAIL(rc_)                                                   \
    do {                                                            \
        snprintf(msg, msgcap, "%s", cz_error_message());            \
        return cz_rpc_status_from_rc(rc_);                          \
    } while (0)
    if (!strcmp(m, "SubmitProof")) {
        Cuzk__V1__SubmitProofRequest *r = cuzk__v1__submit_proof_request__unpack(NULL, inlen, in);
        if (!r) BAD_REQ();
        char id[CZ_JOB_ID_MAX];
        uint32_t q = 0;
        rc = submit(e, r, id, &q, false);
        cuzk__v1__submit_proof_request__free_unpacked(r, NULL);
        if (rc) FAIL(rc);
        Cuzk__V1__SubmitProofResponse resp = CUZK__V1__SUBMIT_PROOF_RESPONSE__INIT;
        resp.job_id = id;
        resp.queue_position = q;
        PACK(submit_proof_response, &resp, *out);
    } else if (!strcmp(m, "AwaitProof") || !strcmp(m, "Prove")) {
        char id[CZ_JOB_ID_MAX];
        uint64_t timeout = 0;
        int prove = !strcmp(m, "Prove");
        if (prove) {
            Cuzk__V1__ProveRequest *r = cuzk__v1__prove_request__unpack(NULL, inlen, in);
            if (!r) BAD_REQ();
            if (!r->submit) {
                cuzk__v1__prove_request__free_unpacked(r, NULL);
                snprintf(msg, msgcap, "missing submit field");
                return GRPC_STATUS_INVALID_ARGUMENT;
            }
            uint32_t q;
            int kind = (int)r->submit->proof_kind;
            snprintf(id, sizeof id, "%s", r->submit->request_id ? r->submit->request_id : "");
            rc = submit(e, r->submit, id, &q, true);
            cuzk__v1__prove_request__free_unpacked(r, NULL);
            if (rc && kind >= 1 && kind <= 4 && prove_fails_in_band(rc)) {
                /* cuzk's Prove: a proof that cannot be made is an OK RPC carrying FAILED (cuzk-spec 1, 7) */
                Cuzk__V1__AwaitProofResponse a = CUZK__V1__AWAIT_PROOF_RESPONSE__INIT;
                a.job_id = id;
                a.status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__FAILED;
                a.error_message = (char *)cz_error_message();
                Cuzk__V1__ProveResponse pr = CUZK__V1__PROVE_RESPONSE__INIT;
                pr.result = &a;
                PACK(prove_response, &pr, *out);
                return GRPC_STATUS_OK;
            }
            if (rc) FAIL(rc);
        } else {
            Cuzk__V1__AwaitProofRequest *r = cuzk__v1__await_proof_request__unpack(NULL, inlen, in);
            if (!r) BAD_REQ();
            snprintf(id, sizeof id, "%s", r->job_id);
            timeout = r->timeout_ms;
            cuzk__v1__await_proof_request__free_unpacked(r, NULL);
        }
        cz_result res;
        if ((rc = cz_engine_await_or_gone(e, id, timeout, &res, gone))) FAIL(rc);
        if (gone && atomic_load(gone)) {
            cz_result_free(&res);
            snprintf(msg, msgcap, "client went away");
            return GRPC_STATUS_CANCELLED; /* nobody reads it */
        }
        Cuzk__V1__AwaitProofResponse a;
        fill_await(&a, &res);
        if (prove) {
            Cuzk__V1__ProveResponse pr = CUZK__V1__PROVE_RESPONSE__INIT;
            pr.result = &a;
            PACK(prove_response, &pr, *out);
        } else {
            PACK(await_proof_response, &a, *out);
        }
        cz_result_free(&res);
    } else if (!strcmp(m, "CancelProof")) {
        Cuzk__V1__CancelProofRequest *r = cuzk__v1__cancel_proof_request__unpack(NULL, inlen, in);
        if (!r) BAD_REQ();
        bool was = false;
        rc = cz_engine_cancel(e, r->job_id, &was);
        cuzk__v1__cancel_proof_request__free_unpacked(r, NULL);
        if (rc) FAIL(rc);
        Cuzk__V1__CancelProofResponse resp = CUZK__V1__CANCEL_PROOF_RESPONSE__INIT;
        resp.was_running = was;
        PACK(cancel_proof_response, &resp, *out);
    } else if (!strcmp(m, "GetStatus")) {
        Cuzk__V1__GetStatusRequest *r = cuzk__v1__get_status_request__unpack(NULL, inlen, in);
        if (!r) BAD_REQ();
        cuzk__v1__get_status_request__free_unpacked(r, NULL);
        cz_engine_status st;
        cz_engine_status_get(e, &st);
        Cuzk__V1__GetStatusResponse resp = CUZK__V1__GET_STATUS_RESPONSE__INIT;
        Cuzk__V1__SRSStatus srs[64], *srsp[64];
        Cuzk__V1__QueueStatus q[4], *qp[4];
        /* gpus: one entry per GPU worker, as cuzk (an ordinal appears gpu_workers_per_device times). */
        size_t nw = st.n_gpus ? st.n_workers : 0;
        Cuzk__V1__GPUStatus *gs = calloc(nw ? nw : 1, sizeof *gs), **gsp = calloc(nw ? nw : 1, sizeof *gsp);
        /* a lost GPU says so in its name: GPUStatus has no field for it (the proto stays Curio's) */
        char(*lname)[sizeof st.gpus[0].name + sizeof st.gpus[0].lost_reason + 16] = calloc(nw ? nw : 1, sizeof *lname);
        for (size_t i = 0; gs && gsp && lname && i < nw; i++) {
            const cz_worker_info *w = &st.workers[i];
            if (w->device < 0 || (size_t)w->device >= st.n_gpus) continue;
            const cz_gpu_status *g = &st.gpus[w->device];
            Cuzk__V1__GPUStatus *x = &gs[resp.n_gpus];
            cuzk__v1__gpustatus__init(x);
            x->ordinal = (uint32_t)g->ordinal;
            x->name = (char *)g->name;
            if (g->lost) {
                snprintf(lname[i], sizeof lname[i], "%s (lost: %s)", g->name, g->lost_reason);
                x->name = lname[i];
            }
            x->vram_total_bytes = g->vram_total;
            x->vram_free_bytes = g->vram_free;
            x->current_job_id = w->busy ? (char *)w->current_job : (char *)"";
            x->current_proof_kind = w->busy ? (char *)cz_kind_name(w->current_kind) : (char *)"";
            gsp[resp.n_gpus++] = x;
        }
        resp.gpus = gsp;
        for (size_t i = 0; i < st.n_srs && i < 64; i++) {
            cuzk__v1__srsstatus__init(&srs[i]);
            srs[i].circuit_id = st.srs[i].circuit_id;
            srs[i].tier = (Cuzk__V1__SRSStatus__Tier)st.srs[i].tier;
            srs[i].size_bytes = st.srs[i].size_bytes;
            srs[i].ref_count = st.srs[i].ref_count;
            srsp[resp.n_loaded_srs++] = &srs[i];
        }
        for (int k = 1; k <= 4; k++) {
            if (!st.pending_by_kind[k] && !st.in_progress_by_kind[k]) continue;
            Cuzk__V1__QueueStatus *x = &q[resp.n_queues];
            cuzk__v1__queue_status__init(x);
            x->proof_kind = (char *)cz_kind_name(k);
            x->pending = st.pending_by_kind[k];
            x->in_progress = st.in_progress_by_kind[k];
            qp[resp.n_queues++] = x;
        }
        resp.loaded_srs = srsp;
        resp.queues = qp;
        resp.total_proofs_completed = st.completed;
        resp.total_proofs_failed = st.failed;
        resp.uptime_seconds = st.uptime_ms / 1000;
        /* cuzk leaves these 0; ours: the page-locked host memory (staging buffers, the provers' own; while a
         * Lagrange-form GPU prover is created, also its fold's ~3.5 GB at 32 GiB, most of it pageable), which counts
         * in memory.total_budget, and that budget as its limit */
        resp.pinned_memory_bytes = st.staging_bytes + st.backend_host_bytes;
        resp.pinned_memory_limit_bytes = st.budget_total;
        PACK(get_status_response, &resp, *out);
        free(gs), free(gsp), free(lname);
        cz_engine_status_free(&st);
    } else if (!strcmp(m, "GetMetrics")) {
        Cuzk__V1__GetMetricsRequest *r = cuzk__v1__get_metrics_request__unpack(NULL, inlen, in);
        if (!r) BAD_REQ();
        cuzk__v1__get_metrics_request__free_unpacked(r, NULL);
        char *text = cz_engine_metrics(e);
        if (!text) {
            snprintf(msg, msgcap, "out of memory");
            return GRPC_STATUS_RESOURCE_EXHAUSTED;
        }
        Cuzk__V1__GetMetricsResponse resp = CUZK__V1__GET_METRICS_RESPONSE__INIT;
        resp.prometheus_text = text;
        PACK(get_metrics_response, &resp, *out);
        free(text);
    } else if (!strcmp(m, "PreloadSRS")) {
        Cuzk__V1__PreloadSrsRequest *r = cuzk__v1__preload_srs_request__unpack(NULL, inlen, in);
        if (!r) BAD_REQ();
        bool already = false;
        uint64_t ms = 0;
        rc = cz_engine_preload(e, r->circuit_id, &already, &ms);
        cuzk__v1__preload_srs_request__free_unpacked(r, NULL);
        if (rc) FAIL(rc);
        Cuzk__V1__PreloadSrsResponse resp = CUZK__V1__PRELOAD_SRS_RESPONSE__INIT;
        resp.already_loaded = already;
        resp.load_time_ms = ms;
        PACK(preload_srs_response, &resp, *out);
    } else if (!strcmp(m, "EvictSRS")) {
        Cuzk__V1__EvictSrsRequest *r = cuzk__v1__evict_srs_request__unpack(NULL, inlen, in);
        if (!r) BAD_REQ();
        bool was = false;
        uint64_t freed = 0;
        rc = cz_engine_evict(e, r->circuit_id, &was, &freed);
        cuzk__v1__evict_srs_request__free_unpacked(r, NULL);
        if (rc) FAIL(rc);
        Cuzk__V1__EvictSrsResponse resp = CUZK__V1__EVICT_SRS_RESPONSE__INIT;
        resp.was_loaded = was;
        resp.freed_bytes = freed;
        PACK(evict_srs_response, &resp, *out);
    } else {
        snprintf(msg, msgcap, "unknown method %s", m);
        return GRPC_STATUS_UNIMPLEMENTED;
    }
    if (!out->buf) {
        snprintf(msg, msgcap, "out of memory");
        return GRPC_STATUS_RESOURCE_EXHAUSTED;
    }
    return GRPC_STATUS_OK;
}

static void *handler_main(void *arg) {
    call_ctx *c = arg;
    cz_rpc_server *s = c->s;
    char *method = grpc_slice_to_c_string(c->details.method);
    packed out = {NULL, 0};
    char msg[600] = "";
    int code;
    if (!c->req) {
        code = GRPC_STATUS_INVALID_ARGUMENT;
        snprintf(msg, sizeof msg, "no request message");
    } else {
        grpc_byte_buffer_reader rd;
        grpc_byte_buffer_reader_init(&rd, c->req);
        grpc_slice in = grpc_byte_buffer_reader_readall(&rd);
        grpc_byte_buffer_reader_destroy(&rd);
        code = handle(s->e, method, GRPC_SLICE_START_PTR(in), GRPC_SLICE_LENGTH(in), &out, msg, sizeof msg, &c->gone);
        grpc_slice_unref(in);
    }
    if (code != GRPC_STATUS_OK) cz_log(CZ_LOG_DEBUG, T, "%s -> status %d: %s", method, code, msg);
    gpr_free(method);

    grpc_op ops[2];
    memset(ops, 0, sizeof ops);
    size_t n = 0;
    if (code == GRPC_STATUS_OK) {
        grpc_slice sl = grpc_slice_from_copied_buffer((const char *)out.buf, out.len);
        c->resp = grpc_raw_byte_buffer_create(&sl, 1);
        grpc_slice_unref(sl);
        ops[n].op = GRPC_OP_SEND_MESSAGE;
        ops[n++].data.send_message.send_message = c->resp;
    }
    free(out.buf);
    c->status_details = grpc_slice_from_copied_string(msg);
    ops[n].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
    ops[n].data.send_status_from_server.status = (grpc_status_code)code;
    ops[n++].data.send_status_from_server.status_details = code == GRPC_STATUS_OK ? NULL : &c->status_details;
    c->state = ST_SENT;
    grpc_call *call = c->call; /* c is the cq thread's from the hand-off on: it may free it before this returns */
    HANDOFF_SEND(c);
    if (grpc_call_start_batch(call, ops, n, c, NULL) != GRPC_CALL_OK) ctx_unref(c);
    pthread_mutex_lock(&s->mu);
    s->handlers--;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

static void *cq_main(void *arg) {
    cz_rpc_server *s = arg;
    for (;;) {
        grpc_event ev = grpc_completion_queue_next(s->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
        if (ev.type == GRPC_QUEUE_SHUTDOWN) break;
        if (ev.type != GRPC_OP_COMPLETE) continue;
        if (ev.tag == &s->shutdown_tag) {
            pthread_mutex_lock(&s->mu);
            s->shutdown_seen = 1;
            pthread_cond_broadcast(&s->cv);
            pthread_mutex_unlock(&s->mu);
            continue;
        }
        if ((uintptr_t)ev.tag & 1) { /* the close batch */
            call_ctx *c = (call_ctx *)((uintptr_t)ev.tag - 1);
            HANDOFF_TAKE(c);
            if (c->cancelled) {
                atomic_store(&c->gone, 1);
                cz_engine_kick(s->e);
            }
            ctx_unref(c);
            continue;
        }
        call_ctx *c = ev.tag;
        HANDOFF_TAKE(c);
        if (c->state == ST_REQUESTED) {
            if (!ev.success) { /* server shutting down */
                ctx_free(c);
                continue;
            }
            request_next(s);
            grpc_op ops[2];
            memset(ops, 0, sizeof ops);
            ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
            ops[1].op = GRPC_OP_RECV_MESSAGE;
            ops[1].data.recv_message.recv_message = &c->req;
            c->state = ST_RECEIVED;
            c->refs = 1;
            HANDOFF_SEND(c);
            if (grpc_call_start_batch(c->call, ops, 2, c, NULL) != GRPC_CALL_OK) {
                ctx_free(c);
                continue;
            }
            grpc_op close;
            memset(&close, 0, sizeof close);
            close.op = GRPC_OP_RECV_CLOSE_ON_SERVER;
            close.data.recv_close_on_server.cancelled = &c->cancelled;
            pthread_mutex_lock(&s->mu);
            c->refs++;
            pthread_mutex_unlock(&s->mu);
            HANDOFF_SEND(c);
            if (grpc_call_start_batch(c->call, &close, 1, (void *)((uintptr_t)c + 1), NULL) != GRPC_CALL_OK) ctx_unref(c);
        } else if (c->state == ST_RECEIVED) {
            /* ev.success is 0 when the message was too large or the client went away: the handler then
             * answers without a request and gRPC drops it if the call is dead. */
            pthread_mutex_lock(&s->mu);
            s->handlers++;
            pthread_mutex_unlock(&s->mu);
            pthread_t t;
            pthread_attr_t at;
            pthread_attr_init(&at);
            pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
            if (pthread_create(&t, &at, handler_main, c)) {
                pthread_mutex_lock(&s->mu);
                s->handlers--;
                pthread_mutex_unlock(&s->mu);
                grpc_call_cancel(c->call, NULL);
                ctx_unref(c);
            }
            pthread_attr_destroy(&at);
        } else {
            ctx_unref(c);
        }
    }
    return NULL;
}

/* What the daemon accepts as one listen address before gRPC binds it: unix:///abs/path or IP:port (no other scheme). */
static int addr_syntax(const char *addr) {
    if (!strncmp(addr, "unix://", 7) && addr[7] != '/')
        return cz_error(CZ_EINVAL, "listen address %s: the unix socket path must be absolute", addr);
    if (strncmp(addr, "unix://", 7) && strstr(addr, "://"))
        return cz_error(CZ_EINVAL, "listen address %s: use unix:///path or IP:port", addr);
    return 0;
}

int cz_rpc_check_listen(const char *listen) {
    char list[1024];
    snprintf(list, sizeof list, "%s", listen);
    int rc = *list ? 0 : cz_error(CZ_EINVAL, "daemon.listen is empty");
    for (char *save, *a = strtok_r(list, ",", &save); a && !rc; a = strtok_r(NULL, ",", &save)) {
        while (*a == ' ') a++;
        rc = addr_syntax(a);
    }
    return rc;
}

/* unix:///abs/path: remove a stale socket, create the parent directory. */
static int prepare_addr(const char *addr, char *out, size_t cap) {
    int rc = addr_syntax(addr);
    if (rc) return rc;
    if (!strncmp(addr, "unix://", 7)) {
        const char *path = addr + 7;
        char dir[512];
        snprintf(dir, sizeof dir, "%s", path);
        char *slash = strrchr(dir, '/');
        if (slash && slash != dir) {
            *slash = 0;
            for (char *p = dir + 1; *p; p++)
                if (*p == '/') {
                    *p = 0;
                    mkdir(dir, 0755);
                    *p = '/';
                }
            mkdir(dir, 0755);
        }
        struct stat sb;
        if (lstat(path, &sb) == 0 && S_ISSOCK(sb.st_mode)) unlink(path);
        snprintf(out, cap, "unix:%s", path);
        return 0;
    }
    snprintf(out, cap, "%s", addr);
    return 0;
}

int cz_rpc_server_start(cz_rpc_server **out, cz_engine *e, const char *listen) {
    cz_rpc_server *s = calloc(1, sizeof *s);
    if (!s) return cz_error(CZ_ENOMEM, "out of memory");
    s->e = e;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    grpc_arg args[2];
    args[0].type = args[1].type = GRPC_ARG_INTEGER;
    args[0].key = GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH;
    args[1].key = GRPC_ARG_MAX_SEND_MESSAGE_LENGTH;
    args[0].value.integer = args[1].value.integer = CZ_RPC_MAX_MESSAGE;
    grpc_channel_args ca = {2, args};
    s->server = grpc_server_create(&ca, NULL);
    s->cq = grpc_completion_queue_create_for_next(NULL);
    grpc_server_register_completion_queue(s->server, s->cq, NULL);
    char list[1024];
    snprintf(list, sizeof list, "%s", listen);
    int rc = 0;
    for (char *save, *a = strtok_r(list, ",", &save); a && !rc; a = strtok_r(NULL, ",", &save)) {
        while (*a == ' ') a++;
        char g[600];
        if ((rc = prepare_addr(a, g, sizeof g))) break;
        grpc_server_credentials *cr = grpc_insecure_server_credentials_create();
        int port = grpc_server_add_http2_port(s->server, g, cr);
        grpc_server_credentials_release(cr);
        if (!port) rc = cz_error(CZ_EIO, "cannot listen on %s", a);
        else cz_log(CZ_LOG_INFO, T, "gRPC listening on %s", a);
    }
    if (rc) {
        grpc_server_destroy(s->server);
        grpc_completion_queue_shutdown(s->cq);
        while (grpc_completion_queue_next(s->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL).type != GRPC_QUEUE_SHUTDOWN) {
        }
        grpc_completion_queue_destroy(s->cq);
        free(s);
        return rc;
    }
    grpc_server_start(s->server);
    s->accepting = 1;
    /* Several outstanding request_call slots so bursts of calls are taken without waiting. */
    for (int i = 0; i < 16; i++) request_next(s);
    pthread_create(&s->cq_thread, NULL, cq_main, s);
    *out = s;
    return 0;
}

void cz_rpc_server_stop_accepting(cz_rpc_server *s) {
    pthread_mutex_lock(&s->mu);
    int was = s->accepting;
    s->accepting = 0;
    pthread_mutex_unlock(&s->mu);
    if (was) grpc_server_shutdown_and_notify(s->server, s->cq, &s->shutdown_tag);
}

void cz_rpc_server_destroy(cz_rpc_server *s) {
    cz_rpc_server_stop_accepting(s);
    pthread_mutex_lock(&s->mu);
    while (s->handlers) pthread_cond_wait(&s->cv, &s->mu);
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += 5;
    while (!s->shutdown_seen)
        if (pthread_cond_timedwait(&s->cv, &s->mu, &dl) == ETIMEDOUT) break;
    int seen = s->shutdown_seen;
    pthread_mutex_unlock(&s->mu);
    if (!seen) {
        grpc_server_cancel_all_calls(s->server);
        pthread_mutex_lock(&s->mu);
        while (!s->shutdown_seen) pthread_cond_wait(&s->cv, &s->mu);
        pthread_mutex_unlock(&s->mu);
    }
    grpc_server_destroy(s->server);
    grpc_completion_queue_shutdown(s->cq);
    pthread_join(s->cq_thread, NULL);
    grpc_completion_queue_destroy(s->cq);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    free(s);
}
