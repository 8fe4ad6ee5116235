/* A parameter file changed on disk under the SRS manager's mapping (srs.c map_intact):
 * - an official file (a copy of the test circuit's seeded parameters under a params_file name, no seed allowed)
 *   loaded, evicted to WARM, then cut short in place: the next load fails with an error naming the file instead of
 *   reading past its new end (SIGBUS: the test process would die; it did before the fix, at 5,000 bytes), and
 *   loads again once the file is whole; the same file rewritten in place at the same size (one byte changed, the
 *   time moved on): mapped again, so the load reads what is there now, and fails naming the bad point;
 * - the seeded cache file cut short while WARM: the setup runs again and writes it whole (same parameters);
 * - srs.release_resident_bases: bases released and restored from an intact file equal the ones first decoded
 *   (every point of every query); released, then the file cut short in place: the restore fails naming the file
 *   and "changed on disk", the entry stays released; released, then the file replaced by a rename (the mapping
 *   still holds the old inode, untouched): the restore succeeds from the mapping;
 * - cut short *while* being read (a test hook truncates it after the size check, before the read): the reads past
 *   the new end are guarded (util/mapguard.h) and the load fails naming the file ("cut short on disk while its
 *   sections were counted", at the first read, or "... while it was decoded", at the second) instead of the process
 *   dying of SIGBUS; the same during a restore, the bases staying released. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../testutil.h"
#include "cz_error.h"
#include "engine/circuit.h"
#include "engine/log.h"
#include "engine/srs.h"

static char dir[] = "/tmp/cz_srs_changed_XXXXXX";

static long fsize(const char *p) {
    struct stat sb;
    return stat(p, &sb) ? -1 : (long)sb.st_size;
}

static int copy_file(const char *from, const char *to) {
    FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
    int rc = a && b ? 0 : -1;
    char buf[65536];
    size_t n;
    while (!rc && (n = fread(buf, 1, sizeof buf, a)) > 0)
        if (fwrite(buf, 1, n, b) != n) rc = -1;
    if (a) fclose(a);
    if (b && fclose(b)) rc = -1;
    return rc;
}

/* the file's byte at off XOR x, in place; its modification time then moves (a later second) */
static void flip(const char *p, long off, int x) {
    FILE *f = fopen(p, "r+b");
    CHECK(f != NULL);
    if (!f) return;
    fseek(f, off, SEEK_SET);
    int c = fgetc(f);
    fseek(f, off, SEEK_SET);
    fputc(c ^ x, f);
    fclose(f);
    struct timespec ts[2] = {{0, UTIME_OMIT}, {time(NULL) + 5, 0}};
    utimensat(0, p, ts, 0);
}

static uint64_t acquire(cz_srs_mgr *m, const cz_circuit *c, cz_srs_entry **e, int *rc) {
    uint64_t ms = 0;
    *rc = cz_srs_acquire(m, c, e, &ms);
    return ms;
}

static void evict(cz_srs_mgr *m, const cz_circuit *c) {
    bool was;
    uint64_t freed;
    CHECK(cz_srs_evict(m, c, &was, &freed) == 0 && was);
}

static bool same_bases(const cz_groth16_params *a, const cz_groth16_params *b) {
    return a->h_len == b->h_len && a->l_len == b->l_len && a->a_len == b->a_len && a->b_len == b->b_len &&
           !memcmp(a->h, b->h, a->h_len * sizeof *a->h) && !memcmp(a->l, b->l, a->l_len * sizeof *a->l) &&
           !memcmp(a->a, b->a, a->a_len * sizeof *a->a) && !memcmp(a->b_g1, b->b_g1, a->b_len * sizeof *a->b_g1) &&
           !memcmp(a->b_g2, b->b_g2, a->b_len * sizeof *a->b_g2);
}

static void nop(void *ctx) { (void)ctx; }

/* the read hook: cuts cut_path to 5,000 bytes, before each read while armed (each call one cut), after skipping `skip`
 * reads of it */
static const char *cut_path;
static int cuts, armed, skip;
static void cut_once(const char *path) {
    if (!armed || !cut_path || strcmp(path, cut_path)) return;
    if (skip) {
        skip--;
        return;
    }
    if (truncate(path, 5000) == 0) cuts++;
    armed = 0;
}

int main(void) {
    cz_log_set_level("error");
    CHECK(mkdtemp(dir) != NULL);
    const cz_circuit *tc = cz_circuit_find("porep-2k-test");
    CHECK(tc != NULL);
    if (!tc) return cz_test_finish();
    char seeded[600], official[600], spare[600];
    snprintf(seeded, sizeof seeded, "%s/cuzk-test-%s.params", dir, tc->id);
    snprintf(official, sizeof official, "%s/official-test.params", dir);
    snprintf(spare, sizeof spare, "%s/spare.params", dir);
    cz_srs_mgr m;
    cz_srs_init(&m, dir, "", 2);
    /* the seeded setup writes the cache file; its bases are the reference */
    cz_srs_entry *e = NULL;
    int rc;
    acquire(&m, tc, &e, &rc);
    CHECK_MSG(rc == 0 && fsize(seeded) > 100000, "seeded load: %d %s", rc, rc ? cz_error_message() : "");
    if (rc) return cz_test_finish();
    cz_groth16_params ref;
    CHECK(cz_groth16_params_read_file(&ref, seeded, 0) == 0 && same_bases(&ref, &e->params));
    const long full = fsize(seeded);
    cz_srs_release(&m, e);
    /* the seeded cache file cut short while WARM: redone, whole again, the same parameters */
    evict(&m, tc);
    CHECK(cz_srs_tier(e) == CZ_TIER_WARM);
    CHECK(truncate(seeded, 5000) == 0);
    acquire(&m, tc, &e, &rc);
    CHECK_MSG(rc == 0 && fsize(seeded) == full && same_bases(&ref, &e->params), "seeded, cut short: %d %s, %ld bytes",
              rc, rc ? cz_error_message() : "", fsize(seeded));
    if (!rc) cz_srs_release(&m, e);

    /* an official file: the same parameters under a params_file name, no seeded setup to fall back on */
    cz_circuit oc = *tc;
    oc.id = "official-test";
    oc.setup_seed = 0;
    oc.params_file = "official-test.params";
    CHECK(copy_file(seeded, official) == 0);
    cz_srs_entry *o = NULL;
    acquire(&m, &oc, &o, &rc);
    CHECK_MSG(rc == 0 && o && same_bases(&ref, &o->params), "official load: %d %s", rc, rc ? cz_error_message() : "");
    if (rc) return cz_test_finish();
    cz_srs_release(&m, o);
    evict(&m, &oc);
    CHECK(cz_srs_tier(o) == CZ_TIER_WARM && truncate(official, 5000) == 0);
    acquire(&m, &oc, &o, &rc);
    CHECK_MSG(rc != 0 && strstr(cz_error_message(), official), "official, cut short: %d %s", rc, cz_error_message());
    CHECK(cz_srs_tier(o) != CZ_TIER_HOT);
    /* whole again: loads */
    CHECK(copy_file(seeded, official) == 0);
    acquire(&m, &oc, &o, &rc);
    CHECK_MSG(rc == 0 && same_bases(&ref, &o->params), "official, whole again: %d %s", rc, rc ? cz_error_message() : "");
    if (!rc) cz_srs_release(&m, o);
    /* rewritten in place at the same size: the load reads the new bytes (a point of H off the curve), not the old
     * pages: it fails naming the file */
    evict(&m, &oc);
    flip(official, 2000, 0x01);
    acquire(&m, &oc, &o, &rc);
    CHECK_MSG(rc != 0 && strstr(cz_error_message(), official), "official, rewritten in place: %d %s", rc,
              rc ? cz_error_message() : "");
    CHECK(copy_file(seeded, official) == 0);

    /* released bases: restored from the intact file equal to the first decode */
    acquire(&m, &oc, &o, &rc);
    CHECK_MSG(rc == 0, "official, for the release: %s", rc ? cz_error_message() : "");
    if (rc) return cz_test_finish();
    uint64_t freed = 0, ms = 0;
    CHECK(cz_srs_release_bases(&m, o, &freed) == 0 && freed > 0 && cz_groth16_params_bases_released(&o->params) &&
          cz_srs_released_bytes(&m, o) == freed);
    CHECK(cz_srs_restore_bases(&m, o, nop, nop, NULL, &ms) == 0 && !cz_groth16_params_bases_released(&o->params) &&
          same_bases(&ref, &o->params) && cz_srs_released_bytes(&m, o) == 0);
    /* released, the file cut short in place: the restore fails, nothing read past its end */
    CHECK(cz_srs_release_bases(&m, o, &freed) == 0 && freed > 0);
    CHECK(truncate(official, 5000) == 0);
    rc = cz_srs_restore_bases(&m, o, nop, nop, NULL, &ms);
    CHECK_MSG(rc == CZ_EFORMAT && strstr(cz_error_message(), official) && strstr(cz_error_message(), "changed on disk"),
              "restore, cut short: %d %s", rc, cz_error_message());
    CHECK(cz_groth16_params_bases_released(&o->params) && cz_srs_released_bytes(&m, o) == freed);
    cz_srs_release(&m, o);
    /* released, the file replaced by a rename: the mapping still reads the old inode, whole: restored */
    evict(&m, &oc);
    CHECK(copy_file(seeded, official) == 0);
    acquire(&m, &oc, &o, &rc);
    CHECK_MSG(rc == 0, "official, once more: %s", rc ? cz_error_message() : "");
    if (rc) return cz_test_finish();
    CHECK(cz_srs_release_bases(&m, o, &freed) == 0 && freed > 0);
    CHECK(copy_file(seeded, spare) == 0 && truncate(spare, 5000) == 0 && rename(spare, official) == 0);
    rc = cz_srs_restore_bases(&m, o, nop, nop, NULL, &ms);
    CHECK_MSG(rc == 0 && same_bases(&ref, &o->params), "restore after a rename: %d %s", rc, rc ? cz_error_message() : "");
    cz_srs_release(&m, o);

    /* cut short while being read (the read hook truncates it after the size check, before the decode): the guarded
     * decode reads zero pages instead of dying of SIGBUS, and the load fails naming the file */
    evict(&m, &oc); /* WARM over the renamed-away inode: COLD, so that the next load maps the file at the path */
    {
        bool was;
        uint64_t fr;
        CHECK(cz_srs_evict(&m, &oc, &was, &fr) == 0 && !was && cz_srs_tier(o) == CZ_TIER_COLD);
    }
    CHECK(copy_file(seeded, official) == 0);
    cut_path = official, armed = 1;
    cz_srs_set_read_hook_for_test(cut_once);
    acquire(&m, &oc, &o, &rc); /* the first read counts the sections (check_layout) */
    CHECK_MSG(rc == CZ_EFORMAT && strstr(cz_error_message(), official) &&
                  strstr(cz_error_message(), "cut short on disk while its sections were counted"),
              "cut before the count: %d %s", rc, cz_error_message());
    CHECK(cuts == 1 && cz_srs_tier(o) != CZ_TIER_HOT);
    CHECK(copy_file(seeded, official) == 0);
    armed = 1, skip = 1;
    acquire(&m, &oc, &o, &rc);
    CHECK_MSG(rc == CZ_EFORMAT && strstr(cz_error_message(), official) &&
                  strstr(cz_error_message(), "cut short on disk while it was decoded"),
              "cut during the decode: %d %s", rc, cz_error_message());
    CHECK(cuts == 2 && cz_srs_tier(o) != CZ_TIER_HOT);
    /* whole again: loads; then released, cut during the restore's decode: refused the same way, still released */
    CHECK(copy_file(seeded, official) == 0);
    acquire(&m, &oc, &o, &rc);
    CHECK_MSG(rc == 0 && same_bases(&ref, &o->params), "after the cut: %d %s", rc, rc ? cz_error_message() : "");
    if (!rc) {
        CHECK(cz_srs_release_bases(&m, o, &freed) == 0 && freed > 0);
        armed = 1;
        rc = cz_srs_restore_bases(&m, o, nop, nop, NULL, &ms);
        CHECK_MSG(rc == CZ_EFORMAT && strstr(cz_error_message(), "cut short on disk while its bases were decoded again"),
                  "cut during the restore: %d %s", rc, cz_error_message());
        CHECK(cuts == 3 && cz_groth16_params_bases_released(&o->params));
        cz_srs_release(&m, o);
    }
    cz_srs_set_read_hook_for_test(NULL);
    cz_groth16_params_free(&ref);
    cz_srs_destroy(&m);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) fprintf(stderr, "cannot remove %s\n", dir);
    return cz_test_finish();
}
