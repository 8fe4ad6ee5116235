/* A shutdown during an SRS load's long reads (srs.c: the digest of an official file, ~45 s for 32 GiB PoRep's 47 GB
 * at a first start, and the decode, ~17 s) stops them where they are instead of after them: cz_srs_abort lands
 * from the read hook, just before the read begins (each scenario on a manager of its own: an abort is for good).
 * - decode: the seeded cache file with a point off the curve near its end: the load ends CZ_ECANCELED "shutting
 *   down", and the file is left as it is (before: the decode ran to the bad point, the file was taken for a stale
 *   cache and unlinked, and only then the load stopped);
 * - digest: a file under the official 2 KiB PoRep name whose bytes are not the official ones: CZ_ECANCELED "shutting
 *   down" (before: the whole hash, then "digest mismatch"), and no digest memo written;
 * - cut short: the same file less its last 100 bytes is refused from its section counts ("section B_G2: truncated",
 *   "fetch it again"), before any digest (before: the whole hash, then "digest mismatch");
 * - restore (srs.release_resident_bases): a restore of released bases stopped in its decode fails and the bases stay
 *   released (before: it decoded the whole file and restored them).
 * Unstopped, the same loads still end as before: the bad point's seeded file is set up again whole, the digest
 * mismatch is named, the restore succeeds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../testutil.h"
#include "cz_error.h"
#include "engine/circuit.h"
#include "engine/log.h"
#include "engine/srs.h"

static char dir[] = "/tmp/cz_srs_abort_reads_XXXXXX";
static const char OFFICIAL[] = "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
                               "032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.params";

static long fsize(const char *p) {
    struct stat sb;
    return stat(p, &sb) ? -1 : (long)sb.st_size;
}

static uint8_t *slurp(const char *p, size_t *n) { return (uint8_t *)cz_test_read_file(p, n); }

static int write_bytes(const char *p, const uint8_t *b, size_t n) {
    FILE *f = fopen(p, "wb");
    if (!f) return -1;
    const int rc = fwrite(b, 1, n, f) == n ? 0 : -1;
    return fclose(f) ? -1 : rc;
}

/* the read hook: aborts stop_mgr before the first read of stop_path */
static cz_srs_mgr *stop_mgr;
static const char *stop_path;
static int stops;
static void abort_at_read(const char *path) {
    if (!stop_mgr || !stop_path || strcmp(path, stop_path)) return;
    cz_srs_abort(stop_mgr);
    stop_mgr = NULL, stops++;
}

static int acquire(cz_srs_mgr *m, const cz_circuit *c, cz_srs_entry **e) {
    uint64_t ms = 0;
    return cz_srs_acquire(m, c, e, &ms);
}

static void nop(void *ctx) { (void)ctx; }

static bool shutting_down(int rc) { return rc == CZ_ECANCELED && strstr(cz_error_message(), "shutting down"); }

int main(void) {
    cz_log_set_level("error");
    CHECK(mkdtemp(dir) != NULL);
    const cz_circuit *tc = cz_circuit_find("porep-2k-test");
    CHECK(tc != NULL);
    if (!tc) return cz_test_finish();
    char seeded[600], official[800], plain[600], memo[1000];
    snprintf(seeded, sizeof seeded, "%s/cuzk-test-%s.params", dir, tc->id);
    snprintf(official, sizeof official, "%s/%s", dir, OFFICIAL);
    snprintf(plain, sizeof plain, "%s/plain-test.params", dir);
    snprintf(memo, sizeof memo, "%s/cuzk-digest-%s.ok", dir, OFFICIAL);
    cz_srs_set_read_hook_for_test(abort_at_read);

    /* the seeded setup writes the cache file */
    cz_srs_mgr m;
    cz_srs_entry *e = NULL;
    cz_srs_init(&m, dir, dir, 2);
    int rc = acquire(&m, tc, &e);
    CHECK_MSG(rc == 0 && fsize(seeded) > 100000, "seeded load: %d %s", rc, rc ? cz_error_message() : "");
    if (rc) return cz_test_finish();
    cz_srs_release(&m, e);
    cz_srs_destroy(&m);
    size_t n = 0;
    uint8_t *good = slurp(seeded, &n), *bad = malloc(n);
    CHECK(good && bad && n == (size_t)fsize(seeded));
    if (!good || !bad) return cz_test_finish();
    memcpy(bad, good, n);
    bad[n - 1] ^= 1; /* the last B_G2 point's last byte: off the curve */

    /* decode: stopped before it reads, the seeded file with its bad point is left as it is */
    CHECK(write_bytes(seeded, bad, n) == 0);
    cz_srs_init(&m, dir, dir, 2);
    stop_mgr = &m, stop_path = seeded, stops = 0;
    rc = acquire(&m, tc, &e);
    CHECK_MSG(shutting_down(rc) && stops == 1, "decode stopped: rc %d (%s), %d stops", rc, cz_error_message(), stops);
    if (!rc) cz_srs_release(&m, e);
    size_t n2 = 0;
    uint8_t *now = slurp(seeded, &n2);
    CHECK_MSG(now && n2 == n && !memcmp(now, bad, n), "decode stopped: the seeded file was %s",
              !now ? "removed" : "changed");
    free(now);
    cz_srs_destroy(&m);
    /* unstopped: the bad point makes it a stale cache, set up again whole */
    cz_srs_init(&m, dir, dir, 2);
    rc = acquire(&m, tc, &e);
    now = slurp(seeded, &n2);
    CHECK_MSG(rc == 0 && now && n2 == n && !memcmp(now, good, n), "decode unstopped: rc %d %s", rc,
              rc ? cz_error_message() : "");
    free(now);
    if (!rc) cz_srs_release(&m, e);
    cz_srs_destroy(&m);

    /* digest: a file under the official name, not the official bytes; stopped before it hashes */
    cz_circuit oc = *tc;
    oc.id = "official-test", oc.setup_seed = 0, oc.params_file = OFFICIAL;
    CHECK(write_bytes(official, good, n) == 0);
    cz_srs_init(&m, dir, dir, 2);
    stop_mgr = &m, stop_path = official, stops = 0;
    rc = acquire(&m, &oc, &e);
    CHECK_MSG(shutting_down(rc) && stops == 1, "digest stopped: rc %d (%s), %d stops", rc, cz_error_message(), stops);
    if (!rc) cz_srs_release(&m, e);
    CHECK(access(memo, F_OK) != 0 && fsize(official) == (long)n);
    cz_srs_destroy(&m);
    cz_srs_init(&m, dir, dir, 2); /* unstopped: the mismatch */
    rc = acquire(&m, &oc, &e);
    CHECK_MSG(rc == CZ_EFORMAT && strstr(cz_error_message(), "digest mismatch"), "digest unstopped: rc %d (%s)", rc,
              cz_error_message());
    if (!rc) cz_srs_release(&m, e);
    cz_srs_destroy(&m);
    /* cut short (an interrupted download): refused from its section counts before any digest, by what is wrong with
     * it (before: the whole hash, then "digest mismatch") */
    CHECK(write_bytes(official, good, n - 100) == 0);
    cz_srs_init(&m, dir, dir, 2);
    rc = acquire(&m, &oc, &e);
    CHECK_MSG(rc == CZ_EFORMAT && strstr(cz_error_message(), "section B_G2: truncated") &&
                  strstr(cz_error_message(), "fetch it again") && !strstr(cz_error_message(), "digest"),
              "cut short: rc %d (%s)", rc, cz_error_message());
    if (!rc) cz_srs_release(&m, e);
    CHECK(access(memo, F_OK) != 0);
    cz_srs_destroy(&m);

    /* restore: released bases, the restore's decode stopped: they stay released; unstopped they come back */
    cz_circuit pc = *tc;
    pc.id = "plain-test", pc.setup_seed = 0, pc.params_file = "plain-test.params";
    CHECK(write_bytes(plain, good, n) == 0);
    cz_srs_init(&m, dir, dir, 2);
    rc = acquire(&m, &pc, &e);
    CHECK_MSG(rc == 0, "plain load: %d %s", rc, rc ? cz_error_message() : "");
    if (!rc) {
        uint64_t freed = 0, ms = 0;
        CHECK(cz_srs_release_bases(&m, e, &freed) == 0 && freed > 0);
        stop_mgr = &m, stop_path = plain, stops = 0;
        rc = cz_srs_restore_bases(&m, e, nop, nop, NULL, &ms);
        CHECK_MSG(rc == CZ_ECANCELED && strstr(cz_error_message(), "decode stopped") && stops == 1,
                  "restore stopped: rc %d (%s), %d stops", rc, cz_error_message(), stops);
        CHECK(cz_groth16_params_bases_released(&e->params) && cz_srs_released_bytes(&m, e) == freed);
        cz_srs_release(&m, e);
    }
    cz_srs_destroy(&m);
    cz_srs_init(&m, dir, dir, 2);
    rc = acquire(&m, &pc, &e);
    if (!rc) {
        uint64_t freed = 0, ms = 0;
        CHECK(cz_srs_release_bases(&m, e, &freed) == 0 && freed > 0);
        rc = cz_srs_restore_bases(&m, e, nop, nop, NULL, &ms);
        CHECK_MSG(rc == 0 && !cz_groth16_params_bases_released(&e->params), "restore unstopped: rc %d %s", rc,
                  rc ? cz_error_message() : "");
        cz_srs_release(&m, e);
    }
    cz_srs_destroy(&m);

    cz_srs_set_read_hook_for_test(NULL);
    free(good), free(bad);
    unlink(seeded), unlink(official), unlink(plain), unlink(memo);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    return cz_test_finish();
}
