/* The digest memo (engine/param_digest.h): a checked official file is not hashed again while it is unchanged.
 * Every way a file can change under the memo must make the next load hash it again: rewritten (same size,
 * same bytes), modification time set back, truncated, replaced by another file (rename), the memo garbled,
 * the memo naming another digest; a file changed between the identity taken before the hash and the store is
 * not memoized; a memo belongs to one file name; an unwritable cache stores nothing; drop removes it.
 * The digest itself: RFC 7693's BLAKE2b-512("abc"), and cz_param_digest_until over 40 MiB asking its stop first and
 * after each 16 MiB (3 times), equal to the plain digest when never stopped, given up (hex not written) at each. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, utimensat */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cz_error.h"
#include "engine/param_digest.h"
#include "testutil.h"

static char dir[256], file[400], other[400];
static const char *const HEX = "0123456789abcdef0123456789abcdef", *const HEX2 = "fedcba9876543210fedcba9876543210";

static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

/* stores the memo for file as it is now and checks it is taken */
static void store_now(void) {
    char id[200];
    CHECK(cz_param_digest_identity(file, id, sizeof id));
    CHECK(cz_param_digest_memo_store(dir, file, id, HEX) == 0);
    CHECK(cz_param_digest_memo_ok(dir, file, HEX));
}

static void pause_tick(void) { /* file times come from a coarse clock (a few ms) */
    struct timespec t = {0, 30 * 1000 * 1000};
    nanosleep(&t, NULL);
}

static int stop_calls, stop_at;
static bool stop_when(void *arg) {
    (void)arg;
    return ++stop_calls == stop_at;
}

static void digest_until(void) {
    char hex[33];
    cz_param_digest(hex, "abc", 3); /* RFC 7693 appendix A: BLAKE2b-512("abc") = ba80a53f981c4d0d... */
    CHECK_MSG(!strcmp(hex, "ba80a53f981c4d0d6a2797b69f12f6e9"), "BLAKE2b-512(abc) starts %s", hex);
    const size_t len = (40u << 20) + 77;
    uint8_t *buf = malloc(len);
    CHECK(buf != NULL);
    if (!buf) return;
    uint64_t x = 0x9e3779b97f4a7c15ull ^ (uint64_t)time(NULL);
    for (size_t i = 0; i < len; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        buf[i] = (uint8_t)(x >> 56);
    }
    char want[33], got[33];
    cz_param_digest(want, buf, len);
    stop_calls = 0, stop_at = 0;
    CHECK(cz_param_digest_until(got, buf, len, stop_when, NULL) == 0 && !strcmp(got, want));
    CHECK_MSG(stop_calls == 3, "the digest of 40 MiB asked its stop %d times (3)", stop_calls);
    for (int k = 1; k <= 3; k++) {
        stop_calls = 0, stop_at = k;
        memset(got, 'x', sizeof got);
        const int rc = cz_param_digest_until(got, buf, len, stop_when, NULL);
        CHECK_MSG(rc == 1 && stop_calls == k && got[0] == 'x' && got[32] == 'x', "stopped at call %d: rc %d, %d calls",
                  k, rc, stop_calls);
    }
    buf[len - 1] ^= 1; /* the last byte counts: the digest changes */
    CHECK(cz_param_digest_until(got, buf, len, NULL, NULL) == 0 && strcmp(got, want));
    free(buf);
}

int main(void) {
    snprintf(dir, sizeof dir, "/tmp/cz-memo-XXXXXX");
    if (!mkdtemp(dir)) {
        fprintf(stderr, "mkdtemp failed\n");
        return 1;
    }
    snprintf(file, sizeof file, "%s/v28-test.params", dir);
    snprintf(other, sizeof other, "%s/v28-other.params", dir);
    write_file(file, "parameters, version one");

    CHECK(!cz_param_digest_memo_ok(dir, file, HEX)); /* no memo yet */
    store_now();
    CHECK(!cz_param_digest_memo_ok(dir, file, HEX2)); /* another digest expected */
    CHECK(!cz_param_digest_memo_ok(dir, other, HEX)); /* a memo is one file name's */
    CHECK(!cz_param_digest_memo_ok("", file, HEX) && !cz_param_digest_memo_ok(NULL, file, HEX));

    pause_tick(); /* rewritten with the same bytes: new times */
    write_file(file, "parameters, version one");
    CHECK(!cz_param_digest_memo_ok(dir, file, HEX));
    store_now();

    pause_tick(); /* its modification time set back to the memo's: the status-change time still moved */
    struct stat st;
    CHECK(stat(file, &st) == 0);
    struct timespec times[2] = {st.st_atim, st.st_mtim};
    write_file(file, "parameters, version TWO");
    CHECK(utimensat(AT_FDCWD, file, times, 0) == 0);
    CHECK(!cz_param_digest_memo_ok(dir, file, HEX));
    store_now();

    pause_tick(); /* truncated */
    CHECK(truncate(file, 5) == 0);
    CHECK(!cz_param_digest_memo_ok(dir, file, HEX));
    store_now();

    pause_tick(); /* replaced by another file */
    write_file(other, "parameters, version one");
    CHECK(rename(other, file) == 0);
    CHECK(!cz_param_digest_memo_ok(dir, file, HEX));
    store_now();

    { /* a garbled memo */
        char mp[700];
        snprintf(mp, sizeof mp, "%s/cuzk-digest-v28-test.params.ok", dir);
        CHECK(access(mp, F_OK) == 0);
        write_file(mp, "cuzk-digest-v1 garbage\n");
        CHECK(!cz_param_digest_memo_ok(dir, file, HEX));
        store_now();
    }

    { /* changed between the identity before the hash and the store: nothing stored */
        char id[200];
        CHECK(cz_param_digest_identity(file, id, sizeof id));
        pause_tick();
        write_file(file, "changed while it was hashed");
        CHECK(cz_param_digest_memo_store(dir, file, id, HEX) == 1);
        CHECK(!cz_param_digest_memo_ok(dir, file, HEX));
        store_now();
    }

    /* an unwritable cache (no such directory) stores nothing; a missing file has no identity */
    char id[200];
    CHECK(cz_param_digest_identity(file, id, sizeof id));
    CHECK(cz_param_digest_memo_store("/nonexistent-cz-dir", file, id, HEX) == CZ_EIO &&
          strstr(cz_error_message(), "/nonexistent-cz-dir/cuzk-digest-") &&
          strstr(cz_error_message(), "No such file or directory"));
    CHECK(!cz_param_digest_identity("/nonexistent-cz-dir/x.params", id, sizeof id));
    CHECK(!cz_param_digest_memo_ok(dir, "/nonexistent-cz-dir/v28-test.params", HEX));

    cz_param_digest_memo_drop(dir, file);
    CHECK(!cz_param_digest_memo_ok(dir, file, HEX));
    digest_until();

    unlink(file);
    rmdir(dir);
    return cz_test_finish();
}
