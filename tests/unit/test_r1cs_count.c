/* cz_cs_count_circuit and the circuits' count_r1cs hooks: a circuit's R1CS shape (rows, inputs, aux, constraints,
 * terms of A, B and C) and host bytes without recording it, what the SRS manager reserves on a circuit's first
 * load on a host. Oracle: the recording itself (build_r1cs, or the serial loop), read with cz_r1cs_shape_of and
 * cz_r1cs_host_bytes (the bytes the manager charges once it has recorded).
 *   - every registered circuit has a count hook; every one the suite can afford to record (2 KiB and 8 MiB PoRep,
 *     Window and Winning PoSt, 2 KiB SnapDeals, the test circuit) counts exactly what it records, bytes too;
 *   - synthetic circuits of uniform blocks (shapes drawn from a seed; inputs in the blocks, so the per-input rows
 *     of finalize matter; LCs with repeated and cancelling terms, so normalization matters; two runs of blocks
 *     with constraints before, between and after): exact at 1..13 and 40 blocks;
 *   - the count stores no term: a counting builder allocates nothing, even when reserved;
 *   - an error in block 0 (a variable never allocated, a namespace left pushed) is the count's error;
 *   - blocks that do not share block 0's shape: the count cannot see them and is off (documented: the SRS
 *     manager warns when a recording disagrees with the count, test_srs_preload). */
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "engine/circuit.h"
#include "engine/log.h"
#include "r1cs/cs.h"
#include "r1cs/csr_build.h"
#include "r1cs/r1cs.h"
#include "testutil.h"

static bool shape_eq(const cz_r1cs_shape *x, const cz_r1cs_shape *y) { return !memcmp(x, y, sizeof *x); }

static void print_shape(const char *what, const cz_r1cs_shape *s) {
    printf("%s: %llu rows (%llu constraints + %llu inputs), %llu aux, %llu + %llu + %llu terms, %llu bytes\n", what,
           (unsigned long long)s->num_rows, (unsigned long long)s->num_constraints, (unsigned long long)s->num_inputs,
           (unsigned long long)s->num_aux, (unsigned long long)s->nnz[0], (unsigned long long)s->nnz[1],
           (unsigned long long)s->nnz[2], (unsigned long long)cz_r1cs_shape_bytes(s));
}

/* ---------------------------------------------------------------- the registered circuits */

static void check_registry(void) {
    for (size_t i = 0; i < cz_circuit_count(); i++) {
        const cz_circuit *c = cz_circuit_at(i);
        CHECK_MSG(!c->available || !c->build_r1cs || c->count_r1cs, "%s records but has no count hook", c->id);
    }
}

/* c counted, then recorded: the same shape and the same bytes. */
static void check_circuit(const char *id) {
    const cz_circuit *c = cz_circuit_find(id);
    CHECK_MSG(c && c->count_r1cs && c->build_r1cs, "%s: no circuit or no hooks", id);
    if (!c || !c->count_r1cs || !c->build_r1cs) return;
    cz_r1cs_shape n;
    cz_r1cs r;
    uint64_t t0 = cz_now_ms();
    int rc1 = c->count_r1cs(c, &n);
    uint64_t t1 = cz_now_ms();
    int rc2 = c->build_r1cs(c, &r, NULL, NULL);
    uint64_t t2 = cz_now_ms();
    CHECK_MSG(!rc1 && !rc2, "%s: count %d, record %d: %s", id, rc1, rc2, cz_error_message());
    if (rc2) return;
    if (!rc1) {
        const cz_r1cs_shape got = cz_r1cs_shape_of(&r);
        CHECK_MSG(shape_eq(&n, &got), "%s: the count differs from the recording", id);
        if (!shape_eq(&n, &got)) print_shape("  counted ", &n), print_shape("  recorded", &got);
        CHECK(r.a.rows == n.num_rows && r.b.rows == n.num_rows && r.c.rows == n.num_rows);
        CHECK(n.num_rows == n.num_constraints + n.num_inputs && n.nnz[0] >= n.num_inputs);
        CHECK_MSG(cz_r1cs_shape_bytes(&n) == cz_r1cs_host_bytes(&r), "%s: %llu bytes counted, %llu recorded", id,
                  (unsigned long long)cz_r1cs_shape_bytes(&n), (unsigned long long)cz_r1cs_host_bytes(&r));
        print_shape(id, &n);
        printf("  count %llu ms, record %llu ms\n", (unsigned long long)(t1 - t0), (unsigned long long)(t2 - t1));
    }
    cz_r1cs_free(&r);
}

/* ---------------------------------------------------------------- synthetic blocks */

typedef struct {
    unsigned nblocks, nblocks2, top_inputs, top_aux;
    uint64_t seed;  /* every block's shape (the same for all blocks of a run) */
    int bad;        /* 0; 1: block 0 uses a variable never allocated; 2: block 0 leaves a namespace pushed;
                       3: block odd_at has one constraint more (blocks that differ) */
    unsigned odd_at;
} spec;

static uint64_t mix(uint64_t x) {
    x ^= x >> 31, x *= 0x7fb5d329728ea185ull, x ^= x >> 27, x *= 0x81dadef4bc2dd44dull;
    return x ^ (x >> 33);
}

/* Block i of a run (salt: which run): inputs and aux of its own, constraints over ONE, the top's variables and
 * its own with coefficients that depend on i; some LCs repeat a variable (merged) or add and subtract one
 * (cancelled, no term), the same in every block, so every block has one shape. */
static int block(cz_cs *cs, unsigned i, const spec *s, uint64_t salt) {
    uint64_t st = mix(s->seed ^ salt);
    const unsigned nin = (unsigned)(mix(st++) % 3), naux = 2 + (unsigned)(mix(st++) % 30);
    const unsigned ncons = 1 + (unsigned)(mix(st++) % 25) + (s->bad == 3 && i == s->odd_at);
    cz_var in[4], own[32];
    for (unsigned k = 0; k < nin; k++) in[k] = cz_cs_alloc_input(cs, NULL);
    for (unsigned k = 0; k < naux; k++) own[k] = cz_cs_alloc(cs, NULL);
    cz_cs_push_namespace(cs, "block");
    for (unsigned c = 0; c < ncons; c++) {
        cz_lc lc[3] = {CZ_LC_ZERO, CZ_LC_ZERO, CZ_LC_ZERO};
        for (int m = 0; m < 3; m++) {
            const unsigned nt = (unsigned)(mix(st++) % 6);
            for (unsigned t = 0; t < nt; t++) {
                const uint64_t r = mix(st++);
                cz_var v;
                switch (r % 5) {
                case 0: v = CZ_CS_ONE; break;
                case 1: v = s->top_aux ? cz_var_aux((uint32_t)((r >> 8) % s->top_aux)) : CZ_CS_ONE; break;
                case 2: v = nin ? in[(r >> 8) % nin] : CZ_CS_ONE; break;
                default: v = own[(r >> 8) % naux];
                }
                cz_fr coeff;
                cz_fr_set_u64(&coeff, ((r >> 20) % 7) + 1 + i);
                cz_lc_add(cs, &lc[m], v, &coeff);
                if ((r >> 40) % 4 == 0) cz_lc_sub(cs, &lc[m], v, &coeff);      /* cancels: no term */
                else if ((r >> 40) % 4 == 1) cz_lc_add(cs, &lc[m], v, &coeff); /* merges: one term */
            }
        }
        if (s->bad == 1 && i == 0 && c == 0) cz_lc_add(cs, &lc[0], cz_var_aux(1u << 30), NULL);
        cz_cs_enforce(cs, &lc[0], &lc[1], &lc[2]);
        for (int m = 0; m < 3; m++) cz_lc_free(cs, &lc[m]);
    }
    if (!(s->bad == 2 && i == 0)) cz_cs_pop_namespace(cs);
    return cz_cs_status(cs);
}

static int block_a(cz_cs *cs, unsigned i, void *arg) { return block(cs, i, arg, 0xa); }
static int block_b(cz_cs *cs, unsigned i, void *arg) { return block(cs, i, arg, 0xb); }

/* One constraint over the top's variables (x * y = x + ONE), so rows before, between and after the blocks. */
static void top_constraint(cz_cs *cs, const spec *s, unsigned k) {
    if (s->top_aux < 2) return;
    cz_lc a = CZ_LC_ZERO, b = CZ_LC_ZERO, c = CZ_LC_ZERO;
    cz_lc_add(cs, &a, cz_var_aux(k % s->top_aux), NULL);
    cz_lc_add(cs, &b, cz_var_aux((k + 1) % s->top_aux), NULL);
    cz_lc_add(cs, &c, cz_var_aux(k % s->top_aux), NULL);
    cz_lc_add(cs, &c, CZ_CS_ONE, NULL);
    cz_cs_enforce(cs, &a, &b, &c);
    cz_lc_free(cs, &a), cz_lc_free(cs, &b), cz_lc_free(cs, &c);
}

static int synth(cz_cs *cs, const void *arg) {
    const spec *s = arg;
    for (unsigned k = 0; k < s->top_inputs; k++) cz_cs_alloc_input(cs, NULL);
    for (unsigned k = 0; k < s->top_aux; k++) cz_cs_alloc(cs, NULL);
    top_constraint(cs, s, 0);
    int rc = cz_cs_record_blocks(cs, s->nblocks, block_a, (void *)s);
    if (rc) return rc;
    cz_cs_alloc(cs, NULL); /* an aux between the runs (the second run's numbering starts after it) */
    top_constraint(cs, s, 1);
    if ((rc = cz_cs_record_blocks(cs, s->nblocks2, block_b, (void *)s))) return rc;
    top_constraint(cs, s, 2);
    return cz_cs_status(cs);
}

/* The serial loop's recording (record_threads = 1: every block runs), its shape. */
static int record_serial(cz_r1cs_shape *out, uint64_t *bytes, const spec *s) {
    cz_cs *cs;
    cz_r1cs r;
    int rc = cz_cs_new(&cs, CZ_CS_RECORD);
    if (rc) return rc;
    if (!(rc = synth(cs, s)) && !(rc = cz_cs_finalize(cs)) && !(rc = cz_cs_take_r1cs(cs, &r))) {
        *out = cz_r1cs_shape_of(&r);
        *bytes = cz_r1cs_host_bytes(&r);
        cz_r1cs_free(&r);
    }
    cz_cs_free(cs);
    return rc;
}

static void check_synthetic(cz_rng *rng) {
    static const unsigned counts[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 40};
    unsigned checked = 0;
    for (unsigned ci = 0; ci < sizeof counts / sizeof *counts; ci++)
        for (int rep = 0; rep < 3; rep++) {
            spec s = {counts[ci], (unsigned)(cz_rng_next(rng) % 7), (unsigned)(cz_rng_next(rng) % 3),
                      (unsigned)(cz_rng_next(rng) % 9), cz_rng_next(rng), 0, 0};
            if (rep == 2) s.nblocks2 = s.nblocks; /* both runs counted at the same size */
            cz_r1cs_shape want, got;
            uint64_t bytes = 0;
            int rc1 = record_serial(&want, &bytes, &s), rc2 = cz_cs_count_circuit(&got, synth, &s);
            CHECK_MSG(!rc1 && !rc2, "%u + %u blocks: record %d, count %d: %s", s.nblocks, s.nblocks2, rc1, rc2,
                      cz_error_message());
            if (rc1 || rc2) continue;
            CHECK_MSG(shape_eq(&want, &got) && cz_r1cs_shape_bytes(&got) == bytes,
                      "%u + %u blocks (seed %llx): the count differs", s.nblocks, s.nblocks2,
                      (unsigned long long)s.seed);
            if (!shape_eq(&want, &got)) print_shape("  recorded", &want), print_shape("  counted ", &got);
            checked++;
        }
    printf("synthetic: %u circuits counted exactly\n", checked);
}

/* A counting builder (what a counting cs's matrices are) counts rows and terms and stores nothing, reserved or
 * not: a count's memory is that of its LCs alone. */
static void check_stores_nothing(void) {
    cz_csr_builder b = {.count_only = true};
    const cz_lc_term t[2] = {{CZ_FR_ONE_V, CZ_CS_ONE}, {CZ_FR_ONE_V, cz_var_aux(3)}};
    CHECK(cz_csr_builder_reserve(&b, 1000, 1u << 20) == 0);
    CHECK(cz_csr_builder_push(&b, t, 2) == 0 && cz_csr_builder_push(&b, NULL, 0) == 0);
    CHECK(b.rows == 2 && b.nnz == 2 && !b.row_ptr && !b.col && !b.val);
    cz_csr_builder_free(&b);
}

static void check_errors(cz_rng *rng) {
    for (int bad = 1; bad <= 2; bad++) {
        spec s = {5, 3, 1, 4, cz_rng_next(rng), bad, 0};
        cz_r1cs_shape got;
        memset(&got, 0xff, sizeof got);
        int rc = cz_cs_count_circuit(&got, synth, &s);
        const cz_r1cs_shape zero = {0};
        CHECK_MSG(rc == CZ_EINVAL && shape_eq(&got, &zero), "bad block 0 (%d): rc %d", bad, rc);
    }
}

/* Blocks that differ are outside what a count can know: it is off by the odd block's extra constraint. */
static void check_differ(cz_rng *rng) {
    spec s = {9, 0, 2, 5, cz_rng_next(rng), 3, 4};
    cz_r1cs_shape want, got;
    uint64_t bytes;
    CHECK(record_serial(&want, &bytes, &s) == 0 && cz_cs_count_circuit(&got, synth, &s) == 0);
    CHECK_MSG(want.num_constraints == got.num_constraints + 1, "odd block: %llu constraints recorded, %llu counted",
              (unsigned long long)want.num_constraints, (unsigned long long)got.num_constraints);
}

int main(void) {
    cz_rng rng;
    cz_test_rng(&rng);
    check_registry();
    check_synthetic(&rng);
    check_stores_nothing();
    check_errors(&rng);
    check_differ(&rng);
    static const char *const ids[] = {"porep-2k-test", "porep-2k", "porep-8m", "wpost-2k", "wpost-8m",
                                      "winning-2k",    "winning-8m", "snap-2k"};
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++) check_circuit(ids[i]);
    return cz_test_finish();
}
