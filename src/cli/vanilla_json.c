/* cuzk-bench gen-vanilla window-post | winning-post | snap-prove: synthetic vanilla proofs written as cuzk's
 * `--vanilla` file, a JSON array of standard-base64 strings, each the bincode bytes Curio sends in one
 * vanilla_proofs entry. cuzk's gen-vanilla reads a sealed sector from disk; these are made here:
 *   PoSt: cz_post_synthetic_sector, answering the real challenges of the randomness (any sector size);
 *   Snap: cz_snap_synthetic_sector, a whole updated sector with full trees (2 KiB and 8 MiB: random new data),
 *         above that cz_snap_empty_update_sector (new data all zeros, the old replica periodic: 512 MiB to 64 GiB),
 *         so every partition's proof verifies against the three commitments, which are returned to the caller. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "filecoin/post_inputs.h"
#include "filecoin/post_synth.h"
#include "filecoin/replica.h"
#include "filecoin/snap_vanilla.h"
#include "util/json.h"

char *cz_bench_post_vanilla_json(unsigned registered, uint64_t sector_size, const uint8_t randomness[32],
                                 uint32_t partition, unsigned count, uint64_t first_sector, uint64_t seed);
char *cz_bench_snap_vanilla_json(uint64_t sector_size, uint64_t seed, uint8_t comm_r_old[32],
                                 uint8_t comm_r_new[32], uint8_t comm_d_new[32], bool *empty);
char *cz_bench_post_vanilla_sealed_json(unsigned registered, uint64_t sector_size, const uint8_t randomness[32],
                                        uint32_t partition, uint64_t sector_id, const char *sealed, const char *cache,
                                        const uint8_t *comm_r_want, char *note, size_t note_cap);

/* A growing "[\"b64\",...]" string. */
typedef struct {
    char *s;
    size_t len, cap;
} jarr;

static int jarr_add(jarr *a, const uint8_t *buf, size_t n) {
    size_t need = a->len + cz_base64_encoded_len(n) + 5; /* , " " ] NUL */
    if (need > a->cap) {
        size_t cap = need * 2;
        char *s = realloc(a->s, cap);
        if (!s) return cz_error(CZ_ENOMEM, "out of memory");
        a->s = s, a->cap = cap;
    }
    char sep = a->len ? ',' : '[';
    a->s[a->len++] = sep;
    a->s[a->len++] = '"';
    cz_base64_encode(a->s + a->len, buf, n);
    a->len += cz_base64_encoded_len(n);
    a->s[a->len++] = '"';
    a->s[a->len] = 0;
    return 0;
}

static char *jarr_end(jarr *a) {
    if (!a->s) return NULL;
    a->s[a->len++] = ']'; /* jarr_add left room for it and the NUL */
    a->s[a->len] = 0;
    return a->s;
}

/* The PoSt parameters registered (RegisteredPoStProof: 0-4 Winning, 5-14 Window) names, which must be for
 * sector_size. */
static int post_params_of(unsigned registered, uint64_t sector_size, cz_post_params *p, cz_post_kind *kind, bool *v12) {
    uint64_t size;
    int rc = cz_post_registered(registered, kind, &size, v12);
    if (rc) return rc;
    if (size != sector_size)
        return cz_error(CZ_EINVAL, "registered_proof %u is for %llu-byte sectors, not %llu", registered,
                        (unsigned long long)size, (unsigned long long)sector_size);
    return cz_post_params_for(p, *kind, sector_size);
}

/* count sector proofs of a PoSt partition (registered = RegisteredPoStProof: 0-4 Winning, 5-14 Window).
 * Window sector i of partition k is at index k * sectors + i; sector ids first_sector + i. */
char *cz_bench_post_vanilla_json(unsigned registered, uint64_t sector_size, const uint8_t randomness[32],
                                 uint32_t partition, unsigned count, uint64_t first_sector, uint64_t seed) {
    cz_post_kind kind;
    bool v12;
    cz_post_params p;
    if (post_params_of(registered, sector_size, &p, &kind, &v12)) return NULL;
    unsigned max = kind == CZ_POST_WINNING ? 1 : p.sectors;
    if (!count || count > max) {
        cz_error(CZ_EINVAL, "%u sector proofs: a %s partition takes 1..%u", count, p.name, max);
        return NULL;
    }
    jarr a = {0};
    for (unsigned i = 0; i < count; i++) {
        cz_post_sector_proof sp;
        uint64_t index = kind == CZ_POST_WINNING ? 0 : (uint64_t)partition * p.sectors + i;
        uint8_t *buf = NULL;
        size_t len;
        int rc = cz_post_synthetic_sector(&sp, &p, v12, randomness, first_sector + i, index, seed + i);
        if (!rc) {
            rc = cz_post_sector_proof_encode(&sp, &p, &buf, &len);
            cz_post_sector_proof_free(&sp);
        }
        if (!rc) rc = jarr_add(&a, buf, len);
        free(buf);
        if (rc) {
            free(a.s);
            return NULL;
        }
    }
    return jarr_end(&a);
}

/* One sector proof of a sealed sector on disk (replica.h): sector_id's challenges for the randomness, as sector
 * partition * sectors of a Window PoSt partition (Winning: its 66 challenges). comm_r_want (32 bytes LE, NULL: not
 * checked) must be the sector's comm_r. note: where tree_r_last's rows came from. */
char *cz_bench_post_vanilla_sealed_json(unsigned registered, uint64_t sector_size, const uint8_t randomness[32],
                                        uint32_t partition, uint64_t sector_id, const char *sealed, const char *cache,
                                        const uint8_t *comm_r_want, char *note, size_t note_cap) {
    cz_post_kind kind;
    bool v12;
    cz_post_params p;
    if (post_params_of(registered, sector_size, &p, &kind, &v12)) return NULL;
    cz_fr want;
    if (comm_r_want && cz_fr_from_bytes_le(&want, comm_r_want)) {
        cz_error(CZ_ERANGE, "comm_r is not a field element");
        return NULL;
    }
    cz_replica r;
    if (cz_replica_open(&r, &p, sealed, cache, comm_r_want ? &want : NULL, 0)) return NULL;
    unsigned nfile = 0;
    for (unsigned k = 0; k < r.nsub; k++) nfile += r.sub[k].from_file;
    snprintf(note, note_cap, "tree_r_last: %u of %u subtree(s) from the cache's .dat files (rows from level %u up), "
             "%u computed from the replica", nfile, r.nsub, r.sub[0].first, r.nsub - nfile);
    const unsigned n = kind == CZ_POST_WINNING ? p.sectors * p.challenges : p.challenges;
    uint64_t *ch = malloc(n * sizeof *ch);
    uint64_t index = kind == CZ_POST_WINNING ? 0 : (uint64_t)partition * p.sectors;
    cz_post_sector_proof sp;
    uint8_t *buf = NULL;
    size_t len = 0;
    int rc = ch ? 0 : cz_error(CZ_ENOMEM, "out of memory");
    if (!rc) {
        cz_post_sector_challenges(ch, &p, v12, randomness, sector_id, index);
        rc = cz_replica_post_proof(&sp, &r, sector_id, ch);
    }
    if (!rc) {
        rc = cz_post_sector_proof_verify(&sp, &p, ch); /* the verifier the daemon runs at submit */
        if (!rc) rc = cz_post_sector_proof_encode(&sp, &p, &buf, &len);
        cz_post_sector_proof_free(&sp);
    }
    free(ch);
    cz_replica_close(&r);
    jarr a = {0};
    if (!rc) rc = jarr_add(&a, buf, len);
    free(buf);
    if (rc) {
        free(a.s);
        return NULL;
    }
    return jarr_end(&a);
}

/* Every partition's PartitionProof of a fresh synthetic updated sector, under upstream's default h; *empty: the
 * update's data is all zeros (the sizes above 8 MiB, whose whole trees would not fit). */
char *cz_bench_snap_vanilla_json(uint64_t sector_size, uint64_t seed, uint8_t comm_r_old[32],
                                 uint8_t comm_r_new[32], uint8_t comm_d_new[32], bool *empty) {
    cz_snap_params p;
    if (cz_snap_params_for(&p, sector_size)) return NULL;
    cz_snap_sector sec;
    *empty = p.nodes_log2 > 20;
    if (*empty ? cz_snap_empty_update_sector(&sec, sector_size, p.hs[3], seed, 0)
               : cz_snap_synthetic_sector(&sec, sector_size, p.hs[3], seed))
        return NULL;
    jarr a = {0};
    int rc = 0;
    for (unsigned k = 0; !rc && k < sec.p.partitions; k++) {
        cz_snap_partition_proof pp;
        uint8_t *buf = NULL;
        size_t len;
        if (!(rc = cz_snap_sector_partition_proof(&pp, &sec, k))) {
            rc = cz_snap_partition_proof_encode(&pp, &sec.p, &buf, &len);
            cz_snap_partition_proof_free(&pp);
        }
        if (!rc) rc = jarr_add(&a, buf, len);
        free(buf);
    }
    cz_fr_to_bytes_le(comm_r_old, &sec.comm_r_old);
    cz_fr_to_bytes_le(comm_r_new, &sec.comm_r_new);
    cz_fr_to_bytes_le(comm_d_new, &sec.comm_d_new);
    cz_snap_sector_free(&sec);
    if (rc) {
        free(a.s);
        return NULL;
    }
    return jarr_end(&a);
}
