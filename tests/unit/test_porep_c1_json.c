/* C1 JSON writer (cz_c1_to_json):
 *   the real 2 KiB C1 (gpuproxy, CZ_FIXTURES_DIR; skipped with a message when absent), parsed and
 *   written back, is byte-identical to upstream's serde_json output (so field order, labels,
 *   labeling parents, leaves and path digits are all upstream's);
 *   C1s of every kind (sealed 2 KiB V1_1 / SyntheticPoRep / NI-PoRep with 13 partitions, and
 *   sparse 32 GiB (Sub paths) and 64 GiB (Top paths) V1_1 with all 10 partitions) survive
 *   write -> parse -> write unchanged, keep their challenges, and the parsed C1 still verifies with
 *   the kind's challenge rule and the graph (the C1 JSON and public inputs for every registered kind). */
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "filecoin/c1.h"
#include "filecoin/porep_inputs.h"
#include "filecoin/synth.h"
#include "filecoin/vanilla.h"
#include "porep_g16_run.h"
#include "testutil.h"
#include "util/json.h"

static void roundtrip(const char *what, cz_c1 *c1) {
    char *j1 = NULL, *j2 = NULL;
    size_t l1, l2;
    CHECK_MSG(cz_c1_to_json(c1, &j1, &l1) == 0, "%s: %s", what, cz_error_message());
    cz_c1 back;
    int rc = cz_c1_parse(&back, j1, l1);
    CHECK_MSG(rc == 0, "%s: %s", what, cz_error_message());
    if (rc) {
        free(j1);
        return;
    }
    CHECK(cz_c1_to_json(&back, &j2, &l2) == 0 && l1 == l2 && !memcmp(j1, j2, l1));
    CHECK(back.proof_id == c1->proof_id && back.partitions == c1->partitions && back.challenges == c1->challenges &&
          !memcmp(back.comm_r, c1->comm_r, 32) && !memcmp(back.replica_id, c1->replica_id, 32) &&
          !memcmp(back.seed, c1->seed, 32));
    bool same = true;
    for (size_t n = 0; n < (size_t)c1->partitions * c1->challenges; n++) {
        const cz_porep_challenge *a = &c1->ch[n], *b = &back.ch[n];
        same &= a->challenge == b->challenge && a->d_index == b->d_index && cz_fr_equal(&a->data_leaf, &b->data_leaf) &&
                !memcmp(a->comm_r_last_path, b->comm_r_last_path, cz_tree_path_len(&c1->params.tree) * sizeof(cz_fr));
        for (int q = 0; q < 6; q++) same &= a->drg[q].index == b->drg[q].index && !memcmp(a->drg[q].rows, b->drg[q].rows, sizeof a->drg[q].rows);
    }
    CHECK_MSG(same, "%s: the parsed C1 differs", what);
    /* every partition for small sectors; the last one for the large (the vanilla check is ~CPU-light) */
    unsigned k0 = c1->params.sector_size > (1u << 30) ? back.partitions - 1 : 0;
    for (unsigned k = k0; k < back.partitions; k++)
        CHECK_MSG(cz_c1_verify(&back, k, true) == 0, "%s partition %u: %s", what, k, cz_error_message());
    printf("%s: %zu bytes of JSON, %u partition(s), round trip exact, verifies\n", what, l1, back.partitions);
    cz_c1_free(&back);
    free(j1), free(j2);
}

/* cz_base64_encode (the Commit2In wrapper's Phase1Out): RFC 4648 §10 vectors, and random bytes of
 * every length 0..99 decode back through cz_base64_decode. */
static void base64(cz_rng *rng) {
    const char *vec[7][2] = {{"", ""}, {"f", "Zg=="}, {"fo", "Zm8="}, {"foo", "Zm9v"},
                             {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"}};
    char out[160];
    for (int i = 0; i < 7; i++) {
        size_t n = strlen(vec[i][0]);
        cz_base64_encode(out, (const uint8_t *)vec[i][0], n);
        CHECK_MSG(strcmp(out, vec[i][1]) == 0 && cz_base64_encoded_len(n) == strlen(vec[i][1]), "base64(\"%s\") = %s",
                  vec[i][0], out);
    }
    for (size_t n = 0; n < 100; n++) {
        uint8_t in[100], *back = NULL;
        size_t blen = 0;
        for (size_t i = 0; i < n; i++) in[i] = (uint8_t)cz_rng_next(rng);
        cz_base64_encode(out, in, n);
        CHECK(strlen(out) == cz_base64_encoded_len(n));
        CHECK_MSG(cz_base64_decode(out, strlen(out), &back, &blen) == 0 && blen == n && !memcmp(back, in, n),
                  "base64 round trip of %zu bytes", n);
        free(back);
    }
}

int main(void) {
    cz_rng rng;
    cz_test_rng(&rng);
    base64(&rng);
    char path[1024];
    size_t wlen;
    char *wrapper = cz_test_read_fixture("ipfs-force-community+gpuproxy/2KiB.json", path, sizeof path, &wlen);
    if (wrapper) {
        cz_json j;
        char *b64 = NULL;
        size_t blen, rlen = 0;
        uint8_t *raw = NULL;
        CHECK(cz_json_parse(&j, wrapper, wlen) == 0);
        CHECK(cz_json_string(&j, cz_json_get(&j, 0, "Phase1Out"), &b64, &blen) == 0);
        CHECK(cz_base64_decode(b64, blen, &raw, &rlen) == 0);
        cz_json_free(&j);
        cz_c1 c1;
        CHECK(cz_c1_parse(&c1, (const char *)raw, rlen) == 0);
        char *out = NULL;
        size_t olen = 0;
        CHECK(cz_c1_to_json(&c1, &out, &olen) == 0);
        CHECK_MSG(olen == rlen && !memcmp(out, raw, rlen), "the real C1 is not reproduced (%zu vs %zu bytes)", olen, rlen);
        printf("real 2 KiB C1: %zu bytes reproduced %s\n", rlen, olen == rlen && !memcmp(out, raw, rlen) ? "exactly" : "NOT");
        cz_c1_free(&c1);
        free(out), free(raw), free(b64), free(wrapper);
    } else {
        printf("2KiB.json fixture not found (set CZ_FIXTURES_DIR): byte-exact check skipped\n");
    }
    unsigned ids[3] = {5, 10, 15};
    for (int i = 0; i < 3; i++) {
        cz_c1 c1;
        CHECK(cz_porep_sealed_c1(&c1, ids[i], cz_rng_next(&rng), 1000, 1) == 0);
        roundtrip(c1.registered_proof, &c1);
        cz_c1_free(&c1);
    }
    cz_c1 c1;
    CHECK(cz_porep_synthetic_c1(&c1, 32ull << 30, 10, cz_rng_next(&rng), 1000, 1) == 0);
    roundtrip("sparse 32 GiB V1_1", &c1);
    cz_c1_free(&c1);
    CHECK(cz_porep_synthetic_c1(&c1, 64ull << 30, 10, cz_rng_next(&rng), 1000, 1) == 0);
    roundtrip("sparse 64 GiB V1_1", &c1);
    cz_c1_free(&c1);
    cz_c1 empty = {0};
    char *o;
    size_t ol;
    CHECK(cz_c1_to_json(&empty, &o, &ol) == CZ_EINVAL);
    return cz_test_finish();
}
