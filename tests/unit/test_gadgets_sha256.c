/* Boolean / UInt32 / MultiEq / SHA-256 gadgets.
 * Oracles: a plain CPU SHA-256 (itself checked against FIPS 180-2 vectors) for the digest the
 * witness bits decode to; bellperson's test figures (25,840 per IV block, 44,874 per 512-bit hash)
 * and the per-block table of filecoin-circuits.md (shasim.py) for counts; the r1cs satisfaction
 * checker for every constraint, and a tampered witness that must fail. */
#include <string.h>

#include "cz_error.h"
#include "gadget_check.h"
#include "gadgets/sha256.h"
#include "testutil.h"

static void hex32(char *out, const uint8_t *b) { cz_hex_encode(out, b, 32); }

static void test_cpu_sha(void) {
    static const struct { const char *msg, *hex; } v[] = {
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        uint8_t d[32];
        char h[65];
        cz_sha256_bytes(d, (const uint8_t *)v[i].msg, strlen(v[i].msg));
        hex32(h, d);
        CHECK_MSG(strcmp(h, v[i].hex) == 0, "sha256(\"%s\") = %s", v[i].msg, h);
    }
}

/* Message bits (MSB of each byte first): variable bits are AllocatedBits, some positions constant
 * when const_mask says so (to exercise folding). */
static void msg_bits(cz_cs *cs, cz_bool *bits, const uint8_t *msg, size_t len, cz_rng *rng, int const_pct) {
    for (size_t i = 0; i < len * 8; i++) {
        bool b = (msg[i / 8] >> (7 - i % 8)) & 1;
        bool c = const_pct && (int)(cz_rng_next(rng) % 100) < const_pct;
        bits[i] = c ? cz_bool_const(b) : cz_bit_alloc(cs, b);
    }
}

static void test_sha_witness(cz_rng *rng) {
    size_t lens[] = {0, 1, 3, 32, 55, 56, 64, 100, 119, 128};
    for (size_t t = 0; t < sizeof lens / sizeof lens[0]; t++) {
        size_t len = lens[t];
        uint8_t msg[128], want[32], got[32];
        cz_rng_bytes(rng, msg, len);
        cz_sha256_bytes(want, msg, len);
        for (int mode = 0; mode < 2; mode++) {
            cz_cs *cs;
            CHECK(cz_cs_new(&cs, mode ? (CZ_CS_RECORD | CZ_CS_WITNESS) : CZ_CS_WITNESS) == 0);
            cz_bool bits[1024], out[256];
            msg_bits(cs, bits, msg, len, rng, t % 3 == 2 ? 30 : 0);
            CHECK(cz_sha256_gadget(cs, bits, len * 8, out) == 0);
            memset(got, 0, 32);
            bool allocated_ok = true;
            for (int i = 0; i < 256; i++) {
                got[i / 8] |= (uint8_t)(out[i].val << (7 - i % 8));
                /* the value a variable output bit carries must equal its witness value */
                if (!cz_bool_is_const(out[i])) {
                    const cz_fr *v = cz_cs_value(cs, out[i].var);
                    bool bit = v && !cz_fr_is_zero(v);
                    if ((uint8_t)bit != cz_bool_bit(out[i])) allocated_ok = false;
                }
            }
            CHECK_MSG(memcmp(got, want, 32) == 0, "sha256 gadget digest, len %zu mode %d", len, mode);
            CHECK(allocated_ok);
            if (mode) {
                int trc = 0;
                /* tamper with a SHA-internal aux (not a message bit) */
                uint64_t na = cz_cs_num_aux(cs), tamper = na ? na - 1 - cz_rng_next(rng) % (na < 1000 ? na : 1000) : 0;
                CHECK_MSG(gc_finish_check(cs, tamper, &trc) == 0, "sha256 len %zu: %s", len, cz_error_message());
                CHECK_MSG(!na || trc == CZ_EVERIFY, "tampered aux %llu accepted", (unsigned long long)tamper);
            } else {
                cz_cs_free(cs);
            }
        }
    }
}

/* Count of one compression call: all message bits variable; chaining IV (constant) or variable. */
static void block_counts(unsigned mode, bool var_chain, bool const_msg, uint64_t *c, uint64_t *a) {
    cz_cs *cs;
    cz_cs_new(&cs, mode);
    cz_bool in[512];
    cz_u32 cur[8], out[8];
    for (int i = 0; i < 512; i++) in[i] = const_msg ? cz_bool_const(i % 3 == 0) : cz_bit_alloc(cs, i & 1);
    if (var_chain) {
        for (int k = 0; k < 8; k++)
            for (int i = 0; i < 32; i++) cur[k].bits[i] = cz_bit_alloc(cs, 0), cur[k].value = 0;
    } else {
        cz_sha256_iv(cur);
    }
    uint64_t c0 = cz_cs_num_constraints(cs), a0 = cz_cs_num_aux(cs);
    cz_sha256_compress(cs, in, cur, out);
    *c = cz_cs_num_constraints(cs) - c0;
    *a = cz_cs_num_aux(cs) - a0;
    cz_cs_free(cs);
}

static void test_counts(void) {
    unsigned modes[] = {CZ_CS_COUNT, CZ_CS_RECORD};
    for (int m = 0; m < 2; m++) {
        uint64_t c, a;
        block_counts(modes[m], false, false, &c, &a);
        CHECK_MSG(c == 25840 && a == 25814, "IV block %llu c %llu a", (unsigned long long)c, (unsigned long long)a);
        block_counts(modes[m], true, false, &c, &a);
        CHECK_MSG(c == 26192 && a == 26166, "var block %llu c %llu a", (unsigned long long)c, (unsigned long long)a);
        block_counts(modes[m], true, true, &c, &a);
        CHECK_MSG(c == 19034 && a == 19014, "const-msg block %llu c %llu a", (unsigned long long)c, (unsigned long long)a);
        /* bellperson test_full_hash: 512 variable bits -> 44,874 beyond the 512 bit constraints */
        cz_cs *cs;
        cz_cs_new(&cs, modes[m]);
        cz_bool in[512], out[256];
        for (int i = 0; i < 512; i++) in[i] = cz_bit_alloc(cs, 0);
        CHECK(cz_sha256_gadget(cs, in, 512, out) == 0);
        CHECK_MSG(cz_cs_num_constraints(cs) - 512 == 44874, "full hash %llu",
                  (unsigned long long)cz_cs_num_constraints(cs) - 512);
        CHECK(cz_sha256_gadget(cs, in, 511, out) == CZ_EINVAL);
        cz_cs_free(cs);
    }
    /* all-constant input folds to constants: no constraint, no aux */
    cz_cs *cs;
    cz_cs_new(&cs, CZ_CS_COUNT);
    cz_bool in[24], out[256];
    const uint8_t abc[3] = {'a', 'b', 'c'};
    for (int i = 0; i < 24; i++) in[i] = cz_bool_const((abc[i / 8] >> (7 - i % 8)) & 1);
    CHECK(cz_sha256_gadget(cs, in, 24, out) == 0);
    CHECK(cz_cs_num_constraints(cs) == 0 && cz_cs_num_aux(cs) == 1 - 1);
    uint8_t got[32] = {0}, want[32];
    bool allc = true;
    for (int i = 0; i < 256; i++) got[i / 8] |= (uint8_t)(out[i].val << (7 - i % 8)), allc &= cz_bool_is_const(out[i]);
    cz_sha256_bytes(want, abc, 3);
    CHECK(allc && memcmp(got, want, 32) == 0);
    cz_cs_free(cs);
}

/* Every Boolean operation on every operand kind (constant 0/1, Is, Not): value, constraint count
 * as bellpepper folds, satisfaction. */
static void test_boolean_ops(void) {
    /* kinds: 0 const false, 1 const true, 2 Is(0), 3 Is(1), 4 Not(Is 0)=1, 5 Not(Is 1)=0 */
    for (int op = 0; op < 4; op++)
        for (int x = 0; x < 6; x++)
            for (int y = 0; y < 6; y++)
                for (int z = 0; z < 6; z++) {
                    if (op < 2 && z) continue;
                    cz_cs *cs;
                    cz_cs_new(&cs, CZ_CS_RECORD | CZ_CS_WITNESS);
                    cz_bool v[3];
                    int k[3] = {x, y, z};
                    int nconst = 0;
                    for (int i = 0; i < 3; i++) {
                        if (k[i] < 2) v[i] = cz_bool_const(k[i]), nconst += i < (op < 2 ? 2 : 3);
                        else {
                            v[i] = cz_bit_alloc(cs, k[i] & 1);
                            if (k[i] >= 4) v[i] = cz_bool_not(v[i]);
                        }
                    }
                    uint64_t c0 = cz_cs_num_constraints(cs);
                    bool a = v[0].val, b = v[1].val, c = v[2].val, want;
                    cz_bool r;
                    switch (op) {
                    case 0: r = cz_bool_xor(cs, v[0], v[1]), want = a ^ b; break;
                    case 1: r = cz_bool_and(cs, v[0], v[1]), want = a & b; break;
                    case 2: r = cz_bool_sha256_ch(cs, v[0], v[1], v[2]), want = (a & b) ^ (!a & c); break;
                    default: r = cz_bool_sha256_maj(cs, v[0], v[1], v[2]), want = (a & b) ^ (a & c) ^ (b & c);
                    }
                    uint64_t nc = cz_cs_num_constraints(cs) - c0;
                    CHECK_MSG(r.val == want, "op %d kinds %d %d %d", op, x, y, z);
                    if (!cz_bool_is_const(r)) {
                        const cz_fr *val = cz_cs_value(cs, r.var);
                        CHECK(val && (uint8_t)!cz_fr_is_zero(val) == cz_bool_bit(r));
                    }
                    if (op < 2) CHECK(nc == (nconst ? 0u : 1u));
                    else if (op == 2) CHECK(nc <= 1);
                    else CHECK(nc == (nconst == 0 ? 2u : nconst == 1 ? 1u : 0u));
                    CHECK_MSG(gc_finish_check(cs, ~0ull, NULL) == 0, "op %d: %s", op, cz_error_message());
                }
}

static void test_addmany(cz_rng *rng) {
    for (unsigned n = 2; n <= 8; n++) {
        cz_cs *cs;
        cz_cs_new(&cs, CZ_CS_RECORD | CZ_CS_WITNESS);
        cz_multieq m;
        cz_multieq_init(&m, cs);
        cz_u32 ops[8];
        const cz_u32 *p[8];
        uint32_t sum = 0;
        for (unsigned k = 0; k < n; k++) {
            uint32_t v = (uint32_t)cz_rng_next(rng);
            if (k == 1) ops[k] = cz_u32_constant(v);
            else {
                for (int i = 0; i < 32; i++) ops[k].bits[i] = cz_bit_alloc(cs, (v >> i) & 1);
                ops[k].value = v;
            }
            sum += v;
            p[k] = &ops[k];
        }
        uint64_t c0 = cz_cs_num_constraints(cs);
        cz_u32 r[20];
        for (int t = 0; t < 20; t++) r[t] = cz_u32_addmany(&m, p, n);
        cz_multieq_finish(&m);
        unsigned nb = n == 2 ? 33 : n <= 4 ? 34 : 35;
        /* flush before an equality when bits_used + nb >= 254: groups of floor(253 / nb) */
        uint64_t per = 253 / nb;
        uint64_t meq = (20 + per - 1) / per;
        CHECK_MSG(cz_cs_num_constraints(cs) - c0 == 20 * nb + meq, "addmany n=%u", n);
        uint32_t got = 0;
        for (int i = 0; i < 32; i++) got |= (uint32_t)r[19].bits[i].val << i;
        CHECK(got == sum && r[19].value == sum);
        int trc = 0;
        CHECK(gc_finish_check(cs, cz_cs_num_aux(cs) - 3, &trc) == 0 && trc == CZ_EVERIFY);
    }
}

int main(void) {
    cz_rng rng;
    cz_test_rng(&rng);
    test_cpu_sha();
    test_boolean_ops();
    test_addmany(&rng);
    test_counts();
    test_sha_witness(&rng);
    return cz_test_finish();
}
