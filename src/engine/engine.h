/* The proving engine: jobs, priority scheduler, partition pipeline (synthesis workers -> bounded queue ->
 * prover workers sharing one device lock -> finalizers), SRS manager, memory budget, status and metrics.
 * Transport-free: the gRPC and HTTP servers (src/server) call this API; it depends on no server library.
 *
 * Return codes are CZ_E* (cz_error.h) plus the engine codes below, each with a cz_error() message;
 * src/server maps them to gRPC status codes. */
#ifndef CZ_ENGINE_ENGINE_H
#define CZ_ENGINE_ENGINE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/config.h"

enum { CZ_KIND_NONE = 0, CZ_KIND_POREP = 1, CZ_KIND_SNAP = 2, CZ_KIND_WPOST = 3, CZ_KIND_WINNING = 4 };
enum { CZ_PRIO_UNSPECIFIED = 0, CZ_PRIO_LOW = 1, CZ_PRIO_NORMAL = 2, CZ_PRIO_HIGH = 3, CZ_PRIO_CRITICAL = 4 };
/* AwaitProofResponse.Status values. */
enum { CZ_JOB_UNKNOWN = 0, CZ_JOB_COMPLETED = 1, CZ_JOB_FAILED = 2, CZ_JOB_CANCELLED = 3, CZ_JOB_TIMEOUT = 4 };
/* SRSStatus.Tier values. */
enum { CZ_TIER_HOT = 0, CZ_TIER_WARM = 1, CZ_TIER_COLD = 2 };

/* Engine return codes (beyond cz_error.h's). */
enum {
    CZ_ENOTFOUND = -100, /* unknown job or circuit id */
    CZ_EFULL = -101,     /* pending-work bound reached */
    CZ_ESHUTDOWN = -102, /* engine is shutting down */
    CZ_EBUSY = -103,     /* SRS still referenced by jobs */
    CZ_EEXIST = -104,    /* request_id reused with a different payload while the first is live */
    CZ_ENOPARAMS = -105, /* the circuit's parameter file is not in srs.param_cache */
};

#define CZ_JOB_ID_MAX 256
/* Most partitions one job may have (NI-PoRep 32/64 GiB: 126). */
#define CZ_MAX_PARTITIONS 128

const char *cz_kind_name(int kind);  /* porep-c2, snap-update, window-post, winning-post */
const char *cz_kind_label(int kind); /* porep_c2, ... (Prometheus labels) */
/* Priority 0 -> per-kind default (Winning CRITICAL, Window HIGH, PoRep/Snap NORMAL); unknown -> NORMAL. */
int cz_effective_priority(int kind, int priority);

typedef struct {
    const char *request_id; /* "" -> a fresh uuid v4 */
    int kind;
    uint64_t sector_size, registered_proof;
    int priority;
    const uint8_t *vanilla;
    size_t vanilla_len;
    size_t n_vanillas; /* vanilla_proofs count (PoSt/Snap; unused by the test circuit) */
    const uint8_t *const *vanillas; /* vanilla_proofs[i] (n_vanillas of them), lengths in vanilla_lens */
    const size_t *vanilla_lens;
    uint64_t sector_number, miner_id;
    const uint8_t *randomness; /* 32 bytes or NULL (PoSt) */
    size_t randomness_len;
    uint32_t partition_index; /* WindowPoSt */
    const uint8_t *comm_r_old, *comm_r_new, *comm_d_new; /* SnapDeals: 32 bytes each or NULL */
    size_t comm_r_old_len, comm_r_new_len, comm_d_new_len;
    bool from_prove; /* a Prove call: the job is cancelled when its last waiter goes away */
} cz_submit;

typedef struct {
    char job_id[CZ_JOB_ID_MAX];
    int status; /* CZ_JOB_* */
    uint8_t *proof;
    size_t proof_len;
    char error[512];
    uint64_t queue_wait_ms, srs_load_ms, synthesis_ms, gpu_compute_ms, total_ms;
} cz_result;

typedef struct {
    char circuit_id[64];
    int tier; /* CZ_TIER_* */
    bool seeded; /* parameters from a seeded local setup */
    bool bases_released; /* HOT with its bases' host copy freed while the GPUs hold them (srs.release_resident_bases) */
    uint64_t size_bytes;
    uint32_t ref_count;
    uint64_t idle_ms;
    const char *loading; /* a load under way: its stage (cz_srs_stage_name: "recording", "digest", ...); NULL: none */
    uint64_t loading_ms; /* since that load began */
} cz_srs_info;

typedef struct {
    char job_id[CZ_JOB_ID_MAX];
    int kind;
    uint64_t started_ms_ago;
    uint32_t total_partitions, partitions_done;
    char part_state[CZ_MAX_PARTITIONS]; /* per partition: 'p'ending 's'ynthesizing 'S'ynth_done 'g'pu 'd'one 'f'ailed */
    uint64_t part_synth_ms[CZ_MAX_PARTITIONS], part_gpu_ms[CZ_MAX_PARTITIONS];
    uint64_t part_witness_bytes[CZ_MAX_PARTITIONS]; /* host bytes of each synthesized partition's witness */
    bool witness_compact;                           /* the job's witnesses are compact (engine/witness.h) */
} cz_pipeline_info;

typedef struct {
    int worker_id, gpu_ordinal; /* CUDA ordinal; -1: the CPU backend */
    int device;                 /* index into cz_engine_status.gpus (-1: CPU) */
    bool busy;
    bool lost; /* its device is lost: the worker has stopped */
    char current_job[CZ_JOB_ID_MAX];
    int current_kind;
    int current_partition;
    uint64_t busy_ms;
} cz_worker_info;

/* One GPU the backend proves on (GetStatus gpus, /metrics cuzk_gpu_*). */
typedef struct {
    int ordinal; /* CUDA ordinal */
    char name[160];
    uint64_t vram_total, vram_free;
    int resident_circuits;    /* cz_gpu_info's */
    uint64_t circuit_uploads;
    bool lost; /* out of service for lost_ms_ago (cz_backend.device_lost); name and VRAM not asked since */
    char lost_reason[256];
    uint64_t lost_ms_ago;
    /* partitions' start()s run on it (uploads and kernels, the device's turn held) and their time, the one under
     * way included: busy_ms over a while is the share of it the GPU proved */
    uint64_t starts, busy_ms;
} cz_gpu_status;

typedef struct {
    uint64_t uptime_ms;
    bool shutting_down; /* new work refused: a drain (cz_engine_drain) or a shutdown under way */
    uint64_t completed, failed, cancelled;
    uint64_t completed_by_kind[5], failed_by_kind[5];
    uint32_t pending_by_kind[5], in_progress_by_kind[5]; /* queued jobs / jobs with partitions in flight */
    uint32_t queue_depth;                                /* queued jobs */
    uint32_t synth_active, synth_workers, gpu_queue_len;
    uint64_t budget_total, budget_used; /* used: partitions in flight + loaded SRS + the SRS being loaded +
                                         * staging_bytes + backend_host_bytes */
    uint64_t staging_bytes;             /* the prover workers' page-locked witness staging buffers */
    uint64_t backend_host_bytes;        /* host memory of the backend's provers (cz_backend.host_bytes) */
    uint64_t budget_peak;               /* the most budget_used has been since start */
    uint32_t srs_waiting;               /* queued jobs whose SRS load waits for memory (SRS_WAIT) */
    bool compact_witness;   /* synthesis.compact_witness in effect */
    uint64_t witness_bytes; /* host bytes of synthesized witnesses not yet through the prover's start */
    uint32_t witness_parts;   /* the partitions holding them (synthesized, queued or in start()) */
    uint32_t pending_handles; /* partitions through the prover's start, waiting for or in finish() */
    uint64_t partitions_synth[2], witness_bytes_synth[2]; /* since start, [0] dense, [1] compact */
    /* since start, by kind: partitions synthesized and their synthesis time; partitions whose start() began and how
     * long they waited for it after their synthesis (a prover worker, the prover's build, the device's turn) */
    uint64_t synth_by_kind[5], synth_ms_by_kind[5], started_by_kind[5], wait_ms_by_kind[5];
    uint64_t partition_retries;     /* partitions requeued for another GPU after theirs was lost */
    uint64_t partition_oom_retries; /* partitions queued once more after their start() ran out of device memory */
    uint64_t partition_yields;  /* partitions put back while waiting for a GPU's turn, for a more urgent one */
    /* srs.release_resident_bases: SRS bases whose host copy was freed (every GPU held them) and decoded again
     * (a GPU had to build its prover again) */
    uint64_t srs_bases_released, srs_bases_restored;
    /* PreloadSRS's GPU prover builds (one a device): under way, and ended with the prover ready or without it */
    uint64_t preload_builds_running, preload_builds_ready, preload_builds_failed;
    const char *backend;
    size_t n_srs, n_pipelines, n_workers, n_gpus;
    cz_gpu_status *gpus; /* the backend's devices (none for the CPU backend) */
    cz_srs_info *srs;
    cz_pipeline_info *pipelines;
    cz_worker_info *workers;
} cz_engine_status;

typedef struct cz_engine cz_engine;

int cz_engine_new(cz_engine **out, const cz_config *cfg);
/* Stops accepting work; cancel_running: cancel every job (running ones at the next partition boundary, SRS
 * loads at their next stage: cz_srs_abort),
 * else let them finish. Returns when no job is in flight. */
void cz_engine_shutdown(cz_engine *e, bool cancel_running);
/* A graceful stop's first part: refuses new work as cz_engine_shutdown does, lets the jobs already accepted run (queued
 * ones are still dispatched) and waits up to wait_ms for them to end; returns how many are unfinished. A daemon
 * calls it in slices until 0, its deadline or another signal, then cz_engine_shutdown(e, true) for the rest. */
uint32_t cz_engine_drain(cz_engine *e, uint64_t wait_ms);
void cz_engine_free(cz_engine *e);

/* CZ_EDEVICE ("no usable GPU: ...") once every GPU of the backend is lost. A refusal is counted in the metrics'
 * cuzk_requests_rejected_total (kind, reason from the code). */
int cz_engine_submit(cz_engine *e, const cz_submit *s, char job_id[CZ_JOB_ID_MAX], uint32_t *queue_position);
/* Counts a request refused before cz_engine_submit (the RPC layer's own checks) as cz_engine_submit counts its. */
void cz_engine_count_rejected(cz_engine *e, int kind, int rc);
/* timeout_ms 0 = wait until done; otherwise status CZ_JOB_TIMEOUT when not done in time. */
int cz_engine_await(cz_engine *e, const char *job_id, uint64_t timeout_ms, cz_result *out);
/* As cz_engine_await, but also returns (status CZ_JOB_CANCELLED, "client went away") once *gone is set
 * (then call cz_engine_kick). When the job came from a Prove call and no other caller awaits it, it is
 * cancelled: nobody is left to take the proof. */
int cz_engine_await_or_gone(cz_engine *e, const char *job_id, uint64_t timeout_ms, cz_result *out,
                            const atomic_int *gone);
/* Wakes the awaiters so they look at their gone flags. */
void cz_engine_kick(cz_engine *e);
void cz_result_free(cz_result *r);
int cz_engine_cancel(cz_engine *e, const char *job_id, bool *was_running);
/* PreloadSRS: loads a circuit's SRS under the memory budget as a job's load would (idle SRS evicted after
 * memory.eviction_min_idle when that makes it fit; one larger than the whole budget loads alone, with a
 * WARN). When it does not fit now, or a queued job waits for memory for its own SRS, CZ_EFULL at once with
 * the numbers: a preload is a hint that must not take memory jobs need, nor block its caller for minutes;
 * a job that needs the SRS loads it anyway. */
int cz_engine_preload(cz_engine *e, const char *circuit_id, bool *already_loaded, uint64_t *load_ms);
int cz_engine_evict(cz_engine *e, const char *circuit_id, bool *was_loaded, uint64_t *freed_bytes);
int cz_engine_status_get(cz_engine *e, cz_engine_status *st);
void cz_engine_status_free(cz_engine_status *st);
/* fn(arg) is called once, when the last GPU device is lost (after the unfinished jobs were failed), with the
 * engine lock held: it must only note the event (the daemon's wakes its main thread for
 * gpus.exit_when_all_lost). Set it before the first job. */
void cz_engine_on_all_lost(cz_engine *e, void (*fn)(void *arg), void *arg);
/* Tests: requests of `kind` go to circuit c whatever their sector size (NULL: the registry again). */
struct cz_circuit;
void cz_engine_set_circuit_for_test(cz_engine *e, int kind, const struct cz_circuit *c);
/* Tests: finished jobs are kept `ms` (10 minutes) and at most `max` of them (4096), pruned at the next submit. */
void cz_engine_set_retention_for_test(cz_engine *e, uint64_t ms, size_t max);
/* Prometheus text exposition (malloc'ed). */
char *cz_engine_metrics(cz_engine *e);

#endif
