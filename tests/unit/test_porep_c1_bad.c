/* Bad C1 input, on the real 2 KiB C1 (gpuproxy 2KiB.json, read in place from CZ_FIXTURES_DIR; skipped
 * with a message when absent): every rejection must say where. Damage is placed in the SECOND
 * challenge so that "challenge 1" in the message proves it is located, not defaulted:
 *   malformed JSON (truncated at a random point, a broken Phase1Out wrapper) -> CZ_EFORMAT;
 *   a field missing / of the wrong type inside challenge 1 -> partition, challenge, field named;
 *   a wrong registered proof (unknown, a known one of another size, the NI-PoRep name on a
 *   one-partition C1, the SyntheticPoRep name on interactive proofs) -> named, and for the synthetic
 *   name the public-input derivation names partition 0, the challenge and the rule;
 *   a tampered path hash or label row (valid JSON) -> the vanilla verifier names partition 0,
 *   challenge 1 and the proof (comm_d_proofs, comm_r_last_proof, drg_parents[k] / exp_parents[k],
 *   c_x); a column index or challenge node that disagrees with its path -> named by the parser or the
 *   verifier. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "filecoin/c1.h"
#include "filecoin/porep_inputs.h"
#include "filecoin/vanilla.h"
#include "porep_g16_run.h"
#include "testutil.h"
#include "util/json.h"

static const char *raw;  /* the C1 JSON */
static size_t rlen;
static char *ch1;        /* offset of challenge 1 in raw: its "comm_d_proofs" */

/* Copy of src (NUL-terminated) with the first `from` at or after offset `after` replaced by `to`;
 * NULL if not found. */
static char *replaced(const char *src, size_t after, const char *from, const char *to) {
    const char *p = strstr(src + after, from);
    if (!p) return NULL;
    size_t n = strlen(src), a = (size_t)(p - src), lf = strlen(from), lt = strlen(to);
    char *t = malloc(n - lf + lt + 1);
    memcpy(t, src, a), memcpy(t + a, to, lt), memcpy(t + a + lt, p + lf, n - a - lf + 1);
    return t;
}

static char *patched(size_t after, const char *from, const char *to) { return replaced(raw, after, from, to); }

static bool has(const char *s) { return strstr(cz_error_message(), s) != NULL; }

/* Parse must fail with rc, naming every string in want (NULL-terminated). */
static void expect_parse_error(const char *what, char *text, int rc_want, const char *const *want) {
    CHECK_MSG(text != NULL, "%s: pattern not found", what);
    if (!text) return;
    cz_c1 c1;
    int rc = cz_c1_parse(&c1, text, strlen(text));
    bool ok = rc == rc_want;
    for (int i = 0; ok && want[i]; i++) ok = has(want[i]);
    CHECK_MSG(ok, "%s: rc %d, message \"%s\"", what, rc, cz_error_message());
    printf("%-40s -> %s\n", what, cz_error_message());
    if (!rc) cz_c1_free(&c1);
    free(text);
}

/* Parses fine, then the vanilla verifier must reject it naming every string in want. */
static void expect_verify_error(const char *what, char *text, const char *const *want) {
    CHECK_MSG(text != NULL, "%s: pattern not found", what);
    if (!text) return;
    cz_c1 c1;
    int rc = cz_c1_parse(&c1, text, strlen(text));
    CHECK_MSG(rc == 0, "%s: %s", what, cz_error_message());
    if (!rc) {
        rc = cz_c1_verify(&c1, 0, true);
        bool ok = rc == CZ_EVERIFY;
        for (int i = 0; ok && want[i]; i++) ok = has(want[i]);
        CHECK_MSG(ok, "%s: rc %d, message \"%s\"", what, rc, cz_error_message());
        printf("%-40s -> %s\n", what, cz_error_message());
        cz_c1_free(&c1);
    }
    free(text);
}

/* Changes the last digit of the first number after `key` (at or after `after`). */
static char *digit_changed(size_t after, const char *key) {
    const char *p = strstr(raw + after, key);
    if (!p) return NULL;
    p += strlen(key);
    while (*p && (*p < '0' || *p > '9')) p++;
    while (p[1] >= '0' && p[1] <= '9') p++;
    char *t = malloc(rlen + 1);
    memcpy(t, raw, rlen + 1);
    t[p - raw] = *p == '1' ? '2' : '1';
    return t;
}

int main(void) {
    cz_rng rng;
    cz_test_rng(&rng);
    char path[1024];
    size_t wlen;
    char *wrapper = cz_test_read_fixture("ipfs-force-community+gpuproxy/2KiB.json", path, sizeof path, &wlen);
    if (!wrapper) {
        printf("2KiB.json fixture not found (set CZ_FIXTURES_DIR): check skipped, nothing tested\n");
        return cz_test_finish();
    }
    cz_json j;
    char *b64;
    size_t blen;
    uint8_t *bytes;
    CHECK(cz_json_parse(&j, wrapper, wlen) == 0);
    CHECK(cz_json_string(&j, cz_json_get(&j, 0, "Phase1Out"), &b64, &blen) == 0);
    CHECK(cz_base64_decode(b64, blen, &bytes, &rlen) == 0);
    cz_json_free(&j);
    char *text = malloc(rlen + 1);
    memcpy(text, bytes, rlen), text[rlen] = 0;
    free(bytes);
    raw = text;
    cz_c1 c1;
    CHECK_MSG(cz_c1_parse(&c1, raw, rlen) == 0, "%s", cz_error_message());
    CHECK_MSG(cz_c1_verify(&c1, 0, true) == 0, "%s", cz_error_message());
    cz_c1_free(&c1);
    ch1 = strstr(raw, "\"comm_d_proofs\"");
    ch1 = ch1 ? strstr(ch1 + 1, "\"comm_d_proofs\"") : NULL;
    CHECK(ch1 != NULL);
    if (!ch1) return cz_test_finish();
    size_t c1off = (size_t)(ch1 - raw);

    /* malformed JSON */
    size_t cut = 1 + (size_t)(cz_rng_next(&rng) % (rlen - 2));
    CHECK_MSG(cz_c1_parse(&c1, raw, cut) == CZ_EFORMAT, "truncated at %zu accepted", cut);
    {
        char *w = malloc(wlen + 1);
        memcpy(w, wrapper, wlen + 1);
        char *p = strstr(w, "\"Phase1Out\":\"");
        CHECK(p != NULL);
        if (p) p[strlen("\"Phase1Out\":\"") + 3] = '#'; /* not base64 */
        int rc = cz_c1_parse(&c1, w, wlen);
        CHECK_MSG(rc == CZ_EFORMAT && has("Phase1Out"), "broken base64: rc %d %s", rc, cz_error_message());
        free(w);
    }
    /* structure: missing fields / wrong types inside challenge 1 */
    static const char *const w_idx[] = {"partition 0 challenge 1", "comm_d_proofs", NULL};
    expect_parse_error("comm_d_proofs index renamed", patched(c1off, "\"index\":", "\"indez\":"), CZ_EFORMAT, w_idx);
    static const char *const w_rows[] = {"partition 0 challenge 1", "exp_parents", NULL};
    expect_parse_error("exp_parents rows renamed",
                       patched((size_t)(strstr(ch1, "\"exp_parents\"") - raw), "\"rows\":", "\"rowz\":"), CZ_EFORMAT,
                       w_rows);
    static const char *const w_leaf[] = {"partition 0 challenge 1", "comm_r_last_proof", NULL};
    expect_parse_error("comm_r_last_proof leaf byte as a string",
                       patched((size_t)(strstr(ch1, "\"comm_r_last_proof\"") - raw), "\"leaf\":[", "\"leaf\":[\"7\","),
                       CZ_EFORMAT, w_leaf);
    /* registered proof */
    static const char *const w_reg[] = {"registered_proof", NULL};
    expect_parse_error("unknown registered proof", patched(0, "StackedDrg2KiBV1_1", "StackedDrg2KiBV7_1"), CZ_EINVAL,
                       w_reg);
    static const char *const w_key[] = {"vanilla_proofs", "StackedDrg8MiBV1", NULL};
    expect_parse_error("2 KiB C1 claimed as 8 MiB", patched(0, "StackedDrg2KiBV1_1", "StackedDrg8MiBV1_1"), CZ_EFORMAT,
                       w_key);
    {   /* both names changed: the 2 KiB paths are too short for 8 MiB trees */
        char *t1 = patched(0, "StackedDrg2KiBV1_1", "StackedDrg8MiBV1_1");
        char *t2 = t1 ? replaced(t1, 0, "\"StackedDrg2KiBV1\"", "\"StackedDrg8MiBV1\"") : NULL;
        static const char *const w_size[] = {"partition 0 challenge 0", NULL};
        expect_parse_error("2 KiB proofs under 8 MiB names", t2, CZ_EFORMAT, w_size);
        free(t1);
    }
    static const char *const w_ni[] = {"vanilla_proofs", "13 partitions", "NonInteractive", NULL};
    expect_parse_error("1-partition C1 named NI-PoRep",
                       patched(0, "StackedDrg2KiBV1_1", "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep"), CZ_EFORMAT, w_ni);
    {   /* the SyntheticPoRep name: parses (same shape), but its challenges are not the synthetic rule's */
        char *t = patched(0, "StackedDrg2KiBV1_1", "StackedDrg2KiBV1_1_Feat_SyntheticPoRep");
        cz_c1 s;
        CHECK(t && cz_c1_parse(&s, t, strlen(t)) == 0);
        if (t && s.ch) {
            cz_fr pub[3 + 36];
            int rc = cz_porep_public_inputs(pub, &s, 0, true);
            CHECK_MSG(rc == CZ_EVERIFY && has("partition 0 challenge 0") && has("synthetic rule"), "rc %d %s", rc,
                      cz_error_message());
            printf("%-40s -> %s\n", "interactive C1 named SyntheticPoRep", cz_error_message());
            rc = cz_c1_verify(&s, 0, true);
            CHECK_MSG(rc == CZ_EVERIFY && has("partition 0 challenge 0"), "verify: rc %d %s", rc, cz_error_message());
            cz_c1_free(&s);
        }
        free(t);
    }
    static const char *const w_col[] = {"partition 0 challenge 1", "drg_parents[", "column.index", NULL};
    expect_parse_error("drg parent column.index changed",
                       digit_changed((size_t)(strstr(ch1, "\"drg_parents\"") - raw), "\"index\":"), CZ_EFORMAT, w_col);
    /* tampered values (valid JSON): located by the vanilla verifier */
    static const char *const w_d[] = {"partition 0 challenge 1", "comm_d_proofs", NULL};
    expect_verify_error("comm_d_proofs path hash", digit_changed(c1off, "\"hashes\":[["), w_d);
    expect_verify_error("comm_d_proofs leaf", digit_changed(c1off, "\"leaf\":["), w_d);
    static const char *const w_node[] = {"partition 0 challenge 1", "differs from the challenge", NULL};
    {   /* challenge 1's labeling_proofs[0].node: the paths still open the old node */
        const char *lp = strstr(ch1, "\"labeling_proofs\"");
        expect_verify_error("labeling_proofs node changed", lp ? digit_changed((size_t)(lp - raw), "\"node\":") : NULL,
                            w_node);
    }
    static const char *const w_rl[] = {"partition 0 challenge 1", "comm_r_last_proof", NULL};
    expect_verify_error("comm_r_last_proof path hash",
                        digit_changed((size_t)(strstr(ch1, "\"comm_r_last_proof\"") - raw), "\"hashes\":[["), w_rl);
    static const char *const w_drg[] = {"partition 0 challenge 1", "drg_parents[", NULL};
    expect_verify_error("drg parent label row", digit_changed((size_t)(strstr(ch1, "\"drg_parents\"") - raw), "\"rows\":[["),
                        w_drg);
    static const char *const w_exp[] = {"partition 0 challenge 1", "exp_parents[", NULL};
    expect_verify_error("exp parent label row", digit_changed((size_t)(strstr(ch1, "\"exp_parents\"") - raw), "\"rows\":[["),
                        w_exp);
    static const char *const w_cx[] = {"partition 0 challenge 1", "c_x", NULL};
    expect_verify_error("c_x path hash", digit_changed((size_t)(strstr(ch1, "\"c_x\"") - raw), "\"hashes\":[["), w_cx);
    free(text), free(b64), free(wrapper);
    return cz_test_finish();
}
