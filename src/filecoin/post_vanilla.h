/* PoSt vanilla proofs as cuzk receives them: each vanilla_proofs[i] of a WindowPoSt / WinningPoSt
 * request is the bincode 1.x encoding of filecoin-proofs' FallbackPoStSectorProof (rust-filecoin-
 * proofs-api post.rs): sector_id u64, comm_r [32], vanilla_proof: Proof{ sectors: Vec<SectorProof{
 * inclusion_proofs: Vec<MerkleProof>, comm_c [32], comm_r_last [32]}> }. bincode: little-endian,
 * Vec lengths and usize as u64, enum tags u32, [u8; 32] raw (filecoin-circuits.md §3.2).
 *
 * MerkleProof (storage-proofs-core merkle/proof.rs) = enum ProofData: 0 Single{root, leaf, path},
 * 1 Sub{base_proof, sub_proof, root, leaf}, 2 Top{base_proof, sub_proof, top_proof, root, leaf};
 * a path = Vec<PathElement{hashes: Vec<[32]> (arity - 1), index: usize}>, leaf level first. The
 * bincode MerkleProof reader here is shared with the SnapDeals vanilla proofs. */
#ifndef CZ_FILECOIN_POST_VANILLA_H
#define CZ_FILECOIN_POST_VANILLA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "filecoin/post_circuit.h"

/* A bincode cursor; what names the message being read (for errors). */
typedef struct {
    const uint8_t *p;
    size_t len, off;
    const char *what;
} cz_bincode;

int cz_bincode_u64(cz_bincode *b, uint64_t *out, const char *field);
/* A 32-byte domain element as an Fr (CZ_ERANGE if >= r). */
int cz_bincode_fr(cz_bincode *b, cz_fr *out, const char *field);

/* Reads one MerkleProof whose tree has shape s, the last `extra` levels being the sub (1) and top
 * (2) trees (so the enum tag must be extra). Allocates out->sib (free with cz_merkle_proof_free).
 * 0, CZ_EFORMAT (truncated, wrong tag, wrong level count / sibling count, index >= arity),
 * CZ_ERANGE or CZ_ENOMEM; the message names field. */
int cz_bincode_merkle_proof(cz_bincode *b, cz_merkle_proof *out, const cz_tree_shape *s, unsigned extra,
                            const char *field);
void cz_merkle_proof_free(cz_merkle_proof *mp);

/* A growing bincode output buffer (start zeroed; err becomes CZ_ENOMEM on allocation failure, the
 * caller frees p). */
typedef struct {
    uint8_t *p;
    size_t len, cap;
    int err;
} cz_bincode_writer;
void cz_bincode_put_u64(cz_bincode_writer *w, uint64_t v);
void cz_bincode_put_fr(cz_bincode_writer *w, const cz_fr *x);
/* The inverse of cz_bincode_merkle_proof. */
void cz_bincode_put_merkle_proof(cz_bincode_writer *w, const cz_merkle_proof *mp, const cz_tree_shape *s,
                                 unsigned extra);
/* The proof verifies: the path from leaf at index hashes to root. 0 or CZ_EVERIFY. */
int cz_merkle_proof_verify(const cz_merkle_proof *mp, const cz_tree_shape *s);

/* One FallbackPoStSectorProof. */
typedef struct {
    uint64_t sector_id;
    cz_fr comm_r, comm_c, comm_r_last;
    unsigned nproofs; /* inclusion proofs: challenges (Window) or 66 (Winning) */
    cz_merkle_proof *proofs;
} cz_post_sector_proof;

/* Parses one bincode FallbackPoStSectorProof for p's sector size: exactly one SectorProof holding
 * p->challenges (Window) or p->sectors * p->challenges (Winning) inclusion proofs of p's tree shape,
 * no trailing bytes. 0, CZ_EFORMAT, CZ_ERANGE or CZ_ENOMEM, naming the field. */
int cz_post_sector_proof_parse(cz_post_sector_proof *out, const uint8_t *buf, size_t len,
                               const cz_post_params *p);
void cz_post_sector_proof_free(cz_post_sector_proof *sp);
/* Encodes sp back to bincode (for synthetic proofs and round trips); *out is malloc'd. */
int cz_post_sector_proof_encode(const cz_post_sector_proof *sp, const cz_post_params *p, uint8_t **out,
                                size_t *len);

/* The vanilla verifier (FallbackPoSt::verify) for one sector proof: comm_r = Poseidon2(comm_c,
 * comm_r_last of the first inclusion proof), every inclusion proof verifies under that root, and
 * inclusion proof j is at challenges[j] (the leaf challenges from cz_post_leaf_challenges; NULL to
 * skip). 0 or CZ_EVERIFY naming sector and challenge. */
int cz_post_sector_proof_verify(const cz_post_sector_proof *sp, const cz_post_params *p,
                                const uint64_t *challenges);

/* The circuit sectors of one partition (p->sectors entries, pointing into proofs):
 * Window: the given proofs in order (one per sector of the partition, 1..p->sectors), the last
 * repeated to fill the partition; Winning: exactly one proof whose inclusion proofs are unrolled into
 * one circuit sector each (single_partition_vanilla_proofs). 0 or CZ_EINVAL. */
int cz_post_partition_sectors(cz_post_sector *out, const cz_post_params *p,
                              const cz_post_sector_proof *proofs, unsigned nproofs);

/* cuzk-bench's --vanilla file (and Curio's ReadSnapVanillaProof JSON): a JSON array of standard
 * base64 strings, one proof each; any other content is taken as one raw bincode proof. *bufs is
 * one malloc'd array of *n (pointer, length) pairs whose data follows it (free(*bufs) releases
 * everything). 0, CZ_EFORMAT (an array element that is not base64) or CZ_ENOMEM. */
typedef struct {
    const uint8_t *p;
    size_t len;
} cz_vanilla_blob;
int cz_vanilla_list_parse(cz_vanilla_blob **bufs, unsigned *n, const uint8_t *text, size_t len);

#endif
