/* Filecoin's five sector sizes and the names of its registered proofs, in one place. filecoin-ffi numbers
 * its registered proofs so that a RegisteredSealProof's, RegisteredPoStProof's or RegisteredUpdateProof's
 * sector size is cz_sector_sizes[id % 5]; a seal proof's version is id / 5. */
#ifndef CZ_FILECOIN_SECTOR_H
#define CZ_FILECOIN_SECTOR_H

#include <stddef.h>
#include <stdint.h>

#define CZ_SECTOR_SIZE_COUNT 5
#define CZ_SEAL_VERSION_COUNT 4

/* 2 KiB, 8 MiB, 512 MiB, 32 GiB, 64 GiB, and their names as in "StackedDrg32GiBV1_1": "2KiB" ... "64GiB". */
extern const uint64_t cz_sector_sizes[CZ_SECTOR_SIZE_COUNT];
extern const char *const cz_sector_names[CZ_SECTOR_SIZE_COUNT];
/* RegisteredSealProof versions by id / 5: "V1", "V1_1", "V1_1_Feat_SyntheticPoRep", "V1_2_Feat_NonInteractivePoRep". */
extern const char *const cz_seal_versions[CZ_SEAL_VERSION_COUNT];

/* sector_size's index in cz_sector_sizes, or -1 when it is not a Filecoin sector size. */
int cz_sector_index(uint64_t sector_size);
/* The name of RegisteredSealProof `id` (0..19) in out (n bytes; 40 hold any): "StackedDrg32GiBV1_1". */
void cz_seal_proof_name(char *out, size_t n, unsigned id);

#endif
