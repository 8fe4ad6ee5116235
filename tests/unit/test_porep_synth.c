/* Synthetic C1 (no sealing) at 2 KiB: its public inputs derive verifier-side and the vanilla verifier
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
    return cz_test_finish();
}
