/* cuzk-bench: a client of the daemon with cuzk-bench's subcommands and flags (cuzk-spec §4):
 *   single, batch, status, preload, metrics, synth-only, plus evict, cancel and gen-vanilla (ours: synthetic
 *   inputs).
 * Global flags: -a/--addr (default http://127.0.0.1:9820; unix:///path for a socket), --log-level.
 * --vanilla PATH is a JSON array of base64 proofs (one vanilla_proofs entry each), or else the raw file as
 * one proof; --randomness and --comm-r-old / --comm-r-new / --comm-d-new are 64 hex digits (32 bytes); a PoSt
 * request without --randomness carries 32 zero bytes, as cuzk's.
 * Differences from cuzk: PoRep requests take their sector size from --sector-size or from the C1
 * wrapper's SectorSize or a raw C1's registered_proof (cuzk hard-coded 32 GiB), and their sector number and
 * miner from the wrapper's SectorNum and Miner when --sector-num / --miner-id are not given (the daemon
 * refuses a C1 of another sector); `single -t porep` without --c1 sends a fresh synthetic C1
 * (src/filecoin/synth.h) of that size (default 2 KiB) and sector in the Commit2In wrapper; without
 * --registered-proof a request carries the id of its type and sector size (PoRep V1_1, Window PoSt V1_1,
 * Winning PoSt, SnapDeals V1) where cuzk sent 0; gen-vanilla makes synthetic inputs instead of reading a
 * sealed sector (porep: a C1 wrapper; window-post / winning-post / snap-prove: a --vanilla file). */
#include <ctype.h>
#include <grpc/grpc.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/v1/proving.pb-c.h"
#include "cz_error.h"
#include "engine/circuit.h"
#include "engine/engine.h"
#include "engine/log.h"
#include "filecoin/post_inputs.h"
#include "filecoin/sector.h"
#include "r1cs/wcompact.h"
#include "server/client.h"
#include "server/rpc.h"
#include "util/file.h"
#include "util/json.h"
#include "util/version.h"

#define M(x) "/cuzk.v1.ProvingEngine/" x

typedef struct {
    const char *addr, *type, *c1, *vanilla, *circuit, *job, *out;
    const char *sealed, *cache, *comm_r; /* gen-vanilla window-post | winning-post of a sealed sector on disk */
    uint64_t registered_proof, sector_num, miner_id, sector_size;
    uint32_t partition;
    int count, concurrency, count_set, iterations, dense, partition_set, wait, sector_set, miner_set;
    /* 32-byte values given as hex: randomness, comm_r_old, comm_r_new, comm_d_new */
    uint8_t val[4][32];
    int has[4];
} opts;
enum { V_RANDOMNESS, V_COMM_R_OLD, V_COMM_R_NEW, V_COMM_D_NEW };

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int die(const char *fmt, const char *a) {
    fprintf(stderr, "cuzk-bench: ");
    fprintf(stderr, fmt, a);
    fputc('\n', stderr);
    return 1;
}

/* --c1 / --vanilla: a file or a stream (bash's <(...)), refused above the daemon's message limit, which a request
 * holding it could not pass anyway */
static uint8_t *read_file(const char *path, size_t *len) {
    char *b;
    return cz_file_read(path, CZ_RPC_MAX_MESSAGE, &b, len) ? NULL : (uint8_t *)b;
}

/* c1_json.c: the Commit2In wrapper of a synthetic C1 (a consistent StackedDrg vanilla proof, not a
 * sealed sector), as Curio sends it. */
char *cz_bench_c1_wrapper(uint64_t sector_size, uint64_t sector_num, uint64_t miner_id, uint64_t seed);
/* vanilla_json.c: synthetic --vanilla files (JSON arrays of base64 bincode proofs). */
char *cz_bench_post_vanilla_json(unsigned registered, uint64_t sector_size, const uint8_t randomness[32],
                                 uint32_t partition, unsigned count, uint64_t first_sector, uint64_t seed);
char *cz_bench_snap_vanilla_json(uint64_t sector_size, uint64_t seed, uint8_t comm_r_old[32],
                                 uint8_t comm_r_new[32], uint8_t comm_d_new[32], bool *empty);
/* vanilla_json.c: one sector proof of a sealed sector on disk (its replica and cache directory). */
char *cz_bench_post_vanilla_sealed_json(unsigned registered, uint64_t sector_size, const uint8_t randomness[32],
                                        uint32_t partition, uint64_t sector_id, const char *sealed, const char *cache,
                                        const uint8_t *comm_r_want, char *note, size_t note_cap);

static uint64_t fresh_seed(void) {
    uint64_t s = 0;
    FILE *f = fopen("/dev/urandom", "rb");
    if (!f || fread(&s, sizeof s, 1, f) != 1) s = (uint64_t)time(NULL) ^ (uint64_t)clock();
    if (f) fclose(f);
    return s;
}

/* 64 hex digits -> 32 bytes; 0 or -1. */
static int hex32(const char *h, uint8_t out[32]) {
    if (strlen(h) != 64) return -1;
    for (int i = 0; i < 32; i++) {
        unsigned x;
        if (!isxdigit((unsigned char)h[2 * i]) || !isxdigit((unsigned char)h[2 * i + 1]) ||
            sscanf(h + 2 * i, "%2x", &x) != 1)
            return -1;
        out[i] = (uint8_t)x;
    }
    return 0;
}

/* --comm-r: a sealed sector's CID (bagboea4b5abc..., codec 0xf102), 64 hex digits (its 32 bytes little-endian, as
 * --comm-r-old), or a file holding either (lotus-bench's commdr.txt: "d:<CID> r:<CID>"). 0 or a cz_error. */
static int parse_comm_r(const char *v, uint8_t out[32]) {
    char *text = NULL;
    size_t len = 0;
    const char *s = v;
    if (strlen(v) != 64 && strncmp(v, "bagboea", 7)) { /* neither: a file */
        if (cz_file_read(v, 4096, &text, &len)) return cz_error(CZ_EINVAL, "--comm-r: %s", cz_error_message());
        const char *r = strstr(text, "r:");
        s = r ? r + 2 : text;
    }
    while (isspace((unsigned char)*s)) s++;
    size_t n = 0;
    while (s[n] && !isspace((unsigned char)s[n])) n++;
    char h[65];
    int rc = 0;
    uint64_t codec = 0;
    if (n == 64) {
        memcpy(h, s, 64), h[64] = 0;
        if (hex32(h, out)) rc = cz_error(CZ_EINVAL, "--comm-r: '%s' is not 64 hex digits", h);
    } else if (cz_commcid_decode(out, &codec, s, n)) {
        rc = cz_error(CZ_EINVAL, "--comm-r: %s", cz_error_message());
    } else if (codec != 0xf102) {
        rc = cz_error(CZ_EINVAL, "--comm-r: a CID of codec 0x%llx, not a sealed sector's (0xf102)",
                      (unsigned long long)codec);
    }
    free(text);
    return rc;
}

static void print_hex(const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++) printf("%02x", p[i]);
}

/* The registered proof id Curio sends for a kind and sector size (filecoin-ffi numbering): PoRep
 * RegisteredSealProof V1_1 5..9, SnapDeals RegisteredUpdateProof 0..4, Winning PoSt 0..4, Window PoSt
 * V1_1 10..14. 0 for an unknown size (the daemon then names what is wrong). */
static uint64_t registered_of(int kind, uint64_t ss) {
    uint64_t base = kind == CZ_KIND_POREP ? 5 : kind == CZ_KIND_WPOST ? 10 : 0;
    const int i = cz_sector_index(ss);
    return i < 0 ? 0 : base + (uint64_t)i;
}

static int kind_of(const char *t) {
    static const char *const porep[] = {"porep", "porep-c2", "seal-commit"}, *const snap[] = {"snap", "snap-deals", "update"},
                             *const wpost[] = {"wpost", "window-post", "windowpost"},
                             *const win[] = {"winning", "winning-post", "winningpost"};
    for (int i = 0; i < 3; i++) {
        if (!strcmp(t, porep[i])) return CZ_KIND_POREP;
        if (!strcmp(t, snap[i])) return CZ_KIND_SNAP;
        if (!strcmp(t, wpost[i])) return CZ_KIND_WPOST;
        if (!strcmp(t, win[i])) return CZ_KIND_WINNING;
    }
    return 0;
}

static const char *status_name(int s) {
    static const char *const n[] = {"UNKNOWN", "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT"};
    return s >= 0 && s <= 4 ? n[s] : "UNKNOWN";
}

static int call(cz_client *c, const char *method, const uint8_t *req, size_t len, uint64_t timeout_ms, uint8_t **resp,
                size_t *rlen) {
    int st;
    char msg[600];
    if (cz_client_call(c, method, req, len, timeout_ms, resp, rlen, &st, msg, sizeof msg)) {
        fprintf(stderr, "cuzk-bench: %s: %s\n", method, cz_error_message());
        return 1;
    }
    if (st) {
        fprintf(stderr, "cuzk-bench: %s: gRPC status %d: %s\n", method, st, msg);
        return 1;
    }
    return 0;
}

/* A SubmitProofRequest and the buffers it points into. */
typedef struct {
    Cuzk__V1__SubmitProofRequest s;
    uint8_t *file;  /* --c1 / --vanilla contents, or the synthetic C1 */
    uint8_t **dec;  /* decoded entries of a JSON-array --vanilla file */
    size_t ndec;
} submit_buf;

static void submit_free(submit_buf *b) {
    for (size_t i = 0; i < b->ndec; i++) free(b->dec[i]);
    free(b->dec);
    free(b->s.vanilla_proofs);
    free(b->file);
    memset(b, 0, sizeof *b);
}

/* vanilla_proofs from a --vanilla file: a JSON array of base64 strings, one entry each; anything else
 * (not JSON, or JSON of another shape) is one proof, the raw file. */
static int vanilla_entries(submit_buf *b, size_t len, const char *path) {
    Cuzk__V1__SubmitProofRequest *s = &b->s;
    json_t *j = json_loadb((const char *)b->file, len, 0, NULL);
    if (!json_is_array(j) || !json_array_size(j)) {
        json_decref(j);
        s->n_vanilla_proofs = 1;
        if (!(s->vanilla_proofs = malloc(sizeof *s->vanilla_proofs))) return die("%s", "out of memory");
        s->vanilla_proofs[0].data = b->file;
        s->vanilla_proofs[0].len = len;
        return 0;
    }
    size_t n = json_array_size(j);
    s->vanilla_proofs = calloc(n, sizeof *s->vanilla_proofs);
    b->dec = calloc(n, sizeof *b->dec);
    if (!s->vanilla_proofs || !b->dec) {
        json_decref(j);
        return die("%s", "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(j, i);
        size_t dl;
        if (!json_is_string(e) ||
            cz_base64_decode(json_string_value(e), json_string_length(e), &b->dec[i], &dl)) {
            fprintf(stderr, "cuzk-bench: --vanilla %s: entry %zu is not a base64 string\n", path, i);
            json_decref(j);
            return 1;
        }
        b->ndec = i + 1;
        s->vanilla_proofs[i].data = b->dec[i];
        s->vanilla_proofs[i].len = dl;
    }
    s->n_vanilla_proofs = n;
    json_decref(j);
    return 0;
}

/* Builds the SubmitProofRequest for the options; submit_free releases it (also after an error). */
static int build_submit(const opts *o, submit_buf *b) {
    memset(b, 0, sizeof *b);
    Cuzk__V1__SubmitProofRequest *s = &b->s;
    int kind = kind_of(o->type);
    if (!kind) return die("unknown --type '%s' (porep, snap, wpost, winning)", o->type);
    cuzk__v1__submit_proof_request__init(s);
    s->request_id = (char *)"";
    s->proof_kind = (Cuzk__V1__ProofKind)kind;
    s->registered_proof = o->registered_proof;
    s->sector_number = o->sector_num;
    s->miner_id = o->miner_id;
    s->partition_index = o->partition;
    ProtobufCBinaryData *vals[4] = {&s->randomness, &s->comm_r_old, &s->comm_r_new, &s->comm_d_new};
    for (int i = 0; i < 4; i++) /* a PoSt request without --randomness: 32 zero bytes, as cuzk's bench */
        if (o->has[i] || (i == V_RANDOMNESS && (kind == CZ_KIND_WPOST || kind == CZ_KIND_WINNING)))
            vals[i]->data = (uint8_t *)o->val[i], vals[i]->len = 32;
    uint64_t ss = o->sector_size;
    size_t vlen = 0;
    if (kind == CZ_KIND_POREP) {
        if (o->c1) {
            if (!(b->file = read_file(o->c1, &vlen))) return die("--c1: %s", cz_error_message());
            json_t *j = json_loadb((const char *)b->file, vlen, 0, NULL);
            if (!ss && j && json_is_integer(json_object_get(j, "SectorSize")))
                ss = (uint64_t)json_integer_value(json_object_get(j, "SectorSize"));
            /* a raw C1 (PSProve sends one) names its size only in registered_proof: "StackedDrg32GiBV1_1", ... */
            const json_t *rp = j ? json_object_get(j, "registered_proof") : NULL;
            const char *rps = json_is_string(rp) ? json_string_value(rp) : "";
            for (int i = 0; !ss && !strncmp(rps, "StackedDrg", 10) && i < 5; i++)
                if (!strncmp(rps + 10, cz_sector_names[i], strlen(cz_sector_names[i]))) ss = cz_sector_sizes[i];
            /* the daemon checks the C1 against the sector: a wrapper that names it (SectorNum; Miner "f0..." as
             * gpuproxy's and gen-vanilla's) gives what --sector-num / --miner-id do not */
            json_t *sn = j ? json_object_get(j, "SectorNum") : NULL, *mi = j ? json_object_get(j, "Miner") : NULL;
            if (!o->sector_set && json_is_integer(sn) && json_integer_value(sn) >= 0)
                s->sector_number = (uint64_t)json_integer_value(sn);
            const char *ms = json_is_string(mi) ? json_string_value(mi) : "";
            if (!o->miner_set && (ms[0] == 'f' || ms[0] == 't') && ms[1] == '0' && isdigit((unsigned char)ms[2]))
                s->miner_id = strtoull(ms + 2, NULL, 10);
            json_decref(j);
        } else {
            if (!ss) ss = 2048;
            if (!(b->file = (uint8_t *)cz_bench_c1_wrapper(ss, o->sector_num, o->miner_id, fresh_seed())))
                return die("synthetic C1: %s", cz_error_message());
            vlen = strlen((char *)b->file);
        }
        s->vanilla_proof.data = b->file;
        s->vanilla_proof.len = vlen;
    } else {
        if (!o->vanilla) return die("--vanilla PATH is needed for --type %s", o->type);
        if (!(b->file = read_file(o->vanilla, &vlen))) return die("--vanilla: %s", cz_error_message());
        if (vanilla_entries(b, vlen, o->vanilla)) return 1;
        if (!ss) ss = 32ull << 30;
    }
    s->sector_size = ss;
    if (s->registered_proof == UINT64_MAX) s->registered_proof = registered_of(kind, ss);
    return 0;
}

typedef struct {
    int ok;
    Cuzk__V1__AwaitProofResponse *r;
    double wall;
} prove_out;

static int prove_once(cz_client *c, Cuzk__V1__SubmitProofRequest *s, prove_out *out) {
    Cuzk__V1__ProveRequest pr = CUZK__V1__PROVE_REQUEST__INIT;
    pr.submit = s;
    size_t n = cuzk__v1__prove_request__get_packed_size(&pr);
    uint8_t *buf = malloc(n ? n : 1), *resp;
    cuzk__v1__prove_request__pack(&pr, buf);
    size_t rlen;
    double t0 = now_s();
    int rc = call(c, M("Prove"), buf, n, 0, &resp, &rlen);
    out->wall = now_s() - t0;
    free(buf);
    out->r = NULL;
    out->ok = 0;
    if (rc) return rc;
    Cuzk__V1__ProveResponse *r = cuzk__v1__prove_response__unpack(NULL, rlen, resp);
    free(resp);
    if (!r || !r->result) return die("%s", "malformed ProveResponse");
    out->r = r->result;
    r->result = NULL;
    cuzk__v1__prove_response__free_unpacked(r, NULL);
    out->ok = out->r->status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED;
    return 0;
}

static int cmd_single(cz_client *c, const opts *o) {
    submit_buf b;
    prove_out p;
    int rc = build_submit(o, &b) || prove_once(c, &b.s, &p);
    submit_free(&b);
    if (rc) return rc;
    Cuzk__V1__AwaitProofResponse *r = p.r;
    printf("=== Proof Result ===\nstatus: %s\njob_id: %s\n", status_name(r->status), r->job_id);
    if (*r->error_message) printf("error: %s\n", r->error_message);
    printf("timings: total=%llu ms (queue=%llu ms, srs=%llu ms, synth=%llu ms, gpu=%llu ms)\nwall: %.0f ms\n",
           (unsigned long long)r->total_ms, (unsigned long long)r->queue_wait_ms, (unsigned long long)r->srs_load_ms,
           (unsigned long long)r->synthesis_ms, (unsigned long long)r->gpu_compute_ms, p.wall * 1e3);
    printf("proof: %zu bytes\n", r->proof.len);
    size_t show = r->proof.len > 256 ? 128 : r->proof.len;
    for (size_t i = 0; i < show; i++) printf("%02x", r->proof.data[i]);
    printf("%s\n", show < r->proof.len ? "..." : "");
    int ok = p.ok;
    cuzk__v1__await_proof_response__free_unpacked(r, NULL);
    return ok ? 0 : 1;
}

typedef struct {
    cz_client *c;
    const opts *o;
    pthread_mutex_t mu;
    int next, done, completed, failed;
    double prove_sum, prove_min, prove_max, wall_sum, wall_min, wall_max, t0;
} batch_state;

static void *batch_worker(void *arg) {
    batch_state *b = arg;
    for (;;) {
        pthread_mutex_lock(&b->mu);
        int i = b->next++;
        pthread_mutex_unlock(&b->mu);
        if (i >= b->o->count) return NULL;
        submit_buf sb;
        prove_out p = {0};
        int rc = build_submit(b->o, &sb) || prove_once(b->c, &sb.s, &p);
        submit_free(&sb);
        pthread_mutex_lock(&b->mu);
        b->done++;
        double prove = p.r ? p.r->gpu_compute_ms / 1e3 : 0;
        if (!rc && p.ok) {
            b->completed++;
            b->prove_sum += prove, b->wall_sum += p.wall;
            if (b->completed == 1 || prove < b->prove_min) b->prove_min = prove;
            if (prove > b->prove_max) b->prove_max = prove;
            if (b->completed == 1 || p.wall < b->wall_min) b->wall_min = p.wall;
            if (p.wall > b->wall_max) b->wall_max = p.wall;
        } else {
            b->failed++;
        }
        printf("[%d/%d] %s — %.1fs (prove=%llu ms, queue=%llu ms)%s%s  [elapsed %.1fs]\n", b->done, b->o->count,
               rc ? "ERROR" : status_name(p.r->status), p.wall, p.r ? (unsigned long long)p.r->gpu_compute_ms : 0ull,
               p.r ? (unsigned long long)p.r->queue_wait_ms : 0ull, p.r && *p.r->error_message ? " " : "",
               p.r ? p.r->error_message : "", now_s() - b->t0);
        fflush(stdout);
        pthread_mutex_unlock(&b->mu);
        if (p.r) cuzk__v1__await_proof_response__free_unpacked(p.r, NULL);
    }
}

static char *metrics_text(cz_client *c);
static double metric(const char *text, const char *name);

/* Where the batch's pipeline waited, from the daemon's counters before and after it (daemon-wide: other jobs
 * meanwhile count too): each GPU's busy share of the batch's wall time, and the kind's partitions' synthesis and
 * their wait for the prover. A share well below 1 with short waits: the CPUs do not keep the GPU fed. */
static void batch_pipeline(const char *m0, const char *m1, double wall, int kind) {
    static const char busy[] = "cuzk_gpu_busy_seconds_total{ordinal=\"";
    for (const char *p = strstr(m1, busy); p; p = strstr(p + 1, busy)) {
        char name[96], parts[96];
        const int ord = atoi(p + sizeof busy - 1);
        snprintf(name, sizeof name, "%s%d\"}", busy, ord);
        snprintf(parts, sizeof parts, "cuzk_gpu_partitions_total{ordinal=\"%d\"}", ord);
        const double s = metric(m1, name) - metric(m0, name), n = metric(m1, parts) - metric(m0, parts);
        if (metric(m0, name) >= 0 && wall > 0)
            printf("gpu %d: busy %.1f %% of the batch (%.1fs of %.1fs), %.0f partitions\n", ord, 100 * s / wall, s, wall,
                   n);
    }
    if (kind < 1 || kind > 4) return;
    const char *label = cz_kind_label(kind);
    char sum[128], cnt[128], wsum[128], wcnt[128];
    snprintf(sum, sizeof sum, "cuzk_partition_synthesis_seconds_sum{proof_kind=\"%s\"}", label);
    snprintf(cnt, sizeof cnt, "cuzk_partition_synthesis_seconds_count{proof_kind=\"%s\"}", label);
    snprintf(wsum, sizeof wsum, "cuzk_partition_prover_wait_seconds_sum{proof_kind=\"%s\"}", label);
    snprintf(wcnt, sizeof wcnt, "cuzk_partition_prover_wait_seconds_count{proof_kind=\"%s\"}", label);
    const double ns = metric(m1, cnt) - metric(m0, cnt), nw = metric(m1, wcnt) - metric(m0, wcnt);
    if (metric(m0, cnt) < 0 || ns <= 0 || nw <= 0) return;
    printf("partitions (%s): %.0f synthesized, avg %.0f ms; avg wait for the prover %.0f ms\n", label, ns,
           1e3 * (metric(m1, sum) - metric(m0, sum)) / ns, 1e3 * (metric(m1, wsum) - metric(m0, wsum)) / nw);
}

static int cmd_batch(cz_client *c, const opts *o) {
    batch_state b;
    memset(&b, 0, sizeof b);
    b.c = c, b.o = o;
    pthread_mutex_init(&b.mu, NULL);
    int j = o->concurrency > 0 ? o->concurrency : 1;
    pthread_t *t = calloc((size_t)j, sizeof *t);
    char *m0 = metrics_text(c); /* NULL (an older daemon, an error): no pipeline lines */
    b.t0 = now_s();
    for (int i = 0; i < j; i++) pthread_create(&t[i], NULL, batch_worker, &b);
    for (int i = 0; i < j; i++) pthread_join(t[i], NULL);
    free(t);
    double total = now_s() - b.t0;
    char *m1 = m0 ? metrics_text(c) : NULL;
    printf("=== Batch Summary ===\ntotal time: %.1fs\ncompleted: %d, failed: %d\n", total, b.completed, b.failed);
    if (b.completed) {
        printf("wall: avg=%.1fs min=%.1fs max=%.1fs\nprove: avg=%.1fs min=%.1fs max=%.1fs\n", b.wall_sum / b.completed,
               b.wall_min, b.wall_max, b.prove_sum / b.completed, b.prove_min, b.prove_max);
        printf("throughput: %.2f proofs/min (%.2fs/proof)\n", b.completed * 60.0 / total, total / b.completed);
    }
    if (m0 && m1) batch_pipeline(m0, m1, total, kind_of(o->type));
    free(m0), free(m1);
    return b.failed ? 1 : 0;
}

static int cmd_status(cz_client *c) {
    Cuzk__V1__GetStatusRequest rq = CUZK__V1__GET_STATUS_REQUEST__INIT;
    uint8_t buf[16], *resp;
    size_t n = cuzk__v1__get_status_request__pack(&rq, buf), rlen;
    if (call(c, M("GetStatus"), buf, n, 5000, &resp, &rlen)) return 1;
    Cuzk__V1__GetStatusResponse *r = cuzk__v1__get_status_response__unpack(NULL, rlen, resp);
    free(resp);
    if (!r) return die("%s", "malformed GetStatusResponse");
    printf("=== cuzk status ===\nuptime: %llus\nproofs: %llu completed, %llu failed\npinned: %llu / %llu bytes\n",
           (unsigned long long)r->uptime_seconds, (unsigned long long)r->total_proofs_completed,
           (unsigned long long)r->total_proofs_failed, (unsigned long long)r->pinned_memory_bytes,
           (unsigned long long)r->pinned_memory_limit_bytes);
    printf("GPUs:%s\n", r->n_gpus ? "" : " none (CPU backend)");
    for (size_t i = 0; i < r->n_gpus; i++) {
        Cuzk__V1__GPUStatus *g = r->gpus[i];
        printf("  [%u] %s — %llu/%llu MiB — %s%s%s%.8s%s\n", g->ordinal, g->name,
               (unsigned long long)(g->vram_free_bytes >> 20), (unsigned long long)(g->vram_total_bytes >> 20),
               *g->current_job_id ? "proving " : "idle", g->current_proof_kind, *g->current_job_id ? " (" : "",
               g->current_job_id, *g->current_job_id ? ")" : "");
    }
    printf("SRS:%s\n", r->n_loaded_srs ? "" : " none loaded");
    static const char *const tiers[] = {"hot", "warm", "cold"};
    for (size_t i = 0; i < r->n_loaded_srs; i++)
        printf("  %s — %s — %.1f MiB — refs %u\n", r->loaded_srs[i]->circuit_id,
               tiers[r->loaded_srs[i]->tier <= 2 ? r->loaded_srs[i]->tier : 0], r->loaded_srs[i]->size_bytes / 1048576.0,
               r->loaded_srs[i]->ref_count);
    printf("queues:%s\n", r->n_queues ? "" : " empty");
    for (size_t i = 0; i < r->n_queues; i++)
        printf("  %s — pending %u, in progress %u\n", r->queues[i]->proof_kind, r->queues[i]->pending,
               r->queues[i]->in_progress);
    cuzk__v1__get_status_response__free_unpacked(r, NULL);
    return 0;
}

/* The daemon's /metrics text (GetMetrics), malloc'ed; NULL with the error printed. */
static char *metrics_text(cz_client *c) {
    uint8_t *resp;
    size_t rlen;
    if (call(c, M("GetMetrics"), (const uint8_t *)"", 0, 5000, &resp, &rlen)) return NULL;
    Cuzk__V1__GetMetricsResponse *r = cuzk__v1__get_metrics_response__unpack(NULL, rlen, resp);
    free(resp);
    if (!r) {
        die("%s", "malformed GetMetricsResponse");
        return NULL;
    }
    char *t = strdup(r->prometheus_text ? r->prometheus_text : "");
    cuzk__v1__get_metrics_response__free_unpacked(r, NULL);
    return t;
}

/* A sample's value in a metrics text (name with its labels, as written); -1 when absent. */
static double metric(const char *text, const char *name) {
    const size_t n = strlen(name);
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        if (!strncmp(p, name, n) && p[n] == ' ') return strtod(p + n + 1, NULL);
    return -1;
}

/* the daemon's PreloadSRS build counts (engine.c cz_engine_metrics) */
#define M_BUILDS "cuzk_preload_prover_builds"
#define M_READY "cuzk_preload_prover_builds_total{result=\"ready\"}"
#define M_FAILED "cuzk_preload_prover_builds_total{result=\"failed\"}"

/* preload --wait: polls the daemon's preload build counts until none is under way; prints what this call's builds
 * came to (the counts' change: builds another caller started meanwhile count too). 0 when all were built. */
static int wait_builds(cz_client *c, const char *circuit, double ready0, double failed0) {
    const double t0 = now_s();
    for (;;) {
        char *t = metrics_text(c);
        if (!t) return 1;
        const double run = metric(t, M_BUILDS), ok = metric(t, M_READY), bad = metric(t, M_FAILED);
        free(t);
        if (run < 0) { /* no GPU backend: nothing is built ahead */
            printf("%s: no GPU prover to build (the daemon proves on the CPU)\n", circuit);
            return 0;
        }
        if (run == 0) {
            const double r = ok - (ready0 > 0 ? ready0 : 0), f = bad - (failed0 > 0 ? failed0 : 0);
            printf("%s: GPU provers built %.0f, not built %.0f (%.1f s%s)\n", circuit, r, f, now_s() - t0,
                   f > 0 ? "; the daemon's log says why" : "");
            return f > 0 ? 1 : 0;
        }
        struct timespec ts = {0, 500 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

static int cmd_srs(cz_client *c, const opts *o, int evict) {
    if (!o->circuit) return die("%s", "-c/--circuit-id is needed");
    uint8_t *resp, buf[512];
    size_t rlen, n;
    if (evict) {
        Cuzk__V1__EvictSrsRequest rq = CUZK__V1__EVICT_SRS_REQUEST__INIT;
        rq.circuit_id = (char *)o->circuit;
        n = cuzk__v1__evict_srs_request__pack(&rq, buf);
        if (call(c, M("EvictSRS"), buf, n, 0, &resp, &rlen)) return 1;
        Cuzk__V1__EvictSrsResponse *r = cuzk__v1__evict_srs_response__unpack(NULL, rlen, resp);
        free(resp);
        if (!r) return die("%s", "malformed EvictSrsResponse");
        if (r->was_loaded) printf("%s evicted, %llu bytes freed\n", o->circuit, (unsigned long long)r->freed_bytes);
        else printf("%s was not loaded\n", o->circuit);
        cuzk__v1__evict_srs_response__free_unpacked(r, NULL);
        return 0;
    }
    double ready0 = -1, failed0 = -1; /* --wait: the build counts before the call */
    if (o->wait) {
        char *t = metrics_text(c);
        if (!t) return 1;
        ready0 = metric(t, M_READY), failed0 = metric(t, M_FAILED);
        free(t);
    }
    Cuzk__V1__PreloadSrsRequest rq = CUZK__V1__PRELOAD_SRS_REQUEST__INIT;
    rq.circuit_id = (char *)o->circuit;
    n = cuzk__v1__preload_srs_request__pack(&rq, buf);
    if (call(c, M("PreloadSRS"), buf, n, 0, &resp, &rlen)) return 1;
    Cuzk__V1__PreloadSrsResponse *r = cuzk__v1__preload_srs_response__unpack(NULL, rlen, resp);
    free(resp);
    if (!r) return die("%s", "malformed PreloadSrsResponse");
    if (r->already_loaded) printf("%s already loaded\n", o->circuit);
    else printf("%s loaded in %llu ms\n", o->circuit, (unsigned long long)r->load_time_ms);
    cuzk__v1__preload_srs_response__free_unpacked(r, NULL);
    fflush(stdout);
    return o->wait ? wait_builds(c, o->circuit, ready0, failed0) : 0;
}

static int cmd_metrics(cz_client *c) {
    char *t = metrics_text(c);
    if (!t) return 1;
    fputs(t, stdout);
    free(t);
    return 0;
}

static int cmd_cancel(cz_client *c, const opts *o) {
    if (!o->job) return die("%s", "--job-id is needed");
    Cuzk__V1__CancelProofRequest rq = CUZK__V1__CANCEL_PROOF_REQUEST__INIT;
    rq.job_id = (char *)o->job;
    uint8_t buf[600], *resp;
    size_t n = cuzk__v1__cancel_proof_request__pack(&rq, buf), rlen;
    if (call(c, M("CancelProof"), buf, n, 5000, &resp, &rlen)) return 1;
    Cuzk__V1__CancelProofResponse *r = cuzk__v1__cancel_proof_response__unpack(NULL, rlen, resp);
    free(resp);
    if (!r) return die("%s", "malformed CancelProofResponse");
    printf("%s cancelled (%s)\n", o->job, r->was_running ? "was running" : "was queued or done");
    cuzk__v1__cancel_proof_response__free_unpacked(r, NULL);
    return 0;
}

/* synth-only: the daemon's synthesis in this process, no daemon involved (cuzk's synth-only, any kind): the
 * request is built as for `single`, prepared by its circuit's hooks (the C1 or vanilla proofs parsed and
 * verified, as at submit) and its partitions' witnesses synthesized (--partition P: that one only; for PoSt it
 * is the request's partition_index, as in `single`), compact
 * where the circuit has that form unless --dense, as the daemon does by default; it also prints the aux values' mix
 * (0 / 1 / other: what the GPU adds as bits and what goes to full-scalar MSMs). */
static int cmd_synth_only(const opts *o) {
    submit_buf b;
    if (build_submit(o, &b)) {
        submit_free(&b);
        return 1;
    }
    const Cuzk__V1__SubmitProofRequest *ps = &b.s;
    const uint8_t **vp = calloc(ps->n_vanilla_proofs + 1, sizeof *vp);
    size_t *vl = calloc(ps->n_vanilla_proofs + 1, sizeof *vl);
    for (size_t i = 0; vp && vl && i < ps->n_vanilla_proofs; i++)
        vp[i] = ps->vanilla_proofs[i].data, vl[i] = ps->vanilla_proofs[i].len;
    cz_submit s = {0};
    s.request_id = "synth-only", s.kind = ps->proof_kind, s.sector_size = ps->sector_size;
    s.registered_proof = ps->registered_proof, s.vanilla = ps->vanilla_proof.data, s.vanilla_len = ps->vanilla_proof.len;
    s.n_vanillas = ps->n_vanilla_proofs, s.vanillas = vp, s.vanilla_lens = vl;
    s.sector_number = ps->sector_number, s.miner_id = ps->miner_id, s.partition_index = ps->partition_index;
    s.randomness = ps->randomness.data, s.randomness_len = ps->randomness.len;
    s.comm_r_old = ps->comm_r_old.data, s.comm_r_old_len = ps->comm_r_old.len;
    s.comm_r_new = ps->comm_r_new.data, s.comm_r_new_len = ps->comm_r_new.len;
    s.comm_d_new = ps->comm_d_new.data, s.comm_d_new_len = ps->comm_d_new.len;
    const cz_circuit *c = NULL;
    int rc = !vp || !vl ? die("%s", "out of memory") : 0;
    if (!rc && cz_circuit_for_request(s.kind, s.sector_size, false, &c))
        rc = die("%s", cz_error_message());
    int iters = o->iterations > 0 ? o->iterations : 1;
    double sum_wall = 0, sum_synth = 0;
    for (int it = 0; !rc && it < iters; it++) {
        double t0 = now_s(), synth = 0;
        void *state = NULL;
        if (c->prepare(c, &s, &state)) {
            rc = die("prepare: %s", cz_error_message());
            break;
        }
        uint32_t parts = c->partitions_of ? c->partitions_of(c, state) : c->partitions;
        /* --partition picks a PoRep / Snap partition; a PoSt request's is its partition_index (one circuit) */
        bool pick = o->partition_set && s.kind != CZ_KIND_WPOST && s.kind != CZ_KIND_WINNING;
        uint32_t first = pick ? o->partition : 0, last = pick ? o->partition + 1 : parts;
        if (first >= parts) {
            fprintf(stderr, "cuzk-bench: --partition %u: %s has %u partition(s)\n", first, c->id, parts);
            c->release(c, state);
            rc = 1;
            break;
        }
        uint64_t ni = 0, na = 0, bytes = 0, nbit = 0, none = 0; /* aux values that are 0 or 1, and 1 */
        bool compact = !o->dense && c->synthesize_compact;
        for (uint32_t k = first; !rc && k < last; k++) {
            cz_fr *in = NULL, *aux = NULL;
            uint64_t n_in = 0, n_aux = 0;
            cz_wcompact w;
            cz_wcompact_init(&w);
            double t1 = now_s();
            int r = compact ? c->synthesize_compact(c, state, k, &in, &n_in, &w)
                            : c->synthesize(c, state, k, &in, &n_in, &aux, &n_aux);
            synth += now_s() - t1;
            if (r) rc = die("synthesis: %s", cz_error_message());
            if (!r && compact) {
                n_aux = w.n, bytes += cz_wcompact_bytes(&w);
                for (uint64_t q = 0; q < (w.n + 63) / 64; q++)
                    nbit += (uint64_t)__builtin_popcountll(w.is_bit[q]), none += (uint64_t)__builtin_popcountll(w.bit[q]);
            } else if (!r) {
                bytes += n_aux * sizeof(cz_fr);
                for (uint64_t q = 0; q < n_aux; q++) {
                    const bool zero = cz_fr_is_zero(&aux[q]), one = cz_fr_equal(&aux[q], &CZ_FR_ONE_V);
                    nbit += zero || one, none += one;
                }
            }
            ni += n_in, na += n_aux;
            free(in), free(aux);
            cz_wcompact_free(&w);
        }
        c->release(c, state);
        if (rc) break;
        double wall = now_s() - t0;
        sum_wall += wall, sum_synth += synth;
        const double pct = na ? 100.0 / (double)na : 0;
        printf("[%d] wall=%.0f ms synth=%.0f ms circuits=%u circuit=%s inputs=%llu aux=%llu witness=%s %.1f MB "
               "aux 0/1/other=%.1f/%.1f/%.1f %%\n", it, wall * 1e3, synth * 1e3, last - first, c->id,
               (unsigned long long)ni, (unsigned long long)na, compact ? "compact" : "dense", bytes / 1e6,
               (double)(nbit - none) * pct, (double)none * pct, (double)(na - nbit) * pct);
    }
    if (!rc)
        printf("average over %d: wall=%.0f ms synth=%.0f ms\n", iters, sum_wall * 1e3 / iters, sum_synth * 1e3 / iters);
    free(vp), free(vl);
    submit_free(&b);
    return rc;
}

static int write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (!f) return die("cannot write %s", path);
    int bad = fputs(text, f) < 0;
    bad |= fclose(f) != 0;
    return bad ? die("cannot write %s", path) : 0;
}

/* gen-vanilla porep | window-post | winning-post | snap-prove (synthetic inputs, see the top). */
static int gen_vanilla(const opts *o, const char *sub) {
    uint64_t ss = o->sector_size ? o->sector_size : 2048;
    if (!sub) sub = "";
    if (!strcmp(sub, "porep")) {
        char *c1 = cz_bench_c1_wrapper(ss, o->sector_num, o->miner_id, fresh_seed());
        if (!c1) return die("synthetic C1: %s", cz_error_message());
        const char *path = o->out ? o->out : "c1.json";
        int rc = write_text(path, c1);
        free(c1);
        if (!rc) {
            printf("wrote %s (synthetic %llu-byte-sector C1 of miner f0%llu's sector %llu in the Commit2In wrapper: "
                   "consistent vanilla proofs of a CC sector, not a sealed one)\n", path, (unsigned long long)ss,
                   (unsigned long long)o->miner_id, (unsigned long long)o->sector_num);
            printf("submit: cuzk-bench single -t porep --c1 %s --sector-num %llu --miner-id %llu\n", path,
                   (unsigned long long)o->sector_num, (unsigned long long)o->miner_id);
        }
        return rc;
    }
    int wpost = !strcmp(sub, "window-post"), winning = !strcmp(sub, "winning-post");
    if (wpost || winning) {
        int kind = wpost ? CZ_KIND_WPOST : CZ_KIND_WINNING;
        uint64_t reg = o->registered_proof == UINT64_MAX ? registered_of(kind, ss) : o->registered_proof;
        uint8_t rnd[32];
        if (o->has[V_RANDOMNESS]) {
            memcpy(rnd, o->val[V_RANDOMNESS], 32);
        } else { /* a fresh field element, byte 31 masked as Curio does */
            uint64_t w[4] = {fresh_seed(), fresh_seed(), fresh_seed(), fresh_seed()};
            memcpy(rnd, w, 32);
            rnd[31] &= 0x3f;
        }
        if (rnd[31] & 0xc0) return die("%s", "--randomness is not a field element (byte 31 must be masked with 0x3f)");
        unsigned count = o->count_set ? (unsigned)o->count : 1;
        const bool disk = o->sealed || o->cache; /* a sealed sector on disk: its one sector proof */
        uint8_t cr[32];
        if (disk && (!o->sealed || !o->cache))
            return die("%s", "gen-vanilla: --sealed FILE and --cache DIR go together");
        if (disk && count != 1) return die("%s", "gen-vanilla: one sector proof from --sealed (no -c)");
        if (o->comm_r && parse_comm_r(o->comm_r, cr)) return die("%s", cz_error_message());
        char note[200] = "";
        const double t0 = now_s();
        char *js = reg > 0xffffffffu ? NULL
                   : disk ? cz_bench_post_vanilla_sealed_json((unsigned)reg, ss, rnd, winning ? 0 : o->partition,
                                                              o->sector_num, o->sealed, o->cache,
                                                              o->comm_r ? cr : NULL, note, sizeof note)
                          : cz_bench_post_vanilla_json((unsigned)reg, ss, rnd, winning ? 0 : o->partition, count,
                                                       o->sector_num, fresh_seed());
        if (!js) return die("gen-vanilla: %s", reg > 0xffffffffu ? "bad --registered-proof" : cz_error_message());
        const char *path = o->out ? o->out : wpost ? "wpost-vanilla.json" : "winning-vanilla.json";
        int rc = write_text(path, js);
        free(js);
        if (rc) return rc;
        const char *what = wpost ? "Window PoSt" : "Winning PoSt";
        if (disk)
            printf("wrote %s (the %s sector proof of sector %llu, sealed %s, in %.2f s; %s%s)\n", path, what,
                   (unsigned long long)o->sector_num, o->sealed, now_s() - t0, note,
                   o->comm_r ? "; comm_r checked" : "; comm_r not checked: no --comm-r");
        else
            printf("wrote %s (%u synthetic %s sector proof(s), %llu-byte sectors, registered_proof %llu)\n", path,
                   count, what, (unsigned long long)ss, (unsigned long long)reg);
        printf("submit: cuzk-bench single -t %s --sector-size %llu --registered-proof %llu --partition %u --vanilla %s "
               "--randomness ", wpost ? "wpost" : "winning", (unsigned long long)ss, (unsigned long long)reg,
               winning ? 0 : o->partition, path);
        print_hex(rnd, 32);
        printf("\n");
        return 0;
    }
    if (!strcmp(sub, "snap-prove")) {
        uint8_t ro[32], rn[32], dn[32];
        bool empty;
        char *js = cz_bench_snap_vanilla_json(ss, fresh_seed(), ro, rn, dn, &empty);
        if (!js) return die("gen-vanilla: %s", cz_error_message());
        const char *path = o->out ? o->out : "snap-vanilla.json";
        int rc = write_text(path, js);
        free(js);
        if (rc) return rc;
        printf("wrote %s (the partition proofs of a synthetic updated %llu-byte sector%s)\n", path,
               (unsigned long long)ss, empty ? ", its new data all zeros" : "");
        printf("submit: cuzk-bench single -t snap --sector-size %llu --registered-proof %llu --vanilla %s",
               (unsigned long long)ss, (unsigned long long)registered_of(CZ_KIND_SNAP, ss), path);
        const uint8_t *v[3] = {ro, rn, dn};
        static const char *const name[3] = {"comm-r-old", "comm-r-new", "comm-d-new"};
        for (int i = 0; i < 3; i++) {
            printf(" --%s ", name[i]);
            print_hex(v[i], 32);
        }
        printf("\n");
        return 0;
    }
    return die("gen-vanilla: porep, window-post, winning-post or snap-prove; got '%s'", sub);
}

static void usage(FILE *f) {
    fprintf(f, "usage: cuzk-bench [-a ADDR] [--log-level L] [-V|--version] <command> [flags]\n"
               "  single  -t/--type porep|snap|wpost|winning [--c1 PATH] [--vanilla PATH] [--registered-proof N]\n"
               "          [--sector-num N] [--miner-id N] [--partition N] [--sector-size BYTES] [--randomness HEX]\n"
               "          [--comm-r-old HEX] [--comm-r-new HEX] [--comm-d-new HEX]\n"
               "  batch   (single's flags) -c/--count N (3) -j/--concurrency N (1)\n"
               "  status | metrics | preload -c ID [--wait] | evict -c ID | cancel --job-id ID\n"
               "          (--wait: until the GPU provers the preload builds in the background are ready)\n"
               "  synth-only (single's flags) [-i/--iterations N (1)] [--dense]   (synthesis in this process, no daemon)\n"
               "  gen-vanilla porep [--sector-size 2048] [--sector-number N] [--miner-id N] [-o c1.json]\n"
               "          (a synthetic C1 wrapper of that sector)\n"
               "  gen-vanilla window-post|winning-post [--sector-size 2048] [--registered-proof N] [--randomness HEX]\n"
               "          [--partition K] [-c N sectors (1)] [--sector-number FIRST] [-o wpost-vanilla.json]\n"
               "          [--sealed FILE --cache DIR [--comm-r CID|HEX|commdr.txt]]   (a sealed sector on disk: its\n"
               "          replica and cache directory, p_aux and the tree-r-last .dat files; --sector-number its id)\n"
               "  gen-vanilla snap-prove [--sector-size 2048] [-o snap-vanilla.json]   (synthetic updated sector; above\n"
               "          8 MiB an empty update: its new data all zeros)\n"
               "          (each prints the `single` command that submits what it wrote)\n"
               "  ADDR: http://host:port (default http://127.0.0.1:9820) or unix:///path\n");
}

int main(int argc, char **argv) {
    opts o = {0};
    o.addr = "http://127.0.0.1:9820";
    o.type = "porep";
    o.sector_num = 1, o.miner_id = 1000, o.count = 3, o.concurrency = 1;
    o.registered_proof = UINT64_MAX; /* not given: the V1_1 seal proof of the sector size */
    const char *cmd = NULL, *sub = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define OPT(s, l) (!strcmp(a, s) || !strcmp(a, l))
#define NEED() \
    if (!v) return die("%s needs a value", a); \
    i++
        if (OPT("-h", "--help")) {
            usage(stdout);
            return 0;
        } else if (OPT("-V", "--version")) {
            printf("cuzk-bench %s\n", cz_version_line());
            return 0;
        } else if (OPT("-a", "--addr")) { NEED(); o.addr = v; }
        else if (!strcmp(a, "--log-level")) { /* this process's own log (synth-only, gen-vanilla), as the daemon's */
            NEED();
            if (cz_log_set_level(v)) return die("--log-level: %s", cz_error_message());
        }
        else if (OPT("-t", "--type")) { NEED(); o.type = v; }
        else if (!strcmp(a, "--c1")) { NEED(); o.c1 = v; }
        else if (!strcmp(a, "--vanilla")) { NEED(); o.vanilla = v; }
        else if (!strcmp(a, "--registered-proof")) { NEED(); o.registered_proof = strtoull(v, NULL, 0); }
        else if (OPT("--sector-num", "--sector-number")) {
            NEED();
            o.sector_num = strtoull(v, NULL, 0), o.sector_set = 1;
        }
        else if (!strcmp(a, "--miner-id")) { NEED(); o.miner_id = strtoull(v, NULL, 0); o.miner_set = 1; }
        else if (!strcmp(a, "--partition")) { NEED(); o.partition = (uint32_t)strtoul(v, NULL, 0); o.partition_set = 1; }
        else if (OPT("-i", "--iterations")) { NEED(); o.iterations = atoi(v); }
        else if (!strcmp(a, "--dense")) o.dense = 1;
        else if (!strcmp(a, "--wait")) o.wait = 1;
        else if (!strcmp(a, "--sector-size")) { NEED(); o.sector_size = strtoull(v, NULL, 0); }
        else if (!strcmp(a, "--randomness") || !strcmp(a, "--comm-r-old") || !strcmp(a, "--comm-r-new") ||
                 !strcmp(a, "--comm-d-new")) {
            NEED();
            int k = !strcmp(a, "--randomness") ? V_RANDOMNESS : !strcmp(a, "--comm-r-old") ? V_COMM_R_OLD
                    : !strcmp(a, "--comm-r-new") ? V_COMM_R_NEW : V_COMM_D_NEW;
            if (hex32(v, o.val[k])) return die("%s needs 64 hex digits (32 bytes)", a);
            o.has[k] = 1;
        }
        else if (!strcmp(a, "--job-id")) { NEED(); o.job = v; }
        else if (!strcmp(a, "--sealed")) { NEED(); o.sealed = v; }
        else if (!strcmp(a, "--cache")) { NEED(); o.cache = v; }
        else if (!strcmp(a, "--comm-r")) { NEED(); o.comm_r = v; }
        else if (!strcmp(a, "-o")) { NEED(); o.out = v; }
        else if (OPT("-j", "--concurrency")) { NEED(); o.concurrency = atoi(v); }
        else if (OPT("-c", "--count") || !strcmp(a, "--circuit-id")) {
            NEED();
            if (cmd && (!strcmp(cmd, "preload") || !strcmp(cmd, "evict")) ) o.circuit = v;
            else o.count = atoi(v), o.count_set = 1;
        } else if (a[0] == '-') {
            fprintf(stderr, "cuzk-bench: unknown flag %s\n", a);
            usage(stderr);
            return 2;
        } else if (!cmd) cmd = a;
        else if (!sub) sub = a;
        else return die("unexpected argument %s", a);
    }
    if (!cmd) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(cmd, "gen-vanilla")) return gen_vanilla(&o, sub);
    if (!strcmp(cmd, "synth-only")) return cmd_synth_only(&o);
    grpc_init();
    cz_client *c;
    if (cz_client_open(&c, o.addr)) return die("%s", cz_error_message());
    int rc;
    if (!strcmp(cmd, "single")) rc = cmd_single(c, &o);
    else if (!strcmp(cmd, "batch")) rc = cmd_batch(c, &o);
    else if (!strcmp(cmd, "status")) rc = cmd_status(c);
    else if (!strcmp(cmd, "preload")) rc = cmd_srs(c, &o, 0);
    else if (!strcmp(cmd, "evict")) rc = cmd_srs(c, &o, 1);
    else if (!strcmp(cmd, "metrics")) rc = cmd_metrics(c);
    else if (!strcmp(cmd, "cancel")) rc = cmd_cancel(c, &o);
    else {
        usage(stderr);
        rc = 2;
    }
    cz_client_close(c);
    grpc_shutdown();
    return rc;
}
