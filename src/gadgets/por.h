/* Merkle inclusion as storage-proofs-core builds it (gadgets/por.rs, insertion.rs) and the tree
 * node hashes it uses: Poseidon trees (arity 2 / 4 / 8 levels, Filecoin's LC trees) and the binary
 * SHA-256 tree_d (filecoin-hashers Sha256Function::hash_multi_leaf_circuit).
 *
 * Per level: log2(arity) AllocatedBits of the index (LSB first), arity-1 sibling nums, insertion,
 * node hash; at the end pack_into_inputs(all index bits) (one public input) and
 * computed_root * ONE = root. Because every arity is a power of two, the concatenated level digits
 * are simply the bits of the leaf index. */
#ifndef CZ_GADGETS_POR_H
#define CZ_GADGETS_POR_H

#include "gadgets/poseidon.h"

/* insertion::insert for arity 2, 4, 8: out[arity] = siblings with cur placed at position bits. */
int cz_insert(cz_cs *cs, cz_num *out, const cz_num *cur, const cz_bool *bits, const cz_num *siblings, unsigned arity);

/* Sha256Function::hash_multi_leaf_circuit for two children: to_bits_le each, bytes bit-reversed,
 * SHA-256 of the 512 bits, output bytes bit-reversed, first 254 bits packed into a num. */
int cz_sha256_node_circuit(cz_cs *cs, cz_num *out, const cz_num children[2]);
/* Vanilla: SHA256(left_le32 || right_le32) with byte 31 &= 0x3f, as an Fr. */
void cz_sha256_node(cz_fr *out, const cz_fr *left, const cz_fr *right);

/* A tree shape: levels[i] = arity of level i from the leaves (2, 4 or 8); sha = SHA-256 binary
 * tree (tree_d) instead of Poseidon. */
typedef struct {
    unsigned nlevels;
    uint8_t levels[40];
    bool sha;
} cz_tree_shape;

/* Number of sibling values a path of this shape carries (sum of arity - 1). */
unsigned cz_tree_path_len(const cz_tree_shape *s);

/* PoRCircuit::synthesize with existing leaf and root nums (private root, index bits packed into
 * one input). siblings: cz_tree_path_len values, level by level (NULL outside witness mode).
 * 0 or the cs's sticky error / CZ_EINVAL. */
int cz_por_circuit(cz_cs *cs, const cz_tree_shape *s, const cz_num *leaf, const cz_num *root, uint64_t index,
                   const cz_fr *siblings);

/* Vanilla root from leaf, index and siblings (for tests and synthetic proofs). */
int cz_por_root(cz_fr *root, const cz_tree_shape *s, const cz_fr *leaf, uint64_t index, const cz_fr *siblings);

#endif
