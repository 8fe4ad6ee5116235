/* Random satisfiable circuits for the Groth16 tests, built with the r1cs builder (record + witness).
 * Shape: `pub` public inputs, `nfree` free aux variables, `nc` constraints each (random LC) * (random LC)
 * = a fresh product variable. Free variables land in A or B (so densities differ), some inputs never
 * appear in B, and every aux variable is constrained (bellperson refuses unconstrained ones). */
#ifndef CZ_TEST_GROTH16_CIRCUIT_H
#define CZ_TEST_GROTH16_CIRCUIT_H

#include <stdlib.h>

#include "r1cs/cs.h"
#include "testutil.h"

typedef struct {
    cz_r1cs r1cs;
    cz_fr *inputs, *aux; /* inputs[0] = ONE */
    uint64_t ni, na;
} cz_test_circuit;

static void tc_random_coeff(cz_fr *c, cz_rng *rng) {
    switch (cz_rng_next(rng) % 4) {
    case 0: *c = CZ_FR_ONE_V; break;
    case 1: cz_fr_neg(c, &CZ_FR_ONE_V); break;
    default:
        do cz_fr_random(c, rng);
        while (cz_fr_is_zero(c));
    }
}

/* Adds 0..maxterms random terms over vars[0..nvars) to lc and accumulates its value. */
static void tc_random_lc(cz_cs *cs, cz_lc *lc, cz_fr *value, const cz_var *vars, const cz_fr *vals, size_t nvars,
                         unsigned maxterms, cz_rng *rng) {
    unsigned k = nvars ? (unsigned)(cz_rng_next(rng) % (maxterms + 1)) : 0;
    for (unsigned t = 0; t < k; t++) {
        size_t i = cz_rng_next(rng) % nvars;
        cz_fr c, x;
        tc_random_coeff(&c, rng);
        cz_lc_add(cs, lc, vars[i], &c);
        cz_fr_mul(&x, &c, &vals[i]);
        cz_fr_add(value, value, &x);
    }
}

/* The shape (matrices) depends only on shape_seed; the witness values come from wrng. */
static int tc_build(cz_test_circuit *tc, size_t pub, size_t nfree, size_t nc, uint64_t shape_seed, cz_rng *wrng) {
    cz_rng srng; /* the shape depends only on shape_seed, the values on wrng */
    cz_rng_seed(&srng, shape_seed);
    cz_cs *cs;
    if (cz_cs_new(&cs, CZ_CS_RECORD | CZ_CS_WITNESS)) return -1;
    size_t cap = 1 + pub + nfree + nc;
    cz_var *vars = malloc(cap * sizeof *vars);
    cz_fr *vals = malloc(cap * sizeof *vals);
    size_t nv = 0;
    vars[nv] = CZ_CS_ONE, vals[nv++] = CZ_FR_ONE_V;
    for (size_t i = 0; i < pub; i++) {
        cz_fr_random(&vals[nv], wrng);
        vars[nv] = cz_cs_alloc_input(cs, &vals[nv]);
        nv++;
    }
    size_t first_free = nv;
    for (size_t i = 0; i < nfree; i++) {
        cz_fr_random(&vals[nv], wrng);
        vars[nv] = cz_cs_alloc(cs, &vals[nv]);
        nv++;
    }
    for (size_t k = 0; k < nc; k++) {
        cz_lc a = CZ_LC_ZERO, b = CZ_LC_ZERO, c = CZ_LC_ZERO;
        cz_fr av = CZ_FR_ZERO_V, bv = CZ_FR_ZERO_V, pv;
        /* Only the first half of the inputs may appear in B, so b_input_density has clear bits. */
        tc_random_lc(cs, &a, &av, vars, vals, nv, 3, &srng);
        tc_random_lc(cs, &b, &bv, vars + first_free, vals + first_free, nv - first_free, 2, &srng);
        if (cz_rng_next(&srng) % 2) {
            size_t i = cz_rng_next(&srng) % ((pub + 1) / 2 + 1);
            cz_lc_add(cs, &b, vars[i], NULL);
            cz_fr_add(&bv, &bv, &vals[i]);
        }
        if (nfree) { /* every free variable is used: in A for even k, in B for odd k */
            size_t f = first_free + k % nfree;
            cz_lc *dst = (k / nfree) % 2 ? &b : &a;
            cz_fr *dv = dst == &b ? &bv : &av;
            cz_lc_add(cs, dst, vars[f], NULL);
            cz_fr_add(dv, dv, &vals[f]);
        }
        cz_fr_mul(&pv, &av, &bv);
        cz_var p = cz_cs_alloc(cs, &pv);
        cz_lc_add(cs, &c, p, NULL);
        cz_cs_enforce(cs, &a, &b, &c);
        cz_lc_free(cs, &a);
        cz_lc_free(cs, &b);
        cz_lc_free(cs, &c);
        vars[nv] = p, vals[nv++] = pv;
    }
    free(vars);
    free(vals);
    int rc = cz_cs_finalize(cs);
    if (!rc) rc = cz_cs_take_r1cs(cs, &tc->r1cs);
    if (!rc) rc = cz_cs_take_witness(cs, &tc->inputs, &tc->ni, &tc->aux, &tc->na);
    cz_cs_free(cs);
    return rc;
}

static void tc_free(cz_test_circuit *tc) {
    cz_r1cs_free(&tc->r1cs);
    free(tc->inputs);
    free(tc->aux);
}

#endif
