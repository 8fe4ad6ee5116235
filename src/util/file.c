#include "util/file.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cz_error.h"

int cz_file_read(const char *path, size_t max, char **out, size_t *len) {
    *out = NULL;
    if (len) *len = 0;
    if (max > SIZE_MAX - 2) max = SIZE_MAX - 2; /* max + 1 bytes and the NUL must be countable */
    FILE *f = fopen(path, "rb");
    if (!f) return cz_error(CZ_EIO, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    const int known = fstat(fileno(f), &st) == 0;
    if (known && S_ISDIR(st.st_mode)) {
        fclose(f);
        return cz_error(CZ_EIO, "%s: is a directory", path);
    }
    /* a regular file's size sizes the buffer (one read finds its end; a file that grows meanwhile is read on); a
     * stream's is unknown: blocks from 64 KiB, doubled as it goes */
    size_t cap = known && S_ISREG(st.st_mode) ? ((uint64_t)st.st_size < max ? (size_t)st.st_size : max) + 2 : 65536;
    size_t n = 0;
    char *buf = NULL;
    int rc = 0;
    for (;;) {
        if (!buf || n + 1 >= cap) {
            const size_t nc = !buf ? cap : cap > SIZE_MAX / 2 ? SIZE_MAX : cap * 2;
            char *nb = realloc(buf, nc);
            if (!nb) {
                rc = cz_error(CZ_ENOMEM, "%s: out of memory reading it (%zu bytes so far)", path, n);
                break;
            }
            buf = nb, cap = nc;
        }
        size_t want = cap - 1 - n; /* the last byte is the NUL's */
        if (want > max + 1 - n) want = max + 1 - n; /* one byte past max tells a file that is too large */
        const size_t got = fread(buf + n, 1, want, f);
        n += got;
        if (n > max) {
            rc = cz_error(CZ_EIO, "%s: larger than %zu bytes", path, max);
            break;
        }
        if (got < want) { /* its end, or an error */
            if (ferror(f)) rc = cz_error(CZ_EIO, "%s: read error: %s", path, strerror(errno));
            break;
        }
    }
    fclose(f);
    if (rc) {
        free(buf);
        return rc;
    }
    buf[n] = 0;
    *out = buf;
    if (len) *len = n;
    return 0;
}
