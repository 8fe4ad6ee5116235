/* cuzk-bench gen-vanilla porep: a synthetic C1 (src/filecoin/synth.h) written as the
 * SealCommitPhase1Output JSON (filecoin-circuits.md §3.1, field order as serde writes it) inside lotus'
 * Commit2In wrapper {"SectorNum","Phase1Out": base64(JSON),"SectorSize"}, i.e. what Curio sends.
 * Values the circuit recomputes (labeling/encoding parents, c_x rows, leaves) are written with their
 * real values (create_label of the parents' rows, Poseidon column hashes), so the JSON is a consistent
 * vanilla proof, not only one our parser accepts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "filecoin/c1.h"
#include "filecoin/synth.h"
#include "filecoin/vanilla.h"
#include "gadgets/poseidon.h"

char *cz_bench_c1_wrapper(uint64_t sector_size, uint64_t sector_num, uint64_t seed);

static void b32(FILE *f, const uint8_t b[32]) {
    fputc('[', f);
    for (int i = 0; i < 32; i++) fprintf(f, "%s%u", i ? "," : "", b[i]);
    fputc(']', f);
}

static void fr(FILE *f, const cz_fr *v) {
    uint8_t b[32];
    cz_fr_to_bytes_le(b, v);
    b32(f, b);
}

/* MerkleProof of shape s: Single, or Sub (last level in sub_proof) / Top (last two in sub/top), as c1.c
 * reads them. */
static void merkle(FILE *f, const cz_tree_shape *s, const cz_fr *root, const cz_fr *leaf, const cz_fr *sib,
                   uint64_t index) {
    unsigned np = s->sha ? 1 : s->nlevels == 11 ? 3 : s->nlevels == 10 ? 2 : 1;
    unsigned split[3] = {s->nlevels - (np - 1), 1, 1};
    static const char *const part[3] = {"base_proof", "sub_proof", "top_proof"};
    fprintf(f, "{\"data\":{\"%s\":{", np == 1 ? "Single" : np == 2 ? "Sub" : "Top");
    unsigned lv = 0;
    for (unsigned p = 0; p < np; p++) {
        if (np == 1) fprintf(f, "\"root\":"), fr(f, root), fprintf(f, ",\"leaf\":"), fr(f, leaf), fprintf(f, ",\"path\":");
        else fprintf(f, "%s\"%s\":", p ? "," : "", part[p]);
        fprintf(f, "{\"path\":[");
        for (unsigned i = 0; i < split[p]; i++, lv++) {
            unsigned ar = s->levels[lv], bits = ar == 2 ? 1 : ar == 4 ? 2 : 3;
            fprintf(f, "%s{\"hashes\":[", i ? "," : "");
            for (unsigned q = 0; q + 1 < ar; q++) {
                if (q) fputc(',', f);
                fr(f, sib++);
            }
            fprintf(f, "],\"index\":%llu}", (unsigned long long)(index & (ar - 1)));
            index >>= bits;
        }
        fprintf(f, "]}");
    }
    if (np > 1) fprintf(f, ",\"root\":"), fr(f, root), fprintf(f, ",\"leaf\":"), fr(f, leaf);
    fprintf(f, "}}}");
}

static void column(FILE *f, const cz_porep_params *p, uint64_t index, const cz_fr *rows, const cz_fr *path,
                   const cz_fr *comm_c) {
    cz_fr leaf;
    cz_poseidon_hash(&leaf, rows, p->layers);
    fprintf(f, "{\"column\":{\"index\":%llu,\"rows\":[", (unsigned long long)index);
    for (unsigned l = 0; l < p->layers; l++) {
        if (l) fputc(',', f);
        fr(f, &rows[l]);
    }
    fprintf(f, "],\"_h\":null},\"inclusion_proof\":");
    merkle(f, &p->tree, comm_c, &leaf, path, index);
    fputc('}', f);
}

/* The label parents of the challenged node at layer l (1-based), as vanilla.c feeds create_label. */
static unsigned label_parents(const cz_porep_challenge *ch, unsigned l, cz_fr par[14]) {
    for (int q = 0; q < 6; q++) par[q] = ch->drg[q].rows[l - 1];
    if (l == 1) return 6;
    for (int q = 0; q < 8; q++) par[6 + q] = ch->exp[q].rows[l - 2];
    return 14;
}

static void labeling(FILE *f, const cz_porep_challenge *ch, unsigned l) {
    cz_fr par[14];
    unsigned n = label_parents(ch, l, par);
    fprintf(f, "{\"parents\":[");
    for (unsigned k = 0; k < 37; k++) {
        if (k) fputc(',', f);
        fr(f, &par[k % n]);
    }
    fprintf(f, "],\"layer_index\":%u,\"node\":%llu}", l, (unsigned long long)ch->challenge);
}

static void proof(FILE *f, const cz_c1 *c1, size_t n) {
    const cz_porep_params *p = &c1->params;
    const cz_porep_challenge *ch = &c1->ch[n];
    cz_fr comm_d, labels[CZ_POREP_MAX_LAYERS], enc;
    cz_fr_from_bytes_le(&comm_d, c1->comm_d);
    for (unsigned l = 1; l <= p->layers; l++) {
        cz_fr par[14];
        unsigned np = label_parents(ch, l, par);
        cz_porep_label(&labels[l - 1], c1->replica_id, l, ch->challenge, par, np);
    }
    cz_fr_add(&enc, &labels[p->layers - 1], &ch->data_leaf);
    fprintf(f, "{\"comm_d_proofs\":");
    merkle(f, &p->tree_d, &comm_d, &ch->data_leaf, ch->comm_d_path, ch->d_index);
    fprintf(f, ",\"comm_r_last_proof\":");
    merkle(f, &p->tree, &c1->comm_r_last[n], &enc, ch->comm_r_last_path, ch->r_index);
    fprintf(f, ",\"replica_column_proofs\":{\"c_x\":");
    column(f, p, ch->c_index, labels, ch->comm_c_path, &c1->comm_c[n]);
    fprintf(f, ",\"drg_parents\":[");
    for (int q = 0; q < CZ_POREP_DRG_PARENTS; q++) {
        if (q) fputc(',', f);
        column(f, p, ch->drg[q].index, ch->drg[q].rows, ch->drg[q].path, &c1->comm_c[n]);
    }
    fprintf(f, "],\"exp_parents\":[");
    for (int q = 0; q < CZ_POREP_EXP_PARENTS; q++) {
        if (q) fputc(',', f);
        column(f, p, ch->exp[q].index, ch->exp[q].rows, ch->exp[q].path, &c1->comm_c[n]);
    }
    fprintf(f, "]},\"labeling_proofs\":[");
    for (unsigned l = 1; l <= p->layers; l++) {
        if (l > 1) fputc(',', f);
        labeling(f, ch, l);
    }
    fprintf(f, "],\"encoding_proof\":");
    labeling(f, ch, p->layers);
    fputc('}', f);
}

static char *c1_json(const cz_c1 *c1, size_t *len) {
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (!f) return NULL;
    fprintf(f, "{\"registered_proof\":\"%s\",\"vanilla_proofs\":{\"StackedDrg%sV1\":[", c1->registered_proof,
            c1->params.name);
    for (unsigned k = 0; k < c1->partitions; k++) {
        fprintf(f, "%s[", k ? "," : "");
        for (unsigned i = 0; i < c1->challenges; i++) {
            if (i) fputc(',', f);
            proof(f, c1, (size_t)k * c1->challenges + i);
        }
        fputc(']', f);
    }
    fprintf(f, "]},\"comm_r\":");
    b32(f, c1->comm_r);
    fprintf(f, ",\"comm_d\":");
    b32(f, c1->comm_d);
    fprintf(f, ",\"replica_id\":");
    b32(f, c1->replica_id);
    fprintf(f, ",\"seed\":");
    b32(f, c1->seed);
    fprintf(f, ",\"ticket\":");
    b32(f, c1->ticket);
    fputc('}', f);
    fclose(f);
    return buf;
}

static const char b64chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* The Commit2In wrapper of a fresh synthetic C1 (malloc'ed), or NULL with cz_error set. */
char *cz_bench_c1_wrapper(uint64_t sector_size, uint64_t sector_num, uint64_t seed) {
    cz_porep_params p;
    if (cz_porep_params_for(&p, sector_size)) return NULL;
    cz_c1 c1;
    if (cz_porep_synthetic_c1(&c1, sector_size, p.partitions, seed)) return NULL;
    size_t n;
    char *js = c1_json(&c1, &n);
    cz_c1_free(&c1);
    if (!js) {
        cz_error(CZ_ENOMEM, "out of memory");
        return NULL;
    }
    size_t cap = 4 * ((n + 2) / 3) + 128;
    char *out = malloc(cap);
    if (!out) {
        free(js);
        cz_error(CZ_ENOMEM, "out of memory");
        return NULL;
    }
    char *w = out + sprintf(out, "{\"SectorNum\":%llu,\"Phase1Out\":\"", (unsigned long long)sector_num);
    const uint8_t *s = (const uint8_t *)js;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)s[i] << 16 | (i + 1 < n ? (uint32_t)s[i + 1] << 8 : 0) | (i + 2 < n ? s[i + 2] : 0);
        *w++ = b64chars[v >> 18], *w++ = b64chars[(v >> 12) & 63];
        *w++ = i + 1 < n ? b64chars[(v >> 6) & 63] : '=';
        *w++ = i + 2 < n ? b64chars[v & 63] : '=';
    }
    sprintf(w, "\",\"SectorSize\":%llu}", (unsigned long long)sector_size);
    free(js);
    return out;
}
