/* util/mapguard.h: reads of a mapping whose file is cut short under them.
 * - a 4-page file mapped, cut to 1 page and 10 bytes: a guarded read of every byte completes, the first page and
 *   the 10 bytes read as written, the rest as zeros, and the guard counts the 2 pages past the end (the page of the
 *   new end reads zeros past it without a fault);
 * - the same read on 4 OpenMP threads at once, and two guards over two files at once: each counts its own;
 * - outside a guard the same read still dies of SIGBUS (a forked child; the handler swallows nothing else; under
 *   ASan, whose handler it chains to, of the abort that follows ASan's report), before and after a guard existed. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../testutil.h"
#include "util/mapguard.h"

static char dir[] = "/tmp/cz_mapguard_XXXXXX";
static size_t pg;

/* a file of 4 pages, byte i = i * 7 + salt, mapped (its length 4 pages) */
static const unsigned char *mapped(const char *name, int salt, char *path, size_t n) {
    snprintf(path, n, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f) return NULL;
    for (size_t i = 0; i < 4 * pg; i++) fputc((int)((i * 7 + (size_t)salt) & 0xff), f);
    fclose(f);
    int fd = open(path, O_RDONLY);
    void *p = mmap(NULL, 4 * pg, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    CHECK(p != MAP_FAILED);
    return p == MAP_FAILED ? NULL : p;
}

/* every byte: those below keep match their pattern, the rest read zero */
static int check_bytes(const unsigned char *m, size_t keep, int salt) {
    int bad = 0;
#pragma omp parallel for reduction(+ : bad) num_threads(4)
    for (size_t i = 0; i < 4 * pg; i++) bad += m[i] != (i < keep ? (unsigned char)((i * 7 + (size_t)salt) & 0xff) : 0);
    return bad;
}

int main(void) {
    pg = (size_t)sysconf(_SC_PAGESIZE);
    CHECK(mkdtemp(dir) != NULL);
    char pa[300], pb[300];
    const unsigned char *a = mapped("a", 1, pa, sizeof pa), *b = mapped("b", 2, pb, sizeof pb);
    if (!a || !b) return cz_test_finish();
    const size_t keep = pg + 10;
    CHECK(truncate(pa, (off_t)keep) == 0 && truncate(pb, (off_t)keep) == 0);
    /* outside a guard: SIGBUS kills the reader (before any guard exists, and after) */
    for (int round = 0; round < 2; round++) {
        pid_t c = fork();
        if (c == 0) { /* reaches page 3: dies (quietly: a sanitizer's report of it is expected) */
            int devnull = open("/dev/null", O_WRONLY);
            if (devnull >= 0) dup2(devnull, 2);
            _exit(check_bytes(a, keep, 1) == 0 ? 0 : 1);
        }
        int st = 0;
        CHECK(waitpid(c, &st, 0) == c);
        /* SIGBUS; under ASan its handler reports the fault and aborts (the handler it had is chained to) */
        CHECK_MSG(WIFSIGNALED(st) && (WTERMSIG(st) == SIGBUS || WTERMSIG(st) == SIGABRT),
                  "round %d: unguarded read: status %#x", round, st);
        if (round == 0) { /* installs the handler, then the unguarded read must still die */
            cz_mapguard g;
            cz_mapguard_begin(&g, b, pg);
            CHECK(cz_mapguard_end(&g) == 0);
        }
    }
    /* guarded, two mappings at once, 4 threads each: the reads complete, each guard counts its 2 pages */
    cz_mapguard ga, gb;
    cz_mapguard_begin(&ga, a, 4 * pg);
    cz_mapguard_begin(&gb, b, 4 * pg);
    CHECK(ga.slot >= 0 && gb.slot >= 0 && ga.slot != gb.slot);
    const int bad_a = check_bytes(a, keep, 1), bad_b = check_bytes(b, keep, 2);
    const unsigned fa = cz_mapguard_end(&ga), fb = cz_mapguard_end(&gb);
    CHECK_MSG(bad_a == 0 && bad_b == 0, "bytes: %d / %d wrong", bad_a, bad_b);
    CHECK_MSG(fa == 2 && fb == 2, "faulted pages: %u / %u (want 2 each)", fa, fb);
    /* an intact mapping: no fault counted */
    char pc[300];
    const unsigned char *c = mapped("c", 3, pc, sizeof pc);
    if (c) {
        cz_mapguard gc;
        cz_mapguard_begin(&gc, c, 4 * pg);
        CHECK(check_bytes(c, 4 * pg, 3) == 0 && cz_mapguard_end(&gc) == 0);
        munmap((void *)c, 4 * pg);
    }
    munmap((void *)a, 4 * pg);
    munmap((void *)b, 4 * pg);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) fprintf(stderr, "cannot remove %s\n", dir);
    return cz_test_finish();
}
