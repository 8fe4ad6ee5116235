/* SRS manager: one entry per circuit, in one of three tiers (SRSStatus.Tier):
 *   HOT  - decoded parameters, R1CS and prepared vk resident for the backend (charged to the budget);
 *   WARM - the parameter file mmap'd, not decoded, its pages dropped (MADV_DONTNEED): promoting to HOT
 *          decodes from the mapping without reopening the file; costs address space, not budget;
 *   COLD - known on disk only (the file exists in srs.param_cache or srs.local_cache).
 * Entries are reference counted by the jobs that use them; only unreferenced HOT entries are demoted.
 * Under memory pressure the least recently used idle HOT entries drop to WARM. Loads are single-flight:
 * concurrent acquirers of a loading entry wait for the one load.
 *
 * Files: a circuit's official `v28-...params` in param_cache; when absent and the circuit allows it
 * (setup_seed: 2 KiB and the test circuit), a seeded local setup, written once to
 * <local_cache>/cuzk-test-<id>.params so later loads (and restarts) read it instead of redoing setup. */
#ifndef CZ_ENGINE_SRS_H
#define CZ_ENGINE_SRS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <stdatomic.h>

#include "engine/circuit.h"
#include "groth16/params.h"
#include "groth16/setup.h"
#include "groth16/verify.h"
#include "r1cs/r1cs.h"

enum { CZ_SRS_COLD = 0, CZ_SRS_LOADING = 1, CZ_SRS_HOT = 2, CZ_SRS_WARM = 3 };
/* What a LOADING entry is doing (/status and /metrics show it: a first 32 GiB PoRep load is a minute or more):
 * reading the file's layout, recording the circuit (the digest beside it), waiting for the digest, coding the
 * R1CS's coefficients, decoding the parameters, or a seeded setup. */
enum { CZ_SRS_STAGE_NONE = 0, CZ_SRS_STAGE_READING, CZ_SRS_STAGE_RECORDING, CZ_SRS_STAGE_DIGEST, CZ_SRS_STAGE_CODING,
       CZ_SRS_STAGE_DECODING, CZ_SRS_STAGE_SETUP };

typedef struct cz_srs_entry {
    const cz_circuit *circuit;
    int state; /* CZ_SRS_* */
    uint32_t refs;
    uint64_t bytes;      /* while HOT: decoded parameters + the R1CS's host bytes (what the budget counts) */
    uint64_t hot_bytes;  /* decoded bytes the last time it was HOT (0: never loaded); kept when demoted */
    uint64_t reserved;   /* cz_srs_reserve: counted as loaded until it is HOT or its load fails */
    uint64_t file_bytes; /* size of the parameter file (0: none on disk) */
    /* srs.release_resident_bases: HOT with its bases' host copy freed (params keeps lengths and vk; cz_srs_release_bases),
     * bases_bytes of them out of `bytes`; restoring while cz_srs_restore_bases decodes them again. */
    bool bases_released, restoring;
    uint64_t bases_bytes;
    uint64_t last_used_ms, load_ms;
    atomic_int stage;       /* CZ_SRS_STAGE_* while LOADING (set by the loading thread, read by the status) */
    uint64_t load_began_ms; /* while LOADING: when (under the manager lock) */
    bool seeded;         /* parameters from a seeded local setup (not official) */
    bool digest_ok;      /* the official file's digest was checked (once per entry) */
    char path[700];      /* the file it was / will be read from ("" none yet) */
    void *map;           /* WARM / HOT with a file: the read-only mapping */
    size_t map_len;
    /* the mapped file, kept open (map_fd - 1; 0: none) so that its size and time can be checked before the mapping is
     * read again: a file cut short in place under a mapping turns reads past its new end into SIGBUS */
    int map_fd1;
    struct timespec map_mtime;
    cz_r1cs r1cs;
    cz_groth16_params params;
    cz_groth16_pvk pvk;
    struct cz_srs_entry *next;
} cz_srs_entry;

/* A circuit's counted R1CS bytes (count_r1cs), kept for the manager's life: a count never changes. */
typedef struct cz_srs_count {
    const cz_circuit *circuit;
    uint64_t bytes; /* cz_r1cs_shape_bytes of the count; 0 when the count failed (then not tried again) */
    uint64_t params;  /* cz_groth16_params_bound of its shape: a seeded setup's size before it has a file; 0 likewise */
    struct cz_srs_count *next;
} cz_srs_count;

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    cz_srs_entry *head;
    cz_srs_count *counts; /* cz_srs_needs_load's counts (a circuit's first load on a host) */
    char param_cache[512], local_cache[512];
    int nthreads;
    /* srs.verify_digest: check an official file's BLAKE2b digest against parameters.json before its first
     * decode (param_digest.h); on by default (cz_srs_init), a mismatch fails the load naming both digests. */
    bool verify_digest;
    /* [testing] seeded_setup_any / seeded_setup_cache (config.h): a seeded setup for every circuit without
     * its official file, and whether seeded parameters are written to local_cache (cz_srs_init: false, true). */
    bool seeded_any, seeded_cache;
    /* The backend's fixed-base products for seeded setups (a GPU's; NULL: the CPU's). Each setup uses a copy. */
    const cz_groth16_fb_ops *fb_ops;
    /* Set by cz_srs_abort (daemon shutdown): a load in progress stops at its next stage boundary. */
    atomic_bool aborting;
} cz_srs_mgr;

/* local_cache "" = param_cache. Registers a COLD entry for every available circuit whose file exists. */
void cz_srs_init(cz_srs_mgr *m, const char *param_cache, const char *local_cache, int nthreads);
void cz_srs_destroy(cz_srs_mgr *m);
/* 0 when the circuit's parameters can be had (resident, on disk, or a seeded setup is allowed), else
 * CZ_ENOPARAMS naming the expected file and directory. */
int cz_srs_check(cz_srs_mgr *m, const cz_circuit *c);
/* Loads if needed (to HOT) and takes a reference. *load_ms: time this call spent loading (0 when hot). */
int cz_srs_acquire(cz_srs_mgr *m, const cz_circuit *c, cz_srs_entry **out, uint64_t *load_ms);
/* cz_srs_acquire of an SRS that is HOT now, without waiting: true with a reference taken, false (nothing taken)
 * when it is not HOT (the engine then acquires it on a thread of its own, so that a load does not hold up jobs
 * whose SRS is loaded). */
bool cz_srs_try_acquire(cz_srs_mgr *m, const cz_circuit *c, cz_srs_entry **out);
/* Whether c's SRS is HOT now (cz_srs_try_acquire would take it). */
bool cz_srs_hot(cz_srs_mgr *m, const cz_circuit *c);
void cz_srs_release(cz_srs_mgr *m, cz_srs_entry *e);
int cz_srs_preload(cz_srs_mgr *m, const cz_circuit *c, bool *already, uint64_t *load_ms);
/* cz_srs_preload that, on success, also takes nrefs references (each given back with cz_srs_release) and sets *ref
 * to the entry (NULL on failure): the engine's device prover builds after a PreloadSRS read it meanwhile. */
int cz_srs_preload_ref(cz_srs_mgr *m, const cz_circuit *c, bool *already, uint64_t *load_ms, cz_srs_entry **ref,
                       uint32_t nrefs);
/* One tier down: HOT -> WARM (COLD when there is no file), WARM -> COLD. *was_loaded: it was HOT;
 * *freed: decoded bytes released. CZ_EBUSY while referenced, and at once while loading (naming its stage). */
int cz_srs_evict(cz_srs_mgr *m, const cz_circuit *c, bool *was_loaded, uint64_t *freed);
/* Bytes of HOT parameters, plus the reservations of SRS not HOT yet (charged to the engine's memory budget). */
uint64_t cz_srs_loaded_bytes(cz_srs_mgr *m);
/* The part of cz_srs_loaded_bytes no eviction can free now: HOT entries referenced by jobs, and the
 * reservations and loads under way. What an SRS load that waits for memory can never get back while those
 * jobs run (engine.c: whether holding back lower-priority partitions can make room for it). */
uint64_t cz_srs_pinned_bytes(cz_srs_mgr *m);
/* Shutdown: loads stop at the next stage boundary (after the digest, the circuit recording, the decode;
 * before a seeded setup) with CZ_ECANCELED and leave their entry COLD or WARM; so does every later load.
 * Without it, stopping the daemon waits out a multi-minute 32 GiB load. */
void cz_srs_abort(cz_srs_mgr *m);
/* Memory pressure: demotes unreferenced HOT entries idle for at least min_idle_ms to WARM, least recently
 * used first, until need bytes are freed. Returns the bytes freed. */
uint64_t cz_srs_evict_idle(cz_srs_mgr *m, uint64_t need, uint64_t min_idle_ms);
/* Whether acquiring c's SRS would load it (it is neither HOT, nor being loaded, nor reserved for a load about to
 * start: cz_srs_reserve), and *bytes, what that load
 * adds to cz_srs_loaded_bytes: its size when it was last HOT, else its parameter file's size (the decoded
 * parameters are as large as the file) plus the R1CS size its last load noted in
 * <local_cache>/cuzk-r1cs-<id>.bytes, or, with no note (a circuit's first load on a host), the R1CS size
 * its count_r1cs hook gives (counted once per manager, outside the lock: 0.7 s at 32 GiB PoRep; no
 * hook: the file alone), else 0 (a seeded setup never written: 2 KiB circuits, small). bytes may be
 * NULL: the answer alone, without the file lookups and the count the estimate takes (the dispatcher asks
 * that of every queued job while one waits). */
bool cz_srs_needs_load(cz_srs_mgr *m, const cz_circuit *c, uint64_t *bytes);
/* Counts bytes in cz_srs_loaded_bytes for c's SRS until its next load ends (HOT: its real size counts
 * instead; failed: nothing): the engine reserves a load's memory before it starts, so that nothing else is
 * admitted into that memory meanwhile, and the two are never counted twice. */
int cz_srs_reserve(cz_srs_mgr *m, const cz_circuit *c, uint64_t bytes);
/* cz_srs_evict_idle, all or nothing: evicts only when the idle entries together free at least need bytes
 * (so nothing is demoted for a load that still would not fit). Returns the bytes freed. */
uint64_t cz_srs_make_room(cz_srs_mgr *m, uint64_t need, uint64_t min_idle_ms);
/* srs.release_resident_bases, once every GPU holds e's bases: frees their host copy (H, L, A, B_G1, B_G2; the
 * lengths, vk, pvk, R1CS and the file's mapping stay) and stops counting them in cz_srs_loaded_bytes (*freed). The
 * caller guarantees that nothing reads them meanwhile or later without cz_srs_restore_bases. Only for a HOT entry
 * read from a file, which can be decoded again: CZ_EUNSUPPORTED otherwise (a seeded setup held in memory only),
 * and for one released already (*freed 0). */
int cz_srs_release_bases(cz_srs_mgr *m, cz_srs_entry *e, uint64_t *freed);
/* Whether cz_srs_release_bases could free e's bases now (HOT, read from a file, not released or being restored). */
bool cz_srs_releasable(cz_srs_mgr *m, cz_srs_entry *e);
/* fn(ctx, &e->params, &e->r1cs) under the manager's lock, under which a release or restore changes e->params: what
 * fn reads of them is never freed meanwhile. fn must not block for long (the whole manager waits). */
bool cz_srs_with_params(cz_srs_mgr *m, cz_srs_entry *e, bool (*fn)(void *ctx, const cz_groth16_params *p,
                                                                   const cz_r1cs *r), void *ctx);
/* The bytes of e's bases while released (0 otherwise). */
uint64_t cz_srs_released_bytes(cz_srs_mgr *m, cz_srs_entry *e);
/* Decodes e's released bases again from its file and, between publish_begin(ctx) and publish_end(ctx) (the engine
 * takes every GPU's turn there, so no start() reads e->params while its pointers change), puts them back and
 * counts them again. Single-flight: a caller that finds another's decode under way waits for it (*ms 0). 0 at
 * once when nothing is released. The file must still hold the same bases (lengths and vk; CZ_EFORMAT naming the
 * file otherwise); its digest is not computed again. */
int cz_srs_restore_bases(cz_srs_mgr *m, cz_srs_entry *e, void (*publish_begin)(void *), void (*publish_end)(void *),
                         void *ctx, uint64_t *ms);

/* [testing] fn(path) runs before each read of a parameter file's mapping (digest, decode, restore); NULL: none. */
void cz_srs_set_read_hook_for_test(void (*fn)(const char *path));

/* SRSStatus tier of an entry (CZ_TIER_*; LOADING reports COLD). */
int cz_srs_tier(const cz_srs_entry *e);
/* A load stage's name ("reading", "recording", "digest", "coding", "decoding", "setup"); NULL for none. */
const char *cz_srs_stage_name(int stage);

#endif
