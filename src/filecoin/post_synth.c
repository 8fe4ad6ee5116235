/* Full and sparse Merkle trees, synthetic PoSt vanilla proofs; see post_synth.h. */
#include "filecoin/post_synth.h"

#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "filecoin/post_inputs.h"
#include "gadgets/sha256.h"

static unsigned lg(unsigned a) { return a == 2 ? 1 : a == 4 ? 2 : a == 8 ? 3 : 0; }

static int node_hash(cz_fr *out, const cz_tree_shape *s, unsigned arity, const cz_fr *c) {
    if (s->sha) {
        cz_sha256_node(out, &c[0], &c[1]);
        return 0;
    }
    return cz_poseidon_hash(out, c, arity);
}

int cz_full_tree_build_periodic(cz_full_tree *t, const cz_tree_shape *s, const cz_fr *block, uint64_t period) {
    memset(t, 0, sizeof *t);
    t->shape = *s;
    unsigned bits = 0;
    for (unsigned l = 0; l < s->nlevels; l++) {
        if (!lg(s->levels[l]) || (s->sha && s->levels[l] != 2)) return cz_error(CZ_EINVAL, "tree: bad arity");
        bits += lg(s->levels[l]);
    }
    if (bits > 62) return cz_error(CZ_EINVAL, "tree: 2^%u leaves", bits);
    /* the period: whole subtrees of some level k (1 leaf, 8, 64, ... for arity 8) */
    uint64_t span = 1;
    for (unsigned l = 0; l < s->nlevels && span < period; l++) span *= s->levels[l];
    if (!period || span != period) return cz_error(CZ_EINVAL, "tree: period %llu spans no whole subtrees",
                                                   (unsigned long long)period);
    if (period > 1ull << 34) return cz_error(CZ_EINVAL, "tree: a period of %llu leaves too large to build in memory",
                                             (unsigned long long)period);
    uint64_t total = 0, n = 1ull << bits, per = period;
    for (unsigned l = 0; l <= s->nlevels; l++) {
        t->off[l] = total, t->n[l] = n, t->per[l] = per, total += per;
        if (l < s->nlevels) n /= s->levels[l], per = per > 1 ? per / s->levels[l] : 1;
    }
    t->nodes = malloc(total * sizeof(cz_fr));
    if (!t->nodes) return cz_error(CZ_ENOMEM, "tree: out of memory");
    memcpy(t->nodes, block, period * sizeof(cz_fr));
    cz_fr c[8];
    for (unsigned l = 0; l < s->nlevels; l++) {
        const unsigned a = s->levels[l];
        for (uint64_t i = 0; i < t->per[l + 1]; i++) {
            for (unsigned j = 0; j < a; j++) c[j] = *cz_full_tree_node(t, l, i * a + j);
            int rc = node_hash(&t->nodes[t->off[l + 1] + i], s, a, c);
            if (rc) {
                cz_full_tree_free(t);
                return rc;
            }
        }
    }
    return 0;
}

/* the whole tree: a period of all its leaves (the periodic build checks the shape and the size) */
int cz_full_tree_build(cz_full_tree *t, const cz_tree_shape *s, const cz_fr *leaves) {
    uint64_t n = 1;
    for (unsigned l = 0; l < s->nlevels && n <= 1ull << 34; l++) n *= s->levels[l]; /* past 2^34: refused */
    return cz_full_tree_build_periodic(t, s, leaves, n);
}

int cz_full_tree_proof(const cz_full_tree *t, uint64_t index, cz_merkle_proof *out) {
    const cz_tree_shape *s = &t->shape;
    if (index >= t->n[0])
        return cz_error(CZ_EINVAL, "tree: leaf %llu out of range", (unsigned long long)index);
    memset(out, 0, sizeof *out);
    out->nsib = cz_tree_path_len(s);
    out->sib = malloc(out->nsib * sizeof(cz_fr));
    if (!out->sib) return cz_error(CZ_ENOMEM, "tree: out of memory");
    out->index = index;
    out->leaf = *cz_full_tree_node(t, 0, index);
    out->root = *cz_full_tree_root(t);
    cz_fr *sib = out->sib;
    uint64_t idx = index;
    for (unsigned l = 0; l < s->nlevels; l++) {
        unsigned a = s->levels[l];
        uint64_t first = idx / a * a;
        for (unsigned j = 0; j < a; j++)
            if (first + j != idx) *sib++ = *cz_full_tree_node(t, l, first + j);
        idx /= a;
    }
    return 0;
}

void cz_full_tree_free(cz_full_tree *t) {
    free(t->nodes);
    t->nodes = NULL;
}

void cz_post_sector_challenges(uint64_t *out, const cz_post_params *p, bool v1_2,
                               const uint8_t randomness[32], uint64_t sector_id, uint64_t sector_index) {
    if (p->kind == CZ_POST_WINDOW) {
        cz_post_leaf_challenges(out, p, v1_2, randomness, sector_id, sector_index);
        return;
    }
    for (unsigned i = 0; i < p->sectors; i++)
        cz_post_leaf_challenges(out + (uint64_t)i * p->challenges, p, v1_2, randomness, sector_id, i);
}

static unsigned proof_count(const cz_post_params *p) {
    return p->kind == CZ_POST_WINNING ? p->sectors * p->challenges : p->challenges;
}

int cz_post_sector_proof_from_tree(cz_post_sector_proof *out, const cz_post_params *p,
                                   const cz_full_tree *tree_r_last, const cz_fr *comm_c, uint64_t sector_id,
                                   const uint64_t *challenges) {
    memset(out, 0, sizeof *out);
    unsigned n = proof_count(p);
    out->sector_id = sector_id;
    out->comm_c = *comm_c;
    out->comm_r_last = *cz_full_tree_root(tree_r_last);
    cz_fr pre[2] = {*comm_c, out->comm_r_last};
    cz_poseidon_hash(&out->comm_r, pre, 2);
    out->proofs = calloc(n, sizeof *out->proofs);
    if (!out->proofs) return cz_error(CZ_ENOMEM, "post: out of memory");
    out->nproofs = n;
    for (unsigned j = 0; j < n; j++) {
        int rc = cz_full_tree_proof(tree_r_last, challenges[j], &out->proofs[j]);
        if (rc) {
            cz_post_sector_proof_free(out);
            return rc;
        }
    }
    return 0;
}

/* ---- sparse tree ---- */

static void prng_node(cz_fr *out, uint64_t seed, unsigned l, uint64_t idx) {
    uint8_t msg[24], h[32];
    for (int i = 0; i < 8; i++)
        msg[i] = (uint8_t)(seed >> (8 * i)), msg[8 + i] = (uint8_t)((uint64_t)l >> (8 * i)),
        msg[16 + i] = (uint8_t)(idx >> (8 * i));
    cz_sha256_bytes(h, msg, sizeof msg);
    h[31] &= 0x3f;
    cz_fr_from_bytes_le(out, h);
}

int cz_sparse_tree_init(cz_sparse_tree *t, const cz_tree_shape *s, const uint64_t *leaves, unsigned n,
                        uint64_t seed) {
    memset(t, 0, sizeof *t);
    t->shape = *s, t->hot = leaves, t->nhot = n, t->seed = seed;
    for (unsigned l = 0; l < s->nlevels; l++) {
        if (!lg(s->levels[l]) || (s->sha && s->levels[l] != 2))
            return cz_error(CZ_EINVAL, "sparse tree: bad arity");
        t->below[l + 1] = t->below[l] + lg(s->levels[l]);
    }
    t->memo_idx = malloc((s->nlevels + 1) * (uint64_t)(n ? n : 1) * sizeof(uint64_t));
    t->memo_val = malloc((s->nlevels + 1) * (uint64_t)(n ? n : 1) * sizeof(cz_fr));
    if (!t->memo_idx || !t->memo_val) {
        cz_sparse_tree_free(t);
        return cz_error(CZ_ENOMEM, "sparse tree: out of memory");
    }
    return 0;
}

void cz_sparse_tree_free(cz_sparse_tree *t) {
    free(t->memo_idx), free(t->memo_val);
    t->memo_idx = NULL, t->memo_val = NULL;
}

int cz_sparse_tree_node(cz_fr *out, cz_sparse_tree *t, unsigned l, uint64_t idx) {
    if (l > t->shape.nlevels) return cz_error(CZ_EINVAL, "sparse tree: level %u", l);
    bool hot = false;
    for (unsigned i = 0; i < t->nhot && !hot; i++) hot = (t->hot[i] >> t->below[l]) == idx;
    if (l == 0 || !hot) {
        prng_node(out, t->seed, l, idx);
        return 0;
    }
    uint64_t *hi = t->memo_idx + (uint64_t)l * t->nhot;
    cz_fr *hv = t->memo_val + (uint64_t)l * t->nhot;
    for (unsigned i = 0; i < t->nmemo[l]; i++)
        if (hi[i] == idx) {
            *out = hv[i];
            return 0;
        }
    unsigned a = t->shape.levels[l - 1];
    cz_fr c[8];
    for (unsigned j = 0; j < a; j++) {
        int rc = cz_sparse_tree_node(&c[j], t, l - 1, idx * a + j);
        if (rc) return rc;
    }
    int rc = node_hash(out, &t->shape, a, c);
    if (!rc && t->nmemo[l] < t->nhot) hi[t->nmemo[l]] = idx, hv[t->nmemo[l]++] = *out;
    return rc;
}

int cz_sparse_tree_proof(cz_merkle_proof *out, cz_sparse_tree *t, uint64_t index) {
    const cz_tree_shape *s = &t->shape;
    memset(out, 0, sizeof *out);
    out->nsib = cz_tree_path_len(s);
    if (!(out->sib = malloc(out->nsib * sizeof(cz_fr))))
        return cz_error(CZ_ENOMEM, "sparse tree: out of memory");
    out->index = index;
    int rc = cz_sparse_tree_node(&out->leaf, t, 0, index);
    if (!rc) rc = cz_sparse_tree_node(&out->root, t, s->nlevels, 0);
    cz_fr *sib = out->sib;
    for (unsigned l = 0; l < s->nlevels && !rc; l++) {
        unsigned a = s->levels[l];
        uint64_t idx = index >> t->below[l], first = idx / a * a;
        for (unsigned k = 0; k < a && !rc; k++)
            if (first + k != idx) rc = cz_sparse_tree_node(sib++, t, l, first + k);
    }
    if (rc) cz_merkle_proof_free(out);
    return rc;
}

int cz_post_synthetic_sector(cz_post_sector_proof *out, const cz_post_params *p, bool v1_2,
                             const uint8_t randomness[32], uint64_t sector_id, uint64_t sector_index,
                             uint64_t seed) {
    memset(out, 0, sizeof *out);
    unsigned n = proof_count(p);
    uint64_t *ch = malloc(n * sizeof(uint64_t));
    out->proofs = calloc(n, sizeof *out->proofs);
    if (!ch || !out->proofs) {
        free(ch), free(out->proofs), out->proofs = NULL;
        return cz_error(CZ_ENOMEM, "post synth: out of memory");
    }
    out->nproofs = n;
    out->sector_id = sector_id;
    cz_post_sector_challenges(ch, p, v1_2, randomness, sector_id, sector_index);
    cz_sparse_tree t;
    int rc = cz_sparse_tree_init(&t, &p->tree, ch, n, seed ^ (sector_id * 0x9e3779b97f4a7c15ull));
    if (!rc) rc = cz_sparse_tree_node(&out->comm_r_last, &t, p->tree.nlevels, 0);
    prng_node(&out->comm_c, t.seed, 99, 0);
    cz_fr pre[2] = {out->comm_c, out->comm_r_last};
    if (!rc) rc = cz_poseidon_hash(&out->comm_r, pre, 2);
    for (unsigned j = 0; j < n && !rc; j++) rc = cz_sparse_tree_proof(&out->proofs[j], &t, ch[j]);
    free(ch);
    cz_sparse_tree_free(&t);
    if (rc) cz_post_sector_proof_free(out);
    return rc;
}
