/* Filecoin's sector sizes and seal-proof names (filecoin/sector.h), the one table every parser and generator uses,
 * against the names typed in from rust-filecoin-proofs-api's RegisteredSealProof (types.rs; filecoin-ffi and
 * go-state-types number them the same, append-only): each id names its proof, a C1's registered_proof string, and
 * its size is the size of that name; a size that is none of the five is refused by the registry. */
#include <stdio.h>
#include <string.h>

#include "../testutil.h"
#include "engine/circuit.h"
#include "engine/engine.h"
#include "filecoin/sector.h"

int main(void) {
    static const char *const want[20] = {
        "StackedDrg2KiBV1", "StackedDrg8MiBV1", "StackedDrg512MiBV1", "StackedDrg32GiBV1", "StackedDrg64GiBV1",
        "StackedDrg2KiBV1_1", "StackedDrg8MiBV1_1", "StackedDrg512MiBV1_1", "StackedDrg32GiBV1_1",
        "StackedDrg64GiBV1_1", "StackedDrg2KiBV1_1_Feat_SyntheticPoRep", "StackedDrg8MiBV1_1_Feat_SyntheticPoRep",
        "StackedDrg512MiBV1_1_Feat_SyntheticPoRep", "StackedDrg32GiBV1_1_Feat_SyntheticPoRep",
        "StackedDrg64GiBV1_1_Feat_SyntheticPoRep", "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep",
        "StackedDrg8MiBV1_2_Feat_NonInteractivePoRep", "StackedDrg512MiBV1_2_Feat_NonInteractivePoRep",
        "StackedDrg32GiBV1_2_Feat_NonInteractivePoRep", "StackedDrg64GiBV1_2_Feat_NonInteractivePoRep"};
    static const unsigned long long bytes[5] = {2048ull, 8388608ull, 536870912ull, 34359738368ull, 68719476736ull};
    for (unsigned id = 0; id < 20; id++) {
        char got[64];
        cz_seal_proof_name(got, sizeof got, id);
        CHECK_MSG(!strcmp(got, want[id]), "seal proof %u: %s, want %s", id, got, want[id]);
        CHECK_MSG(cz_sector_sizes[id % 5] == bytes[id % 5], "seal proof %u: size %llu", id,
                  (unsigned long long)cz_sector_sizes[id % 5]);
    }
    for (int i = 0; i < 5; i++) CHECK(cz_sector_index(bytes[i]) == i);
    static const unsigned long long not_sizes[] = {0, 1024, 4096, 2049, 8388607, 16ull << 30, 128ull << 30, ~0ull};
    for (size_t i = 0; i < sizeof not_sizes / sizeof *not_sizes; i++) {
        const cz_circuit *c = (const cz_circuit *)1;
        CHECK_MSG(cz_sector_index(not_sizes[i]) == -1, "%llu taken for a sector size", not_sizes[i]);
        CHECK(cz_circuit_for_request(CZ_KIND_POREP, not_sizes[i], false, &c) == CZ_EINVAL && !c);
    }
    printf("20 seal proof names, 5 sector sizes, %zu sizes refused\n", sizeof not_sizes / sizeof *not_sizes);
    return cz_test_finish();
}
