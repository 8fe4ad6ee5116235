/* Prover backends: start (the heavy part: a/b/c, H, MSMs) returns a pending handle, finish (blinding
 * and assembly) turns it into the 192-byte proof. The CPU backend wraps src/groth16/prover.h.
 *
 * The GPU seam: a GPU backend fills the same struct (ndevices > 0; start() runs on `device`, which the
 * engine serializes with one lock per device: workers of one GPU take turns inside start(), finish()
 * runs outside the lock). cuzk_core cannot link src/gpu (it builds on top of the core), so the program
 * that links the GPU library registers a provider before cz_engine_new (src/cli/cuzk_main.c when built
 * with CUDA); cz_backend_select then picks the GPU backend when gpus.backend allows it, a device exists
 * and the provider has an init, else the CPU backend. */
#ifndef CZ_ENGINE_BACKEND_H
#define CZ_ENGINE_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/config.h"
#include "ff/fr.h"
#include "groth16/params.h"
#include "groth16/proof.h"
#include "groth16/setup.h"
#include "r1cs/r1cs.h"
#include "r1cs/wcompact.h"

/* One GPU as GetStatus / metrics describe it. */
typedef struct {
    char name[160]; /* cz_gpu_describe: "NVIDIA H200, 132 SMs, 139.8 GiB, sm_90" */
    uint64_t vram_total, vram_free;
    int resident_circuits;    /* provers (SRS bases + matrices) resident on the device now */
    uint64_t circuit_uploads; /* provers built there (each uploads a circuit's SRS and matrices) */
} cz_gpu_info;

typedef struct cz_backend {
    const char *name;
    int ndevices;           /* 0 for the CPU backend */
    int nthreads;           /* host threads each start() may use */
    void *impl;             /* backend private state */
    int (*start)(struct cz_backend *b, int device, const cz_groth16_params *p, const cz_r1cs *r, const cz_fr *inputs,
                 const cz_fr *aux, void **pending);
    int (*finish)(struct cz_backend *b, void *pending, const cz_groth16_vk *vk, uint8_t proof[CZ_GROTH16_PROOF_BYTES]);
    void (*discard)(struct cz_backend *b, void *pending);
    void (*destroy)(struct cz_backend *b); /* may be NULL */
    /* GPU backends: the CUDA ordinal of engine device i (gpus.devices; NULL: i itself) and a description
     * of engine device i (may be NULL). */
    const int *ordinals;
    int (*describe)(struct cz_backend *b, int device, cz_gpu_info *out);
    /* Optional: start() with aux as a compact witness (r1cs/wcompact.h: bitmaps for the 0/1 values, the
     * rest dense; aux->n = r->num_aux), giving the same pending as start() with the dense aux. NULL: the
     * engine expands the witness and calls start() (cz_backend_start_witness, engine/witness.h). */
    int (*start_compact)(struct cz_backend *b, int device, const cz_groth16_params *p, const cz_r1cs *r,
                         const cz_fr *inputs, const cz_wcompact *aux, void **pending);
    /* start_compact builds the 32-byte aux in host memory for the duration of the call (the CPU backend:
     * its prover reads dense values), so the engine keeps the dense witness charged to the budget. False:
     * the backend never holds the dense form on the host (the GPU expands it on the device). */
    bool compact_expands;
    /* Optional (GPU backends): after start() on `device` failed, whether the device can no longer be used (its
     * context is broken: a sticky CUDA error, the GPU fell off the bus, ...), with why (why_len bytes) naming
     * the cause. The engine calls it inside the device's lock and then takes the device out of service, its
     * partitions going to the other devices. NULL: devices are never lost (the CPU backend). */
    bool (*device_lost)(struct cz_backend *b, int device, char *why, size_t why_len);
    /* Optional (GPU backends): page-locked host memory for device `device` (cudaMallocHost), and its release.
     * Each worker of the engine keeps one such buffer and copies a witness into it before it takes the
     * device's lock (cz_witness_stage_copy), so that start() uploads from page-locked memory at full speed
     * without locking pages itself: page-locking (or unlocking) 87 MB per 32 GiB PoRep partition held the
     * device idle ~13 ms inside the lock, and outside it stalled the other worker's CUDA calls as long.
     * 0 or an error (the engine then hands start() the witness as it is). NULL: no staging. */
    int (*host_alloc)(struct cz_backend *b, int device, void **p, uint64_t bytes);
    void (*host_free)(struct cz_backend *b, void *p);
    /* Optional (GPU backends): host bytes the backend holds of its own beside the SRS it was handed, all devices
     * together (page-locked: a prover's matrices in host memory, its staging buffers; for the while: a Lagrange-form
     * prover's fold of C into L at its creation, ~3.5 GB at 32 GiB). The engine counts them in
     * memory.total_budget with its staging buffers; called under the engine's lock, so it must not block. NULL: 0. */
    uint64_t (*host_bytes)(struct cz_backend *b);
    /* Optional (GPU backends): fixed-base products for seeded setups (groth16/setup.h) on the backend's first
     * device. NULL: the setup runs them on the CPU. */
    const cz_groth16_fb_ops *setup_ops;
    /* Optional (GPU backends): whether `device` holds a prover for (p, r) that never reads p's bases (H, L, A,
     * B_G1, B_G2) from host memory again: resident on the device, bases not streamed, B_G2 on the device. The
     * engine frees the host copy of the bases when every device in service holds one (srs.release_resident_bases):
     * it asks after a start() under its SRS manager's lock (so it must not block: false when it cannot tell at
     * once), then again with every device's turn taken, so no start() runs meanwhile. A backend that has it must, in
     * start() and start_compact(), return CZ_ENOBASES at once, with nothing changed, when p's bases are released
     * (cz_groth16_params_bases_released) and it would need them (no such prover on the device, e.g. after an
     * eviction): the engine then decodes them again and retries the partition. NULL: never released. */
    bool (*holds_bases)(struct cz_backend *b, int device, const cz_groth16_params *p, const cz_r1cs *r);
    /* Optional (GPU backends): makes ready on `device` what start() needs for (p, r) (the GPU backend: its prover,
     * built when the device holds none; aux or caux is the partition's witness, a hint for the build), so that a
     * build of seconds or minutes (a Lagrange-form H without its cache file: 8.3 minutes at 32 GiB) runs outside
     * the device's turn and other circuits' partitions keep proving on the device meanwhile. The engine calls it
     * before it waits for the turn. 0: ready (start() may still build, if the prover was evicted since);
     * CZ_EBUILDING, at once: another thread is building a prover on the device (the engine waits and asks again,
     * giving its place to a partition that outranks this one); another error: start() is called all the same and
     * reports its own. NULL: start() does everything. With aux and caux both NULL (PreloadSRS: the engine builds
     * the devices' provers ahead of any job, engine.c warm_main), dense_hint is the count of aux values outside
     * {0, 1} a witness of the circuit is expected to have (UINT64_MAX: unknown), which the build plans for as it
     * would for a witness's; ignored otherwise. Such a build is a hint: it evicts no resident prover (CZ_ENOROOM
     * where it would have to; a job's partition then builds it, evicting the least recently used idle one). */
    int (*prepare)(struct cz_backend *b, int device, const cz_groth16_params *p, const cz_r1cs *r, const cz_fr *aux,
                   const cz_wcompact *caux, uint64_t dense_hint);
    /* Optional: the engine is shutting down and cancels its work (cz_engine_shutdown with cancel_running). A build
     * under way in prepare() or start() stops at its next step and fails with CZ_ECANCELED, having freed what it
     * allocated, and none begins afterwards (those calls answer CZ_ECANCELED where they would build), so the
     * shutdown does not wait out a build of minutes. Resident provers keep proving. NULL: a shutdown waits for a
     * build under way to end. */
    void (*abort_builds)(struct cz_backend *b);
    /* Optional (GPU backends): frees what `device` keeps allocated between start() calls beside its provers (the
     * MSM and batch-add scratch, grown on demand), after a start() there failed with CZ_ENOMEM. The engine calls it
     * inside the device's turn, then queues the partition once more; the next start() grows the scratch again,
     * sized to the memory free then. NULL: such a failure fails the job at once. */
    void (*trim)(struct cz_backend *b, int device);
} cz_backend;

/* nthreads 0 = OpenMP's default. Its start_compact expands the witness to dense (the CPU prover reads
 * 32-byte values) for the call only. */
void cz_backend_cpu_init(cz_backend *b, int nthreads);

typedef struct {
    int (*device_count)(void); /* cz_gpu_device_count */
    /* Fills b for the devices in cfg->devices (all when ndevices is 0); the daemon's is
     * src/cli/gpu_provider.c over src/gpu's cz_backend_gpu_init. */
    int (*init)(cz_backend *b, const cz_config *cfg, int nthreads);
    /* optional: why device_count found none (cz_gpu_no_device_why), for the startup message */
    void (*no_device_why)(char *why, size_t n);
    /* optional: device `ordinal` described without opening it (no CUDA context: cz_gpu_peek): desc its name,
     * SMs, memory and sm_XY; 0 when this build may run on it (the open at start decides), CZ_EUNSUPPORTED when
     * the build's architecture list rules it out (why says so), another error when it cannot be queried. */
    int (*peek)(int ordinal, char *desc, size_t dn, char *why, size_t wn);
} cz_gpu_provider;

void cz_backend_set_gpu_provider(const cz_gpu_provider *p);
/* The CUDA ordinals a GPU backend proves on, into ords (CZ_CONFIG_MAX_DEVICES entries): cfg's gpus.devices,
 * or every one of the n devices when it is empty, each asked usable() (cz_gpu_arch_check: does this build
 * have kernels for it). Returns how many, or: CZ_EINVAL when gpus.devices names an ordinal that does not
 * exist or names one twice; usable()'s error when gpus.devices names a device it refuses; CZ_EUNSUPPORTED
 * when no device is left. Without gpus.devices a refused device is skipped with a warning naming why. */
int cz_backend_pick_devices(const cz_config *cfg, int n, int (*usable)(int ord, char *why, size_t len), int *ords);
/* gpus.backend "cpu": CPU. "auto": GPU when a provider with an init and a device exist, else CPU.
 * "gpu": GPU or an error (CZ_EUNSUPPORTED naming what is missing). */
int cz_backend_select(cz_backend *b, const cz_config *cfg, int cpu_threads);
/* What cz_backend_select would do on this host, without opening a device (cuzk --check-config): one line to
 * line(ctx, text) for each device the provider lists (peek), then the GPUs it would prove on and how many workers,
 * or why it would prove on the CPU. Returns 0, or 1 when the config asks for GPUs it would not get: gpus.backend
 * "gpu" without one, or gpus.devices naming a GPU that does not exist, twice, or one the build cannot run on (with
 * "auto" the daemon would then prove on the CPU: a typo that slows every proof, so it is an error here). */
int cz_backend_check(const cz_config *cfg, void (*line)(void *ctx, const char *text), void *ctx);

#endif
