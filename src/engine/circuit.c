/* The registry and the built-in test circuit.
 *
 * Test circuit ("porep-2k-test", PoRep with sector_size 2048 when [testing] builtin_test_circuit is on):
 * one public input y and a chain x_{i+1} = (x_i + y) * x_{i-1} of CZ_TEST_CIRCUIT_CONSTRAINTS
 * constraints. y, x_0, x_1 for partition p are derived from the request's vanilla_proof bytes, so the
 * public input (and the proof) depends on the request and a proof made for one request does not verify
 * for another (a payload starting with "bits:" sets x_0 = x_1 = 0: an all-zero aux, see test_state).
 * Its parameters come from a seeded setup: they prove nothing about a real sector. */
#include "engine/circuit.h"

#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "engine/engine.h"
#include "filecoin/post_inputs.h"
#include "filecoin/sector.h"
#include "filecoin/snap_vanilla.h"
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

/* The test circuit's constraints, for cz_cs_record_circuit and cz_cs_count_circuit (no blocks). */
static int test_chain(cz_cs *cs, const void *arg) {
    (void)arg;
    cz_fr one;
    cz_fr_set_u64(&one, 1);
    return chain(cs, &one, &one, &one, CZ_TEST_CIRCUIT_CONSTRAINTS);
}

static int test_build(const cz_circuit *c, cz_r1cs *out, bool (*stop)(void *), void *stop_arg) {
    (void)c;
    return cz_cs_record_circuit(out, test_chain, NULL, 1, stop, stop_arg);
}

/* Counted like the real circuits, so that the SRS tests see a first load charge its R1CS. */
static int test_count(const cz_circuit *c, cz_r1cs_shape *out) {
    (void)c;
    return cz_cs_count_circuit(out, test_chain, NULL);
}

/* The test circuit's per-job state: the payload's hash (all the witness needs), and whether the payload
 * starts with "bits:" (x_0 = x_1 = 0, so every aux value is 0: a witness of bits, as compact as a PoRep
 * one, for tests of the compact path and its memory accounting; y stays the payload's). */
typedef struct {
    uint64_t h;
    bool zeros;
} test_state;

static int test_prepare(const cz_circuit *c, const cz_submit *s, void **state) {
    (void)c;
    if (!s->vanilla || !s->vanilla_len) return cz_error(CZ_EINVAL, "empty vanilla_proof");
    test_state *t = malloc(sizeof *t);
    if (!t) return cz_error(CZ_ENOMEM, "out of memory");
    t->h = fnv(s->vanilla, s->vanilla_len);
    t->zeros = s->vanilla_len >= 5 && !memcmp(s->vanilla, "bits:", 5);
    *state = t;
    return 0;
}

static void test_release(const cz_circuit *c, void *state) {
    (void)c;
    free(state);
}

/* The witness of one partition: aux dense (caux NULL) or compact into caux. */
static int test_witness(const cz_circuit *c, void *state, uint32_t partition, cz_fr **inputs, uint64_t *ni,
                        cz_fr **aux, uint64_t *na, cz_wcompact *caux) {
    if (partition >= c->partitions) return cz_error(CZ_ERANGE, "partition %u of %u", partition, c->partitions);
    const test_state *t = state;
    cz_fr y, x0 = CZ_FR_ZERO_V, x1 = CZ_FR_ZERO_V;
    derive_fr(&y, t->h, partition, 0);
    if (!t->zeros) derive_fr(&x0, t->h, partition, 1), derive_fr(&x1, t->h, partition, 2);
    if (caux) cz_wcompact_clear(caux);
    cz_cs *cs;
    int rc = cz_cs_new(&cs, CZ_CS_WITNESS);
    if (rc) return rc;
    if (caux) rc = cz_cs_set_compact_aux(cs, caux);
    if (!rc && !(rc = chain(cs, &y, &x0, &x1, CZ_TEST_CIRCUIT_CONSTRAINTS)) && !(rc = cz_cs_finalize(cs)))
        rc = cz_cs_take_witness(cs, inputs, ni, aux, na);
    cz_cs_free(cs);
    if (!rc && caux && caux->n != *na)
        rc = cz_error(CZ_EINVAL, "test circuit: %llu compact aux of %llu", (unsigned long long)caux->n,
                      (unsigned long long)*na);
    return rc;
}

static int test_synth(const cz_circuit *c, void *state, uint32_t partition, cz_fr **inputs, uint64_t *ni, cz_fr **aux,
                      uint64_t *na) {
    return test_witness(c, state, partition, inputs, ni, aux, na, NULL);
}

/* The same witness, aux compact. Its values are random field elements (no bits) unless the payload asks
 * for zeros, so the compact form is usually larger here: the test circuit has it so that e2e runs take
 * the path real PoRep takes. */
static int test_synth_compact(const cz_circuit *c, void *state, uint32_t partition, cz_fr **inputs, uint64_t *ni,
                              cz_wcompact *aux) {
    cz_fr *none = NULL;
    uint64_t na = 0;
    int rc = test_witness(c, state, partition, inputs, ni, &none, &na, aux);
    free(none); /* a compact cs returns no aux array */
    return rc;
}

#define POREP_HOOKS cz_porep_circuit_build, cz_porep_circuit_prepare, cz_porep_circuit_synth, cz_porep_circuit_inputs, \
                    cz_porep_circuit_release, cz_porep_circuit_partitions, cz_porep_circuit_synth_compact, \
                    cz_porep_circuit_count
#define V28 "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-"
#define V28P "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-"
#define POST_HOOKS cz_post_circuit_build, cz_post_circuit_prepare, cz_post_circuit_synth, cz_post_circuit_inputs, \
                   cz_post_circuit_release, NULL, NULL, cz_post_circuit_count
#define V28S "v28-empty-sector-update-merkletree-poseidon_hasher-"
#define SNAP_HOOKS cz_snap_circuit_build, cz_snap_circuit_prepare, cz_snap_circuit_synth, cz_snap_circuit_inputs, \
                   cz_snap_circuit_release, cz_snap_circuit_partitions, cz_snap_circuit_synth_compact, \
                   cz_snap_circuit_count
/* Official file names: parameters.json (rust-fil-proofs); 2 KiB also allows a seeded local setup. */
static const cz_circuit circuits[] = {
    {"porep-2k-test", CZ_KIND_POREP, 2048, 2, 1, 1, 64u << 20, 0x637a6b2d74657374ull, NULL, test_build, test_prepare,
     test_synth, NULL, test_release, NULL, test_synth_compact, test_count},
    {"porep-2k", CZ_KIND_POREP, 2048, 1, 1, 0, 2ull << 30, 0x637a6b2d706f7232ull,
     V28 "8-0-0-sha256_hasher-032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.params", POREP_HOOKS},
    {"porep-8m", CZ_KIND_POREP, 8u << 20, 1, 1, 0, 2ull << 30, 0,
     V28 "8-0-0-sha256_hasher-ecd683648512ab1765faa2a5f14bab48f676e633467f0aa8aad4b55dcb0652bb.params", POREP_HOOKS},
    {"porep-512m", CZ_KIND_POREP, 512u << 20, 1, 1, 0, 4ull << 30, 0,
     V28 "8-0-0-sha256_hasher-6babf46ce344ae495d558e7770a585b2382d54f225af8ed0397b8be7c3fcd472.params", POREP_HOOKS},
    {"porep-32g", CZ_KIND_POREP, 32ull << 30, 10, 1, 0, 14ull << 30, 0,
     V28 "8-8-0-sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820.params", POREP_HOOKS},
    {"porep-64g", CZ_KIND_POREP, 64ull << 30, 10, 1, 0, 14ull << 30, 0,
     V28 "8-8-2-sha256_hasher-96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2.params", POREP_HOOKS},
    /* SnapDeals: one partition per vanilla proof (1 at 2 KiB, 4 at 8 MiB, 16 above). */
    {"snap-2k", CZ_KIND_SNAP, 2048, 1, 1, 0, 2ull << 30, 0x637a6b2d736e3032ull,
     V28S "8-0-0-fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194.params", SNAP_HOOKS},
    {"snap-8m", CZ_KIND_SNAP, 8u << 20, 4, 1, 0, 2ull << 30, 0,
     V28S "8-0-0-92180959e1918d26350b8e6cfe217bbdd0a2d8de51ebec269078b364b715ad63.params", SNAP_HOOKS},
    {"snap-512m", CZ_KIND_SNAP, 512u << 20, 16, 1, 0, 4ull << 30, 0,
     V28S "8-0-0-61fa69f38b9cc771ba27b670124714b4ea77fbeae05e377fb859c4a43b73a30c.params", SNAP_HOOKS},
    {"snap-32g", CZ_KIND_SNAP, 32ull << 30, 16, 1, 0, 9ull << 30, 0,
     V28S "8-8-0-3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18.params", SNAP_HOOKS},
    {"snap-64g", CZ_KIND_SNAP, 64ull << 30, 16, 1, 0, 9ull << 30, 0,
     V28S "8-8-2-102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7.params", SNAP_HOOKS},
    /* PoSt: one partition per request. A file's hash is SHA-256 of "FallbackPoSt::PublicParams{sector_size: S,
     * challenge_count: C, sector_count: N}" (rust-fil-proofs parameter_cache.rs, fallback/vanilla.rs: Window C 10,
     * N its sectors; Winning C 1, N 66): that is how the two 8-8-2 files of 64 GiB are told apart
     * (tests/unit/test_post_names.c checks every name against it and parameters.json). */
    {"wpost-2k", CZ_KIND_WPOST, 2048, 1, 1, 0, 256u << 20, 0x637a6b2d77703032ull,
     V28P "8-0-0-0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0.params", POST_HOOKS},
    {"wpost-8m", CZ_KIND_WPOST, 8u << 20, 1, 1, 0, 512u << 20, 0,
     V28P "8-0-0-5294475db5237a2e83c3e52fd6c2b03859a1831d45ed08c4f35dbf9a803165a9.params", POST_HOOKS},
    {"wpost-512m", CZ_KIND_WPOST, 512u << 20, 1, 1, 0, 1ull << 30, 0,
     V28P "8-0-0-0cfb4f178bbb71cf2ecfcd42accce558b27199ab4fb59cb78f2483fe21ef36d9.params", POST_HOOKS},
    {"wpost-32g", CZ_KIND_WPOST, 32ull << 30, 1, 1, 0, 14ull << 30, 0,
     V28P "8-8-0-0377ded656c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc.params", POST_HOOKS},
    {"wpost-64g", CZ_KIND_WPOST, 64ull << 30, 1, 1, 0, 14ull << 30, 0,
     V28P "8-8-2-2627e4006b67f99cef990c0a47d5426cb7ab0a0ad58fc1061547bf2d28b09def.params", POST_HOOKS},
    {"winning-2k", CZ_KIND_WINNING, 2048, 1, 1, 0, 256u << 20, 0x637a6b2d776e3032ull,
     V28P "8-0-0-3ea05428c9d11689f23529cde32fd30aabd50f7d2c93657c1d3650bca3e8ea9e.params", POST_HOOKS},
    {"winning-8m", CZ_KIND_WINNING, 8u << 20, 1, 1, 0, 512u << 20, 0,
     V28P "8-0-0-50c7368dea9593ed0989e70974d28024efa9d156d585b7eea1be22b2e753f331.params", POST_HOOKS},
    {"winning-512m", CZ_KIND_WINNING, 512u << 20, 1, 1, 0, 512u << 20, 0,
     V28P "8-0-0-7d739b8cf60f1b0709eeebee7730e297683552e4b69cab6984ec0285663c5781.params", POST_HOOKS},
    {"winning-32g", CZ_KIND_WINNING, 32ull << 30, 1, 1, 0, 512u << 20, 0,
     V28P "8-8-0-559e581f022bb4e4ec6e719e563bf0e026ad6de42e56c18714a2c692b1b88d7e.params", POST_HOOKS},
    {"winning-64g", CZ_KIND_WINNING, 64ull << 30, 1, 1, 0, 512u << 20, 0,
     V28P "8-8-2-b62098629d07946e9028127e70295ed996fe3ed25b0f9f88eb610a0ab4385a3c.params", POST_HOOKS},
};
#define NCIRC (sizeof circuits / sizeof circuits[0])

size_t cz_circuit_count(void) { return NCIRC; }
const cz_circuit *cz_circuit_at(size_t i) { return i < NCIRC ? &circuits[i] : NULL; }

const cz_circuit *cz_circuit_find(const char *id) {
    for (size_t i = 0; i < NCIRC; i++)
        if (!strcmp(circuits[i].id, id)) return &circuits[i];
    return NULL;
}

int cz_request_sector_size(const cz_submit *s, uint64_t *size) {
    static const uint64_t by_five[] = {2048, 8u << 20, 512u << 20, 32ull << 30, 64ull << 30};
    const uint64_t rp = s->registered_proof;
    if ((*size = s->sector_size)) return 0;
    cz_post_kind pk;
    bool v12;
    switch (s->kind) {
    case CZ_KIND_POREP: /* abi.RegisteredSealProof: V1, V1_1, Synthetic, NI, five sizes each */
        if (rp <= 19) return *size = by_five[rp % 5], 0;
        break;
    case CZ_KIND_SNAP:
        if (rp <= 0xffffffffu && !cz_snap_registered((unsigned)rp, size)) return 0;
        break;
    case CZ_KIND_WPOST:
    case CZ_KIND_WINNING:
        if (rp <= 0xffffffffu && !cz_post_registered((unsigned)rp, &pk, size, &v12) &&
            (pk == CZ_POST_WINNING) == (s->kind == CZ_KIND_WINNING))
            return 0;
        break;
    default:
        return cz_error(CZ_EINVAL, "invalid proof_kind: %d", s->kind);
    }
    *size = 0;
    return cz_error(CZ_EINVAL, "sector_size is 0 and registered_proof %llu names no %s sector size",
                    (unsigned long long)rp, cz_kind_name(s->kind));
}

int cz_circuit_for_request(int kind, uint64_t sector_size, bool use_test, const cz_circuit **out) {
    *out = NULL;
    if (kind < CZ_KIND_POREP || kind > CZ_KIND_WINNING) return cz_error(CZ_EINVAL, "invalid proof_kind: %d", kind);
    if (cz_sector_index(sector_size) < 0)
        return cz_error(CZ_EINVAL, "invalid sector_size: %llu (2KiB, 8MiB, 512MiB, 32GiB or 64GiB)",
                        (unsigned long long)sector_size);
    const cz_circuit *found = NULL;
    for (size_t i = 0; i < NCIRC; i++) /* the test circuit, when asked for and one exists, else the real one */
        if (circuits[i].kind == kind && circuits[i].sector_size == sector_size &&
            (!found || (found->is_test != use_test && circuits[i].is_test == use_test)))
            found = &circuits[i];
    if (found) {
        if (!found->available)
            return cz_error(CZ_EUNSUPPORTED, "%s proofs are not implemented yet (circuit %s)", cz_kind_name(kind),
                            found->id);
        *out = found;
        return 0;
    }
    return cz_error(CZ_EUNSUPPORTED, "%s proofs are not implemented yet (sector_size %llu)", cz_kind_name(kind),
                    (unsigned long long)sector_size);
}
