/* A real C1 of a small sector sealed in memory; see synth.h (cz_porep_sealed_c1). Unlike the
 * sparse generator in synth.c, every label and every tree node is computed: the synthetic and
 * non-interactive challenges are derived from comm_r, which commits to every node, so the opened
 * nodes cannot be chosen before the whole replica exists. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "filecoin/graph.h"
#include "filecoin/porep_inputs.h"
#include "filecoin/sector.h"
#include "filecoin/synth.h"
#include "filecoin/vanilla.h"
#include "gadgets/sha256.h"
#include "util/rng.h"

/* A full tree: lv[0] = leaves, lv[nlevels] = the root. */
typedef struct {
    const cz_tree_shape *s;
    cz_fr *lv[41];
} full_tree;

static int tree_build(full_tree *t, const cz_tree_shape *s, cz_fr *leaves, uint64_t n) {
    t->s = s;
    t->lv[0] = leaves;
    for (unsigned l = 0; l < s->nlevels; l++) {
        unsigned ar = s->levels[l];
        n /= ar;
        if (!(t->lv[l + 1] = malloc(n * sizeof(cz_fr)))) return cz_error(CZ_ENOMEM, "sealed c1: out of memory");
        for (uint64_t g = 0; g < n; g++) {
            if (s->sha) cz_sha256_node(&t->lv[l + 1][g], &t->lv[l][2 * g], &t->lv[l][2 * g + 1]);
            else cz_poseidon_hash(&t->lv[l + 1][g], &t->lv[l][g * ar], ar);
        }
    }
    return n == 1 ? 0 : cz_error(CZ_EINVAL, "sealed c1: the tree shape does not cover the sector");
}

static void tree_free(full_tree *t) {
    if (t->s)
        for (unsigned l = 1; l <= t->s->nlevels; l++) free(t->lv[l]);
}

/* Siblings of leaf idx, level by level, in the order of the level's children minus the node itself. */
static cz_fr *tree_path(const full_tree *t, uint64_t idx, cz_fr *sib) {
    for (unsigned l = 0; l < t->s->nlevels; l++) {
        unsigned ar = t->s->levels[l];
        uint64_t g = idx / ar;
        for (unsigned c = 0; c < ar; c++)
            if (g * ar + c != idx) *sib++ = t->lv[l][g * ar + c];
        idx = g;
    }
    return sib;
}

/* Labels of every node, layer by layer (create_label / create_label_exp): node 0 hashes only
 * replica_id ‖ layer ‖ node; the others their 6 DRG parents in the layer and, from layer 2 on, their
 * 8 expander parents in the layer below. */
static void label_all(cz_fr *lab, unsigned L, uint64_t nodes, const uint8_t replica_id[32],
                      const uint8_t porep_id[32]) {
    for (unsigned l = 1; l <= L; l++) {
        cz_fr *cur = lab + (size_t)(l - 1) * nodes, *below = l > 1 ? cur - nodes : NULL;
        uint8_t b0[64] = {0}, h[32];
        memcpy(b0, replica_id, 32);
        for (int i = 0; i < 4; i++) b0[32 + i] = (uint8_t)(l >> (24 - 8 * i));
        cz_sha256_bytes(h, b0, sizeof b0);
        h[31] &= 0x3f;
        cz_fr_from_bytes_le(&cur[0], h);
        for (uint64_t x = 1; x < nodes; x++) {
            uint64_t drg[6], exp[8];
            cz_fr par[14];
            cz_porep_drg_parents(drg, x, porep_id);
            for (int q = 0; q < 6; q++) par[q] = cur[drg[q]];
            if (below) {
                cz_porep_exp_parents(exp, x, nodes, porep_id);
                for (int q = 0; q < 8; q++) par[6 + q] = below[exp[q]];
            }
            cz_porep_label(&cur[x], replica_id, l, x, par, below ? 14 : 6);
        }
    }
}

int cz_porep_sealed_c1(cz_c1 *c1, unsigned proof_id, uint64_t seed, uint64_t miner_id, uint64_t sector_number) {
    memset(c1, 0, sizeof *c1);
    if (proof_id >= 20 || proof_id < 5 || proof_id % 5 > 1)
        return cz_error(CZ_EINVAL, "sealed c1: proof id %u (2 KiB or 8 MiB, API 1.1 or later)", proof_id);
    cz_porep_params *p = &c1->params;
    int rc = cz_porep_params_for(p, cz_sector_sizes[proof_id % 5]);
    if (rc) return rc;
    cz_porep_kind kind = cz_porep_kind_of(proof_id);
    c1->proof_id = proof_id;
    cz_seal_proof_name(c1->registered_proof, sizeof c1->registered_proof, proof_id);
    uint64_t nodes = 1ull << p->nodes_log2;
    unsigned L = p->layers, C = p->challenges, tl = cz_tree_path_len(&p->tree);
    cz_rng rng;
    cz_rng_seed(&rng, seed);
    uint8_t prover_id[32], porep_id[32], b[32];
    cz_porep_prover_id(prover_id, miner_id);
    cz_rng_bytes(&rng, c1->ticket, 32);
    cz_rng_bytes(&rng, c1->seed, 32);
    cz_porep_id(porep_id, proof_id);
    full_tree td = {0}, tc = {0}, tr = {0};
    cz_fr *data = malloc(nodes * sizeof(cz_fr)), *lab = malloc((size_t)L * nodes * sizeof(cz_fr));
    cz_fr *colh = malloc(nodes * sizeof(cz_fr)), *enc = malloc(nodes * sizeof(cz_fr));
    if (!data || !lab || !colh || !enc) {
        rc = cz_error(CZ_ENOMEM, "sealed c1: out of memory");
        goto out;
    }
    for (uint64_t x = 0; x < nodes; x++) { /* unsealed data: Fr32-padded random bytes */
        cz_rng_bytes(&rng, b, 32);
        b[31] &= 0x3f;
        cz_fr_from_bytes_le(&data[x], b);
    }
    if ((rc = tree_build(&td, &p->tree_d, data, nodes))) goto out;
    cz_fr_to_bytes_le(c1->comm_d, td.lv[p->tree_d.nlevels]);
    cz_porep_replica_id(c1->replica_id, prover_id, sector_number, c1->ticket, c1->comm_d, porep_id);
    label_all(lab, L, nodes, c1->replica_id, porep_id);
    for (uint64_t x = 0; x < nodes; x++) {
        cz_fr rows[CZ_POREP_MAX_LAYERS];
        for (unsigned l = 0; l < L; l++) rows[l] = lab[(size_t)l * nodes + x];
        cz_poseidon_hash(&colh[x], rows, L);
        cz_fr_add(&enc[x], &rows[L - 1], &data[x]);
    }
    if ((rc = tree_build(&tc, &p->tree, colh, nodes)) || (rc = tree_build(&tr, &p->tree, enc, nodes))) goto out;
    const cz_fr *comm_c = tc.lv[p->tree.nlevels], *comm_r_last = tr.lv[p->tree.nlevels];
    cz_fr pre[2] = {*comm_c, *comm_r_last}, comm_r;
    cz_poseidon_hash(&comm_r, pre, 2);
    cz_fr_to_bytes_le(c1->comm_r, &comm_r);
    c1->partitions = cz_porep_kind_partitions(p, kind), c1->challenges = C;
    size_t nch = (size_t)c1->partitions * C, stride = p->nodes_log2 + 16 * (size_t)tl;
    c1->ch = calloc(nch, sizeof *c1->ch);
    c1->comm_r_last = calloc(nch, sizeof(cz_fr));
    c1->comm_c = calloc(nch, sizeof(cz_fr));
    c1->pool = calloc(nch * stride, sizeof(cz_fr));
    if (!c1->ch || !c1->comm_r_last || !c1->comm_c || !c1->pool) {
        rc = cz_error(CZ_ENOMEM, "sealed c1: out of memory");
        goto out;
    }
    for (unsigned k = 0; k < c1->partitions; k++) {
        uint64_t chal[CZ_POREP_MAX_CHALLENGES];
        cz_porep_partition_challenges(chal, kind, C, k, nodes, c1->replica_id, c1->comm_r, c1->seed);
        for (unsigned i = 0; i < C; i++) {
            size_t n = (size_t)k * C + i;
            cz_porep_challenge *ch = &c1->ch[n];
            uint64_t x = chal[i], drg[6], exp[8];
            cz_fr *q = c1->pool + n * stride;
            ch->challenge = ch->d_index = ch->r_index = ch->c_index = x;
            ch->data_leaf = data[x];
            ch->comm_d_path = q, q = tree_path(&td, x, q);
            ch->comm_r_last_path = q, q = tree_path(&tr, x, q);
            ch->comm_c_path = q, q = tree_path(&tc, x, q);
            cz_porep_drg_parents(drg, x, porep_id);
            cz_porep_exp_parents(exp, x, nodes, porep_id);
            for (int j = 0; j < 14; j++) {
                cz_porep_column *col = j < 6 ? &ch->drg[j] : &ch->exp[j - 6];
                col->index = j < 6 ? drg[j] : exp[j - 6];
                for (unsigned l = 0; l < L; l++) col->rows[l] = lab[(size_t)l * nodes + col->index];
                col->path = q, q = tree_path(&tc, col->index, q);
            }
            c1->comm_r_last[n] = *comm_r_last, c1->comm_c[n] = *comm_c;
        }
    }
out:
    tree_free(&td), tree_free(&tc), tree_free(&tr);
    free(data), free(lab), free(colh), free(enc);
    if (rc) cz_c1_free(c1);
    return rc;
}
