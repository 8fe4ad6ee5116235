/* .zkey (groth16, bls12381) reader and writer. Points are affine "LEM": each Fp coordinate as 48 bytes
 * little-endian of x*2^384 mod q, i.e. exactly the limbs of our Montgomery cz_fp, so decoding is a range
 * check plus a copy; infinity is all zero bytes, which is also our affine infinity (0,0). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cz_error.h"
#include "ec/msm.h" /* cz_msm_big_alloc: the point arrays are tens of MB */
#include "groth16/snarkjs.h"
#include "util/file.h"

static const uint64_t FP_P[6] = CZ_FP_MODULUS;
static const uint64_t FR_P[4] = CZ_FR_MODULUS;

static uint32_t rd32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t rd64(const uint8_t *p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }

/* Little-endian limbs, value < modulus. */
static int limbs_lt(const uint8_t *b, const uint64_t *m, int nl, uint64_t *out) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(out, b, 8 * (size_t)nl); /* the file's byte order is the host's */
#else
    for (int i = 0; i < nl; i++) out[i] = rd64(b + 8 * i);
#endif
    for (int i = nl - 1; i >= 0; i--) {
        if (out[i] < m[i]) return 1;
        if (out[i] > m[i]) return 0;
    }
    return 0;
}

typedef struct {
    const uint8_t *buf;
    size_t len;
    const char *name;
    unsigned flags;
    size_t off[11], size[11]; /* sections 1..10 */
} zk_ctx;

static int rd_fp(cz_fp *r, const zk_ctx *c, size_t at, int sec) {
    if (!limbs_lt(c->buf + at, FP_P, 6, r->l))
        return cz_error(CZ_ERANGE, "%s: section %d: Fp coordinate at offset %zu is not below q", c->name, sec, at);
    return 0;
}

static int rd_g1(cz_g1_affine *p, const zk_ctx *c, size_t at, int sec, int allow_inf) {
    int rc;
    if ((rc = rd_fp(&p->x, c, at, sec)) || (rc = rd_fp(&p->y, c, at + 48, sec))) return rc;
    if (cz_g1_affine_is_infinity(p)) {
        if (!allow_inf) return cz_error(CZ_ECURVE, "%s: section %d: G1 point at offset %zu is infinity", c->name, sec, at);
        return 0;
    }
    if (!cz_g1_affine_is_on_curve(p))
        return cz_error(CZ_ECURVE, "%s: section %d: G1 point at offset %zu is not on the curve", c->name, sec, at);
    if ((c->flags & CZ_ZKEY_CHECK_SUBGROUP) && !cz_g1_affine_is_in_subgroup(p))
        return cz_error(CZ_ESUBGROUP, "%s: section %d: G1 point at offset %zu is not in the subgroup", c->name, sec, at);
    return 0;
}

static int rd_g2(cz_g2_affine *p, const zk_ctx *c, size_t at, int sec, int allow_inf) {
    int rc;
    if ((rc = rd_fp(&p->x.c0, c, at, sec)) || (rc = rd_fp(&p->x.c1, c, at + 48, sec)) ||
        (rc = rd_fp(&p->y.c0, c, at + 96, sec)) || (rc = rd_fp(&p->y.c1, c, at + 144, sec)))
        return rc;
    if (cz_g2_affine_is_infinity(p)) {
        if (!allow_inf) return cz_error(CZ_ECURVE, "%s: section %d: G2 point at offset %zu is infinity", c->name, sec, at);
        return 0;
    }
    if (!cz_g2_affine_is_on_curve(p))
        return cz_error(CZ_ECURVE, "%s: section %d: G2 point at offset %zu is not on the curve", c->name, sec, at);
    if ((c->flags & CZ_ZKEY_CHECK_SUBGROUP) && !cz_g2_affine_is_in_subgroup(p))
        return cz_error(CZ_ESUBGROUP, "%s: section %d: G2 point at offset %zu is not in the subgroup", c->name, sec, at);
    return 0;
}

/* Decodes count points of a section that must hold exactly that many. */
static int rd_g1_section(cz_g1_affine **out, const zk_ctx *c, int sec, size_t count) {
    if (c->size[sec] != count * 96)
        return cz_error(CZ_EFORMAT, "%s: section %d at offset %zu has %zu bytes, want %zu (%zu G1 points)", c->name,
                        sec, c->off[sec], c->size[sec], count * 96, count);
    *out = cz_msm_big_alloc(count * sizeof **out);
    if (!*out) return cz_error(CZ_ENOMEM, "%s: section %d: out of memory", c->name, sec);
    int rc = 0;
#pragma omp parallel for schedule(static) if (count > 1024)
    for (size_t i = 0; i < count; i++) {
        int e = rd_g1(&(*out)[i], c, c->off[sec] + 96 * i, sec, 1);
        if (e) {
#pragma omp critical
            if (!rc) rc = e; /* cz_error's message is per thread: record it again on this one below */
        }
    }
    if (rc) /* serial rescan gives the first bad point's message on the calling thread */
        for (size_t i = 0; i < count; i++)
            if ((rc = rd_g1(&(*out)[i], c, c->off[sec] + 96 * i, sec, 1))) break;
    return rc;
}

static int rd_g2_section(cz_g2_affine **out, const zk_ctx *c, int sec, size_t count) {
    if (c->size[sec] != count * 192)
        return cz_error(CZ_EFORMAT, "%s: section %d at offset %zu has %zu bytes, want %zu (%zu G2 points)", c->name,
                        sec, c->off[sec], c->size[sec], count * 192, count);
    *out = cz_msm_big_alloc(count * sizeof **out);
    if (!*out) return cz_error(CZ_ENOMEM, "%s: section %d: out of memory", c->name, sec);
    int rc = 0;
#pragma omp parallel for schedule(static) if (count > 256)
    for (size_t i = 0; i < count; i++) {
        int e = rd_g2(&(*out)[i], c, c->off[sec] + 192 * i, sec, 1);
        if (e) {
#pragma omp critical
            if (!rc) rc = e;
        }
    }
    if (rc)
        for (size_t i = 0; i < count; i++)
            if ((rc = rd_g2(&(*out)[i], c, c->off[sec] + 192 * i, sec, 1))) break;
    return rc;
}

void cz_snarkjs_zkey_free(cz_snarkjs_zkey *z) {
    free(z->ic);
    free(z->coef);
    free(z->a);
    free(z->b1);
    free(z->b2);
    free(z->c);
    free(z->h);
    memset(z, 0, sizeof *z);
}

static int parse_header(cz_snarkjs_zkey *z, const zk_ctx *c) {
    int rc;
    if (c->size[1] != 4) return cz_error(CZ_EFORMAT, "%s: section 1 at offset %zu: size %zu, want 4", c->name, c->off[1], c->size[1]);
    if (rd32(c->buf + c->off[1]) != 1)
        return cz_error(CZ_EUNSUPPORTED, "%s: section 1: protocol %u is not groth16 (1)", c->name, rd32(c->buf + c->off[1]));
    const size_t h = c->off[2];
    if (c->size[2] != 4 + 48 + 4 + 32 + 12 + 3 * 96 + 3 * 192)
        return cz_error(CZ_EFORMAT, "%s: section 2 at offset %zu: size %zu, want 964", c->name, h, c->size[2]);
    uint64_t t[6];
    /* q and r must be exactly BLS12-381's (limbs_lt only fills t here). */
    if (rd32(c->buf + h) != 48 || (limbs_lt(c->buf + h + 4, FP_P, 6, t), memcmp(t, FP_P, 48)))
        return cz_error(CZ_EUNSUPPORTED, "%s: section 2 at offset %zu: base field is not BLS12-381's q", c->name, h);
    if (rd32(c->buf + h + 52) != 32 || (limbs_lt(c->buf + h + 56, FR_P, 4, t), memcmp(t, FR_P, 32)))
        return cz_error(CZ_EUNSUPPORTED, "%s: section 2 at offset %zu: scalar field is not BLS12-381's r", c->name, h + 52);
    z->n_vars = rd32(c->buf + h + 88);
    z->n_public = rd32(c->buf + h + 92);
    z->domain_size = rd32(c->buf + h + 96);
    if (z->n_vars < z->n_public + 1)
        return cz_error(CZ_EFORMAT, "%s: section 2: nVars %u < nPublic %u + 1", c->name, z->n_vars, z->n_public);
    if (z->domain_size < 2 || (z->domain_size & (z->domain_size - 1)) || z->domain_size > (1u << CZ_NTT_MAX_LOG))
        return cz_error(CZ_EFORMAT, "%s: section 2 at offset %zu: domain size %u is not a power of two in 2..2^%d",
                        c->name, h + 96, z->domain_size, CZ_NTT_MAX_LOG);
    z->power = 0;
    while ((1u << z->power) < z->domain_size) z->power++;
    size_t p = h + 100;
    if ((rc = rd_g1(&z->alpha1, c, p, 2, 0)) || (rc = rd_g1(&z->beta1, c, p + 96, 2, 0)) ||
        (rc = rd_g2(&z->beta2, c, p + 192, 2, 0)) || (rc = rd_g2(&z->gamma2, c, p + 384, 2, 0)) ||
        (rc = rd_g1(&z->delta1, c, p + 576, 2, 0)) || (rc = rd_g2(&z->delta2, c, p + 672, 2, 0)))
        return rc;
    /* The header points are few: always subgroup-check them (a verifier trusts them). */
    const cz_g1_affine *g1s[3] = {&z->alpha1, &z->beta1, &z->delta1};
    const cz_g2_affine *g2s[3] = {&z->beta2, &z->gamma2, &z->delta2};
    for (int i = 0; i < 3; i++)
        if (!cz_g1_affine_is_in_subgroup(g1s[i]) || !cz_g2_affine_is_in_subgroup(g2s[i]))
            return cz_error(CZ_ESUBGROUP, "%s: section 2: a header point is not in the subgroup", c->name);
    return 0;
}

static int parse_coefs(cz_snarkjs_zkey *z, const zk_ctx *c) {
    const size_t o = c->off[4];
    if (c->size[4] < 4) return cz_error(CZ_EFORMAT, "%s: section 4 at offset %zu: too short", c->name, o);
    uint32_t n = rd32(c->buf + o);
    if (c->size[4] != 4 + (size_t)n * 44)
        return cz_error(CZ_EFORMAT, "%s: section 4 at offset %zu: %zu bytes for %u coefficients (want %zu)", c->name, o,
                        c->size[4], n, 4 + (size_t)n * 44);
    z->n_coef = n;
    z->coef = malloc((n ? n : 1) * sizeof *z->coef);
    if (!z->coef) return cz_error(CZ_ENOMEM, "%s: section 4: out of memory", c->name);
    /* The file holds coef*R^2 (snarkjs Montgomery-multiplies it with a standard-form witness); one
     * Montgomery multiplication by raw 1 turns it into coef*R, our Montgomery form of coef. */
    const cz_fr raw_one = {{1, 0, 0, 0}};
    for (uint32_t i = 0; i < n; i++) {
        const size_t at = o + 4 + (size_t)i * 44;
        cz_snarkjs_coef *k = &z->coef[i];
        k->matrix = rd32(c->buf + at);
        k->row = rd32(c->buf + at + 4);
        k->signal = rd32(c->buf + at + 8);
        if (k->matrix > 1)
            return cz_error(CZ_EFORMAT, "%s: section 4: coefficient %u at offset %zu: matrix %u is not A (0) or B (1)",
                            c->name, i, at, k->matrix);
        if (k->row >= z->domain_size || k->signal >= z->n_vars)
            return cz_error(CZ_EFORMAT, "%s: section 4: coefficient %u at offset %zu: row %u / signal %u out of range "
                            "(domain %u, nVars %u)", c->name, i, at, k->row, k->signal, z->domain_size, z->n_vars);
        cz_fr v;
        if (!limbs_lt(c->buf + at + 12, FR_P, 4, v.l))
            return cz_error(CZ_ERANGE, "%s: section 4: coefficient %u at offset %zu is not below r", c->name, i, at + 12);
        cz_fr_mul(&k->value, &v, &raw_one);
    }
    return 0;
}

int cz_snarkjs_zkey_parse(cz_snarkjs_zkey *z, const uint8_t *buf, size_t len, const char *name, unsigned flags) {
    memset(z, 0, sizeof *z);
    zk_ctx c = {.buf = buf, .len = len, .name = name, .flags = flags};
    if (len < 12 || memcmp(buf, "zkey", 4))
        return cz_error(CZ_EFORMAT, "%s: offset 0: not a zkey file (magic)", name);
    if (rd32(buf + 4) != 1) return cz_error(CZ_EUNSUPPORTED, "%s: offset 4: zkey version %u, want 1", name, rd32(buf + 4));
    uint32_t ns = rd32(buf + 8);
    size_t p = 12;
    for (uint32_t i = 0; i < ns; i++) {
        if (len - p < 12) return cz_error(CZ_EFORMAT, "%s: offset %zu: section entry %u: header truncated", name, p, i);
        uint32_t t = rd32(buf + p);
        uint64_t sz = rd64(buf + p + 4);
        if (sz > len - p - 12)
            return cz_error(CZ_EFORMAT, "%s: offset %zu: section entry %u (type %u) of %llu bytes runs past the end (%zu)", name,
                            p, i, t, (unsigned long long)sz, len);
        if (t >= 1 && t <= 10) {
            if (c.off[t]) return cz_error(CZ_EFORMAT, "%s: offset %zu: section type %u appears twice", name, p, t);
            c.off[t] = p + 12;
            c.size[t] = (size_t)sz;
        }
        p += 12 + (size_t)sz;
    }
    for (int t = 1; t <= 9; t++)
        if (!c.off[t]) return cz_error(CZ_EFORMAT, "%s: section %d is missing", name, t);
    int rc;
    if ((rc = parse_header(z, &c)) || (rc = parse_coefs(z, &c)) ||
        (rc = rd_g1_section(&z->ic, &c, 3, (size_t)z->n_public + 1)) || (rc = rd_g1_section(&z->a, &c, 5, z->n_vars)) ||
        (rc = rd_g1_section(&z->b1, &c, 6, z->n_vars)) || (rc = rd_g2_section(&z->b2, &c, 7, z->n_vars)) ||
        (rc = rd_g1_section(&z->c, &c, 8, (size_t)z->n_vars - z->n_public - 1)) ||
        (rc = rd_g1_section(&z->h, &c, 9, z->domain_size))) {
        cz_snarkjs_zkey_free(z);
        return rc;
    }
    return 0;
}

int cz_snarkjs_zkey_read(cz_snarkjs_zkey *z, const char *path, unsigned flags) {
    memset(z, 0, sizeof *z);
    /* Map the file rather than read it: no copy of the whole file into a fresh buffer (and no page
     * faults on that buffer); the parser reads each byte once. A file that cannot be mapped is read. */
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
        size_t len = (size_t)st.st_size;
        void *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
        close(fd);
        if (m != MAP_FAILED) {
            int rc = cz_snarkjs_zkey_parse(z, m, len, path, flags);
            munmap(m, len);
            return rc;
        }
    } else if (fd >= 0) {
        close(fd);
    }
    char *b;
    size_t n;
    int rc = cz_file_read(path, SIZE_MAX, &b, &n);
    if (rc) return rc;
    rc = cz_snarkjs_zkey_parse(z, (const uint8_t *)b, n, path, flags);
    free(b);
    return rc;
}

/* ---- writer ---- */
static void w32(FILE *f, uint32_t v) {
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    fwrite(b, 1, 4, f);
}
static void w64(FILE *f, uint64_t v) {
    w32(f, (uint32_t)v);
    w32(f, (uint32_t)(v >> 32));
}
static void wlimbs(FILE *f, const uint64_t *l, int n) {
    for (int i = 0; i < n; i++) w64(f, l[i]);
}
static void wg1(FILE *f, const cz_g1_affine *p) {
    wlimbs(f, p->x.l, 6);
    wlimbs(f, p->y.l, 6);
}
static void wg2(FILE *f, const cz_g2_affine *p) {
    wlimbs(f, p->x.c0.l, 6);
    wlimbs(f, p->x.c1.l, 6);
    wlimbs(f, p->y.c0.l, 6);
    wlimbs(f, p->y.c1.l, 6);
}
static void wsec(FILE *f, uint32_t type, uint64_t size) {
    w32(f, type);
    w64(f, size);
}

int cz_snarkjs_zkey_write(const char *path, const cz_snarkjs_zkey *z) {
    FILE *f = fopen(path, "wb");
    if (!f) return cz_error(CZ_EIO, "%s: cannot create", path);
    const size_t nv = z->n_vars, np = z->n_public;
    fwrite("zkey", 1, 4, f);
    w32(f, 1);
    w32(f, 10);
    wsec(f, 1, 4);
    w32(f, 1);
    wsec(f, 2, 964);
    w32(f, 48);
    wlimbs(f, (const uint64_t[6])CZ_FP_MODULUS, 6);
    w32(f, 32);
    wlimbs(f, FR_P, 4);
    w32(f, z->n_vars);
    w32(f, z->n_public);
    w32(f, z->domain_size);
    wg1(f, &z->alpha1);
    wg1(f, &z->beta1);
    wg2(f, &z->beta2);
    wg2(f, &z->gamma2);
    wg1(f, &z->delta1);
    wg2(f, &z->delta2);
    wsec(f, 3, (np + 1) * 96);
    for (size_t i = 0; i <= np; i++) wg1(f, &z->ic[i]);
    wsec(f, 4, 4 + z->n_coef * 44);
    w32(f, (uint32_t)z->n_coef);
    /* Back to the file's coef*R^2: Montgomery-multiplying our coef*R by the raw limbs R^2 mod r gives
     * coef*R*R^2/R. */
    const cz_fr r2 = {CZ_FR_R2};
    for (size_t i = 0; i < z->n_coef; i++) {
        const cz_snarkjs_coef *k = &z->coef[i];
        cz_fr v;
        cz_fr_mul(&v, &k->value, &r2);
        w32(f, k->matrix);
        w32(f, k->row);
        w32(f, k->signal);
        wlimbs(f, v.l, 4);
    }
    wsec(f, 5, nv * 96);
    for (size_t i = 0; i < nv; i++) wg1(f, &z->a[i]);
    wsec(f, 6, nv * 96);
    for (size_t i = 0; i < nv; i++) wg1(f, &z->b1[i]);
    wsec(f, 7, nv * 192);
    for (size_t i = 0; i < nv; i++) wg2(f, &z->b2[i]);
    wsec(f, 8, (nv - np - 1) * 96);
    for (size_t i = 0; i + np + 1 < nv; i++) wg1(f, &z->c[i]);
    wsec(f, 9, (size_t)z->domain_size * 96);
    for (size_t i = 0; i < z->domain_size; i++) wg1(f, &z->h[i]);
    wsec(f, 10, 68);
    static const uint8_t zero[64];
    fwrite(zero, 1, 64, f);
    w32(f, 0);
    int bad = ferror(f);
    if (fclose(f) || bad) return cz_error(CZ_EIO, "%s: write failed", path);
    return 0;
}

int cz_snarkjs_zkey_vk(cz_groth16_vk *vk, const cz_snarkjs_zkey *z) {
    memset(vk, 0, sizeof *vk);
    vk->alpha_g1 = z->alpha1;
    vk->beta_g1 = z->beta1;
    vk->beta_g2 = z->beta2;
    vk->gamma_g2 = z->gamma2;
    vk->delta_g1 = z->delta1;
    vk->delta_g2 = z->delta2;
    vk->ic_len = (size_t)z->n_public + 1;
    vk->ic = malloc(vk->ic_len * sizeof *vk->ic);
    if (!vk->ic) return cz_error(CZ_ENOMEM, "zkey vk: out of memory");
    memcpy(vk->ic, z->ic, vk->ic_len * sizeof *vk->ic);
    return 0;
}
