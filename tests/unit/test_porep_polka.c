/* The polka-storage 2 KiB PoRep triple (vk + proof from their own random setup over the rust-fil-proofs
 * 18.1 circuits; fixtures.md §2.7) verified end to end: public inputs derived here from the record's
 * public values alone (porep_id = 0 as polka-storage sets it, replica_id from prover_id / sector / ticket /
 * comm_d, challenges from
 * the seed, DRG + expander parents from the graph), then our Groth16 verifier. This checks input
 * generation and the verifier against data nobody here wrote. Negative controls: one flipped bit of
 * the seed, of the ticket, of comm_r, and of a proof byte must each make it fail. The fixture is read
 * in place from CZ_FIXTURES_DIR (default /work/shared/fixtures/real); without it nothing is checked. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "filecoin/porep_inputs.h"
#include "groth16/verify.h"
#include "testutil.h"

/* The hex string value of "key" decoded into out (exactly len bytes expected); 0 on success. */
static int json_hex(const char *json, const char *key, uint8_t *out, size_t len) {
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\"", key);
    const char *p = strstr(json, pat);
    if (!p || !(p = strchr(p + strlen(pat), '"'))) return -1;
    p++;
    const char *e = strchr(p, '"');
    if (!e || (size_t)(e - p) != 2 * len) return -1;
    char *tmp = strndup(p, (size_t)(e - p));
    int rc = cz_hex_decode(out, len, tmp);
    free(tmp);
    return rc;
}

static long long json_int(const char *json, const char *key) {
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\"", key);
    const char *p = strstr(json, pat);
    if (!p || !(p = strchr(p + strlen(pat), ':'))) return -1;
    return strtoll(p + 1, NULL, 10);
}

typedef struct {
    uint8_t prover_id[32], ticket[32], seed[32], comm_r[32], comm_d[32], porep_id[32];
    uint64_t sector;
} record;

/* Public inputs from the record alone, then verification. */
static int verify_record(const cz_groth16_pvk *pvk, const record *r, const uint8_t proof[192]) {
    cz_porep_params p;
    if (cz_porep_params_for(&p, 2048)) return -1;
    uint8_t replica_id[32];
    cz_porep_replica_id(replica_id, r->prover_id, r->sector, r->ticket, r->comm_d, r->porep_id);
    cz_fr in[3 + 18 * CZ_POREP_MAX_CHALLENGES];
    int rc = cz_porep_inputs_from_public(in, &p, r->porep_id, false, CZ_POREP_INTERACTIVE, replica_id, r->comm_d, r->comm_r, r->seed, 0);
    if (rc) return rc;
    return cz_groth16_verify_bytes(pvk, proof, in, 3 + 18 * p.challenges);
}

int main(void) {
    char path[512];
    char *json = cz_test_read_fixture("eigerco+polka-storage/own-setup-2KiB-porep-vk-proof.json", path, sizeof path, NULL);
    if (!json) {
        printf("fixture %s not found (set CZ_FIXTURES_DIR): check skipped, nothing verified\n", path);
        return cz_test_finish();
    }
    record r;
    uint8_t proof[192], vkc[48 * 3 + 96 * 3 + 4 + 48 * 40];
    CHECK(json_hex(json, "prover_id", r.prover_id, 32) == 0);
    CHECK(json_hex(json, "ticket", r.ticket, 32) == 0);
    CHECK(json_hex(json, "seed", r.seed, 32) == 0);
    CHECK(json_hex(json, "comm_r", r.comm_r, 32) == 0);
    CHECK(json_hex(json, "comm_d", r.comm_d, 32) == 0);
    CHECK(json_hex(json, "proof", proof, sizeof proof) == 0);
    CHECK(json_hex(json, "vk_compressed", vkc, sizeof vkc) == 0);
    long long sector = json_int(json, "sector_number"), pid = json_int(json, "registered_proof_id");
    CHECK(sector >= 0 && pid == 5);
    r.sector = (uint64_t)sector;
    /* porep_id: NOT the record's "porep_id" (05 0..., the rust-filecoin-proofs-api id of StackedDrg2KiBV1_1)
     * nor its "api_version" 1.1.0: polka-storage builds its PoRepConfig with porep_id = 32 zero bytes and
     * ApiVersion 1.2.0 (lib/polka-storage-proofs/src/porep/mod.rs seal_to_config; its pallet's config.rs
     * proof_id() also maps StackedDRG2KiBV1P1 to 0). 1.2.0 uses the same graph as 1.1.0. */
    uint8_t rec_porep_id[32];
    CHECK(json_hex(json, "porep_id", rec_porep_id, 32) == 0);
    memset(r.porep_id, 0, 32);
    /* the vk, compressed, in bellperson's VerifyingKey::write order */
    cz_groth16_vk vk;
    memset(&vk, 0, sizeof vk);
    const uint8_t *q = vkc;
    int bad = 0;
    bad |= cz_g1_from_compressed(&vk.alpha_g1, q, CZ_DECODE_CHECK_SUBGROUP), q += 48;
    bad |= cz_g1_from_compressed(&vk.beta_g1, q, CZ_DECODE_CHECK_SUBGROUP), q += 48;
    bad |= cz_g2_from_compressed(&vk.beta_g2, q, CZ_DECODE_CHECK_SUBGROUP), q += 96;
    bad |= cz_g2_from_compressed(&vk.gamma_g2, q, CZ_DECODE_CHECK_SUBGROUP), q += 96;
    bad |= cz_g1_from_compressed(&vk.delta_g1, q, CZ_DECODE_CHECK_SUBGROUP), q += 48;
    bad |= cz_g2_from_compressed(&vk.delta_g2, q, CZ_DECODE_CHECK_SUBGROUP), q += 96;
    vk.ic_len = (size_t)q[0] << 24 | (size_t)q[1] << 16 | (size_t)q[2] << 8 | q[3];
    q += 4;
    CHECK(!bad && vk.ic_len == 40);
    if (bad || vk.ic_len != 40) {
        free(json);
        return cz_test_finish();
    }
    vk.ic = malloc(40 * sizeof *vk.ic);
    for (size_t i = 0; i < 40; i++, q += 48) CHECK(cz_g1_from_compressed(&vk.ic[i], q, CZ_DECODE_CHECK_SUBGROUP) == 0);
    cz_groth16_pvk pvk;
    CHECK(cz_groth16_pvk_init(&pvk, &vk) == 0);

    int rc = verify_record(&pvk, &r, proof);
    CHECK_MSG(rc == 0, "the polka-storage proof does not verify (rc %d: %s)", rc, cz_error_message());

    cz_rng rng;
    cz_test_rng(&rng);
    /* negative controls: one random bit of each public value / of the proof */
    const char *what[4] = {"seed", "ticket", "comm_r", "comm_d"};
    uint8_t *field[4] = {r.seed, r.ticket, r.comm_r, r.comm_d};
    for (int f = 0; f < 4; f++) {
        record m = r;
        uint8_t *mf = (uint8_t *)&m + (field[f] - (uint8_t *)&r);
        unsigned bit = (unsigned)(cz_rng_next(&rng) % 254); /* stays below r: bit 254/255 of byte 31 left alone */
        mf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        rc = verify_record(&pvk, &m, proof);
        CHECK_MSG(rc == CZ_EVERIFY, "flipped %s bit %u: rc %d, want CZ_EVERIFY", what[f], bit, rc);
    }
    {
        record m = r;
        m.sector ^= 1;
        CHECK(verify_record(&pvk, &m, proof) == CZ_EVERIFY);
        m = r;
        memcpy(m.porep_id, rec_porep_id, 32); /* the record's 05 0... id: different replica_id and graph */
        CHECK(verify_record(&pvk, &m, proof) == CZ_EVERIFY);
    }
    /* a flipped proof byte: either the point no longer decodes or the equation fails */
    for (int t = 0; t < 8; t++) {
        uint8_t pf[192];
        memcpy(pf, proof, sizeof pf);
        unsigned at = (unsigned)(cz_rng_next(&rng) % 192), bit = (unsigned)(cz_rng_next(&rng) % 8);
        pf[at] ^= (uint8_t)(1u << bit);
        rc = verify_record(&pvk, &r, pf);
        CHECK_MSG(rc != 0, "proof byte %u bit %u flipped: still verifies", at, bit);
    }
    cz_groth16_pvk_free(&pvk);
    cz_groth16_vk_free(&vk);
    free(json);
    return cz_test_finish();
}
