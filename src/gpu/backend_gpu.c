/* The GPU prover as an engine backend (src/engine/backend.h). Lives in src/gpu so that it is built only
 * with CUDA (cuzk_core, where the engine is, builds without it); the engine picks it with
 * cz_backend_gpu_init when cuzk_gpu is linked.
 * Residency: each device keeps a cz_gpu_prover per (params, r1cs) pair it has proved, as many as fit (up to
 * CZ_GPU_MAX_RESIDENT, default 8): a farm that interleaves PoRep with WindowPoSt / WinningPoSt / SnapDeals
 * keeps every circuit's bases and matrices on a big GPU instead of re-uploading tens of GB at each switch.
 * A new pair that does not fit (its creation fails with CZ_ENOMEM) evicts the least recently used idle
 * prover of the device and tries again; when every other prover is busy it waits for one to go idle. A
 * pair is recognised by its pointers AND a fingerprint of their contents (sizes, first H and L bases,
 * matrix sizes), so params freed by an SRS eviction and another circuit's loaded at the same address never
 * reuse stale device bases (such a prover is dropped when idle). Creation and destruction hold the device
 * lock (cz_gpu_lock), which start() holds for its device region: the MSM scratch that a destruction frees
 * is shared by the device's provers.
 * Builds: the engine asks for a partition's prover before it takes the device's turn (cz_backend.prepare), and a
 * build runs without the device's mutex (its slot marked building; one build a device at a time, a second circuit
 * that needs one waits for it unless it is small: a Winning PoSt's prover is built beside a PoRep's, g_small_build),
 * so the resident provers of other circuits keep proving meanwhile. The long parts of a
 * build (the Lagrange-form H's bases: 8.3 minutes at 32 GiB without their cache file) give the device lock to its
 * waiters between pieces of ~0.6 s (cz_gpu_lock_yield_) and let it go for host work, so a Winning PoSt's partition
 * waits for a piece, not for the build.
 * Streamed bases (gpu_prover.h): while other provers are resident, a new pair is created resident, or streamed
 * only when it would stream even alone on the device with the same plan (CZ_GPU_PROVER_BESIDE: a 32 GiB PoRep's on
 * an 80 GB card beside a Winning PoSt's, which stays); else idle ones are evicted first, and alone on the device
 * (nothing left to evict) it may stream its bases from host memory. A streamed prover is a resident like any
 * other (its device bytes are the non-base part) and stays streamed until evicted. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "engine/backend.h"
#include "engine/log.h"
#include "gpu/gpu.h"
#include "gpu/gpu_internal.h"
#include "gpu/gpu_prover.h"

#define MAX_DEV 64
#define MAX_RES 8

/* What identifies the (params, r1cs) a prover was built from, beyond their addresses. */
typedef struct {
    size_t h_len, l_len, a_len, b_len;
    cz_g1_affine h0, l0;
    uint64_t inputs, aux, rows, nnz[3];
} fingerprint;

static void fingerprint_of(fingerprint *f, const cz_groth16_params *p, const cz_r1cs *r) {
    memset(f, 0, sizeof *f);
    f->h_len = p->h_len, f->l_len = p->l_len, f->a_len = p->a_len, f->b_len = p->b_len;
    if (p->h_len && p->h) f->h0 = p->h[0];
    if (p->l_len && p->l) f->l0 = p->l[0];
    f->inputs = r->num_inputs, f->aux = r->num_aux, f->rows = r->num_rows;
    f->nnz[0] = cz_r1cs_nnz(&r->a), f->nnz[1] = cz_r1cs_nnz(&r->b), f->nnz[2] = cz_r1cs_nnz(&r->c);
}

/* A slot's fingerprint against the pair at hand; with p's bases released (srs.release_resident_bases: the engine
 * frees them only while every device holds them, and the entry's params stay at one address for the circuit), all
 * but their first points. */
static bool fingerprint_same(const fingerprint *slot, const fingerprint *f, const cz_groth16_params *p) {
    if (!cz_groth16_params_bases_released(p)) return memcmp(slot, f, sizeof *f) == 0;
    fingerprint a = *slot;
    memset(&a.h0, 0, sizeof a.h0), memset(&a.l0, 0, sizeof a.l0);
    return memcmp(&a, f, sizeof *f) == 0;
}

typedef struct {
    cz_gpu_prover *pr; /* NULL: free slot (or one being built) */
    int building;      /* a thread builds the prover of (p, r) into it, without the device's mutex */
    int small;         /* that build is small (small_build): another may run beside it */
    const cz_groth16_params *p;
    const cz_r1cs *r;
    fingerprint fp;
    int users;
    uint64_t used; /* tick of the last acquire (LRU) */
    uint64_t host; /* cz_gpu_prover_host_bytes at creation (in g_host_bytes) */
} slot;

static struct {
    pthread_mutex_t mu;
    pthread_cond_t idle; /* signalled when a prover's users drops to 0 */
    slot s[MAX_RES];
    uint64_t tick, created, evicted, failed;
} g_dev[MAX_DEV];
static int g_max_res = MAX_RES;
/* Page-locked host bytes of every device's provers (cz_gpu_prover_host_bytes), read by the engine under its own
 * lock (cz_backend.host_bytes): an atomic, not the devices' mutexes, which a creation holds for seconds. */
static _Atomic uint64_t g_host_bytes;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
/* A prover whose bases and maps (cz_gpu_prover_floor_bytes) are at most this is built beside another build under
 * way on its device instead of waiting for it (a 32 GiB Winning PoSt's: 0.2 GB, built in ~0.1-2 s, beside a PoRep's
 * Lagrange build of 8.3 minutes). Small against the safety margin the big build planned with (1 GiB + 2 % of the
 * device), which is what it takes from. CZ_GPU_SMALL_BUILD_KB overrides (tests). */
static size_t g_small_build = (size_t)512 << 20;
static void init_once(void) {
    for (int i = 0; i < MAX_DEV; i++) {
        pthread_mutex_init(&g_dev[i].mu, NULL);
        pthread_cond_init(&g_dev[i].idle, NULL);
    }
    const char *e = getenv("CZ_GPU_MAX_RESIDENT");
    if (e && atoi(e) >= 1) g_max_res = atoi(e) < MAX_RES ? atoi(e) : MAX_RES;
    e = getenv("CZ_GPU_SMALL_BUILD_KB");
    if (e && *e) g_small_build = (size_t)atoll(e) << 10;
}

/* With the device's mutex held; the prover must be idle. */
static void drop(int dev, slot *sl, const char *why) {
    const uint64_t t0 = cz_now_ms();
    cz_gpu_lock(dev);
    cz_gpu_prover_destroy(sl->pr);
    cz_gpu_unlock(dev);
    atomic_fetch_sub(&g_host_bytes, sl->host);
    cz_log(CZ_LOG_INFO, "cuzk::gpu", "device %d: idle prover of %llu rows dropped in %llu ms (%s)", dev,
           (unsigned long long)sl->fp.rows, (unsigned long long)(cz_now_ms() - t0), why);
    memset(sl, 0, sizeof *sl);
    g_dev[dev].evicted++;
}

/* The aux values outside {0, 1} of the witness at hand (a compact one's count, else counted on all threads),
 * for a prover created for it (cz_gpu_prover_create_hint: a PoSt witness is ~99 % of them, a PoRep one ~1.3 %);
 * without one (a PreloadSRS build), the engine's hint. */
static uint64_t dense_count(const cz_r1cs *r, const cz_fr *aux, const cz_wcompact *caux, uint64_t hint) {
    if (caux) return caux->n_dense;
    if (!aux) return hint;
    uint64_t n = 0;
    const int64_t na = (int64_t)r->num_aux;
#pragma omp parallel for reduction(+ : n) schedule(static)
    for (int64_t i = 0; i < na; i++) {
        uint64_t one;
        n += !cz_wcompact_kind_(&aux[i], &one);
    }
    return n;
}

/* The device's prover of (p, r), found or built (then *out is in use: release it). With nowait (prepare), returns
 * CZ_EBUILDING at once instead of waiting while another thread builds a prover on the device. Without a witness (aux
 * and caux NULL: a PreloadSRS's build, with hint), CZ_ENOROOM where a build would first evict a resident prover. A
 * build runs without the device's mutex (its slot marked building: one build a device at a time, or a small one
 * beside a big one; other circuits' resident provers are found meanwhile) and with the device lock, which the long
 * parts give up in turns (cz_gpu_lock_yield_). */
static int acquire(cz_gpu_prover **out, int dev, const cz_groth16_params *p, const cz_r1cs *r, const cz_fr *aux,
                   const cz_wcompact *caux, uint64_t hint, bool nowait) {
    int rc = 0;
    *out = NULL;
    fingerprint fp;
    fingerprint_of(&fp, p, r);
    pthread_mutex_lock(&g_dev[dev].mu);
    for (;;) {
        slot *hit = NULL, *lru = NULL, *free_slot = NULL;
        int resident = 0, stale_busy = 0, building = 0, building_big = 0, building_this = 0;
        for (int i = 0; i < MAX_RES; i++) {
            slot *sl = &g_dev[dev].s[i];
            if (sl->building) {
                building++;
                building_big += !sl->small;
                building_this |= sl->p == p && sl->r == r;
                continue;
            }
            if (!sl->pr) {
                if (!free_slot) free_slot = sl;
                continue;
            }
            if (sl->p == p && sl->r == r) {
                if (fingerprint_same(&sl->fp, &fp, p)) {
                    hit = sl;
                    break;
                }
                if (sl->users) { /* stale (same addresses, other contents): dropped once idle */
                    stale_busy = 1;
                } else {
                    drop(dev, sl, "its parameters were replaced at the same address");
                    if (!free_slot) free_slot = sl;
                    continue;
                }
            }
            resident++;
            if (!sl->users && (!lru || sl->used < lru->used)) lru = sl;
        }
        if (hit) {
            hit->users++;
            hit->used = ++g_dev[dev].tick;
            *out = hit->pr;
            break;
        }
        /* this pair's build or another's: one build a device at a time, but for a small one beside a big one (a
         * Winning PoSt's during a PoRep's Lagrange build: its deadline is seconds) */
        const int small = cz_gpu_prover_floor_bytes(p) <= g_small_build;
        if (building && (building_this || !small || building > building_big || resident + building >= g_max_res)) {
            if (nowait) {
                rc = CZ_EBUILDING;
                break;
            }
            pthread_cond_wait(&g_dev[dev].idle, &g_dev[dev].mu);
            continue;
        }
        if (cz_gpu_prover_builds_aborted()) { /* a daemon shutting down: no build of minutes for work it cancels */
            rc = cz_error(CZ_ECANCELED, "device %d holds no prover for these %llu rows and builds were aborted (the "
                          "daemon is shutting down)", dev, (unsigned long long)fp.rows);
            break;
        }
        if (cz_groth16_params_bases_released(p)) { /* a prover to build, from bases no longer in host memory */
            rc = cz_error(CZ_ENOBASES, "device %d holds no prover for these %llu rows and their bases' host copy was "
                          "released", dev, (unsigned long long)fp.rows);
            break;
        }
        if (!stale_busy && resident < g_max_res && free_slot) {
            /* the residents' scratch is grown on first use and shared: keep room for the largest, less what
             * is grown already (the free memory counts that as used: a PoRep prover's ~20 GiB counted twice
             * made a 0.2 GiB Winning PoSt prover evict it on the H200) */
            size_t margin = 0, fr, tot, others = 0; /* others: what the residents hold (freed were all dropped) */
            for (int i = 0; i < MAX_RES; i++)
                if (g_dev[dev].s[i].pr) {
                    const size_t w = cz_gpu_prover_work_reserve(g_dev[dev].s[i].pr);
                    margin = w > margin ? w : margin;
                    others += cz_gpu_prover_held_bytes(g_dev[dev].s[i].pr);
                }
            bool info = !cz_gpu_set_device(dev);
            size_t held = 0;
            if (info) { /* the scratch grows inside start()'s device region: both read outside one */
                cz_gpu_lock(dev);
                info = !cz_gpu_mem_info(&fr, &tot);
                if (resident) held = cz_gpu_g1_scratch_held() + cz_gpu_g2_scratch_held();
                cz_gpu_unlock(dev);
            }
            others += held; /* the last prover's destroy releases the shared scratch */
            margin = margin > held ? margin - held : 0;
            if (margin && info)
                margin += cz_gpu_prover_default_margin(tot);
            else
                margin = 0;
            /* its bases alone do not fit beside the residents: an idle one goes (or we wait for one) without
             * a create that would code the matrices (~1 s at 32 GiB) only to fail */
            const size_t floor = cz_gpu_prover_floor_bytes(p);
            /* as create() will count: alone = free were the residents dropped, beside them = free now */
            const bool streams = info && floor > cz_gpu_prover_usable(fr, tot, others, 0); /* even alone */
            if (resident && info && !streams && floor > cz_gpu_prover_usable(fr, tot, 0, margin)) {
                cz_log(CZ_LOG_DEBUG, "cuzk::gpu", "device %d: a prover of %llu rows needs %.2f GiB for its bases, "
                       "%.2f GiB free beside %d resident(s)", dev, (unsigned long long)fp.rows, floor / 1073741824.0,
                       fr / 1073741824.0, resident);
                goto make_room;
            }
            /* resident only while idle residents could make room; streamed bases only when it cannot fit
             * even alone (streaming the PoRep bases every partition costs more than evicting an idle
             * WindowPoSt prover), beside them only with the plan it has alone (BESIDE) */
            free_slot->building = 1;
            free_slot->small = small;
            free_slot->p = p, free_slot->r = r, free_slot->fp = fp;
            pthread_mutex_unlock(&g_dev[dev].mu);
            const uint64_t dense = dense_count(r, aux, caux, hint);
            cz_gpu_prover *built = NULL;
            cz_gpu_lock(dev);
            cz_gpu_lock_whole_(building > 0); /* beside a big build: in one go, not a piece of the big one's a step */
            const uint64_t t0 = cz_now_ms();
            rc = resident ? cz_gpu_prover_create_beside(&built, dev, p, r, margin, dense, others)
                          : cz_gpu_prover_create_hint(&built, dev, p, r, margin, CZ_GPU_PROVER_AUTO, dense);
            cz_gpu_lock_whole_(0);
            cz_gpu_unlock(dev);
            pthread_mutex_lock(&g_dev[dev].mu);
            free_slot->building = 0;
            free_slot->pr = built;
            pthread_cond_broadcast(&g_dev[dev].idle); /* those waiting for the build */
            if (!rc) {
                char why[1200];
                cz_gpu_prover_build_report(free_slot->pr, why, sizeof why);
                cz_log(CZ_LOG_INFO, "cuzk::gpu", "device %d: prover for %llu constraints built in %llu ms (%s): %s", dev,
                       (unsigned long long)r->num_constraints, (unsigned long long)(cz_now_ms() - t0),
                       cz_gpu_prover_is_beside(free_slot->pr)     ? "streamed bases, the other provers kept"
                       : cz_gpu_prover_is_streamed(free_slot->pr) ? "streamed bases"
                                                                  : "resident",
                       why);
                free_slot->p = p, free_slot->r = r, free_slot->fp = fp;
                free_slot->host = cz_gpu_prover_host_bytes(free_slot->pr);
                atomic_fetch_add(&g_host_bytes, free_slot->host);
                free_slot->users = 1;
                free_slot->used = ++g_dev[dev].tick;
                g_dev[dev].created++;
                *out = free_slot->pr;
                break;
            }
            memset(free_slot, 0, sizeof *free_slot);
            if (rc == CZ_ENOMEM && resident) g_dev[dev].failed++;
            if (rc != CZ_ENOMEM || resident == 0) break; /* nothing to make room with */
            /* the device's mutex was let go during the build: the residents are counted again */
            lru = NULL, resident = 0;
            for (int i = 0; i < MAX_RES; i++) {
                slot *sl = &g_dev[dev].s[i];
                if (!sl->pr) continue;
                resident++;
                if (!sl->users && (!lru || sl->used < lru->used)) lru = sl;
            }
            if (!resident) { /* gone meanwhile: alone now, it may take the whole device (or stream) */
                rc = 0;
                continue;
            }
        }
    make_room:
        if (!aux && !caux) { /* a PreloadSRS's build (no witness): a hint, which evicts no resident prover */
            rc = cz_error(CZ_ENOROOM, "device %d: a prover of %llu rows does not fit beside the %d resident "
                          "one(s)%s; a PreloadSRS evicts none", dev, (unsigned long long)fp.rows, resident,
                          resident >= g_max_res ? " (gpus.max_resident_circuits)" : " in the device's memory");
            break;
        }
        if (lru) { /* room (memory or a slot): the least recently used idle prover goes */
            drop(dev, lru, resident >= g_max_res ? "least recently used: gpus.max_resident_circuits reached"
                                                  : "least recently used: room for another circuit's prover");
            rc = 0;
            continue;
        }
        pthread_cond_wait(&g_dev[dev].idle, &g_dev[dev].mu); /* every other prover is busy */
        rc = 0;
    }
    pthread_mutex_unlock(&g_dev[dev].mu);
    return rc;
}

/* With the device's mutex held: whether a thread builds a prover on dev now. */
static bool building_on(int dev) {
    for (int i = 0; i < MAX_RES; i++)
        if (g_dev[dev].s[i].building) return true;
    return false;
}

/* cz_backend.holds_bases: a prover of (p, r) on dev that never reads p's bases again (busy: false). */
static bool gpu_holds_bases(cz_backend *b, int dev, const cz_groth16_params *p, const cz_r1cs *r) {
    (void)b;
    if (dev < 0 || dev >= MAX_DEV) return false;
    pthread_once(&g_once, init_once);
    fingerprint fp;
    fingerprint_of(&fp, p, r);
    bool held = false;
    /* never waits: the engine asks under its SRS manager's lock, and the device's mutex may be held by a drop (a
     * destroy, up to ~1 s at 32 GiB); busy means not known to hold them */
    if (pthread_mutex_trylock(&g_dev[dev].mu)) return false;
    /* nor while a prover is built there (cz_backend.prepare, outside the engine's turns): the engine frees the bases
     * right after asking, and a build that evicts this pair's prover and then builds it again must find them */
    const bool busy = building_on(dev);
    for (int i = 0; i < MAX_RES && !held && !busy; i++) {
        const slot *sl = &g_dev[dev].s[i];
        held = sl->pr && sl->p == p && sl->r == r && fingerprint_same(&sl->fp, &fp, p) &&
               !cz_gpu_prover_reads_host_bases(sl->pr);
    }
    pthread_mutex_unlock(&g_dev[dev].mu);
    return held;
}

static void release(int dev, const cz_gpu_prover *pr) {
    pthread_mutex_lock(&g_dev[dev].mu);
    for (int i = 0; i < MAX_RES; i++)
        if (g_dev[dev].s[i].pr == pr && --g_dev[dev].s[i].users == 0) pthread_cond_broadcast(&g_dev[dev].idle);
    pthread_mutex_unlock(&g_dev[dev].mu);
}

uint64_t cz_backend_gpu_failed_creates(int dev) {
    if (dev < 0 || dev >= MAX_DEV) return 0;
    pthread_once(&g_once, init_once);
    pthread_mutex_lock(&g_dev[dev].mu);
    const uint64_t n = g_dev[dev].failed;
    pthread_mutex_unlock(&g_dev[dev].mu);
    return n;
}

void cz_backend_gpu_residency(int dev, int *resident, uint64_t *created, uint64_t *evicted) {
    pthread_once(&g_once, init_once);
    *resident = 0, *created = *evicted = 0;
    if (dev < 0 || dev >= MAX_DEV) return;
    pthread_mutex_lock(&g_dev[dev].mu);
    for (int i = 0; i < MAX_RES; i++) *resident += g_dev[dev].s[i].pr != NULL;
    *created = g_dev[dev].created, *evicted = g_dev[dev].evicted;
    pthread_mutex_unlock(&g_dev[dev].mu);
}

bool cz_backend_gpu_building(int dev) {
    pthread_once(&g_once, init_once);
    if (dev < 0 || dev >= MAX_DEV) return false;
    pthread_mutex_lock(&g_dev[dev].mu);
    const bool b = building_on(dev);
    pthread_mutex_unlock(&g_dev[dev].mu);
    return b;
}

void cz_backend_gpu_set_max_resident(int n) {
    pthread_once(&g_once, init_once);
    g_max_res = n < 1 ? 1 : n > MAX_RES ? MAX_RES : n;
}

/* aux or caux (compact) */
static int start_either(cz_backend *b, int device, const cz_groth16_params *p, const cz_r1cs *r, const cz_fr *inputs,
                        const cz_fr *aux, const cz_wcompact *caux, void **pending) {
    if (device < 0 || device >= b->ndevices || device >= MAX_DEV)
        return cz_error(CZ_EINVAL, "gpu backend: no device %d (%d found)", device, b->ndevices);
    pthread_once(&g_once, init_once);
    cz_groth16_pending *pd = malloc(sizeof *pd);
    if (!pd) return cz_error(CZ_ENOMEM, "gpu backend: out of memory");
    cz_gpu_prover *pr;
    cz_gpu_prove_stats st;
    memset(&st, 0, sizeof st);
    const double t0 = cz_gpu_now_ms_();
    int rc = acquire(&pr, device, p, r, aux, caux, UINT64_MAX, false);
    const double t1 = cz_gpu_now_ms_();
    if (!rc) {
        rc = caux ? cz_gpu_prover_start_compact(pd, pr, inputs, caux, b->nthreads, &st)
                  : cz_gpu_prover_start(pd, pr, inputs, aux, b->nthreads, &st);
        release(device, pr);
    }
    const double t2 = cz_gpu_now_ms_();
    if (rc) {
        free(pd);
        return rc;
    }
    /* cuzk's per-partition CUZK_TIMING figures under its names (cuzk-spec §3), one line a partition; then
     * acquire_ms (finding or creating the prover), pre_ms and lock_ms (start()'s host work before the device
     * lock, its wait for it), start_ms (the prover's start() as a whole, gpu_total_ms included), and how long
     * B_G2 ran beside the G1 tail MSM and was then waited for (g2_tail_ms, g2_wait_ms), and the MSM scratch
     * buffers grown in the region with the time that took (scratch_grows, scratch_grow_ms) */
    cz_log(CZ_LOG_DEBUG, "cuzk::gpu",
           "CUZK_TIMING device=%d upload_ms=%.1f spmv_ms=%.1f ntt_ms=%.1f h_msm_ms=%.1f ntt_msm_h_ms=%.1f "
           "batch_add_ms=%.1f tail_msm_ms=%.1f b_g2_msm_ms=%.1f gpu_total_ms=%.1f acquire_ms=%.1f pre_ms=%.1f lock_ms=%.1f start_ms=%.1f htod_bytes=%llu tails=%llu,%llu,%llu g2_tail_ms=%.1f g2_wait_ms=%.1f scratch_grows=%llu scratch_grow_ms=%.1f%s%s%s%s",
           device, st.upload_ms, st.spmv_ms, st.ntt_ms, st.h_msm_ms, st.spmv_ms + st.ntt_ms + st.h_msm_ms,
           st.batch_add_ms, st.tail_msm_ms, st.b_g2_cpu_ms, st.gpu_total_ms, t1 - t0, st.pre_ms, st.lock_ms, t2 - t1,
           (unsigned long long)st.htod_bytes,
           (unsigned long long)st.tail[0], (unsigned long long)st.tail[1], (unsigned long long)st.tail[2], st.g2_tail_ms,
           st.g2_wait_ms, (unsigned long long)st.scratch_grows, st.scratch_grow_ms, st.streamed ? " streamed" : "", st.witness_again ? " witness_twice" : "", st.two_vectors ? " two_vectors" : "",
           st.host_matrices ? " host_matrices" : "");
    *pending = pd;
    return 0;
}

/* cz_backend.prepare: the device's prover of (p, r) built (or found), outside the engine's turn; CZ_EBUILDING at once
 * while another thread builds one on the device */
static int gpu_prepare(cz_backend *b, int device, const cz_groth16_params *p, const cz_r1cs *r, const cz_fr *aux,
                       const cz_wcompact *caux, uint64_t dense_hint) {
    if (device < 0 || device >= b->ndevices || device >= MAX_DEV)
        return cz_error(CZ_EINVAL, "gpu backend: no device %d (%d found)", device, b->ndevices);
    pthread_once(&g_once, init_once);
    cz_gpu_prover *pr;
    const int rc = acquire(&pr, device, p, r, aux, caux, dense_hint, true);
    if (!rc) release(device, pr);
    return rc;
}

/* cz_backend.abort_builds: a build under way stops at its next yield, and none begins (a shutdown) */
static void gpu_abort_builds(cz_backend *b) {
    (void)b;
    cz_gpu_prover_abort_builds(true);
}

static int gpu_start(cz_backend *b, int device, const cz_groth16_params *p, const cz_r1cs *r, const cz_fr *inputs,
                     const cz_fr *aux, void **pending) {
    return start_either(b, device, p, r, inputs, aux, NULL, pending);
}

int cz_backend_gpu_start_compact(cz_backend *b, int device, const cz_groth16_params *p, const cz_r1cs *r,
                                 const cz_fr *inputs, const cz_wcompact *aux, void **pending) {
    return start_either(b, device, p, r, inputs, NULL, aux, pending);
}

/* The engine's per-worker page-locked witness copies (engine/backend.h) */
static int gpu_host_alloc(cz_backend *b, int device, void **p, uint64_t bytes) {
    *p = NULL;
    if (device < 0 || device >= b->ndevices) return cz_error(CZ_EINVAL, "gpu backend: no device %d", device);
    int rc = cz_gpu_set_device(device);
    return rc ? rc : cz_gpu_host_alloc(p, (size_t)bytes);
}

static void gpu_host_free(cz_backend *b, void *p) {
    (void)b;
    cz_gpu_host_free(p);
}

static uint64_t gpu_host_bytes(cz_backend *b) {
    (void)b;
    return atomic_load(&g_host_bytes) + cz_gpu_prover_transient_host_bytes();
}

/* After a failed start(): a broken context (a sticky CUDA error) loses the device. Its residents stay in
 * their slots (freeing them on a broken context is pointless) until cz_backend_gpu_release. */
static bool gpu_device_lost(cz_backend *b, int device, char *why, size_t why_len) {
    (void)b;
    return cz_gpu_device_check(device, why, why_len) != 0;
}

/* The device's MSM and batch-add scratch (G1 and G2) freed: regrown by the next start() to what is free then. */
static void gpu_trim(cz_backend *b, int device) {
    (void)b;
    if (cz_gpu_set_device(device)) return;
    cz_gpu_g1_release_scratch();
    cz_gpu_g2_release_scratch();
}

/* finish (randomness r, s and assembly on the CPU) and discard are the CPU backend's: start() fills the
 * same cz_groth16_pending. */
void cz_backend_gpu_init(cz_backend *b, int nthreads) {
    cz_backend_cpu_init(b, nthreads);
    b->name = "gpu";
    b->ndevices = cz_gpu_device_count();
    b->start = gpu_start;
    /* the compact witness crosses PCIe as is and is expanded on the device: nothing dense on the host */
    b->start_compact = cz_backend_gpu_start_compact;
    b->compact_expands = false;
    b->device_lost = gpu_device_lost;
    b->trim = gpu_trim;
    b->host_alloc = gpu_host_alloc;
    b->host_free = gpu_host_free;
    b->host_bytes = gpu_host_bytes;
    b->holds_bases = gpu_holds_bases;
    b->prepare = gpu_prepare;
    b->abort_builds = gpu_abort_builds;
}

void cz_backend_gpu_release(void) {
    pthread_once(&g_once, init_once);
    for (int i = 0; i < MAX_DEV; i++) {
        pthread_mutex_lock(&g_dev[i].mu);
        for (int k = 0; k < MAX_RES; k++)
            if (g_dev[i].s[k].pr) {
                cz_gpu_prover_destroy(g_dev[i].s[k].pr);
                atomic_fetch_sub(&g_host_bytes, g_dev[i].s[k].host);
                memset(&g_dev[i].s[k], 0, sizeof g_dev[i].s[k]);
            }
        g_dev[i].created = g_dev[i].evicted = g_dev[i].failed = 0;
        pthread_mutex_unlock(&g_dev[i].mu);
    }
    cz_gpu_prover_abort_builds(false); /* the backend as at start: a later engine's builds may run */
}
