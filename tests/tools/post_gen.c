/* cz_tool_post_gen: synthetic PoSt vanilla proofs for the e2e tests (cz_post_synthetic_sector: they answer
 * the real challenges of the given randomness), one hex line per sector proof: the bincode
 * FallbackPoStSectorProof bytes Curio sends in vanilla_proofs.
 * usage: cz_tool_post_gen window|winning SECTOR_SIZE V1_2(0|1) RANDOMNESS_HEX PARTITION N SEED
 * (sector ids SEED % 100000 + i; Window sector i of partition k is at index k * sectors + i). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "filecoin/post_synth.h"

int main(int argc, char **argv) {
    if (argc != 8 || strlen(argv[4]) != 64) {
        fprintf(stderr, "usage: %s window|winning SECTOR_SIZE V1_2 RANDOMNESS_HEX PARTITION N SEED\n", argv[0]);
        return 2;
    }
    cz_post_kind kind = strcmp(argv[1], "winning") ? CZ_POST_WINDOW : CZ_POST_WINNING;
    uint64_t size = strtoull(argv[2], NULL, 0), k = strtoull(argv[5], NULL, 0), seed = strtoull(argv[7], NULL, 0);
    bool v12 = atoi(argv[3]) != 0;
    unsigned n = (unsigned)atoi(argv[6]);
    uint8_t rnd[32];
    for (int i = 0; i < 32; i++) {
        unsigned x;
        if (sscanf(argv[4] + 2 * i, "%2x", &x) != 1) return 2;
        rnd[i] = (uint8_t)x;
    }
    cz_post_params p;
    if (cz_post_params_for(&p, kind, size)) {
        fprintf(stderr, "%s\n", cz_error_message());
        return 2;
    }
    for (unsigned i = 0; i < n; i++) {
        cz_post_sector_proof sp;
        uint64_t index = kind == CZ_POST_WINNING ? 0 : k * p.sectors + i;
        uint8_t *buf;
        size_t len;
        if (cz_post_synthetic_sector(&sp, &p, v12, rnd, seed % 100000 + i, index, seed + i) ||
            cz_post_sector_proof_encode(&sp, &p, &buf, &len)) {
            fprintf(stderr, "%s\n", cz_error_message());
            return 2;
        }
        for (size_t j = 0; j < len; j++) printf("%02x", buf[j]);
        printf("\n");
        free(buf);
        cz_post_sector_proof_free(&sp);
    }
    return 0;
}
