/* Compact witness (r1cs/wcompact.h):
 *   the container against a naive model: random vectors of 0, 1, p - 1, 2 and random values, built
 *   by push, by from_dense and by appending random-length pieces at every bit offset; expanded
 *   whole and by random ranges; rank against a count; lengths 0, 1, 63, 64, 65, 4097;
 *   a compact-aux cs: cz_cs_value gives no aux, inputs are kept, set twice / after an alloc refused;
 *   the PoRep witness: cz_porep_witness_compact expanded equals cz_porep_witness_parallel (aux and
 *   inputs, 1 and 2 threads) on the real 2 KiB C1 (CZ_FIXTURES_DIR; skipped with a message when
 *   absent), on a sparse synthetic 2 KiB C1 and on sealed SyntheticPoRep / NI-PoRep 2 KiB C1s, and
 *   the expanded witness satisfies the circuit. */
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "filecoin/c1.h"
#include "filecoin/porep_circuit.h"
#include "filecoin/synth.h"
#include "porep_g16_run.h"
#include "r1cs/cs.h"
#include "r1cs/r1cs.h"
#include "r1cs/wcompact.h"
#include "testutil.h"

static void random_values(cz_fr *v, uint64_t n, cz_rng *rng) {
    cz_fr pm1;
    cz_fr_neg(&pm1, &CZ_FR_ONE_V);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t r = cz_rng_next(rng) % 10;
        if (r < 4) v[i] = CZ_FR_ZERO_V;
        else if (r < 7) v[i] = CZ_FR_ONE_V;
        else if (r == 7) v[i] = pm1;
        else if (r == 8) cz_fr_add(&v[i], &CZ_FR_ONE_V, &CZ_FR_ONE_V);
        else cz_fr_random(&v[i], rng);
    }
}

static void test_container(cz_rng *rng) {
    static const uint64_t lens[] = {0, 1, 63, 64, 65, 4095, 4097, 20000, 300001};
    for (size_t t = 0; t < sizeof lens / sizeof lens[0]; t++) {
        uint64_t n = lens[t];
        cz_fr *v = malloc((n + 1) * sizeof(cz_fr)), *back = malloc((n + 1) * sizeof(cz_fr));
        random_values(v, n, rng);
        uint64_t dense = 0;
        for (uint64_t i = 0; i < n; i++) dense += !cz_fr_is_zero(&v[i]) && !cz_fr_equal(&v[i], &CZ_FR_ONE_V);
        cz_wcompact a, b;
        cz_wcompact_init(&a), cz_wcompact_init(&b);
        CHECK(cz_wcompact_from_dense(&a, v, n) == 0);
        CHECK(a.n == n && a.n_dense == dense && cz_wcompact_bytes(&a) == 16 * ((n + 63) / 64) + 32 * dense);
        CHECK(cz_wcompact_to_dense(&a, 0, n, back) == 0 && !memcmp(back, v, n * sizeof(cz_fr)));
        /* pieces of random length (also 0 and 1), appended at whatever offset the previous left */
        uint64_t at = 0;
        while (at < n) {
            uint64_t len = cz_rng_next(rng) % 4 == 0 ? cz_rng_next(rng) % 3 : 1 + cz_rng_next(rng) % 200;
            if (len > n - at) len = n - at;
            cz_wcompact piece;
            cz_wcompact_init(&piece);
            CHECK(cz_wcompact_from_dense(&piece, v + at, len) == 0);
            CHECK(cz_wcompact_append(&b, &piece) == 0);
            cz_wcompact_free(&piece);
            at += len;
            if (cz_rng_next(rng) % 5 == 0 && at < n) { /* and single pushes after an append */
                CHECK(cz_wcompact_push(&b, &v[at]) == 0);
                at++;
            }
        }
        memset(back, 0xa5, n * sizeof(cz_fr));
        CHECK(b.n == n && b.n_dense == dense);
        /* from_dense's parallel path (an empty vector, n >= 4096) writes the bitmaps the pushes and appends do */
        CHECK(n == 0 || (!memcmp(a.is_bit, b.is_bit, (n + 63) / 64 * 8) && !memcmp(a.bit, b.bit, (n + 63) / 64 * 8)));
        CHECK(cz_wcompact_to_dense(&b, 0, n, back) == 0 && !memcmp(back, v, n * sizeof(cz_fr)));
        for (int r = 0; r < 20 && n; r++) {
            uint64_t f = cz_rng_next(rng) % n, c = cz_rng_next(rng) % (n - f + 1), cnt = 0;
            for (uint64_t i = 0; i < f; i++) cnt += !cz_fr_is_zero(&v[i]) && !cz_fr_equal(&v[i], &CZ_FR_ONE_V);
            CHECK(cz_wcompact_rank(&b, f) == cnt);
            CHECK(cz_wcompact_to_dense(&b, f, c, back) == 0 && !memcmp(back, v + f, c * sizeof(cz_fr)));
        }
        CHECK(cz_wcompact_to_dense(&b, n, 1, back) == CZ_ERANGE);
        cz_wcompact_free(&a), cz_wcompact_free(&b);
        free(v), free(back);
    }
}

static void test_cs(void) {
    cz_wcompact w;
    cz_wcompact_init(&w);
    cz_cs *cs;
    CHECK(cz_cs_new(&cs, CZ_CS_WITNESS) == 0);
    CHECK(cz_cs_set_compact_aux(cs, &w) == 0 && cz_cs_set_compact_aux(cs, &w) == CZ_EINVAL);
    cz_fr two;
    cz_fr_add(&two, &CZ_FR_ONE_V, &CZ_FR_ONE_V);
    cz_var a = cz_cs_alloc(cs, &CZ_FR_ONE_V), b = cz_cs_alloc(cs, &two), x = cz_cs_alloc_input(cs, &two);
    CHECK(cz_cs_status(cs) == 0 && cz_cs_num_aux(cs) == 2 && w.n == 2 && w.n_dense == 1);
    CHECK(cz_cs_value(cs, a) == NULL && cz_cs_value(cs, b) == NULL && cz_fr_equal(cz_cs_value(cs, x), &two));
    cz_cs_alloc(cs, NULL); /* no value in witness mode: sticky error, nothing appended */
    CHECK(cz_cs_status(cs) == CZ_EINVAL && w.n == 2);
    cz_cs_free(cs);
    CHECK(cz_cs_new(&cs, CZ_CS_WITNESS) == 0);
    cz_cs_alloc(cs, &two);
    CHECK(cz_cs_set_compact_aux(cs, &w) == CZ_EINVAL); /* after an aux alloc */
    cz_cs_free(cs);
    CHECK(cz_cs_new(&cs, CZ_CS_COUNT) == 0 && cz_cs_set_compact_aux(cs, &w) == CZ_EINVAL);
    cz_cs_free(cs);
    cz_wcompact_free(&w);
}

/* Compact == dense for partition k of c1, and the expanded witness satisfies the circuit. */
static void compare(const char *what, const cz_c1 *c1, unsigned k, cz_wcompact *cw, const cz_r1cs *r) {
    cz_porep_witness w;
    CHECK_MSG(cz_c1_witness(c1, k, &w) == 0, "%s: %s", what, cz_error_message());
    uint64_t top, per;
    CHECK(cz_porep_shape(&c1->params, &top, &per) == 0);
    uint64_t naux = top + per * c1->challenges, nin = 4 + 18ull * c1->challenges;
    cz_fr *in = malloc(nin * sizeof(cz_fr)), *aux = malloc(naux * sizeof(cz_fr));
    cz_fr *in2 = malloc(nin * sizeof(cz_fr)), *aux2 = malloc(naux * sizeof(cz_fr));
    CHECK(cz_porep_witness_parallel(&c1->params, &w, in, nin, aux, naux, 1) == 0);
    for (int threads = 1; threads <= 2; threads++) {
        memset(in2, 0, nin * sizeof(cz_fr)), memset(aux2, 0x5a, naux * sizeof(cz_fr));
        int rc = cz_porep_witness_compact(&c1->params, &w, in2, nin, cw, threads);
        CHECK_MSG(rc == 0, "%s: %s", what, cz_error_message());
        CHECK(cw->n == naux && cz_wcompact_to_dense(cw, 0, naux, aux2) == 0);
        CHECK_MSG(!memcmp(aux, aux2, naux * sizeof(cz_fr)) && !memcmp(in, in2, nin * sizeof(cz_fr)),
                  "%s, %d threads: compact and dense witnesses differ", what, threads);
    }
    if (r) CHECK_MSG(cz_r1cs_check(NULL, r, in2, aux2, 0) == 0, "%s: %s", what, cz_error_message());
    printf("%s partition %u: %llu aux, %llu dense (%.1f %%), %llu bytes compact vs %llu dense\n", what, k,
           (unsigned long long)cw->n, (unsigned long long)cw->n_dense, 100.0 * (double)cw->n_dense / (double)cw->n,
           (unsigned long long)cz_wcompact_bytes(cw), (unsigned long long)(naux * 32));
    CHECK(cz_porep_witness_compact(&c1->params, &w, in2, nin - 1, cw, 1) == CZ_ERANGE);
    free(in), free(aux), free(in2), free(aux2);
}

int main(void) {
    cz_rng rng;
    cz_test_rng(&rng);
    test_container(&rng);
    test_cs();
    /* the 2 KiB circuit's matrices once, to check the expanded witnesses */
    cz_porep_params p;
    cz_porep_params_for(&p, 2048);
    cz_cs *cs;
    cz_r1cs r = {0};
    CHECK(cz_cs_new(&cs, CZ_CS_RECORD) == 0 && cz_porep_synthesize(cs, &p, NULL) == 0 && cz_cs_finalize(cs) == 0 &&
          cz_cs_take_r1cs(cs, &r) == 0);
    cz_cs_free(cs);
    cz_wcompact cw;
    cz_wcompact_init(&cw); /* reused across all of them, as a prover would */
    cz_c1 c1;
    char path[1024];
    if (cz_test_fixture_path(path, sizeof path, "ipfs-force-community+gpuproxy/2KiB.json")) {
        CHECK_MSG(cz_c1_load(&c1, path) == 0, "%s", cz_error_message());
        compare("real 2 KiB C1", &c1, 0, &cw, &r);
        cz_c1_free(&c1);
    } else {
        printf("2KiB.json fixture not found (set CZ_FIXTURES_DIR): real-C1 comparison skipped\n");
    }
    CHECK(cz_porep_synthetic_c1(&c1, 2048, 1, cz_rng_next(&rng), 1000, 1) == 0);
    compare("sparse synthetic 2 KiB C1", &c1, 0, &cw, &r);
    cz_c1_free(&c1);
    unsigned ids[2] = {10, 15};
    for (int i = 0; i < 2; i++) {
        CHECK(cz_porep_sealed_c1(&c1, ids[i], cz_rng_next(&rng), 1000, 1) == 0);
        compare(c1.registered_proof, &c1, (unsigned)(cz_rng_next(&rng) % c1.partitions), &cw, &r);
        cz_c1_free(&c1);
    }
    cz_wcompact_free(&cw);
    cz_r1cs_free(&r);
    return cz_test_finish();
}
