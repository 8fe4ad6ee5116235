/* SnapDeals with synthetic sectors (random old replica and new data, full trees, the new replica
 * encoded with the real rho) at 2 KiB (1 partition; upstream's 16 KiB test size with 2 partitions
 * is tests/slow/test_snap_synth_16k.c): the vanilla PartitionProof survives a bincode round trip,
 * passes the vanilla verifier, and its circuit (record|witness) is satisfied with public inputs equal to the ones
 * derived from (k, h, commitments) alone; a damaged aux value breaks it. Wrong k / h / commitments
 * fail the verifier, malformed bytes and the wrong sector size fail the parser, sizes too large for
 * full trees are refused. The timing generator (any size) gives a complete witness whose only
 * unsatisfied rows are the tree_r_new root equalities.
 * Empty updates (cz_snap_empty_update_sector: new data all zeros, the old replica periodic): a periodic tree equals
 * the full tree over its expanded leaves node for node and proof for proof; at 2 KiB with a period of 8 nodes the
 * same checks as above, circuit included; at 512 MiB and 32 GiB comm_d_new is the CC sector's comm_d that supraseal's
 * demos hard-code, comm_r_new = comm_r_old, and every partition's proof passes the vanilla verifier (only its own k);
 * the same at 64 GiB but the comm_d reference. */
#include "filecoin/post_synth.h"
#include "snap_check.h"

/* the tree of shape s whose leaves repeat with period, built periodic and built whole: the same nodes and proofs */
static void periodic_vs_full(const cz_tree_shape *s, uint64_t period, cz_rng *rng) {
    uint64_t n = 1;
    for (unsigned l = 0; l < s->nlevels; l++) n *= s->levels[l];
    cz_fr *leaves = malloc(n * sizeof(cz_fr));
    for (uint64_t i = 0; i < period; i++) cz_fr_set_u64(&leaves[i], cz_rng_next(rng) >> 2);
    for (uint64_t i = period; i < n; i++) leaves[i] = leaves[i % period];
    cz_full_tree pt, ft;
    CHECK(cz_full_tree_build_periodic(&pt, s, leaves, period) == 0);
    CHECK(cz_full_tree_build(&ft, s, leaves) == 0);
    uint64_t differ = 0, nodes = 0;
    for (unsigned l = 0; l <= s->nlevels; l++)
        for (uint64_t i = 0; i < ft.n[l]; i++, nodes++)
            differ += pt.n[l] != ft.n[l] || !cz_fr_equal(cz_full_tree_node(&pt, l, i), cz_full_tree_node(&ft, l, i));
    for (uint64_t i = 0; i < n; i += 1 + n / 17) {
        cz_merkle_proof a, b;
        CHECK(cz_full_tree_proof(&pt, i, &a) == 0 && cz_full_tree_proof(&ft, i, &b) == 0);
        differ += a.nsib != b.nsib || !cz_fr_equal(&a.leaf, &b.leaf) || !cz_fr_equal(&a.root, &b.root) ||
                  memcmp(a.sib, b.sib, a.nsib * sizeof(cz_fr)) || cz_merkle_proof_verify(&a, s) != 0;
        cz_merkle_proof_free(&a), cz_merkle_proof_free(&b);
    }
    CHECK_MSG(differ == 0, "%s tree of %llu leaves, period %llu: %llu of %llu nodes or proofs differ",
              s->sha ? "SHA-256" : "Poseidon", (unsigned long long)n, (unsigned long long)period,
              (unsigned long long)differ, (unsigned long long)nodes);
    cz_full_tree_free(&pt), cz_full_tree_free(&ft);
    free(leaves);
}

/* An empty update at a size too large for full trees: the commitments, and every partition's proof */
static void empty_large(uint64_t size, const char *cc_comm_d_hex, uint64_t seed) {
    cz_snap_params p;
    CHECK(cz_snap_params_for(&p, size) == 0);
    cz_snap_sector s;
    int rc = cz_snap_empty_update_sector(&s, size, p.hs[3], seed, 0);
    CHECK_MSG(rc == 0, "%s", cz_error_message());
    if (rc) return;
    uint8_t d[32];
    char hex[65];
    cz_fr_to_bytes_le(d, &s.comm_d_new);
    for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", d[i]);
    CHECK_MSG(!cc_comm_d_hex || !strcmp(hex, cc_comm_d_hex), "%s comm_d_new %s, the CC sector's is %s", p.name, hex,
              cc_comm_d_hex);
    CHECK(cz_fr_equal(&s.comm_r_new, &s.comm_r_old) && !cz_fr_equal(&s.comm_r_old, &s.comm_c));
    unsigned ok = 0;
    for (unsigned k = 0; k < p.partitions; k++) {
        cz_snap_partition_proof gen, pp;
        uint8_t *enc = NULL;
        size_t len;
        CHECK(cz_snap_sector_partition_proof(&gen, &s, k) == 0);
        CHECK(cz_snap_partition_proof_encode(&gen, &p, &enc, &len) == 0);
        if (cz_snap_partition_proof_parse(&pp, enc, len, &p) == 0) {
            rc = cz_snap_partition_proof_verify(&pp, &p, k, s.h, &s.comm_r_old, &s.comm_d_new, &s.comm_r_new);
            CHECK_MSG(rc == 0, "%s partition %u: %s", p.name, k, cz_error_message());
            ok += rc == 0;
            CHECK(cz_snap_partition_proof_verify(&pp, &p, k ^ 1, s.h, &s.comm_r_old, &s.comm_d_new, &s.comm_r_new) ==
                  CZ_EVERIFY);
            cz_snap_partition_proof_free(&pp);
        } else {
            CHECK_MSG(0, "%s partition %u does not parse: %s", p.name, k, cz_error_message());
        }
        free(enc);
        cz_snap_partition_proof_free(&gen);
    }
    printf("%s empty update: comm_d_new %s, %u of %u partitions verify\n", p.name,
           cc_comm_d_hex ? "= the CC sector's" : "(no reference here)", ok, p.partitions);
    cz_snap_sector_free(&s);
}

int main(void) {
    cz_rng rng;
    cz_test_rng(&rng);
    one(2048, 0, cz_rng_next(&rng));
    {
        cz_snap_params p2k, p32;
        CHECK(cz_snap_params_for(&p2k, 2048) == 0 && cz_snap_params_for(&p32, 32ull << 30) == 0);
        periodic_vs_full(&p2k.tree_r, 8, &rng);
        periodic_vs_full(&p2k.tree_r, 1, &rng);
        periodic_vs_full(&p2k.tree_d, 4, &rng);
        periodic_vs_full(&p2k.tree_d, 64, &rng);
        cz_full_tree t;
        const cz_fr leaves[16] = {{{0}}};
        CHECK(cz_full_tree_build_periodic(&t, &p2k.tree_r, leaves, 16) == CZ_EINVAL);
        CHECK(cz_full_tree_build_periodic(&t, &p2k.tree_d, leaves, 3) == CZ_EINVAL);
        CHECK(cz_full_tree_build_periodic(&t, &p2k.tree_d, leaves, 0) == CZ_EINVAL);
        cz_snap_sector s;
        CHECK(cz_snap_empty_update_sector(&s, 2048, 1, 1, 16) == CZ_EINVAL);
        CHECK(cz_snap_empty_update_sector(&s, 32ull << 30, p32.hs[3], 1, 1u << 21) == CZ_EINVAL);
        CHECK(cz_snap_empty_update_sector(&s, 2048, 7, 1, 8) == CZ_EINVAL);
    }
    one_of(2048, 0, cz_rng_next(&rng), 8);
    /* the comm_d of a CC sector that supraseal's Rust demo hard-codes ("32GB CC sector comm d", and 512MiB's) */
    empty_large(512u << 20, "39560e7b13a93b07a243fd2720ffa7cb3e1d2e505ab3629e79f46313512cda06", cz_rng_next(&rng));
    empty_large(32ull << 30, "077e5fde35c50a9303a55009e3498a4ebedff39c42b710b730d8ec7ac7afa63e", cz_rng_next(&rng));
    empty_large(64ull << 30, NULL, cz_rng_next(&rng)); /* tree_r 8-8-2: a binary top above the period */
    timing(2048, 0, 1, true, cz_rng_next(&rng));
    timing(8ull << 20, 3, 10, false, cz_rng_next(&rng)); /* 10 M constraints: witness only */
    cz_snap_sector s;
    CHECK(cz_snap_synthetic_sector(&s, 32ull << 30, 10, 1) == CZ_EUNSUPPORTED);
    CHECK(cz_snap_synthetic_sector(&s, 2048, 10, 1) == CZ_EINVAL);
    CHECK(cz_snap_synthetic_sector(&s, 3000, 1, 1) == CZ_EINVAL);
    uint64_t sz;
    CHECK(cz_snap_registered(3, &sz) == 0 && sz == 32ull << 30);
    CHECK(cz_snap_registered(5, &sz) == CZ_EINVAL);
    return cz_test_finish();
}
