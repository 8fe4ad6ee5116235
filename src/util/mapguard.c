#include "util/mapguard.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct {
    _Atomic uintptr_t lo, hi; /* [lo, hi) guarded; lo 0: free */
    atomic_uint faults;
    atomic_bool used;
} slot_t;

static slot_t g_slots[CZ_MAPGUARD_MAX];
static struct sigaction g_prev;
static uintptr_t g_page;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void on_sigbus(int sig, siginfo_t *si, void *uc) {
    const uintptr_t a = (uintptr_t)si->si_addr;
    for (int i = 0; i < CZ_MAPGUARD_MAX; i++) {
        const uintptr_t lo = atomic_load(&g_slots[i].lo), hi = atomic_load(&g_slots[i].hi);
        if (!lo || a < lo || a >= hi) continue;
        /* the page past the file's end: a zero page in its place, so the faulting read completes */
        void *p = mmap((void *)(a & ~(g_page - 1)), g_page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        if (p != MAP_FAILED) {
            atomic_fetch_add(&g_slots[i].faults, 1);
            return;
        }
        break;
    }
    /* not a guarded read (or no page could be put there): what SIGBUS meant before */
    if (g_prev.sa_flags & SA_SIGINFO) {
        if (g_prev.sa_sigaction) {
            g_prev.sa_sigaction(sig, si, uc);
            return;
        }
    } else if (g_prev.sa_handler != SIG_DFL && g_prev.sa_handler != SIG_IGN) {
        g_prev.sa_handler(sig);
        return;
    }
    signal(SIGBUS, SIG_DFL); /* returning re-runs the access, which now takes the default action */
}

static void install(void) {
    g_page = (uintptr_t)sysconf(_SC_PAGESIZE);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, &g_prev);
}

void cz_mapguard_begin(cz_mapguard *g, const void *addr, size_t len) {
    pthread_once(&g_once, install);
    g->slot = -1;
    if (!addr || !len) return;
    for (int i = 0; i < CZ_MAPGUARD_MAX; i++) {
        bool f = false;
        if (!atomic_compare_exchange_strong(&g_slots[i].used, &f, true)) continue;
        atomic_store(&g_slots[i].faults, 0);
        atomic_store(&g_slots[i].hi, (uintptr_t)addr + len);
        atomic_store(&g_slots[i].lo, (uintptr_t)addr);
        g->slot = i;
        return;
    }
}

unsigned cz_mapguard_end(cz_mapguard *g) {
    if (g->slot < 0) return 0;
    slot_t *s = &g_slots[g->slot];
    atomic_store(&s->lo, 0);
    atomic_store(&s->hi, 0);
    const unsigned n = atomic_load(&s->faults);
    atomic_store(&s->used, false);
    g->slot = -1;
    return n;
}
