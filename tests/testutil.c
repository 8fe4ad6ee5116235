#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/file.h"

unsigned long cz_test_passed, cz_test_failed;

uint64_t cz_test_seed(void) {
    static uint64_t seed;
    static int have;
    if (!have) {
        const char *env = getenv("CZ_TEST_SEED");
        if (env && *env) {
            seed = strtoull(env, NULL, 0);
        } else if (cz_os_random(&seed, sizeof seed)) {
            seed = (uint64_t)time(NULL);
        }
        fprintf(stderr, "seed: CZ_TEST_SEED=0x%016llx\n", (unsigned long long)seed);
        have = 1;
    }
    return seed;
}

void cz_test_rng(cz_rng *rng) { cz_rng_seed(rng, cz_test_seed()); }

int cz_test_finish(void) {
    printf("%lu passed, %lu failed\n", cz_test_passed, cz_test_failed);
    return cz_test_failed ? 1 : 0;
}

size_t cz_test_gpu_max_n(size_t dflt) {
    const char *v = getenv("CZ_TEST_GPU_MAX_N");
    if (!v || !*v) return dflt;
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 0);
    if (errno || *end || !n || *v == '-') {
        fprintf(stderr, "CZ_TEST_GPU_MAX_N=%s is not a positive integer\n", v);
        exit(2);
    }
    return (size_t)n;
}

char *cz_test_fixture_path(char *path, size_t cap, const char *rel) {
    const char *dirs[2] = {getenv("CZ_FIXTURES_DIR"), "/work/shared/fixtures/real"};
    for (int i = 0; i < 2; i++) {
        if (!dirs[i] || !*dirs[i]) continue;
        snprintf(path, cap, "%s/%s", dirs[i], rel);
        FILE *f = fopen(path, "rb");
        if (f) {
            fclose(f);
            return path;
        }
    }
    return NULL;
}

char *cz_test_read_fixture(const char *rel, char *path, size_t cap, size_t *len) {
    return cz_test_fixture_path(path, cap, rel) ? cz_test_read_file(path, len) : NULL;
}

char *cz_test_read_file(const char *path, size_t *len) {
    char *b;
    return cz_file_read(path, SIZE_MAX, &b, len) ? NULL : b;
}

void cz_hex_encode(char *out, const uint8_t *in, size_t n) {
    static const char d[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = d[in[i] >> 4];
        out[2 * i + 1] = d[in[i] & 15];
    }
    out[2 * n] = 0;
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int cz_hex_decode(uint8_t *out, size_t n, const char *in) {
    if (strlen(in) < 2 * n) return -1;
    for (size_t i = 0; i < n; i++) {
        int h = hexval(in[2 * i]), l = hexval(in[2 * i + 1]);
        if (h < 0 || l < 0) return -1;
        out[i] = (uint8_t)(h << 4 | l);
    }
    return 0;
}

static int g_saved_stderr = -1;

void cz_test_capture_begin(const char *path) {
    fflush(stderr);
    g_saved_stderr = dup(2);
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
    if (fd >= 0) dup2(fd, 2), close(fd);
}

char *cz_test_capture_end(const char *path) {
    fflush(stderr);
    if (g_saved_stderr >= 0) dup2(g_saved_stderr, 2), close(g_saved_stderr);
    g_saved_stderr = -1;
    char *s = cz_test_read_file(path, NULL);
    return s ? s : calloc(1, 1);
}
