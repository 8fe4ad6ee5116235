/* Random satisfiable R1CS circuits with a chosen witness mix for the GPU prover tests (test_gpu_prover.c,
 * test_gpu_prover_compact.c): bit-heavy (PoRep-like), all bits, mostly random values. */
#ifndef CZ_TESTS_GPU_CIRCUIT_H
#define CZ_TESTS_GPU_CIRCUIT_H

#include <stdlib.h>

#include "ff/fr.h"
#include "r1cs/cs.h"
#include "util/rng.h"

/* 0 with probability p0 %, 1 with p1 %, else random */
static void mixed_value(cz_rng *rng, cz_fr *x, unsigned p0, unsigned p1) {
    unsigned u = (unsigned)(cz_rng_next(rng) % 100);
    if (u < p0) *x = CZ_FR_ZERO_V;
    else if (u < p0 + p1) *x = CZ_FR_ONE_V;
    else cz_fr_random(x, rng);
}

static void coeff(cz_fr *c, cz_rng *srng) {
    switch (cz_rng_next(srng) % 4) {
    case 0:
    case 1: *c = CZ_FR_ONE_V; break;
    case 2: cz_fr_neg(c, &CZ_FR_ONE_V); break;
    default: cz_fr_random(c, srng);
    }
}

typedef struct {
    cz_r1cs r;
    cz_fr *inputs, *aux;
    uint64_t ni, na;
} circuit;

/* Finalizes cs into tc (its R1CS and witness) and frees cs. */
static int circuit_take(cz_cs *cs, circuit *tc) {
    int rc = cz_cs_finalize(cs);
    if (!rc) rc = cz_cs_take_r1cs(cs, &tc->r);
    if (!rc) rc = cz_cs_take_witness(cs, &tc->inputs, &tc->ni, &tc->aux, &tc->na);
    cz_cs_free(cs);
    return rc;
}

/* pub inputs, nfree free aux, nc constraints (LC * LC = fresh product). The shape depends only on seed;
 * the values come from rng with the given mix. Every free variable is used (A or B). With p0 + p1 = 100
 * or 0 every constraint is a product of two free variables, so every aux value is a bit (100) or, but for a
 * negligible chance, none is (0: products of random values; an LC with no terms would give zeros). */
static int build(cz_rng *rng, circuit *tc, size_t pub, size_t nfree, size_t nc, uint64_t seed, unsigned p0, unsigned p1) {
    cz_rng srng;
    cz_rng_seed(&srng, seed);
    cz_cs *cs;
    if (cz_cs_new(&cs, CZ_CS_RECORD | CZ_CS_WITNESS)) return -1;
    size_t cap = 1 + pub + nfree + nc, nv = 0;
    cz_var *vars = malloc(cap * sizeof *vars);
    cz_fr *vals = malloc(cap * sizeof *vals);
    vars[nv] = CZ_CS_ONE, vals[nv++] = CZ_FR_ONE_V;
    for (size_t i = 0; i < pub; i++, nv++) {
        mixed_value(rng, &vals[nv], p0, p1);
        vars[nv] = cz_cs_alloc_input(cs, &vals[nv]);
    }
    size_t first_free = nv;
    for (size_t i = 0; i < nfree; i++, nv++) {
        mixed_value(rng, &vals[nv], p0, p1);
        vars[nv] = cz_cs_alloc(cs, &vals[nv]);
    }
    for (size_t k = 0; k < nc; k++) {
        cz_lc lc[2] = {CZ_LC_ZERO, CZ_LC_ZERO}, c = CZ_LC_ZERO;
        cz_fr v[2] = {CZ_FR_ZERO_V, CZ_FR_ZERO_V}, pv, t, cf;
        /* 70 %: free * free (a product of bits is a bit, as in the PoRep's SHA-256 gadgets) */
        const int simple = nfree && (p0 + p1 >= 100 || p0 + p1 == 0 || cz_rng_next(&srng) % 10 < 7);
        if (simple) {
            size_t f = first_free + k % nfree, y = first_free + cz_rng_next(&srng) % nfree;
            cz_lc_add(cs, &lc[0], vars[f], NULL);
            cz_lc_add(cs, &lc[1], vars[y], NULL);
            v[0] = vals[f], v[1] = vals[y];
        }
        for (int s = 0; s < 2 && !simple; s++) {
            /* A draws from everything, B only from aux and the first half of the inputs */
            unsigned terms = (unsigned)(cz_rng_next(&srng) % (s ? 2 : 4));
            for (unsigned j = 0; j < terms; j++) {
                size_t i = s ? (cz_rng_next(&srng) % 3 == 0 ? cz_rng_next(&srng) % ((pub + 1) / 2 + 1)
                                                            : first_free + cz_rng_next(&srng) % (nv - first_free))
                             : cz_rng_next(&srng) % nv;
                if (s && nv == first_free) i = 0;
                coeff(&cf, &srng);
                cz_lc_add(cs, &lc[s], vars[i], &cf);
                cz_fr_mul(&t, &cf, &vals[i]);
                cz_fr_add(&v[s], &v[s], &t);
            }
        }
        if (nfree && !simple) {
            size_t f = first_free + k % nfree;
            int s = (int)((k / nfree) % 2);
            cz_lc_add(cs, &lc[s], vars[f], NULL);
            cz_fr_add(&v[s], &v[s], &vals[f]);
        }
        cz_fr_mul(&pv, &v[0], &v[1]);
        cz_var p = cz_cs_alloc(cs, &pv);
        cz_lc_add(cs, &c, p, NULL);
        cz_cs_enforce(cs, &lc[0], &lc[1], &c);
        cz_lc_free(cs, &lc[0]);
        cz_lc_free(cs, &lc[1]);
        cz_lc_free(cs, &c);
        vars[nv] = p, vals[nv++] = pv;
    }
    free(vars);
    free(vals);
    return circuit_take(cs, tc);
}

static void circuit_free(circuit *tc) {
    cz_r1cs_free(&tc->r);
    free(tc->inputs);
    free(tc->aux);
}

#endif
