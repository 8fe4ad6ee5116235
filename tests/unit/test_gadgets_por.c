/* Insertion, SHA tree node, PoR gadgets.
 * Oracles: a plain (vanilla) root computed from a random leaf / index / siblings with the CPU
 * hashes; storage-proofs-core's insertion test counts (2 / 8 / 22) and the per-level costs of
 * filecoin-circuits.md §2.4 (Poseidon arity 8: 530 c / 537 a, arity 2: 314 / 315; SHA: 45,382 /
 * 45,335; +2 c per path); every constraint satisfied in record + witness mode; a wrong sibling, a
 * wrong index or a wrong root must leave the system unsatisfied. */
#include <string.h>

#include "cz_error.h"
#include "gadget_check.h"
#include "gadgets/por.h"
#include "testutil.h"

static void test_insert(cz_rng *rng) {
    static const unsigned want[] = {0, 0, 2, 0, 8, 0, 0, 0, 22};
    for (unsigned ar = 2; ar <= 8; ar *= 2) {
        unsigned lb = ar == 2 ? 1 : ar == 4 ? 2 : 3;
        for (unsigned pos = 0; pos < ar; pos++) {
            cz_cs *cs;
            cz_cs_new(&cs, CZ_CS_RECORD | CZ_CS_WITNESS);
            cz_fr v[8];
            cz_num sib[7], out[8];
            for (unsigned i = 0; i < ar; i++) cz_fr_random(&v[i], rng);
            for (unsigned i = 0; i + 1 < ar; i++) sib[i] = cz_num_alloc(cs, &v[i]);
            cz_num cur = cz_num_alloc(cs, &v[ar - 1]);
            cz_bool bits[3];
            for (unsigned i = 0; i < lb; i++) bits[i] = cz_bit_alloc(cs, (pos >> i) & 1);
            uint64_t c0 = cz_cs_num_constraints(cs);
            CHECK(cz_insert(cs, out, &cur, bits, sib, ar) == 0);
            CHECK_MSG(cz_cs_num_constraints(cs) - c0 == want[ar], "insert %u", ar);
            bool ok = true;
            for (unsigned i = 0, j = 0; i < ar; i++) {
                const cz_fr *e = i == pos ? &v[ar - 1] : &v[j++];
                ok &= cz_fr_equal(&out[i].val, e) && cz_fr_equal(cz_cs_value(cs, out[i].var), e);
            }
            CHECK_MSG(ok, "insert %u at %u", ar, pos);
            CHECK(gc_finish_check(cs, ~0ull, NULL) == 0);
        }
    }
    cz_cs *cs;
    cz_cs_new(&cs, CZ_CS_COUNT);
    cz_num n[16];
    cz_bool b[4] = {cz_bool_const(0), cz_bool_const(0), cz_bool_const(0), cz_bool_const(0)};
    CHECK(cz_insert(cs, n, n, b, n, 16) == CZ_EINVAL);
    CHECK(cz_insert(cs, n, n, b, n, 8) == CZ_EINVAL); /* insert_8 needs allocated bits */
    cz_cs_free(cs);
}

/* mode 0: honest; 1: wrong sibling value; 2: wrong index bits; 3: wrong root. */
static int por_case(const cz_tree_shape *s, cz_rng *rng, int mode, uint64_t *nc, uint64_t *na) {
    unsigned n = cz_tree_path_len(s), depth = 0;
    for (unsigned i = 0; i < s->nlevels; i++) depth += s->levels[i] == 2 ? 1 : s->levels[i] == 4 ? 2 : 3;
    cz_fr sib[64], leaf, root;
    for (unsigned i = 0; i < n; i++) cz_fr_random(&sib[i], rng);
    cz_fr_random(&leaf, rng);
    uint64_t index = cz_rng_next(rng) & ((1ull << depth) - 1);
    if (s->sha) { /* tree_d leaves are Sha256Domain values: byte 31 < 0x40 */
        uint8_t b[32];
        cz_fr_to_bytes_le(b, &leaf), b[31] &= 0x3f, cz_fr_from_bytes_le(&leaf, b);
    }
    CHECK(cz_por_root(&root, s, &leaf, index, sib) == 0);
    if (mode == 1) cz_fr_add(&sib[n / 2], &sib[n / 2], &CZ_FR_ONE_V);
    if (mode == 2) index ^= 1ull << (depth - 1);
    if (mode == 3) cz_fr_add(&root, &root, &CZ_FR_ONE_V);
    cz_cs *cs;
    cz_cs_new(&cs, CZ_CS_RECORD | CZ_CS_WITNESS);
    cz_num l = cz_num_alloc(cs, &leaf), r = cz_num_alloc(cs, &root);
    uint64_t c0 = cz_cs_num_constraints(cs), a0 = cz_cs_num_aux(cs);
    CHECK(cz_por_circuit(cs, s, &l, &r, index, sib) == 0);
    *nc = cz_cs_num_constraints(cs) - c0;
    *na = cz_cs_num_aux(cs) - a0;
    CHECK(cz_cs_num_inputs(cs) == 2);
    /* the packed path input is the leaf index */
    cz_fr idx;
    cz_fr_set_u64(&idx, index);
    CHECK(cz_fr_equal(cz_cs_value(cs, cz_var_input(1)), &idx));
    return gc_finish_check(cs, ~0ull, NULL);
}

static void test_por(cz_rng *rng) {
    struct { cz_tree_shape s; uint64_t c, a; } t[] = {
        {{2, {8, 8}, false}, 2 * 530 + 2, 2 * 537},
        {{3, {8, 8, 2}, false}, 2 * 530 + 314 + 2, 2 * 537 + 315},
        {{2, {4, 8}, false}, 387 + 530 + 2, 390 + 537},
        {{2, {2, 2}, true}, 2 * 45382 + 2, 2 * 45335},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        for (int mode = 0; mode < 4; mode++) {
            if (t[i].s.sha && mode == 1) continue; /* each SHA case costs ~0.2 s: keep three */
            uint64_t nc, na;
            int rc = por_case(&t[i].s, rng, mode, &nc, &na);
            if (mode == 0) {
                CHECK_MSG(rc == 0, "por case %zu: %s", i, cz_error_message());
                CHECK_MSG(nc == t[i].c && na == t[i].a, "por case %zu: %llu c %llu a", i, (unsigned long long)nc,
                          (unsigned long long)na);
            } else {
                CHECK_MSG(rc == CZ_EVERIFY, "por case %zu mode %d accepted", i, mode);
            }
        }
    }
    cz_tree_shape bad = {1, {16}, false};
    cz_cs *cs;
    cz_cs_new(&cs, CZ_CS_COUNT);
    cz_num x = cz_num_alloc(cs, NULL);
    CHECK(cz_por_circuit(cs, &bad, &x, &x, 0, NULL) == CZ_EINVAL);
    cz_cs_free(cs);
}

int main(void) {
    cz_rng rng;
    cz_test_rng(&rng);
    test_insert(&rng);
    test_por(&rng);
    return cz_test_finish();
}
