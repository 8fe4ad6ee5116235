/* A sealed sector on disk, for PoSt vanilla proofs made from it (cuzk-bench gen-vanilla --sealed --cache): the
 * replica (the sealed file, whose 32-byte nodes are tree_r_last's leaves) and its cache directory as
 * rust-fil-proofs leaves it:
 *   p_aux                              comm_c then comm_r_last (32 bytes each, little-endian)
 *   sc-02-data-tree-r-last.dat         the top rows of tree_r_last (sectors of one tree: 2 KiB .. 512 MiB)
 *   sc-02-data-tree-r-last-K.dat       the top rows of subtree K (32 GiB: 8 subtrees, 64 GiB: 16)
 * A .dat file holds a subtree's rows from some level up to its root, level by level, root last (merkletree's
 * LevelCacheStore: the rows below were discarded and are rebuilt from the replica); which level it starts at
 * follows from its size. A proof rebuilds the discarded rows above its leaf from the replica, checks that they
 * hash to the stored node, takes the rest of the path from the file, and checks the whole path against
 * p_aux's comm_r_last. Without a .dat file the subtree's rows are computed from the replica (every node above
 * the leaves: minutes at 32 GiB). */
#ifndef CZ_FILECOIN_REPLICA_H
#define CZ_FILECOIN_REPLICA_H

#include <stdint.h>

#include "filecoin/post_vanilla.h"

typedef struct {
    cz_fr *rows;          /* the stored rows, level `first` first, the subtree's root last */
    unsigned first;       /* the lowest stored level (0 = leaves; never, they are the replica) */
    uint64_t off[41];     /* where level l (>= first) starts in rows */
    uint64_t n_stored;
    int from_file;        /* 1: read from its .dat file; 0: computed from the replica */
} cz_replica_subtree;

typedef struct {
    cz_post_params p;
    const uint8_t *rep;   /* the replica, mapped read-only */
    uint64_t rep_len;
    cz_fr comm_c, comm_r_last, comm_r;
    unsigned base;        /* levels inside one subtree (p.tree.nlevels - p.tree_extra) */
    uint64_t sub_leaves;  /* leaves of one subtree */
    unsigned nsub;        /* subtrees: 1, 8 or 16 */
    cz_replica_subtree *sub;
    cz_fr *sub_roots;     /* nsub roots, then the levels above them up to comm_r_last */
    char sealed[512], cache[512];
} cz_replica;

/* Opens the sealed sector of p's size: maps the replica (its size must be p's sector size), reads p_aux and each
 * subtree's .dat file (or computes its rows when there is none; nthreads <= 0: OpenMP's default), and checks that
 * the subtree roots hash to p_aux's comm_r_last. comm_r_want (NULL: not checked) must equal
 * Poseidon2(comm_c, comm_r_last). 0, or CZ_EIO (a file missing or unreadable), CZ_EFORMAT (a file of the wrong
 * size or layout), CZ_ERANGE (a node not in the field), CZ_EVERIFY (roots or comm_r disagree: names which), CZ_ENOMEM;
 * each message names the file. */
int cz_replica_open(cz_replica *r, const cz_post_params *p, const char *sealed, const char *cache_dir,
                    const cz_fr *comm_r_want, int nthreads);
/* The inclusion proof of leaf `index` of tree_r_last (out->sib allocated): the rows above it rebuilt from the
 * replica must hash to the stored node (CZ_EVERIFY naming the .dat file and the node when not), and the whole path
 * must verify against comm_r_last. */
int cz_replica_leaf_proof(cz_replica *r, uint64_t index, cz_merkle_proof *out);
/* A vanilla sector proof (FallbackPoStSectorProof) of this sector answering challenges (p.challenges for Window,
 * p.sectors * p.challenges for Winning; cz_post_sector_challenges). */
int cz_replica_post_proof(cz_post_sector_proof *out, cz_replica *r, uint64_t sector_id, const uint64_t *challenges);
void cz_replica_close(cz_replica *r);

#endif
