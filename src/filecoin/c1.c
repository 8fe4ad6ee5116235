/* C1 JSON parser; see c1.h. */
#include "filecoin/c1.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "filecoin/porep_inputs.h"
#include "filecoin/sector.h"
#include "util/file.h"
#include "util/json.h"

typedef struct {
    const cz_json *j;
    unsigned k, i; /* partition, challenge (for messages) */
} ctx;

#define FAIL(c, code, ...) fail_(c, code, __VA_ARGS__)
static int fail_(const ctx *c, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail_(const ctx *c, int code, const char *fmt, ...) {
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return cz_error(code, "c1: partition %u challenge %u: %s", c->k, c->i, msg);
}

/* (the JSON is parsed packed: a byte array is one token, cz_json_bytes reads it) */
static int b32(const ctx *c, int64_t t, uint8_t out[32], const char *field) {
    int bad;
    if (!cz_json_bytes(c->j, t, out, 32, &bad)) return 0;
    if (bad < 0) return FAIL(c, CZ_EFORMAT, "%s is not an array of 32 bytes", field);
    return FAIL(c, CZ_EFORMAT, "%s[%d] is not a byte", field, bad);
}

static int fr32(const ctx *c, int64_t t, cz_fr *out, const char *field) {
    uint8_t b[32];
    int rc = b32(c, t, b, field);
    if (rc) return rc;
    if (cz_fr_from_bytes_le(out, b)) return FAIL(c, CZ_ERANGE, "%s is not below the field modulus", field);
    return 0;
}

/* A MerkleProof of the given shape: root, leaf, siblings (level order) and the index its path
 * element indices spell. */
static int merkle(const ctx *c, int64_t mp, const cz_tree_shape *s, cz_fr *root, cz_fr *leaf, cz_fr *sib,
                  uint64_t *index, const char *field) {
    /* Single (base only), Sub (base + one arity-8 level) or Top (+ one arity-2 level): the tree
     * shape says which one: 32 GiB trees end in a sub level, 64 GiB ones in a top level. */
    unsigned want_np = s->sha ? 1 : s->nlevels == 11 ? 3 : s->nlevels == 10 ? 2 : 1;
    const cz_json *j = c->j;
    int64_t data = cz_json_get(j, mp, "data");
    if (cz_json_type(j, data) != CZ_JSON_OBJECT || cz_json_count(j, data) != 1)
        return FAIL(c, CZ_EFORMAT, "%s.data is not a one-member object", field);
    int64_t kind = cz_json_key_at(j, data, 0), body = kind + 1;
    int64_t paths[3];
    unsigned np;
    if (cz_json_streq(j, kind, "Single")) {
        np = 1, paths[0] = cz_json_get(j, body, "path");
    } else if (cz_json_streq(j, kind, "Sub")) {
        np = 2, paths[0] = cz_json_get(j, body, "base_proof"), paths[1] = cz_json_get(j, body, "sub_proof");
    } else if (cz_json_streq(j, kind, "Top")) {
        np = 3, paths[0] = cz_json_get(j, body, "base_proof"), paths[1] = cz_json_get(j, body, "sub_proof");
        paths[2] = cz_json_get(j, body, "top_proof");
    } else {
        return FAIL(c, CZ_EFORMAT, "%s.data has an unknown kind", field);
    }
    if (np != want_np) return FAIL(c, CZ_EFORMAT, "%s.data is a %u-part proof, the sector needs %u", field, np, want_np);
    char f[96];
    snprintf(f, sizeof f, "%s.root", field);
    int rc = fr32(c, cz_json_get(j, body, "root"), root, f);
    snprintf(f, sizeof f, "%s.leaf", field);
    if (!rc) rc = fr32(c, cz_json_get(j, body, "leaf"), leaf, f);
    if (rc) return rc;
    unsigned lv = 0, shift = 0;
    uint64_t idx = 0;
    for (unsigned p = 0; p < np; p++) {
        int64_t arr = cz_json_get(j, paths[p], "path");
        if (cz_json_type(j, arr) != CZ_JSON_ARRAY) return FAIL(c, CZ_EFORMAT, "%s path %u is not an array", field, p);
        int64_t el = arr + 1;
        for (uint32_t e = 0; e < cz_json_count(j, arr); e++, el = j->tok[el].next, lv++) {
            if (lv >= s->nlevels) return FAIL(c, CZ_EFORMAT, "%s has more than %u levels", field, s->nlevels);
            unsigned ar = s->levels[lv];
            int64_t hs = cz_json_get(j, el, "hashes"), ix = cz_json_get(j, el, "index");
            uint64_t v;
            if (cz_json_type(j, hs) != CZ_JSON_ARRAY || cz_json_count(j, hs) != ar - 1)
                return FAIL(c, CZ_EFORMAT, "%s level %u: hashes is not %u values", field, lv, ar - 1);
            if (cz_json_u64(j, ix, &v) || v >= ar)
                return FAIL(c, CZ_EFORMAT, "%s level %u: index is not below %u", field, lv, ar);
            idx |= v << shift;
            shift += ar == 2 ? 1 : ar == 4 ? 2 : 3;
            int64_t h = hs + 1;
            for (unsigned q = 0; q + 1 < ar; q++, h = j->tok[h].next) {
                snprintf(f, sizeof f, "%s level %u hash %u", field, lv, q);
                if ((rc = fr32(c, h, sib++, f))) return rc;
            }
        }
    }
    if (lv != s->nlevels) return FAIL(c, CZ_EFORMAT, "%s has %u levels, the sector needs %u", field, lv, s->nlevels);
    *index = idx;
    return 0;
}

static int column(const ctx *c, int64_t cp, const cz_porep_params *p, cz_porep_column *col, cz_fr *sib,
                  cz_fr *root_c, const char *field) {
    const cz_json *j = c->j;
    int64_t colt = cz_json_get(j, cp, "column"), rows = cz_json_get(j, colt, "rows");
    uint64_t node;
    if (cz_json_u64(j, cz_json_get(j, colt, "index"), &node))
        return FAIL(c, CZ_EFORMAT, "%s.column.index is missing or not an integer", field);
    if (cz_json_type(j, rows) != CZ_JSON_ARRAY || cz_json_count(j, rows) != p->layers)
        return FAIL(c, CZ_EFORMAT, "%s.column.rows is not %u labels", field, p->layers);
    char f[96];
    int64_t r = rows + 1;
    for (unsigned l = 0; l < p->layers; l++, r = j->tok[r].next) {
        snprintf(f, sizeof f, "%s.column.rows[%u]", field, l);
        int rc = fr32(c, r, &col->rows[l], f);
        if (rc) return rc;
    }
    cz_fr leaf;
    snprintf(f, sizeof f, "%s.inclusion_proof", field);
    int rc = merkle(c, cz_json_get(j, cp, "inclusion_proof"), &p->tree, root_c, &leaf, sib, &col->index, f);
    if (rc) return rc;
    if (col->index != node)
        return FAIL(c, CZ_EFORMAT, "%s: path index %llu differs from column.index %llu", field,
                    (unsigned long long)col->index, (unsigned long long)node);
    col->path = sib;
    return 0;
}

static int challenge(const ctx *c, int64_t pr, const cz_porep_params *p, cz_porep_challenge *ch, cz_fr *pool,
                     cz_fr *comm_r_last, cz_fr *comm_c) {
    const cz_json *j = c->j;
    unsigned tl = cz_tree_path_len(&p->tree);
    int rc;
    cz_fr root, leaf;
    int64_t lp = cz_json_get(j, pr, "labeling_proofs");
    if (cz_json_type(j, lp) != CZ_JSON_ARRAY || cz_json_count(j, lp) != p->layers)
        return FAIL(c, CZ_EFORMAT, "labeling_proofs is not %u entries", p->layers);
    if (cz_json_u64(j, cz_json_get(j, lp + 1, "node"), &ch->challenge) || ch->challenge >> p->nodes_log2)
        return FAIL(c, CZ_EFORMAT, "labeling_proofs[0].node is not a node index");
    ch->comm_d_path = pool;
    if ((rc = merkle(c, cz_json_get(j, pr, "comm_d_proofs"), &p->tree_d, &root, &ch->data_leaf, pool, &ch->d_index,
                     "comm_d_proofs")))
        return rc;
    pool += p->nodes_log2;
    ch->comm_r_last_path = pool;
    if ((rc = merkle(c, cz_json_get(j, pr, "comm_r_last_proof"), &p->tree, comm_r_last, &leaf, pool, &ch->r_index,
                     "comm_r_last_proof")))
        return rc;
    pool += tl;
    int64_t rcp = cz_json_get(j, pr, "replica_column_proofs");
    int64_t cx = cz_json_get(j, rcp, "c_x");
    ch->comm_c_path = pool;
    if ((rc = merkle(c, cz_json_get(j, cx, "inclusion_proof"), &p->tree, comm_c, &leaf, pool, &ch->c_index,
                     "replica_column_proofs.c_x.inclusion_proof")))
        return rc;
    pool += tl;
    int64_t drg = cz_json_get(j, rcp, "drg_parents"), exp = cz_json_get(j, rcp, "exp_parents");
    if (cz_json_type(j, drg) != CZ_JSON_ARRAY || cz_json_count(j, drg) != CZ_POREP_DRG_PARENTS)
        return FAIL(c, CZ_EFORMAT, "replica_column_proofs.drg_parents is not 6 column proofs");
    if (cz_json_type(j, exp) != CZ_JSON_ARRAY || cz_json_count(j, exp) != CZ_POREP_EXP_PARENTS)
        return FAIL(c, CZ_EFORMAT, "replica_column_proofs.exp_parents is not 8 column proofs");
    char f[64];
    int64_t e = drg + 1;
    for (int i = 0; i < CZ_POREP_DRG_PARENTS; i++, e = j->tok[e].next, pool += tl) {
        snprintf(f, sizeof f, "drg_parents[%d]", i);
        if ((rc = column(c, e, p, &ch->drg[i], pool, &root, f))) return rc;
        if (!cz_fr_equal(&root, comm_c)) return FAIL(c, CZ_EFORMAT, "%s: tree_c root differs from c_x's", f);
    }
    e = exp + 1;
    for (int i = 0; i < CZ_POREP_EXP_PARENTS; i++, e = j->tok[e].next, pool += tl) {
        snprintf(f, sizeof f, "exp_parents[%d]", i);
        if ((rc = column(c, e, p, &ch->exp[i], pool, &root, f))) return rc;
        if (!cz_fr_equal(&root, comm_c)) return FAIL(c, CZ_EFORMAT, "%s: tree_c root differs from c_x's", f);
    }
    return 0;
}

static int parse_c1(cz_c1 *c1, const cz_json *j) {
    ctx c = {j, 0, 0};
    int64_t root = 0, rp = cz_json_get(j, root, "registered_proof");
    char *name = NULL;
    int rc;
    if (cz_json_type(j, root) != CZ_JSON_OBJECT) return cz_error(CZ_EFORMAT, "c1: the JSON is not an object");
    if (cz_json_type(j, rp) != CZ_JSON_STRING || (rc = cz_json_string(j, rp, &name, NULL)))
        return cz_error(CZ_EFORMAT, "c1: registered_proof is missing or not a string");
    int id = -1;
    for (unsigned i = 0; i < CZ_SECTOR_SIZE_COUNT * CZ_SEAL_VERSION_COUNT && id < 0; i++) {
        char want[64];
        cz_seal_proof_name(want, sizeof want, i);
        if (!strcmp(want, name)) id = (int)i;
    }
    if (id < 0) {
        rc = cz_error(CZ_EINVAL, "c1: registered_proof \"%.40s\" is not a StackedDrg seal proof", name);
        free(name);
        return rc;
    }
    snprintf(c1->registered_proof, sizeof c1->registered_proof, "%s", name);
    free(name);
    c1->proof_id = (unsigned)id;
    cz_porep_params *p = &c1->params;
    if ((rc = cz_porep_params_for(p, cz_sector_sizes[id % 5]))) return rc;
    struct { const char *key; uint8_t *out; } f[] = {{"comm_r", c1->comm_r}, {"comm_d", c1->comm_d},
                                                      {"replica_id", c1->replica_id}, {"seed", c1->seed},
                                                      {"ticket", c1->ticket}};
    for (size_t i = 0; i < 5; i++) {
        int64_t t = cz_json_get(j, root, f[i].key);
        if (t < 0) return cz_error(CZ_EFORMAT, "c1: %s is missing", f[i].key);
        if ((rc = b32(&c, t, f[i].out, f[i].key))) return rc;
    }
    int64_t vp = cz_json_get(j, root, "vanilla_proofs");
    char vname[32];
    snprintf(vname, sizeof vname, "StackedDrg%sV1", cz_sector_names[id % 5]);
    int64_t parts = cz_json_get(j, vp, vname);
    if (cz_json_type(j, parts) != CZ_JSON_ARRAY || !cz_json_count(j, parts))
        return cz_error(CZ_EFORMAT, "c1: vanilla_proofs.%s is missing or empty", vname);
    c1->partitions = cz_json_count(j, parts);
    c1->challenges = p->challenges;
    unsigned want = cz_porep_kind_partitions(p, cz_porep_kind_of(c1->proof_id));
    if (c1->partitions != want) /* the Groth16 proof of each partition is checked against all of them */
        return cz_error(CZ_EFORMAT, "c1: vanilla_proofs.%s holds %u partition(s), %s has %u partitions", vname, c1->partitions,
                        c1->registered_proof, want);
    size_t nch = (size_t)c1->partitions * c1->challenges;
    size_t stride = p->nodes_log2 + 16 * (size_t)cz_tree_path_len(&p->tree);
    c1->ch = calloc(nch, sizeof *c1->ch);
    c1->comm_r_last = calloc(nch, sizeof(cz_fr));
    c1->comm_c = calloc(nch, sizeof(cz_fr));
    c1->pool = calloc(nch * stride, sizeof(cz_fr));
    if (!c1->ch || !c1->comm_r_last || !c1->comm_c || !c1->pool) return cz_error(CZ_ENOMEM, "c1: out of memory");
    int64_t part = parts + 1;
    for (unsigned k = 0; k < c1->partitions; k++, part = j->tok[part].next) {
        c.k = k, c.i = 0;
        if (cz_json_type(j, part) != CZ_JSON_ARRAY || cz_json_count(j, part) != c1->challenges)
            return FAIL(&c, CZ_EFORMAT, "the partition does not hold %u challenge proofs", c1->challenges);
        int64_t pr = part + 1;
        for (unsigned i = 0; i < c1->challenges; i++, pr = j->tok[pr].next) {
            c.i = i;
            size_t n = (size_t)k * c1->challenges + i;
            if (cz_json_type(j, pr) != CZ_JSON_OBJECT) return FAIL(&c, CZ_EFORMAT, "the proof is not an object");
            if ((rc = challenge(&c, pr, p, &c1->ch[n], c1->pool + n * stride, &c1->comm_r_last[n], &c1->comm_c[n])))
                return rc;
        }
    }
    return 0;
}

int cz_c1_parse(cz_c1 *c1, const char *text, size_t len) {
    memset(c1, 0, sizeof *c1);
    cz_json j;
    int rc = cz_json_parse_packed(&j, text, len);
    if (rc) return rc;
    int64_t p1 = cz_json_get(&j, 0, "Phase1Out");
    if (p1 >= 0) { /* lotus Commit2In wrapper */
        char *b64 = NULL;
        size_t blen = 0, rawlen = 0;
        uint8_t *raw = NULL;
        /* base64 has no escapes: decoded in place unless the string has one (then unescaped first) */
        const char *s = j.text + j.tok[p1].start;
        const int plain = cz_json_type(&j, p1) == CZ_JSON_STRING && !memchr(s, '\\', j.tok[p1].len);
        if (plain) rc = cz_base64_decode(s, j.tok[p1].len, &raw, &rawlen);
        else rc = cz_json_string(&j, p1, &b64, &blen);
        if (!rc && !plain) rc = cz_base64_decode(b64, blen, &raw, &rawlen);
        free(b64);
        cz_json_free(&j);
        if (rc) {
            char why[200];
            snprintf(why, sizeof why, "%s", cz_error_message()); /* cz_error rewrites the message buffer */
            return cz_error(rc, "c1: Phase1Out: %s", why);
        }
        rc = cz_json_parse_packed(&j, (const char *)raw, rawlen);
        if (!rc) {
            rc = parse_c1(c1, &j);
            cz_json_free(&j);
        }
        free(raw);
    } else {
        rc = parse_c1(c1, &j);
        cz_json_free(&j);
    }
    if (rc) cz_c1_free(c1);
    return rc;
}

int cz_c1_load(cz_c1 *c1, const char *path) {
    memset(c1, 0, sizeof *c1);
    char *buf;
    size_t len; /* up to 1 GiB: a 32 GiB PoRep's C1 is 51.5 MB (cuzk-bench gen-vanilla), NI-PoRep's 126 partitions
                 * ~13 times that */
    int rc = cz_file_read(path, (size_t)1 << 30, &buf, &len);
    if (rc) return rc;
    rc = cz_c1_parse(c1, buf, len);
    free(buf);
    return rc;
}

void cz_c1_free(cz_c1 *c1) {
    free(c1->ch), free(c1->comm_r_last), free(c1->comm_c), free(c1->pool);
    memset(c1, 0, sizeof *c1);
}

int cz_c1_witness(const cz_c1 *c1, unsigned k, cz_porep_witness *w) {
    if (k >= c1->partitions) return cz_error(CZ_EINVAL, "c1: partition %u of %u", k, c1->partitions);
    size_t base = (size_t)k * c1->challenges;
    for (unsigned i = 1; i < c1->challenges; i++)
        if (!cz_fr_equal(&c1->comm_r_last[base + i], &c1->comm_r_last[base]) ||
            !cz_fr_equal(&c1->comm_c[base + i], &c1->comm_c[base]))
            return cz_error(CZ_EINVAL, "c1: partition %u challenge %u: comm_r_last / comm_c differ from challenge 0's", k, i);
    if (cz_fr_from_bytes_le(&w->replica_id, c1->replica_id)) return cz_error(CZ_ERANGE, "c1: replica_id >= r");
    if (cz_fr_from_bytes_le(&w->comm_d, c1->comm_d)) return cz_error(CZ_ERANGE, "c1: comm_d >= r");
    if (cz_fr_from_bytes_le(&w->comm_r, c1->comm_r)) return cz_error(CZ_ERANGE, "c1: comm_r >= r");
    w->comm_r_last = c1->comm_r_last[base];
    w->comm_c = c1->comm_c[base];
    w->ch = &c1->ch[base];
    return 0;
}
