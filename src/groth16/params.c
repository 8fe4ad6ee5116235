#include "groth16/params.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cz_error.h"
#include "util/mem.h"

/* A cursor over the file image; every error names the file, the section and the byte offset. */
typedef struct {
    const uint8_t *buf;
    size_t len, off;
    const char *name;
    bool (*stop)(void *); /* asked before each piece of a section (cz_groth16_params_decode_until), or NULL */
    void *arg;
} cz_cursor;

static const char *problem_text(int code) {
    switch (code) {
    case CZ_ECURVE: return "point not on the curve";
    case CZ_ESUBGROUP: return "point not in the prime-order subgroup";
    case CZ_ERANGE: return "coordinate not below the field modulus";
    case CZ_EINVAL: return "bad flag bits for an uncompressed point";
    default: return "undecodable point";
    }
}

static void put_u32_be(uint8_t *o, uint32_t v) {
    o[0] = (uint8_t)(v >> 24);
    o[1] = (uint8_t)(v >> 16);
    o[2] = (uint8_t)(v >> 8);
    o[3] = (uint8_t)v;
}

static int read_count(cz_cursor *c, const char *section, size_t elem, size_t *count) {
    if (c->len - c->off < 4)
        return cz_error(CZ_EFORMAT, "%s: section %s: truncated: count needs 4 bytes at byte offset %zu, file has %zu",
                        c->name, section, c->off, c->len);
    const uint8_t *p = c->buf + c->off;
    size_t n = ((size_t)p[0] << 24) | ((size_t)p[1] << 16) | ((size_t)p[2] << 8) | p[3];
    size_t avail = c->len - c->off - 4;
    if (n > avail / elem)
        return cz_error(CZ_EFORMAT,
                        "%s: section %s: truncated or bad count: count %zu at byte offset %zu needs %zu bytes, "
                        "%zu remain",
                        c->name, section, n, c->off, n * elem, avail);
    c->off += 4;
    *count = n;
    return 0;
}

/* Decodes n points in parallel, g_piece at a time (c->stop is asked before each): 2^20 points are ~35 ms on 16
 * threads at the ~17 s a 47 GB file takes, so a stop waits for little; smaller pieces cost more forks and joins (on 2
 * threads 2^16 took ~4 % longer than 2^20), and the loop in a function of its own ~2 % less than inline (docs/perf.md
 * session 66). On failure reports the first bad point (lowest index). */
static size_t g_piece = (size_t)1 << 20;
void cz_groth16_params_set_piece_for_test(size_t points) { g_piece = points ? points : (size_t)1 << 20; }
#define DEFINE_DECODE_MANY(G, SIZE)                                                                            \
    /* points [s, e) in parallel: the lowest bad index, or SIZE_MAX */                                         \
    static size_t decode_range_##G(cz_##G##_affine *out, const uint8_t *base, size_t s, size_t e, unsigned dflags, \
                                   int allow_infinity) {                                                       \
        size_t bad = SIZE_MAX;                                                                                 \
        _Pragma("omp parallel for schedule(static) reduction(min : bad) if (e - s > 256)")                     \
        for (size_t i = s; i < e; i++) {                                                                       \
            if (i > bad)                                                                                       \
                continue;                                                                                      \
            if (cz_##G##_from_uncompressed(&out[i], base + i * SIZE, dflags) != 0 ||                           \
                (!allow_infinity && cz_##G##_affine_is_infinity(&out[i])))                                     \
                bad = i;                                                                                       \
        }                                                                                                      \
        return bad;                                                                                            \
    }                                                                                                          \
    static int decode_##G##s(cz_cursor *c, const char *section, cz_##G##_affine *out, size_t n, unsigned dflags, \
                             int allow_infinity) {                                                             \
        if (c->len - c->off < n * SIZE)                                                                        \
            return cz_error(CZ_EFORMAT, "%s: section %s: truncated: %zu points need %zu bytes at byte offset %zu, " \
                            "%zu remain", c->name, section, n, n * (size_t)SIZE, c->off, c->len - c->off);      \
        const uint8_t *base = c->buf + c->off;                                                                 \
        size_t bad = SIZE_MAX;                                                                                 \
        for (size_t s = 0; s < n && bad == SIZE_MAX; s += g_piece) {                                           \
            if (c->stop && c->stop(c->arg))                                                                   \
                return cz_error(CZ_ECANCELED, "%s: section %s: decode stopped at point %zu of %zu", c->name,   \
                                section, s, n);                                                                \
            bad = decode_range_##G(out, base, s, n - s < g_piece ? n : s + g_piece, dflags, allow_infinity);    \
        }                                                                                                      \
        if (bad != SIZE_MAX) {                                                                                 \
            cz_##G##_affine tmp;                                                                               \
            int rc = cz_##G##_from_uncompressed(&tmp, base + bad * SIZE, dflags);                              \
            size_t at = c->off + bad * SIZE;                                                                   \
            if (rc == 0)                                                                                       \
                return cz_error(CZ_EFORMAT, "%s: section %s: point %zu at byte offset %zu: point at infinity " \
                                "(not allowed here)", c->name, section, bad, at);                              \
            return cz_error(rc, "%s: section %s: point %zu at byte offset %zu: %s", c->name, section, bad, at,  \
                            problem_text(rc));                                                                 \
        }                                                                                                      \
        c->off += n * SIZE;                                                                                    \
        return 0;                                                                                              \
    }
DEFINE_DECODE_MANY(g1, 96)
DEFINE_DECODE_MANY(g2, 192)

size_t cz_groth16_vk_size(const cz_groth16_vk *vk) { return CZ_GROTH16_VK_FIXED_BYTES + 96 * vk->ic_len; }

void cz_groth16_vk_encode(uint8_t *out, const cz_groth16_vk *vk) {
    cz_g1_to_uncompressed(out, &vk->alpha_g1);
    cz_g1_to_uncompressed(out + 96, &vk->beta_g1);
    cz_g2_to_uncompressed(out + 192, &vk->beta_g2);
    cz_g2_to_uncompressed(out + 384, &vk->gamma_g2);
    cz_g1_to_uncompressed(out + 576, &vk->delta_g1);
    cz_g2_to_uncompressed(out + 672, &vk->delta_g2);
    put_u32_be(out + 864, (uint32_t)vk->ic_len);
    for (size_t i = 0; i < vk->ic_len; i++)
        cz_g1_to_uncompressed(out + 868 + 96 * i, &vk->ic[i]);
}

static int vk_decode_cursor(cz_groth16_vk *vk, cz_cursor *c) {
    memset(vk, 0, sizeof *vk);
    const unsigned chk = CZ_DECODE_CHECK_SUBGROUP;
    int rc;
    /* bellperson reads the six fixed points with from_uncompressed (infinity allowed), IC without infinity. */
    if ((rc = decode_g1s(c, "vk.alpha_g1", &vk->alpha_g1, 1, chk, 1)) ||
        (rc = decode_g1s(c, "vk.beta_g1", &vk->beta_g1, 1, chk, 1)) ||
        (rc = decode_g2s(c, "vk.beta_g2", &vk->beta_g2, 1, chk, 1)) ||
        (rc = decode_g2s(c, "vk.gamma_g2", &vk->gamma_g2, 1, chk, 1)) ||
        (rc = decode_g1s(c, "vk.delta_g1", &vk->delta_g1, 1, chk, 1)) ||
        (rc = decode_g2s(c, "vk.delta_g2", &vk->delta_g2, 1, chk, 1)))
        return rc;
    size_t n;
    size_t count_at = c->off;
    if ((rc = read_count(c, "vk.ic", 96, &n)))
        return rc;
    if (n == 0)
        return cz_error(CZ_EFORMAT, "%s: section vk.ic: bad count 0 at byte offset %zu (IC holds at least ONE)",
                        c->name, count_at);
    vk->ic = malloc(n * sizeof *vk->ic);
    if (!vk->ic)
        return cz_error(CZ_ENOMEM, "%s: section vk.ic: cannot allocate %zu points", c->name, n);
    vk->ic_len = n;
    if ((rc = decode_g1s(c, "vk.ic", vk->ic, n, chk, 0))) {
        cz_groth16_vk_free(vk);
        return rc;
    }
    return 0;
}

int cz_groth16_vk_decode(cz_groth16_vk *vk, const uint8_t *buf, size_t len, const char *name, size_t *consumed) {
    cz_cursor c = {buf, len, 0, name ? name : "vk", NULL, NULL};
    int rc = vk_decode_cursor(vk, &c);
    if (rc == 0 && consumed)
        *consumed = c.off;
    return rc;
}

void cz_groth16_vk_free(cz_groth16_vk *vk) {
    free(vk->ic);
    vk->ic = NULL;
    vk->ic_len = 0;
}

/* ---- files ---- */

typedef struct {
    const uint8_t *data;
    size_t len;
} cz_mapping;

static int map_file(cz_mapping *m, const char *path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return cz_error(CZ_EIO, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return cz_error(CZ_EIO, "%s: cannot stat: %s", path, strerror(e));
    }
    m->len = (size_t)st.st_size;
    m->data = NULL;
    if (m->len > 0) {
        void *p = mmap(NULL, m->len, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            int e = errno;
            close(fd);
            return cz_error(CZ_EIO, "%s: cannot mmap %zu bytes: %s", path, m->len, strerror(e));
        }
        m->data = p;
        /* Decoding walks the file once front to back. */
        madvise(p, m->len, MADV_SEQUENTIAL);
    }
    close(fd);
    return 0;
}

static void unmap_file(cz_mapping *m) {
    if (m->data)
        munmap((void *)m->data, m->len);
}

int cz_groth16_vk_read_file(cz_groth16_vk *vk, const char *path) {
    cz_mapping m = {NULL, 0};
    int rc = map_file(&m, path);
    if (rc)
        return rc;
    static const uint8_t empty[1];
    rc = cz_groth16_vk_decode(vk, m.data ? m.data : empty, m.len, path, NULL);
    unmap_file(&m);
    return rc;
}

static int write_all(FILE *f, const char *path, const void *p, size_t n) {
    if (n && fwrite(p, 1, n, f) != n)
        return cz_error(CZ_EIO, "%s: write failed: %s", path, strerror(errno));
    return 0;
}

int cz_groth16_vk_write_file(const char *path, const cz_groth16_vk *vk) {
    size_t n = cz_groth16_vk_size(vk);
    uint8_t *buf = malloc(n);
    if (!buf)
        return cz_error(CZ_ENOMEM, "%s: cannot allocate %zu bytes", path, n);
    cz_groth16_vk_encode(buf, vk);
    FILE *f = fopen(path, "wb");
    if (!f) {
        free(buf);
        return cz_error(CZ_EIO, "%s: cannot create: %s", path, strerror(errno));
    }
    int rc = write_all(f, path, buf, n);
    if (fclose(f) != 0 && rc == 0)
        rc = cz_error(CZ_EIO, "%s: close failed: %s", path, strerror(errno));
    free(buf);
    return rc;
}

uint64_t cz_groth16_params_bases_bytes(const cz_groth16_params *p) {
    return 96 * (uint64_t)(p->h_len + p->l_len + p->a_len + p->b_len) + 192 * (uint64_t)p->b_len;
}

size_t cz_groth16_params_size(const cz_groth16_params *p) {
    return cz_groth16_vk_size(&p->vk) + 5 * 4 + (size_t)cz_groth16_params_bases_bytes(p);
}

uint64_t cz_groth16_params_bound(uint64_t ni, uint64_t na, uint64_t rows) {
    uint64_t n = 1;
    while (n < rows) n <<= 1;
    const uint64_t v = ni + na; /* a_len, b_len <= every variable */
    return CZ_GROTH16_VK_FIXED_BYTES + 96 * ni + 5 * 4 + 96 * ((n - 1) + na + 2 * v) + 192 * v;
}

/* Encodes a section in chunks (in parallel) so that huge parameter files never need a second full copy. */
#define CHUNK_POINTS 16384
#define DEFINE_WRITE_SECTION(G, SIZE)                                                                     \
    static int write_##G##_section(FILE *f, const char *path, uint8_t *chunk, const cz_##G##_affine *pts, \
                                   size_t n) {                                                            \
        uint8_t cnt[4];                                                                                   \
        put_u32_be(cnt, (uint32_t)n);                                                                     \
        int rc = write_all(f, path, cnt, 4);                                                              \
        for (size_t s = 0; rc == 0 && s < n; s += CHUNK_POINTS) {                                         \
            size_t m = n - s < CHUNK_POINTS ? n - s : CHUNK_POINTS;                                       \
            _Pragma("omp parallel for schedule(static) if (m > 256)")                                     \
            for (size_t i = 0; i < m; i++)                                                                \
                cz_##G##_to_uncompressed(chunk + i * SIZE, &pts[s + i]);                                  \
            rc = write_all(f, path, chunk, m * SIZE);                                                     \
        }                                                                                                 \
        return rc;                                                                                        \
    }
DEFINE_WRITE_SECTION(g1, 96)
DEFINE_WRITE_SECTION(g2, 192)

int cz_groth16_params_write_file(const char *path, const cz_groth16_params *p) {
    if (p->h_len > UINT32_MAX || p->l_len > UINT32_MAX || p->a_len > UINT32_MAX || p->b_len > UINT32_MAX ||
        p->vk.ic_len > UINT32_MAX)
        return cz_error(CZ_ERANGE, "%s: a section has more than 2^32-1 points", path);
    size_t vkn = cz_groth16_vk_size(&p->vk);
    size_t chunkn = (size_t)CHUNK_POINTS * 192;
    uint8_t *vkbuf = malloc(vkn), *chunk = malloc(chunkn);
    if (!vkbuf || !chunk) {
        free(vkbuf);
        free(chunk);
        return cz_error(CZ_ENOMEM, "%s: cannot allocate write buffers", path);
    }
    cz_groth16_vk_encode(vkbuf, &p->vk);
    FILE *f = fopen(path, "wb");
    int rc;
    if (!f) {
        rc = cz_error(CZ_EIO, "%s: cannot create: %s", path, strerror(errno));
    } else {
        rc = write_all(f, path, vkbuf, vkn);
        if (rc == 0)
            rc = write_g1_section(f, path, chunk, p->h, p->h_len);
        if (rc == 0)
            rc = write_g1_section(f, path, chunk, p->l, p->l_len);
        if (rc == 0)
            rc = write_g1_section(f, path, chunk, p->a, p->a_len);
        if (rc == 0)
            rc = write_g1_section(f, path, chunk, p->b_g1, p->b_len);
        if (rc == 0)
            rc = write_g2_section(f, path, chunk, p->b_g2, p->b_len);
        if (fclose(f) != 0 && rc == 0)
            rc = cz_error(CZ_EIO, "%s: close failed: %s", path, strerror(errno));
    }
    free(vkbuf);
    free(chunk);
    return rc;
}

#define DEFINE_READ_SECTION(G, SIZE)                                                                           \
    static int read_##G##_section(cz_cursor *c, const char *section, cz_##G##_affine **out, size_t *n,       \
                                  unsigned dflags) {                                                          \
        int rc = read_count(c, section, SIZE, n);                                                             \
        if (rc)                                                                                               \
            return rc;                                                                                        \
        *out = malloc((*n ? *n : 1) * sizeof **out);                                                          \
        if (!*out)                                                                                            \
            return cz_error(CZ_ENOMEM, "%s: section %s: cannot allocate %zu points", c->name, section, *n);   \
        cz_advise_hugepages(*out, (*n ? *n : 1) * sizeof **out); /* written once, by every thread */          \
        return decode_##G##s(c, section, *out, *n, dflags, 0);                                                \
    }
DEFINE_READ_SECTION(g1, 96)
DEFINE_READ_SECTION(g2, 192)

/* The sections after the vk (c just past it) from their counts alone: each must fit in what remains (read_count), H
 * hold n-1 points (n a power of two), A at least IC's inputs, B_G2 as many points as B_G1. Bytes after B_G2 are
 * allowed (bellperson ignores them); out->end says where B_G2 ends. */
static int walk_sections(cz_cursor *c, size_t ic_len, cz_groth16_params_layout *out) {
    static const char *const names[5] = {"H", "L", "A", "B_G1", "B_G2"};
    size_t n[5] = {0};
    for (int s = 0; s < 5; s++) {
        const size_t at = c->off, elem = s == 4 ? 192 : 96;
        int rc = read_count(c, names[s], elem, &n[s]);
        if (rc) return rc;
        c->off += n[s] * elem;
        if (s == 0 && ((n[0] + 1) & n[0]))
            return cz_error(CZ_EFORMAT, "%s: section H: bad count %zu at byte offset %zu (H holds n-1 points, n a power "
                            "of two)", c->name, n[0], at);
        if (s == 2 && n[2] < ic_len)
            return cz_error(CZ_EFORMAT, "%s: section A: bad count %zu at byte offset %zu (below the %zu inputs of IC)",
                            c->name, n[2], at, ic_len);
        if (s == 4 && n[4] != n[3])
            return cz_error(CZ_EFORMAT, "%s: section B_G2: bad count %zu at byte offset %zu (B_G1 has %zu)", c->name,
                            n[4], at, n[3]);
    }
    out->ic_len = ic_len, out->h_len = n[0], out->l_len = n[1], out->a_len = n[2], out->b_len = n[3];
    out->end = c->off;
    return 0;
}

int cz_groth16_params_layout_of(cz_groth16_params_layout *out, const uint8_t *buf, size_t len, const char *name) {
    memset(out, 0, sizeof *out);
    cz_cursor c = {buf, len, 0, name ? name : "params", NULL, NULL};
    cz_groth16_vk vk;
    int rc = vk_decode_cursor(&vk, &c);
    if (rc) return rc;
    rc = walk_sections(&c, vk.ic_len, out);
    cz_groth16_vk_free(&vk);
    return rc;
}

int cz_groth16_params_file_layout(cz_groth16_params_layout *out, uint64_t *file_bytes, const char *path) {
    cz_mapping m = {NULL, 0};
    int rc = map_file(&m, path);
    if (rc) return rc;
    madvise((void *)m.data, m.len, MADV_RANDOM); /* a few pages: no read-ahead over a 47 GB file */
    static const uint8_t empty[1];
    rc = cz_groth16_params_layout_of(out, m.data ? m.data : empty, m.len, path);
    if (file_bytes) *file_bytes = m.len;
    unmap_file(&m);
    return rc;
}

int cz_groth16_params_decode(cz_groth16_params *p, const uint8_t *buf, size_t len, const char *name,
                             unsigned flags) {
    return cz_groth16_params_decode_until(p, buf, len, name, flags, NULL, NULL);
}

int cz_groth16_params_decode_until(cz_groth16_params *p, const uint8_t *buf, size_t len, const char *name,
                                   unsigned flags, bool (*stop)(void *), void *arg) {
    memset(p, 0, sizeof *p);
    cz_cursor c = {buf, len, 0, name ? name : "params", stop, arg};
    unsigned dflags = (flags & CZ_PARAMS_CHECK_SUBGROUP) ? CZ_DECODE_CHECK_SUBGROUP : 0;
    size_t b2_len = 0;
    int rc = vk_decode_cursor(&p->vk, &c);
    if (rc)
        return rc;
    /* every count first: a file cut short or of another layout is refused before any point is decoded */
    cz_cursor w = c;
    cz_groth16_params_layout lay;
    if ((rc = walk_sections(&w, p->vk.ic_len, &lay)))
        goto fail;
    if ((rc = read_g1_section(&c, "H", &p->h, &p->h_len, dflags)) ||
        (rc = read_g1_section(&c, "L", &p->l, &p->l_len, dflags)) ||
        (rc = read_g1_section(&c, "A", &p->a, &p->a_len, dflags)) ||
        (rc = read_g1_section(&c, "B_G1", &p->b_g1, &p->b_len, dflags)) ||
        (rc = read_g2_section(&c, "B_G2", &p->b_g2, &b2_len, dflags)))
        goto fail;
    return 0;
fail:
    cz_groth16_params_free(p);
    return rc;
}

int cz_groth16_params_read_file(cz_groth16_params *p, const char *path, unsigned flags) {
    cz_mapping m = {NULL, 0};
    int rc = map_file(&m, path);
    if (rc)
        return rc;
    static const uint8_t empty[1];
    rc = cz_groth16_params_decode(p, m.data ? m.data : empty, m.len, path, flags);
    unmap_file(&m);
    return rc;
}

void cz_groth16_params_free(cz_groth16_params *p) {
    cz_groth16_vk_free(&p->vk);
    free(p->h);
    free(p->l);
    free(p->a);
    free(p->b_g1);
    free(p->b_g2);
    p->h = p->l = p->a = p->b_g1 = NULL;
    p->b_g2 = NULL;
    p->h_len = p->l_len = p->a_len = p->b_len = 0;
}
