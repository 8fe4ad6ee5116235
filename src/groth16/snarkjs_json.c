/* snarkjs' JSON files: proof.json, public.json, verification_key.json. Writers produce exactly the bytes
 * of JSON.stringify(obj, null, 1) (what snarkjs writes), so proofs compare with cmp. The reader is a
 * small JSON parser for this subset (objects, arrays, strings, numbers, literals) with errors naming the
 * file and the byte offset. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "groth16/snarkjs.h"
#include "util/file.h"
#include "util/json.h"

/* ---- big integers as little-endian limbs <-> decimal ---- */
static void to_dec(char *out, const uint64_t *limbs, int nl) {
    uint64_t v[6];
    memcpy(v, limbs, (size_t)nl * 8);
    char tmp[160]; /* up to 7 chunks of 19 digits */
    int k = 0;
    for (;;) {
        int zero = 1;
        for (int i = 0; i < nl; i++) zero &= v[i] == 0;
        if (zero) break;
        unsigned __int128 rem = 0; /* divide by 10^19, collecting 19 digits */
        for (int i = nl - 1; i >= 0; i--) {
            unsigned __int128 cur = rem << 64 | v[i];
            v[i] = (uint64_t)(cur / 10000000000000000000ULL);
            rem = cur % 10000000000000000000ULL;
        }
        uint64_t r = (uint64_t)rem;
        for (int j = 0; j < 19; j++, r /= 10) tmp[k++] = (char)('0' + r % 10);
    }
    while (k > 1 && tmp[k - 1] == '0') k--;
    if (k == 0) tmp[k++] = '0';
    for (int i = 0; i < k; i++) out[i] = tmp[k - 1 - i];
    out[k] = 0;
}

/* Decimal string -> limbs; 0 when it is a plain decimal below the modulus m. */
static int from_dec(uint64_t *v, int nl, const char *s, const uint64_t *m) {
    memset(v, 0, (size_t)nl * 8);
    if (!*s || strlen(s) > 120) return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return -1;
        unsigned __int128 carry = (unsigned)(*s - '0');
        for (int i = 0; i < nl; i++) {
            unsigned __int128 cur = (unsigned __int128)v[i] * 10 + carry;
            v[i] = (uint64_t)cur;
            carry = cur >> 64;
        }
        if (carry) return -1;
    }
    for (int i = nl - 1; i >= 0; i--) {
        if (v[i] < m[i]) return 0;
        if (v[i] > m[i]) return -1;
    }
    return -1;
}

static void fp_dec(char *out, const cz_fp *a) {
    uint64_t v[6];
    cz_fp_to_raw(v, a);
    to_dec(out, v, 6);
}

/* ---- writers ---- */
static void put_g1(FILE *f, const char *key, const cz_g1_affine *p, int last) {
    char x[160], y[160];
    int inf = cz_g1_affine_is_infinity(p);
    fp_dec(x, &p->x);
    fp_dec(y, &p->y);
    /* ffjavascript writes the point at infinity as (0, 1, 0). */
    fprintf(f, " \"%s\": [\n  \"%s\",\n  \"%s\",\n  \"%s\"\n ]%s\n", key, x, inf ? "1" : y, inf ? "0" : "1", last ? "" : ",");
}

static void put_g2(FILE *f, const char *key, const cz_g2_affine *p, int last) {
    char a[4][160];
    int inf = cz_g2_affine_is_infinity(p);
    fp_dec(a[0], &p->x.c0);
    fp_dec(a[1], &p->x.c1);
    fp_dec(a[2], &p->y.c0);
    fp_dec(a[3], &p->y.c1);
    if (inf) strcpy(a[2], "1");
    fprintf(f, " \"%s\": [\n  [\n   \"%s\",\n   \"%s\"\n  ],\n  [\n   \"%s\",\n   \"%s\"\n  ],\n  [\n   \"%s\",\n   \"0\"\n  ]\n ]%s\n",
            key, a[0], a[1], a[2], a[3], inf ? "0" : "1", last ? "" : ",");
}

static int close_file(FILE *f, const char *path) {
    int bad = ferror(f);
    if (fclose(f) || bad) return cz_error(CZ_EIO, "%s: write failed", path);
    return 0;
}

int cz_snarkjs_proof_write_json(const char *path, const cz_groth16_proof *p) {
    FILE *f = fopen(path, "w");
    if (!f) return cz_error(CZ_EIO, "%s: cannot create", path);
    fputs("{\n", f);
    put_g1(f, "pi_a", &p->a, 0);
    put_g2(f, "pi_b", &p->b, 0);
    put_g1(f, "pi_c", &p->c, 0);
    fputs(" \"protocol\": \"groth16\",\n \"curve\": \"bls12381\"\n}", f);
    return close_file(f, path);
}

int cz_snarkjs_public_write_json(const char *path, const cz_fr *pub, size_t n) {
    FILE *f = fopen(path, "w");
    if (!f) return cz_error(CZ_EIO, "%s: cannot create", path);
    if (!n) fputs("[]", f);
    for (size_t i = 0; i < n; i++) {
        uint64_t v[4];
        char d[160];
        cz_fr_to_raw(v, &pub[i]);
        to_dec(d, v, 4);
        fprintf(f, "%s \"%s\"%s", i ? ",\n" : "[\n", d, i + 1 == n ? "\n]" : "");
    }
    return close_file(f, path);
}

int cz_snarkjs_vk_write_json(const char *path, const cz_groth16_vk *vk) {
    FILE *f = fopen(path, "w");
    if (!f) return cz_error(CZ_EIO, "%s: cannot create", path);
    fprintf(f, "{\n \"protocol\": \"groth16\",\n \"curve\": \"bls12381\",\n \"nPublic\": %zu,\n", vk->ic_len - 1);
    put_g1(f, "vk_alpha_1", &vk->alpha_g1, 0);
    put_g2(f, "vk_beta_2", &vk->beta_g2, 0);
    put_g2(f, "vk_gamma_2", &vk->gamma_g2, 0);
    put_g2(f, "vk_delta_2", &vk->delta_g2, 0);
    fputs(" \"IC\": [\n", f);
    for (size_t i = 0; i < vk->ic_len; i++) {
        char x[160], y[160];
        fp_dec(x, &vk->ic[i].x);
        fp_dec(y, &vk->ic[i].y);
        int inf = cz_g1_affine_is_infinity(&vk->ic[i]);
        fprintf(f, "  [\n   \"%s\",\n   \"%s\",\n   \"%s\"\n  ]%s\n", x, inf ? "1" : y, inf ? "0" : "1",
                i + 1 == vk->ic_len ? "" : ",");
    }
    fputs(" ]\n}", f);
    return close_file(f, path);
}

/* ---- readers ---- */
typedef struct {
    cz_json j;
    char *text;
    const char *path;
} jdoc;

static int load_json(jdoc *d, const char *path) {
    memset(d, 0, sizeof *d);
    d->path = path;
    size_t n;
    int rc = cz_file_read(path, (size_t)1 << 30, &d->text, &n);
    if (rc) return rc;
    rc = cz_json_parse(&d->j, d->text, n);
    if (rc) {
        free(d->text);
        char msg[256]; /* copied: cz_error writes the buffer the message lives in */
        snprintf(msg, sizeof msg, "%s", cz_error_message());
        return cz_error(rc, "%s: %s", path, msg);
    }
    return 0;
}

static void jdoc_free(jdoc *d) {
    cz_json_free(&d->j);
    free(d->text);
}

static size_t off(const jdoc *d, int64_t t) { return t < 0 ? 0 : d->j.tok[t].start; }

static const uint64_t FP_P[6] = CZ_FP_MODULUS;
static const uint64_t FR_P[4] = CZ_FR_MODULUS;

/* A string token holding a decimal below the modulus m (nl limbs). */
static int tok_dec(uint64_t *v, int nl, const jdoc *d, int64_t t, const uint64_t *m) {
    if (cz_json_type(&d->j, t) != CZ_JSON_STRING || d->j.tok[t].len > 120) return -1;
    char buf[128];
    memcpy(buf, d->text + d->j.tok[t].start, d->j.tok[t].len);
    buf[d->j.tok[t].len] = 0;
    return from_dec(v, nl, buf, m);
}

static int jfp(cz_fp *r, const jdoc *d, int64_t t, const char *what) {
    uint64_t l[6];
    if (tok_dec(l, 6, d, t, FP_P) || cz_fp_from_raw(r, l))
        return cz_error(CZ_ERANGE, "%s: offset %zu: %s: not a decimal string below q", d->path, off(d, t), what);
    return 0;
}

static int is_str(const jdoc *d, int64_t t, const char *s) { return cz_json_type(&d->j, t) == CZ_JSON_STRING && cz_json_streq(&d->j, t, s); }

/* [x, y, z] with z "1" (affine) or ["0","1","0"] (infinity, accepted only when allow_inf). */
static int jg1(cz_g1_affine *p, const jdoc *d, int64_t t, const char *what, int allow_inf) {
    int rc;
    const cz_json *j = &d->j;
    if (cz_json_type(j, t) != CZ_JSON_ARRAY || cz_json_count(j, t) != 3)
        return cz_error(CZ_EFORMAT, "%s: offset %zu: %s is not a G1 point [x, y, z]", d->path, off(d, t), what);
    int64_t x = cz_json_at(j, t, 0), y = cz_json_at(j, t, 1), z = cz_json_at(j, t, 2);
    if (is_str(d, z, "0")) {
        if (!allow_inf || !is_str(d, x, "0") || !is_str(d, y, "1"))
            return cz_error(CZ_ECURVE, "%s: offset %zu: %s is infinity or malformed", d->path, off(d, t), what);
        memset(p, 0, sizeof *p);
        return 0;
    }
    if (!is_str(d, z, "1"))
        return cz_error(CZ_EFORMAT, "%s: offset %zu: %s: z must be \"1\" (affine)", d->path, off(d, z), what);
    if ((rc = jfp(&p->x, d, x, what)) || (rc = jfp(&p->y, d, y, what))) return rc;
    if (!cz_g1_affine_is_on_curve(p) || cz_g1_affine_is_infinity(p))
        return cz_error(CZ_ECURVE, "%s: offset %zu: %s is not on the curve", d->path, off(d, t), what);
    if (!cz_g1_affine_is_in_subgroup(p))
        return cz_error(CZ_ESUBGROUP, "%s: offset %zu: %s is not in the subgroup", d->path, off(d, t), what);
    return 0;
}

static int jg2(cz_g2_affine *p, const jdoc *d, int64_t t, const char *what) {
    int rc;
    const cz_json *j = &d->j;
    if (cz_json_type(j, t) != CZ_JSON_ARRAY || cz_json_count(j, t) != 3)
        return cz_error(CZ_EFORMAT, "%s: offset %zu: %s is not a G2 point [[x0,x1],[y0,y1],[z0,z1]]", d->path,
                        off(d, t), what);
    int64_t c[3];
    for (int i = 0; i < 3; i++) {
        c[i] = cz_json_at(j, t, (uint32_t)i);
        if (cz_json_type(j, c[i]) != CZ_JSON_ARRAY || cz_json_count(j, c[i]) != 2)
            return cz_error(CZ_EFORMAT, "%s: offset %zu: %s: coordinate %d is not a pair", d->path, off(d, c[i]), what, i);
    }
    if (!is_str(d, cz_json_at(j, c[2], 0), "1") || !is_str(d, cz_json_at(j, c[2], 1), "0"))
        return cz_error(CZ_EFORMAT, "%s: offset %zu: %s: z must be [\"1\", \"0\"] (affine, not infinity)", d->path,
                        off(d, c[2]), what);
    if ((rc = jfp(&p->x.c0, d, cz_json_at(j, c[0], 0), what)) || (rc = jfp(&p->x.c1, d, cz_json_at(j, c[0], 1), what)) ||
        (rc = jfp(&p->y.c0, d, cz_json_at(j, c[1], 0), what)) || (rc = jfp(&p->y.c1, d, cz_json_at(j, c[1], 1), what)))
        return rc;
    if (!cz_g2_affine_is_on_curve(p) || cz_g2_affine_is_infinity(p))
        return cz_error(CZ_ECURVE, "%s: offset %zu: %s is not on the curve", d->path, off(d, t), what);
    if (!cz_g2_affine_is_in_subgroup(p))
        return cz_error(CZ_ESUBGROUP, "%s: offset %zu: %s is not in the subgroup", d->path, off(d, t), what);
    return 0;
}

static int check_tags(const jdoc *d) {
    if (cz_json_type(&d->j, 0) != CZ_JSON_OBJECT) return cz_error(CZ_EFORMAT, "%s: offset 0: not a JSON object", d->path);
    int64_t pr = cz_json_get(&d->j, 0, "protocol"), cu = cz_json_get(&d->j, 0, "curve");
    if (pr >= 0 && !is_str(d, pr, "groth16"))
        return cz_error(CZ_EUNSUPPORTED, "%s: offset %zu: protocol is not groth16", d->path, off(d, pr));
    if (cu >= 0 && !is_str(d, cu, "bls12381"))
        return cz_error(CZ_EUNSUPPORTED, "%s: offset %zu: curve is not bls12381", d->path, off(d, cu));
    return 0;
}

int cz_snarkjs_proof_read_json(cz_groth16_proof *p, const char *path) {
    jdoc d;
    int rc = load_json(&d, path);
    if (rc) return rc;
    if (!(rc = check_tags(&d)) && !(rc = jg1(&p->a, &d, cz_json_get(&d.j, 0, "pi_a"), "pi_a", 0)) &&
        !(rc = jg2(&p->b, &d, cz_json_get(&d.j, 0, "pi_b"), "pi_b")))
        rc = jg1(&p->c, &d, cz_json_get(&d.j, 0, "pi_c"), "pi_c", 0);
    jdoc_free(&d);
    return rc;
}

int cz_snarkjs_public_read_json(cz_fr **pub, size_t *n, const char *path) {
    jdoc d;
    *pub = NULL;
    *n = 0;
    int rc = load_json(&d, path);
    if (rc) return rc;
    const uint32_t cnt = cz_json_count(&d.j, 0);
    if (cz_json_type(&d.j, 0) != CZ_JSON_ARRAY) {
        rc = cz_error(CZ_EFORMAT, "%s: offset 0: public signals must be an array", path);
        goto out;
    }
    *pub = malloc((cnt ? cnt : 1) * sizeof **pub);
    if (!*pub) {
        rc = cz_error(CZ_ENOMEM, "%s: out of memory", path);
        goto out;
    }
    for (uint32_t i = 0; i < cnt; i++) {
        uint64_t l[4];
        int64_t t = cz_json_at(&d.j, 0, i);
        /* Like snarkjs' verifier: a signal >= r is rejected, not reduced. */
        if (tok_dec(l, 4, &d, t, FR_P) || cz_fr_from_raw(&(*pub)[i], l)) {
            rc = cz_error(CZ_ERANGE, "%s: offset %zu: public signal %u is not a decimal string below r", path, off(&d, t), i);
            free(*pub);
            *pub = NULL;
            goto out;
        }
    }
    *n = cnt;
out:
    jdoc_free(&d);
    return rc;
}

int cz_snarkjs_vk_read_json(cz_groth16_vk *vk, const char *path) {
    jdoc d;
    memset(vk, 0, sizeof *vk);
    int rc = load_json(&d, path);
    if (rc) return rc;
    const cz_json *j = &d.j;
    int64_t ic = -1, np;
    if ((rc = check_tags(&d)) || (rc = jg1(&vk->alpha_g1, &d, cz_json_get(j, 0, "vk_alpha_1"), "vk_alpha_1", 0)) ||
        (rc = jg2(&vk->beta_g2, &d, cz_json_get(j, 0, "vk_beta_2"), "vk_beta_2")) ||
        (rc = jg2(&vk->gamma_g2, &d, cz_json_get(j, 0, "vk_gamma_2"), "vk_gamma_2")) ||
        (rc = jg2(&vk->delta_g2, &d, cz_json_get(j, 0, "vk_delta_2"), "vk_delta_2")))
        goto out;
    ic = cz_json_get(j, 0, "IC");
    if (cz_json_type(j, ic) != CZ_JSON_ARRAY || cz_json_count(j, ic) == 0) {
        rc = cz_error(CZ_EFORMAT, "%s: IC is missing or empty", path);
        goto out;
    }
    const uint32_t nic = cz_json_count(j, ic);
    uint64_t npv;
    if ((np = cz_json_get(j, 0, "nPublic")) >= 0 && (cz_json_u64(j, np, &npv) || npv + 1 != nic)) {
        rc = cz_error(CZ_EFORMAT, "%s: offset %zu: nPublic does not match the %u IC points", path, off(&d, np), nic);
        goto out;
    }
    vk->ic_len = nic;
    vk->ic = malloc(nic * sizeof *vk->ic);
    if (!vk->ic) {
        rc = cz_error(CZ_ENOMEM, "%s: out of memory", path);
        goto out;
    }
    for (uint32_t i = 0; i < nic && !rc; i++) {
        char what[32];
        snprintf(what, sizeof what, "IC[%u]", i);
        rc = jg1(&vk->ic[i], &d, cz_json_at(j, ic, i), what, 1);
    }
out:
    jdoc_free(&d);
    if (rc) cz_groth16_vk_free(vk);
    return rc;
}
