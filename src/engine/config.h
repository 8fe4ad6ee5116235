/* Daemon configuration: cuzk.toml's sections and keys (cuzk-spec §2.2) with cuzk's code defaults.
 * Unknown keys and deprecated keys give a warning; a wrong type or a bad size/duration is an error
 * naming the key and its line (cuzk silently fell back to defaults there). */
#ifndef CZ_ENGINE_CONFIG_H
#define CZ_ENGINE_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#define CZ_CONFIG_MAX_DEVICES 64

typedef struct {
    char listen[512];        /* daemon.listen: unix:///abs/path or IP:port; several separated by ',' */
    char status_listen[256]; /* daemon.status_listen: "" = off */
    uint64_t drain_timeout_s; /* daemon.drain_timeout: a SIGTERM's grace for accepted jobs (0: cancel them at once) */
    char param_cache[512];   /* srs.param_cache: official .params files */
    char local_cache[512];   /* srs.local_cache (ours): seeded local setups are cached here; "" = param_cache */
    bool verify_digest;      /* srs.verify_digest (ours): check official files against parameters.json's digest */
    /* srs.release_resident_bases (ours, default false): with a GPU backend, once every GPU in service holds a
     * resident prover of a circuit (its bases in device memory, not streamed), the host copy of that SRS's bases
     * (H, L, A, B_G1, B_G2: 47 GB at 32 GiB PoRep) is freed and no longer charged to memory.total_budget; the vk,
     * the R1CS and the file's mapping stay. A partition on a GPU that must build the prover again (after an
     * eviction) first decodes them again from the file (~17 s at 32 GiB on the H200 host; cz_srs_restore_bases).
     * For hosts that prove one circuit kind per GPU; where kinds share a GPU and evict each other, the copy saves
     * the decode. */
    bool release_resident_bases;
    bool test_circuit;       /* [testing] builtin_test_circuit (ours): 2 KiB PoRep uses the fast test circuit */
    /* [testing] seeded_setup_any (ours, default false): every circuit without its official parameter file
     * gets a seeded local setup (seed from the circuit id), not only 2 KiB: for benchmarks and end-to-end
     * runs at 32 GiB where the official files are absent. Proofs then verify only against that setup's key
     * and are worthless on chain. seeded_setup_cache (default true): write seeded parameters to
     * srs.local_cache (47 GB at 32 GiB PoRep); false keeps them in memory only (redone after eviction). */
    bool seeded_any, seeded_cache;
    char backend[16];        /* gpus.backend (ours): "auto" (GPU when built with CUDA and a device exists), "cpu", "gpu" */
    uint64_t total_budget;   /* memory.total_budget: 0 = auto (MemTotal - safety_margin) */
    uint64_t safety_margin;  /* memory.safety_margin */
    uint64_t eviction_min_idle_s;
    int devices[CZ_CONFIG_MAX_DEVICES]; /* gpus.devices; ndevices 0 = all */
    int ndevices;
    uint32_t gpu_threads, gpu_workers_per_device;
    uint32_t gpu_max_resident; /* gpus.max_resident_circuits (ours): provers kept per GPU, 0 = the backend's 8 */
    /* gpus.exit_when_all_lost (ours, default false): when every GPU is lost (a sticky CUDA error breaks the
     * process's context for good), the daemon fails the unfinished jobs, answers the waiting calls and exits
     * with status 75 (EX_TEMPFAIL), so that a supervisor restarts it with fresh contexts; false keeps it up,
     * refusing proofs with UNAVAILABLE and answering status and metrics, until an operator restarts it. */
    bool exit_when_all_lost;
    /* gpus.h_lagrange (ours, default false): resident GPU provers take the H query in Lagrange form (4 NTTs a
     * partition instead of 6: ~-61 ms of ~908 for a 32 GiB PoRep partition on an H200, docs/perf.md) for +n 96
     * bytes of device memory (12.9 GB at 32 GiB) and bases built on the device at the prover's creation (~8.5
     * minutes for a 32 GiB PoRep on an H200, holding that GPU) unless gpus.h_lagrange_cache (a directory; "":
     * none) holds them from an earlier build (25.8 GB a 32 GiB PoRep H, checked against H when loaded). */
    bool h_lagrange;
    char h_lagrange_cache[512];
    /* gpus.pair_sums (ours, default true): resident GPU provers keep each 0/1 query's pair sums (P_2i + P_2i+1)
     * beside its bases where they fit, L, A, B_G1, B_G2 in that order: the batch additions 0.78x, a 32 GiB PoRep
     * partition ~-10 ms on an H200, for up to 17.1 GB more device memory (docs/perf.md session 47). */
    bool pair_sums;
    uint32_t max_batch_size;
    uint64_t max_batch_wait_ms;
    bool sort_by_type;
    uint32_t max_pending; /* scheduler.max_pending (ours): unfinished jobs before RESOURCE_EXHAUSTED */
    uint32_t synthesis_threads;
    /* synthesis.compact_witness (ours, default true): circuits that can (PoRep) write each partition's
     * witness compact (bits packed, r1cs/wcompact.h) and hand it to the backend in that form. The
     * environment variable CUZK_COMPACT_WITNESS=0/1 overrides it (tests compare the two paths). */
    bool compact_witness;
    bool pipeline_enabled;
    uint32_t synthesis_lookahead, synthesis_concurrency, max_parallel_synthesis, max_gpu_queue_depth;
    uint64_t slot_size;
    char log_level[128], log_format[16]; /* log_level: a level, or an env_logger filter (cz_log_set_level) */
} cz_config;

void cz_config_defaults(cz_config *c);
/* Applies a TOML text / file over c. Warnings go to the log; the first error is returned (CZ_EFORMAT). */
int cz_config_load_text(cz_config *c, const char *text, const char *name);
int cz_config_load_file(cz_config *c, const char *path);
/* "auto"-resolved budget in bytes (MemTotal - safety_margin, 256 GiB if /proc/meminfo is unreadable). */
uint64_t cz_config_budget(const cz_config *c);

/* "32GiB", "512MiB", "5GB", "100MB", "4KiB", "123" (bytes). CZ_EINVAL when malformed. */
int cz_parse_size(const char *s, uint64_t *out);
/* "5m", "30s", "2h", "300" (seconds). */
int cz_parse_duration_s(const char *s, uint64_t *out);

#endif
