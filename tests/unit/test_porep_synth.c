/* Synthetic C1 (no sealing) at 2 KiB: a CC sector bound to a miner and sector (comm_d the zero commitment of
 * every size, checked against published values; replica_id theirs); its public inputs derive verifier-side and the
 * vanilla verifier
 * accepts it with the graph check on (real DRG / expander parents, also when a challenged node is a
 * parent of another challenge), the circuit is fully
 * satisfied, a damaged column row is caught; generation works for every sector size (the 8 MiB
 * and 512 MiB satisfaction checks are in tests/slow). */
#include "porep_synth_check.h"

int main(void) {
    cz_rng rng;
    cz_test_rng(&rng);
    porep_synth_check(2048, cz_rng_next(&rng));
    /* generation and public inputs for the large sizes (10 partitions at 32 / 64 GiB) */
    uint64_t sizes[] = {8ull << 20, 512ull << 20, 32ull << 30, 64ull << 30};
    for (int i = 0; i < 4; i++) {
        cz_c1 c1;
        unsigned parts = i == 2 ? 3 : 1; /* 32 GiB: partitions 0..2 */
        int rc = cz_porep_synthetic_c1(&c1, sizes[i], parts, cz_rng_next(&rng), 1000, 1);
        CHECK_MSG(rc == 0, "%s", cz_error_message());
        if (rc) continue;
        cz_fr pub[3 + 18 * 18];
        CHECK(cz_porep_public_inputs(pub, &c1, parts - 1, true) == 0);
        for (unsigned k = 0; k < parts; k++) CHECK_MSG(cz_c1_verify(&c1, k, true) == 0, "%s", cz_error_message());
        /* every path leads to the roots the circuit is given */
        bool ok = true;
        for (unsigned n = 0; n < parts * c1.challenges; n++) {
            cz_fr root;
            cz_poseidon_hash(&root, c1.ch[n].exp[7].rows, c1.params.layers);
            cz_fr got;
            cz_por_root(&got, &c1.params.tree, &root, c1.ch[n].exp[7].index, c1.ch[n].exp[7].path);
            ok &= cz_fr_equal(&got, &c1.comm_c[n]);
        }
        CHECK(ok);
        cz_c1_free(&c1);
    }
    /* At 2 KiB (64 nodes) a challenged node is often a parent of the other challenge: its opened
     * rows must then be its real labels. Many seeds, so that case is certainly among them. */
    unsigned shared = 0;
    for (int t = 0; t < 48; t++) {
        cz_c1 c1;
        if (cz_porep_synthetic_c1(&c1, 2048, 1, cz_rng_next(&rng), 1000, 1)) {
            CHECK_MSG(0, "%s", cz_error_message());
            continue;
        }
        CHECK_MSG(cz_c1_verify(&c1, 0, true) == 0, "%s", cz_error_message());
        for (unsigned i = 0; i < 2; i++)
            for (int q = 0; q < 14; q++) {
                uint64_t par = q < 6 ? c1.ch[i].drg[q].index : c1.ch[i].exp[q - 6].index;
                shared += par == c1.ch[1 - i].challenge;
            }
        /* parents out of the graph's order (columns still in tree_c) are rejected */
        if (c1.ch[0].drg[1].index != c1.ch[0].drg[2].index) {
            cz_porep_column keep = c1.ch[0].drg[1];
            c1.ch[0].drg[1] = c1.ch[0].drg[2];
            CHECK(cz_c1_verify(&c1, 0, true) == CZ_EVERIFY);
            c1.ch[0].drg[1] = keep;
        }
        cz_c1_free(&c1);
    }
    printf("48 synthetic 2 KiB C1s: a challenged node was a parent of the other challenge %u times\n", shared);
    CHECK(shared > 0);
    cz_c1 c1;
    CHECK(cz_porep_synthetic_c1(&c1, 2048, 2, 1, 1000, 1) == CZ_EINVAL);
    /* A synthetic C1 is a CC sector: its comm_d is the zero commitment of its size, as others compute it:
     * rust-fil-proofs' compute_comm_d(SectorSize(2048), &[]) test (fc7e9282...) and the zero-piece commitment
     * table of Soramitsu's cpp-filecoin (fuhon) runtime, from which a CC sector's unsealed CID is made; its
     * replica_id is the one the miner and sector derive (cz_porep_check_sector), and no other's. */
    static const struct { uint64_t size; const char *hex; } zero_comm_d[5] = {
        {2048, "fc7e928296e516faade986b28f92d44a4f24b935485223376a799027bc18f833"},
        {8ull << 20, "65f29e5d98d246c38b388cfc06db1f6b021303c5a289000bdce832a9c3ec421c"},
        {512ull << 20, "39560e7b13a93b07a243fd2720ffa7cb3e1d2e505ab3629e79f46313512cda06"},
        {32ull << 30, "077e5fde35c50a9303a55009e3498a4ebedff39c42b710b730d8ec7ac7afa63e"},
        {64ull << 30, "e64005a6bfe3777953b8ad6ef93f0fca1049b2041654f2a411f7702799cece02"}};
    for (int i = 0; i < 5; i++) {
        const uint64_t miner = cz_rng_next(&rng) >> (cz_rng_next(&rng) & 63), sector = cz_rng_next(&rng) >> 40;
        if (cz_porep_synthetic_c1(&c1, zero_comm_d[i].size, 1, cz_rng_next(&rng), miner, sector)) {
            CHECK_MSG(0, "%s", cz_error_message());
            continue;
        }
        char hex[65];
        for (int b = 0; b < 32; b++) snprintf(hex + 2 * b, 3, "%02x", c1.comm_d[b]);
        CHECK_MSG(!strcmp(hex, zero_comm_d[i].hex), "%llu-byte CC comm_d %s", (unsigned long long)zero_comm_d[i].size,
                  hex);
        CHECK_MSG(cz_porep_check_sector(&c1, miner, sector) == 0, "%s", cz_error_message());
        CHECK(cz_porep_check_sector(&c1, miner, sector + 1) == CZ_EVERIFY &&
              cz_porep_check_sector(&c1, miner ^ 1, sector) == CZ_EVERIFY);
        cz_c1_free(&c1);
    }
    return cz_test_finish();
}
