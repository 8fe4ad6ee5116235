/* cuzk-bench gen-vanilla porep: a synthetic C1 (src/filecoin/synth.h) written as the
 * SealCommitPhase1Output JSON by cz_c1_to_json (the writer that reproduces a real C1 byte for byte; it
 * recomputes labels, leaves and column hashes, so the JSON is a consistent vanilla proof) inside lotus'
 * Commit2In wrapper {"SectorNum","Miner","Phase1Out": base64(JSON),"SectorSize"}, i.e. what Curio sends plus the
 * miner (gpuproxy's wrappers name it too). */
#include <stdio.h>
#include <stdlib.h>

#include "cz_error.h"
#include "filecoin/c1.h"
#include "filecoin/synth.h"
#include "util/json.h"

char *cz_bench_c1_wrapper(uint64_t sector_size, uint64_t sector_num, uint64_t miner_id, uint64_t seed);

/* The Commit2In wrapper of a fresh synthetic C1 of miner f0<miner_id>'s sector sector_num (malloc'ed), or NULL with
 * cz_error set. The wrapper also names the miner ("Miner", as gpuproxy's does), for `single --c1`. */
char *cz_bench_c1_wrapper(uint64_t sector_size, uint64_t sector_num, uint64_t miner_id, uint64_t seed) {
    cz_porep_params p;
    if (cz_porep_params_for(&p, sector_size)) return NULL;
    cz_c1 c1;
    if (cz_porep_synthetic_c1(&c1, sector_size, p.partitions, seed, miner_id, sector_num)) return NULL;
    char *js;
    size_t n;
    int rc = cz_c1_to_json(&c1, &js, &n);
    cz_c1_free(&c1);
    if (rc) return NULL;
    char *out = malloc(cz_base64_encoded_len(n) + 128);
    if (!out) {
        free(js);
        cz_error(CZ_ENOMEM, "out of memory");
        return NULL;
    }
    char *w = out + sprintf(out, "{\"SectorNum\":%llu,\"Miner\":\"f0%llu\",\"Phase1Out\":\"",
                            (unsigned long long)sector_num, (unsigned long long)miner_id);
    cz_base64_encode(w, (const uint8_t *)js, n);
    w += cz_base64_encoded_len(n);
    sprintf(w, "\",\"SectorSize\":%llu}", (unsigned long long)sector_size);
    free(js);
    return out;
}
