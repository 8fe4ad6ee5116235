/* Merkle trees for vanilla proofs made here (tests, the bench, the daemon's synthetic jobs), and
 * synthetic PoSt vanilla proofs that the vanilla verifier and the circuit accept.
 *
 * A full tree holds every node (small sectors: real 2 KiB replicas, SnapDeals test sectors). A
 * synthetic PoSt sector needs no tree at all: only the nodes on the challenged paths are hashed,
 * every other node (leaves included) is a pseudo-random value derived from the seed and its
 * position, so the paths agree wherever they share nodes, at any sector size. */
#ifndef CZ_FILECOIN_POST_SYNTH_H
#define CZ_FILECOIN_POST_SYNTH_H

#include <stdbool.h>

#include "filecoin/post_vanilla.h"

/* Level l has n[l] nodes, of which per[l] are stored (nodes[off[l] .. off[l] + per[l])): node i is the stored
 * i mod per[l]. per = n for a tree built over all its leaves; a periodic one (leaves repeating with a period
 * that spans whole subtrees) stores one period a level, so a 32 GiB sector's tree costs what its period does. */
typedef struct {
    cz_tree_shape shape;
    cz_fr *nodes;                      /* the stored nodes of all levels, leaves first */
    uint64_t off[41], n[41], per[41];
} cz_full_tree;

/* Builds the tree of shape s over its leaves (count = product of the arities). Poseidon of the
 * level's arity, or Sha256Function::node for s->sha. 0, CZ_EINVAL or CZ_ENOMEM. */
int cz_full_tree_build(cz_full_tree *t, const cz_tree_shape *s, const cz_fr *leaves);
/* The tree of shape s whose leaf i is block[i mod period]: period must be the product of the first k arities for
 * some k (1: every leaf block[0]), so every subtree at level k is the same and the levels above hold one value
 * each. Any tree height; the period at most 2^34. 0, CZ_EINVAL or CZ_ENOMEM. */
int cz_full_tree_build_periodic(cz_full_tree *t, const cz_tree_shape *s, const cz_fr *block, uint64_t period);
static inline const cz_fr *cz_full_tree_node(const cz_full_tree *t, unsigned level, uint64_t i) {
    return &t->nodes[t->off[level] + i % t->per[level]];
}
static inline const cz_fr *cz_full_tree_root(const cz_full_tree *t) {
    return &t->nodes[t->off[t->shape.nlevels]];
}
/* The inclusion proof of leaf index (out->sib allocated, free with cz_merkle_proof_free). */
int cz_full_tree_proof(const cz_full_tree *t, uint64_t index, cz_merkle_proof *out);
void cz_full_tree_free(cz_full_tree *t);

/* A sparse tree: only the nodes above the given leaves are hashed (memoised), every other node
 * (leaves included) is SHA-256(seed, level, index) trimmed to a field element. */
typedef struct {
    cz_tree_shape shape;
    const uint64_t *hot; /* the opened leaves (the caller keeps them) */
    unsigned nhot;
    uint64_t seed;
    unsigned below[41], nmemo[41];
    uint64_t *memo_idx;
    cz_fr *memo_val;
} cz_sparse_tree;
int cz_sparse_tree_init(cz_sparse_tree *t, const cz_tree_shape *s, const uint64_t *leaves, unsigned n,
                        uint64_t seed);
/* The node at level (0 = leaves) and index. */
int cz_sparse_tree_node(cz_fr *out, cz_sparse_tree *t, unsigned level, uint64_t idx);
/* The inclusion proof of one of the opened leaves (out->sib allocated). */
int cz_sparse_tree_proof(cz_merkle_proof *out, cz_sparse_tree *t, uint64_t index);
void cz_sparse_tree_free(cz_sparse_tree *t);

/* The challenges one vanilla sector proof answers: Window p->challenges for sector_index, Winning
 * the 66 challenges of circuit sectors 0..65 (challenge index i). out holds that many. */
void cz_post_sector_challenges(uint64_t *out, const cz_post_params *p, bool v1_2,
                               const uint8_t randomness[32], uint64_t sector_id, uint64_t sector_index);

/* A vanilla sector proof from a full tree_r_last (comm_r = Poseidon2(comm_c, root)). */
int cz_post_sector_proof_from_tree(cz_post_sector_proof *out, const cz_post_params *p,
                                   const cz_full_tree *tree_r_last, const cz_fr *comm_c, uint64_t sector_id,
                                   const uint64_t *challenges);

/* A synthetic vanilla sector proof for p (any size) answering the real challenges of (randomness,
 * sector_id, sector_index), everything else derived from seed. 0, CZ_EINVAL or CZ_ENOMEM. */
int cz_post_synthetic_sector(cz_post_sector_proof *out, const cz_post_params *p, bool v1_2,
                             const uint8_t randomness[32], uint64_t sector_id, uint64_t sector_index,
                             uint64_t seed);

#endif
