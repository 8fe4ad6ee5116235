/* snarkjs' JSON files: proof.json, public.json, verification_key.json. Writers produce exactly the bytes
 * of JSON.stringify(obj, null, 1) (what snarkjs writes), so proofs compare with cmp. The reader is a
 * small JSON parser for this subset (objects, arrays, strings, numbers, literals) with errors naming the
 * file and the byte offset. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "groth16/snarkjs.h"

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

/* ---- a small JSON reader ---- */
enum { J_STR, J_NUM, J_ARR, J_OBJ, J_LIT };
typedef struct jv {
    int type;
    size_t off;       /* byte offset in the file, for messages */
    char *s;          /* J_STR / J_NUM / J_LIT text */
    size_t n;         /* children */
    struct jv *kids;  /* J_ARR / J_OBJ */
    char **keys;      /* J_OBJ */
} jv;

typedef struct {
    const char *t;
    size_t len, p;
    const char *name;
    int depth;
} jp;

static void jv_free(jv *v) {
    free(v->s);
    for (size_t i = 0; i < v->n; i++) {
        jv_free(&v->kids[i]);
        if (v->keys) free(v->keys[i]);
    }
    free(v->kids);
    free(v->keys);
}

static void skip_ws(jp *j) {
    while (j->p < j->len && strchr(" \t\r\n", j->t[j->p])) j->p++;
}

static int jerr(jp *j, const char *what) {
    return cz_error(CZ_EFORMAT, "%s: offset %zu: invalid JSON (%s)", j->name, j->p, what);
}

static int parse_value(jp *j, jv *v);

static int parse_string(jp *j, char **out) {
    size_t st = ++j->p; /* after the quote; escapes are not needed by these files */
    while (j->p < j->len && j->t[j->p] != '"') {
        if (j->t[j->p] == '\\') return jerr(j, "escape sequences are not supported");
        j->p++;
    }
    if (j->p >= j->len) return jerr(j, "unterminated string");
    *out = strndup(j->t + st, j->p - st);
    j->p++;
    return *out ? 0 : cz_error(CZ_ENOMEM, "%s: out of memory", j->name);
}

static int push(jv *v, size_t *cap) {
    if (v->n < *cap) return 0;
    *cap = *cap ? 2 * *cap : 4;
    jv *k = realloc(v->kids, *cap * sizeof *k);
    if (!k) return -1;
    v->kids = k;
    if (v->type == J_OBJ) {
        char **ks = realloc(v->keys, *cap * sizeof *ks);
        if (!ks) return -1;
        v->keys = ks;
    }
    return 0;
}

static int parse_container(jp *j, jv *v, char close) {
    size_t cap = 0;
    int rc;
    if (++j->depth > 32) return jerr(j, "nested too deeply");
    j->p++;
    skip_ws(j);
    if (j->p < j->len && j->t[j->p] == close) {
        j->p++;
        j->depth--;
        return 0;
    }
    for (;;) {
        skip_ws(j);
        if (push(v, &cap)) return cz_error(CZ_ENOMEM, "%s: out of memory", j->name);
        memset(&v->kids[v->n], 0, sizeof v->kids[v->n]);
        if (close == '}') {
            v->keys[v->n] = NULL;
            if (j->p >= j->len || j->t[j->p] != '"') return jerr(j, "expected a key");
            if ((rc = parse_string(j, &v->keys[v->n]))) return rc;
            skip_ws(j);
            if (j->p >= j->len || j->t[j->p] != ':') {
                v->n++;
                return jerr(j, "expected ':'");
            }
            j->p++;
        }
        rc = parse_value(j, &v->kids[v->n]);
        v->n++;
        if (rc) return rc;
        skip_ws(j);
        if (j->p < j->len && j->t[j->p] == ',') {
            j->p++;
            continue;
        }
        if (j->p < j->len && j->t[j->p] == close) {
            j->p++;
            j->depth--;
            return 0;
        }
        return jerr(j, "expected ',' or a closing bracket");
    }
}

static int parse_value(jp *j, jv *v) {
    skip_ws(j);
    memset(v, 0, sizeof *v);
    v->off = j->p;
    if (j->p >= j->len) return jerr(j, "unexpected end");
    char ch = j->t[j->p];
    if (ch == '"') {
        v->type = J_STR;
        return parse_string(j, &v->s);
    }
    if (ch == '[' || ch == '{') {
        v->type = ch == '[' ? J_ARR : J_OBJ;
        return parse_container(j, v, ch == '[' ? ']' : '}');
    }
    size_t st = j->p;
    while (j->p < j->len && (strchr("+-.eE", j->t[j->p]) || (j->t[j->p] >= '0' && j->t[j->p] <= '9') ||
                             (j->t[j->p] >= 'a' && j->t[j->p] <= 'z')))
        j->p++;
    if (j->p == st) return jerr(j, "unexpected character");
    v->type = (ch >= 'a' && ch <= 'z') ? J_LIT : J_NUM;
    v->s = strndup(j->t + st, j->p - st);
    return v->s ? 0 : cz_error(CZ_ENOMEM, "%s: out of memory", j->name);
}

static int load_json(jv *root, const char *path) {
    memset(root, 0, sizeof *root);
    FILE *f = fopen(path, "rb");
    if (!f) return cz_error(CZ_EIO, "%s: cannot open", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *t = n >= 0 && n < (1L << 30) ? malloc((size_t)n + 1) : NULL;
    if (!t || fread(t, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        free(t);
        return cz_error(CZ_EIO, "%s: cannot read", path);
    }
    fclose(f);
    jp j = {.t = t, .len = (size_t)n, .name = path};
    int rc = parse_value(&j, root);
    if (!rc) {
        skip_ws(&j);
        if (j.p != j.len) rc = jerr(&j, "trailing data");
    }
    free(t);
    if (rc) jv_free(root);
    return rc;
}

static const jv *get(const jv *o, const char *key) {
    if (o->type != J_OBJ) return NULL;
    for (size_t i = 0; i < o->n; i++)
        if (!strcmp(o->keys[i], key)) return &o->kids[i];
    return NULL;
}

static const uint64_t FP_P[6] = CZ_FP_MODULUS;
static const uint64_t FR_P[4] = CZ_FR_MODULUS;

static int jfp(cz_fp *r, const jv *v, const char *path, const char *what) {
    uint64_t l[6];
    if (!v || v->type != J_STR || from_dec(l, 6, v->s, FP_P) || cz_fp_from_raw(r, l))
        return cz_error(CZ_ERANGE, "%s: offset %zu: %s: not a decimal string below q", path, v ? v->off : 0, what);
    return 0;
}

static int is_str(const jv *v, const char *s) { return v && v->type == J_STR && !strcmp(v->s, s); }

/* [x, y, z] with z "1" (affine) or ["0","1","0"] (infinity, accepted only when allow_inf). */
static int jg1(cz_g1_affine *p, const jv *v, const char *path, const char *what, int allow_inf) {
    int rc;
    if (!v || v->type != J_ARR || v->n != 3)
        return cz_error(CZ_EFORMAT, "%s: offset %zu: %s is not a G1 point [x, y, z]", path, v ? v->off : 0, what);
    if (is_str(&v->kids[2], "0")) {
        if (!allow_inf || !is_str(&v->kids[0], "0") || !is_str(&v->kids[1], "1"))
            return cz_error(CZ_ECURVE, "%s: offset %zu: %s is infinity or malformed", path, v->off, what);
        memset(p, 0, sizeof *p);
        return 0;
    }
    if (!is_str(&v->kids[2], "1"))
        return cz_error(CZ_EFORMAT, "%s: offset %zu: %s: z must be \"1\" (affine)", path, v->kids[2].off, what);
    if ((rc = jfp(&p->x, &v->kids[0], path, what)) || (rc = jfp(&p->y, &v->kids[1], path, what))) return rc;
    if (!cz_g1_affine_is_on_curve(p) || cz_g1_affine_is_infinity(p))
        return cz_error(CZ_ECURVE, "%s: offset %zu: %s is not on the curve", path, v->off, what);
    if (!cz_g1_affine_is_in_subgroup(p))
        return cz_error(CZ_ESUBGROUP, "%s: offset %zu: %s is not in the subgroup", path, v->off, what);
    return 0;
}

static int jg2(cz_g2_affine *p, const jv *v, const char *path, const char *what) {
    int rc;
    if (!v || v->type != J_ARR || v->n != 3)
        return cz_error(CZ_EFORMAT, "%s: offset %zu: %s is not a G2 point [[x0,x1],[y0,y1],[z0,z1]]", path,
                        v ? v->off : 0, what);
    for (int i = 0; i < 3; i++)
        if (v->kids[i].type != J_ARR || v->kids[i].n != 2)
            return cz_error(CZ_EFORMAT, "%s: offset %zu: %s: coordinate %d is not a pair", path, v->kids[i].off, what, i);
    if (!is_str(&v->kids[2].kids[0], "1") || !is_str(&v->kids[2].kids[1], "0"))
        return cz_error(CZ_EFORMAT, "%s: offset %zu: %s: z must be [\"1\", \"0\"] (affine, not infinity)", path,
                        v->kids[2].off, what);
    if ((rc = jfp(&p->x.c0, &v->kids[0].kids[0], path, what)) || (rc = jfp(&p->x.c1, &v->kids[0].kids[1], path, what)) ||
        (rc = jfp(&p->y.c0, &v->kids[1].kids[0], path, what)) || (rc = jfp(&p->y.c1, &v->kids[1].kids[1], path, what)))
        return rc;
    if (!cz_g2_affine_is_on_curve(p) || cz_g2_affine_is_infinity(p))
        return cz_error(CZ_ECURVE, "%s: offset %zu: %s is not on the curve", path, v->off, what);
    if (!cz_g2_affine_is_in_subgroup(p))
        return cz_error(CZ_ESUBGROUP, "%s: offset %zu: %s is not in the subgroup", path, v->off, what);
    return 0;
}

static int check_tags(const jv *root, const char *path) {
    const jv *pr = get(root, "protocol"), *cu = get(root, "curve");
    if (pr && !is_str(pr, "groth16"))
        return cz_error(CZ_EUNSUPPORTED, "%s: offset %zu: protocol is not groth16", path, pr->off);
    if (cu && !is_str(cu, "bls12381"))
        return cz_error(CZ_EUNSUPPORTED, "%s: offset %zu: curve is not bls12381", path, cu->off);
    return 0;
}

int cz_snarkjs_proof_read_json(cz_groth16_proof *p, const char *path) {
    jv root;
    int rc = load_json(&root, path);
    if (rc) return rc;
    if (!(rc = check_tags(&root, path)) && !(rc = jg1(&p->a, get(&root, "pi_a"), path, "pi_a", 0)) &&
        !(rc = jg2(&p->b, get(&root, "pi_b"), path, "pi_b")))
        rc = jg1(&p->c, get(&root, "pi_c"), path, "pi_c", 0);
    jv_free(&root);
    return rc;
}

int cz_snarkjs_public_read_json(cz_fr **pub, size_t *n, const char *path) {
    jv root;
    *pub = NULL;
    *n = 0;
    int rc = load_json(&root, path);
    if (rc) return rc;
    if (root.type != J_ARR) {
        rc = cz_error(CZ_EFORMAT, "%s: offset 0: public signals must be an array", path);
        goto out;
    }
    *pub = malloc((root.n ? root.n : 1) * sizeof **pub);
    if (!*pub) {
        rc = cz_error(CZ_ENOMEM, "%s: out of memory", path);
        goto out;
    }
    for (size_t i = 0; i < root.n; i++) {
        uint64_t l[4];
        /* Like snarkjs' verifier: a signal >= r is rejected, not reduced. */
        if (root.kids[i].type != J_STR || from_dec(l, 4, root.kids[i].s, FR_P) || cz_fr_from_raw(&(*pub)[i], l)) {
            rc = cz_error(CZ_ERANGE, "%s: offset %zu: public signal %zu is not a decimal string below r", path,
                          root.kids[i].off, i);
            free(*pub);
            *pub = NULL;
            goto out;
        }
    }
    *n = root.n;
out:
    jv_free(&root);
    return rc;
}

int cz_snarkjs_vk_read_json(cz_groth16_vk *vk, const char *path) {
    jv root;
    memset(vk, 0, sizeof *vk);
    int rc = load_json(&root, path);
    if (rc) return rc;
    const jv *ic = get(&root, "IC");
    if ((rc = check_tags(&root, path)) || (rc = jg1(&vk->alpha_g1, get(&root, "vk_alpha_1"), path, "vk_alpha_1", 0)) ||
        (rc = jg2(&vk->beta_g2, get(&root, "vk_beta_2"), path, "vk_beta_2")) ||
        (rc = jg2(&vk->gamma_g2, get(&root, "vk_gamma_2"), path, "vk_gamma_2")) ||
        (rc = jg2(&vk->delta_g2, get(&root, "vk_delta_2"), path, "vk_delta_2")))
        goto out;
    if (!ic || ic->type != J_ARR || ic->n == 0) {
        rc = cz_error(CZ_EFORMAT, "%s: IC is missing or empty", path);
        goto out;
    }
    const jv *np = get(&root, "nPublic");
    if (np && (np->type != J_NUM || strtoull(np->s, NULL, 10) + 1 != ic->n)) {
        rc = cz_error(CZ_EFORMAT, "%s: offset %zu: nPublic does not match the %zu IC points", path, np->off, ic->n);
        goto out;
    }
    vk->ic_len = ic->n;
    vk->ic = malloc(ic->n * sizeof *vk->ic);
    if (!vk->ic) {
        rc = cz_error(CZ_ENOMEM, "%s: out of memory", path);
        goto out;
    }
    for (size_t i = 0; i < ic->n && !rc; i++) {
        char what[32];
        snprintf(what, sizeof what, "IC[%zu]", i);
        rc = jg1(&vk->ic[i], &ic->kids[i], path, what, 1);
    }
out:
    jv_free(&root);
    if (rc) cz_groth16_vk_free(vk);
    return rc;
}
