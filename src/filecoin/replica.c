/* A sealed sector on disk: tree_r_last paths from its replica and cache directory; see replica.h. */
#include "filecoin/replica.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "cz_error.h"
#include "filecoin/post_synth.h"
#include "gadgets/poseidon.h"
#include "util/file.h"

/* Nodes of level l of one subtree (0 = its leaves). */
static uint64_t level_nodes(const cz_replica *r, unsigned l) {
    uint64_t n = r->sub_leaves;
    for (unsigned k = 0; k < l; k++) n /= r->p.tree.levels[k];
    return n;
}

static void dat_path(const cz_replica *r, unsigned k, char *out, size_t cap) {
    if (r->nsub == 1) snprintf(out, cap, "%s/sc-02-data-tree-r-last.dat", r->cache);
    else snprintf(out, cap, "%s/sc-02-data-tree-r-last-%u.dat", r->cache, k);
}

/* Leaf i of the whole tree, from the replica. */
static int leaf(const cz_replica *r, uint64_t i, cz_fr *out) {
    if (cz_fr_from_bytes_le(out, r->rep + 32 * i))
        return cz_error(CZ_ERANGE, "%s: node %llu is not a field element (not a sealed replica?)", r->sealed,
                        (unsigned long long)i);
    return 0;
}

/* Hashes level l (stored at in, n nodes) into level l + 1 (out), on OpenMP threads (nthreads <= 0: its default). */
static int hash_level(const cz_replica *r, unsigned l, const cz_fr *in, cz_fr *out, uint64_t n, int nthreads) {
    const unsigned a = r->p.tree.levels[l];
    int bad = 0;
#ifdef _OPENMP
    const int nt = nthreads > 0 ? nthreads : omp_get_max_threads();
#else
    (void)nthreads;
#endif
#pragma omp parallel for schedule(static) num_threads(nt) if (n >= 4096)
    for (uint64_t i = 0; i < n / a; i++)
        if (cz_poseidon_hash(&out[i], &in[i * a], a)) bad = 1;
    return bad ? cz_error(CZ_EINVAL, "tree_r_last: arity %u at level %u", a, l) : 0;
}

/* The subtree's rows from level `first` up: offsets and count. */
static void layout(const cz_replica *r, cz_replica_subtree *s, unsigned first) {
    s->first = first;
    uint64_t n = 0;
    for (unsigned l = first; l <= r->base; l++) s->off[l] = n, n += level_nodes(r, l);
    s->n_stored = n;
}

/* Subtree k's rows computed from the replica: every level above the leaves. */
static int sub_compute(cz_replica *r, unsigned k, int nthreads) {
    cz_replica_subtree *s = &r->sub[k];
    layout(r, s, 1);
    s->rows = malloc(s->n_stored * sizeof(cz_fr));
    const uint64_t nl = r->sub_leaves, chunk = (uint64_t)1 << 16;
    cz_fr *buf = s->rows ? malloc(chunk * sizeof(cz_fr)) : NULL;
    if (!buf) return cz_error(CZ_ENOMEM, "tree_r_last: out of memory for subtree %u's %llu nodes", k,
                              (unsigned long long)s->n_stored);
    int rc = 0;
    const unsigned a0 = r->p.tree.levels[0];
    for (uint64_t c = 0; !rc && c < nl; c += chunk) { /* the leaves through a chunk buffer, hashed into level 1 */
        uint64_t m = nl - c < chunk ? nl - c : chunk;
        for (uint64_t i = 0; !rc && i < m; i++) rc = leaf(r, (uint64_t)k * nl + c + i, &buf[i]);
        if (!rc) rc = hash_level(r, 0, buf, &s->rows[s->off[1] + c / a0], m, nthreads);
    }
    free(buf);
    for (unsigned l = 1; !rc && l < r->base; l++)
        rc = hash_level(r, l, &s->rows[s->off[l]], &s->rows[s->off[l + 1]], level_nodes(r, l), nthreads);
    s->from_file = 0;
    return rc;
}

/* Subtree k's rows from its .dat file: its size says where they start; each stored row must hash to the next. */
static int sub_read(cz_replica *r, unsigned k, const char *path, int nthreads) {
    cz_replica_subtree *s = &r->sub[k];
    char *buf = NULL;
    size_t len = 0;
    int rc = cz_file_read(path, (size_t)1 << 36, &buf, &len);
    if (rc) return rc;
    unsigned first = r->base + 1;
    for (unsigned f = 0; f <= r->base; f++) {
        uint64_t n = 0;
        for (unsigned l = f; l <= r->base; l++) n += level_nodes(r, l);
        if (n * 32 == len) {
            first = f;
            break;
        }
    }
    if (first > r->base) {
        free(buf);
        return cz_error(CZ_EFORMAT, "%s: %zu bytes is no tree-r-last layout of a %llu-leaf subtree (its rows from some "
                        "level up to the root: %llu bytes for the root alone, %llu with the level below)", path, len,
                        (unsigned long long)r->sub_leaves, 32ull, 32ull * (1 + level_nodes(r, r->base - 1)));
    }
    layout(r, s, first);
    s->rows = malloc(s->n_stored * sizeof(cz_fr));
    if (!s->rows) {
        free(buf);
        return cz_error(CZ_ENOMEM, "%s: out of memory", path);
    }
    for (uint64_t i = 0; i < s->n_stored; i++)
        if (cz_fr_from_bytes_le(&s->rows[i], (const uint8_t *)buf + 32 * i)) {
            free(buf);
            return cz_error(CZ_ERANGE, "%s: node %llu is not a field element", path, (unsigned long long)i);
        }
    free(buf);
    s->from_file = 1;
    /* the stored rows hash to one another (a damaged file fails here, not in a proof) */
    for (unsigned l = first; l < r->base; l++) {
        const uint64_t n = level_nodes(r, l + 1);
        cz_fr *up = malloc(n * sizeof(cz_fr));
        if (!up) return cz_error(CZ_ENOMEM, "%s: out of memory", path);
        rc = hash_level(r, l, &s->rows[s->off[l]], up, level_nodes(r, l), nthreads);
        for (uint64_t i = 0; !rc && i < n; i++)
            if (!cz_fr_equal(&up[i], &s->rows[s->off[l + 1] + i]))
                rc = cz_error(CZ_EVERIFY, "%s: node %llu of level %u is not the hash of the level below it (a damaged "
                              "file?)", path, (unsigned long long)i, l + 1);
        free(up);
        if (rc) return rc;
    }
    return 0;
}

int cz_replica_open(cz_replica *r, const cz_post_params *p, const char *sealed, const char *cache_dir,
                    const cz_fr *comm_r_want, int nthreads) {
    memset(r, 0, sizeof *r);
    r->p = *p;
    snprintf(r->sealed, sizeof r->sealed, "%s", sealed);
    snprintf(r->cache, sizeof r->cache, "%s", cache_dir);
    r->base = p->tree.nlevels - p->tree_extra;
    r->nsub = 1;
    for (unsigned l = r->base; l < p->tree.nlevels; l++) r->nsub *= p->tree.levels[l];
    r->sub_leaves = p->sector_size / 32 / r->nsub;
    /* p_aux: comm_c, comm_r_last */
    char path[600], *aux = NULL;
    size_t alen = 0;
    snprintf(path, sizeof path, "%s/p_aux", cache_dir);
    int rc = cz_file_read(path, 4096, &aux, &alen);
    if (rc) return rc;
    if (alen != 64) rc = cz_error(CZ_EFORMAT, "%s: %zu bytes, not 64 (comm_c, comm_r_last)", path, alen);
    else if (cz_fr_from_bytes_le(&r->comm_c, (uint8_t *)aux) ||
             cz_fr_from_bytes_le(&r->comm_r_last, (uint8_t *)aux + 32))
        rc = cz_error(CZ_ERANGE, "%s: comm_c or comm_r_last is not a field element", path);
    free(aux);
    if (rc) return rc;
    cz_fr pre[2] = {r->comm_c, r->comm_r_last};
    cz_poseidon_hash(&r->comm_r, pre, 2);
    if (comm_r_want && !cz_fr_equal(comm_r_want, &r->comm_r))
        return cz_error(CZ_EVERIFY, "%s: Poseidon(comm_c, comm_r_last) is not the sector's comm_r (another sector's "
                        "cache?)", path);
    /* the replica */
    int fd = open(sealed, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return cz_error(CZ_EIO, "%s: %s", sealed, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (uint64_t)st.st_size != p->sector_size) {
        close(fd);
        return cz_error(CZ_EFORMAT, "%s: %lld bytes, not a %llu-byte sealed sector", sealed, (long long)st.st_size,
                        (unsigned long long)p->sector_size);
    }
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (m == MAP_FAILED) return cz_error(CZ_EIO, "%s: mmap: %s", sealed, strerror(errno));
    r->rep = m, r->rep_len = (uint64_t)st.st_size;
    r->sub = calloc(r->nsub, sizeof *r->sub);
    if (!r->sub) rc = cz_error(CZ_ENOMEM, "out of memory");
    for (unsigned k = 0; !rc && k < r->nsub; k++) {
        dat_path(r, k, path, sizeof path);
        rc = access(path, F_OK) == 0 ? sub_read(r, k, path, nthreads) : sub_compute(r, k, nthreads);
    }
    /* the subtree roots and the levels above them (sub, top) up to comm_r_last */
    if (!rc) {
        cz_fr *roots = malloc(r->nsub * sizeof(cz_fr));
        if (!roots) rc = cz_error(CZ_ENOMEM, "out of memory");
        for (unsigned k = 0; roots && k < r->nsub; k++) roots[k] = r->sub[k].rows[r->sub[k].n_stored - 1];
        cz_fr root = roots ? roots[0] : r->comm_r_last;
        if (roots && p->tree_extra) {
            cz_tree_shape top = {.nlevels = p->tree_extra};
            for (unsigned l = 0; l < p->tree_extra; l++) top.levels[l] = p->tree.levels[r->base + l];
            cz_full_tree t;
            if (!(rc = cz_full_tree_build(&t, &top, roots))) {
                root = *cz_full_tree_root(&t);
                cz_full_tree_free(&t);
            }
        }
        r->sub_roots = roots;
        if (!rc && !cz_fr_equal(&root, &r->comm_r_last))
            rc = cz_error(CZ_EVERIFY, "%s: tree_r_last's root (%s) is not p_aux's comm_r_last (another sector's "
                          "cache, or a replica that changed?)", sealed,
                          r->sub[0].from_file ? "from the .dat files" : "computed from the replica");
    }
    if (rc) cz_replica_close(r);
    return rc;
}

int cz_replica_leaf_proof(cz_replica *r, uint64_t index, cz_merkle_proof *out) {
    const cz_tree_shape *s = &r->p.tree;
    memset(out, 0, sizeof *out);
    if (index >= r->rep_len / 32)
        return cz_error(CZ_EINVAL, "tree_r_last: leaf %llu out of range", (unsigned long long)index);
    const unsigned t = (unsigned)(index / r->sub_leaves);
    const uint64_t li = index % r->sub_leaves;
    cz_replica_subtree *sub = &r->sub[t];
    const unsigned f = sub->first;
    uint64_t span = 1; /* leaves under one node of level f */
    for (unsigned l = 0; l < f; l++) span *= s->levels[l];
    const uint64_t c = li / span, base_leaf = (uint64_t)t * r->sub_leaves + c * span;
    out->nsib = cz_tree_path_len(s);
    out->sib = malloc(out->nsib * sizeof(cz_fr));
    cz_fr *leaves = malloc(span * sizeof(cz_fr));
    int rc = out->sib && leaves ? 0 : cz_error(CZ_ENOMEM, "out of memory");
    for (uint64_t i = 0; !rc && i < span; i++) rc = leaf(r, base_leaf + i, &leaves[i]);
    out->index = index;
    out->root = r->comm_r_last;
    cz_fr *sib = out->sib;
    if (!rc) { /* the discarded rows above the leaf, rebuilt from the replica */
        out->leaf = leaves[li % span];
        cz_fr node = leaves[0];
        if (f) {
            cz_tree_shape low = {.nlevels = f};
            memcpy(low.levels, s->levels, f);
            cz_full_tree ct;
            cz_merkle_proof lp;
            if (!(rc = cz_full_tree_build(&ct, &low, leaves)) && !(rc = cz_full_tree_proof(&ct, li % span, &lp))) {
                memcpy(sib, lp.sib, lp.nsib * sizeof(cz_fr));
                sib += lp.nsib;
                node = *cz_full_tree_root(&ct);
                cz_merkle_proof_free(&lp);
            }
            cz_full_tree_free(&ct); /* its nodes NULL when the build failed */
        }
        if (!rc && !cz_fr_equal(&node, &sub->rows[sub->off[f] + c])) {
            char path[600];
            dat_path(r, t, path, sizeof path);
            rc = cz_error(CZ_EVERIFY, "%s: node %llu of level %u is not the hash of the replica's leaves under it (%s "
                          "changed since the tree was built?)", path, (unsigned long long)c, f, r->sealed);
        }
    }
    free(leaves);
    /* the stored rows of the subtree */
    uint64_t idx = c;
    for (unsigned l = f; !rc && l < r->base; l++) {
        const unsigned a = s->levels[l];
        const uint64_t first = idx / a * a;
        for (unsigned j = 0; j < a; j++)
            if (first + j != idx) *sib++ = sub->rows[sub->off[l] + first + j];
        idx /= a;
    }
    /* the levels above the subtrees: the other roots, in groups */
    if (!rc && r->p.tree_extra) {
        cz_tree_shape top = {.nlevels = r->p.tree_extra};
        for (unsigned l = 0; l < r->p.tree_extra; l++) top.levels[l] = s->levels[r->base + l];
        cz_full_tree tt;
        cz_merkle_proof tp;
        if (!(rc = cz_full_tree_build(&tt, &top, r->sub_roots)) && !(rc = cz_full_tree_proof(&tt, t, &tp))) {
            memcpy(sib, tp.sib, tp.nsib * sizeof(cz_fr));
            sib += tp.nsib;
            cz_merkle_proof_free(&tp);
        }
        cz_full_tree_free(&tt);
    }
    if (!rc && (unsigned)(sib - out->sib) != out->nsib)
        rc = cz_error(CZ_EINVAL, "tree_r_last: %u siblings, the shape has %u", (unsigned)(sib - out->sib), out->nsib);
    if (!rc && cz_merkle_proof_verify(out, s))
        rc = cz_error(CZ_EVERIFY, "tree_r_last: leaf %llu's path does not verify against comm_r_last",
                      (unsigned long long)index);
    if (rc) cz_merkle_proof_free(out);
    return rc;
}

int cz_replica_post_proof(cz_post_sector_proof *out, cz_replica *r, uint64_t sector_id, const uint64_t *challenges) {
    memset(out, 0, sizeof *out);
    const unsigned n = r->p.kind == CZ_POST_WINNING ? r->p.sectors * r->p.challenges : r->p.challenges;
    out->sector_id = sector_id;
    out->comm_c = r->comm_c, out->comm_r_last = r->comm_r_last, out->comm_r = r->comm_r;
    out->proofs = calloc(n, sizeof *out->proofs);
    if (!out->proofs) return cz_error(CZ_ENOMEM, "post: out of memory");
    out->nproofs = n;
    for (unsigned j = 0; j < n; j++) {
        int rc = cz_replica_leaf_proof(r, challenges[j], &out->proofs[j]);
        if (rc) {
            cz_post_sector_proof_free(out);
            return rc;
        }
    }
    return 0;
}

void cz_replica_close(cz_replica *r) {
    if (r->rep) munmap((void *)r->rep, r->rep_len);
    for (unsigned k = 0; r->sub && k < r->nsub; k++) free(r->sub[k].rows);
    free(r->sub);
    free(r->sub_roots);
    memset(r, 0, sizeof *r);
}
