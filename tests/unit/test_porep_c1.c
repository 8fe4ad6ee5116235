/* The C1 parser and the PoRep circuit in witness mode on a real 2 KiB C1 output (lotus Commit2In
 * wrapper from ipfs-force-community/gpuproxy, read in place from the shared fixtures).
 * Oracles: the public inputs rust-fil-proofs derives for it (filecoin-circuits.md §1.2, checked
 * there by verify_c1.py / graph.py against the fixture), every constraint of the synthesized
 * circuit satisfied (record + witness), and a tampered label / path hash that must break it;
 * malformed input must fail with a message naming the partition, challenge and field. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cz_error.h"
#include "filecoin/c1.h"
#include "filecoin/graph.h"
#include "filecoin/porep_inputs.h"
#include "filecoin/vanilla.h"
#include "r1cs/cs.h"
#include "r1cs/r1cs.h"
#include "testutil.h"
#include "util/json.h"

/* The fixture, read in place (testutil: $CZ_FIXTURES_DIR or the shared folder). */
static char *load_fixture(size_t *len) {
    char path[1024];
    return cz_test_read_fixture("ipfs-force-community+gpuproxy/2KiB.json", path, sizeof path, len);
}

static void test_graph_primitives(void) {
    uint8_t d[64];
    char hex[129];
    cz_blake2b_512(d, (const uint8_t *)"abc", 3);
    cz_hex_encode(hex, d, 64);
    CHECK_MSG(!strcmp(hex, "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
                           "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923"), "%s", hex);
    cz_blake2b_512(d, (const uint8_t *)"", 0);
    cz_hex_encode(hex, d, 64);
    CHECK(!strcmp(hex, "786a02f742015903c6c6fd852552d272912f4740e15847618a86e217f71f5419"
                       "d25e1031afee585313896444934eb04b903a685b1448b755d56f701afe9be2ce"));
    /* several blocks, the last one whole (256 B) or partial (1000 B): Python's hashlib.blake2b as the oracle */
    uint8_t msg[1000];
    for (int i = 0; i < 1000; i++) msg[i] = (uint8_t)(i % 251);
    cz_blake2b_512(d, msg, 256);
    cz_hex_encode(hex, d, 64);
    CHECK_MSG(!strcmp(hex, "93463ac058b6163eb43be3f5bb32b28541498f4e3366f1effe253ad44e1e076e"
                           "41c3616046027c82a7124f8f4746668ad10b12e8e25a95ac8f3151df01cd5a93"), "%s", hex);
    cz_blake2b_512(d, msg, 1000);
    cz_hex_encode(hex, d, 64);
    CHECK_MSG(!strcmp(hex, "c11e1c0340bd7e5a1b275f1230c962fad215ecb1391486e74e31b960a2f29963"
                           "81a5fad092da06841d5f26e38f6ecfeaf441acbcd1c2de61aef121e7927175f5"), "%s", hex);
    /* §1.2: the parents of challenges 56 and 4 of the 2 KiB fixture (porep_id 5) */
    uint8_t pid[32];
    cz_porep_id(pid, 5);
    uint64_t g[8];
    static const uint64_t d56[6] = {55, 54, 55, 50, 11, 6}, e56[8] = {1, 38, 50, 15, 29, 40, 24, 57};
    static const uint64_t d4[6] = {3, 3, 1, 2, 3, 0}, e4[8] = {55, 9, 44, 7, 0, 23, 45, 29};
    cz_porep_drg_parents(g, 56, pid);
    CHECK(!memcmp(g, d56, sizeof d56));
    cz_porep_exp_parents(g, 56, 64, pid);
    CHECK(!memcmp(g, e56, sizeof e56));
    cz_porep_drg_parents(g, 4, pid);
    CHECK(!memcmp(g, d4, sizeof d4));
    cz_porep_exp_parents(g, 4, 64, pid);
    CHECK(!memcmp(g, e4, sizeof e4));
    cz_porep_drg_parents(g, 1, pid);
    CHECK(g[0] == 0 && g[5] == 0);
}

static void test_json_basics(void) {
    cz_json j;
    const char *ok = " {\"a\": [1, 2, {\"b\": \"x\\u00e9\\\"\"}], \"c\": null, \"d\": -1.5e3, \"e\": true} ";
    CHECK(cz_json_parse(&j, ok, strlen(ok)) == 0);
    int64_t a = cz_json_get(&j, 0, "a");
    uint64_t v = 0;
    CHECK(cz_json_count(&j, a) == 3 && cz_json_u64(&j, cz_json_at(&j, a, 1), &v) == 0 && v == 2);
    char *s = NULL;
    CHECK(cz_json_string(&j, cz_json_get(&j, cz_json_at(&j, a, 2), "b"), &s, NULL) == 0 && s && !strcmp(s, "x\xc3\xa9\""));
    free(s);
    CHECK(cz_json_type(&j, cz_json_get(&j, 0, "c")) == CZ_JSON_NULL && cz_json_get(&j, 0, "zz") == -1);
    CHECK(cz_json_u64(&j, cz_json_get(&j, 0, "d"), &v) == CZ_EFORMAT);
    cz_json_free(&j);
    const char *bad[] = {"", "{", "[1,]", "{\"a\" 1}", "01", "\"\\x\"", "[1] 2", "{\"a\":1,}", "\"a\nb\"", "tru", "-", "1.", "[1e]"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) CHECK_MSG(cz_json_parse(&j, bad[i], strlen(bad[i])) == CZ_EFORMAT, "%s", bad[i]);
    uint8_t *o;
    size_t n;
    CHECK(cz_base64_decode("aGVsbG8=", 8, &o, &n) == 0 && n == 5 && !memcmp(o, "hello", 5));
    free(o);
    CHECK(cz_base64_decode("aGVsbG9=", 8, &o, &n) == CZ_EFORMAT); /* non-zero padding bits */
    CHECK(cz_base64_decode("aGV$bG8=", 8, &o, &n) == CZ_EFORMAT);
    CHECK(cz_base64_decode("aGVsbG8", 7, &o, &n) == CZ_EFORMAT);
    /* check only (out NULL, the server's API-edge check): the same verdicts, the decoded length */
    n = 0;
    CHECK(cz_base64_decode("aGVsbG8=", 8, NULL, &n) == 0 && n == 5);
    CHECK(cz_base64_decode("aGVsbA==", 8, NULL, &n) == 0 && n == 4);
    CHECK(cz_base64_decode("aGVsbG9=", 8, NULL, &n) == CZ_EFORMAT);
    CHECK(cz_base64_decode("aGV$bG8=", 8, NULL, &n) == CZ_EFORMAT);
    CHECK(cz_base64_decode("aG=sbG8=", 8, NULL, &n) == CZ_EFORMAT); /* padding inside */
    CHECK(cz_base64_decode("aGVsbG8", 7, NULL, &n) == CZ_EFORMAT);
    /* C1 envelopes: a bad base64 payload, a C1 without its fields, not an object */
    cz_c1 c1;
    const char *w1 = "{\"SectorNum\":0,\"Phase1Out\":\"@@@@\"}";
    CHECK(cz_c1_parse(&c1, w1, strlen(w1)) == CZ_EFORMAT && strstr(cz_error_message(), "Phase1Out"));
    const char *w2 = "{\"registered_proof\":\"StackedDrg2KiBV1_1\"}";
    CHECK(cz_c1_parse(&c1, w2, strlen(w2)) == CZ_EFORMAT && strstr(cz_error_message(), "comm_r"));
    CHECK(cz_c1_parse(&c1, "[]", 2) == CZ_EFORMAT);
    const char *w3 = "{\"registered_proof\":\"StackedDrg2KiBV1_1\",\"comm_r\":[1]}";
    CHECK(cz_c1_parse(&c1, w3, strlen(w3)) == CZ_EFORMAT && strstr(cz_error_message(), "comm_r is not an array of 32 bytes"));
}

static cz_fr fr_hex(const char *hex) {
    uint8_t b[32];
    cz_fr r;
    cz_hex_decode(b, 32, hex);
    cz_fr_from_bytes_be(&r, b);
    return r;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Synthesizes partition 0 in mode; on success the witness vectors (witness modes) and, in record
 * mode, the matrices are returned. */
static int synth(const cz_c1 *c1, unsigned mode, cz_r1cs *r, cz_fr **in, cz_fr **aux, uint64_t *naux, double *secs) {
    cz_porep_witness w;
    int rc = cz_c1_witness(c1, 0, &w);
    if (rc) return rc;
    cz_cs *cs;
    cz_cs_new(&cs, mode);
    double t0 = now();
    rc = cz_porep_synthesize(cs, &c1->params, &w);
    if (secs) *secs = now() - t0;
    if (!rc) rc = cz_cs_finalize(cs);
    uint64_t nin;
    if (!rc && (mode & CZ_CS_RECORD)) rc = cz_cs_take_r1cs(cs, r);
    if (!rc) rc = cz_cs_take_witness(cs, in, &nin, aux, naux);
    cz_cs_free(cs);
    return rc;
}

/* Row row of m has exactly the columns cols (sorted). */
static bool row_is(const cz_csr *m, uint64_t row, const uint32_t *cols, unsigned n) {
    uint64_t b = m->row_ptr[row], e = m->row_ptr[row + 1];
    if (e - b != n) return false;
    for (unsigned i = 0; i < n; i++)
        if (m->col[b + i] != cols[i]) return false;
    return true;
}

/* filecoin-circuits.md §1.7: the first allocation and constraint indices (aux j = column 40 + j). */
static void check_layout(const cz_r1cs *r) {
    const uint32_t X = 40;
    CHECK(row_is(&r->a, 0, (uint32_t[]){1}, 1) && row_is(&r->b, 0, (uint32_t[]){0}, 1) &&
          row_is(&r->c, 0, (uint32_t[]){X + 0}, 1)); /* replica_id inputize */
    CHECK(row_is(&r->a, 1, (uint32_t[]){0, X + 1}, 2) && row_is(&r->b, 1, (uint32_t[]){X + 1}, 1)); /* bit 0 */
    CHECK(r->a.row_ptr[257] == r->a.row_ptr[256] && r->c.row_ptr[257] - r->c.row_ptr[256] == 256); /* unpacking */
    CHECK(row_is(&r->a, 257, (uint32_t[]){2}, 1) && row_is(&r->c, 257, (uint32_t[]){X + 256}, 1)); /* comm_d */
    CHECK(row_is(&r->a, 258, (uint32_t[]){3}, 1) && row_is(&r->c, 258, (uint32_t[]){X + 257}, 1)); /* comm_r */
    /* Poseidon(comm_c, comm_r_last): first s-box squares comm_c (aux 259) */
    CHECK(row_is(&r->a, 259, (uint32_t[]){0, X + 259}, 2) && row_is(&r->c, 259, (uint32_t[]){X + 260}, 1));
    CHECK(row_is(&r->a, 570, (uint32_t[]){X + 257}, 1) && row_is(&r->c, 570, (uint32_t[]){X + 570}, 1));
    /* challenge 0: tree_d level-0 index bit (aux 572), then the picks, left to_bits from 574 */
    CHECK(row_is(&r->a, 571, (uint32_t[]){0, X + 572}, 2) && row_is(&r->b, 571, (uint32_t[]){X + 572}, 1));
    CHECK(row_is(&r->b, 572, (uint32_t[]){X + 572}, 1) && row_is(&r->b, 573, (uint32_t[]){X + 572}, 1));
    CHECK(row_is(&r->b, 574, (uint32_t[]){X + 576}, 1));
    /* level-0 node pack: constraint 45,952 defines aux 45,906; level 1's index bit is aux 45,907 */
    CHECK(row_is(&r->c, 45952, (uint32_t[]){X + 45906}, 1) && row_is(&r->b, 45952, (uint32_t[]){0}, 1));
    CHECK(row_is(&r->a, 45953, (uint32_t[]){0, X + 45907}, 2));
}

static void check_inputs(const cz_fr *in) {
    /* §1.2: replica_id, comm_d, comm_r, then per challenge 18 small integers */
    cz_fr want[40];
    want[1] = fr_hex("3d39f1778960f57c008ec819e72f06fdb186d335a08bb98f68b8a4b9f522ae7a");
    want[2] = fr_hex("050f8ea85bc3607bb137565e3bc3b57e32456b6512580786d43f63604e9c3a60");
    want[3] = fr_hex("440d3193e02d6f6f6eb2df4b647c9e06615550e990f90cbcaab08c7050bf2911");
    static const uint64_t small[36] = {56, 55, 54, 55, 50, 11, 6, 1, 38, 50, 15, 29, 40, 24, 57, 56, 56, 56,
                                       4,  3,  3,  1,  2,  3,  0, 55, 9, 44, 7,  0,  23, 45, 29, 4,  4,  4};
    for (int i = 0; i < 36; i++) cz_fr_set_u64(&want[4 + i], small[i]);
    for (int i = 1; i < 40; i++) CHECK_MSG(cz_fr_equal(&in[i], &want[i]), "public input %d", i);
}

/* Replaces the first occurrence of from (after skip bytes) with to (same length). */
static bool patch(char *text, size_t skip, const char *from, const char *to) {
    char *p = strstr(text + skip, from);
    if (!p) return false;
    memcpy(p, to, strlen(to));
    return true;
}

static void test_fixture(void) {
    size_t len;
    char *wrapper = load_fixture(&len);
    if (!wrapper) {
        printf("2 KiB C1 fixture not found (set CZ_FIXTURES_DIR): skipping the fixture checks\n");
        return;
    }
    cz_c1 c1;
    int rc = cz_c1_parse(&c1, wrapper, len);
    CHECK_MSG(rc == 0, "%s", cz_error_message());
    if (rc) {
        free(wrapper);
        return;
    }
    CHECK(!strcmp(c1.registered_proof, "StackedDrg2KiBV1_1") && c1.proof_id == 5);
    CHECK(c1.partitions == 1 && c1.challenges == 2 && c1.ch[0].challenge == 56 && c1.ch[1].challenge == 4);
    /* the tree roots verify_c1.py reports for this fixture (filecoin-circuits.md §5.3) */
    cz_fr want_c = fr_hex("4d0f58878dc29d896d79b1701747d4b3d5e2378f4fad722063e90e8efa188416");
    cz_fr want_rl = fr_hex("0849f9eb692401387442c586da992d2378c6104bdfcba684ba0068fb5de055f1");
    CHECK(cz_fr_equal(&c1.comm_c[0], &want_c) && cz_fr_equal(&c1.comm_c[1], &want_c));
    CHECK(cz_fr_equal(&c1.comm_r_last[0], &want_rl) && cz_fr_equal(&c1.comm_r_last[1], &want_rl));
    double srec = 0, swit = 0;
    cz_r1cs r = {0};
    cz_fr *in = NULL, *aux = NULL, *in2 = NULL, *aux2 = NULL;
    uint64_t naux = 0, naux2 = 0;
    rc = synth(&c1, CZ_CS_RECORD | CZ_CS_WITNESS, &r, &in, &aux, &naux, &srec);
    CHECK_MSG(rc == 0, "2 KiB circuit: %s", cz_error_message());
    if (rc) {
        cz_c1_free(&c1), free(wrapper);
        return;
    }
    CHECK(r.num_constraints == 2687921 && r.num_inputs == 40 && naux == 2685673);
    check_inputs(in);
    check_layout(&r);
    /* verifier side: the same inputs from the C1 record and the seed alone; replica_id from the
     * prover f01001 (LEB128 e9 07), sector 0, the ticket and comm_d, porep_id of V1_1 2 KiB (5) */
    cz_fr pub[39];
    CHECK_MSG(cz_porep_public_inputs(pub, &c1, 0, true) == 0, "%s", cz_error_message());
    CHECK(!memcmp(pub, in + 1, 39 * sizeof(cz_fr)));
    c1.ch[1].exp[5].index ^= 1; /* a parent the graph does not have */
    CHECK(cz_porep_public_inputs(pub, &c1, 0, true) == CZ_EVERIFY && strstr(cz_error_message(), "challenge 1: exp_parents[5]"));
    CHECK(cz_porep_public_inputs(pub, &c1, 0, false) == 0);
    c1.ch[1].exp[5].index ^= 1;
    uint8_t prover[32] = {0xe9, 0x07}, porep_id[32], rid[32];
    cz_porep_id(porep_id, c1.proof_id);
    cz_porep_replica_id(rid, prover, 0, c1.ticket, c1.comm_d, porep_id);
    CHECK(!memcmp(rid, c1.replica_id, 32));
    cz_porep_replica_id(rid, prover, 1, c1.ticket, c1.comm_d, porep_id);
    CHECK(memcmp(rid, c1.replica_id, 32) != 0);
    /* the same through the miner id (the ID address payload: unsigned LEB128, as Go's binary.PutUvarint) and the
     * daemon's check of a request's sector against the C1 */
    uint8_t pid[32];
    cz_porep_prover_id(pid, 1001);
    CHECK(!memcmp(pid, prover, 32));
    static const struct { uint64_t id; uint8_t len, b[10]; } leb[] = {
        {0, 1, {0}}, {127, 1, {0x7f}}, {128, 2, {0x80, 0x01}}, {300, 2, {0xac, 0x02}},
        {UINT64_MAX, 10, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}}};
    for (size_t i = 0; i < sizeof leb / sizeof leb[0]; i++) {
        uint8_t want[32] = {0};
        memcpy(want, leb[i].b, leb[i].len);
        cz_porep_prover_id(pid, leb[i].id);
        CHECK_MSG(!memcmp(pid, want, 32), "prover_id of %llu", (unsigned long long)leb[i].id);
    }
    CHECK_MSG(cz_porep_check_sector(&c1, 1001, 0) == 0, "%s", cz_error_message());
    CHECK(cz_porep_check_sector(&c1, 1001, 1) == CZ_EVERIFY && strstr(cz_error_message(), "miner f01001 sector 1"));
    CHECK(cz_porep_check_sector(&c1, 1000, 0) == CZ_EVERIFY && strstr(cz_error_message(), "miner f01000 sector 0"));
    c1.ticket[5] ^= 1; /* the ticket is bound too */
    CHECK(cz_porep_check_sector(&c1, 1001, 0) == CZ_EVERIFY);
    c1.ticket[5] ^= 1;
    c1.seed[0] ^= 1; /* another seed derives other challenges */
    CHECK(cz_porep_public_inputs(pub, &c1, 0, true) == CZ_EVERIFY && strstr(cz_error_message(), "partition 0 challenge"));
    c1.seed[0] ^= 1;
    CHECK(cz_porep_public_inputs(pub, &c1, 1, true) == CZ_EINVAL);
    double t0 = now();
    rc = cz_r1cs_check(NULL, &r, in, aux, 0);
    CHECK_MSG(rc == 0, "2 KiB circuit not satisfied: %s", cz_error_message());
    double tchk = now() - t0;
    /* witness-only mode (the prover's hot path) must give the very same assignment */
    CHECK(synth(&c1, CZ_CS_WITNESS, NULL, &in2, &aux2, &naux2, &swit) == 0);
    CHECK(naux2 == naux && in2 && aux2 && !memcmp(in2, in, 40 * sizeof(cz_fr)) && !memcmp(aux2, aux, naux * sizeof(cz_fr)));
    free(in2), free(aux2);
    /* the parallel witness writes the same assignment straight into caller buffers */
    cz_porep_witness w;
    CHECK(cz_c1_witness(&c1, 0, &w) == 0);
    in2 = calloc(40, sizeof(cz_fr)), aux2 = calloc(naux, sizeof(cz_fr));
    double tpar = now();
    rc = cz_porep_witness_parallel(&c1.params, &w, in2, 40, aux2, naux, 2);
    tpar = now() - tpar;
    CHECK_MSG(rc == 0, "%s", cz_error_message());
    CHECK(!memcmp(in2, in, 40 * sizeof(cz_fr)) && !memcmp(aux2, aux, naux * sizeof(cz_fr)));
    CHECK(cz_porep_witness_parallel(&c1.params, &w, in2, 40, aux2, naux - 1, 2) == CZ_ERANGE);
    printf("2 KiB parallel witness (2 threads) %.2f s\n", tpar);
    free(in2), free(aux2);
    printf("2 KiB partition: record+witness %.2f s, witness only %.2f s, check %.2f s, satisfied: %s\n", srec, swit, tchk,
           rc ? "no" : "yes");
    /* the CPU vanilla verifier accepts the fixture, and names what a damaged one gets wrong */
    CHECK_MSG(cz_c1_verify(&c1, 0, true) == 0, "%s", cz_error_message());
    CHECK(cz_c1_verify(&c1, 1, true) == CZ_EINVAL);
    cz_fr_add(&c1.ch[1].data_leaf, &c1.ch[1].data_leaf, &CZ_FR_ONE_V);
    CHECK(cz_c1_verify(&c1, 0, false) == CZ_EVERIFY && strstr(cz_error_message(), "partition 0 challenge 1: comm_d_proofs"));
    cz_fr_sub(&c1.ch[1].data_leaf, &c1.ch[1].data_leaf, &CZ_FR_ONE_V);
    c1.ch[0].r_index ^= 8;
    CHECK(cz_c1_verify(&c1, 0, false) == CZ_EVERIFY && strstr(cz_error_message(), "challenge 0: a path index"));
    c1.ch[0].r_index ^= 8;
    /* a tampered label row (DRG parent 0 of challenge 0, layer 1) breaks the circuit */
    cz_fr_add(&c1.ch[0].drg[0].rows[0], &c1.ch[0].drg[0].rows[0], &CZ_FR_ONE_V);
    CHECK(cz_c1_verify(&c1, 0, false) == CZ_EVERIFY && strstr(cz_error_message(), "challenge 0: drg_parents[0]"));
    CHECK(synth(&c1, CZ_CS_WITNESS, NULL, &in2, &aux2, &naux2, NULL) == 0);
    CHECK(cz_r1cs_check(NULL, &r, in2, aux2, 0) == CZ_EVERIFY);
    free(in2), free(aux2);
    cz_c1_free(&c1);

    /* the raw C1 JSON, for structural damage */
    cz_json j;
    CHECK(cz_json_parse(&j, wrapper, len) == 0);
    char *b64;
    size_t blen, rlen;
    uint8_t *raw;
    CHECK(cz_json_string(&j, cz_json_get(&j, 0, "Phase1Out"), &b64, &blen) == 0);
    CHECK(cz_base64_decode(b64, blen, &raw, &rlen) == 0);
    free(b64);
    cz_json_free(&j);
    char *c1text = malloc(rlen + 1), *t = malloc(rlen + 1);
    memcpy(c1text, raw, rlen), c1text[rlen] = 0;
    free(raw);
    CHECK(cz_c1_parse(&c1, c1text, rlen) == 0); /* the raw form parses too */
    cz_c1_free(&c1);

    memcpy(t, c1text, rlen + 1);
    CHECK(patch(t, 0, "StackedDrg2KiBV1_1", "StackedDrg2KiBV9_1"));
    CHECK(cz_c1_parse(&c1, t, rlen) == CZ_EINVAL && strstr(cz_error_message(), "registered_proof"));
    CHECK(cz_c1_parse(&c1, c1text, rlen - 5) == CZ_EFORMAT); /* truncated */
    memcpy(t, c1text, rlen + 1);
    CHECK(patch(t, 0, "\"index\":", "\"indez\":"));
    rc = cz_c1_parse(&c1, t, rlen);
    CHECK_MSG(rc == CZ_EFORMAT && strstr(cz_error_message(), "partition 0 challenge 0") &&
                  strstr(cz_error_message(), "comm_d_proofs level 0"),
              "%s", cz_error_message());
    /* second challenge's data: damage the first comm_d_proofs after the first challenge's */
    char *second = strstr(c1text + 1, "\"comm_d_proofs\"");
    second = second ? strstr(second + 1, "\"comm_d_proofs\"") : NULL;
    CHECK(second != NULL);
    if (second) {
        memcpy(t, c1text, rlen + 1);
        CHECK(patch(t, (size_t)(second - c1text), "\"leaf\":[", "\"leaf\":{"));
        rc = cz_c1_parse(&c1, t, rlen);
        CHECK(rc == CZ_EFORMAT); /* no longer JSON */
    }
    /* a tampered path hash (valid JSON): parses, but the circuit is no longer satisfied */
    memcpy(t, c1text, rlen + 1);
    char *h = strstr(t, "\"hashes\":[[");
    CHECK(h != NULL);
    if (h) {
        h += strlen("\"hashes\":[[");
        /* change the first byte value's last digit */
        char *e = h;
        while (*e >= '0' && *e <= '9') e++;
        e[-1] = e[-1] == '1' ? '2' : '1';
        CHECK(cz_c1_parse(&c1, t, rlen) == 0);
        CHECK(cz_c1_verify(&c1, 0, true) == CZ_EVERIFY && strstr(cz_error_message(), "partition 0 challenge 0: comm_d_proofs"));
        CHECK(synth(&c1, CZ_CS_WITNESS, NULL, &in2, &aux2, &naux2, NULL) == 0);
        CHECK(cz_r1cs_check(NULL, &r, in2, aux2, 0) == CZ_EVERIFY);
        free(in2), free(aux2);
        cz_c1_free(&c1);
    }
    free(t), free(c1text), free(wrapper);
    cz_r1cs_free(&r);
    free(in), free(aux);
}

int main(void) {
    test_graph_primitives();
    test_json_basics();
    test_fixture();
    return cz_test_finish();
}
