/* util/file.h: cz_file_read on files, pipes and what it must refuse, and the readers built on it.
 * - regular files of random bytes (NULs included) around its block sizes (0, 1, 65,534-65,537, 200,000 and a random
 *   length): every byte as written, a NUL after them, the length;
 * - the same bytes from a pipe (/dev/fd/N, as bash's <(...) gives): a stream has no size to read up front (the
 *   cuzk-bench reader it replaces sized its buffer from ftell's -1 and overran a 1-byte block);
 * - max: a file of exactly max bytes is read, one byte more is refused ("larger than"), from a pipe too, where the
 *   writer is left with bytes unread; a directory ("is a directory") and a missing file ("cannot open") are CZ_EIO,
 *   and every refusal leaves *out NULL;
 * - cz_config_load_file through a pipe (a config from <(...)), a directory, and a NUL byte (CZ_EFORMAT). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../testutil.h"
#include "cz_error.h"
#include "engine/config.h"
#include "util/file.h"

static char dir[] = "/tmp/cz_file_XXXXXX";

static void write_file(const char *path, const unsigned char *b, size_t n) {
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f) return;
    CHECK(fwrite(b, 1, n, f) == n);
    fclose(f);
}

/* reads what a child writes into a pipe (n bytes of b) through /dev/fd/N; the child's exit status in *status */
static int read_pipe(const unsigned char *b, size_t n, size_t max, char **out, size_t *len, int *status) {
    int fds[2];
    if (pipe(fds)) return -1;
    const pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        signal(SIGPIPE, SIG_DFL);
        for (size_t at = 0; at < n;) { /* in pieces of 4,093 bytes: the reader sees short reads */
            const size_t k = n - at < 4093 ? n - at : 4093;
            const ssize_t w = write(fds[1], b + at, k);
            if (w <= 0) _exit(3);
            at += (size_t)w;
        }
        _exit(0);
    }
    close(fds[1]);
    char path[64];
    snprintf(path, sizeof path, "/dev/fd/%d", fds[0]);
    const int rc = cz_file_read(path, max, out, len);
    close(fds[0]);
    waitpid(pid, status, 0);
    return rc;
}

static void same(const char *what, int rc, const char *out, size_t len, const unsigned char *b, size_t n) {
    CHECK_MSG(rc == 0 && out && len == n && !memcmp(out, b, n) && out[n] == 0, "%s: %zu bytes: rc %d, len %zu (%s)",
              what, n, rc, len, rc ? cz_error_message() : "");
}

static void refused(const char *what, int rc, const char *out, int code, const char *msg) {
    CHECK_MSG(rc == code && !out && strstr(cz_error_message(), msg), "%s: rc %d (want %d), \"%s\" (want \"%s\")",
              what, rc, code, cz_error_message(), msg);
}

int main(void) {
    cz_rng rng;
    cz_test_rng(&rng);
    CHECK(mkdtemp(dir) != NULL);
    char path[128];
    snprintf(path, sizeof path, "%s/f", dir);
    const size_t rnd = 1 + cz_rng_next(&rng) % 300000;
    const size_t sizes[] = {0, 1, 65534, 65535, 65536, 65537, 200000, rnd};
    unsigned char *b = malloc(300001);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        const size_t n = sizes[i];
        cz_rng_bytes(&rng, b, n);
        if (n > 2) b[n / 2] = 0; /* a NUL inside: the length is the file's, not strlen's */
        write_file(path, b, n);
        char *out = NULL;
        size_t len = 7;
        int st = -1, rc = cz_file_read(path, SIZE_MAX, &out, &len); /* (each call before the check reads out) */
        same("file", rc, out, len, b, n);
        free(out);
        rc = cz_file_read(path, n, &out, &len);
        same("file at max = its size", rc, out, len, b, n);
        free(out);
        rc = read_pipe(b, n, SIZE_MAX, &out, &len, &st);
        same("pipe", rc, out, len, b, n);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        free(out);
        rc = read_pipe(b, n, n, &out, &len, &st);
        same("pipe at max = its size", rc, out, len, b, n);
        free(out);
        if (!n) continue;
        out = (char *)1;
        rc = cz_file_read(path, n - 1, &out, &len);
        refused("file over max", rc, out, CZ_EIO, "larger than");
        out = (char *)1;
        rc = read_pipe(b, n, n - 1, &out, &len, &st);
        refused("pipe over max", rc, out, CZ_EIO, "larger than");
    }
    /* a pipe of 1 MB refused at 100,000 bytes: read no further than max + 1 (the writer then dies of SIGPIPE) */
    unsigned char *big = calloc(1, 1 << 20);
    char *out = (char *)1;
    size_t len;
    int st = -1, rc = read_pipe(big, 1 << 20, 100000, &out, &len, &st);
    refused("1 MB pipe over max", rc, out, CZ_EIO, "larger than 100000");
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGPIPE);
    free(big);
    out = (char *)1;
    rc = cz_file_read(dir, SIZE_MAX, &out, NULL);
    refused("directory", rc, out, CZ_EIO, "is a directory");
    char missing[160];
    snprintf(missing, sizeof missing, "%s/missing", dir);
    out = (char *)1;
    rc = cz_file_read(missing, SIZE_MAX, &out, NULL);
    refused("missing file", rc, out, CZ_EIO, "cannot open");

    /* the config reader on it: a TOML from a pipe; a directory; a NUL byte */
    cz_config c;
    cz_config_defaults(&c);
    const char *toml = "[synthesis]\nthreads = 7\n";
    int fds[2];
    CHECK(pipe(fds) == 0);
    CHECK(write(fds[1], toml, strlen(toml)) == (ssize_t)strlen(toml));
    close(fds[1]);
    char fdpath[64];
    snprintf(fdpath, sizeof fdpath, "/dev/fd/%d", fds[0]);
    rc = cz_config_load_file(&c, fdpath);
    CHECK_MSG(rc == 0 && c.synthesis_threads == 7, "config from a pipe: rc %d (%s), threads %u", rc,
              rc ? cz_error_message() : "", c.synthesis_threads);
    close(fds[0]);
    CHECK(cz_config_load_file(&c, dir) == CZ_EIO && strstr(cz_error_message(), "is a directory"));
    write_file(path, (const unsigned char *)"[synthesis]\n\0threads = 3\n", 26);
    CHECK(cz_config_load_file(&c, path) == CZ_EFORMAT && strstr(cz_error_message(), "NUL byte"));
    CHECK(c.synthesis_threads == 7);

    unlink(path);
    rmdir(dir);
    free(b);
    return cz_test_finish();
}
