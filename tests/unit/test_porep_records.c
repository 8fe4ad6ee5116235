/* Public inputs for every record of rust-fil-proofs' seal_regression_records-v16.json (real seals
 * of 2 KiB ... 64 GiB sectors, API 1.0 / 1.1 / 1.2): replica_id, interactive challenges and graph
 * parents computed from the record's public values alone, for every partition. There is no vk here
 * to verify the proofs, so the checks are: no error, the record's shape matches the registered
 * sizes, challenges in 1..nodes-1, DRG parents before their node (node - 1 first, or last for API
 * 1.0), expander parents in range. The derivation itself is the one test_porep_c1 validates against
 * the real 2 KiB C1 (API 1.1); the API 1.0 DRG order follows drgraph.rs and is unverified here.
 * Records with the SyntheticPoRep feature derive their challenges by the synthetic rule (checked
 * against upstream's hard-coded vector in test_porep_challenges), which must give different
 * challenges from the interactive rule on the same record. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "filecoin/porep_inputs.h"
#include "testutil.h"
#include "util/json.h"

static char *load(size_t *len) {
    char path[1024];
    return cz_test_read_fixture("filecoin-project+rust-fil-proofs/seal_regression_records-v16.json", path, sizeof path,
                                len);
}

static int b32(const cz_json *j, int64_t t, uint8_t out[32]) {
    if (cz_json_count(j, t) != 32) return -1;
    for (uint32_t i = 0; i < 32; i++) {
        uint64_t v;
        if (cz_json_u64(j, cz_json_at(j, t, i), &v) || v > 255) return -1;
        out[i] = (uint8_t)v;
    }
    return 0;
}

int main(void) {
    size_t len;
    char *text = load(&len);
    if (!text) {
        printf("regression records not found (set CZ_FIXTURES_DIR): skipping\n");
        return cz_test_finish();
    }
    unsigned done = 0, synthetic = 0, lines = 0, partitions = 0, synth_same = 0;
    cz_fr *out = malloc((3 + 18 * 18) * sizeof(cz_fr));
    for (char *line = text; line && *line;) {
        char *nl = strchr(line, '\n');
        size_t ll = nl ? (size_t)(nl - line) : strlen(line);
        if (ll == 0) {
            line = nl ? nl + 1 : NULL;
            continue;
        }
        lines++;
        cz_json j;
        int rc = cz_json_parse(&j, line, ll);
        CHECK_MSG(rc == 0, "line %u: %s", lines, cz_error_message());
        if (rc) break;
        int64_t pc = cz_json_get(&j, 0, "porep_config");
        uint64_t size, parts, sector_id;
        uint8_t porep_id[32], comm_r[32], comm_d[32], prover[32], ticket[32], seed[32], rid[32];
        CHECK(cz_json_u64(&j, cz_json_get(&j, pc, "sector_size"), &size) == 0);
        CHECK(cz_json_u64(&j, cz_json_get(&j, pc, "partitions"), &parts) == 0);
        CHECK(cz_json_u64(&j, cz_json_get(&j, 0, "sector_id"), &sector_id) == 0);
        CHECK(b32(&j, cz_json_get(&j, pc, "porep_id"), porep_id) == 0 && b32(&j, cz_json_get(&j, 0, "comm_r"), comm_r) == 0 &&
              b32(&j, cz_json_get(&j, 0, "comm_d"), comm_d) == 0 && b32(&j, cz_json_get(&j, 0, "prover_id"), prover) == 0 &&
              b32(&j, cz_json_get(&j, 0, "ticket"), ticket) == 0 && b32(&j, cz_json_get(&j, 0, "seed"), seed) == 0);
        bool v1_0 = cz_json_streq(&j, cz_json_get(&j, pc, "api_version"), "V1_0_0");
        bool synth = cz_json_count(&j, cz_json_get(&j, pc, "api_features")) > 0;
        cz_json_free(&j);
        line = nl ? nl + 1 : NULL;
        if (synth) synthetic++;
        cz_porep_kind kind = synth ? CZ_POREP_SYNTHETIC : CZ_POREP_INTERACTIVE;
        cz_porep_params p;
        CHECK(cz_porep_params_for(&p, size) == 0 && p.partitions == parts);
        cz_porep_replica_id(rid, prover, sector_id, ticket, comm_d, porep_id);
        uint64_t nodes = 1ull << p.nodes_log2;
        bool ok = true;
        for (unsigned k = 0; k < parts; k++) {
            rc = cz_porep_inputs_from_public(out, &p, porep_id, v1_0, kind, rid, comm_d, comm_r, seed, k);
            if (synth && !rc) { /* the two rules agree on both challenges with probability ~C^2/nodes^2 */
                uint64_t ic[CZ_POREP_MAX_CHALLENGES], raw[4];
                cz_porep_interactive_challenges(ic, p.challenges, p.challenges * k, rid, seed, 1ull << p.nodes_log2);
                bool same = true;
                for (unsigned i = 0; i < p.challenges; i++) cz_fr_to_raw(raw, &out[3 + 18 * i]), same &= raw[0] == ic[i];
                synth_same += same;
            }
            CHECK_MSG(rc == 0, "line %u partition %u: %s", lines, k, cz_error_message());
            for (unsigned i = 0; i < p.challenges && !rc; i++) {
                uint64_t v[18];
                for (int q = 0; q < 18; q++) {
                    uint64_t raw[4];
                    cz_fr_to_raw(raw, &out[3 + 18 * i + q]);
                    v[q] = raw[0];
                    ok &= !raw[1] && !raw[2] && !raw[3];
                }
                ok &= v[0] >= 1 && v[0] < nodes && v[15] == v[0] && v[16] == v[0] && v[17] == v[0];
                for (int q = 1; q <= 6; q++) ok &= v[q] < v[0] || v[0] < 2;
                for (int q = 7; q <= 14; q++) ok &= v[q] < nodes;
                ok &= v1_0 ? v[6] == v[0] - 1 : v[1] == v[0] - 1;
            }
            partitions++;
        }
        CHECK_MSG(ok, "line %u: inputs out of range", lines);
        done++;
    }
    printf("%u records: public inputs of %u records (%u partitions) computed, %u of them SyntheticPoRep (%u with "
           "the interactive challenges)\n", lines, done, partitions, synthetic, synth_same);
    CHECK(lines == 448 && done == lines && synthetic > 0 && synth_same == 0);
    free(out);
    free(text);
    return cz_test_finish();
}
