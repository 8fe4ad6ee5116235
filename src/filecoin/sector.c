/* The sector sizes and registered-proof names; see sector.h. */
#include "filecoin/sector.h"

#include <stdio.h>

const uint64_t cz_sector_sizes[CZ_SECTOR_SIZE_COUNT] = {2048ull, 8ull << 20, 512ull << 20, 32ull << 30, 64ull << 30};
const char *const cz_sector_names[CZ_SECTOR_SIZE_COUNT] = {"2KiB", "8MiB", "512MiB", "32GiB", "64GiB"};
const char *const cz_seal_versions[CZ_SEAL_VERSION_COUNT] = {"V1", "V1_1", "V1_1_Feat_SyntheticPoRep",
                                                             "V1_2_Feat_NonInteractivePoRep"};

int cz_sector_index(uint64_t sector_size) {
    for (int i = 0; i < CZ_SECTOR_SIZE_COUNT; i++)
        if (cz_sector_sizes[i] == sector_size) return i;
    return -1;
}

void cz_seal_proof_name(char *out, size_t n, unsigned id) {
    snprintf(out, n, "StackedDrg%s%s", cz_sector_names[id % CZ_SECTOR_SIZE_COUNT],
             cz_seal_versions[id / CZ_SECTOR_SIZE_COUNT % CZ_SEAL_VERSION_COUNT]);
}
