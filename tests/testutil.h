/* Minimal test harness: CHECK records failures without stopping; cz_test_finish prints the
 * closing "N passed, N failed" line and returns the exit status. */
#ifndef CZ_TESTUTIL_H
#define CZ_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/rng.h"

extern unsigned long cz_test_passed, cz_test_failed;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (cond) {                                                                  \
            cz_test_passed++;                                                        \
        } else {                                                                     \
            cz_test_failed++;                                                        \
            if (cz_test_failed <= 20)                                                \
                fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                            \
    } while (0)

#define CHECK_MSG(cond, ...)                                                         \
    do {                                                                             \
        if (cond) {                                                                  \
            cz_test_passed++;                                                        \
        } else {                                                                     \
            cz_test_failed++;                                                        \
            if (cz_test_failed <= 20) {                                              \
                fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond); \
                fprintf(stderr, __VA_ARGS__);                                        \
                fputc('\n', stderr);                                                 \
            }                                                                        \
        }                                                                            \
    } while (0)

/* A fresh seed per run (printed so a failure can be replayed with CZ_TEST_SEED=...). */
uint64_t cz_test_seed(void);
void cz_test_rng(cz_rng *rng);
int cz_test_finish(void);
/* The whole file at path, NUL-terminated, in a malloc'd buffer (NULL if it cannot be read); *len (if not
 * NULL) gets its size. */
char *cz_test_read_file(const char *path, size_t *len);
/* A real fixture, read in place: rel under $CZ_FIXTURES_DIR (the shared fixtures/real folder; ctest sets it)
 * or /work/shared/fixtures/real. Returns path (cap bytes) when the file exists there, NULL when it does not
 * (path then holds the last path tried, for the caller's "skipped" message). */
char *cz_test_fixture_path(char *path, size_t cap, const char *rel);
/* cz_test_read_file of that fixture (NULL when absent). */
char *cz_test_read_fixture(const char *rel, char *path, size_t cap, size_t *len);
/* The GPU tests' size cap: $CZ_TEST_GPU_MAX_N (compute-sanitizer runs: every kernel path on small data), or
 * dflt when it is unset or empty. A value that is not a positive integer stops the test (exit 2) rather than
 * skipping every size and passing. */
size_t cz_test_gpu_max_n(size_t dflt);
/* stderr (log and TIMELINE lines) into the file at path until cz_test_capture_end, which puts stderr back and
 * returns what was written (malloc'd; "" when unreadable). Not nested. */
void cz_test_capture_begin(const char *path);
char *cz_test_capture_end(const char *path);
/* Hex helpers for tests and tools. */
void cz_hex_encode(char *out, const uint8_t *in, size_t n);
int cz_hex_decode(uint8_t *out, size_t n, const char *in);

#endif
