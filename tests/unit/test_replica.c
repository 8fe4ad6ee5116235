/* tree_r_last paths from a sealed sector on disk (filecoin/replica.h: cuzk-bench gen-vanilla --sealed --cache).
 * 1. venus' two real pre-sealed 2 KiB sectors, read in place: their cache's sc-02-data-tree-r-last.dat (the root
 *    alone, as rust-fil-proofs left it) and p_aux; every leaf's path equals the one of a tree built here over the
 *    replica's 64 leaves, and verifies; the sector proof's bincode equals the one from that tree; comm_r is the
 *    CID of pre-seal-t0106.json, another sector's CID is refused.
 * 2. Sectors written here (random replicas, rows written as merkletree's LevelCacheStore does: a subtree's rows
 *    from some level up, root last): one tree, 8 and 16 subtrees (a 32 GiB and a 64 GiB shape at small size), each
 *    with its .dat files starting at every level, and with none (the rows computed from the replica): paths equal
 *    the whole tree's.
 * 3. Bad inputs: a .dat of a size no layout has, a damaged row, a replica changed after its tree (the proof of a
 *    leaf under the change fails naming the node; others still verify), another sector's comm_r, a replica of the
 *    wrong size, a node out of the field, no p_aux. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cz_error.h"
#include "filecoin/post_inputs.h"
#include "filecoin/post_synth.h"
#include "filecoin/post_vanilla.h"
#include "filecoin/replica.h"
#include "gadgets/poseidon.h"
#include "post_check.h"
#include "testutil.h"

static char dir[256];

static int write_file(const char *path, const void *p, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t w = fwrite(p, 1, n, f);
    return fclose(f) || w != n ? -1 : 0;
}

static bool same_proof(const cz_merkle_proof *a, const cz_merkle_proof *b) {
    return a->index == b->index && a->nsib == b->nsib && cz_fr_equal(&a->leaf, &b->leaf) &&
           cz_fr_equal(&a->root, &b->root) && !memcmp(a->sib, b->sib, a->nsib * sizeof(cz_fr));
}

/* venus pre-sealed 2 KiB sectors t0106 0 and 1 */
static void test_venus(cz_rng *rng) {
    const char *base = "filecoin-project+venus/genesis-sectors";
    char rel[256], path[1024], sealed[1024], cache[1024];
    size_t n;
    snprintf(rel, sizeof rel, "%s/pre-seal-t0106.json", base);
    char *js = cz_test_read_fixture(rel, path, sizeof path, &n);
    if (!js) {
        printf("venus genesis sectors not found (%s): skipped\n", path);
        return;
    }
    cz_fr comm_r[2];
    CHECK(pc_venus_comm_r(js, comm_r) == 0);
    cz_post_params pw, pwin;
    cz_post_params_for(&pw, CZ_POST_WINDOW, 2048);
    cz_post_params_for(&pwin, CZ_POST_WINNING, 2048);
    uint8_t rnd[32];
    cz_rng_bytes(rng, rnd, 32);
    rnd[31] &= 0x3f;
    for (int s = 0; s < 2; s++) {
        snprintf(rel, sizeof rel, "%s/sealed/s-t0106-%d", base, s);
        CHECK(cz_test_fixture_path(sealed, sizeof sealed, rel) != NULL);
        snprintf(rel, sizeof rel, "%s/cache/s-t0106-%d", base, s);
        CHECK(cz_test_fixture_path(cache, sizeof cache, rel) != NULL);
        cz_replica r;
        int rc = cz_replica_open(&r, &pw, sealed, cache, &comm_r[s], 1);
        CHECK_MSG(rc == 0, "venus sector %d: %s", s, cz_error_message());
        if (rc) continue;
        CHECK(r.nsub == 1 && r.sub[0].from_file == 1 && r.sub[0].first == 2 && r.sub[0].n_stored == 1);
        /* the tree built here over the replica's leaves: every path the same */
        size_t rl;
        uint8_t *rep = (uint8_t *)cz_test_read_file(sealed, &rl);
        cz_fr leaves[64];
        for (int i = 0; rep && i < 64; i++) CHECK(cz_fr_from_bytes_le(&leaves[i], rep + 32 * i) == 0);
        free(rep);
        cz_full_tree t;
        CHECK(cz_full_tree_build(&t, &pw.tree, leaves) == 0);
        unsigned same = 0;
        for (uint64_t i = 0; i < 64; i++) {
            cz_merkle_proof a, b;
            CHECK(cz_replica_leaf_proof(&r, i, &a) == 0 && cz_full_tree_proof(&t, i, &b) == 0);
            same += same_proof(&a, &b) && cz_merkle_proof_verify(&a, &pw.tree) == 0;
            cz_merkle_proof_free(&a), cz_merkle_proof_free(&b);
        }
        CHECK_MSG(same == 64, "venus sector %d: %u of 64 paths as the whole tree's", s, same);
        /* Window and Winning sector proofs: the same bincode as from the tree, and they verify */
        for (int k = 0; k < 2; k++) {
            const cz_post_params *p = k ? &pwin : &pw;
            uint64_t ch[66];
            cz_post_sector_challenges(ch, p, true, rnd, (uint64_t)s, 0);
            cz_replica rk;
            CHECK(cz_replica_open(&rk, p, sealed, cache, &comm_r[s], 1) == 0);
            cz_post_sector_proof a, b;
            uint8_t *ea = NULL, *eb = NULL;
            size_t la = 0, lb = 0;
            CHECK(cz_replica_post_proof(&a, &rk, (uint64_t)s, ch) == 0);
            CHECK(cz_post_sector_proof_from_tree(&b, p, &t, &r.comm_c, (uint64_t)s, ch) == 0);
            CHECK(cz_post_sector_proof_verify(&a, p, ch) == 0 && cz_fr_equal(&a.comm_r, &comm_r[s]));
            CHECK(cz_post_sector_proof_encode(&a, p, &ea, &la) == 0 && cz_post_sector_proof_encode(&b, p, &eb, &lb) == 0);
            CHECK_MSG(la == lb && la > 0 && !memcmp(ea, eb, la), "venus sector %d %s: bincode differs", s, p->name);
            free(ea), free(eb);
            cz_post_sector_proof_free(&a), cz_post_sector_proof_free(&b);
            cz_replica_close(&rk);
        }
        cz_full_tree_free(&t);
        cz_replica_close(&r);
        /* another sector's comm_r */
        rc = cz_replica_open(&r, &pw, sealed, cache, &comm_r[1 - s], 1);
        CHECK_MSG(rc == CZ_EVERIFY && strstr(cz_error_message(), "comm_r"), "sector %d under the other CID: %d %s", s, rc,
                  cz_error_message());
    }
    printf("venus 2 KiB sectors: the cache's tree-r-last (root only) and the replica give the whole tree's paths\n");
    free(js);
}

/* A sector written here: p's tree over random leaves; its cache with p_aux and, when first <= base, each subtree's
 * rows from level `first` up. Returns the whole tree (the caller frees it). */
static int make_sector(cz_rng *rng, const cz_post_params *p, unsigned first, const char *name, cz_full_tree *t,
                       char *sealed, char *cache) {
    const uint64_t nl = p->sector_size / 32;
    uint8_t *rep = malloc(p->sector_size);
    cz_fr *leaves = malloc(nl * sizeof(cz_fr));
    if (!rep || !leaves) return -1;
    cz_rng_bytes(rng, rep, p->sector_size);
    for (uint64_t i = 0; i < nl; i++) {
        rep[32 * i + 31] &= 0x3f;
        cz_fr_from_bytes_le(&leaves[i], rep + 32 * i);
    }
    int rc = cz_full_tree_build(t, &p->tree, leaves);
    snprintf(sealed, 512, "%s/%s.sealed", dir, name);
    snprintf(cache, 512, "%s/%s.cache", dir, name);
    mkdir(cache, 0700);
    if (!rc) rc = write_file(sealed, rep, p->sector_size);
    uint8_t aux[64];
    cz_fr comm_c;
    cz_rng_bytes(rng, aux, 32);
    aux[31] &= 0x3f;
    cz_fr_from_bytes_le(&comm_c, aux);
    cz_fr_to_bytes_le(aux + 32, cz_full_tree_root(t));
    char path[600];
    snprintf(path, sizeof path, "%s/p_aux", cache);
    if (!rc) rc = write_file(path, aux, 64);
    const unsigned base = p->tree.nlevels - p->tree_extra;
    unsigned nsub = 1;
    for (unsigned l = base; l < p->tree.nlevels; l++) nsub *= p->tree.levels[l];
    for (unsigned k = 0; !rc && first <= base && k < nsub; k++) {
        uint64_t cnt = 0;
        for (unsigned l = first; l <= base; l++) cnt += t->n[l] / nsub;
        uint8_t *buf = malloc(cnt * 32), *w = buf;
        for (unsigned l = first; buf && l <= base; l++) {
            const uint64_t per = t->n[l] / nsub;
            for (uint64_t i = 0; i < per; i++, w += 32) cz_fr_to_bytes_le(w, cz_full_tree_node(t, l, k * per + i));
        }
        if (nsub == 1) snprintf(path, sizeof path, "%s/sc-02-data-tree-r-last.dat", cache);
        else snprintf(path, sizeof path, "%s/sc-02-data-tree-r-last-%u.dat", cache, k);
        rc = buf ? write_file(path, buf, cnt * 32) : -1;
        free(buf);
    }
    free(rep), free(leaves);
    return rc;
}

/* every path of a sector written with rows from `first` (base + 1: no .dat) equals the whole tree's */
static void check_paths(cz_rng *rng, const cz_post_params *p, unsigned first, const char *what) {
    char sealed[512], cache[512], name[64];
    snprintf(name, sizeof name, "%s-%u", what, first);
    cz_full_tree t;
    CHECK(make_sector(rng, p, first, name, &t, sealed, cache) == 0);
    cz_replica r;
    int rc = cz_replica_open(&r, p, sealed, cache, NULL, 2);
    CHECK_MSG(rc == 0, "%s: %s", name, cz_error_message());
    if (rc) {
        cz_full_tree_free(&t);
        return;
    }
    const unsigned base = p->tree.nlevels - p->tree_extra;
    CHECK(r.sub[0].from_file == (first <= base) && r.sub[0].first == (first <= base ? first : 1));
    unsigned same = 0, tries = 64;
    for (unsigned j = 0; j < tries; j++) {
        uint64_t i = j == 0 ? 0 : j == 1 ? t.n[0] - 1 : 0;
        if (j > 1) cz_rng_bytes(rng, &i, sizeof i), i %= t.n[0];
        cz_merkle_proof a, b;
        CHECK(cz_replica_leaf_proof(&r, i, &a) == 0 && cz_full_tree_proof(&t, i, &b) == 0);
        same += same_proof(&a, &b);
        cz_merkle_proof_free(&a), cz_merkle_proof_free(&b);
    }
    CHECK_MSG(same == tries, "%s: %u of %u paths as the whole tree's", name, same, tries);
    cz_replica_close(&r);
    cz_full_tree_free(&t);
}

static void test_written(cz_rng *rng) {
    /* shapes of the real sizes made small (the hashing is the same at every size): one tree of 8^4 leaves (2 KiB
     * to 512 MiB: 2 to 8 levels of 8), 8 subtrees of 8^3 (32 GiB: 9 levels of 8, then a sub level of 8) and 16
     * (64 GiB: sub 8, top 2) */
    cz_post_params p, p8, p16;
    cz_post_params_for(&p, CZ_POST_WINDOW, 8ull << 20);
    p.sector_size = 32ull << 12, p.nodes_log2 = 12, p.tree.nlevels = 4, p.tree_extra = 0;
    p8 = p, p16 = p;
    p8.sector_size = 32ull << 12, p8.tree_extra = 1;
    p16.sector_size = 32ull << 13, p16.nodes_log2 = 13, p16.tree.nlevels = 5, p16.tree_extra = 2;
    p16.tree.levels[4] = 2;
    for (unsigned f = 1; f <= 5; f++) check_paths(rng, &p, f, "one");
    for (unsigned f = 1; f <= 4; f++) check_paths(rng, &p8, f, "sub8");
    for (unsigned f = 1; f <= 4; f++) check_paths(rng, &p16, f, "top2");
    printf("written sectors: paths from every .dat layout and from the replica alone equal the whole tree's\n");

    /* bad inputs, on the one-tree sector with rows from level 2 (64 nodes, then 8, then the root) */
    char sealed[512], cache[512], path[600];
    cz_full_tree t;
    CHECK(make_sector(rng, &p, 2, "bad", &t, sealed, cache) == 0);
    cz_replica r;
    snprintf(path, sizeof path, "%s/sc-02-data-tree-r-last.dat", cache);
    size_t dl;
    uint8_t *dat = (uint8_t *)cz_test_read_file(path, &dl);
    CHECK(dat != NULL);
    /* a size no layout has */
    CHECK(write_file(path, dat, dl - 32) == 0);
    int rc = cz_replica_open(&r, &p, sealed, cache, NULL, 1);
    CHECK_MSG(rc == CZ_EFORMAT && strstr(cz_error_message(), "no tree-r-last layout"), "short .dat: %d %s", rc,
              cz_error_message());
    /* a damaged row: node 5 of level 3 (after level 2's 64 nodes) */
    uint8_t *bad = malloc(dl);
    memcpy(bad, dat, dl);
    bad[32 * (64 + 5)] ^= 1;
    CHECK(write_file(path, bad, dl) == 0);
    rc = cz_replica_open(&r, &p, sealed, cache, NULL, 1);
    CHECK_MSG(rc == CZ_EVERIFY && strstr(cz_error_message(), "node 5 of level 3"), "damaged .dat: %d %s", rc,
              cz_error_message());
    /* a damaged root: the row check passes nothing above it, p_aux's comm_r_last disagrees */
    memcpy(bad, dat, dl);
    bad[dl - 32] ^= 1;
    CHECK(write_file(path, bad, dl) == 0);
    rc = cz_replica_open(&r, &p, sealed, cache, NULL, 1);
    CHECK_MSG(rc == CZ_EVERIFY, "damaged root: %d %s", rc, cz_error_message());
    free(bad);
    CHECK(write_file(path, dat, dl) == 0);
    /* the replica changed after its tree: leaf 1000's path fails naming its node, leaf 0's still verifies */
    size_t rl;
    uint8_t *rep = (uint8_t *)cz_test_read_file(sealed, &rl);
    CHECK(rep && rl == p.sector_size);
    rep[32 * 1000] ^= 1;
    CHECK(write_file(sealed, rep, rl) == 0);
    CHECK(cz_replica_open(&r, &p, sealed, cache, NULL, 1) == 0);
    cz_merkle_proof mp;
    rc = cz_replica_leaf_proof(&r, 1000, &mp);
    CHECK_MSG(rc == CZ_EVERIFY && strstr(cz_error_message(), "node 15 of level 2"), "changed leaf: %d %s", rc,
              cz_error_message());
    CHECK(cz_replica_leaf_proof(&r, 0, &mp) == 0);
    cz_merkle_proof_free(&mp);
    cz_replica_close(&r);
    /* a node out of the field */
    memset(rep + 32 * 7, 0xff, 32);
    CHECK(write_file(sealed, rep, rl) == 0);
    CHECK(cz_replica_open(&r, &p, sealed, cache, NULL, 1) == 0);
    rc = cz_replica_leaf_proof(&r, 7, &mp);
    CHECK_MSG(rc == CZ_ERANGE && strstr(cz_error_message(), "node 7"), "leaf out of the field: %d %s", rc,
              cz_error_message());
    cz_replica_close(&r);
    /* another sector's comm_r; the replica of the wrong size; no p_aux */
    cz_fr other = *cz_full_tree_root(&t);
    rc = cz_replica_open(&r, &p, sealed, cache, &other, 1);
    CHECK_MSG(rc == CZ_EVERIFY && strstr(cz_error_message(), "comm_r"), "wrong comm_r: %d %s", rc, cz_error_message());
    CHECK(write_file(sealed, rep, rl - 32) == 0);
    rc = cz_replica_open(&r, &p, sealed, cache, NULL, 1);
    CHECK_MSG(rc == CZ_EFORMAT && strstr(cz_error_message(), "not a 131072-byte sealed sector"), "short replica: %d %s",
              rc, cz_error_message());
    snprintf(path, sizeof path, "%s/p_aux", cache);
    unlink(path);
    rc = cz_replica_open(&r, &p, sealed, cache, NULL, 1);
    CHECK_MSG(rc == CZ_EIO && strstr(cz_error_message(), "p_aux"), "no p_aux: %d %s", rc, cz_error_message());
    free(rep), free(dat);
    cz_full_tree_free(&t);
    printf("bad inputs: each refused with its code, naming the file and node\n");
}

int main(void) {
    cz_rng rng;
    cz_test_rng(&rng);
    snprintf(dir, sizeof dir, "%s/cz_replica_XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_venus(&rng);
    test_written(&rng);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd)) fprintf(stderr, "could not remove %s\n", dir);
    return cz_test_finish();
}
