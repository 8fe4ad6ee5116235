/* The registry of page-locked host ranges (src/gpu/host_reg.c) with fake pin operations, so it runs without a GPU
 * (label unit, built with the CUDA backend). The fake driver refuses a piece that shares a page with a piece it
 * holds (as cudaHostRegister does), can be told to refuse one address, and can be slowed down for one range.
 *  - a range from an address off a page boundary is pinned in whole pieces from the page below it: the pieces
 *    cover it exactly, each but the first starts on a page boundary, none shares a page with another;
 *  - a range inside it, and the same range again, are held without pinning anything; releases unpin nothing until
 *    the last holder's, which unpins every piece;
 *  - no piece size (0 or not a multiple of 4096): 64 MiB pieces with a pause between two (pinned or unpinned); a
 *    piece larger than the range, or CZ_HOST_REG_WHOLE (one partition's witness): one piece, no pause;
 *  - a refused piece: the pieces before it are unpinned again, nothing is held, and a later try pins afresh;
 *  - pages page-locked by someone else are used as is: nothing pinned, nothing held;
 *  - while one thread pins a slow range, a thread asking for a range elsewhere is not held up (pinning runs
 *    outside the registry's lock), and a thread asking for the same range waits for it and then holds it;
 *  - a range asked for while its last holder unpins it is pinned afresh after that;
 *  - the device address of a range is one run when each piece maps after the one before it, else NULL. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "gpu/host_reg.h"
#include "../testutil.h"

#define MAXP 4096
static struct {
    char *p;
    size_t n;
} pins[MAXP];
static int npins, total_pins, total_unpins;
static pthread_mutex_t f_mu = PTHREAD_MUTEX_INITIALIZER;
static char *refuse_at;                 /* the fake driver refuses the piece that starts here */
static char *slow_lo, *slow_hi;         /* pieces in [slow_lo, slow_hi) take slow_us each to pin or unpin */
static unsigned slow_us;
static double slow_pin_ms, slow_unpin_ms; /* when the fake driver last pinned / unpinned a slow piece */
static char *foreign_lo, *foreign_hi;   /* page-locked by someone else */
static int dev_gap;                     /* dev_ptr puts a gap before every page from the second on */

static uintptr_t page(const void *p) { return (uintptr_t)p >> 12; }

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void maybe_slow(const char *p) {
    if (slow_us && p >= slow_lo && p < slow_hi) usleep(slow_us);
}

static int f_pin(void *vp, size_t n) {
    char *p = vp;
    maybe_slow(p);
    pthread_mutex_lock(&f_mu);
    int rc = p == refuse_at || npins == MAXP;
    for (int i = 0; i < npins && !rc; i++) /* a page already in a piece: refused */
        rc = page(p) <= page(pins[i].p + pins[i].n - 1) && page(pins[i].p) <= page(p + n - 1);
    if (!rc) pins[npins].p = p, pins[npins++].n = n, total_pins++;
    if (!rc && slow_us && p >= slow_lo && p < slow_hi) slow_pin_ms = now_ms();
    pthread_mutex_unlock(&f_mu);
    return rc ? -1 : 0;
}

static void f_unpin(void *p) {
    maybe_slow(p);
    pthread_mutex_lock(&f_mu);
    for (int i = 0; i < npins; i++)
        if (pins[i].p == p) {
            pins[i] = pins[--npins];
            total_unpins++;
            if (slow_us && (char *)p >= slow_lo && (char *)p < slow_hi) slow_unpin_ms = now_ms();
            break;
        }
    pthread_mutex_unlock(&f_mu);
}

static int f_is_pinned(const void *p) {
    const char *c = p;
    if (c >= foreign_lo && c < foreign_hi) return 1;
    pthread_mutex_lock(&f_mu);
    int r = 0;
    for (int i = 0; i < npins && !r; i++) r = c >= pins[i].p && c < pins[i].p + pins[i].n;
    pthread_mutex_unlock(&f_mu);
    return r;
}

static void *f_dev_ptr(const void *p) {
    if (!f_is_pinned(p)) return NULL;
    uintptr_t d = (uintptr_t)p + ((uintptr_t)1 << 40);
    if (dev_gap) d += 4096 * (page(p) - page(foreign_hi)); /* foreign_hi: the range's first page here */
    return (void *)d;
}

static int n_between; /* calls of ops.between: one between two pieces, pinned or unpinned */
static void f_between(void) {
    pthread_mutex_lock(&f_mu);
    n_between++;
    pthread_mutex_unlock(&f_mu);
}

static const cz_host_pin_ops ops = {f_pin, f_unpin, f_is_pinned, f_dev_ptr, f_between};

static int pinned_count(void) {
    pthread_mutex_lock(&f_mu);
    const int n = npins;
    pthread_mutex_unlock(&f_mu);
    return n;
}

/* the pieces held now cover [p, p+n) exactly, in order, each after the first on a page boundary */
static int covers(char *p, size_t n, size_t piece, int want) {
    pthread_mutex_lock(&f_mu);
    int ok = npins == want;
    for (int k = 0; k < npins && ok; k++) {
        char *q = NULL;
        size_t len = 0;
        for (int i = 0; i < npins; i++) /* the piece that starts where the one before ended */
            if (pins[i].p == (k ? (char *)(((uintptr_t)p & ~(uintptr_t)4095) + k * piece) : p)) q = pins[i].p, len = pins[i].n;
        ok = q != NULL && (k == 0 || ((uintptr_t)q & 4095) == 0) && len <= piece &&
             (k + 1 < npins ? q + len == (char *)(((uintptr_t)p & ~(uintptr_t)4095) + (k + 1) * piece) : q + len == p + n);
    }
    pthread_mutex_unlock(&f_mu);
    return ok;
}

/* [q, q+n) inside one piece the fake driver holds pinned */
static int in_one_pin(const char *q, size_t n) {
    pthread_mutex_lock(&f_mu);
    int in = 0;
    for (int i = 0; i < npins && !in; i++) in = pins[i].p <= q && q + n <= pins[i].p + pins[i].n;
    pthread_mutex_unlock(&f_mu);
    return in;
}

/* a copy of [q, q+n) cut as cz_gpu_htod_async_ cuts it: each part inside one piece; the number of parts */
static int cut_parts(const char *q, size_t n, int *bad) {
    int parts = 0;
    *bad = 0;
    while (n) {
        const size_t c = cz_host_reg_cut_(q, n);
        if (!c || c > n) {
            *bad = 1;
            break;
        }
        *bad |= !in_one_pin(q, c);
        q += c, n -= c, parts++;
    }
    return parts;
}

static int unpinned_total(void) {
    pthread_mutex_lock(&f_mu);
    const int n = total_unpins;
    pthread_mutex_unlock(&f_mu);
    return n;
}

typedef struct {
    char *p;
    size_t n;
    int ok;
    double t_end;
} job;

static void *acquire_job(void *a) {
    job *j = a;
    cz_host_reg_acquire_(&ops, j->p, j->n, 4096, &j->ok);
    j->t_end = now_ms();
    return NULL;
}

static void *release_job(void *a) {
    job *j = a;
    cz_host_reg_release_(&ops, j->p);
    j->t_end = now_ms();
    return NULL;
}

int main(void) {
    const size_t piece = 64 << 10, n = (1 << 20) + 123;
    char *buf = aligned_alloc(4096, 4 << 20);
    CHECK(buf != NULL);
    if (!buf) return cz_test_finish();
    char *p = buf + 100;
    const int want = (int)((((uintptr_t)p & 4095) + n + piece - 1) / piece); /* whole pieces from the page below p */

    /* pieces, holders */
    int ok = 0, ok2 = 0, ok3 = 0;
    CHECK(cz_host_reg_acquire_(&ops, p, n, piece, &ok) == 0 && ok == 1);
    CHECK_MSG(covers(p, n, piece, want), "%d pieces do not cover the range as %d whole pieces", npins, want);
    CHECK(cz_host_reg_holders_(p) == 1 && cz_host_reg_holders_(p + n - 1) == 1 && cz_host_reg_holders_(p + n) == 0);
    const int pinned = total_pins;
    CHECK(cz_host_reg_acquire_(&ops, p + 70000, 5000, piece, &ok2) == 0 && ok2 == 1);
    CHECK(cz_host_reg_acquire_(&ops, p, n, piece, &ok3) == 0 && ok3 == 1);
    CHECK_MSG(total_pins == pinned && cz_host_reg_holders_(p) == 3, "held again: %d more pins, %u holders",
              total_pins - pinned, cz_host_reg_holders_(p));
    cz_host_reg_release_(&ops, p + 70000);
    cz_host_reg_release_(&ops, p);
    CHECK_MSG(cz_host_reg_holders_(p) == 1 && pinned_count() == want, "unpinned under its last holder (%d pieces)",
              pinned_count());
    /* copies cut at the pieces' ends: a copy of the whole range in one part a piece; one inside a piece whole;
     * memory not ours whole */
    {
        int bad = 0;
        const int parts = cut_parts(p, n, &bad);
        CHECK_MSG(parts == want && !bad, "the whole range cut in %d parts (want %d)%s", parts, want,
                  bad ? ", one across two pieces" : "");
        const char *q = (char *)(((uintptr_t)p & ~(uintptr_t)4095) + 3 * piece) - 10; /* 10 B before piece 3 */
        CHECK(cut_parts(q, 20, &bad) == 2 && !bad && cz_host_reg_cut_(q, 20) == 10);
        CHECK(cz_host_reg_cut_(q + 10, 500) == 500 && cz_host_reg_cut_(p + n, 1 << 20) == (size_t)1 << 20);
    }
    /* one run of device addresses; a gap between pieces: none */
    CHECK(cz_host_reg_span_(&ops, p, n) == (char *)p + ((uintptr_t)1 << 40));
    foreign_hi = (char *)((uintptr_t)p & ~(uintptr_t)4095), dev_gap = 1;
    CHECK(cz_host_reg_span_(&ops, p, n) == NULL);
    CHECK(cz_host_reg_span_(&ops, p, 1000) != NULL); /* within the first piece */
    dev_gap = 0, foreign_hi = NULL;
    cz_host_reg_release_(&ops, p);
    CHECK_MSG(cz_host_reg_holders_(p) == 0 && pinned_count() == 0, "%d pieces left after the last holder",
              pinned_count());
    cz_host_reg_release_(&ops, p); /* not held: nothing happens */
    printf("pieces and holders: ok (%d pieces of %zu B)\n", want, piece);

    /* no piece size (0, or not a multiple of 4096): 64 MiB pieces, a pause (ops.between) between two of them when
     * pinned and when unpinned; a piece larger than the range: one, no pause. The fake driver touches no memory:
     * address space only, 2.5 GiB from 100 bytes into a page (41 pieces) */
    {
        const size_t big = (size_t)5 << 29, mib64 = (size_t)64 << 20;
        char *m = mmap(NULL, big + 8192, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        CHECK(m != MAP_FAILED);
        if (m != MAP_FAILED) {
            char *q = m + 100;
            for (int k = 0; k < 2; k++) {
                n_between = 0;
                CHECK(cz_host_reg_acquire_(&ops, q, big, k ? 12345 : 0, &ok) == 0 && ok == 1);
                CHECK_MSG(covers(q, big, mib64, 41) && cz_host_reg_cut_(q, big) == mib64 - 100 &&
                              cz_host_reg_cut_(q + mib64 - 100, big - mib64 + 100) == mib64 && n_between == 40,
                          "default: %d pieces, first part %zu B, %d pauses", pinned_count(), cz_host_reg_cut_(q, big),
                          n_between);
                cz_host_reg_release_(&ops, q);
                CHECK_MSG(pinned_count() == 0 && n_between == 80, "released: %d pieces left, %d pauses in all",
                          pinned_count(), n_between);
            }
            for (int k = 0; k < 2; k++) {
                n_between = 0;
                CHECK(cz_host_reg_acquire_(&ops, q, big, k ? CZ_HOST_REG_WHOLE : (size_t)1 << 40, &ok) == 0 && ok == 1);
                CHECK_MSG(pinned_count() == 1 && in_one_pin(q, big) && cz_host_reg_cut_(q, big) == big,
                          "one piece (%s): %d pieces", k ? "whole" : "1 TiB", pinned_count());
                cz_host_reg_release_(&ops, q);
                CHECK(pinned_count() == 0 && n_between == 0);
            }
            munmap(m, big + 8192);
        }
    }

    /* a refused piece: nothing left pinned or held; a later try pins afresh */
    refuse_at = (char *)(((uintptr_t)p & ~(uintptr_t)4095) + 5 * piece);
    CHECK(cz_host_reg_acquire_(&ops, p, n, piece, &ok) == 0 && ok == 0);
    CHECK_MSG(pinned_count() == 0 && cz_host_reg_holders_(p) == 0, "refused: %d pieces left", pinned_count());
    refuse_at = NULL;
    CHECK(cz_host_reg_acquire_(&ops, p, n, piece, &ok) == 0 && ok == 1 && pinned_count() == want);
    cz_host_reg_release_(&ops, p);
    CHECK(pinned_count() == 0);

    /* someone else's page-locked pages: used as is */
    foreign_lo = p, foreign_hi = p + n;
    CHECK(cz_host_reg_acquire_(&ops, p, n, piece, &ok) == 0 && ok == 0 && pinned_count() == 0 &&
          cz_host_reg_holders_(p) == 0);
    CHECK(cz_host_reg_span_(&ops, p, n) != NULL);
    foreign_lo = foreign_hi = NULL;
    printf("refused and foreign: ok\n");

    /* a slow range (16 pieces of 4 KiB, 20 ms each): another range goes through meanwhile; the same range waits */
    char *s = buf + (2 << 20), *o = buf + (3 << 20);
    slow_lo = s, slow_hi = s + 16 * 4096, slow_us = 20000;
    job a = {s, 16 * 4096, 0, 0}, b = {s + 8192, 4096, 0, 0}, c = {o, 8 * 4096, 0, 0};
    pthread_t ta, tb, tc;
    const double t0 = now_ms();
    CHECK(pthread_create(&ta, NULL, acquire_job, &a) == 0);
    while (pinned_count() == 0) usleep(100); /* a is pinning */
    CHECK(pthread_create(&tb, NULL, acquire_job, &b) == 0);
    CHECK(pthread_create(&tc, NULL, acquire_job, &c) == 0);
    pthread_join(tc, NULL);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    /* after the joins: the fake driver's last slow pin is when a's range was all pinned */
    CHECK_MSG(c.ok && c.t_end < slow_pin_ms, "another range waited for the slow one (%.1f ms, slow one %.1f ms)",
              c.t_end - t0, slow_pin_ms - t0);
    CHECK_MSG(a.ok && b.ok && b.t_end >= slow_pin_ms && cz_host_reg_holders_(s) == 2,
              "the same range: ok %d %d, pinned at %.1f ms, the second holder back at %.1f ms, %u holders", a.ok, b.ok,
              slow_pin_ms - t0, b.t_end - t0, cz_host_reg_holders_(s));
    printf("slow range: the other done at %.1f ms, the slow one pinned at %.1f, its second holder back at %.1f\n",
           c.t_end - t0, slow_pin_ms - t0, b.t_end - t0);
    cz_host_reg_release_(&ops, o);

    /* asked for while its last holder unpins it: pinned afresh after that */
    cz_host_reg_release_(&ops, s); /* 2 -> 1 */
    job r = {s, 0, 0, 0}, d = {s, 16 * 4096, 0, 0};
    const int before = total_pins, unpinned = unpinned_total();
    CHECK(pthread_create(&ta, NULL, release_job, &r) == 0);
    while (unpinned_total() == unpinned) usleep(100); /* r's release is unpinning */
    CHECK(pthread_create(&tb, NULL, acquire_job, &d) == 0);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    CHECK_MSG(d.ok && d.t_end >= slow_unpin_ms && total_pins - before == 16 && cz_host_reg_holders_(s) == 1,
              "asked for while unpinned: ok %d, %d new pins, %u holders", d.ok, total_pins - before,
              cz_host_reg_holders_(s));
    cz_host_reg_release_(&ops, s);
    CHECK(pinned_count() == 0 && cz_host_reg_holders_(s) == 0);
    slow_us = 0;
    printf("unpinning range asked for again: ok\n");
    free(buf);
    return cz_test_finish();
}
