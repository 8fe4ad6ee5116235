/* Synthetic C1 (no sealing) at 2 KiB: its public inputs derive verifier-side, the circuit is fully
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
        int rc = cz_porep_synthetic_c1(&c1, sizes[i], parts, cz_rng_next(&rng));
        CHECK_MSG(rc == 0, "%s", cz_error_message());
        if (rc) continue;
        cz_fr pub[3 + 18 * 18];
        CHECK(cz_porep_public_inputs(pub, &c1, parts - 1, false) == 0);
        for (unsigned k = 0; k < parts; k++) CHECK_MSG(cz_c1_verify(&c1, k, false) == 0, "%s", cz_error_message());
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
    cz_c1 c1;
    CHECK(cz_porep_synthetic_c1(&c1, 2048, 2, 1) == CZ_EINVAL);
    return cz_test_finish();
}
