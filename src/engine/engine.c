/* The engine (engine.h). One mutex guards jobs and queues; heavy work (SRS load, synthesis, proving,
 * verification) runs outside it. Flow of a job:
 *   submit -> scheduler heap (priority, FIFO) -> dispatcher (acquires the SRS, when synthesis needs
 *   work: pipeline.synthesis_lookahead jobs ahead; a load waits until the SRS fits in the memory budget,
 *   srs_fits, while jobs whose SRS is loaded may pass it for a while, pass_blocked; the load itself runs on a
 *   thread of its own, loader_main, while jobs whose SRS is loaded go on, next_job) -> synthesis workers
 *   take partitions of the best running job, charging the memory budget their witness -> bounded prover
 *   queue ordered (priority, job, partition) -> prover workers (one device lock per device; the CPU
 *   backend is one device) charge the rest of partition_mem and run start()
 *   -> finalizer: finish(), verify against the vk, place the 192 bytes -> job COMPLETED when all
 *   partitions verified, FAILED on the first failure, CANCELLED when cancelled (at partition boundaries).
 * Witnesses: a circuit that can write its witness compact (PoRep: bits packed, engine/witness.h) does so
 * when synthesis.compact_witness is on, and the partition waits in the queue and goes to the backend in
 * that form (GPU: uploaded as is and expanded on the device; CPU: expanded for its start() only).
 * Lost GPUs: when start() fails and the backend says the device can no longer be used (device_lost: a broken
 * CUDA context), the device goes out of service (its workers end), and the partition goes back to the queue
 * for another device, once; with every device lost, unfinished jobs fail and submit refuses new ones. */
#include "engine/engine.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "cz_error.h"
#include "engine/backend.h"
#include "engine/circuit.h"
#include "engine/log.h"
#include "engine/sched.h"
#include "engine/srs.h"
#include "engine/witness.h"
#include "util/version.h"

#define MAX_PARTS CZ_MAX_PARTITIONS
#define RETENTION_MS (10 * 60 * 1000)
#define RETAIN_MAX 4096
#define SUMMARY_N 1000
#define T "cuzk::engine"

enum { JQ = 0, JD, JR, JF }; /* queued, dispatching (SRS), running, finished */

/* Why a submit was refused, for cuzk_requests_rejected_total: the request itself (bad input, a payload that does
 * not verify), no parameter file, a kind or size not proved here, the daemon busy (max_pending), the request_id
 * running with another payload, the daemon unable (shutting down, no usable GPU), anything else. */
static const char *const REJECT_NAMES[] = {"invalid", "no_params", "unsupported", "busy", "duplicate_id",
                                           "unavailable", "other"};
#define REJECT_REASONS (int)(sizeof REJECT_NAMES / sizeof REJECT_NAMES[0])
static int reject_reason(int rc) {
    switch (rc) {
    case CZ_EINVAL: case CZ_EFORMAT: case CZ_ERANGE: case CZ_ECURVE: case CZ_ESUBGROUP: case CZ_EVERIFY: return 0;
    case CZ_ENOPARAMS: return 1;
    case CZ_EUNSUPPORTED: return 2;
    case CZ_EFULL: return 3;
    case CZ_EEXIST: return 4;
    case CZ_ESHUTDOWN: case CZ_EDEVICE: return 5;
    default: return 6;
    }
}

/* A thread of the engine's own beside its workers, joined by reap(): PreloadSRS's prover builds (warm) and SRS
 * loads (loader). Each of their structs starts with one. */
typedef struct bg_thread {
    pthread_t th;
    bool done; /* under e->mu: its work has ended, done being its last step */
    struct bg_thread *next;
} bg_thread;

typedef struct job {
    char id[CZ_JOB_ID_MAX];
    int kind, prio, state, status;
    uint64_t seq, vhash;
    void *cstate; /* the circuit's parsed request (prepare), released when the job finishes */
    bool abandon_cancels; /* created by a Prove call */
    const cz_circuit *circ;
    cz_srs_entry *srs;
    uint32_t parts, next_part, inflight, done_parts;
    bool cancel, failed;
    char err[512];
    uint8_t *proof;
    char part_state[MAX_PARTS];
    uint64_t part_synth[MAX_PARTS], part_gpu[MAX_PARTS], part_wbytes[MAX_PARTS];
    uint64_t wbytes; /* witness bytes of the partitions synthesized so far */
    bool wcompact;   /* they were compact */
    uint64_t t_submit, t_dispatch, t_done, srs_load_ms, synth_ms, gpu_ms;
    bool srs_seeded;
    uint64_t srs_wait_since; /* its SRS load has waited for memory since then (0: it has not) */
    uint64_t srs_wait_need;  /* the bytes that load needs (cz_srs_needs_load), while it waits */
    bool holds_lower;        /* logged: lower-priority partitions wait for its SRS load */
    int waiters;
    struct job *next;
} job;

typedef struct part {
    job *j;
    uint32_t idx;
    cz_witness w;
    uint64_t mem;   /* bytes of the budget this partition holds */
    uint64_t wheld; /* witness bytes it adds to e->witness_held (until its start() returns) */
    bool proving;   /* its charge was topped up for start(): counted in e->proving until it is released */
    void *pending;
    uint64_t synth_ms, t_start;
    uint64_t t_synth; /* when its synthesis ended: its wait for start() is counted from here (wait_ms) */
    int worker;
    bool retried;     /* requeued once after its start() failed on a lost device */
    bool oom_retried; /* requeued once after its start() ran out of device memory */
    struct part *next;
} part;

typedef struct {
    bool busy;
    char job[CZ_JOB_ID_MAX];
    int kind, partition;
    uint64_t since;
} worker_slot;

/* A GPU of the backend. lost is written holding the device's turn and the engine lock, so either one reads
 * it: a worker waiting for the turn sees the loss before it would start on the broken context. The turn
 * (turn, waiting: under the engine lock) is the device's lock around start(): among the workers waiting
 * for it, one of the highest priority goes first. */
typedef struct {
    bool turn;                             /* a worker is in start() on it */
    uint32_t waiting[CZ_PRIO_CRITICAL + 1]; /* workers waiting for the turn, by their partition's priority */
    bool lost;
    char why[256];
    uint64_t since;
    char name[160]; /* described at start: a lost device is not asked again */
    /* partitions' start()s run on it (their device region: uploads and kernels) and their time, the one under way
     * (busy_since, 0 when none) not yet in busy_ms (status, /metrics cuzk_gpu_busy_seconds_total) */
    uint64_t starts, busy_ms, busy_since;
} dev_state;

struct cz_engine {
    cz_config cfg;
    cz_backend be;
    cz_srs_mgr srs;
    pthread_mutex_t mu;
    dev_state *devs;             /* one per GPU device */
    int n_lost;
    uint64_t retries;     /* partitions requeued after their device was lost */
    uint64_t oom_retries; /* partitions requeued after their start() ran out of device memory */
    uint64_t yields;  /* partitions put back while waiting for a device's turn, for one that outranks them */
    /* srs.release_resident_bases: callers of turns_take_all waiting for every device's turn (workers wait behind
     * them), and the SRS bases released / restored so far (status, tests) */
    int turn_claims;
    uint64_t bases_released, bases_restored;
    /* PreloadSRS's GPU prover builds (warm_main: a thread a device, joined once done or at the stop), and how many
     * ended ready / not ready (status) */
    bg_thread *warms, *loaders; /* PreloadSRS's prover builds; SRS loads (a job's, off the dispatcher) */
    uint64_t warm_ready, warm_failed;
    char nogpu[512];  /* with every device lost: why no job can prove ("no usable GPU: ..."; a job's error) */
    void (*all_lost_fn)(void *); /* cz_engine_on_all_lost */
    void *all_lost_arg;
    pthread_cond_t cv_work, cv_gpu, cv_space, cv_fin, cv_done, cv_turn; /* cv_turn: a device's turn or the queue */
    pthread_cond_t cv_pool; /* synthesis workers waiting for a thread of the pool (synth_gate) */
    cz_sched queue;
    job *jobs;
    part *gq, *fq, *fq_tail;
    uint32_t gq_len, gq_cap;
    int gpu_idle; /* prover workers waiting for a partition */
    uint64_t next_seq, t_start;
    uint64_t budget_total, budget_used;
    uint64_t budget_peak;  /* the most budget_used + held_bytes() have been */
    uint64_t staged;       /* the prover workers' page-locked staging buffers (cz_witness_stage), in the budget */
    uint32_t proving;      /* partitions holding their start() charge (from the top-up to their release) */
    uint32_t synth_waiting[CZ_PRIO_CRITICAL + 1]; /* synthesis workers waiting for budget, by their job's priority */
    const cz_circuit *circ_for_test[5]; /* cz_engine_set_circuit_for_test, by kind */
    uint64_t retention_ms;              /* finished jobs kept this long (RETENTION_MS; tests shorten it) */
    size_t retain_max;                  /* and at most this many (RETAIN_MAX) */
    bool compact; /* synthesis.compact_witness (CUZK_COMPACT_WITNESS overrides) */
    uint64_t witness_held; /* witness bytes of synthesized partitions not yet through start() */
    uint32_t wheld_parts;  /* and how many partitions hold them */
    uint32_t pending;      /* partitions through start() and not yet through finish() (pending handles) */
    uint64_t parts_synth[2], wbytes_synth[2]; /* [dense, compact]: partitions synthesized, their witness bytes */
    /* by kind: partitions synthesized and their synthesis time; partitions whose start() began and their wait for
     * it from their synthesis's end (a worker, the prover's build, the device's turn) */
    uint64_t synth_n_k[5], synth_ms_k[5], started_k[5], wait_ms_k[5];
    bool shutting, stop;
    int n_synth, n_gpu, n_fin, synth_active, per_dev;
    /* The synthesis threads (synthesis.threads; synth_team): each partition's synthesis takes its share of the pool
     * as its OpenMP team and gives it back at its end (synth_share: CUZK_SYNTH_SHARE=0 turns it off, A/B only). */
    int synth_pool, synth_free;
    bool synth_share, synth_depth; /* synth_depth: depth first while the devices run dry (CUZK_SYNTH_DEPTH=0: off) */
    bool load_inline; /* CUZK_SRS_LOAD_INLINE=1: SRS loads on the dispatcher thread, holding up the queue (A/B) */
    pthread_t dispatcher, *synth, *gpu, *fin;
    worker_slot *slots;
    uint64_t completed, failed, cancelled, completed_k[5], failed_k[5];
    uint64_t rejected[5][REJECT_REASONS]; /* submits refused, by kind (0: none of 1..4) and reject_reason() */
    double dur[5][SUMMARY_N];
    uint32_t dur_n[5], dur_i[5];
    bool corrupt_for_test;
};

const char *cz_kind_name(int k) {
    static const char *n[] = {"unknown", "porep-c2", "snap-update", "window-post", "winning-post"};
    return k >= 0 && k <= 4 ? n[k] : "unknown";
}
const char *cz_kind_label(int k) {
    static const char *n[] = {"unknown", "porep_c2", "snap_update", "window_post", "winning_post"};
    return k >= 0 && k <= 4 ? n[k] : "unknown";
}

int cz_effective_priority(int kind, int p) {
    if (p == CZ_PRIO_UNSPECIFIED)
        return kind == CZ_KIND_WINNING ? CZ_PRIO_CRITICAL : kind == CZ_KIND_WPOST ? CZ_PRIO_HIGH : CZ_PRIO_NORMAL;
    return p >= CZ_PRIO_LOW && p <= CZ_PRIO_CRITICAL ? p : CZ_PRIO_NORMAL;
}

static uint64_t hash_bytes(const uint8_t *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h ^ n;
}

static void uuid4(char out[37]) {
    uint8_t b[16] = {0};
    int fd = open("/dev/urandom", O_RDONLY);
    if (fd < 0 || read(fd, b, 16) != 16) {
        uint64_t t = cz_now_ms() ^ (uint64_t)(uintptr_t)out;
        memcpy(b, &t, 8);
    }
    if (fd >= 0) close(fd);
    b[6] = (b[6] & 0x0f) | 0x40, b[8] = (b[8] & 0x3f) | 0x80;
    snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2], b[3],
             b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

/* ---- job completion (engine lock held) ---- */

static void finish_job(cz_engine *e, job *j, int status, const char *msg) {
    if (j->state == JF) return;
    j->state = JF;
    j->status = status;
    j->t_done = cz_now_ms();
    if (msg && !j->err[0]) snprintf(j->err, sizeof j->err, "%s", msg);
    if (j->srs) {
        cz_srs_release(&e->srs, j->srs);
        j->srs = NULL;
    }
    if (j->cstate) j->circ->release(j->circ, j->cstate);
    j->cstate = NULL;
    if (status != CZ_JOB_COMPLETED) {
        free(j->proof);
        j->proof = NULL;
    }
    int k = j->kind;
    double secs = (j->t_done - j->t_submit) / 1000.0;
    if (status == CZ_JOB_COMPLETED) {
        e->completed++, e->completed_k[k]++;
        e->dur[k][e->dur_i[k]] = secs;
        e->dur_i[k] = (e->dur_i[k] + 1) % SUMMARY_N;
        if (e->dur_n[k] < SUMMARY_N) e->dur_n[k]++;
        cz_log(CZ_LOG_INFO, T, "proof completed job_id=%s kind=%s partitions=%u total_ms=%llu witness=%s "
               "witness_bytes=%llu%s", j->id, cz_kind_name(k), j->parts, (unsigned long long)(j->t_done - j->t_submit),
               j->wcompact ? "compact" : "dense", (unsigned long long)j->wbytes,
               j->circ && j->circ->is_test ? " circuit=TEST (porep-2k-test)" : j->srs_seeded ? " (seeded SRS)" : "");
    } else if (status == CZ_JOB_FAILED) {
        e->failed++, e->failed_k[k]++;
        cz_log(CZ_LOG_WARN, T, "proof failed job_id=%s kind=%s: %s", j->id, cz_kind_name(k), j->err);
    } else {
        e->cancelled++;
        cz_log(CZ_LOG_INFO, T, "proof cancelled job_id=%s kind=%s", j->id, cz_kind_name(k));
    }
    pthread_cond_broadcast(&e->cv_done);
    pthread_cond_broadcast(&e->cv_work); /* the dispatcher may have room now */
}

/* The time ms milliseconds from now on clock (a condition variable's deadline). */
static struct timespec deadline_in(clockid_t clock, uint64_t ms) {
    struct timespec dl;
    clock_gettime(clock, &dl);
    dl.tv_sec += (time_t)(ms / 1000);
    dl.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (dl.tv_nsec >= 1000000000L) dl.tv_sec++, dl.tv_nsec -= 1000000000L;
    return dl;
}

/* Waits on cv (initialised with the default, realtime clock) for at most ms milliseconds. */
static void cv_wait_ms(pthread_cond_t *cv, pthread_mutex_t *mu, long ms) {
    const struct timespec dl = deadline_in(CLOCK_REALTIME, (uint64_t)ms);
    pthread_cond_timedwait(cv, mu, &dl);
}

static void maybe_complete(cz_engine *e, job *j) {
    if (j->state != JR || j->inflight) return;
    if (j->failed) finish_job(e, j, CZ_JOB_FAILED, NULL);
    else if (j->done_parts == j->parts) finish_job(e, j, CZ_JOB_COMPLETED, NULL);
    else if (j->cancel) finish_job(e, j, CZ_JOB_CANCELLED, "cancelled");
}

/* With e->mu held. A worker waiting for its device's turn with one of j's partitions lets it go now (cv_turn), not
 * after the start() in progress (up to a partition's device work: ~0.8 s at 32 GiB). */
static void fail_job(cz_engine *e, job *j, const char *fmt, const char *detail, uint32_t p) {
    if (!j->failed) snprintf(j->err, sizeof j->err, fmt, p, detail);
    j->failed = true;
    pthread_cond_broadcast(&e->cv_turn);
}

/* A partition's whole charge (partition_mem, capped by the budget): what it holds from start() on. */
static uint64_t budget_charge(const cz_engine *e, const job *j) {
    return j->circ->partition_mem < e->budget_total ? j->circ->partition_mem : e->budget_total;
}

/* What it holds while it is synthesized: witness-only synthesis holds little but the witness it writes
 * (docs/perf.md, 0318edd: a 32 GiB PoRep partition's synthesis peaks at 4.07 GB of RSS dense, 93 MB
 * compact, against a 14 GiB partition_mem); a/b/c and the prover's working memory come in start(). The
 * dense size (from the loaded R1CS) is charged, since a compact witness's size is known only at the end. */
static uint64_t synth_charge(const job *j, uint64_t full) {
    uint64_t dense = (j->srs->r1cs.num_inputs + j->srs->r1cs.num_aux) * (uint64_t)sizeof(cz_fr);
    return dense < full ? dense : full;
}

static void budget_release(cz_engine *e, uint64_t m) {
    e->budget_used -= m;
    pthread_cond_broadcast(&e->cv_work);
}

/* A partition's whole charge goes back (finished or dropped). */
static void part_release(cz_engine *e, part *p) {
    if (p->proving) e->proving--;
    p->proving = false;
    budget_release(e, p->mem);
}

/* With e->mu held: p's witness no longer counts as held (its start() returned, or it is dropped). */
static void witness_unheld(cz_engine *e, part *p) {
    e->witness_held -= p->wheld;
    if (p->wheld) e->wheld_parts--, p->wheld = 0;
}

static void drop_part(cz_engine *e, part *p, const char *why) {
    job *j = p->j;
    if (p->pending) e->be.discard(&e->be, p->pending);
    cz_witness_free(&p->w);
    witness_unheld(e, p);
    j->part_state[p->idx] = 'f';
    j->inflight--;
    part_release(e, p);
    cz_log(CZ_LOG_DEBUG, T, "partition dropped job_id=%s partition=%u (%s)", j->id, p->idx, why);
    free(p);
    maybe_complete(e, j);
}

/* ---- lost devices ---- */

static bool dev_lost(const cz_engine *e, int dev) { return e->be.ndevices > 0 && e->devs[dev].lost; }

static int dev_ordinal(const cz_engine *e, int dev) { return e->be.ordinals ? e->be.ordinals[dev] : dev; }

static bool no_gpu(const cz_engine *e) { return e->be.ndevices > 0 && e->n_lost == e->be.ndevices; }

/* Every device lost: nothing will prove again, so every unfinished job fails now (running ones as their
 * partitions in flight drain; the queued partitions are dropped) instead of waiting forever. */
static void fail_all_no_gpu(cz_engine *e) {
    size_t o =
        (size_t)snprintf(e->nogpu, sizeof e->nogpu, "no usable GPU: all %d devices lost (", e->be.ndevices);
    for (int d = 0; d < e->be.ndevices && o < sizeof e->nogpu; d++)
        o += (size_t)snprintf(e->nogpu + o, sizeof e->nogpu - o, "%sdevice %d, ordinal %d: %s", d ? "; " : "",
                              d, dev_ordinal(e, d), e->devs[d].why);
    if (o < sizeof e->nogpu) snprintf(e->nogpu + o, sizeof e->nogpu - o, ")");
    cz_log(CZ_LOG_ERROR, T, "%s; every unfinished job fails, new jobs are refused", e->nogpu);
    for (job *j = e->jobs; j; j = j->next) {
        if (j->state == JQ) {
            cz_sched_remove(&e->queue, j);
            finish_job(e, j, CZ_JOB_FAILED, e->nogpu);
        } else if (j->state != JF) {
            if (!j->failed) snprintf(j->err, sizeof j->err, "%s", e->nogpu);
            j->failed = true;
            maybe_complete(e, j);
        }
    }
    while (e->gq) {
        part *p = e->gq;
        e->gq = p->next;
        e->gq_len--;
        drop_part(e, p, "no usable GPU");
    }
    pthread_cond_broadcast(&e->cv_space);
    pthread_cond_broadcast(&e->cv_work);
    pthread_cond_broadcast(&e->cv_turn);
    if (e->all_lost_fn) e->all_lost_fn(e->all_lost_arg);
}

/* With the device's lock and the engine lock held. */
static void lose_device(cz_engine *e, int dev, const char *why) {
    dev_state *d = &e->devs[dev];
    if (d->lost) return;
    d->lost = true, d->since = cz_now_ms();
    snprintf(d->why, sizeof d->why, "%s", why);
    e->n_lost++;
    if (!no_gpu(e))
        cz_log(CZ_LOG_ERROR, T, "GPU device %d (ordinal %d) lost: %s; out of service, its partitions go to the "
               "other %d device(s)", dev, dev_ordinal(e, dev), d->why, e->be.ndevices - e->n_lost);
    else
        cz_log(CZ_LOG_ERROR, T, "GPU device %d (ordinal %d) lost: %s; no device is left", dev,
               dev_ordinal(e, dev), d->why);
    pthread_cond_broadcast(&e->cv_gpu); /* its idle workers end */
    if (no_gpu(e)) fail_all_no_gpu(e);
}

/* ---- dispatcher: queued job -> running (SRS acquired) ---- */

/* Jobs of priority >= prio that hold the SRS (or, with loading, are loading it) and still have partitions to
 * admit: the synthesis lookahead counts only these, so a job more urgent than all of them is dispatched (and its
 * SRS loaded) at once instead of after the last partition of a NORMAL job has gone to synthesis. A job whose SRS
 * is loaded does not count the jobs still loading theirs (they give synthesis nothing to do yet): it goes at once,
 * its SRS taken at once, while they load (spec bug #7); a job that would load or wait for a load counts them, so
 * the loads under way are at most the lookahead's per priority. */
static uint32_t jobs_with_parts_left(cz_engine *e, int prio, bool loading) {
    uint32_t n = 0;
    for (job *j = e->jobs; j; j = j->next)
        n += j->prio >= prio && ((loading && j->state == JD) ||
                                 (j->state == JR && j->next_part < j->parts && !j->cancel && !j->failed));
    return n;
}

/* WindowPoSt and WinningPoSt (HIGH and CRITICAL by default) have minutes and seconds to be done: for them an
 * idle SRS is evicted at once rather than after memory.eviction_min_idle. */
static bool urgent(int prio) {
    return prio >= CZ_PRIO_HIGH;
}

static uint64_t min_idle_ms(const cz_engine *e, int prio) {
    return urgent(prio) ? 0 : e->cfg.eviction_min_idle_s * 1000;
}

/* Host memory outside the SRS: the prover workers' staging buffers and what the backend's provers hold of their
 * own (cz_backend.host_bytes: a GPU prover's matrices in host memory, 3.6-6.8 GB at 32 GiB, page-locked; a
 * Lagrange-form prover's fold at its creation, ~3.5 GB at 32 GiB, for the while). */
static uint64_t backend_host(cz_engine *e) { return e->be.host_bytes ? e->be.host_bytes(&e->be) : 0; }
static uint64_t locked_bytes(cz_engine *e) { return e->staged + backend_host(e); }

/* The budget held beside the partitions in flight (budget_used): the loaded SRS, the SRS being loaded, and
 * locked_bytes(). None counts as a partition in flight for the rules that let a lone partition or SRS go
 * whatever the budget (budget_used == 0). */
static uint64_t held_bytes(cz_engine *e) { return cz_srs_loaded_bytes(&e->srs) + locked_bytes(e); }

/* The budget's high-water mark (status, tests): partitions in flight and held_bytes(). */
static void note_peak(cz_engine *e) {
    uint64_t now = e->budget_used + held_bytes(e);
    if (now > e->budget_peak) e->budget_peak = now;
}

/* Whether j's SRS may be acquired now. Already HOT: yes (no memory added). Otherwise its load (*need bytes,
 * cz_srs_needs_load's estimate) must fit in the budget beside the loaded SRS and the partitions in flight;
 * idle SRS (memory.eviction_min_idle) are evicted to make room, but only when that makes it fit. When
 * nothing is in flight and every loaded SRS could go, it loads even if it alone exceeds the budget (the rule
 * budget_fits has for a lone partition), so a job never waits for memory nobody will release. */
static bool srs_room(cz_engine *e, const cz_circuit *c, uint64_t need, uint64_t min_idle, const char *who) {
    uint64_t srs = cz_srs_loaded_bytes(&e->srs), want = e->budget_used + srs + locked_bytes(e) + need;
    if (want <= e->budget_total) return true;
    if (cz_srs_make_room(&e->srs, want - e->budget_total, min_idle) >= want - e->budget_total) return true;
    if (e->budget_used || cz_srs_make_room(&e->srs, srs, min_idle) < srs) return false;
    cz_log(CZ_LOG_WARN, T, "SRS for %s (%llu bytes) is larger than the memory budget (%llu bytes): loading it "
           "alone (memory.total_budget is too small for this proof kind) %s", c->id, (unsigned long long)need,
           (unsigned long long)e->budget_total, who);
    return true;
}

static bool srs_fits(cz_engine *e, const job *j, uint64_t *need) {
    if (!cz_srs_needs_load(&e->srs, j->circ, need)) return true;
    char who[CZ_JOB_ID_MAX + 8];
    snprintf(who, sizeof who, "job_id=%s", j->id);
    return srs_room(e, j->circ, *need, min_idle_ms(e, j->prio), who);
}

/* Whether a new partition of a job of priority prio must wait because a more urgent queued job waits for
 * memory for its SRS: partitions in flight finish and give their memory back within about one partition's
 * time, and none of lower priority may take it again meanwhile (spec bug #5: a CRITICAL WinningPoSt must not
 * wait behind NORMAL partitions). Only while that load could fit beside the SRS that running jobs hold
 * (cz_srs_pinned_bytes; idle ones can be evicted), or nothing is pinned (the lone-SRS rule then loads it
 * once nothing is in flight): otherwise the load waits for those jobs to finish, and holding their
 * partitions back would deadlock. */
static bool yield_to_srs_waiter(cz_engine *e, int prio) {
    uint64_t pinned = UINT64_MAX;
    for (size_t i = 0; i < e->queue.n; i++) {
        job *w = e->queue.h[i].item;
        if (!w->srs_wait_since || w->prio <= prio) continue;
        if (pinned == UINT64_MAX) pinned = cz_srs_pinned_bytes(&e->srs);
        if (pinned && pinned + locked_bytes(e) + w->srs_wait_need > e->budget_total) continue;
        if (!w->holds_lower)
            cz_log(CZ_LOG_INFO, T, "new partitions of jobs of priority < %d wait until the SRS of job_id=%s (circuit "
                   "%s, %llu bytes) loads; partitions in flight finish", w->prio, w->id, w->circ->id,
                   (unsigned long long)w->srs_wait_need);
        w->holds_lower = true;
        return true;
    }
    return false;
}

/* While the head of the queue waits for memory for its SRS, queued jobs of the same priority whose SRS is
 * loaded (they add no SRS memory) may go ahead of it, oldest first, for memory.eviction_min_idle; after that
 * nobody passes it, so the loaded SRS goes idle, is evicted and the head loads: a stream of small jobs cannot
 * starve it. Jobs of lower priority never pass it (the head is the queue's most urgent job, so none of higher
 * priority is queued): a WinningPoSt does not wait while PoRep jobs take the memory its SRS needs. */
static job *pass_blocked(cz_engine *e, const job *head, uint64_t now) {
    if (now - head->srs_wait_since >= e->cfg.eviction_min_idle_s * 1000) return NULL;
    job *best = NULL;
    for (size_t i = 0; i < e->queue.n; i++) {
        job *q = e->queue.h[i].item;
        if (q == head || q->prio < head->prio || (best && q->seq > best->seq)) continue;
        if (!cz_srs_needs_load(&e->srs, q->circ, NULL)) best = q;
    }
    return best;
}

/* With e->mu held: joins and frees the ended threads of a list (all = every one: the engine's stop, waiting for
 * them). */
static void reap(cz_engine *e, bg_thread **head, bool all) {
    for (bg_thread **pb = head; *pb;) {
        bg_thread *b = *pb;
        if (!b->done && !all) {
            pb = &b->next;
            continue;
        }
        while (!b->done) pthread_cond_wait(&e->cv_done, &e->mu);
        *pb = b->next;
        pthread_join(b->th, NULL); /* it has ended: done is its last step */
        free(b);
    }
}

/* j's SRS acquired (rc 0: s, after ms of loading) or not (rc, why): the job runs, or ends. Engine lock held. */
static void dispatched(cz_engine *e, job *j, int rc, const char *why, cz_srs_entry *s, uint64_t ms) {
    note_peak(e);
    j->t_dispatch = cz_now_ms();
    j->srs_load_ms = ms;
    j->state = JR;
    if (rc == CZ_ECANCELED && e->shutting) {
        finish_job(e, j, CZ_JOB_CANCELLED, "daemon shutting down (its SRS load stopped)");
    } else if (rc) {
        finish_job(e, j, CZ_JOB_FAILED, why);
    } else {
        j->srs = s;
        j->srs_seeded = s->seeded;
        if (j->circ->is_test)
            cz_log(CZ_LOG_INFO, T, "job %s uses the built-in TEST circuit %s until the real circuit lands", j->id,
                   j->circ->id);
        maybe_complete(e, j); /* cancelled while the SRS loaded */
    }
    pthread_cond_broadcast(&e->cv_work);
    pthread_cond_broadcast(&e->cv_pool); /* a job above NORMAL passes the pool's gate */
}

/* j's SRS acquired, loading it when needed, outside the engine lock; returns with the lock held. */
static void acquire_srs(cz_engine *e, job *j) {
    cz_srs_entry *s = NULL;
    uint64_t ms = 0;
    int rc = cz_srs_acquire(&e->srs, j->circ, &s, &ms);
    char why[512];
    snprintf(why, sizeof why, "SRS load for %s failed: %s", j->circ->id, rc ? cz_error_message() : "");
    pthread_mutex_lock(&e->mu);
    dispatched(e, j, rc, why, s, ms);
}

typedef struct loader {
    bg_thread bg;
    cz_engine *e;
    job *j; /* JD until its SRS is acquired */
} loader;

static void *loader_main(void *arg) {
    loader *l = arg;
    cz_engine *e = l->e;
    cz_timeline("SRS_LOAD", l->j->id, "circuit=%s", l->j->circ->id); /* or the wait for a load under way */
    acquire_srs(e, l->j);
    l->bg.done = true;
    pthread_cond_broadcast(&e->cv_done);
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* The job to dispatch next, NULL to wait: the queue's head, unless the lookahead holds it; then the most urgent,
 * oldest queued job whose SRS is loaded and that the lookahead lets go (the jobs loading their SRS do not count
 * for it): while the head waits for loads under way, such a job keeps synthesis and the devices busy. The count
 * walks every job kept (finished ones too, up to RETAIN_MAX) and the dispatcher asks at every wake-up: it is
 * taken once per priority, not once per queued job. */
static job *next_job(cz_engine *e, uint32_t ahead) {
    if (!e->queue.n) return NULL;
    job *head = cz_sched_peek(&e->queue)->item, *best = NULL;
    if (jobs_with_parts_left(e, head->prio, !cz_srs_hot(&e->srs, head->circ)) < ahead) return head;
    int64_t running[CZ_PRIO_CRITICAL + 1] = {-1, -1, -1, -1, -1}; /* jobs_with_parts_left(p, false), when asked */
    for (size_t i = 0; i < e->queue.n; i++) {
        job *q = e->queue.h[i].item;
        if (q == head || (best && (q->prio < best->prio || (q->prio == best->prio && q->seq > best->seq)))) continue;
        if (q->prio < 0 || q->prio > CZ_PRIO_CRITICAL || !cz_srs_hot(&e->srs, q->circ)) continue;
        if (running[q->prio] < 0) running[q->prio] = jobs_with_parts_left(e, q->prio, false);
        if (running[q->prio] < (int64_t)ahead) best = q;
    }
    return best;
}

static void *dispatcher_main(void *arg) {
    cz_engine *e = arg;
    uint32_t ahead = e->cfg.synthesis_lookahead ? e->cfg.synthesis_lookahead : 1;
    pthread_mutex_lock(&e->mu);
    for (;;) {
        job *j = NULL;
        while (!e->stop && !(j = next_job(e, ahead))) pthread_cond_wait(&e->cv_work, &e->mu);
        if (e->stop) break;
        uint64_t need = 0, now = cz_now_ms();
        const job *first = cz_sched_peek(&e->queue)->item;
        if (j != first || srs_fits(e, j, &need)) {
            if (j != first) /* its SRS loaded: nothing to wait for */
                cz_log(CZ_LOG_DEBUG, T, "job_id=%s (circuit %s, SRS loaded) goes while job_id=%s waits for SRS "
                       "loads", j->id, j->circ->id, first->id);
            cz_sched_remove(&e->queue, j);
            if (j->srs_wait_since) {
                cz_timeline("SRS_READY", j->id, "circuit=%s,waited_ms=%llu", j->circ->id,
                            (unsigned long long)(now - j->srs_wait_since));
                cz_log(CZ_LOG_INFO, T, "SRS load no longer waits for memory job_id=%s circuit=%s waited_ms=%llu",
                       j->id, j->circ->id, (unsigned long long)(now - j->srs_wait_since));
            }
        } else {
            job *head = j;
            head->srs_wait_need = need;
            if (!head->srs_wait_since) {
                head->srs_wait_since = now;
                uint64_t srs = cz_srs_loaded_bytes(&e->srs);
                cz_timeline("SRS_WAIT", head->id, "circuit=%s,srs_bytes=%llu,loaded_bytes=%llu,budget_used=%llu,"
                            "budget=%llu", head->circ->id, (unsigned long long)need, (unsigned long long)srs,
                            (unsigned long long)e->budget_used, (unsigned long long)e->budget_total);
                cz_log(CZ_LOG_INFO, T, "SRS load waits for memory job_id=%s circuit=%s priority=%d srs_bytes=%llu "
                       "loaded_bytes=%llu budget_used=%llu total_budget=%llu (%s; queued jobs of lower priority "
                       "wait behind it)", head->id, head->circ->id, head->prio,
                       (unsigned long long)need, (unsigned long long)srs, (unsigned long long)e->budget_used,
                       (unsigned long long)e->budget_total,
                       urgent(head->prio) ? "idle SRS are evicted at once for it"
                                          : "idle SRS are evicted after memory.eviction_min_idle");
            }
            if (!(j = pass_blocked(e, head, now))) {
                /* Woken by a release; the timeout lets an idle SRS age into evictability. */
                cv_wait_ms(&e->cv_work, &e->mu, 200);
                continue;
            }
            need = 0;
            cz_sched_remove(&e->queue, j);
            cz_log(CZ_LOG_INFO, T, "job_id=%s (circuit %s, SRS loaded) goes ahead of job_id=%s waiting for memory",
                   j->id, j->circ->id, head->id);
        }
        j->state = JD;
        /* counted as loaded from now on, so that partitions admitted while it loads leave it room */
        if (need) (void)cz_srs_reserve(&e->srs, j->circ, need); /* ENOMEM: the acquire fails too */
        note_peak(e);
        reap(e, &e->loaders, false);
        cz_srs_entry *s = NULL;
        if (cz_srs_try_acquire(&e->srs, j->circ, &s)) {
            dispatched(e, j, 0, NULL, s, 0);
            continue;
        }
        /* A load, or the wait for one under way, on a thread of its own: the dispatcher goes on meanwhile with
         * jobs whose SRS is loaded, or more urgent ones (spec bug #7: a 32 GiB PoRep's SRS load, 20-70 s, held up
         * every job queued behind it, a WinningPoSt among them; jobs_with_parts_left). */
        loader *l = e->load_inline ? NULL : calloc(1, sizeof *l);
        if (l) *l = (loader){{.next = e->loaders}, e, j};
        if (l && !pthread_create(&l->bg.th, NULL, loader_main, l)) {
            e->loaders = &l->bg;
            continue;
        }
        free(l); /* no thread (or CUZK_SRS_LOAD_INLINE=1): loaded here, as before */
        pthread_mutex_unlock(&e->mu);
        acquire_srs(e, j);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* ---- synthesis workers ---- */

static job *pick_job(cz_engine *e) {
    job *best = NULL;
    for (job *j = e->jobs; j; j = j->next) {
        if (j->state != JR || j->cancel || j->failed || j->next_part >= j->parts) continue;
        if (!best || j->prio > best->prio || (j->prio == best->prio && j->seq < best->seq)) best = j;
    }
    return best;
}

/* A partition fits when the budget holds its whole charge next to the partitions in flight and the loaded
 * SRS (it takes only synth_charge now; the room left keeps one start()'s top-up possible); when it does not,
 * unreferenced SRS idle for memory.eviction_min_idle are evicted (LRU) to make room. The first partition in
 * flight always proceeds, so a job whose own SRS fills the budget still runs. */
static bool budget_fits(cz_engine *e, const job *j) {
    uint64_t m = budget_charge(e, j);
    if (e->budget_used == 0) return true;
    uint64_t want = e->budget_used + held_bytes(e) + m;
    if (want <= e->budget_total) return true;
    uint64_t freed = cz_srs_evict_idle(&e->srs, want - e->budget_total, min_idle_ms(e, j->prio));
    return want - freed <= e->budget_total;
}

/* Whether a synthesis worker waits for budget for a job of priority above prio. */
static bool synth_waits_above(const cz_engine *e, int prio) {
    for (int q = prio + 1; q <= CZ_PRIO_CRITICAL; q++)
        if (e->synth_waiting[q]) return true;
    return false;
}

static void gq_insert(cz_engine *e, part *p) {
    part **pp = &e->gq;
    while (*pp) {
        job *a = (*pp)->j, *b = p->j;
        bool p_first = b->prio != a->prio ? b->prio > a->prio : b->seq != a->seq ? b->seq < a->seq : p->idx < (*pp)->idx;
        if (p_first) break;
        pp = &(*pp)->next;
    }
    p->next = *pp;
    *pp = p;
    e->gq_len++;
    pthread_cond_broadcast(&e->cv_turn); /* a worker waiting for its device's turn may take it instead */
}

/* Whether the GPU queue holds a partition of lower priority than prio (its tail: the queue is by priority). */
static bool gq_below(const cz_engine *e, int prio) {
    const part *q = e->gq;
    while (q && q->next) q = q->next;
    return q && q->j->prio < prio;
}

/* With e->mu held: whether a partition that outranks prio waits in the GPU queue with no worker idle to take it (a
 * worker waiting for device dev's turn, or for its prover's build, then gives it its place). */
static bool outranked(const cz_engine *e, int dev, int prio) {
    return !e->stop && !e->devs[dev].lost && !e->gpu_idle && e->gq && e->gq->j->prio > prio;
}

/* Whether a worker of priority above prio waits for device dev's turn. */
static bool turn_waits_above(const cz_engine *e, int dev, int prio) {
    for (int q = prio + 1; q <= CZ_PRIO_CRITICAL; q++)
        if (e->devs[dev].waiting[q]) return true;
    return false;
}

/* With e->mu held, j's next partition picked: the OpenMP team its synthesis gets from the pool of synthesis
 * threads (cz_sched_synth_team). While the devices run dry (fewer partitions synthesizing or queued than twice the
 * devices in service) it goes depth first: the partition a device waits for takes the free threads, so a lone
 * proof's first partition is on the GPU after one synthesis at full width. Else the partitions starting now (this
 * one, and up to the idle workers' worth of j's not yet picked) share the free threads evenly; the first ones take
 * the remainder. Before the pool, each ran an OpenMP team of every core: ten at once put ~160 threads on the H200
 * host's 16 cores, and the GPU workers' host threads, which launch the kernels and wait on them, lost the CPU for tens
 * of ms (docs/perf.md: +18 ms in the partition beside such a burst, +157 ms with 160 busy threads in the bench).
 * CUZK_SYNTH_DEPTH=0 turns the depth-first part off (A/B only). */
static int synth_team(cz_engine *e, const job *j) {
    if (!e->synth_share) return 0;
    const uint32_t left = j->parts - j->next_part; /* after this one */
    int idle = e->n_synth - e->synth_active;       /* workers not in a synthesis, this one among them */
    int want = (int)(left + 1 < (uint32_t)idle ? left + 1 : (uint32_t)idle);
    if (want < 1) want = 1;
    const int ndev = e->be.ndevices > 0 ? e->be.ndevices - e->n_lost : 1;
    /* the even split alone: as many partitions ahead as can never be "dry" */
    const int ahead = e->synth_depth ? e->synth_active + (int)e->gq_len : INT_MAX / 2;
    return cz_sched_synth_team(e->synth_free, want, ahead, ndev);
}

/* With e->mu held: whether j's next partition waits for a thread of the synthesis pool. A synthesis starts only
 * with a thread free, except one of a job above NORMAL (a Winning or Window PoSt): it starts at once with a team of
 * one, the pool over by one until a thread comes back, rather than wait for a PoRep burst's partitions (seconds). */
static bool synth_gate(const cz_engine *e, const job *j) {
    return e->synth_share && e->synth_free < 1 && j->prio <= CZ_PRIO_NORMAL;
}

static void *synth_main(void *arg) {
    cz_engine *e = arg;
    pthread_mutex_lock(&e->mu);
    for (;;) {
        job *j = NULL;
        for (;;) {
            if (e->stop || !(j = pick_job(e)) || synth_gate(e, j)) {
                if (e->stop) break;
                /* waiting for a thread of the pool: on cv_pool, so that threads coming back wake only these workers
                 * (on cv_work they woke the dispatcher too, which then dispatched the next job early) */
                pthread_cond_wait(j ? &e->cv_pool : &e->cv_work, &e->mu);
            } else if (yield_to_srs_waiter(e, j->prio) || !budget_fits(e, j)) {
                /* Woken by a release (or the waiting SRS load starting); the timeout lets an idle SRS age
                 * into evictability. While it waits, prover workers leave it the memory they would take for
                 * the start() of partitions of lower priority (gpu_main). */
                e->synth_waiting[j->prio]++;
                cv_wait_ms(&e->cv_work, &e->mu, 1000);
                e->synth_waiting[j->prio]--;
            } else {
                break;
            }
        }
        if (e->stop) break;
        uint64_t full = budget_charge(e, j), charge = synth_charge(j, full);
        e->budget_used += charge;
        note_peak(e);
        uint32_t idx = j->next_part++;
        const int team = synth_team(e, j);
        e->synth_free -= team;
        j->inflight++;
        j->part_state[idx] = 's';
        e->synth_active++;
        pthread_mutex_unlock(&e->mu);

        cz_timeline("SYNTH_START", j->id, "partition=%u", idx);
        int threads = 1;
#ifdef _OPENMP
        if (team) omp_set_num_threads(team); /* the circuits' parallel loops take omp_get_max_threads() */
        threads = omp_get_max_threads();
#endif
        uint64_t t0 = cz_now_ms();
        part *p = calloc(1, sizeof *p);
        int rc = p ? cz_witness_synthesize(j->circ, j->cstate, idx, e->compact, &p->w)
                   : cz_error(CZ_ENOMEM, "out of memory");
        uint64_t dt = cz_now_ms() - t0, wb = p && !rc ? cz_witness_bytes(&p->w) : 0;
        const char *form = p && p->w.compact ? "compact" : "dense";
        cz_timeline("SYNTH_END", j->id, "partition=%u,synth_ms=%llu,witness=%s,witness_bytes=%llu,threads=%d", idx,
                    (unsigned long long)dt, form, (unsigned long long)wb, threads);
        if (!rc)
            cz_log(CZ_LOG_DEBUG, T, "partition synthesis complete, pushing to GPU queue job_id=%s partition=%u "
                   "witness=%s witness_bytes=%llu dense_bytes=%llu", j->id, idx, form, (unsigned long long)wb,
                   (unsigned long long)cz_witness_dense_bytes(&p->w));
        char msg[300];
        snprintf(msg, sizeof msg, "%s", rc ? cz_error_message() : "");

        pthread_mutex_lock(&e->mu);
        e->synth_active--;
        if (team && (e->synth_free += team) > 0 && e->synth_free <= team)
            pthread_cond_broadcast(&e->cv_pool); /* workers waiting for a thread of the pool */
        j->synth_ms += dt;
        j->part_synth[idx] = dt;
        if (rc) {
            fail_job(e, j, "synthesis of partition %u failed: %s", msg, idx);
            if (p) {
                p->j = j, p->idx = idx, p->mem = charge;
                drop_part(e, p, "synthesis failed");
            } else {
                j->inflight--;
                budget_release(e, charge);
                maybe_complete(e, j);
            }
            continue;
        }
        p->j = j, p->idx = idx, p->synth_ms = dt, p->t_synth = t0 + dt, p->mem = charge, p->wheld = wb;
        e->synth_n_k[j->kind]++, e->synth_ms_k[j->kind] += dt;
        e->witness_held += wb;
        if (wb) e->wheld_parts++;
        e->parts_synth[p->w.compact]++, e->wbytes_synth[p->w.compact] += wb;
        j->part_wbytes[idx] = wb, j->wbytes += wb, j->wcompact |= p->w.compact;
        /* Until its start(), it holds its witness: a compact one far less than the dense size charged (or,
         * values that are no bits, a little more: the bitmaps). */
        p->mem = wb < full ? wb : full;
        if (p->mem < charge) budget_release(e, charge - p->mem);
        else e->budget_used += p->mem - charge, note_peak(e);
        /* The queue's bound holds back lower-priority partitions only: a Winning PoSt synthesized while the
         * queue is full of PoRep partitions goes in at its head (its witness is held either way) */
        while (!e->stop && e->gq_len >= e->gq_cap && !gq_below(e, j->prio) && !j->cancel && !j->failed)
            pthread_cond_wait(&e->cv_space, &e->mu);
        if (e->stop || j->cancel || j->failed) {
            drop_part(e, p, "job cancelled or failed");
            if (e->stop) break;
            continue;
        }
        j->part_state[idx] = 'S';
        gq_insert(e, p);
        cz_timeline("GPU_QUEUE", j->id, "partition=%u", idx);
        pthread_cond_signal(&e->cv_gpu);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* ---- prover workers ---- */

/* The largest witness a worker copies into its page-locked buffer ahead of start() (cz_backend.host_alloc): compact
 * ones (a 32 GiB PoRep partition: 87 MB) and dense PoSt ones (a 32 GiB Window PoSt partition: 4.06 GB, whose
 * page-locking inside start() held the device ~460 ms). The buffer is kept, in the memory budget, for the next. */
#define STAGE_MAX ((uint64_t)8 << 30)

typedef struct {
    cz_engine *e;
    int id;
} worker_arg;

/* With e->mu held: e->staged follows what the worker's staging buffer really holds (an allocation that failed,
 * or reserved more than it took); *staged is the worker's share. */
static void stage_settle(cz_engine *e, const cz_witness_stage *st, uint64_t *staged) {
    if (st->cap == *staged) return;
    e->staged = e->staged - *staged + st->cap;
    if (st->cap < *staged) pthread_cond_broadcast(&e->cv_work);
    *staged = st->cap;
}

/* With e->mu held: a picked-up partition that did not start goes back to the queue holding what it held there
 * (its witness, still in e->witness_held); the top-up for start() (need) goes back to the budget. */
static void requeue(cz_engine *e, part *p, uint64_t need) {
    p->proving = false, e->proving--;
    p->mem -= need;
    budget_release(e, need);
    p->j->part_state[p->idx] = 'S';
    gq_insert(e, p);
    pthread_cond_signal(&e->cv_gpu);
}

/* ---- the host copy of an SRS's bases while the GPUs hold them (srs.release_resident_bases) ---- */

/* Every device's turn, once no start() runs on any (new turns wait behind the claim): nothing reads an SRS's
 * params meanwhile. The callbacks of cz_srs_restore_bases. */
static void turns_take_all(void *arg) {
    cz_engine *e = arg;
    pthread_mutex_lock(&e->mu);
    e->turn_claims++;
    for (;;) {
        int d = 0;
        while (d < e->be.ndevices && !e->devs[d].turn) d++;
        if (d == e->be.ndevices) break;
        pthread_cond_wait(&e->cv_turn, &e->mu);
    }
    for (int d = 0; d < e->be.ndevices; d++) e->devs[d].turn = true;
    e->turn_claims--;
    pthread_mutex_unlock(&e->mu);
}

static void turns_give_all(void *arg) {
    cz_engine *e = arg;
    pthread_mutex_lock(&e->mu);
    for (int d = 0; d < e->be.ndevices; d++) e->devs[d].turn = false;
    pthread_cond_broadcast(&e->cv_turn);
    pthread_mutex_unlock(&e->mu);
}

/* Whether every device in service holds s's bases for good (cz_backend.holds_bases); lost[] from the engine's lock. */
typedef struct {
    cz_engine *e;
    const bool *lost;
    int ndev; /* devices asked */
} holds_ctx;

static bool all_hold(void *arg, const cz_groth16_params *p, const cz_r1cs *r) {
    holds_ctx *c = arg;
    bool held = true;
    c->ndev = 0;
    for (int d = 0; held && d < c->e->be.ndevices; d++)
        if (!c->lost[d]) held = c->e->be.holds_bases(&c->e->be, d, p, r), c->ndev++;
    return held && c->ndev;
}

/* After a start() of s's circuit succeeded: when every device in service holds s's bases (asked under the SRS
 * manager's lock, which a release or restore takes to change s's params, so the answer may be stale but never
 * reads freed bases), every device's turn is taken, so that no start() runs, the devices are asked again, and if
 * all still hold them their host copy is freed. */
static void maybe_release_bases(cz_engine *e, cz_srs_entry *s) {
    if (!e->cfg.release_resident_bases || !e->be.holds_bases || e->be.ndevices < 1) return;
    if (!cz_srs_releasable(&e->srs, s)) return;
    bool lost[CZ_CONFIG_MAX_DEVICES] = {false};
    pthread_mutex_lock(&e->mu);
    for (int d = 0; d < e->be.ndevices && d < CZ_CONFIG_MAX_DEVICES; d++) lost[d] = dev_lost(e, d);
    pthread_mutex_unlock(&e->mu);
    holds_ctx hc = {e, lost, 0};
    if (!cz_srs_with_params(&e->srs, s, all_hold, &hc)) return;
    turns_take_all(e);
    pthread_mutex_lock(&e->mu); /* a device lost meanwhile: its turn was taken after the loss */
    for (int d = 0; d < e->be.ndevices && d < CZ_CONFIG_MAX_DEVICES; d++) lost[d] = dev_lost(e, d);
    pthread_mutex_unlock(&e->mu);
    uint64_t freed = 0;
    const int rc = all_hold(&hc, &s->params, &s->r1cs) ? cz_srs_release_bases(&e->srs, s, &freed) : 0;
    const int ndev = hc.ndev;
    turns_give_all(e);
    if (rc) {
        cz_log(CZ_LOG_DEBUG, T, "SRS bases of %s kept in host memory: %s", s->circuit->id, cz_error_message());
    } else if (freed) {
        pthread_mutex_lock(&e->mu);
        e->bases_released++;
        pthread_cond_broadcast(&e->cv_work); /* memory for waiting partitions and loads */
        pthread_mutex_unlock(&e->mu);
        cz_timeline("SRS_BASES_RELEASED", s->circuit->id, "freed_bytes=%llu,gpus=%d", (unsigned long long)freed, ndev);
        cz_log(CZ_LOG_INFO, T, "SRS bases released from host memory circuit_id=%s freed_bytes=%llu: every GPU in "
               "service (%d) holds them (srs.release_resident_bases)", s->circuit->id, (unsigned long long)freed, ndev);
    }
}

/* A start() that needs s's released bases (CZ_ENOBASES: its device must build the prover again): they are decoded
 * again from the file, in the memory budget when idle SRS can make room for them (else beside it, as a lone load
 * goes). Returns 0 when they are back (the partition is then requeued), else the error, with its message. */
static int restore_bases(cz_engine *e, const job *j, cz_srs_entry *s) {
    const uint64_t back = cz_srs_released_bytes(&e->srs, s);
    pthread_mutex_lock(&e->mu);
    const uint64_t want = e->budget_used + held_bytes(e) + back;
    if (want > e->budget_total) (void)cz_srs_make_room(&e->srs, want - e->budget_total, min_idle_ms(e, j->prio));
    pthread_mutex_unlock(&e->mu);
    uint64_t ms = 0;
    const int rc = cz_srs_restore_bases(&e->srs, s, turns_take_all, turns_give_all, e, &ms);
    pthread_mutex_lock(&e->mu);
    if (!rc && ms) e->bases_restored++;
    note_peak(e);
    pthread_mutex_unlock(&e->mu);
    if (!rc && ms) cz_timeline("SRS_BASES_RESTORED", j->id, "circuit=%s,load_ms=%llu", s->circuit->id, (unsigned long long)ms);
    return rc;
}

static void *gpu_main(void *arg) {
    cz_engine *e = ((worker_arg *)arg)->e;
    int wid = ((worker_arg *)arg)->id;
    free(arg);
    worker_slot *slot = &e->slots[wid];
    /* The device interlock: workers of one GPU take turns inside start(). The CPU backend has no device to
     * share, so its workers run side by side on their share of the cores. */
    int dev = e->be.ndevices > 0 ? wid / e->per_dev : 0;
    bool lock = e->be.ndevices > 0;
    cz_witness_stage stage = {0};
    uint64_t staged = 0; /* of e->staged, this worker's buffer (or the growth reserved for it) */
    /* The last partition's aux, freed once that partition went on (a dense 32 GiB one: 4 GB, ~200 ms of munmap
     * that its finish() and verification need not wait for) */
    cz_witness spent = {0};
    bool have_spent = false;
    pthread_mutex_lock(&e->mu);
    for (;;) {
        if (have_spent) {
            pthread_mutex_unlock(&e->mu);
            cz_witness_free_aux(&spent);
            have_spent = false;
            pthread_mutex_lock(&e->mu);
        }
        /* A lost device's workers end (joined at shutdown): waiting, they would take cv_gpu signals that are
         * meant for the workers of the healthy devices. */
        while (!e->stop && !e->gq && !dev_lost(e, dev)) {
            e->gpu_idle++;
            pthread_cond_wait(&e->cv_gpu, &e->mu);
            e->gpu_idle--;
        }
        if (e->stop || dev_lost(e, dev)) break;
        part *p = e->gq;
        e->gq = p->next;
        e->gq_len--;
        pthread_cond_broadcast(&e->cv_space);
        job *j = p->j;
        /* start() needs the whole charge (cz_witness_charge: less the compact witness's saving when the
         * backend takes it as is). Synthesis admission left room for one such top-up; another waits for a
         * partition in start()/finish() to release, and goes anyway when none is (nothing else would). It
         * also waits while a synthesis worker waits for memory for a job of higher priority, so that the
         * memory a release brings back goes to the urgent partition first (both are woken by it). */
        uint64_t need = cz_witness_charge(budget_charge(e, j), p->w.compact, p->wheld, cz_witness_dense_bytes(&p->w),
                                          &e->be);
        need = need > p->mem ? need - p->mem : 0;
        while (!e->stop && need && e->proving && !j->cancel && !j->failed &&
               (e->budget_used + held_bytes(e) + need > e->budget_total ||
                synth_waits_above(e, j->prio)))
            pthread_cond_wait(&e->cv_work, &e->mu);
        if (e->stop) {
            drop_part(e, p, "shutting down");
            break;
        }
        if (j->cancel || j->failed) {
            drop_part(e, p, "job cancelled or failed");
            continue;
        }
        e->budget_used += need, p->mem += need;
        p->proving = true, e->proving++;
        note_peak(e);
        j->part_state[p->idx] = 'g';
        slot->busy = true, slot->kind = j->kind, slot->partition = (int)p->idx, slot->since = cz_now_ms();
        snprintf(slot->job, sizeof slot->job, "%s", j->id);
        cz_srs_entry *s = j->srs;
        /* A staging buffer this witness needs (a first one, or a larger one) is taken from the budget now;
         * without room for it, the witness goes as it is (start() page-locks it under the device's lock). */
        const uint64_t grow = cz_witness_stage_grow(&e->be, &stage, dev, &p->w, STAGE_MAX);
        const uint64_t add = grow > staged ? grow - staged : 0;
        const bool may_stage = !add || e->budget_used + held_bytes(e) + add <= e->budget_total;
        if (add && may_stage) e->staged += add, staged += add, note_peak(e);
        if (!may_stage)
            cz_log(CZ_LOG_DEBUG, T, "witness not staged job_id=%s partition=%u worker=%d: its page-locked buffer "
                   "(%llu bytes) does not fit in the memory budget", j->id, p->idx, wid, (unsigned long long)grow);
        pthread_mutex_unlock(&e->mu);

        cz_timeline("GPU_PICKUP", j->id, "worker=%d,partition=%u", wid, p->idx);
        /* Copied into the worker's page-locked buffer here, outside the device's lock, while the other
         * worker's kernels run (cz_backend.host_alloc); start() gets that copy */
        cz_witness view;
        const bool staged_now = may_stage && cz_witness_stage_copy(&e->be, dev, &stage, &p->w, STAGE_MAX, &view);
        /* The device's prover for this circuit is made ready before the turn is taken (cz_backend.prepare): a build
         * of minutes holds no turn, so other circuits' partitions (a Winning PoSt's) prove on the device meanwhile.
         * While another worker builds one on the device this one waits here, and gives its place to a partition
         * that outranks it as a worker waiting for the turn does. */
        bool yield = false, skip = false, lost = false; /* lost: its device, read under e->mu with the turn */
        if (lock && e->be.prepare) {
            const cz_witness *w = staged_now ? &view : &p->w;
            const uint64_t t_prep = cz_now_ms();
            bool waited = false;
            int prc;
            while ((prc = e->be.prepare(&e->be, dev, &s->params, &s->r1cs, w->compact ? NULL : w->aux,
                                        w->compact ? &w->caux : NULL, UINT64_MAX)) == CZ_EBUILDING) {
                pthread_mutex_lock(&e->mu);
                if (outranked(e, dev, j->prio)) {
                    yield = true; /* e->mu stays held for the requeue below */
                    break;
                }
                /* its job cancelled meanwhile: the worker goes back to the queue now, not at the build's end */
                const bool quit = e->stop || e->devs[dev].lost || j->cancel || j->failed;
                if (!quit) cv_wait_ms(&e->cv_turn, &e->mu, 50); /* woken by the queue, else asks again in 50 ms */
                pthread_mutex_unlock(&e->mu);
                waited = true;
                if (quit) break;
            }
            const uint64_t prep_ms = cz_now_ms() - t_prep;
            if (prc < 0 && !yield) /* start() is called all the same (unless the job was cancelled meanwhile): it
                                    * reports its own error */
                cz_log(CZ_LOG_INFO, T, "device prover not made ready job_id=%s partition=%u worker=%d after %llu ms "
                       "outside the device's turn: %s", j->id, p->idx, wid, (unsigned long long)prep_ms,
                       prc == CZ_EBUILDING ? "stopped waiting for another build" : cz_error_message());
            else if (prep_ms >= 1000 || waited)
                cz_log(prep_ms >= 1000 ? CZ_LOG_INFO : CZ_LOG_DEBUG, T, "device prover ready job_id=%s partition=%u "
                       "worker=%d: %llu ms outside the device's turn (%s)%s", j->id, p->idx, wid,
                       (unsigned long long)prep_ms, waited ? "another build on the device went first" : "built",
                       yield ? "; the partition gives its place to one that outranks it" : "");
        }
        if (lock && !yield) {
            pthread_mutex_lock(&e->mu);
            e->devs[dev].waiting[j->prio]++;
            /* cancelled or failed meanwhile: goes at once, without the turn (fail_job wakes it) */
            while (!j->cancel && !j->failed &&
                   (e->devs[dev].turn || e->turn_claims || turn_waits_above(e, dev, j->prio))) {
                /* A partition that outranks this one was queued while no worker was free to take it: it goes
                 * in this one's place, so it waits for the start() in progress only, not for this one's too. */
                if (outranked(e, dev, j->prio)) {
                    yield = true;
                    break;
                }
                pthread_cond_wait(&e->cv_turn, &e->mu);
            }
            e->devs[dev].waiting[j->prio]--;
        }
        if (lock) {
            if (yield) { /* back to the queue as it came, without a start (e->mu held) */
                slot->busy = false;
                stage_settle(e, &stage, &staged);
                e->yields++;
                cz_timeline("GPU_REQUEUE", j->id, "worker=%d,partition=%u,reason=priority", wid, p->idx);
                cz_log(CZ_LOG_DEBUG, T, "partition yields its device turn job_id=%s partition=%u worker=%d: job_id=%s "
                       "(priority %d) goes first", j->id, p->idx, wid, e->gq->j->id, e->gq->j->prio);
                requeue(e, p, need);
                continue;
            }
            /* cancelled (or failed) while its prover was made ready or it waited for the turn: a shutdown's
             * cancellation during a 5 s build would otherwise still run the partition's kernels after it */
            skip = j->cancel || j->failed;
            lost = e->devs[dev].lost;
            if (!skip) e->devs[dev].turn = true;
            if (!skip && !lost) e->devs[dev].busy_since = cz_now_ms();
            pthread_mutex_unlock(&e->mu);
        }
        /* Lost while this worker waited for the lock (a sibling's start failed): not started on it. */
        bool ran = !skip && !lost, gone = !ran && !skip;
        char msg[300] = "not started: its device was lost", why[256] = "";
        int rc = skip ? CZ_ECANCELED : CZ_EDEVICE;
        bool oom = false;
        if (ran) {
            cz_timeline("GPU_START", j->id, "worker=%d,partition=%u", wid, p->idx);
            p->t_start = cz_now_ms();
            pthread_mutex_lock(&e->mu);
            e->started_k[j->kind]++, e->wait_ms_k[j->kind] += p->t_start - p->t_synth;
            pthread_mutex_unlock(&e->mu);
            p->worker = wid;
            cz_error_clear(); /* a failure without a message is named by its code, not by an earlier message */
            rc = cz_backend_start_witness(&e->be, dev, &s->params, &s->r1cs, staged_now ? &view : &p->w, &p->pending);
            p->t_synth = cz_now_ms(); /* a retry on another device waits from here */
            snprintf(msg, sizeof msg, "%s", rc ? cz_error_text(rc) : "");
            gone = rc && lock && e->be.device_lost && e->be.device_lost(&e->be, dev, why, sizeof why);
            if (gone) {
                pthread_mutex_lock(&e->mu);
                lose_device(e, dev, why);
                pthread_mutex_unlock(&e->mu);
            }
            /* Out of device memory, the device still in service (the scratch grown into room another allocation
             * needed, or another process's memory): what the device keeps between calls is freed, still inside
             * the turn, and the partition goes back to the queue once (below), its witness kept. */
            oom = rc == CZ_ENOMEM && !gone && lock && !p->oom_retried && e->be.trim;
            if (oom) e->be.trim(&e->be, dev);
        }
        if (lock && !skip) {
            pthread_mutex_lock(&e->mu);
            dev_state *ds = &e->devs[dev];
            if (ds->busy_since) ds->starts++, ds->busy_ms += cz_now_ms() - ds->busy_since, ds->busy_since = 0;
            ds->turn = false;
            pthread_cond_broadcast(&e->cv_turn);
            pthread_mutex_unlock(&e->mu);
        }
        if (ran)
            cz_log(CZ_LOG_DEBUG, T, "GPU_TIMING prove_start returned job_id=%s partition=%u worker=%d "
                   "prove_start_ms=%llu witness=%s", j->id, p->idx, wid,
                   (unsigned long long)(cz_now_ms() - p->t_start),
                   !p->w.compact                                   ? "dense"
                   : e->be.start_compact && !e->be.compact_expands ? "compact"
                                                                   : "compact (expanded)");
        /* Its device must build the prover again and the bases' host copy was released: decoded again, then
         * the partition goes back to the queue as a lost device's does (its witness kept). */
        bool rebuild = false;
        if (ran && !gone && rc == CZ_ENOBASES) {
            const int r2 = restore_bases(e, j, s);
            rebuild = r2 == 0;
            if (r2) rc = r2, snprintf(msg, sizeof msg, "%s", cz_error_message());
        } else if (ran && !rc) {
            maybe_release_bases(e, s);
        }
        /* A partition whose device was lost keeps its witness for one more start on another device; one
         * that breaks a second device is more likely a bad input or a kernel bug than two bad GPUs. */
        bool keep = rebuild || oom || (gone && (!ran || !p->retried));
        if (!keep) { /* freed after the partition goes on; its inputs stay: the verifier needs them */
            spent.aux = p->w.aux, spent.caux = p->w.caux, have_spent = true;
            p->w.aux = NULL;
            cz_wcompact_init(&p->w.caux);
        }

        pthread_mutex_lock(&e->mu);
        stage_settle(e, &stage, &staged);
        slot->busy = false;
        if (rc) p->pending = NULL; /* a failed start() leaves nothing to discard */
        if (rebuild && !e->stop && !j->cancel && !j->failed) {
            requeue(e, p, need);
            cz_log(CZ_LOG_INFO, T, "partition requeued job_id=%s partition=%u: device %d builds its prover again, "
                   "from bases decoded again", j->id, p->idx, dev);
            cz_timeline("GPU_REQUEUE", j->id, "worker=%d,partition=%u,reason=bases", wid, p->idx);
            continue;
        }
        if (oom && !e->stop && !j->cancel && !j->failed) {
            p->oom_retried = true;
            e->oom_retries++;
            requeue(e, p, need);
            cz_log(CZ_LOG_WARN, T, "partition requeued job_id=%s partition=%u: device %d (ordinal %d) ran out of "
                   "memory, its MSM scratch freed: %s", j->id, p->idx, dev, dev_ordinal(e, dev), msg);
            cz_timeline("GPU_REQUEUE", j->id, "worker=%d,partition=%u,reason=oom", wid, p->idx);
            continue;
        }
        if (keep && !rebuild && !e->stop && !j->cancel && !j->failed && !no_gpu(e)) {
            /* Back to the queue holding what it held there (its witness, still in e->witness_held): the
             * top-up for start() goes back to the budget, and is taken again by the next worker. */
            p->retried |= ran;
            e->retries++;
            requeue(e, p, need);
            cz_log(CZ_LOG_WARN, T, "partition requeued for another GPU job_id=%s partition=%u (device %d, ordinal "
                   "%d lost)", j->id, p->idx, dev, dev_ordinal(e, dev));
            cz_timeline("GPU_REQUEUE", j->id, "worker=%d,partition=%u", wid, p->idx);
            continue;
        }
        witness_unheld(e, p);
        if (skip) {
            drop_part(e, p, "job cancelled or failed before its start");
            continue;
        }
        if (rc == CZ_ECANCELED && j->cancel && !gone) { /* its prover's build stopped by a shutdown: cancelled */
            drop_part(e, p, "cancelled: the device's prover build was stopped");
            continue;
        }
        if (rc) {
            if (gone) {
                char detail[400];
                snprintf(detail, sizeof detail, "%.160s (GPU device %d, ordinal %d, lost: %.160s%s)", msg, dev,
                         dev_ordinal(e, dev), e->devs[dev].why, keep ? "" : "; retried once already");
                fail_job(e, j, "prover start for partition %u failed: %s", detail, p->idx);
            } else if (rc == CZ_ENOMEM && p->oom_retried) {
                char detail[400];
                snprintf(detail, sizeof detail, "%.300s (again, after its device's scratch was freed)", msg);
                fail_job(e, j, "prover start for partition %u failed: %s", detail, p->idx);
            } else {
                fail_job(e, j, "prover start for partition %u failed: %s", msg, p->idx);
            }
            drop_part(e, p, "prover failed");
            continue;
        }
        p->next = NULL;
        e->pending++;
        if (e->fq_tail) e->fq_tail->next = p;
        else e->fq = p;
        e->fq_tail = p;
        pthread_cond_signal(&e->cv_fin);
    }
    e->staged -= staged;
    pthread_cond_broadcast(&e->cv_work);
    pthread_mutex_unlock(&e->mu);
    cz_witness_free_aux(&spent);
    cz_witness_stage_free(&e->be, &stage);
    return NULL;
}

/* ---- finalizers: finish, verify, place ---- */

static void *fin_main(void *arg) {
    cz_engine *e = arg;
    pthread_mutex_lock(&e->mu);
    for (;;) {
        while (!e->stop && !e->fq) pthread_cond_wait(&e->cv_fin, &e->mu);
        if (!e->fq) break;
        part *p = e->fq;
        e->fq = p->next;
        if (!e->fq) e->fq_tail = NULL;
        job *j = p->j;
        cz_srs_entry *s = j->srs;
        pthread_mutex_unlock(&e->mu);

        uint8_t proof[CZ_GROTH16_PROOF_BYTES];
        uint64_t t_fin = cz_now_ms();
        cz_error_clear();
        int rc = e->be.finish(&e->be, p->pending, &s->params.vk, proof);
        p->pending = NULL;
        uint64_t t_ver = cz_now_ms(), gpu_ms = t_ver - p->t_start;
        cz_timeline("GPU_END", j->id, "worker=%d,partition=%u,gpu_ms=%llu", p->worker, p->idx, (unsigned long long)gpu_ms);
        char msg[300] = "";
        if (rc) {
            snprintf(msg, sizeof msg, "prover finish: %s", cz_error_text(rc));
        } else {
            if (e->corrupt_for_test) proof[100] ^= 1; /* CUZK_TEST_CORRUPT_PROOF: exercise the FAILED path */
            /* The verifier's inputs come from public values alone when the circuit can derive them, so a
             * witness that drifted from the statement cannot verify. */
            cz_fr *own = p->w.inputs + 1, *pub = own;
            uint64_t npub = p->w.ni - 1;
            if (j->circ->public_inputs && !(pub = malloc(npub * sizeof *pub)))
                rc = cz_error(CZ_ENOMEM, "out of memory");
            if (!rc && pub != own && (rc = j->circ->public_inputs(j->circ, j->cstate, p->idx, pub, npub)))
                snprintf(msg, sizeof msg, "public inputs: %s", cz_error_message());
            else if (!rc && (rc = cz_groth16_verify_bytes(&s->pvk, proof, pub, npub)))
                snprintf(msg, sizeof msg, "proof does not verify against the vk (%s)", cz_error_message());
            else if (rc)
                snprintf(msg, sizeof msg, "%s", cz_error_message());
            if (pub != own) free(pub);
        }
        cz_log(CZ_LOG_DEBUG, T, "FIN_TIMING finalizer partition job_id=%s partition=%u finish_ms=%llu verify_ms=%llu "
               "total_ms=%llu verified=%s", j->id, p->idx, (unsigned long long)(t_ver - t_fin),
               (unsigned long long)(cz_now_ms() - t_ver), (unsigned long long)(cz_now_ms() - t_fin), rc ? "no" : "yes");
        pthread_mutex_lock(&e->mu);
        e->pending--;
        j->gpu_ms += gpu_ms;
        j->part_gpu[p->idx] = gpu_ms;
        if (rc) {
            fail_job(e, j, "partition %u: %s", msg, p->idx);
            drop_part(e, p, "verification failed");
            continue;
        }
        memcpy(j->proof + (size_t)p->idx * CZ_GROTH16_PROOF_BYTES, proof, CZ_GROTH16_PROOF_BYTES);
        j->done_parts++;
        j->part_state[p->idx] = 'd';
        j->inflight--;
        part_release(e, p);
        cz_witness_free(&p->w);
        free(p);
        maybe_complete(e, j);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* ---- lifecycle ---- */

int cz_engine_new(cz_engine **out, const cz_config *cfg) {
    cz_engine *e = calloc(1, sizeof *e);
    if (!e) return cz_error(CZ_ENOMEM, "out of memory");
    e->cfg = *cfg;
    e->retention_ms = RETENTION_MS, e->retain_max = RETAIN_MAX;
    cz_log_epoch_reset();
    e->t_start = cz_now_ms();
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (ncpu < 1) ncpu = 1;
    int per_dev = cfg->gpu_workers_per_device ? (int)cfg->gpu_workers_per_device : 1;
    /* Every start() may use all cores (gpus.gpu_threads caps it): a single-partition job (2 KiB .. 512 MiB
     * PoRep) then proves at full speed; concurrent starts share the cores. */
    int threads = cfg->gpu_threads ? (int)cfg->gpu_threads : (int)ncpu;
    int rc = cz_backend_select(&e->be, cfg, threads);
    if (rc) {
        free(e);
        return rc;
    }
    e->per_dev = per_dev;
    e->devs = calloc(e->be.ndevices > 0 ? (size_t)e->be.ndevices : 1, sizeof *e->devs);
    if (!e->devs) {
        free(e);
        return cz_error(CZ_ENOMEM, "out of memory");
    }
    for (int d = 0; d < e->be.ndevices; d++) {
        cz_gpu_info gi = {0};
        if (e->be.describe && e->be.describe(&e->be, d, &gi)) snprintf(gi.name, sizeof gi.name, "(%s)", cz_error_message());
        snprintf(e->devs[d].name, sizeof e->devs[d].name, "%s", gi.name);
        cz_log(CZ_LOG_INFO, T, "GPU device %d: ordinal %d, %s, %d prover worker(s) sharing its lock", d,
               dev_ordinal(e, d), gi.name, per_dev);
    }
    e->n_gpu = per_dev * (e->be.ndevices > 0 ? e->be.ndevices : 1); /* CPU backend: one "device" */
    e->budget_total = cz_config_budget(cfg);
    uint32_t maxsyn = cfg->max_parallel_synthesis ? cfg->max_parallel_synthesis : 18;
    e->n_synth = (int)(maxsyn < (uint32_t)(ncpu > 2 ? ncpu : 2) ? maxsyn : (uint32_t)(ncpu > 2 ? ncpu : 2));
    e->n_fin = 1;
    /* synthesis.threads (0: every core but one for each prover worker of a GPU backend, which launch the kernels and
     * wait on them, spinning, on the host; at least half the cores); CUZK_SYNTH_SHARE=0 leaves each synthesis all
     * cores (A/B only) */
    long pool = cfg->synthesis_threads ? (long)cfg->synthesis_threads
                                       : ncpu - (e->be.ndevices > 0 ? (long)e->n_gpu : 0);
    if (!cfg->synthesis_threads && pool < (ncpu + 1) / 2) pool = (ncpu + 1) / 2;
    e->synth_pool = e->synth_free = (int)(pool < 1 ? 1 : pool > 4096 ? 4096 : pool);
    const char *ss = getenv("CUZK_SYNTH_SHARE");
    e->synth_share = !(ss && *ss == '0');
    const char *sd = getenv("CUZK_SYNTH_DEPTH");
    e->synth_depth = !(sd && *sd == '0');
    const char *li = getenv("CUZK_SRS_LOAD_INLINE"); /* A/B only: loads on the dispatcher, as before (bug #7) */
    e->load_inline = li && *li == '1';
    e->gq_cap = cfg->max_gpu_queue_depth ? cfg->max_gpu_queue_depth : (uint32_t)(2 * e->n_gpu);
    e->corrupt_for_test = getenv("CUZK_TEST_CORRUPT_PROOF") && *getenv("CUZK_TEST_CORRUPT_PROOF") == '1';
    e->compact = cfg->compact_witness;
    const char *cw = getenv("CUZK_COMPACT_WITNESS"); /* tests: compare the two paths on one build */
    if (cw && (*cw == '0' || *cw == '1')) e->compact = *cw == '1';
    cz_srs_init(&e->srs, cfg->param_cache, cfg->local_cache, (int)ncpu);
    e->srs.verify_digest = cfg->verify_digest;
    e->srs.seeded_any = cfg->seeded_any;
    if (cfg->seeded_any)
        cz_log(CZ_LOG_WARN, T, "[testing] seeded_setup_any is on: a circuit without its official parameter file gets a "
               "seeded local setup, whose proofs verify only here and are worthless on chain (tests and benchmarks only)");
    e->srs.seeded_cache = cfg->seeded_cache;
    e->srs.fb_ops = e->be.setup_ops;
    cz_sched_init(&e->queue);
    pthread_mutex_init(&e->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&e->cv_done, &ca);
    pthread_condattr_destroy(&ca);
    pthread_cond_init(&e->cv_work, NULL);
    pthread_cond_init(&e->cv_gpu, NULL);
    pthread_cond_init(&e->cv_turn, NULL);
    pthread_cond_init(&e->cv_pool, NULL);
    pthread_cond_init(&e->cv_space, NULL);
    pthread_cond_init(&e->cv_fin, NULL);
    e->synth = calloc((size_t)e->n_synth, sizeof(pthread_t));
    e->gpu = calloc((size_t)e->n_gpu, sizeof(pthread_t));
    e->fin = calloc((size_t)e->n_fin, sizeof(pthread_t));
    e->slots = calloc((size_t)e->n_gpu, sizeof(worker_slot));
    if (!e->synth || !e->gpu || !e->fin || !e->slots) return cz_error(CZ_ENOMEM, "out of memory");
    pthread_create(&e->dispatcher, NULL, dispatcher_main, e);
    for (int i = 0; i < e->n_synth; i++) pthread_create(&e->synth[i], NULL, synth_main, e);
    for (int i = 0; i < e->n_gpu; i++) {
        worker_arg *a = malloc(sizeof *a);
        a->e = e, a->id = i;
        pthread_create(&e->gpu[i], NULL, gpu_main, a);
    }
    for (int i = 0; i < e->n_fin; i++) pthread_create(&e->fin[i], NULL, fin_main, e);
    cz_log(CZ_LOG_INFO, T,
           "memory budget initialized total_budget_gib=%.1f; engine started backend=%s prover_workers=%d "
           "prover_threads=%d synthesis_workers=%d synthesis_threads=%d%s queue_depth=%u max_pending=%u witness=%s",
           e->budget_total / (double)(1ull << 30), e->be.name, e->n_gpu, threads, e->n_synth, e->synth_pool,
           !e->synth_share  ? " (not shared: CUZK_SYNTH_SHARE=0)"
           : !e->synth_depth ? " (no depth first: CUZK_SYNTH_DEPTH=0)"
                             : "",
           e->gq_cap,
           cfg->max_pending,
           !e->compact                                         ? "dense"
           : e->be.start_compact && !e->be.compact_expands ? "compact where the circuit has it (sent as is)"
                                                           : "compact where the circuit has it (expanded for start)");
    if (cfg->release_resident_bases)
        cz_log(CZ_LOG_INFO, T, "srs.release_resident_bases: %s", e->be.holds_bases
               ? "an SRS's host bases are freed once every GPU holds its prover, decoded again when one must rebuild it"
               : "no effect: the backend never stops reading the host bases (CPU backend)");
    *out = e;
    return 0;
}

/* A device's prover of a preloaded SRS, built ahead of any job (cz_engine_preload). */
typedef struct warm {
    bg_thread bg;
    cz_engine *e;
    cz_srs_entry *s; /* referenced until the build ends (cz_srs_release) */
    int dev;
    uint64_t hint; /* cz_backend.prepare's dense_hint */
} warm;

/* The aux values outside {0, 1} a witness of c is expected to have, for a build without one: a PoSt witness's are
 * ~99.1 % of its aux (docs/perf.md, the 32 GiB Window PoSt mix: 0.5 % zeros, 0.4 % ones); otherwise unknown (the
 * GPU prover plans its default share, 3.2 %, and grows at a first start whose witness has more: a PoRep's has
 * 1.3-3.3 %). */
static uint64_t dense_hint_of(const cz_circuit *c, const cz_r1cs *r) {
    const uint64_t na = r->num_aux;
    const bool post = c->kind == CZ_KIND_WPOST || c->kind == CZ_KIND_WINNING;
    return post ? na / 1000 * 991 + na % 1000 * 991 / 1000 : UINT64_MAX;
}

/* The build of one device's prover for a preloaded SRS, outside the device's turn as a partition's is (gpu_main): a
 * PoRep's first partition after a daemon restart then finds its prover resident (~23 s at 32 GiB with the Lagrange
 * cache file, 8.3 min without it, no longer paid by a job). While another build runs on the device it asks again
 * every 50 ms; it gives up when the daemon shuts down (a shutdown that cancels work aborts the build itself) or the
 * device is lost. Once built, the SRS's host bases may be released (srs.release_resident_bases) as after a start. */
static void *warm_main(void *arg) {
    warm *w = arg;
    cz_engine *e = w->e;
    const uint64_t t0 = cz_now_ms();
    int rc = 0;
    for (;;) {
        pthread_mutex_lock(&e->mu);
        const bool lost = dev_lost(e, w->dev), quit = lost || e->shutting || e->stop;
        pthread_mutex_unlock(&e->mu);
        if (quit) {
            rc = cz_error(CZ_ECANCELED, "%s", lost ? "the device was lost" : "the daemon is shutting down");
            break;
        }
        rc = e->be.prepare(&e->be, w->dev, &w->s->params, &w->s->r1cs, NULL, NULL, w->hint);
        if (rc != CZ_EBUILDING) break;
        pthread_mutex_lock(&e->mu); /* another build on the device (a job's, or another preload's): asked again */
        if (!e->shutting && !e->stop) cv_wait_ms(&e->cv_turn, &e->mu, 50);
        pthread_mutex_unlock(&e->mu);
    }
    const uint64_t ms = cz_now_ms() - t0;
    if (!rc) { /* at once (the prover already on the device: a repeated PreloadSRS) at DEBUG; a build takes 100+ ms */
        cz_log(ms >= 50 ? CZ_LOG_INFO : CZ_LOG_DEBUG, T, "PreloadSRS circuit_id=%s: GPU device %d's prover ready in "
               "%llu ms (built ahead of any job)", w->s->circuit->id, w->dev, (unsigned long long)ms);
        maybe_release_bases(e, w->s);
    } else {
        cz_log(CZ_LOG_WARN, T, "PreloadSRS circuit_id=%s: GPU device %d's prover not built after %llu ms: %s; its "
               "first partition builds it", w->s->circuit->id, w->dev, (unsigned long long)ms, cz_error_message());
    }
    cz_srs_release(&e->srs, w->s);
    pthread_mutex_lock(&e->mu);
    w->bg.done = true;
    if (rc) e->warm_failed++;
    else e->warm_ready++;
    pthread_cond_broadcast(&e->cv_done);
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

static uint32_t unfinished(cz_engine *e) {
    uint32_t n = 0;
    for (job *j = e->jobs; j; j = j->next) n += j->state != JF;
    return n;
}

uint32_t cz_engine_drain(cz_engine *e, uint64_t wait_ms) {
    const struct timespec dl = deadline_in(CLOCK_MONOTONIC, wait_ms); /* cv_done's clock */
    pthread_mutex_lock(&e->mu);
    if (!e->shutting) { /* new work refused from now on; PreloadSRS's builds waiting for a turn give up */
        e->shutting = true;
        pthread_cond_broadcast(&e->cv_turn);
    }
    int rc = 0;
    while (unfinished(e) && rc != ETIMEDOUT) rc = pthread_cond_timedwait(&e->cv_done, &e->mu, &dl);
    const uint32_t n = unfinished(e);
    pthread_mutex_unlock(&e->mu);
    return n;
}

void cz_engine_shutdown(cz_engine *e, bool cancel_running) {
    /* a load in progress stops at its next stage instead of running for minutes to no use */
    if (cancel_running) {
        cz_srs_abort(&e->srs);
        if (e->be.abort_builds) e->be.abort_builds(&e->be); /* a device prover's build (minutes) likewise */
    }
    pthread_mutex_lock(&e->mu);
    e->shutting = true;
    if (cancel_running)
        for (job *j = e->jobs; j; j = j->next) {
            if (j->state == JQ) {
                cz_sched_remove(&e->queue, j);
                finish_job(e, j, CZ_JOB_CANCELLED, "daemon shutting down");
            } else if (j->state != JF) {
                j->cancel = true;
                maybe_complete(e, j);
            }
        }
    pthread_cond_broadcast(&e->cv_work);
    pthread_cond_broadcast(&e->cv_turn);
    pthread_cond_broadcast(&e->cv_space);
    while (unfinished(e)) pthread_cond_wait(&e->cv_done, &e->mu);
    if (!e->stop) {
        e->stop = true;
        pthread_cond_broadcast(&e->cv_work);
        pthread_cond_broadcast(&e->cv_pool);
        pthread_cond_broadcast(&e->cv_gpu);
        pthread_cond_broadcast(&e->cv_space);
        pthread_cond_broadcast(&e->cv_fin);
        reap(e, &e->warms, true); /* PreloadSRS's builds (aborted with cancel_running, else run to their end) */
        reap(e, &e->loaders, true); /* ended: their jobs are (unfinished() is 0) */
        pthread_mutex_unlock(&e->mu);
        pthread_join(e->dispatcher, NULL);
        for (int i = 0; i < e->n_synth; i++) pthread_join(e->synth[i], NULL);
        for (int i = 0; i < e->n_gpu; i++) pthread_join(e->gpu[i], NULL);
        for (int i = 0; i < e->n_fin; i++) pthread_join(e->fin[i], NULL);
        cz_log(CZ_LOG_INFO, T, "engine stopped");
        return;
    }
    pthread_mutex_unlock(&e->mu);
}

void cz_engine_free(cz_engine *e) {
    if (!e) return;
    cz_engine_shutdown(e, true);
    for (job *j = e->jobs, *n; j; j = n) {
        n = j->next;
        if (j->cstate) j->circ->release(j->circ, j->cstate);
        free(j->proof);
        free(j);
    }
    cz_sched_free(&e->queue);
    cz_srs_destroy(&e->srs);
    free(e->synth), free(e->gpu), free(e->fin), free(e->slots);
    free(e->devs);
    if (e->be.destroy) e->be.destroy(&e->be);
    free(e);
}

/* ---- RPC-level operations ---- */

static job *find_job(cz_engine *e, const char *id) {
    for (job *j = e->jobs; j; j = j->next) /* newest first */
        if (!strcmp(j->id, id)) return j;
    return NULL;
}

/* A submit's request_id against the newest job of that id (cuzk-spec bug #2: Curio reuses ids on retries):
 * 1: the same request, joined (that job is live and going on, or COMPLETED the same payload); -1: refused (another
 * payload while that job is live and going on); 0: a new job under the id (none yet, or that job FAILED, was
 * CANCELLED, is being cancelled or failing, or COMPLETED another payload: a WindowPoSt retried with another skip
 * set, a C1 redone). The old record stays for its waiters; find_job finds the new one. */
static int dedup(const job *old, uint64_t vh, int kind) {
    if (!old) return 0;
    const bool same = old->vhash == vh && old->kind == kind;
    if (old->state != JF && !old->cancel && !old->failed) return same ? 1 : -1;
    return old->state == JF && old->status == CZ_JOB_COMPLETED && same;
}

/* Finished jobs are kept RETENTION_MS for AwaitProof and dedup, at most RETAIN_MAX of them (the newest: the list
 * is newest first). A job someone awaits stays. */
static void prune(cz_engine *e) {
    uint64_t now = cz_now_ms();
    size_t kept = 0;
    for (job **pp = &e->jobs; *pp;) {
        job *j = *pp;
        if (j->state == JF && !j->waiters && (now - j->t_done > e->retention_ms || kept >= e->retain_max)) {
            *pp = j->next;
            free(j->proof);
            free(j);
            continue;
        }
        kept += j->state == JF;
        pp = &j->next;
    }
}

void cz_engine_on_all_lost(cz_engine *e, void (*fn)(void *arg), void *arg) {
    pthread_mutex_lock(&e->mu);
    e->all_lost_fn = fn, e->all_lost_arg = arg;
    pthread_mutex_unlock(&e->mu);
}

void cz_engine_set_retention_for_test(cz_engine *e, uint64_t ms, size_t max) {
    pthread_mutex_lock(&e->mu);
    e->retention_ms = ms, e->retain_max = max;
    pthread_mutex_unlock(&e->mu);
}

void cz_engine_set_circuit_for_test(cz_engine *e, int kind, const struct cz_circuit *c) {
    pthread_mutex_lock(&e->mu);
    if (kind >= CZ_KIND_POREP && kind <= CZ_KIND_WINNING) e->circ_for_test[kind] = c;
    pthread_mutex_unlock(&e->mu);
}

/* Outside e->mu: a circuit's first SRS load on a host counts its R1CS for the estimate (cz_srs_needs_load, under
 * a second at 32 GiB PoRep, once per circuit); asked here first, the dispatcher and preload find it memoized
 * instead of counting while they hold the engine lock. */
static void srs_estimate_ahead(cz_engine *e, const cz_circuit *c) {
    uint64_t bytes;
    (void)cz_srs_needs_load(&e->srs, c, &bytes);
}

static int submit(cz_engine *e, const cz_submit *req, char job_id[CZ_JOB_ID_MAX], uint32_t *qpos);

void cz_engine_count_rejected(cz_engine *e, int kind, int rc) {
    pthread_mutex_lock(&e->mu);
    e->rejected[kind >= CZ_KIND_POREP && kind <= CZ_KIND_WINNING ? kind : 0][reject_reason(rc)]++;
    pthread_mutex_unlock(&e->mu);
}

int cz_engine_submit(cz_engine *e, const cz_submit *req, char job_id[CZ_JOB_ID_MAX], uint32_t *qpos) {
    const int rc = submit(e, req, job_id, qpos);
    if (rc) cz_engine_count_rejected(e, req->kind, rc); /* neither a failed proof nor a job: counted apart */
    return rc;
}

static int submit(cz_engine *e, const cz_submit *req, char job_id[CZ_JOB_ID_MAX], uint32_t *qpos) {
    const cz_circuit *c = NULL;
    cz_submit sized = *req, *s = &sized; /* sector_size 0: the one registered_proof names */
    int rc = 0;
    pthread_mutex_lock(&e->mu);
    if (s->kind >= CZ_KIND_POREP && s->kind <= CZ_KIND_WINNING) c = e->circ_for_test[s->kind];
    pthread_mutex_unlock(&e->mu);
    if (!c && ((rc = cz_request_sector_size(req, &sized.sector_size)) ||
               (rc = cz_circuit_for_request(s->kind, s->sector_size, e->cfg.test_circuit, &c))))
        return rc;
    if (s->request_id && strlen(s->request_id) >= CZ_JOB_ID_MAX)
        return cz_error(CZ_EINVAL, "request_id longer than %d bytes", CZ_JOB_ID_MAX - 1);
    /* Fail fast, before any parsing: no parameters means no proof. */
    if ((rc = cz_srs_check(&e->srs, c))) return rc;
    srs_estimate_ahead(e, c);
    char id[CZ_JOB_ID_MAX];
    if (s->request_id && *s->request_id) snprintf(id, sizeof id, "%s", s->request_id);
    else uuid4(id);
    /* dedup identity: every payload field a circuit reads */
    uint64_t vh = hash_bytes(s->vanilla, s->vanilla_len);
    for (size_t i = 0; s->vanillas && i < s->n_vanillas; i++)
        vh = vh * 31 + hash_bytes(s->vanillas[i], s->vanilla_lens[i]);
    if (s->randomness) vh = vh * 31 + hash_bytes(s->randomness, s->randomness_len);
    if (s->comm_r_old) vh = vh * 31 + hash_bytes(s->comm_r_old, s->comm_r_old_len);
    if (s->comm_r_new) vh = vh * 37 + hash_bytes(s->comm_r_new, s->comm_r_new_len);
    if (s->comm_d_new) vh = vh * 41 + hash_bytes(s->comm_d_new, s->comm_d_new_len);
    vh = vh * 31 + s->partition_index + (s->registered_proof << 32);
    pthread_mutex_lock(&e->mu);
    if (e->shutting || no_gpu(e)) {
        rc = e->shutting ? cz_error(CZ_ESHUTDOWN, "daemon is shutting down")
                         : cz_error(CZ_EDEVICE, "%s", e->nogpu);
        pthread_mutex_unlock(&e->mu);
        return rc;
    }
    prune(e);
    int dup = dedup(find_job(e, id), vh, s->kind);
    if (dup) {
        pthread_mutex_unlock(&e->mu);
        if (dup < 0)
            return cz_error(CZ_EEXIST, "request_id %s is already in use by a running job with a different payload",
                            id);
        cz_log(CZ_LOG_INFO, T, "duplicate request_id %s: returning the existing job", id);
        snprintf(job_id, CZ_JOB_ID_MAX, "%s", id);
        *qpos = 0;
        return 0;
    }
    if (unfinished(e) >= e->cfg.max_pending) {
        pthread_mutex_unlock(&e->mu);
        return cz_error(CZ_EFULL, "pending work limit reached (%u jobs; scheduler.max_pending)", e->cfg.max_pending);
    }
    pthread_mutex_unlock(&e->mu);
    /* Parse and check the request (for a real PoRep: the whole C1 and its vanilla proofs) outside the lock. */
    void *state = NULL;
    uint64_t t0 = cz_now_ms();
    if ((rc = c->prepare(c, s, &state))) {
        cz_log(CZ_LOG_INFO, T, "request %s rejected: %s", id, cz_error_message());
        return rc;
    }
    if (!c->is_test)
        cz_log(CZ_LOG_INFO, T, "request %s: %s vanilla proof parsed and verified in %llu ms", id, c->id,
               (unsigned long long)(cz_now_ms() - t0));
    uint32_t nparts = c->partitions_of ? c->partitions_of(c, state) : c->partitions;
    if (!nparts || nparts > MAX_PARTS) {
        c->release(c, state);
        return cz_error(CZ_EINVAL, "%s: %u partitions (1..%d)", c->id, nparts, MAX_PARTS);
    }
    job *j = calloc(1, sizeof *j);
    uint8_t *pf = calloc(nparts, CZ_GROTH16_PROOF_BYTES);
    if (!j || !pf) {
        free(j), free(pf);
        c->release(c, state);
        return cz_error(CZ_ENOMEM, "out of memory");
    }
    pthread_mutex_lock(&e->mu);
    /* The checks again: another submit may have taken the id or the last slot while this one parsed. */
    dup = dedup(find_job(e, id), vh, s->kind);
    if (e->shutting || no_gpu(e) || dup || unfinished(e) >= e->cfg.max_pending) {
        rc = e->shutting ? cz_error(CZ_ESHUTDOWN, "daemon is shutting down")
             : no_gpu(e) ? cz_error(CZ_EDEVICE, "%s", e->nogpu) /* every device was lost while it parsed */
             : dup > 0   ? 0
             : dup < 0   ? cz_error(CZ_EEXIST, "request_id %s is already in use by a running job with a different "
                                    "payload", id)
                         : cz_error(CZ_EFULL, "pending work limit reached (%u jobs; scheduler.max_pending)",
                                    e->cfg.max_pending);
        pthread_mutex_unlock(&e->mu);
        free(j), free(pf);
        c->release(c, state);
        if (!rc) snprintf(job_id, CZ_JOB_ID_MAX, "%s", id), *qpos = 0;
        return rc;
    }
    snprintf(j->id, sizeof j->id, "%s", id);
    j->kind = s->kind;
    j->prio = cz_effective_priority(s->kind, s->priority);
    j->seq = e->next_seq++;
    j->vhash = vh;
    j->cstate = state;
    j->abandon_cancels = s->from_prove;
    j->circ = c;
    j->parts = nparts;
    j->proof = pf;
    memset(j->part_state, 'p', nparts);
    j->t_submit = cz_now_ms();
    *qpos = (uint32_t)e->queue.n;
    if ((rc = cz_sched_push(&e->queue, j->prio, j->seq, j))) {
        pthread_mutex_unlock(&e->mu);
        free(j), free(pf);
        c->release(c, state);
        return rc;
    }
    j->next = e->jobs;
    e->jobs = j;
    snprintf(job_id, CZ_JOB_ID_MAX, "%s", id);
    cz_log(CZ_LOG_INFO, T, "job submitted job_id=%s kind=%s priority=%d circuit=%s queue_position=%u", id,
           cz_kind_name(j->kind), j->prio, c->id, *qpos);
    pthread_cond_broadcast(&e->cv_work);
    pthread_mutex_unlock(&e->mu);
    return 0;
}

static void fill_result(const job *j, cz_result *r) {
    memset(r, 0, sizeof *r);
    snprintf(r->job_id, sizeof r->job_id, "%s", j->id);
    r->status = j->status;
    snprintf(r->error, sizeof r->error, "%s", j->err);
    if (j->status == CZ_JOB_COMPLETED && j->proof) {
        r->proof_len = (size_t)j->parts * CZ_GROTH16_PROOF_BYTES;
        r->proof = malloc(r->proof_len);
        if (r->proof) memcpy(r->proof, j->proof, r->proof_len);
        else r->proof_len = 0;
    }
    uint64_t disp = j->t_dispatch ? j->t_dispatch : j->t_done;
    r->queue_wait_ms = disp - j->t_submit;
    r->srs_load_ms = j->srs_load_ms;
    r->synthesis_ms = j->synth_ms;
    r->gpu_compute_ms = j->gpu_ms;
    r->total_ms = j->t_done - j->t_submit;
}

static void cancel_locked(cz_engine *e, job *j, const char *why, bool *was_running) {
    if (j->state == JQ) {
        cz_sched_remove(&e->queue, j);
        finish_job(e, j, CZ_JOB_CANCELLED, why);
    } else if (j->state != JF) {
        if (was_running) *was_running = true;
        j->cancel = true;
        snprintf(j->err, sizeof j->err, "%s", why);
        maybe_complete(e, j);
        pthread_cond_broadcast(&e->cv_space);
        pthread_cond_broadcast(&e->cv_turn); /* its partition waiting for a device's turn goes now (fail_job) */
    }
}

int cz_engine_await_or_gone(cz_engine *e, const char *job_id, uint64_t timeout_ms, cz_result *out,
                            const atomic_int *gone) {
    pthread_mutex_lock(&e->mu);
    job *j = find_job(e, job_id);
    if (!j) {
        pthread_mutex_unlock(&e->mu);
        return cz_error(CZ_ENOTFOUND, "job %s not found", job_id);
    }
    const struct timespec dl = deadline_in(CLOCK_MONOTONIC, timeout_ms); /* cv_done's clock */
    j->waiters++;
    int timed_out = 0;
    bool left = false;
    while (j->state != JF && !timed_out && !(left = gone && atomic_load(gone))) {
        if (timeout_ms) timed_out = pthread_cond_timedwait(&e->cv_done, &e->mu, &dl) != 0 && j->state != JF;
        else pthread_cond_wait(&e->cv_done, &e->mu);
    }
    j->waiters--;
    if (left) {
        /* The caller's client went away. A Prove job nobody else waits for has no one to take its proof. */
        if (j->abandon_cancels && !j->waiters && j->state != JF) {
            cz_log(CZ_LOG_INFO, T, "client of job %s went away: cancelling it (no other waiter)", j->id);
            cancel_locked(e, j, "cancelled: the client went away", NULL);
        }
        memset(out, 0, sizeof *out);
        snprintf(out->job_id, sizeof out->job_id, "%s", j->id);
        out->status = CZ_JOB_CANCELLED;
        snprintf(out->error, sizeof out->error, "client went away");
    } else if (timed_out) {
        memset(out, 0, sizeof *out);
        snprintf(out->job_id, sizeof out->job_id, "%s", j->id);
        out->status = CZ_JOB_TIMEOUT;
        snprintf(out->error, sizeof out->error, "not done after %llu ms", (unsigned long long)timeout_ms);
    } else {
        fill_result(j, out);
    }
    pthread_mutex_unlock(&e->mu);
    return 0;
}

int cz_engine_await(cz_engine *e, const char *job_id, uint64_t timeout_ms, cz_result *out) {
    return cz_engine_await_or_gone(e, job_id, timeout_ms, out, NULL);
}

void cz_engine_kick(cz_engine *e) {
    pthread_mutex_lock(&e->mu);
    pthread_cond_broadcast(&e->cv_done);
    pthread_mutex_unlock(&e->mu);
}

void cz_result_free(cz_result *r) {
    free(r->proof);
    r->proof = NULL;
}

int cz_engine_cancel(cz_engine *e, const char *job_id, bool *was_running) {
    pthread_mutex_lock(&e->mu);
    job *j = find_job(e, job_id);
    *was_running = false;
    if (!j) {
        pthread_mutex_unlock(&e->mu);
        return cz_error(CZ_ENOTFOUND, "job %s not found", job_id);
    }
    cancel_locked(e, j, j->state == JQ ? "cancelled before it started" : "cancelled while running (at a partition boundary)",
                  was_running);
    pthread_mutex_unlock(&e->mu);
    return 0;
}

/* The circuit of this id in the registry, or one set with cz_engine_set_circuit_for_test; NULL if none. */
static const cz_circuit *find_circuit(const cz_engine *e, const char *id) {
    const cz_circuit *c = cz_circuit_find(id);
    for (int k = CZ_KIND_POREP; k <= CZ_KIND_WINNING && !c; k++)
        if (e->circ_for_test[k] && !strcmp(e->circ_for_test[k]->id, id)) c = e->circ_for_test[k];
    return c;
}

/* A circuit id of the registry, or of a circuit set with cz_engine_set_circuit_for_test, that can be proved. */
static int circuit_by_id(cz_engine *e, const char *id, const cz_circuit **c) {
    if (!(*c = find_circuit(e, id))) return cz_error(CZ_ENOTFOUND, "unknown circuit id '%s'", id);
    if (!(*c)->available) return cz_error(CZ_EUNSUPPORTED, "circuit %s is not available yet", id);
    return 0;
}

/* With the engine lock held: 0 when a preload of c (need bytes) may load now, else CZ_EFULL. */
static int preload_room(cz_engine *e, const cz_circuit *c, uint64_t need) {
    for (size_t i = 0; i < e->queue.n; i++) {
        const job *w = e->queue.h[i].item;
        if (w->srs_wait_since)
            return cz_error(CZ_EFULL, "PreloadSRS %s: job %s waits for memory for the SRS of %s; a preload does not "
                            "take memory before it (the SRS loads when a job needs it)", c->id, w->id, w->circ->id);
    }
    if (srs_room(e, c, need, e->cfg.eviction_min_idle_s * 1000, "(PreloadSRS)")) return 0;
    uint64_t srs = cz_srs_loaded_bytes(&e->srs), pinned = cz_srs_pinned_bytes(&e->srs);
    return cz_error(CZ_EFULL, "PreloadSRS %s: its SRS (%llu bytes) does not fit in the memory budget (%llu bytes) "
                    "beside the loaded SRS (%llu bytes, %llu of them in use by jobs; idle ones are evicted only after "
                    "memory.eviction_min_idle=%llus) and the partitions in flight (%llu bytes); it loads when a job "
                    "needs it, or retry later (EvictSRS frees an idle SRS)", c->id, (unsigned long long)need,
                    (unsigned long long)e->budget_total, (unsigned long long)srs, (unsigned long long)pinned,
                    (unsigned long long)e->cfg.eviction_min_idle_s, (unsigned long long)e->budget_used);
}

/* Gated like a job's load (srs_room, the reservation), but it never waits: see engine.h. */
int cz_engine_preload(cz_engine *e, const char *id, bool *already, uint64_t *ms) {
    const cz_circuit *c;
    int rc = circuit_by_id(e, id, &c);
    if (!rc) rc = cz_srs_check(&e->srs, c);
    if (rc) return rc;
    srs_estimate_ahead(e, c);
    uint64_t need = 0;
    pthread_mutex_lock(&e->mu);
    if (cz_srs_needs_load(&e->srs, c, &need)) {
        if (!(rc = preload_room(e, c, need))) rc = cz_srs_reserve(&e->srs, c, need);
        note_peak(e);
    }
    pthread_mutex_unlock(&e->mu);
    if (rc) {
        cz_log(CZ_LOG_INFO, T, "%s", cz_error_message());
        return rc;
    }
    /* a GPU backend's devices in service (not lost) each build their prover for it, in the background: one
     * reference to the SRS each, taken with the load */
    const int nd = e->be.prepare && e->be.ndevices > 0 ? e->be.ndevices : 0;
    bool want[CZ_CONFIG_MAX_DEVICES] = {false};
    uint32_t nwant = 0;
    pthread_mutex_lock(&e->mu);
    for (int d = 0; d < nd && d < CZ_CONFIG_MAX_DEVICES && !e->shutting; d++) {
        want[d] = !dev_lost(e, d);
        for (const bg_thread *b = e->warms; b && want[d]; b = b->next) { /* one under way for it already */
            const warm *w = (const warm *)b;
            want[d] = !(w->dev == d && w->s->circuit == c && !b->done);
        }
        nwant += want[d];
    }
    pthread_mutex_unlock(&e->mu);
    cz_srs_entry *s = NULL;
    rc = cz_srs_preload_ref(&e->srs, c, already, ms, &s, nwant);
    pthread_mutex_lock(&e->mu);
    note_peak(e);
    pthread_cond_broadcast(&e->cv_work); /* a failed load gave its reservation back */
    reap(e, &e->warms, false);
    uint32_t started = 0;
    for (int d = 0; !rc && d < nd && d < CZ_CONFIG_MAX_DEVICES; d++) {
        if (!want[d]) continue;
        if (e->shutting) { /* since the count: no build that the stop would not join */
            cz_srs_release(&e->srs, s);
            continue;
        }
        warm *w = calloc(1, sizeof *w);
        if (w) *w = (warm){{.next = e->warms}, e, s, d, dense_hint_of(c, &s->r1cs)};
        if (!w || pthread_create(&w->bg.th, NULL, warm_main, w)) {
            free(w);
            cz_srs_release(&e->srs, s);
            cz_log(CZ_LOG_WARN, T, "PreloadSRS circuit_id=%s: GPU device %d's prover not built ahead (no thread); its "
                   "first partition builds it", c->id, d);
            continue;
        }
        e->warms = &w->bg;
        started++;
    }
    pthread_mutex_unlock(&e->mu);
    if (started)
        cz_log(CZ_LOG_INFO, T, "PreloadSRS circuit_id=%s: building its GPU prover on %u device(s) in the background",
               c->id, started);
    return rc;
}

int cz_engine_evict(cz_engine *e, const char *id, bool *was_loaded, uint64_t *freed) {
    const cz_circuit *c = find_circuit(e, id);
    if (!c) return cz_error(CZ_ENOTFOUND, "unknown circuit id '%s'", id);
    return cz_srs_evict(&e->srs, c, was_loaded, freed);
}

int cz_engine_status_get(cz_engine *e, cz_engine_status *st) {
    memset(st, 0, sizeof *st);
    pthread_mutex_lock(&e->mu);
    uint64_t now = cz_now_ms();
    st->uptime_ms = now - e->t_start;
    st->shutting_down = e->shutting;
    st->completed = e->completed, st->failed = e->failed, st->cancelled = e->cancelled;
    memcpy(st->completed_by_kind, e->completed_k, sizeof e->completed_k);
    memcpy(st->failed_by_kind, e->failed_k, sizeof e->failed_k);
    st->synth_active = (uint32_t)e->synth_active, st->synth_workers = (uint32_t)e->n_synth;
    st->gpu_queue_len = e->gq_len;
    st->budget_total = e->budget_total;
    st->budget_used = e->budget_used + held_bytes(e);
    st->staging_bytes = e->staged;
    st->backend_host_bytes = backend_host(e);
    st->budget_peak = e->budget_peak;
    for (size_t i = 0; i < e->queue.n; i++) st->srs_waiting += ((const job *)e->queue.h[i].item)->srs_wait_since != 0;
    st->compact_witness = e->compact;
    st->witness_bytes = e->witness_held;
    st->witness_parts = e->wheld_parts, st->pending_handles = e->pending;
    memcpy(st->partitions_synth, e->parts_synth, sizeof e->parts_synth);
    memcpy(st->synth_by_kind, e->synth_n_k, sizeof e->synth_n_k);
    memcpy(st->synth_ms_by_kind, e->synth_ms_k, sizeof e->synth_ms_k);
    memcpy(st->started_by_kind, e->started_k, sizeof e->started_k);
    memcpy(st->wait_ms_by_kind, e->wait_ms_k, sizeof e->wait_ms_k);
    memcpy(st->witness_bytes_synth, e->wbytes_synth, sizeof e->wbytes_synth);
    st->partition_retries = e->retries;
    st->partition_oom_retries = e->oom_retries;
    st->partition_yields = e->yields;
    st->srs_bases_released = e->bases_released, st->srs_bases_restored = e->bases_restored;
    for (const bg_thread *b = e->warms; b; b = b->next) st->preload_builds_running += !b->done;
    st->preload_builds_ready = e->warm_ready, st->preload_builds_failed = e->warm_failed;
    st->backend = e->be.name;
    size_t nrun = 0;
    for (job *j = e->jobs; j; j = j->next) {
        if (j->state == JQ) st->pending_by_kind[j->kind]++, st->queue_depth++;
        else if (j->state != JF) st->in_progress_by_kind[j->kind]++, nrun++;
    }
    st->pipelines = calloc(nrun ? nrun : 1, sizeof *st->pipelines);
    st->workers = calloc((size_t)e->n_gpu, sizeof *st->workers);
    for (job *j = e->jobs; j && st->pipelines; j = j->next) {
        if (j->state == JQ || j->state == JF) continue;
        cz_pipeline_info *p = &st->pipelines[st->n_pipelines++];
        snprintf(p->job_id, sizeof p->job_id, "%s", j->id);
        p->kind = j->kind;
        p->started_ms_ago = now - (j->t_dispatch ? j->t_dispatch : j->t_submit);
        p->total_partitions = j->parts, p->partitions_done = j->done_parts;
        memcpy(p->part_state, j->part_state, sizeof p->part_state);
        memcpy(p->part_synth_ms, j->part_synth, sizeof p->part_synth_ms);
        memcpy(p->part_gpu_ms, j->part_gpu, sizeof p->part_gpu_ms);
        memcpy(p->part_witness_bytes, j->part_wbytes, sizeof p->part_witness_bytes);
        p->witness_compact = j->wcompact;
    }
    for (int i = 0; i < e->n_gpu && st->workers; i++) {
        cz_worker_info *w = &st->workers[st->n_workers++];
        w->worker_id = i, w->busy = e->slots[i].busy;
        w->device = e->be.ndevices > 0 ? i / e->per_dev : -1;
        w->gpu_ordinal = w->device < 0 ? -1 : dev_ordinal(e, w->device);
        w->lost = w->device >= 0 && dev_lost(e, w->device);
        if (w->busy) {
            snprintf(w->current_job, sizeof w->current_job, "%s", e->slots[i].job);
            w->current_kind = e->slots[i].kind, w->current_partition = e->slots[i].partition;
            w->busy_ms = now - e->slots[i].since;
        }
    }
    if (e->be.ndevices > 0 && (st->gpus = calloc((size_t)e->be.ndevices, sizeof *st->gpus))) {
        for (int d = 0; d < e->be.ndevices; d++) {
            cz_gpu_status *g = &st->gpus[st->n_gpus++];
            g->ordinal = dev_ordinal(e, d);
            g->starts = e->devs[d].starts;
            g->busy_ms = e->devs[d].busy_ms + (e->devs[d].busy_since ? now - e->devs[d].busy_since : 0);
            if ((g->lost = e->devs[d].lost)) {
                snprintf(g->name, sizeof g->name, "%s", e->devs[d].name);
                snprintf(g->lost_reason, sizeof g->lost_reason, "%s", e->devs[d].why);
                g->lost_ms_ago = now - e->devs[d].since;
            }
        }
    }
    pthread_mutex_unlock(&e->mu);
    /* The devices in service (outside the engine lock: the backend asks the driver for the free memory; a lost
     * device is not asked, its driver calls may fail or hang). */
    for (size_t d = 0; d < st->n_gpus; d++) {
        cz_gpu_status *g = &st->gpus[d];
        cz_gpu_info gi;
        if (g->lost) continue;
        if (e->be.describe && !e->be.describe(&e->be, (int)d, &gi)) {
            snprintf(g->name, sizeof g->name, "%s", gi.name);
            g->vram_total = gi.vram_total, g->vram_free = gi.vram_free;
            g->resident_circuits = gi.resident_circuits, g->circuit_uploads = gi.circuit_uploads;
        } else {
            snprintf(g->name, sizeof g->name, "GPU %d", g->ordinal);
        }
    }
    pthread_mutex_lock(&e->srs.mu);
    size_t n = 0;
    for (cz_srs_entry *s = e->srs.head; s; s = s->next) n++;
    st->srs = calloc(n ? n : 1, sizeof *st->srs);
    for (cz_srs_entry *s = e->srs.head; s && st->srs; s = s->next) {
        /* Every SRS known: HOT (decoded), WARM (mapped), COLD (a file on disk). An entry without a file that
         * is not resident (a failed load, or a seeded setup whose cache could not be written) is not listed. */
        if (s->state == CZ_SRS_COLD && !s->path[0]) continue;
        cz_srs_info *i = &st->srs[st->n_srs++];
        snprintf(i->circuit_id, sizeof i->circuit_id, "%s", s->circuit->id);
        i->tier = cz_srs_tier(s), i->seeded = s->seeded, i->ref_count = s->refs;
        i->bases_released = s->state == CZ_SRS_HOT && s->bases_released;
        i->size_bytes = s->state == CZ_SRS_HOT ? s->bytes : s->file_bytes;
        i->idle_ms = s->refs ? 0 : now - s->last_used_ms;
        if (s->state == CZ_SRS_LOADING)
            i->loading = cz_srs_stage_name(atomic_load(&s->stage)), i->loading_ms = now - s->load_began_ms;
    }
    pthread_mutex_unlock(&e->srs.mu);
    return 0;
}

void cz_engine_status_free(cz_engine_status *st) {
    free(st->srs), free(st->pipelines), free(st->workers), free(st->gpus);
    memset(st, 0, sizeof *st);
}

/* Prometheus text format 0.0.4: cuzk's metric names (spec §2.4) plus a few of ours. */
char *cz_engine_metrics(cz_engine *e) {
    cz_engine_status st;
    cz_engine_status_get(e, &st);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) {
        cz_engine_status_free(&st);
        return NULL;
    }
    fprintf(f, "# HELP cuzk_proofs_completed_total Proofs completed since start.\n# TYPE cuzk_proofs_completed_total counter\n");
    fprintf(f, "cuzk_proofs_completed_total %llu\n", (unsigned long long)st.completed);
    fprintf(f, "# HELP cuzk_proofs_failed_total Proofs failed since start.\n# TYPE cuzk_proofs_failed_total counter\n");
    fprintf(f, "cuzk_proofs_failed_total %llu\n", (unsigned long long)st.failed);
    fprintf(f, "# HELP cuzk_proofs_cancelled_total Proofs cancelled since start.\n# TYPE cuzk_proofs_cancelled_total counter\n");
    fprintf(f, "cuzk_proofs_cancelled_total %llu\n", (unsigned long long)st.cancelled);
    fprintf(f, "# HELP cuzk_build_info The build: version, git commit, CUDA architectures (empty: no GPU backend).\n"
               "# TYPE cuzk_build_info gauge\ncuzk_build_info{version=\"%s\",commit=\"%s\",cuda_arch=\"%s\"} 1\n",
            cz_version(), cz_build_commit(), cz_build_cuda_arch());
    fprintf(f, "# HELP cuzk_uptime_seconds Seconds since the engine started.\n# TYPE cuzk_uptime_seconds gauge\n");
    fprintf(f, "cuzk_uptime_seconds %.3f\n", st.uptime_ms / 1000.0);
    fprintf(f, "# HELP cuzk_shutting_down 1 while the daemon refuses new work (draining or stopping).\n"
               "# TYPE cuzk_shutting_down gauge\ncuzk_shutting_down %d\n", st.shutting_down ? 1 : 0);
    fprintf(f, "# HELP cuzk_queue_depth Jobs waiting in the scheduler.\n# TYPE cuzk_queue_depth gauge\n");
    fprintf(f, "cuzk_queue_depth %u\n", st.queue_depth);
    fprintf(f, "# HELP cuzk_proofs_completed Proofs completed by kind.\n# TYPE cuzk_proofs_completed counter\n");
    for (int k = 1; k <= 4; k++)
        fprintf(f, "cuzk_proofs_completed{proof_kind=\"%s\"} %llu\n", cz_kind_label(k),
                (unsigned long long)st.completed_by_kind[k]);
    fprintf(f, "# HELP cuzk_proofs_failed Proofs failed by kind.\n# TYPE cuzk_proofs_failed counter\n");
    for (int k = 1; k <= 4; k++)
        fprintf(f, "cuzk_proofs_failed{proof_kind=\"%s\"} %llu\n", cz_kind_label(k),
                (unsigned long long)st.failed_by_kind[k]);
    pthread_mutex_lock(&e->mu);
    fprintf(f, "# HELP cuzk_requests_rejected_total Requests refused at submit (no job made), by kind and reason.\n"
               "# TYPE cuzk_requests_rejected_total counter\n");
    for (int k = 0; k <= 4; k++)
        for (int r = 0; r < REJECT_REASONS; r++)
            if (e->rejected[k][r] || (k && !r)) /* the kinds' invalid lines always, for rate() */
                fprintf(f, "cuzk_requests_rejected_total{proof_kind=\"%s\",reason=\"%s\"} %llu\n", cz_kind_label(k),
                        REJECT_NAMES[r], (unsigned long long)e->rejected[k][r]);
    int any = 0;
    for (int k = 1; k <= 4; k++) any |= e->dur_n[k] != 0;
    if (any) {
        fprintf(f, "# HELP cuzk_proof_duration_seconds Proof wall time over the last %d proofs of a kind.\n"
                   "# TYPE cuzk_proof_duration_seconds summary\n", SUMMARY_N);
        for (int k = 1; k <= 4; k++) {
            if (!e->dur_n[k]) continue;
            double sum = 0;
            for (uint32_t i = 0; i < e->dur_n[k]; i++) sum += e->dur[k][i];
            fprintf(f, "cuzk_proof_duration_seconds_sum{proof_kind=\"%s\"} %.6f\n", cz_kind_label(k), sum);
            fprintf(f, "cuzk_proof_duration_seconds_count{proof_kind=\"%s\"} %u\n", cz_kind_label(k), e->dur_n[k]);
        }
    }
    pthread_mutex_unlock(&e->mu);
    uint32_t running = 0;
    for (size_t i = 0; i < st.n_workers; i++) running += st.workers[i].busy;
    fprintf(f, "# HELP cuzk_running_jobs Prover workers with a current job.\n# TYPE cuzk_running_jobs gauge\n");
    fprintf(f, "cuzk_running_jobs %u\n", running);
    fprintf(f, "# HELP cuzk_gpu_workers Prover workers (GPU workers; CPU backend workers when no GPU).\n"
               "# TYPE cuzk_gpu_workers gauge\ncuzk_gpu_workers %zu\n", st.n_workers);
    fprintf(f, "# HELP cuzk_gpu_devices GPUs the prover backend uses (0: the CPU backend).\n"
               "# TYPE cuzk_gpu_devices gauge\ncuzk_gpu_devices %zu\n", st.n_gpus);
    if (st.n_gpus) {
        fprintf(f, "# HELP cuzk_gpu_info A GPU in use (cz_gpu_describe).\n# TYPE cuzk_gpu_info gauge\n");
        for (size_t i = 0; i < st.n_gpus; i++) {
            char nm[sizeof st.gpus[i].name * 2], *o = nm; /* label value: escape \ and " */
            for (const char *c = st.gpus[i].name; *c; c++) {
                if (*c == '\\' || *c == '"') *o++ = '\\';
                *o++ = *c == '\n' ? ' ' : *c;
            }
            *o = 0;
            fprintf(f, "cuzk_gpu_info{ordinal=\"%d\",name=\"%s\"} 1\n", st.gpus[i].ordinal, nm);
        }
        fprintf(f, "# HELP cuzk_gpu_vram_total_bytes GPU memory.\n# TYPE cuzk_gpu_vram_total_bytes gauge\n");
        for (size_t i = 0; i < st.n_gpus; i++)
            fprintf(f, "cuzk_gpu_vram_total_bytes{ordinal=\"%d\"} %llu\n", st.gpus[i].ordinal,
                    (unsigned long long)st.gpus[i].vram_total);
        fprintf(f, "# HELP cuzk_gpu_vram_free_bytes Free GPU memory.\n# TYPE cuzk_gpu_vram_free_bytes gauge\n");
        for (size_t i = 0; i < st.n_gpus; i++)
            fprintf(f, "cuzk_gpu_vram_free_bytes{ordinal=\"%d\"} %llu\n", st.gpus[i].ordinal,
                    (unsigned long long)st.gpus[i].vram_free);
        fprintf(f, "# HELP cuzk_gpu_resident_circuits Circuits (SRS bases and matrices) resident on the GPU.\n"
                   "# TYPE cuzk_gpu_resident_circuits gauge\n");
        for (size_t i = 0; i < st.n_gpus; i++)
            fprintf(f, "cuzk_gpu_resident_circuits{ordinal=\"%d\"} %d\n", st.gpus[i].ordinal,
                    st.gpus[i].resident_circuits);
        fprintf(f, "# HELP cuzk_gpu_circuit_uploads_total Circuits uploaded to the GPU (a switch that did not find its "
                   "circuit resident).\n# TYPE cuzk_gpu_circuit_uploads_total counter\n");
        for (size_t i = 0; i < st.n_gpus; i++)
            fprintf(f, "cuzk_gpu_circuit_uploads_total{ordinal=\"%d\"} %llu\n", st.gpus[i].ordinal,
                    (unsigned long long)st.gpus[i].circuit_uploads);
        fprintf(f, "# HELP cuzk_gpu_lost 1: the GPU is out of service (a broken CUDA context), its partitions go "
                   "to the others.\n# TYPE cuzk_gpu_lost gauge\n");
        for (size_t i = 0; i < st.n_gpus; i++)
            fprintf(f, "cuzk_gpu_lost{ordinal=\"%d\"} %d\n", st.gpus[i].ordinal, st.gpus[i].lost);
        fprintf(f, "# HELP cuzk_gpu_busy_seconds_total Seconds partitions held the GPU (their device region: "
                   "uploads and kernels), the one under way included; its rate is the share of the time the GPU "
                   "proves.\n"
                   "# TYPE cuzk_gpu_busy_seconds_total counter\n");
        for (size_t i = 0; i < st.n_gpus; i++)
            fprintf(f, "cuzk_gpu_busy_seconds_total{ordinal=\"%d\"} %.3f\n", st.gpus[i].ordinal,
                    st.gpus[i].busy_ms / 1000.0);
        fprintf(f, "# HELP cuzk_gpu_partitions_total Partitions whose device region ran on the GPU.\n"
                   "# TYPE cuzk_gpu_partitions_total counter\n");
        for (size_t i = 0; i < st.n_gpus; i++)
            fprintf(f, "cuzk_gpu_partitions_total{ordinal=\"%d\"} %llu\n", st.gpus[i].ordinal,
                    (unsigned long long)st.gpus[i].starts);
        fprintf(f, "# HELP cuzk_partition_retries_total Partitions requeued for another GPU after theirs was "
                   "lost.\n# TYPE cuzk_partition_retries_total counter\n");
        fprintf(f, "cuzk_partition_retries_total %llu\n", (unsigned long long)st.partition_retries);
        fprintf(f, "# HELP cuzk_partition_oom_retries_total Partitions queued once more after their start ran out "
                   "of device memory (the device's scratch freed first).\n# TYPE cuzk_partition_oom_retries_total "
                   "counter\n");
        fprintf(f, "cuzk_partition_oom_retries_total %llu\n", (unsigned long long)st.partition_oom_retries);
        fprintf(f, "# HELP cuzk_partition_priority_yields_total Partitions put back while waiting for their GPU's "
                   "turn, for a more urgent one (a Winning PoSt beside PoRep).\n# TYPE "
                   "cuzk_partition_priority_yields_total counter\n");
        fprintf(f, "cuzk_partition_priority_yields_total %llu\n", (unsigned long long)st.partition_yields);
        fprintf(f, "# HELP cuzk_srs_bases_released_total SRS bases whose host copy was freed once every GPU held them "
                   "(srs.release_resident_bases).\n# TYPE cuzk_srs_bases_released_total counter\n");
        fprintf(f, "cuzk_srs_bases_released_total %llu\n", (unsigned long long)st.srs_bases_released);
        fprintf(f, "# HELP cuzk_srs_bases_restored_total Released SRS bases decoded again for a GPU that builds its "
                   "prover again.\n# TYPE cuzk_srs_bases_restored_total counter\n");
        fprintf(f, "cuzk_srs_bases_restored_total %llu\n", (unsigned long long)st.srs_bases_restored);
        fprintf(f, "# HELP cuzk_preload_prover_builds GPU prover builds a PreloadSRS started (one a device) that are "
                   "under way.\n# TYPE cuzk_preload_prover_builds gauge\ncuzk_preload_prover_builds %llu\n",
                (unsigned long long)st.preload_builds_running);
        fprintf(f, "# HELP cuzk_preload_prover_builds_total PreloadSRS's GPU prover builds ended, by result "
                   "(ready: the prover resident; failed: its first partition builds it).\n"
                   "# TYPE cuzk_preload_prover_builds_total counter\n"
                   "cuzk_preload_prover_builds_total{result=\"ready\"} %llu\n"
                   "cuzk_preload_prover_builds_total{result=\"failed\"} %llu\n",
                (unsigned long long)st.preload_builds_ready, (unsigned long long)st.preload_builds_failed);
    }
    fprintf(f, "# HELP cuzk_memory_budget_bytes Memory budget.\n# TYPE cuzk_memory_budget_bytes gauge\n");
    fprintf(f, "cuzk_memory_budget_bytes %llu\n", (unsigned long long)st.budget_total);
    fprintf(f, "# HELP cuzk_memory_budget_used_bytes Memory budget in use: partitions in flight, loaded SRS, an SRS "
               "being loaded, the witness staging buffers and the provers' own page-locked host memory.\n"
               "# TYPE cuzk_memory_budget_used_bytes gauge\n");
    fprintf(f, "cuzk_memory_budget_used_bytes %llu\n", (unsigned long long)st.budget_used);
    fprintf(f, "# HELP cuzk_memory_budget_peak_bytes The most memory budget in use since start.\n"
               "# TYPE cuzk_memory_budget_peak_bytes gauge\n");
    fprintf(f, "cuzk_memory_budget_peak_bytes %llu\n", (unsigned long long)st.budget_peak);
    fprintf(f, "# HELP cuzk_witness_held_bytes Host bytes of synthesized witnesses not yet through the prover.\n"
               "# TYPE cuzk_witness_held_bytes gauge\n");
    fprintf(f, "cuzk_witness_held_bytes %llu\n", (unsigned long long)st.witness_bytes);
    fprintf(f, "# HELP cuzk_witness_staging_bytes Page-locked host buffers the prover workers copy witnesses into "
               "before the GPU's lock (counted in the memory budget).\n# TYPE cuzk_witness_staging_bytes gauge\n");
    fprintf(f, "cuzk_witness_staging_bytes %llu\n", (unsigned long long)st.staging_bytes);
    fprintf(f, "# HELP cuzk_prover_host_bytes Host memory the provers hold of their own beside the SRS (page-locked: "
               "a GPU prover's matrices in host memory on a small card; for the while: a Lagrange-form GPU prover's "
               "fold of C into L at its creation; counted in the memory budget).\n"
               "# TYPE cuzk_prover_host_bytes gauge\n");
    fprintf(f, "cuzk_prover_host_bytes %llu\n", (unsigned long long)st.backend_host_bytes);
    static const char *const forms[2] = {"dense", "compact"};
    fprintf(f, "# HELP cuzk_partitions_synthesized_total Partitions synthesized, by witness form.\n"
               "# TYPE cuzk_partitions_synthesized_total counter\n");
    for (int w = 0; w < 2; w++)
        fprintf(f, "cuzk_partitions_synthesized_total{witness=\"%s\"} %llu\n", forms[w],
                (unsigned long long)st.partitions_synth[w]);
    fprintf(f, "# HELP cuzk_witness_synthesized_bytes_total Witness bytes of the partitions synthesized, by form.\n"
               "# TYPE cuzk_witness_synthesized_bytes_total counter\n");
    for (int w = 0; w < 2; w++)
        fprintf(f, "cuzk_witness_synthesized_bytes_total{witness=\"%s\"} %llu\n", forms[w],
                (unsigned long long)st.witness_bytes_synth[w]);
    /* Where a pipeline waits: a GPU short of partitions (busy share below 1, short waits) wants more synthesis
     * threads; partitions that wait long for their start() are GPU-bound */
    fprintf(f, "# HELP cuzk_partition_synthesis_seconds Partitions' witness synthesis (wall time), by kind.\n"
               "# TYPE cuzk_partition_synthesis_seconds summary\n");
    for (int k = 1; k <= 4; k++)
        fprintf(f, "cuzk_partition_synthesis_seconds_sum{proof_kind=\"%s\"} %.3f\n"
                   "cuzk_partition_synthesis_seconds_count{proof_kind=\"%s\"} %llu\n", cz_kind_label(k),
                st.synth_ms_by_kind[k] / 1000.0, cz_kind_label(k), (unsigned long long)st.synth_by_kind[k]);
    fprintf(f, "# HELP cuzk_partition_prover_wait_seconds Synthesized partitions' wait for their start on the "
               "prover (a worker, the GPU prover's build, the GPU's turn), by kind.\n"
               "# TYPE cuzk_partition_prover_wait_seconds summary\n");
    for (int k = 1; k <= 4; k++)
        fprintf(f, "cuzk_partition_prover_wait_seconds_sum{proof_kind=\"%s\"} %.3f\n"
                   "cuzk_partition_prover_wait_seconds_count{proof_kind=\"%s\"} %llu\n", cz_kind_label(k),
                st.wait_ms_by_kind[k] / 1000.0, cz_kind_label(k), (unsigned long long)st.started_by_kind[k]);
    fprintf(f, "# HELP cuzk_srs_loaded_bytes Bytes of HOT (decoded) SRS by circuit.\n# TYPE cuzk_srs_loaded_bytes gauge\n");
    for (size_t i = 0; i < st.n_srs; i++)
        if (st.srs[i].tier == CZ_TIER_HOT)
            fprintf(f, "cuzk_srs_loaded_bytes{circuit_id=\"%s\"} %llu\n", st.srs[i].circuit_id,
                    (unsigned long long)st.srs[i].size_bytes);
    fprintf(f, "# HELP cuzk_srs_tier SRS tier by circuit: 1 for the tier it is in (hot = decoded, warm = mmap'd file, "
               "cold = on disk only).\n# TYPE cuzk_srs_tier gauge\n");
    static const char *const tiers[3] = {"hot", "warm", "cold"};
    for (size_t i = 0; i < st.n_srs; i++)
        for (int t = 0; t < 3; t++)
            fprintf(f, "cuzk_srs_tier{circuit_id=\"%s\",tier=\"%s\"} %d\n", st.srs[i].circuit_id, tiers[t],
                    st.srs[i].tier == t);
    fprintf(f, "# HELP cuzk_srs_loading_seconds Seconds an SRS load under way has taken so far, by circuit and stage "
               "(reading, recording, digest, coding, decoding, setup).\n# TYPE cuzk_srs_loading_seconds gauge\n");
    for (size_t i = 0; i < st.n_srs; i++)
        if (st.srs[i].loading)
            fprintf(f, "cuzk_srs_loading_seconds{circuit_id=\"%s\",stage=\"%s\"} %.3f\n", st.srs[i].circuit_id,
                    st.srs[i].loading, st.srs[i].loading_ms / 1000.0);
    fprintf(f, "# HELP cuzk_srs_refs Jobs holding the SRS.\n# TYPE cuzk_srs_refs gauge\n");
    for (size_t i = 0; i < st.n_srs; i++)
        fprintf(f, "cuzk_srs_refs{circuit_id=\"%s\"} %u\n", st.srs[i].circuit_id, st.srs[i].ref_count);
    fclose(f);
    cz_engine_status_free(&st);
    return buf;
}
