/* cz_tool_c1_gen: writes a generated C1 JSON (raw SealCommitPhase1Output) for tools and other
 * provers: a sector sealed in memory (cz_porep_sealed_c1: 2 KiB / 8 MiB, any kind from API 1.1 on)
 * or, with --sparse, the sparse V1_1 generator (any size; all of the proof's partitions), either of them
 * miner f01000's sector 1 (the requests of the e2e tests and cuzk-bench's defaults).
 * usage: cz_tool_c1_gen PROOF_ID SEED OUT.json [--sparse]   (PROOF_ID: registry id, e.g. 5 = 2 KiB
 * V1_1, 10 = 2 KiB SyntheticPoRep, 15 = 2 KiB NI-PoRep, 8 = 32 GiB V1_1 with --sparse)
 * Exit status: 0 written, 2 bad arguments or a generator error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "filecoin/c1.h"
#include "filecoin/synth.h"

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s PROOF_ID SEED OUT.json [--sparse]\n", argv[0]);
        return 2;
    }
    unsigned id = (unsigned)strtoul(argv[1], NULL, 0);
    uint64_t seed = strtoull(argv[2], NULL, 0);
    bool sparse = argc > 4 && !strcmp(argv[4], "--sparse");
    static const uint64_t sizes[5] = {2048ull, 8ull << 20, 512ull << 20, 32ull << 30, 64ull << 30};
    cz_c1 c1;
    int rc;
    if (sparse) {
        cz_porep_params p;
        rc = id / 5 != 1 ? cz_error(CZ_EINVAL, "--sparse makes V1_1 proofs (ids 5..9)")
                         : cz_porep_params_for(&p, sizes[id % 5]);
        if (!rc) rc = cz_porep_synthetic_c1(&c1, sizes[id % 5], p.partitions, seed, 1000, 1);
    } else {
        rc = cz_porep_sealed_c1(&c1, id, seed, 1000, 1);
    }
    char *json = NULL;
    size_t len = 0;
    if (!rc) rc = cz_c1_to_json(&c1, &json, &len);
    if (rc) {
        fprintf(stderr, "%s\n", cz_error_message());
        return 2;
    }
    FILE *f = fopen(argv[3], "wb");
    if (!f || fwrite(json, 1, len, f) != len || fclose(f)) {
        fprintf(stderr, "cannot write %s\n", argv[3]);
        return 2;
    }
    printf("%s: %u partition(s) x %u challenges, %zu bytes\n", c1.registered_proof, c1.partitions, c1.challenges, len);
    free(json);
    cz_c1_free(&c1);
    return 0;
}
