/* The registry of page-locked host ranges (host_reg.h).
 *
 * Why a registry: the provers of one circuit on two GPUs stream from the same host bases (the SRS's arrays). The
 * first to pin them must not unpin them under the other, whose copies would turn pageable and whose sparse gather
 * (prover.c cz_gpu_prover_sparse_init_) would read unmapped memory through its device address; so every range we
 * pin has a count of holders, and the last one unpins it.
 * Why pieces: cudaHostRegister holds up every other thread's CUDA calls while it runs (1.6-2.9 s for the ~56 GB of
 * a 32 GiB PoRep's streamed bases on an H100 host, docs/perf.md sessions 53 and 57): in pieces, with a pause between
 * them (ops->between), another circuit's prover built or proving meanwhile waits for about one piece. The pause is
 * what lets it in: back to back, the pinning thread takes the driver's lock again first, and a thread's cudaFree
 * waited for all of a 56 GB range in 1 GiB or 256 MiB pieces as in one (cz_bench_pin_wait on an H100, session 57:
 * 2.8 s); in 64 MiB pieces with 200 us pauses its longest call was 4-16 ms, and the registration took 2.67 s against
 * 2.87 in one piece on one machine, 3.59 against 3.21 on another (once per streamed prover, off the device's turn).
 * A partition's witness parts (CZ_HOST_REG_WHOLE) are registered in one piece: short, and often inside the turn.
 * Copies are cut at the pieces' ends (cz_host_reg_cut_): before the cut, test_gpu_prover_stream's shared bases in
 * 4 KiB pieces failed on an H100 (invalid argument, likely a copy across two registrations); with it they pass,
 * and a whole streamed 32 GiB PoRep in 1 GiB pieces proved on an H100 (session 57: 6.4 GB chunks, partitions as
 * fast as session 50's in one piece).
 * The registry's lock is not held while pieces are pinned. */
#include "gpu/host_reg.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

enum { REG_PINNING, REG_READY, REG_UNPINNING };

typedef struct {
    char *p;
    size_t bytes, piece;
    unsigned holders;
    int state;
} range;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cv = PTHREAD_COND_INITIALIZER;
static range *g_r;
static size_t g_n, g_cap;
static size_t g_multi; /* ranges of more than one piece (written under g_mu; cz_host_reg_cut_ reads it without) */

/* whether r is pinned in more than one piece */
static int multi(const range *r) { return ((uintptr_t)r->p & 4095) + r->bytes > r->piece; }

/* With g_mu held: drops entry r (the last entry moves into its place). */
static void drop(range *r) {
    if (multi(r)) __atomic_sub_fetch(&g_multi, 1, __ATOMIC_RELEASE);
    *r = g_r[--g_n]; /* r found first: the last entry may be r itself */
}

/* the start of piece k of a range from p: whole pieces from the 4 KiB page below p */
static char *piece_at(char *p, size_t k, size_t piece) {
    return k ? (char *)((uintptr_t)p & ~(uintptr_t)4095) + k * piece : p;
}

/* Unpins the pieces of the range [p, p+n) that start below upto. */
static void unpin_pieces(const cz_host_pin_ops *ops, char *p, size_t n, const char *upto, size_t piece) {
    for (size_t k = 0;; k++) {
        char *q = piece_at(p, k, piece);
        if (q >= p + n || q >= upto) break;
        if (k && ops->between) ops->between();
        ops->unpin(q);
    }
}

/* With g_mu held: the range holding [p, p+n) (or -1); *busy = 1 when one being pinned or unpinned overlaps it. */
static long find(const char *p, size_t n, int *busy) {
    long at = -1;
    *busy = 0;
    for (size_t i = 0; i < g_n; i++) {
        const range *r = &g_r[i];
        if (p >= r->p && p + n <= r->p + r->bytes) at = (long)i;
        if (p < r->p + r->bytes && r->p < p + n && r->state != REG_READY) *busy = 1;
    }
    return at;
}

/* With g_mu held: the range that starts at p in state st (this thread's own, pinning or unpinning it). */
static range *own(const char *p, int st) {
    for (size_t i = 0; i < g_n; i++)
        if (g_r[i].p == p && g_r[i].state == st) return &g_r[i];
    return NULL; /* not reached: only the thread that set st changes or drops it */
}

int cz_host_reg_acquire_(const cz_host_pin_ops *ops, void *vp, size_t bytes, size_t piece, int *ok) {
    char *p = vp;
    *ok = 0;
    if (!p || !bytes) return 0;
    if (piece == CZ_HOST_REG_WHOLE) piece = (((uintptr_t)p & 4095) + bytes + 4095) & ~(size_t)4095; /* its pages */
    else if (piece < 4096 || piece % 4096) piece = (size_t)64 << 20; /* the default */
    pthread_mutex_lock(&g_mu);
    for (;;) {
        int busy;
        const long i = find(p, bytes, &busy);
        if (!busy && i >= 0) { /* ours already: one more holder */
            g_r[i].holders++;
            *ok = 1;
            pthread_mutex_unlock(&g_mu);
            return 0;
        }
        if (!busy) break;
        pthread_cond_wait(&g_cv, &g_mu); /* another thread pins or unpins these pages */
    }
    if (ops->is_pinned(p)) { /* someone else's pages: used as is */
        pthread_mutex_unlock(&g_mu);
        return 0;
    }
    if (g_n == g_cap) {
        const size_t cap = g_cap ? 2 * g_cap : 16;
        range *r = realloc(g_r, cap * sizeof *r);
        if (!r) { /* no room for the entry: not pinned (pageable copies) */
            pthread_mutex_unlock(&g_mu);
            return 0;
        }
        g_r = r, g_cap = cap;
    }
    g_r[g_n++] = (range){p, bytes, piece, 1, REG_PINNING};
    if (multi(&g_r[g_n - 1])) __atomic_add_fetch(&g_multi, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&g_mu);

    char *fail = NULL;
    for (size_t k = 0;; k++) {
        char *q = piece_at(p, k, piece), *end = piece_at(p, k + 1, piece);
        if (q >= p + bytes) break;
        if (end > p + bytes) end = p + bytes;
        if (k && ops->between) ops->between();
        if (ops->pin(q, (size_t)(end - q))) {
            fail = q;
            break;
        }
    }
    if (fail) unpin_pieces(ops, p, bytes, fail, piece);

    pthread_mutex_lock(&g_mu);
    range *r = own(p, REG_PINNING);
    if (fail) drop(r);
    else r->state = REG_READY;
    pthread_cond_broadcast(&g_cv);
    pthread_mutex_unlock(&g_mu);
    *ok = !fail;
    return 0;
}

void cz_host_reg_release_(const cz_host_pin_ops *ops, void *vp) {
    char *p = vp, *base;
    size_t bytes, piece;
    int busy;
    if (!p) return;
    pthread_mutex_lock(&g_mu);
    const long i = find(p, 1, &busy);
    if (i < 0 || g_r[i].state != REG_READY || --g_r[i].holders) {
        pthread_mutex_unlock(&g_mu);
        return;
    }
    g_r[i].state = REG_UNPINNING;
    base = g_r[i].p, bytes = g_r[i].bytes, piece = g_r[i].piece;
    pthread_mutex_unlock(&g_mu);

    unpin_pieces(ops, base, bytes, base + bytes, piece);

    pthread_mutex_lock(&g_mu);
    drop(own(base, REG_UNPINNING));
    pthread_cond_broadcast(&g_cv);
    pthread_mutex_unlock(&g_mu);
}

unsigned cz_host_reg_holders_(const void *p) {
    int busy;
    pthread_mutex_lock(&g_mu);
    const long i = find(p, 1, &busy);
    const unsigned h = i >= 0 && g_r[i].state == REG_READY ? g_r[i].holders : 0;
    pthread_mutex_unlock(&g_mu);
    return h;
}

void *cz_host_reg_span_(const cz_host_pin_ops *ops, const void *vp, size_t bytes) {
    char *p = (char *)vp, *d = ops->dev_ptr(p), *base = NULL;
    size_t piece = 0;
    int busy;
    if (!d) return NULL;
    pthread_mutex_lock(&g_mu);
    const long i = find(p, bytes, &busy);
    if (i >= 0) base = g_r[i].p, piece = g_r[i].piece;
    pthread_mutex_unlock(&g_mu);
    if (!base) return d; /* someone else's page-locked memory: one allocation, one run */
    /* each piece of the range that starts inside (p, p+bytes) must map where the run from d puts it */
    for (size_t k = 1;; k++) {
        char *q = piece_at(base, k, piece);
        if (q >= p + bytes) break;
        if (q > p && (char *)ops->dev_ptr(q) != d + (q - p)) return NULL;
    }
    return d;
}

size_t cz_host_reg_cut_(const void *vp, size_t bytes) {
    const char *p = vp;
    int busy;
    /* every range in one piece (none pinned, or all small): nothing to cut, no lock on the copies' path */
    if (!__atomic_load_n(&g_multi, __ATOMIC_ACQUIRE)) return bytes;
    pthread_mutex_lock(&g_mu);
    const long i = find(p, bytes, &busy);
    size_t n = bytes;
    if (i >= 0) { /* piece k >= 1 starts at the page below the range's start plus k pieces */
        const uintptr_t b0 = (uintptr_t)g_r[i].p & ~(uintptr_t)4095, piece = g_r[i].piece;
        const uintptr_t next = b0 + ((uintptr_t)p - b0) / piece * piece + piece;
        if (next - (uintptr_t)p < n) n = (size_t)(next - (uintptr_t)p);
    }
    pthread_mutex_unlock(&g_mu);
    return n;
}
