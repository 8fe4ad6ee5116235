/* Poseidon (neptune 11, Filecoin constants): derived constants against neptune's parameter file
 * prefix, the plain hash against neptune's and filecoin-hashers' known vectors, the legacy circuit
 * against the plain hash on fresh random inputs (witness mode), its counts against neptune's tests
 * (311 / 377 / 505 / 761) and rust-fil-proofs' (598 for arity 11), and every constraint satisfied
 * (record + witness), with a tampered witness rejected. */
#include <string.h>

#include "cz_error.h"
#include "gadget_check.h"
#include "gadgets/poseidon.h"
#include "testutil.h"

static cz_fr fr_hex(const char *hex) {
    uint8_t b[32];
    cz_fr r;
    cz_hex_decode(b, 32, hex);
    cz_fr_from_bytes_be(&r, b);
    return r;
}

static void fr_to_hex(char out[65], const cz_fr *x) {
    uint8_t b[32];
    cz_fr_to_bytes_be(b, x);
    cz_hex_encode(out, b, 32);
}

static void test_vectors(void) {
    static const struct { unsigned arity; const char *hex; } v[] = {
        {2, "396508d75e76a56b739e0fd902efe161a6fba9339d05a69d2e203c369a02e7ff"},
        {8, "2394611da3a5de5512010042116770774b682e9d9cc4aed92a9934f56d38a5e6"},
        {11, "0c0fc1b2e5227f286ca537e232ebe87a09f3dcd8ccb08fc1cee3bbc32b693163"},
    };
    for (size_t i = 0; i < 3; i++) {
        cz_fr in[11], h, want = fr_hex(v[i].hex);
        for (unsigned j = 0; j < v[i].arity; j++) cz_fr_set_u64(&in[j], j);
        CHECK(cz_poseidon_hash(&h, in, v[i].arity) == 0);
        cz_fr hb;
        CHECK(cz_poseidon_hash_textbook(&hb, in, v[i].arity, NULL) == 0 && cz_fr_equal(&hb, &want));
        char got[65];
        fr_to_hex(got, &h);
        CHECK_MSG(cz_fr_equal(&h, &want), "arity %u H(0..) = %s", v[i].arity, got);
    }
    /* filecoin-hashers test_poseidon_hasher: node(1, 0) and the root of leaves [1, 0, 0, 1] */
    cz_fr a[2], n10, n01, root;
    cz_fr_set_u64(&a[0], 1), a[1] = CZ_FR_ZERO_V;
    cz_poseidon_hash(&n10, a, 2);
    cz_fr want10 = fr_hex("042f94ffbe786bc393c003cc74a24f26ec5907b3dc3094afb339ff6079800b5e");
    CHECK(cz_fr_equal(&n10, &want10));
    a[0] = CZ_FR_ZERO_V, cz_fr_set_u64(&a[1], 1);
    cz_poseidon_hash(&n01, a, 2);
    a[0] = n10, a[1] = n01;
    cz_poseidon_hash(&root, a, 2);
    cz_fr want_root = fr_hex("1effebb7b26ad9eb30eb6385ae6b74ae77cc72b8cb2b5ad2efbb8be3e291e671");
    CHECK(cz_fr_equal(&root, &want_root));
    /* neptune parameters/round_constants-1-1-255-9-8-57-...: first two t=9 constants */
    const cz_poseidon_consts *c = cz_poseidon_constants(8);
    CHECK(c && c->t == 9 && c->rp == 57);
    char h0[65], h1[65];
    fr_to_hex(h0, &c->rc[0]);
    fr_to_hex(h1, &c->rc[1]);
    CHECK_MSG(!strncmp(h0, "6ce90d12", 8) && !strcmp(h0 + 56, "f2f4c2f9"), "rc[0] %s", h0);
    CHECK_MSG(!strncmp(h1, "0ccd9b48", 8) && !strcmp(h1 + 56, "40bcec39"), "rc[1] %s", h1);
    CHECK(cz_poseidon_constants(3) == NULL);
    cz_fr dummy;
    CHECK(cz_poseidon_hash(&dummy, a, 5) == CZ_EINVAL);
}

static void test_circuit(cz_rng *rng) {
    static const struct { unsigned arity; uint64_t count; } v[] = {{2, 311}, {4, 377}, {8, 505}, {11, 598}, {16, 761}};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        unsigned ar = v[i].arity;
        /* count mode */
        cz_cs *cs;
        cz_num in[16], out;
        cz_cs_new(&cs, CZ_CS_COUNT);
        for (unsigned j = 0; j < ar; j++) in[j] = cz_num_alloc(cs, NULL);
        CHECK(cz_poseidon_circuit(cs, &out, in, ar) == 0);
        CHECK_MSG(cz_cs_num_constraints(cs) == v[i].count && cz_cs_num_aux(cs) == v[i].count + ar,
                  "arity %u: %llu c", ar, (unsigned long long)cz_cs_num_constraints(cs));
        cz_cs_free(cs);
        /* record + witness: output = plain hash, satisfied, tamper rejected */
        for (int rep = 0; rep < 2; rep++) {
            cz_fr x[16], want;
            for (unsigned j = 0; j < ar; j++) cz_fr_random(&x[j], rng);
            if (rep) x[0] = CZ_FR_ZERO_V, cz_fr_neg(&x[ar - 1], &CZ_FR_ONE_V); /* edge values 0, p-1 */
            cz_poseidon_hash(&want, x, ar);
            cz_fr tb;
            cz_poseidon_hash_textbook(&tb, x, ar, NULL);
            CHECK(cz_fr_equal(&tb, &want));
            cz_cs_new(&cs, CZ_CS_RECORD | CZ_CS_WITNESS);
            for (unsigned j = 0; j < ar; j++) in[j] = cz_num_alloc(cs, &x[j]);
            CHECK(cz_poseidon_circuit(cs, &out, in, ar) == 0);
            CHECK_MSG(cz_fr_equal(&out.val, &want) && cz_fr_equal(cz_cs_value(cs, out.var), &want),
                      "arity %u circuit digest", ar);
            CHECK(cz_cs_num_constraints(cs) == v[i].count);
            int trc = 0;
            uint64_t tamper = ar + cz_rng_next(rng) % v[i].count;
            CHECK_MSG(gc_finish_check(cs, tamper, &trc) == 0, "arity %u: %s", ar, cz_error_message());
            CHECK_MSG(trc == CZ_EVERIFY, "arity %u tampered aux %llu accepted", ar, (unsigned long long)tamper);
        }
    }
    /* a custom tag (SnapDeals' 2^40 with arity-2 constants) */
    cz_fr x[2], tag, want;
    cz_fr_random(&x[0], rng), cz_fr_random(&x[1], rng);
    cz_fr_set_u64(&tag, 1ull << 40);
    cz_poseidon_hash_tag(&want, x, 2, &tag);
    cz_cs *cs;
    cz_cs_new(&cs, CZ_CS_WITNESS);
    cz_num in[2] = {cz_num_alloc(cs, &x[0]), cz_num_alloc(cs, &x[1])}, out;
    CHECK(cz_poseidon_circuit_tag(cs, &out, in, 2, &tag) == 0 && cz_fr_equal(&out.val, &want));
    cz_cs_free(cs);
}

int main(void) {
    cz_rng rng;
    cz_test_rng(&rng);
    test_vectors();
    test_circuit(&rng);
    return cz_test_finish();
}
