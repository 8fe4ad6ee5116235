/* A real bellperson proof and verifying key (polka-storage's own 2 KiB PoRep setup, bellperson 0.26, see
 * the fixture's _source): the proof decodes with full validation, the vk's points decode, and the vk
 * written as a bellperson `.vk` reads back equal. Full verification needs the PoRep public inputs (PoRep
 * circuit work). The fixture lives outside the repo: CZ_FIXTURES_DIR (default /work/shared/fixtures/real);
 * without it the test says so and checks nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cz_error.h"
#include "groth16/params.h"
#include "groth16/proof.h"
#include "testutil.h"

/* The hex string value of "key" in a flat JSON object, decoded into a new buffer. */
static uint8_t *json_hex(const char *json, const char *key, size_t *len) {
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\"", key);
    const char *p = strstr(json, pat);
    if (!p) return NULL;
    p = strchr(p + strlen(pat), '"');
    if (!p) return NULL;
    p++;
    const char *e = strchr(p, '"');
    if (!e || (e - p) % 2) return NULL;
    *len = (size_t)(e - p) / 2;
    uint8_t *out = malloc(*len + 1);
    char *tmp = strndup(p, (size_t)(e - p));
    int rc = cz_hex_decode(out, *len, tmp);
    free(tmp);
    if (rc) {
        free(out);
        return NULL;
    }
    return out;
}

int main(void) {
    char path[512];
    char *json = cz_test_read_fixture("eigerco+polka-storage/own-setup-2KiB-porep-vk-proof.json", path, sizeof path, NULL);
    if (!json) {
        printf("fixture %s not found: nothing checked\n", path);
        return cz_test_finish();
    }
    size_t plen = 0, vlen = 0;
    uint8_t *proof = json_hex(json, "proof", &plen), *vkc = json_hex(json, "vk_compressed", &vlen);
    CHECK(proof && plen == CZ_GROTH16_PROOF_BYTES);
    CHECK(vkc && vlen == 48 * 3 + 96 * 3 + 4 + 48 * 40); /* 40 IC points (vk_ic_count) */
    if (!proof || !vkc || plen != CZ_GROTH16_PROOF_BYTES || vlen < 436) return cz_test_finish();

    cz_groth16_proof pf;
    int rc = cz_groth16_proof_decode(&pf, proof);
    CHECK_MSG(rc == 0, "real proof: %s", cz_error_message());
    uint8_t again[CZ_GROTH16_PROOF_BYTES];
    cz_groth16_proof_encode(again, &pf);
    CHECK(memcmp(again, proof, sizeof again) == 0);

    /* The compressed vk, field order as bellperson's VerifyingKey::write. */
    cz_groth16_vk vk;
    memset(&vk, 0, sizeof vk);
    const uint8_t *p = vkc;
    CHECK(cz_g1_from_compressed(&vk.alpha_g1, p, CZ_DECODE_CHECK_SUBGROUP) == 0);
    p += 48;
    CHECK(cz_g1_from_compressed(&vk.beta_g1, p, CZ_DECODE_CHECK_SUBGROUP) == 0);
    p += 48;
    CHECK(cz_g2_from_compressed(&vk.beta_g2, p, CZ_DECODE_CHECK_SUBGROUP) == 0);
    p += 96;
    CHECK(cz_g2_from_compressed(&vk.gamma_g2, p, CZ_DECODE_CHECK_SUBGROUP) == 0);
    p += 96;
    CHECK(cz_g1_from_compressed(&vk.delta_g1, p, CZ_DECODE_CHECK_SUBGROUP) == 0);
    p += 48;
    CHECK(cz_g2_from_compressed(&vk.delta_g2, p, CZ_DECODE_CHECK_SUBGROUP) == 0);
    p += 96;
    vk.ic_len = (size_t)p[0] << 24 | (size_t)p[1] << 16 | (size_t)p[2] << 8 | p[3];
    p += 4;
    CHECK(vk.ic_len == 40 && (size_t)(p - vkc) + 48 * vk.ic_len == vlen);
    if (vk.ic_len == 40) {
        vk.ic = malloc(vk.ic_len * sizeof *vk.ic);
        for (size_t i = 0; i < vk.ic_len; i++, p += 48)
            CHECK(cz_g1_from_compressed(&vk.ic[i], p, CZ_DECODE_CHECK_SUBGROUP) == 0 &&
                  !cz_g1_affine_is_infinity(&vk.ic[i]));
        char out[64];
        snprintf(out, sizeof out, "/tmp/cz_test_fixture_%d.vk", (int)getpid());
        cz_groth16_vk back;
        CHECK(cz_groth16_vk_write_file(out, &vk) == 0);
        CHECK(cz_groth16_vk_read_file(&back, out) == 0);
        CHECK(back.ic_len == 40 && !memcmp(back.ic, vk.ic, 40 * sizeof *vk.ic) &&
              !memcmp(&back.delta_g2, &vk.delta_g2, sizeof vk.delta_g2) &&
              !memcmp(&back.alpha_g1, &vk.alpha_g1, sizeof vk.alpha_g1));
        cz_groth16_vk_free(&back);
        cz_groth16_vk_free(&vk);
        unlink(out);
    }
    free(proof);
    free(vkc);
    free(json);
    return cz_test_finish();
}
