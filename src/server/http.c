#include "server/http.h"

#include <arpa/inet.h>
#include <jansson.h>
#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "engine/log.h"
#include "util/version.h"

struct cz_http_server {
    struct MHD_Daemon *d;
    cz_engine *e;
};

static const char *part_state(char c) {
    switch (c) {
    case 's': return "synthesizing";
    case 'S': return "synth_done";
    case 'g': return "gpu";
    case 'd': return "done";
    case 'f': return "failed";
    default: return "pending";
    }
}

char *cz_status_json(cz_engine *e) {
    cz_engine_status st;
    cz_engine_status_get(e, &st);
    json_t *root = json_object();
    json_object_set_new(root, "uptime_secs", json_real(st.uptime_ms / 1000.0));
    json_object_set_new(root, "shutting_down", json_boolean(st.shutting_down)); /* ours: draining or stopping */
    json_object_set_new(root, "backend", json_string(st.backend));
    json_object_set_new(root, "build", json_pack("{s:s,s:s,s:s}", "version", cz_version(), "commit", cz_build_commit(),
                                                 "cuda_arch", cz_build_cuda_arch())); /* ours, as cuzk_build_info */
    /* used may pass total: an SRS larger than the whole budget loads alone (engine.c srs_room) */
    uint64_t avail = st.budget_used < st.budget_total ? st.budget_total - st.budget_used : 0;
    json_object_set_new(root, "memory", json_pack("{s:I,s:I,s:I}", "total_bytes", (json_int_t)st.budget_total,
                                                  "used_bytes", (json_int_t)st.budget_used, "available_bytes",
                                                  (json_int_t)avail));
    json_object_set_new(root, "synthesis",
                        json_pack("{s:i,s:i}", "max_concurrent", (int)st.synth_workers, "active", (int)st.synth_active));
    json_t *pl = json_array();
    for (size_t i = 0; i < st.n_pipelines; i++) {
        cz_pipeline_info *p = &st.pipelines[i];
        json_t *parts = json_array();
        for (uint32_t k = 0; k < p->total_partitions && k < CZ_MAX_PARTITIONS; k++) {
            json_t *o = json_pack("{s:i,s:s}", "index", (int)k, "state", part_state(p->part_state[k]));
            if (p->part_synth_ms[k]) json_object_set_new(o, "synth_ms", json_integer((json_int_t)p->part_synth_ms[k]));
            if (p->part_gpu_ms[k]) json_object_set_new(o, "gpu_ms", json_integer((json_int_t)p->part_gpu_ms[k]));
            if (p->part_witness_bytes[k])
                json_object_set_new(o, "witness_bytes", json_integer((json_int_t)p->part_witness_bytes[k]));
            json_array_append_new(parts, o);
        }
        json_array_append_new(pl, json_pack("{s:s,s:s,s:f,s:i,s:i,s:s,s:o}", "job_id", p->job_id, "proof_kind",
                                             cz_kind_name(p->kind), "started_secs_ago", p->started_ms_ago / 1000.0,
                                             "total_partitions", (int)p->total_partitions, "partitions_done",
                                             (int)p->partitions_done, "witness", p->witness_compact ? "compact" : "dense",
                                             "partitions", parts));
    }
    json_object_set_new(root, "pipelines", pl);
    /* ours: the witness form (synthesis.compact_witness) and the host bytes it holds */
    json_object_set_new(root, "witness",
                        json_pack("{s:b,s:I,s:{s:{s:I,s:I},s:{s:I,s:I}}}", "compact", st.compact_witness, "held_bytes",
                                  (json_int_t)st.witness_bytes, "synthesized", "dense", "partitions",
                                  (json_int_t)st.partitions_synth[0], "bytes", (json_int_t)st.witness_bytes_synth[0],
                                  "compact", "partitions", (json_int_t)st.partitions_synth[1], "bytes",
                                  (json_int_t)st.witness_bytes_synth[1]));
    json_t *ws = json_array();
    for (size_t i = 0; i < st.n_workers; i++) {
        cz_worker_info *w = &st.workers[i];
        json_t *o = json_pack("{s:i,s:i,s:s}", "worker_id", w->worker_id, "gpu_ordinal", w->gpu_ordinal, "state",
                              w->lost ? "lost" : w->busy ? "proving" : "idle");
        if (w->busy) {
            json_object_set_new(o, "current_job", json_string(w->current_job));
            json_object_set_new(o, "current_partition", json_integer(w->current_partition));
            json_object_set_new(o, "busy_secs", json_real(w->busy_ms / 1000.0));
        }
        json_array_append_new(ws, o);
    }
    json_object_set_new(root, "gpu_workers", ws);
    json_t *gj = json_array(); /* ours: the devices the backend proves on (empty for the CPU backend) */
    for (size_t i = 0; i < st.n_gpus; i++) {
        const cz_gpu_status *g = &st.gpus[i];
        /* busy_secs_total: its partitions' device regions so far (the rate of it: the share of time it proves) */
        json_t *o = json_pack("{s:i,s:s,s:I,s:I,s:i,s:I,s:b,s:I,s:f}", "ordinal", g->ordinal, "name", g->name,
                              "vram_total_bytes", (json_int_t)g->vram_total, "vram_free_bytes",
                              (json_int_t)g->vram_free, "resident_circuits", g->resident_circuits, "circuit_uploads",
                              (json_int_t)g->circuit_uploads, "lost", g->lost, "partitions", (json_int_t)g->starts,
                              "busy_secs_total", g->busy_ms / 1000.0);
        if (g->lost) { /* out of service: why and since when (its workers show state "lost") */
            json_object_set_new(o, "lost_reason", json_string(g->lost_reason));
            json_object_set_new(o, "lost_secs_ago", json_real(g->lost_ms_ago / 1000.0));
        }
        json_array_append_new(gj, o);
    }
    json_object_set_new(root, "gpus", gj);
    json_t *srs = json_array();
    for (size_t i = 0; i < st.n_srs; i++) {
        const cz_srs_info *si = &st.srs[i];
        const char *tier = si->tier == CZ_TIER_HOT ? "hot" : si->tier == CZ_TIER_WARM ? "warm" : "cold";
        /* "loading": a load under way, its stage ("recording", "digest", ...), and loading_secs how long so far */
        json_array_append_new(srs, json_pack("{s:s,s:I,s:f,s:b,s:i,s:s,s:b,s:b,s:s?,s:f}", "circuit_id", si->circuit_id,
                                             "bytes", (json_int_t)si->size_bytes, "last_used_secs_ago",
                                             si->idle_ms / 1000.0, "evictable", si->ref_count == 0, "ref_count",
                                             (int)si->ref_count, "tier", tier, "seeded", si->seeded, "bases_released",
                                             si->bases_released, "loading", si->loading, "loading_secs",
                                             si->loading_ms / 1000.0));
    }
    json_object_set_new(root, "allocations", json_pack("{s:o,s:[]}", "srs", srs, "pce"));
    json_t *ck = json_object(), *fk = json_object();
    for (int k = 1; k <= 4; k++) {
        if (st.completed_by_kind[k]) json_object_set_new(ck, cz_kind_name(k), json_integer((json_int_t)st.completed_by_kind[k]));
        if (st.failed_by_kind[k]) json_object_set_new(fk, cz_kind_name(k), json_integer((json_int_t)st.failed_by_kind[k]));
    }
    json_object_set_new(root, "counters",
                        json_pack("{s:I,s:I,s:I,s:o,s:o,s:i}", "total_completed", (json_int_t)st.completed,
                                  "total_failed", (json_int_t)st.failed, "total_cancelled", (json_int_t)st.cancelled,
                                  "completed_by_kind", ck, "failed_by_kind", fk, "queue_depth", (int)st.queue_depth));
    /* cuzk's names, with what they count here: partitions in synthesis; synthesized ones waiting for a prover or in
     * its start(); those holding their witness (the aux assignment); none outlives start() as a shell; partitions
     * through start() waiting for or in finish(). gpu_queue is ours (the prover queue alone). */
    int in_start = 0;
    for (size_t i = 0; i < st.n_workers; i++) in_start += st.workers[i].busy;
    json_object_set_new(root, "buffers",
                        json_pack("{s:i,s:i,s:i,s:i,s:i,s:i}", "synth_in_flight", (int)st.synth_active,
                                  "provers_in_flight", (int)st.gpu_queue_len + in_start, "aux_in_flight",
                                  (int)st.witness_parts, "shells_in_flight", 0, "pending_handles",
                                  (int)st.pending_handles, "gpu_queue", (int)st.gpu_queue_len));
    cz_engine_status_free(&st);
    char *s = json_dumps(root, JSON_COMPACT);
    json_decref(root);
    return s;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned code, const char *type, char *body) {
    struct MHD_Response *r = MHD_create_response_from_buffer(strlen(body), body, MHD_RESPMEM_MUST_FREE);
    MHD_add_response_header(r, "Content-Type", type);
    MHD_add_response_header(r, "Access-Control-Allow-Origin", "*");
    MHD_add_response_header(r, "Connection", "close"); /* as cuzk's: one request a connection */
    enum MHD_Result ret = MHD_queue_response(c, code, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload, size_t *upload_size, void **state) {
    (void)version, (void)upload, (void)upload_size, (void)state;
    cz_http_server *h = cls;
    /* cuzk answers anything but GET /status with 404 text; a request's body is not read */
    if (strcmp(method, "GET")) return reply(c, 404, "text/plain", strdup("not found: GET /status or /metrics\n"));
    if (!strcmp(url, "/status")) {
        char *s = cz_status_json(h->e);
        return s ? reply(c, 200, "application/json", s) : reply(c, 500, "text/plain", strdup("out of memory\n"));
    }
    if (!strcmp(url, "/metrics")) {
        char *s = cz_engine_metrics(h->e);
        return s ? reply(c, 200, "text/plain; version=0.0.4; charset=utf-8", s)
                 : reply(c, 500, "text/plain", strdup("out of memory\n"));
    }
    return reply(c, 404, "text/plain", strdup("not found: try /status or /metrics\n"));
}

/* status_listen as IP:port (IPv6 in brackets) into *a6 or *a4; *v6 says which. 0 or CZ_EINVAL. */
static int parse_listen(const char *listen, struct sockaddr_in6 *a6, struct sockaddr_in *a4, bool *v6) {
    char host[256];
    const char *colon = strrchr(listen, ':');
    if (!colon || colon == listen) return cz_error(CZ_EINVAL, "status_listen '%s': expected IP:port", listen);
    size_t hl = (size_t)(colon - listen);
    if (hl >= sizeof host) return cz_error(CZ_EINVAL, "status_listen '%s' too long", listen);
    memcpy(host, listen, hl);
    host[hl] = 0;
    char *end;
    long port = strtol(colon + 1, &end, 10);
    if (*end || port < 0 || port > 65535) return cz_error(CZ_EINVAL, "status_listen '%s': bad port", listen);
    memset(a6, 0, sizeof *a6), memset(a4, 0, sizeof *a4);
    *v6 = host[0] == '[' && host[hl - 1] == ']';
    if (*v6) {
        host[hl - 1] = 0;
        a6->sin6_family = AF_INET6;
        a6->sin6_port = htons((uint16_t)port);
        if (inet_pton(AF_INET6, host + 1, &a6->sin6_addr) != 1)
            return cz_error(CZ_EINVAL, "status_listen '%s': bad IPv6", listen);
    } else {
        a4->sin_family = AF_INET;
        a4->sin_port = htons((uint16_t)port);
        if (inet_pton(AF_INET, host, &a4->sin_addr) != 1)
            return cz_error(CZ_EINVAL, "status_listen '%s': expected an IP address (host names are not accepted)", listen);
    }
    return 0;
}

int cz_http_check_listen(const char *listen) {
    struct sockaddr_in6 a6;
    struct sockaddr_in a4;
    bool v6 = false;
    return parse_listen(listen, &a6, &a4, &v6);
}

int cz_http_start(cz_http_server **out, cz_engine *e, const char *listen) {
    struct sockaddr_in6 a6;
    struct sockaddr_in a4;
    bool v6 = false;
    int rc = parse_listen(listen, &a6, &a4, &v6);
    if (rc) return rc;
    const uint16_t port = v6 ? ntohs(a6.sin6_port) : ntohs(a4.sin_port);
    struct sockaddr *sa = v6 ? (struct sockaddr *)&a6 : (struct sockaddr *)&a4;
    const unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG | (v6 ? MHD_USE_IPv6 : 0);
    cz_http_server *h = calloc(1, sizeof *h);
    if (!h) return cz_error(CZ_ENOMEM, "out of memory");
    h->e = e;
    h->d = MHD_start_daemon(flags, port, NULL, NULL, on_request, h, MHD_OPTION_SOCK_ADDR, sa,
                            MHD_OPTION_CONNECTION_TIMEOUT, 10u, MHD_OPTION_END);
    if (!h->d) {
        free(h);
        return cz_error(CZ_EIO, "cannot listen on status_listen %s", listen);
    }
    cz_log(CZ_LOG_INFO, "cuzk::status", "HTTP status listening on %s (GET /status, /metrics)", listen);
    *out = h;
    return 0;
}

void cz_http_stop(cz_http_server *h) {
    if (!h) return;
    MHD_stop_daemon(h->d);
    free(h);
}
