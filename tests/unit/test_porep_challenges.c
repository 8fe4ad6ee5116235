/* PoRep challenge derivation for every registered kind, against vectors nobody here computed:
 *   ChaCha20 block: RFC 8439 §2.3.2; keyed BLAKE2b-512: the BLAKE2 reference KAT (key 00..3f, inputs
 *   "" and 00); keyed BLAKE2b-256 multi-block: Python hashlib;
 *   synthetic PoRep: rust-fil-proofs challenges.rs test_synth_challenges_against_hardcoded (2^10
 *   nodes, replica_id 55, comm_r 101, 21 synthetic challenges, 10 PoRep challenges, rand [1; 32]);
 *   NI-PoRep: Python hashlib (SHA256 of the tag ‖ replica_id ‖ comm_r ‖ j LE, mod 2^30 - 1, + 1);
 * and properties: partitions are slices of one sequence (k = 0 with C·P challenges equals the P
 * partitions), every challenge is in 1..nodes-1, and the three kinds differ on the same inputs. */
#include <stdio.h>
#include <string.h>

#include "cz_error.h"
#include "filecoin/graph.h"
#include "filecoin/porep_inputs.h"
#include "testutil.h"

static void hex(char *out, const uint8_t *b, size_t n) {
    for (size_t i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", b[i]);
}

static void test_primitives(void) {
    uint32_t st[16] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574}, out[16];
    for (int i = 0; i < 8; i++)
        st[4 + i] = (uint32_t)(4 * i) | (uint32_t)(4 * i + 1) << 8 | (uint32_t)(4 * i + 2) << 16 | (uint32_t)(4 * i + 3) << 24;
    st[12] = 1, st[13] = 0x09000000, st[14] = 0x4a000000, st[15] = 0;
    cz_chacha_block(out, st, 20);
    static const uint32_t want[16] = {0xe4e7f110, 0x15593bd1, 0x1fdd0f50, 0xc47120a3, 0xc7f4d1c7, 0x0368c033,
                                      0x9aaa2204, 0x4e6cd4c3, 0x466482d2, 0x09aa9f07, 0x05d7c214, 0xa2028bd9,
                                      0xd19c12b5, 0xb94e16de, 0xe883d0cb, 0x4e3c50a2};
    CHECK_MSG(!memcmp(out, want, sizeof want), "ChaCha20 RFC 8439 block");
    uint8_t key[64], d[64], msg[300];
    char h[129];
    for (int i = 0; i < 64; i++) key[i] = (uint8_t)i;
    cz_blake2b(d, 64, key, 64, NULL, 0);
    hex(h, d, 64);
    CHECK_MSG(!strcmp(h, "10ebb67700b1868efb4417987acf4690ae9d972fb7a590c2f02871799aaa4786"
                         "b5e996e8f0f4eb981fc214b005f42d2ff4233499391653df7aefcbc13fc51568"), "keyed KAT 0: %s", h);
    uint8_t zero = 0;
    cz_blake2b(d, 64, key, 64, &zero, 1);
    hex(h, d, 64);
    CHECK_MSG(!strcmp(h, "961f6dd1e4dd30f63901690c512e78e4b45e4742ed197c3c5e45c549fd25f2e4"
                         "187b0bc9fe30492b16b0d0bc4ef9b0f34c7003fac09a5ef1532e69430234cebd"), "keyed KAT 1: %s", h);
    for (int i = 0; i < 300; i++) msg[i] = (uint8_t)(i * 7 + 3);
    static const char tag[] = "filecoin.io|PoRep|1|Synthetic|1|Selection";
    cz_blake2b(d, 32, (const uint8_t *)tag, strlen(tag), msg, sizeof msg);
    hex(h, d, 32);
    CHECK_MSG(!strcmp(h, "67ab87fd95dcae6be334473f57ad3a2e4c834c6552ee8848f20dd757ee1c3c77"), "keyed 256, 300 B: %s", h);
    uint8_t z128[128] = {0};
    cz_blake2b(d, 32, (const uint8_t *)"k", 1, z128, 128); /* message exactly one block */
    hex(h, d, 32);
    CHECK_MSG(!strcmp(h, "5ae8314e01d1d83b8811190d282680f392d25fc881ad9db482c00f013c9cf379"), "keyed 256, 128 B: %s", h);
}

static void test_synthetic_upstream(void) {
    uint8_t rid[32] = {55}, comm_r[32] = {101}, rand[32];
    memset(rand, 1, 32);
    static const uint64_t synth[21] = {178, 297, 869, 211, 875, 477, 94, 781, 124, 332, 856,
                                       801, 176, 692, 429, 691, 290, 204, 986, 210, 973};
    static const uint64_t porep[10] = {176, 781, 801, 986, 290, 211, 692, 856, 986, 332};
    bool ok = true;
    for (int i = 20; i >= 0; i--) ok &= cz_porep_synth_challenge((uint64_t)i, rid, comm_r, 1024) == synth[i];
    CHECK_MSG(ok, "synthetic challenges differ from upstream's hard-coded vector");
    uint64_t got[10], part[10];
    cz_porep_synth_challenges(got, 10, 0, rid, comm_r, rand, 1024, 21);
    CHECK_MSG(!memcmp(got, porep, sizeof porep), "PoRep challenges differ from upstream's: %llu %llu ...",
              (unsigned long long)got[0], (unsigned long long)got[1]);
    /* partitions of 2 and 3 are slices of the same sequence */
    for (unsigned k = 0; k < 5; k++) cz_porep_synth_challenges(part + 2 * k, 2, 2 * k, rid, comm_r, rand, 1024, 21);
    CHECK(!memcmp(part, porep, sizeof porep));
    cz_porep_synth_challenges(part, 3, 7, rid, comm_r, rand, 1024, 21);
    CHECK(!memcmp(part, porep + 7, 3 * sizeof(uint64_t)));
    CHECK(cz_porep_synth_count(64) == 64 && cz_porep_synth_count(1ull << 30) == (1ull << 18));
}

static void test_ni(void) {
    uint8_t rid[32], comm_r[32];
    for (int i = 0; i < 32; i++) rid[i] = (uint8_t)i, comm_r[i] = (uint8_t)(32 + i);
    uint64_t got[2253];
    cz_porep_ni_challenges(got, 2253, 0, rid, comm_r, 1ull << 30);
    CHECK(got[0] == 907095235 && got[1] == 693621304 && got[2] == 205636183 && got[17] == 643657756 &&
          got[2252] == 277738270);
    /* partition k = 125 of 18 (32 GiB NI) is the tail of the sequence */
    uint64_t p[18];
    cz_porep_partition_challenges(p, CZ_POREP_NI, 18, 125, 1ull << 30, rid, comm_r, NULL);
    CHECK(!memcmp(p, got + 2250, 3 * sizeof(uint64_t)));
}

static void test_kinds(cz_rng *rng) {
    CHECK(cz_porep_kind_of(5) == CZ_POREP_INTERACTIVE && cz_porep_kind_of(9) == CZ_POREP_INTERACTIVE);
    CHECK(cz_porep_kind_of(10) == CZ_POREP_SYNTHETIC && cz_porep_kind_of(14) == CZ_POREP_SYNTHETIC);
    CHECK(cz_porep_kind_of(15) == CZ_POREP_NI && cz_porep_kind_of(19) == CZ_POREP_NI);
    uint64_t sizes[5] = {2048ull, 8ull << 20, 512ull << 20, 32ull << 30, 64ull << 30};
    unsigned want_ni[5] = {13, 13, 13, 126, 126}, want[5] = {1, 1, 1, 10, 10};
    for (int s = 0; s < 5; s++) {
        cz_porep_params p;
        CHECK(cz_porep_params_for(&p, sizes[s]) == 0);
        CHECK(cz_porep_kind_partitions(&p, CZ_POREP_NI) == want_ni[s] &&
              cz_porep_kind_partitions(&p, CZ_POREP_SYNTHETIC) == want[s] &&
              cz_porep_kind_partitions(&p, CZ_POREP_INTERACTIVE) == want[s]);
        /* fresh random inputs: every kind in range, and the kinds differ */
        uint8_t rid[32], cr[32], seed[32];
        cz_rng_bytes(rng, rid, 32), cz_rng_bytes(rng, cr, 32), cz_rng_bytes(rng, seed, 32);
        uint64_t nodes = 1ull << p.nodes_log2, c[3][18];
        bool in_range = true;
        for (int k = 0; k < 3; k++) {
            cz_porep_partition_challenges(c[k], (cz_porep_kind)k, p.challenges, want[s] - 1, nodes, rid, cr, seed);
            for (unsigned i = 0; i < p.challenges; i++) in_range &= c[k][i] >= 1 && c[k][i] < nodes;
        }
        CHECK(in_range);
        if (s > 0) /* 2 KiB (63 possible challenges) may collide by chance */
            CHECK(memcmp(c[0], c[1], p.challenges * 8) && memcmp(c[0], c[2], p.challenges * 8) &&
                  memcmp(c[1], c[2], p.challenges * 8));
        /* the synthetic rule ignores nothing: another seed or comm_r changes the challenges */
        uint64_t base[18], d[18];
        cz_porep_partition_challenges(base, CZ_POREP_SYNTHETIC, p.challenges, 0, nodes, rid, cr, seed);
        cr[0] ^= 1;
        cz_porep_partition_challenges(d, CZ_POREP_SYNTHETIC, p.challenges, 0, nodes, rid, cr, seed);
        uint64_t e[18];
        cr[0] ^= 1, seed[3] ^= 0x10;
        cz_porep_partition_challenges(e, CZ_POREP_SYNTHETIC, p.challenges, 0, nodes, rid, cr, seed);
        if (s > 0) CHECK(memcmp(d, base, p.challenges * 8) && memcmp(e, base, p.challenges * 8));
    }
}

int main(void) {
    cz_rng rng;
    cz_test_rng(&rng);
    test_primitives();
    test_synthetic_upstream();
    test_ni();
    test_kinds(&rng);
    return cz_test_finish();
}
