/* The registry and the built-in test circuit.
 *
 * Test circuit ("porep-2k-test", PoRep with sector_size 2048 until the real PoRep circuit lands):
 * one public input y and a chain x_{i+1} = (x_i + y) * x_{i-1} of CZ_TEST_CIRCUIT_CONSTRAINTS
 * constraints. y, x_0, x_1 for partition p are derived from the request's vanilla_proof bytes, so the
 * public input (and the proof) depends on the request and a proof made for one request does not verify
 * for another. Its parameters come from a seeded setup: they prove nothing about a real sector. */
#include "engine/circuit.h"

#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "engine/engine.h"
#include "r1cs/cs.h"

/* FNV-1a over the payload then splitmix64 rounds: deterministic, not cryptographic (the test circuit
 * needs only that different requests get different public inputs). */
static uint64_t mix64(uint64_t z) {
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void derive_fr(cz_fr *out, uint64_t h, uint32_t partition, uint32_t which) {
    uint64_t w[4];
    uint64_t s = mix64(h ^ ((uint64_t)partition << 32) ^ which);
    for (int i = 0; i < 4; i++) w[i] = s = mix64(s);
    w[3] &= 0x0fffffffffffffffull; /* below r */
    cz_fr_from_raw(out, w);
}

static uint64_t fnv(const uint8_t *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

static int chain(cz_cs *cs, const cz_fr *yv, const cz_fr *x0v, const cz_fr *x1v, size_t m) {
    cz_fr y = *yv, x0 = *x0v, x1 = *x1v, t;
    cz_var vy = cz_cs_alloc_input(cs, &y), prev = cz_cs_alloc(cs, &x0), cur = cz_cs_alloc(cs, &x1);
    for (size_t i = 0; i < m; i++) {
        cz_lc a = CZ_LC_ZERO, b = CZ_LC_ZERO, c = CZ_LC_ZERO;
        cz_fr_add(&t, &x1, &y);
        cz_fr_mul(&t, &t, &x0);
        cz_var next = cz_cs_alloc(cs, &t);
        cz_lc_add(cs, &a, cur, NULL);
        cz_lc_add(cs, &a, vy, NULL);
        cz_lc_add(cs, &b, prev, NULL);
        cz_lc_add(cs, &c, next, NULL);
        cz_cs_enforce(cs, &a, &b, &c);
        cz_lc_free(cs, &a), cz_lc_free(cs, &b), cz_lc_free(cs, &c);
        prev = cur, cur = next, x0 = x1, x1 = t;
    }
    /* Every aux must be constrained for setup: the last one appears in the last C row, the first two
     * in the first rows. */
    return cz_cs_status(cs);
}

static int test_build(const cz_circuit *c, cz_r1cs *out) {
    (void)c;
    cz_cs *cs;
    int rc = cz_cs_new(&cs, CZ_CS_RECORD);
    if (rc) return rc;
    cz_fr one;
    cz_fr_set_u64(&one, 1);
    if (!(rc = chain(cs, &one, &one, &one, CZ_TEST_CIRCUIT_CONSTRAINTS)) && !(rc = cz_cs_finalize(cs)))
        rc = cz_cs_take_r1cs(cs, out);
    cz_cs_free(cs);
    return rc;
}

static int test_validate(const cz_circuit *c, const uint8_t *v, size_t n) {
    (void)c;
    if (!v || !n) return cz_error(CZ_EINVAL, "empty vanilla_proof");
    return 0;
}

static int test_synth(const cz_circuit *c, const uint8_t *v, size_t n, uint32_t partition, cz_fr **inputs,
                      uint64_t *ni, cz_fr **aux, uint64_t *na) {
    if (partition >= c->partitions) return cz_error(CZ_ERANGE, "partition %u of %u", partition, c->partitions);
    uint64_t h = fnv(v, n);
    cz_fr y, x0, x1;
    derive_fr(&y, h, partition, 0);
    derive_fr(&x0, h, partition, 1);
    derive_fr(&x1, h, partition, 2);
    cz_cs *cs;
    int rc = cz_cs_new(&cs, CZ_CS_WITNESS);
    if (rc) return rc;
    if (!(rc = chain(cs, &y, &x0, &x1, CZ_TEST_CIRCUIT_CONSTRAINTS)) && !(rc = cz_cs_finalize(cs)))
        rc = cz_cs_take_witness(cs, inputs, ni, aux, na);
    cz_cs_free(cs);
    return rc;
}

static const cz_circuit circuits[] = {
    {"porep-2k-test", CZ_KIND_POREP, 2048, 2, 1, 1, 64u << 20, 0x637a6b2d74657374ull, test_build, test_validate,
     test_synth},
    {"porep-32g", CZ_KIND_POREP, 32ull << 30, 10, 0, 0, 14ull << 30, 0, NULL, NULL, NULL},
    {"porep-64g", CZ_KIND_POREP, 64ull << 30, 10, 0, 0, 14ull << 30, 0, NULL, NULL, NULL},
    {"snap-32g", CZ_KIND_SNAP, 32ull << 30, 16, 0, 0, 9ull << 30, 0, NULL, NULL, NULL},
    {"snap-64g", CZ_KIND_SNAP, 64ull << 30, 16, 0, 0, 9ull << 30, 0, NULL, NULL, NULL},
    {"wpost-32g", CZ_KIND_WPOST, 32ull << 30, 1, 0, 0, 14ull << 30, 0, NULL, NULL, NULL},
    {"winning-32g", CZ_KIND_WINNING, 32ull << 30, 1, 0, 0, 512u << 20, 0, NULL, NULL, NULL},
};
#define NCIRC (sizeof circuits / sizeof circuits[0])

size_t cz_circuit_count(void) { return NCIRC; }
const cz_circuit *cz_circuit_at(size_t i) { return i < NCIRC ? &circuits[i] : NULL; }

const cz_circuit *cz_circuit_find(const char *id) {
    for (size_t i = 0; i < NCIRC; i++)
        if (!strcmp(circuits[i].id, id)) return &circuits[i];
    return NULL;
}

int cz_circuit_for_request(int kind, uint64_t sector_size, const cz_circuit **out) {
    *out = NULL;
    if (kind < CZ_KIND_POREP || kind > CZ_KIND_WINNING) return cz_error(CZ_EINVAL, "invalid proof_kind: %d", kind);
    static const uint64_t sizes[] = {2048, 8u << 20, 512u << 20, 32ull << 30, 64ull << 30};
    int ok = 0;
    for (size_t i = 0; i < 5; i++) ok |= sector_size == sizes[i];
    if (!ok)
        return cz_error(CZ_EINVAL, "invalid sector_size: %llu (2KiB, 8MiB, 512MiB, 32GiB or 64GiB)",
                        (unsigned long long)sector_size);
    for (size_t i = 0; i < NCIRC; i++)
        if (circuits[i].kind == kind && circuits[i].sector_size == sector_size) {
            if (!circuits[i].available)
                return cz_error(CZ_EUNSUPPORTED, "circuit %s is not available yet", circuits[i].id);
            *out = &circuits[i];
            return 0;
        }
    return cz_error(CZ_EUNSUPPORTED, "no circuit for %s at sector_size %llu", cz_kind_name(kind),
                    (unsigned long long)sector_size);
}
