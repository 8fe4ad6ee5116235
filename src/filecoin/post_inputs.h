/* PoSt public values outside the circuit (verifier side): registered-proof ids, leaf challenges and
 * the public-input vector of one partition in FallbackPoStCompound::generate_public_inputs order
 * (per circuit sector: comm_r, then each challenge's leaf index), commitment CIDs and curio's
 * public-info JSON (lib/proof/testgolden/postpub.json). */
#ifndef CZ_FILECOIN_POST_INPUTS_H
#define CZ_FILECOIN_POST_INPUTS_H

#include <stdbool.h>
#include <stdint.h>

#include "filecoin/post_circuit.h"

/* filecoin-ffi RegisteredPoStProof numbering: 0-4 StackedDrgWinning{2KiB,8MiB,512MiB,32GiB,64GiB}V1,
 * 5-9 StackedDrgWindow*V1 (ApiVersion 1.0.0), 10-14 StackedDrgWindow*V1_1 (= proofs-api V1_2,
 * ApiVersion 1.2.0). Fills kind, sector size and whether challenge indices restart per sector
 * (V1_2). 0 or CZ_EINVAL. */
int cz_post_registered(unsigned id, cz_post_kind *kind, uint64_t *sector_size, bool *v1_2);

/* generate_leaf_challenge_inner: LE u64 of SHA256(randomness ‖ sector_id u64 LE ‖ index u64 LE)[0..8]
 * mod nodes, for index = get_challenge_index(api, sector_index, count, n), n = 0..count-1. */
void cz_post_leaf_challenges(uint64_t *out, const cz_post_params *p, bool v1_2, const uint8_t randomness[32],
                             uint64_t sector_id, uint64_t sector_index);

/* The public inputs (without ONE) of partition k: p->sectors * (1 + challenges) values. Window:
 * sectors are that partition's public sectors (1..p->sectors; the last repeated to fill it), their
 * index in the whole PoSt is k * p->sectors + i. Winning: exactly one sector, taken p->sectors times
 * (verify_winning_post), circuit sector i challenged at index i. The randomness must be a field
 * element (curio masks byte 31). 0, CZ_EINVAL or CZ_ERANGE. */
int cz_post_public_inputs(cz_fr *out, const cz_post_params *p, bool v1_2, const uint8_t randomness[32],
                          const uint64_t *sector_ids, const cz_fr *comm_rs, unsigned nsectors, unsigned k);

/* Decodes a commitment CID (multibase base32 'b', CIDv1, fil-commitment-sealed 0xf102 /
 * fil-commitment-unsealed 0xf101, a 32-byte Poseidon / SHA-256 trunc254 multihash) to the raw
 * commitment bytes; *codec gets the codec. 0 or CZ_EFORMAT. */
int cz_commcid_decode(uint8_t out[32], uint64_t *codec, const char *cid, size_t len);

/* curio's WindowPoSt public info JSON: {"Randomness": base64, "Proofs": [{"PoStProof": id}],
 * "ChallengedSectors": [{"SealProof", "SectorNumber", "SealedCID": {"/": cid}}], "Prover": id}. */
typedef struct {
    uint8_t randomness[32];
    unsigned post_proof;
    uint64_t prover;
    unsigned nsectors;
    uint64_t *sector_ids;
    cz_fr *comm_rs;
} cz_post_public;
int cz_post_public_parse(cz_post_public *out, const char *text, size_t len);
void cz_post_public_free(cz_post_public *pp);

#endif
