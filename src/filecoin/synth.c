/* Synthetic C1 generation; see synth.h. */
#include "filecoin/synth.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "filecoin/graph.h"
#include "filecoin/porep_inputs.h"
#include "filecoin/sector.h"
#include "filecoin/vanilla.h"
#include "gadgets/sha256.h"

/* A pseudo-random Sha256Domain-like value (byte 31 &= 0x3f) for (seed, tag, a, b). */
static void prf(cz_fr *out, uint64_t seed, uint32_t tag, uint64_t a, uint64_t b) {
    uint8_t buf[28], h[32];
    memcpy(buf, &seed, 8), memcpy(buf + 8, &tag, 4), memcpy(buf + 12, &a, 8), memcpy(buf + 20, &b, 8);
    cz_sha256_bytes(h, buf, sizeof buf);
    h[31] &= 0x3f;
    cz_fr_from_bytes_le(out, h);
}

typedef struct { uint64_t idx; cz_fr v; } node;

static int cmp_node(const void *a, const void *b) {
    uint64_t x = ((const node *)a)->idx, y = ((const node *)b)->idx;
    return x < y ? -1 : x > y;
}

/* Known nodes per level of a sparse tree (level 0 = leaves); everything else is prf(tree, level). */
typedef struct {
    const cz_tree_shape *s;
    uint64_t seed;
    uint32_t tag;
    node *lv[41];
    size_t n[41];
} sparse_tree;

static const cz_fr *known(const sparse_tree *t, unsigned l, uint64_t idx) {
    size_t lo = 0, hi = t->n[l];
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (t->lv[l][mid].idx < idx) lo = mid + 1;
        else hi = mid;
    }
    return lo < t->n[l] && t->lv[l][lo].idx == idx ? &t->lv[l][lo].v : NULL;
}

static void node_value(cz_fr *out, const sparse_tree *t, unsigned l, uint64_t idx) {
    const cz_fr *k = known(t, l, idx);
    if (k) *out = *k;
    else prf(out, t->seed, t->tag + l, idx, 0);
}

static unsigned lb(unsigned a) { return a == 2 ? 1 : a == 4 ? 2 : 3; }

/* Builds the tree over n leaves (sorted or not; equal indices must carry equal values). */
static int tree_build(sparse_tree *t, node *leaves, size_t n) {
    qsort(leaves, n, sizeof *leaves, cmp_node);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m && leaves[m - 1].idx == leaves[i].idx) {
            if (!cz_fr_equal(&leaves[m - 1].v, &leaves[i].v))
                return cz_error(CZ_EINVAL, "synthetic c1: two values for leaf %llu", (unsigned long long)leaves[i].idx);
            continue;
        }
        leaves[m++] = leaves[i];
    }
    t->lv[0] = leaves, t->n[0] = m;
    for (unsigned l = 0; l < t->s->nlevels; l++) {
        unsigned ar = t->s->levels[l];
        node *up = malloc((t->n[l] ? t->n[l] : 1) * sizeof *up);
        if (!up) return cz_error(CZ_ENOMEM, "synthetic c1: out of memory");
        size_t k = 0;
        for (size_t i = 0; i < t->n[l]; i++) {
            uint64_t g = t->lv[l][i].idx / ar;
            if (k && up[k - 1].idx == g) continue;
            cz_fr ch[8];
            for (unsigned c = 0; c < ar; c++) node_value(&ch[c], t, l, g * ar + c);
            up[k].idx = g;
            if (t->s->sha) cz_sha256_node(&up[k].v, &ch[0], &ch[1]);
            else cz_poseidon_hash(&up[k].v, ch, ar);
            k++;
        }
        t->lv[l + 1] = up, t->n[l + 1] = k;
    }
    return 0;
}

static void tree_free(sparse_tree *t) {
    for (unsigned l = 1; l <= t->s->nlevels; l++) free(t->lv[l]);
}

static void tree_path(const sparse_tree *t, uint64_t leaf, cz_fr *sib) {
    uint64_t idx = leaf;
    for (unsigned l = 0; l < t->s->nlevels; l++) {
        unsigned ar = t->s->levels[l];
        uint64_t g = idx / ar;
        for (unsigned c = 0; c < ar; c++)
            if (g * ar + c != idx) node_value(sib++, t, l, g * ar + c);
        idx = g;
        (void)lb;
    }
}

static void tree_root(const sparse_tree *t, cz_fr *root) { *root = t->lv[t->s->nlevels][0].v; }

/* The layer rows of every node the C1 opens (challenged nodes and their parents), sorted by index. */
typedef struct {
    uint64_t idx;
    bool challenged;
    cz_fr rows[CZ_POREP_MAX_LAYERS];
} column;

static int cmp_column(const void *a, const void *b) {
    uint64_t x = ((const column *)a)->idx, y = ((const column *)b)->idx;
    return x < y ? -1 : x > y;
}

static column *find_column(column *cols, size_t n, uint64_t idx) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (cols[mid].idx < idx) lo = mid + 1;
        else hi = mid;
    }
    return &cols[lo]; /* always present: every looked-up index was inserted */
}

int cz_porep_synthetic_c1(cz_c1 *c1, uint64_t sector_size, unsigned partitions, uint64_t seed, uint64_t miner_id,
                          uint64_t sector_number) {
    memset(c1, 0, sizeof *c1);
    cz_porep_params *p = &c1->params;
    int rc = cz_porep_params_for(p, sector_size);
    if (rc) return rc;
    if (!partitions || partitions > p->partitions)
        return cz_error(CZ_EINVAL, "synthetic c1: %u partitions (the %s proof has %u)", partitions, p->name, p->partitions);
    c1->proof_id = 5 + (unsigned)cz_sector_index(sector_size); /* V1_1 (params_for took the size) */
    cz_seal_proof_name(c1->registered_proof, sizeof c1->registered_proof, c1->proof_id);
    cz_fr t;
    prf(&t, seed, 2, 0, 0), cz_fr_to_bytes_le(c1->seed, &t);
    prf(&t, seed, 3, 0, 0), cz_fr_to_bytes_le(c1->ticket, &t);
    /* a CC sector: the data is all zeros, so tree_d is the zero tree (node l of any path = zd[l]) and comm_d is
     * known before the challenges, which depend on it through replica_id */
    cz_fr zd[41] = {{{0}}};
    for (unsigned l = 0; l < p->tree_d.nlevels; l++) cz_sha256_node(&zd[l + 1], &zd[l], &zd[l]);
    cz_fr_to_bytes_le(c1->comm_d, &zd[p->tree_d.nlevels]);
    uint8_t porep_id[32], prover_id[32];
    cz_porep_id(porep_id, c1->proof_id);
    cz_porep_prover_id(prover_id, miner_id);
    cz_porep_replica_id(c1->replica_id, prover_id, sector_number, c1->ticket, c1->comm_d, porep_id);
    c1->partitions = partitions, c1->challenges = p->challenges;
    unsigned C = p->challenges, L = p->layers, tl = cz_tree_path_len(&p->tree);
    size_t nch = (size_t)partitions * C, stride = p->nodes_log2 + 16 * (size_t)tl;
    uint64_t nodes = 1ull << p->nodes_log2;
    c1->ch = calloc(nch, sizeof *c1->ch);
    c1->comm_r_last = calloc(nch, sizeof(cz_fr));
    c1->comm_c = calloc(nch, sizeof(cz_fr));
    c1->pool = calloc(nch * stride, sizeof(cz_fr));
    uint64_t *chal = calloc(nch, sizeof *chal);
    node *lr = calloc(nch, sizeof(node)), *lc = calloc(nch * 15, sizeof(node));
    column *cols = calloc(nch * 15, sizeof(column));
    sparse_tree tr = {&p->tree, seed, 0x2000, {0}, {0}}, tc = {&p->tree, seed, 0x3000, {0}, {0}};
    if (!c1->ch || !c1->comm_r_last || !c1->comm_c || !c1->pool || !chal || !lr || !lc || !cols) {
        rc = cz_error(CZ_ENOMEM, "synthetic c1: out of memory");
        goto out;
    }
    for (unsigned k = 0; k < partitions; k++)
        cz_porep_interactive_challenges(chal + (size_t)k * C, C, C * k, c1->replica_id, c1->seed, nodes);
    /* the real graph of the proof's porep_id: DRG (ApiVersion >= 1.1) and expander parents */
    size_t nu = 0;
    for (size_t n = 0; n < nch; n++) {
        cz_porep_challenge *ch = &c1->ch[n];
        uint64_t x = chal[n], drg[6], exp[8];
        ch->challenge = ch->d_index = ch->r_index = ch->c_index = x;
        /* ch->data_leaf stays zero (calloc): the CC sector's data */
        cz_porep_drg_parents(drg, x, porep_id);
        cz_porep_exp_parents(exp, x, nodes, porep_id);
        for (int q = 0; q < 6; q++) ch->drg[q].index = drg[q];
        for (int q = 0; q < 8; q++) ch->exp[q].index = exp[q];
        cols[nu].idx = x, cols[nu++].challenged = true;
        for (int q = 0; q < 14; q++) cols[nu].idx = q < 6 ? drg[q] : exp[q - 6], cols[nu++].challenged = false;
    }
    /* one entry per node; a node both challenged and a parent is challenged */
    qsort(cols, nu, sizeof *cols, cmp_column);
    size_t m = 0;
    for (size_t i = 0; i < nu; i++) {
        if (m && cols[m - 1].idx == cols[i].idx) {
            cols[m - 1].challenged |= cols[i].challenged;
            continue;
        }
        cols[m++] = cols[i];
    }
    nu = m;
    /* Rows nobody checks (a parent's labels are only opened, never recomputed from its own parents:
     * neither the circuit nor the vanilla verifier looks further) are pseudo-random. The challenged
     * nodes' rows are the real labels of their parents' rows, computed layer by layer and, within a
     * layer, in increasing node order: DRG parents (same layer) have smaller indices and expander
     * parents are read one layer down, so a challenged parent is always ready when it is needed. */
    for (size_t i = 0; i < nu; i++)
        if (!cols[i].challenged)
            for (unsigned l = 0; l < L; l++) prf(&cols[i].rows[l], seed, 0x100, cols[i].idx, l);
    for (unsigned l = 1; l <= L; l++)
        for (size_t i = 0; i < nu; i++) {
            if (!cols[i].challenged) continue;
            uint64_t x = cols[i].idx, drg[6], exp[8];
            cz_porep_drg_parents(drg, x, porep_id);
            cz_porep_exp_parents(exp, x, nodes, porep_id);
            cz_fr par[14];
            for (int q = 0; q < 6; q++) par[q] = find_column(cols, nu, drg[q])->rows[l - 1];
            if (l > 1)
                for (int q = 0; q < 8; q++) par[6 + q] = find_column(cols, nu, exp[q])->rows[l - 2];
            cz_porep_label(&cols[i].rows[l - 1], c1->replica_id, l, x, par, l > 1 ? 14 : 6);
        }
    for (size_t n = 0; n < nch; n++) {
        cz_porep_challenge *ch = &c1->ch[n];
        for (int q = 0; q < 14; q++) {
            cz_porep_column *col = q < 6 ? &ch->drg[q] : &ch->exp[q - 6];
            memcpy(col->rows, find_column(cols, nu, col->index)->rows, sizeof col->rows);
        }
        const column *self = find_column(cols, nu, chal[n]);
        lr[n].idx = chal[n], cz_fr_add(&lr[n].v, &self->rows[L - 1], &ch->data_leaf);
    }
    for (size_t i = 0; i < nu; i++) lc[i].idx = cols[i].idx, cz_poseidon_hash(&lc[i].v, cols[i].rows, L);
    size_t nc = nu;
    if ((rc = tree_build(&tr, lr, nch)) || (rc = tree_build(&tc, lc, nc))) goto out;
    cz_fr comm_r_last, comm_c, comm_r, pre[2];
    tree_root(&tr, &comm_r_last), tree_root(&tc, &comm_c);
    pre[0] = comm_c, pre[1] = comm_r_last;
    cz_poseidon_hash(&comm_r, pre, 2);
    cz_fr_to_bytes_le(c1->comm_r, &comm_r);
    for (size_t n = 0; n < nch; n++) {
        cz_porep_challenge *ch = &c1->ch[n];
        cz_fr *q = c1->pool + n * stride;
        ch->comm_d_path = q, memcpy(q, zd, p->nodes_log2 * sizeof *q), q += p->nodes_log2;
        ch->comm_r_last_path = q, tree_path(&tr, ch->r_index, q), q += tl;
        ch->comm_c_path = q, tree_path(&tc, ch->c_index, q), q += tl;
        for (int k = 0; k < 14; k++) {
            cz_porep_column *col = k < 6 ? &ch->drg[k] : &ch->exp[k - 6];
            col->path = q, tree_path(&tc, col->index, q), q += tl;
        }
        c1->comm_r_last[n] = comm_r_last, c1->comm_c[n] = comm_c;
    }
out:
    tree_free(&tr), tree_free(&tc);
    free(chal), free(lr), free(lc), free(cols);
    if (rc) cz_c1_free(c1);
    return rc;
}

int cz_porep_witness_random(cz_porep_witness *w, cz_fr **pool, const cz_porep_params *p, uint64_t seed) {
    cz_rng rng;
    cz_rng_seed(&rng, seed);
    const unsigned tl = cz_tree_path_len(&p->tree);
    const size_t npath = (size_t)p->challenges * (p->nodes_log2 + 16 * tl);
    const uint64_t mask = (1ull << p->nodes_log2) - 1;
    memset(w, 0, sizeof *w);
    *pool = malloc(npath * sizeof(cz_fr));
    cz_porep_challenge *ch = calloc(p->challenges, sizeof *ch);
    if (!*pool || !ch) {
        free(*pool), free(ch);
        *pool = NULL;
        return cz_error(CZ_ENOMEM, "random witness: out of memory");
    }
    cz_fr *q = *pool;
    for (size_t i = 0; i < npath; i++) cz_fr_random(&q[i], &rng);
    for (unsigned i = 0; i < p->challenges; i++) {
        cz_porep_challenge *c = &ch[i];
        c->challenge = c->d_index = c->r_index = c->c_index = cz_rng_next(&rng) & mask;
        cz_fr_random(&c->data_leaf, &rng);
        c->comm_d_path = q, q += p->nodes_log2;
        c->comm_r_last_path = q, q += tl;
        c->comm_c_path = q, q += tl;
        for (int k = 0; k < 14; k++) {
            cz_porep_column *col = k < 6 ? &c->drg[k] : &c->exp[k - 6];
            col->index = cz_rng_next(&rng) & mask;
            for (unsigned l = 0; l < p->layers; l++) cz_fr_random(&col->rows[l], &rng);
            col->path = q, q += tl;
        }
    }
    w->ch = ch;
    cz_fr_random(&w->replica_id, &rng), cz_fr_random(&w->comm_d, &rng), cz_fr_random(&w->comm_r, &rng);
    cz_fr_random(&w->comm_r_last, &rng), cz_fr_random(&w->comm_c, &rng);
    return 0;
}
