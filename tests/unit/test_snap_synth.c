/* SnapDeals with synthetic sectors (random old replica and new data, full trees, the new replica
 * encoded with the real rho) at 2 KiB (1 partition; upstream's 16 KiB test size with 2 partitions
 * is tests/slow/test_snap_synth_16k.c): the vanilla PartitionProof survives a bincode round trip,
 * passes the vanilla verifier, and its circuit (record|witness) is satisfied with public inputs equal to the ones
 * derived from (k, h, commitments) alone; a damaged aux value breaks it. Wrong k / h / commitments
 * fail the verifier, malformed bytes and the wrong sector size fail the parser, sizes too large for
 * full trees are refused. The timing generator (any size) gives a complete witness whose only
 * unsatisfied rows are the tree_r_new root equalities. */
#include "snap_check.h"

int main(void) {
    cz_rng rng;
    cz_test_rng(&rng);
    one(2048, 0, cz_rng_next(&rng));
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
