/* C1 JSON writer; see c1.h (cz_c1_to_json). Writes serde_json's compact form of
 * SealCommitPhase1Output in upstream's field order, so a parsed real C1 is reproduced byte for byte
 * (the values the parser drops, labels and leaves, are recomputed as the vanilla verifier does). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "filecoin/c1.h"
#include "filecoin/vanilla.h"

typedef struct {
    char *b;
    size_t n, cap;
    int err;
} buf;

static void put(buf *o, const char *s, size_t len) {
    if (o->err) return;
    if (o->n + len + 1 > o->cap) {
        size_t cap = o->cap ? o->cap : 1 << 16;
        while (o->n + len + 1 > cap) cap *= 2;
        char *nb = realloc(o->b, cap);
        if (!nb) {
            o->err = cz_error(CZ_ENOMEM, "c1 json: out of memory");
            return;
        }
        o->b = nb, o->cap = cap;
    }
    memcpy(o->b + o->n, s, len);
    o->n += len;
    o->b[o->n] = 0;
}

static void puts_(buf *o, const char *s) { put(o, s, strlen(s)); }

static void putf(buf *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(buf *o, const char *fmt, ...) {
    char t[256];
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(t, sizeof t, fmt, ap);
    va_end(ap);
    put(o, t, len < (int)sizeof t ? (size_t)len : sizeof t - 1); /* callers format short fields only */
}

static void bytes32(buf *o, const uint8_t b[32]) {
    char t[32 * 4 + 2], *p = t;
    *p++ = '[';
    for (int i = 0; i < 32; i++) p += sprintf(p, i ? ",%u" : "%u", b[i]);
    *p++ = ']';
    put(o, t, (size_t)(p - t));
}

static void fr32(buf *o, const cz_fr *v) {
    uint8_t b[32];
    cz_fr_to_bytes_le(b, v);
    bytes32(o, b);
}

/* {"path":[{"hashes":[...],"index":d}, ...]} for levels [l0, l1) of a path. */
static void path_part(buf *o, const cz_tree_shape *s, unsigned l0, unsigned l1, uint64_t index, const cz_fr *sib) {
    unsigned shift = 0;
    for (unsigned l = 0; l < l0; l++) sib += s->levels[l] - 1, shift += s->levels[l] == 2 ? 1 : s->levels[l] == 4 ? 2 : 3;
    puts_(o, "{\"path\":[");
    for (unsigned l = l0; l < l1; l++) {
        unsigned ar = s->levels[l], bits = ar == 2 ? 1 : ar == 4 ? 2 : 3;
        puts_(o, l > l0 ? ",{\"hashes\":[" : "{\"hashes\":[");
        for (unsigned q = 0; q + 1 < ar; q++) {
            if (q) puts_(o, ",");
            fr32(o, sib++);
        }
        putf(o, "],\"index\":%u}", (unsigned)((index >> shift) & (ar - 1)));
        shift += bits;
    }
    puts_(o, "]}");
}

/* A MerkleProof: Single, Sub (base + one sub level) or Top (+ one top level) by the tree shape. */
static void merkle(buf *o, const cz_tree_shape *s, const cz_fr *root, const cz_fr *leaf, uint64_t index,
                   const cz_fr *sib) {
    unsigned np = s->sha ? 1 : s->nlevels == 11 ? 3 : s->nlevels == 10 ? 2 : 1;
    unsigned base = s->nlevels - (np - 1);
    if (np == 1) {
        puts_(o, "{\"data\":{\"Single\":{\"root\":");
        fr32(o, root), puts_(o, ",\"leaf\":"), fr32(o, leaf), puts_(o, ",\"path\":");
        path_part(o, s, 0, s->nlevels, index, sib);
        puts_(o, "}}}");
        return;
    }
    puts_(o, np == 2 ? "{\"data\":{\"Sub\":{\"base_proof\":" : "{\"data\":{\"Top\":{\"base_proof\":");
    path_part(o, s, 0, base, index, sib);
    puts_(o, ",\"sub_proof\":");
    path_part(o, s, base, base + 1, index, sib);
    if (np == 3) puts_(o, ",\"top_proof\":"), path_part(o, s, base + 1, base + 2, index, sib);
    puts_(o, ",\"root\":"), fr32(o, root), puts_(o, ",\"leaf\":"), fr32(o, leaf);
    puts_(o, "}}}");
}

static void column(buf *o, const cz_porep_params *p, uint64_t index, const cz_fr *rows, const cz_fr *path,
                   const cz_fr *comm_c) {
    putf(o, "{\"column\":{\"index\":%llu,\"rows\":[", (unsigned long long)index);
    for (unsigned l = 0; l < p->layers; l++) {
        if (l) puts_(o, ",");
        fr32(o, &rows[l]);
    }
    puts_(o, "],\"_h\":null},\"inclusion_proof\":");
    cz_fr leaf;
    cz_poseidon_hash(&leaf, rows, p->layers);
    merkle(o, &p->tree, comm_c, &leaf, index, path);
    puts_(o, "}");
}

static void parents37(buf *o, const cz_fr *par, unsigned n) {
    puts_(o, "{\"parents\":[");
    for (unsigned k = 0; k < 37; k++) {
        if (k) puts_(o, ",");
        fr32(o, &par[k % n]);
    }
    puts_(o, "]");
}

static void challenge(buf *o, const cz_c1 *c1, size_t n) {
    const cz_porep_params *p = &c1->params;
    const cz_porep_challenge *ch = &c1->ch[n];
    unsigned L = p->layers;
    cz_fr comm_d, labels[CZ_POREP_MAX_LAYERS], par[CZ_POREP_MAX_LAYERS][14], enc;
    cz_fr_from_bytes_le(&comm_d, c1->comm_d);
    for (unsigned l = 1; l <= L; l++) {
        for (int q = 0; q < 6; q++) par[l - 1][q] = ch->drg[q].rows[l - 1];
        if (l > 1)
            for (int q = 0; q < 8; q++) par[l - 1][6 + q] = ch->exp[q].rows[l - 2];
        cz_porep_label(&labels[l - 1], c1->replica_id, l, ch->challenge, par[l - 1], l > 1 ? 14 : 6);
    }
    cz_fr_add(&enc, &labels[L - 1], &ch->data_leaf);
    puts_(o, "{\"comm_d_proofs\":");
    merkle(o, &p->tree_d, &comm_d, &ch->data_leaf, ch->d_index, ch->comm_d_path);
    puts_(o, ",\"comm_r_last_proof\":");
    merkle(o, &p->tree, &c1->comm_r_last[n], &enc, ch->r_index, ch->comm_r_last_path);
    puts_(o, ",\"replica_column_proofs\":{\"c_x\":");
    column(o, p, ch->c_index, labels, ch->comm_c_path, &c1->comm_c[n]);
    puts_(o, ",\"drg_parents\":[");
    for (int q = 0; q < 6; q++) {
        if (q) puts_(o, ",");
        column(o, p, ch->drg[q].index, ch->drg[q].rows, ch->drg[q].path, &c1->comm_c[n]);
    }
    puts_(o, "],\"exp_parents\":[");
    for (int q = 0; q < 8; q++) {
        if (q) puts_(o, ",");
        column(o, p, ch->exp[q].index, ch->exp[q].rows, ch->exp[q].path, &c1->comm_c[n]);
    }
    puts_(o, "]},\"labeling_proofs\":[");
    for (unsigned l = 1; l <= L; l++) {
        if (l > 1) puts_(o, ",");
        parents37(o, par[l - 1], l > 1 ? 14 : 6);
        putf(o, ",\"layer_index\":%u,\"node\":%llu}", l, (unsigned long long)ch->challenge);
    }
    puts_(o, "],\"encoding_proof\":");
    parents37(o, par[L - 1], L > 1 ? 14 : 6);
    putf(o, ",\"layer_index\":%u,\"node\":%llu}}", L, (unsigned long long)ch->challenge);
}

int cz_c1_to_json(const cz_c1 *c1, char **out, size_t *len) {
    *out = NULL, *len = 0;
    if (!c1->ch || !c1->partitions) return cz_error(CZ_EINVAL, "c1 json: an empty C1");
    buf o = {0};
    putf(&o, "{\"registered_proof\":\"%s\",\"vanilla_proofs\":{\"StackedDrg%sV1\":[", c1->registered_proof,
         c1->params.name);
    for (unsigned k = 0; k < c1->partitions; k++) {
        puts_(&o, k ? ",[" : "[");
        for (unsigned i = 0; i < c1->challenges; i++) {
            if (i) puts_(&o, ",");
            challenge(&o, c1, (size_t)k * c1->challenges + i);
        }
        puts_(&o, "]");
    }
    puts_(&o, "]},\"comm_r\":"), bytes32(&o, c1->comm_r);
    puts_(&o, ",\"comm_d\":"), bytes32(&o, c1->comm_d);
    puts_(&o, ",\"replica_id\":"), bytes32(&o, c1->replica_id);
    puts_(&o, ",\"seed\":"), bytes32(&o, c1->seed);
    puts_(&o, ",\"ticket\":"), bytes32(&o, c1->ticket);
    puts_(&o, "}");
    if (o.err) {
        free(o.b);
        return o.err;
    }
    *out = o.b, *len = o.n;
    return 0;
}
