/* The official PoSt parameter file of every registered PoSt circuit, derived, not copied: rust-fil-proofs names a
 * file v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-<shape>-<hex SHA-256 of the public parameters'
 * identifier>.params, the identifier being "FallbackPoSt::PublicParams{sector_size: S, challenge_count: C,
 * sector_count: N}" (storage-proofs-core parameter_cache.rs cache_identifier, storage-proofs-post fallback/vanilla.rs;
 * Winning's setup turns its 66 challenges of 1 sector into C = 1, N = 66). Here C and N are the circuit's own
 * (cz_post_params_for: challenges, sectors), the shape its tree's (8-0-0, 8-8-0, 8-8-2), the hash our SHA-256:
 * - every PoSt circuit of the registry (wpost-*, winning-*, 2 KiB .. 64 GiB) names exactly that file;
 * - the file is in rust-fil-proofs' parameters.json (the shared fixture, when present) with the circuit's sector
 *   size: so the 64 GiB Window and Winning files (two 8-8-2 entries parameters.json does not tell apart) are the
 *   right way round, and a circuit whose sectors or challenges were wrong would name a file that does not exist;
 * - the other kind's parameters give another hash (the derivation tells the two kinds apart at every size). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../testutil.h"
#include "engine/circuit.h"
#include "engine/engine.h"
#include "filecoin/post_circuit.h"
#include "gadgets/sha256.h"

static void name_of(char *out, size_t cap, const cz_post_params *p) {
    char id[160], hex[65];
    snprintf(id, sizeof id, "FallbackPoSt::PublicParams{sector_size: %llu, challenge_count: %u, sector_count: %u}",
             (unsigned long long)p->sector_size, p->challenges, p->sectors);
    uint8_t h[32];
    cz_sha256_bytes(h, (const uint8_t *)id, strlen(id));
    for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", h[i]);
    const char *shape = p->sector_size <= (512ull << 20) ? "8-0-0" : p->sector_size <= (32ull << 30) ? "8-8-0" : "8-8-2";
    snprintf(out, cap, "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-%s-%s.params", shape, hex);
}

int main(void) {
    static const uint64_t sizes[5] = {2048, 8u << 20, 512u << 20, 32ull << 30, 64ull << 30};
    char path[512];
    size_t jlen = 0;
    char *json = cz_test_read_fixture("filecoin-project+rust-fil-proofs/parameters.json", path, sizeof path, &jlen);
    if (!json) printf("parameters.json fixture absent: names checked against the derivation only\n");
    int named = 0;
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 5; i++) {
            const int kind = k ? CZ_KIND_WPOST : CZ_KIND_WINNING;
            const cz_circuit *c = NULL;
            CHECK(cz_circuit_for_request(kind, sizes[i], false, &c) == 0 && c);
            cz_post_params p, other;
            CHECK(cz_post_params_for(&p, k ? CZ_POST_WINDOW : CZ_POST_WINNING, sizes[i]) == 0);
            CHECK(cz_post_params_for(&other, k ? CZ_POST_WINNING : CZ_POST_WINDOW, sizes[i]) == 0);
            char want[256], wrong[256];
            name_of(want, sizeof want, &p);
            name_of(wrong, sizeof wrong, &other);
            CHECK_MSG(c && c->params_file && !strcmp(c->params_file, want), "%s: names %s, derived %s",
                      c ? c->id : "?", c && c->params_file ? c->params_file : "(none)", want);
            CHECK(strcmp(want, wrong) != 0);
            if (json) { /* "<name>": {"cid": ..., "digest": ..., "sector_size": S} */
                char key[300], size_field[64];
                snprintf(key, sizeof key, "\"%s\"", want);
                snprintf(size_field, sizeof size_field, "\"sector_size\": %llu", (unsigned long long)sizes[i]);
                const char *at = strstr(json, key), *end = at ? strchr(at, '}') : NULL;
                const char *sz = at ? strstr(at, size_field) : NULL;
                CHECK_MSG(at && end && sz && sz < end, "%s: %s in parameters.json with sector_size %llu",
                          c ? c->id : "?", want, (unsigned long long)sizes[i]);
            }
            named++;
        }
    printf("%d PoSt circuits name their derived file%s\n", named, json ? ", each in parameters.json" : "");
    free(json);
    return cz_test_finish();
}
