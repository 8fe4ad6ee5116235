#include "r1cs/circom.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cz_error.h"
#include "r1cs/csr_build.h"

#define MAX_SECTION_TYPE 16

typedef struct {
    uint64_t off[MAX_SECTION_TYPE], size[MAX_SECTION_TYPE]; /* payload offset and size; size ~0 = absent */
} sections;

static uint32_t rd32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t rd64(const uint8_t *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }

/* The header every iden3 binary file shares: magic, u32 version, u32 nSections, then sections of
 * (u32 type, u64 size, payload). Section order is free; each type may appear once; the sections
 * must tile the rest of the file exactly. */
static int scan_sections(sections *s, const uint8_t *buf, size_t len, const char *name, const char *magic,
                         uint32_t version) {
    for (int i = 0; i < MAX_SECTION_TYPE; i++) s->size[i] = ~0ull;
    if (len < 12) return cz_error(CZ_EFORMAT, "%s: file header: %zu bytes, need 12 (truncated)", name, len);
    if (memcmp(buf, magic, 4) != 0)
        return cz_error(CZ_EFORMAT, "%s: offset 0: magic is not \"%s\"", name, magic);
    if (rd32(buf + 4) != version)
        return cz_error(CZ_EFORMAT, "%s: offset 4: version %u, only %u is supported", name, rd32(buf + 4), version);
    uint32_t nsec = rd32(buf + 8);
    size_t pos = 12;
    for (uint32_t i = 0; i < nsec; i++) {
        if (len - pos < 12)
            return cz_error(CZ_EFORMAT, "%s: section %u header at offset %zu: truncated (file has %zu bytes)", name,
                            i, pos, len);
        uint32_t type = rd32(buf + pos);
        uint64_t size = rd64(buf + pos + 4);
        pos += 12;
        if (size > len - pos)
            return cz_error(CZ_EFORMAT, "%s: section type %u at offset %zu: size %llu runs past the end (%zu bytes left)",
                            name, type, pos, (unsigned long long)size, len - pos);
        if (type < MAX_SECTION_TYPE) {
            if (s->size[type] != ~0ull)
                return cz_error(CZ_EFORMAT, "%s: section type %u at offset %zu: appears twice", name, type, pos);
            s->off[type] = pos;
            s->size[type] = size;
        }
        pos += size;
    }
    if (pos != len)
        return cz_error(CZ_EFORMAT, "%s: offset %zu: %zu bytes after the last of %u sections", name, pos, len - pos, nsec);
    return 0;
}

static void modulus_le(uint8_t out[32]) {
    static const uint64_t r[4] = CZ_FR_MODULUS;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 8; j++) out[i * 8 + j] = (uint8_t)(r[i] >> (8 * j));
}

/* Checks the (u32 n8, prime) pair that opens both header sections. */
static int check_field(const uint8_t *p, uint64_t size, uint64_t off, const char *name) {
    uint8_t r[32];
    if (size < 36) return cz_error(CZ_EFORMAT, "%s: header section at offset %llu: %llu bytes, too short", name,
                                   (unsigned long long)off, (unsigned long long)size);
    if (rd32(p) != 32)
        return cz_error(CZ_EFORMAT, "%s: header section at offset %llu: field size n8 = %u; only the BLS12-381 "
                        "scalar field (n8 = 32) is supported", name, (unsigned long long)off, rd32(p));
    modulus_le(r);
    if (memcmp(p + 4, r, 32) != 0)
        return cz_error(CZ_EFORMAT, "%s: header section at offset %llu: the prime is not the BLS12-381 scalar field "
                        "order r (compile with --prime bls12381)", name, (unsigned long long)off + 4);
    return 0;
}

static int read_header(cz_circom_header *h, const uint8_t *buf, const sections *s, const char *name) {
    if (s->size[1] == ~0ull) return cz_error(CZ_EFORMAT, "%s: no header section (type 1)", name);
    const uint8_t *p = buf + s->off[1];
    int rc = check_field(p, s->size[1], s->off[1], name);
    if (rc) return rc;
    if (s->size[1] != 64)
        return cz_error(CZ_EFORMAT, "%s: header section at offset %llu: %llu bytes, expected 64", name,
                        (unsigned long long)s->off[1], (unsigned long long)s->size[1]);
    h->n_wires = rd32(p + 36);
    h->n_pub_out = rd32(p + 40);
    h->n_pub_in = rd32(p + 44);
    h->n_prv_in = rd32(p + 48);
    h->n_labels = rd64(p + 52);
    h->n_constraints = rd32(p + 60);
    uint64_t used = 1ull + h->n_pub_out + h->n_pub_in + h->n_prv_in;
    if (used > h->n_wires)
        return cz_error(CZ_EFORMAT, "%s: header section at offset %llu: 1 + %u outputs + %u public + %u private "
                        "inputs exceed the %u wires", name, (unsigned long long)s->off[1], h->n_pub_out,
                        h->n_pub_in, h->n_prv_in, h->n_wires);
    return 0;
}

/* Reads one linear combination at *pos (inside the constraint section ending at end) into terms. */
static int read_lc(cz_lc_term **terms, size_t *cap, size_t *n_out, const uint8_t *buf, uint64_t *pos, uint64_t end,
                   uint32_t n_wires, const char *name, uint32_t row, char which) {
    if (end - *pos < 4)
        return cz_error(CZ_EFORMAT, "%s: constraint section, constraint %u (%c) at offset %llu: truncated", name, row,
                        which, (unsigned long long)*pos);
    uint32_t n = rd32(buf + *pos);
    *pos += 4;
    if ((uint64_t)n * 36 > end - *pos)
        return cz_error(CZ_EFORMAT, "%s: constraint section, constraint %u (%c) at offset %llu: %u terms run past "
                        "the section end", name, row, which, (unsigned long long)*pos - 4, n);
    if (n > *cap) {
        cz_lc_term *t = realloc(*terms, (size_t)n * sizeof *t);
        if (!t) return cz_error(CZ_ENOMEM, "%s: out of memory for %u terms", name, n);
        *terms = t;
        *cap = n;
    }
    for (uint32_t i = 0; i < n; i++, *pos += 36) {
        uint32_t w = rd32(buf + *pos);
        if (w >= n_wires)
            return cz_error(CZ_EFORMAT, "%s: constraint section, constraint %u (%c) at offset %llu: wire %u, only %u "
                            "wires", name, row, which, (unsigned long long)*pos, w, n_wires);
        if (cz_fr_from_bytes_le(&(*terms)[i].coeff, buf + *pos + 4))
            return cz_error(CZ_EFORMAT, "%s: constraint section, constraint %u (%c) at offset %llu: coefficient >= r",
                            name, row, which, (unsigned long long)*pos + 4);
        (*terms)[i].var.id = w;
    }
    *n_out = cz_lc_terms_normalize(*terms, n);
    return 0;
}

int cz_circom_r1cs_parse(cz_r1cs *out, cz_circom_header *hdr, const uint8_t *buf, size_t len, const char *name) {
    memset(out, 0, sizeof *out);
    sections s;
    cz_circom_header h;
    int rc = scan_sections(&s, buf, len, name, "r1cs", 1);
    if (rc || (rc = read_header(&h, buf, &s, name))) return rc;
    for (int t = 4; t <= 5; t++)
        if (s.size[t] != ~0ull)
            return cz_error(CZ_EUNSUPPORTED, "%s: section type %d at offset %llu: PLONK custom gates are not supported",
                            name, t, (unsigned long long)s.off[t]);
    if (s.size[2] == ~0ull) return cz_error(CZ_EFORMAT, "%s: no constraint section (type 2)", name);
    if (s.size[3] != ~0ull && s.size[3] != 8ull * h.n_wires)
        return cz_error(CZ_EFORMAT, "%s: wire-to-label section at offset %llu: %llu bytes, expected 8 x %u wires", name,
                        (unsigned long long)s.off[3], (unsigned long long)s.size[3], h.n_wires);
    uint64_t pos = s.off[2], end = s.off[2] + s.size[2];
    /* Each constraint takes at least 12 bytes: refuse a count the section cannot hold before reserving rows. */
    if ((uint64_t)h.n_constraints * 12 > s.size[2])
        return cz_error(CZ_EFORMAT, "%s: constraint section at offset %llu: %llu bytes cannot hold %u constraints", name,
                        (unsigned long long)pos, (unsigned long long)s.size[2], h.n_constraints);

    uint64_t ni = 1ull + h.n_pub_out + h.n_pub_in;
    cz_csr_builder b[3];
    memset(b, 0, sizeof b);
    cz_lc_term *terms = NULL;
    size_t cap = 0;
    for (int m = 0; m < 3 && !rc; m++) rc = cz_csr_builder_reserve(&b[m], h.n_constraints + ni, 0);
    for (uint32_t row = 0; row < h.n_constraints && !rc; row++) {
        for (int m = 0; m < 3 && !rc; m++) {
            size_t n = 0;
            rc = read_lc(&terms, &cap, &n, buf, &pos, end, h.n_wires, name, row, "ABC"[m]);
            if (!rc) rc = cz_csr_builder_push(&b[m], terms, n);
        }
    }
    if (!rc && pos != end)
        rc = cz_error(CZ_EFORMAT, "%s: constraint section at offset %llu: %llu bytes left after %u constraints", name,
                      (unsigned long long)pos, (unsigned long long)(end - pos), h.n_constraints);
    /* bellperson's x_i * 0 = 0 row per input, as cz_cs_finalize appends. */
    for (uint64_t i = 0; i < ni && !rc; i++) {
        cz_lc_term t = {CZ_FR_ONE_V, {(uint32_t)i}};
        if (!(rc = cz_csr_builder_push(&b[0], &t, 1)) && !(rc = cz_csr_builder_push(&b[1], NULL, 0)))
            rc = cz_csr_builder_push(&b[2], NULL, 0);
    }
    free(terms);
    if (rc) {
        for (int m = 0; m < 3; m++) cz_csr_builder_free(&b[m]);
        return rc;
    }
    out->num_inputs = ni;
    out->num_aux = h.n_wires - ni;
    out->num_constraints = h.n_constraints;
    out->num_rows = h.n_constraints + ni;
    cz_csr_builder_finish(&b[0], &out->a);
    cz_csr_builder_finish(&b[1], &out->b);
    cz_csr_builder_finish(&b[2], &out->c);
    if (!out->a.row_ptr || !out->b.row_ptr || !out->c.row_ptr) rc = cz_error(CZ_ENOMEM, "%s: out of memory", name);
    if (!rc) rc = cz_r1cs_compute_densities(out);
    if (rc) {
        cz_r1cs_free(out);
        return rc;
    }
    if (hdr) *hdr = h;
    return 0;
}

int cz_circom_wtns_parse(cz_fr **values, uint64_t *n, const uint8_t *buf, size_t len, const char *name) {
    *values = NULL;
    *n = 0;
    sections s;
    int rc = scan_sections(&s, buf, len, name, "wtns", 2);
    if (rc) return rc;
    if (s.size[1] == ~0ull) return cz_error(CZ_EFORMAT, "%s: no header section (type 1)", name);
    if (s.size[2] == ~0ull) return cz_error(CZ_EFORMAT, "%s: no witness section (type 2)", name);
    if ((rc = check_field(buf + s.off[1], s.size[1], s.off[1], name))) return rc;
    if (s.size[1] != 40)
        return cz_error(CZ_EFORMAT, "%s: header section at offset %llu: %llu bytes, expected 40", name,
                        (unsigned long long)s.off[1], (unsigned long long)s.size[1]);
    uint32_t count = rd32(buf + s.off[1] + 36);
    if (s.size[2] != 32ull * count)
        return cz_error(CZ_EFORMAT, "%s: witness section at offset %llu: %llu bytes, expected 32 x %u values", name,
                        (unsigned long long)s.off[2], (unsigned long long)s.size[2], count);
    if (count == 0) return cz_error(CZ_EFORMAT, "%s: the witness is empty (it must start with ONE)", name);
    cz_fr *v = malloc((size_t)count * sizeof *v);
    if (!v) return cz_error(CZ_ENOMEM, "%s: out of memory for %u values", name, count);
    for (uint32_t i = 0; i < count; i++) {
        uint64_t off = s.off[2] + 32ull * i;
        if (cz_fr_from_bytes_le(&v[i], buf + off)) {
            free(v);
            return cz_error(CZ_EFORMAT, "%s: witness section, value %u at offset %llu: >= r", name, i,
                            (unsigned long long)off);
        }
    }
    if (!cz_fr_equal(&v[0], &CZ_FR_ONE_V)) {
        free(v);
        return cz_error(CZ_EFORMAT, "%s: witness section at offset %llu: value 0 is not 1", name,
                        (unsigned long long)s.off[2]);
    }
    *values = v;
    *n = count;
    return 0;
}

/* Maps path read-only for a parser; *len 0 gives a NULL map. */
static int map_file(const uint8_t **buf, size_t *len, const char *path) {
    *buf = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY);
    if (fd < 0) return cz_error(CZ_EIO, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return cz_error(CZ_EIO, "%s: cannot stat: %s", path, strerror(e));
    }
    if (st.st_size > 0) {
        void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED) {
            int e = errno;
            close(fd);
            return cz_error(CZ_EIO, "%s: cannot map: %s", path, strerror(e));
        }
        *buf = m;
        *len = (size_t)st.st_size;
    }
    close(fd);
    return 0;
}

static void unmap_file(const uint8_t *buf, size_t len) {
    if (buf) munmap((void *)buf, len);
}

int cz_circom_r1cs_read(cz_r1cs *out, cz_circom_header *hdr, const char *path) {
    const uint8_t *buf;
    size_t len;
    memset(out, 0, sizeof *out);
    int rc = map_file(&buf, &len, path);
    if (rc) return rc;
    static const uint8_t empty[1];
    rc = cz_circom_r1cs_parse(out, hdr, buf ? buf : empty, len, path);
    unmap_file(buf, len);
    return rc;
}

int cz_circom_wtns_read(cz_fr **values, uint64_t *n, const char *path) {
    const uint8_t *buf;
    size_t len;
    *values = NULL;
    *n = 0;
    int rc = map_file(&buf, &len, path);
    if (rc) return rc;
    static const uint8_t empty[1];
    rc = cz_circom_wtns_parse(values, n, buf ? buf : empty, len, path);
    unmap_file(buf, len);
    return rc;
}
