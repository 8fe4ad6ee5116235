/* SnapDeals at upstream's 16 KiB test size (storage-proofs-update tests: 6,300,021 constraints):
 * 2 partitions (a partition bit, a partition path above the apex tree) and an arity-8 sub tree.
 * Both partitions of one synthetic sector through bincode, the vanilla verifier and the circuit
 * in record|witness mode (1.5 GB, ~10 s CPU per partition), as tests/unit/test_snap_synth.c does
 * for 2 KiB; the same for an empty update whose old replica repeats every 64 nodes (cz_snap_empty_update_sector, what
 * gen-vanilla makes above 8 MiB); and the timing generator for partition 1 (only the tree_r_new root rows fail). */
#include "../unit/snap_check.h"

int main(void) {
    cz_rng rng;
    cz_test_rng(&rng);
    one(16384, 0, cz_rng_next(&rng));
    one_of(16384, 0, cz_rng_next(&rng), 64);
    timing(16384, 1, 1, true, cz_rng_next(&rng));
    return cz_test_finish();
}
