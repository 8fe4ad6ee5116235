/* Shared by the synthetic-C1 tests: generate, derive the public inputs, synthesize partition k in
 * record + witness mode and check every constraint (and that the circuit's inputs are the
 * verifier-side ones); then damage one label row and require a failure. */
#ifndef CZ_TEST_POREP_SYNTH_CHECK_H
#define CZ_TEST_POREP_SYNTH_CHECK_H

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cz_error.h"
#include "filecoin/porep_inputs.h"
#include "filecoin/synth.h"
#include "filecoin/vanilla.h"
#include "r1cs/cs.h"
#include "r1cs/r1cs.h"
#include "testutil.h"

static double ps_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Partition k of c1 (damaged on return): public inputs, vanilla check, circuit satisfied with those
 * inputs, then a damaged expander row must break it. */
static void porep_c1_check(cz_c1 *c1p, unsigned k, double tgen) {
    cz_c1 c1 = *c1p;
    double t0;
    int rc;
    unsigned nin = 3 + 18 * c1.challenges;
    cz_fr *pub = malloc(nin * sizeof(cz_fr));
    CHECK_MSG(cz_porep_public_inputs(pub, &c1, k, true) == 0, "%s", cz_error_message());
    CHECK_MSG(cz_c1_verify(&c1, k, true) == 0, "%s", cz_error_message());
    cz_porep_witness w;
    CHECK(cz_c1_witness(&c1, k, &w) == 0);
    cz_cs *cs;
    cz_cs_new(&cs, CZ_CS_RECORD | CZ_CS_WITNESS);
    t0 = ps_now();
    CHECK(cz_porep_synthesize(cs, &c1.params, &w) == 0);
    double tsyn = ps_now() - t0;
    cz_r1cs r = {0};
    cz_fr *in = NULL, *aux = NULL;
    uint64_t ni = 0, na = 0;
    CHECK(cz_cs_finalize(cs) == 0 && cz_cs_take_r1cs(cs, &r) == 0 && cz_cs_take_witness(cs, &in, &ni, &aux, &na) == 0);
    cz_cs_free(cs);
    CHECK(ni == nin + 1 && !memcmp(in + 1, pub, nin * sizeof(cz_fr)));
    t0 = ps_now();
    rc = cz_r1cs_check(NULL, &r, in, aux, 0);
    CHECK_MSG(rc == 0, "synthetic %s: %s", c1.params.name, cz_error_message());
    printf("%s partition %u: generate %.2f s, record+witness %.2f s, check %.2f s: %s\n", c1.registered_proof, k,
           tgen, tsyn, ps_now() - t0, rc ? "NOT satisfied" : "satisfied");
    /* a damaged expander row (layer 1 of challenge 1's parent 3) must break it */
    cz_porep_challenge *dmg = (cz_porep_challenge *)&w.ch[1];
    cz_fr_add(&dmg->exp[3].rows[0], &dmg->exp[3].rows[0], &CZ_FR_ONE_V);
    cz_fr *in2 = malloc(ni * sizeof(cz_fr)), *aux2 = malloc(na * sizeof(cz_fr));
    CHECK(cz_porep_witness_parallel(&c1.params, &w, in2, ni, aux2, na, 0) == 0);
    CHECK(cz_r1cs_check(NULL, &r, in2, aux2, 0) == CZ_EVERIFY);
    free(in2), free(aux2), free(in), free(aux), free(pub);
    cz_r1cs_free(&r);
}

static void porep_synth_check(uint64_t size, uint64_t seed) {
    cz_c1 c1;
    double t0 = ps_now();
    int rc = cz_porep_synthetic_c1(&c1, size, 1, seed, 1000, 1);
    CHECK_MSG(rc == 0, "synthetic %llu: %s", (unsigned long long)size, cz_error_message());
    if (rc) return;
    porep_c1_check(&c1, 0, ps_now() - t0);
    cz_c1_free(&c1);
}

#endif
