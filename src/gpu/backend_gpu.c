/* The GPU prover as an engine backend (src/engine/backend.h). Lives in src/gpu so that it is built only
 * with CUDA (cuzk_core, where the engine is, builds without it); the engine picks it with
 * cz_backend_gpu_init when cuzk_gpu is linked. One resident cz_gpu_prover per device, kept for the
 * (params, r1cs) pair it was built for: a start() with another pair waits until no start() is using the
 * device, then rebuilds it. The pair is recognised by its pointers AND a fingerprint of their contents
 * (sizes, first H and L bases, matrix sizes), so params freed by an SRS eviction and another circuit's
 * loaded at the same address never reuse stale device bases. The device region itself is serialised by
 * cz_gpu_lock. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "engine/backend.h"
#include "gpu/gpu.h"
#include "gpu/gpu_prover.h"

#define MAX_DEV 64

/* What identifies the (params, r1cs) a prover was built from, beyond their addresses. */
typedef struct {
    size_t h_len, l_len, a_len, b_len;
    cz_g1_affine h0, l0;
    uint64_t inputs, aux, rows, nnz[3];
} fingerprint;

static void fingerprint_of(fingerprint *f, const cz_groth16_params *p, const cz_r1cs *r) {
    memset(f, 0, sizeof *f);
    f->h_len = p->h_len, f->l_len = p->l_len, f->a_len = p->a_len, f->b_len = p->b_len;
    if (p->h_len) f->h0 = p->h[0];
    if (p->l_len) f->l0 = p->l[0];
    f->inputs = r->num_inputs, f->aux = r->num_aux, f->rows = r->num_rows;
    f->nnz[0] = cz_r1cs_nnz(&r->a), f->nnz[1] = cz_r1cs_nnz(&r->b), f->nnz[2] = cz_r1cs_nnz(&r->c);
}

static struct {
    pthread_mutex_t mu;
    pthread_cond_t idle; /* signalled when users drops to 0 */
    cz_gpu_prover *pr;
    const cz_groth16_params *p;
    const cz_r1cs *r;
    fingerprint fp;
    int users;
} g_dev[MAX_DEV];
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static void init_once(void) {
    for (int i = 0; i < MAX_DEV; i++) {
        pthread_mutex_init(&g_dev[i].mu, NULL);
        pthread_cond_init(&g_dev[i].idle, NULL);
    }
}

static int acquire(cz_gpu_prover **out, int dev, const cz_groth16_params *p, const cz_r1cs *r) {
    int rc = 0;
    fingerprint fp;
    fingerprint_of(&fp, p, r);
    pthread_mutex_lock(&g_dev[dev].mu);
    for (;;) {
        const int same = g_dev[dev].pr && g_dev[dev].p == p && g_dev[dev].r == r &&
                         memcmp(&g_dev[dev].fp, &fp, sizeof fp) == 0;
        if (same) break;
        if (g_dev[dev].users) { /* another circuit is on this device: wait for it to finish */
            pthread_cond_wait(&g_dev[dev].idle, &g_dev[dev].mu);
            continue;
        }
        cz_gpu_prover_destroy(g_dev[dev].pr);
        g_dev[dev].pr = NULL, g_dev[dev].p = NULL, g_dev[dev].r = NULL;
        rc = cz_gpu_prover_create(&g_dev[dev].pr, dev, p, r, 0);
        if (rc) break;
        g_dev[dev].p = p, g_dev[dev].r = r, g_dev[dev].fp = fp;
    }
    if (!rc) {
        g_dev[dev].users++;
        *out = g_dev[dev].pr;
    }
    pthread_mutex_unlock(&g_dev[dev].mu);
    return rc;
}

static void release(int dev) {
    pthread_mutex_lock(&g_dev[dev].mu);
    if (--g_dev[dev].users == 0) pthread_cond_broadcast(&g_dev[dev].idle);
    pthread_mutex_unlock(&g_dev[dev].mu);
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
    int rc = acquire(&pr, device, p, r);
    if (!rc) {
        rc = caux ? cz_gpu_prover_start_compact(pd, pr, inputs, caux, b->nthreads, NULL)
                  : cz_gpu_prover_start(pd, pr, inputs, aux, b->nthreads, NULL);
        release(device);
    }
    if (rc) {
        free(pd);
        return rc;
    }
    *pending = pd;
    return 0;
}

static int gpu_start(cz_backend *b, int device, const cz_groth16_params *p, const cz_r1cs *r, const cz_fr *inputs,
                     const cz_fr *aux, void **pending) {
    return start_either(b, device, p, r, inputs, aux, NULL, pending);
}

int cz_backend_gpu_start_compact(cz_backend *b, int device, const cz_groth16_params *p, const cz_r1cs *r,
                                 const cz_fr *inputs, const cz_wcompact *aux, void **pending) {
    return start_either(b, device, p, r, inputs, NULL, aux, pending);
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
}

void cz_backend_gpu_release(void) {
    pthread_once(&g_once, init_once);
    for (int i = 0; i < MAX_DEV; i++) {
        pthread_mutex_lock(&g_dev[i].mu);
        cz_gpu_prover_destroy(g_dev[i].pr);
        g_dev[i].pr = NULL, g_dev[i].p = NULL, g_dev[i].r = NULL;
        pthread_mutex_unlock(&g_dev[i].mu);
    }
}
