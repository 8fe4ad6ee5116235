/* The fast Poseidon paths against slow references, on fresh random inputs each run:
 * - the native hash (lazily reduced, sparse partial rounds) against the textbook permutation (round
 *   keys, full MDS every round), arities 2, 4, 8, 11, 16, 24, 36, the SnapDeals tag 2^40 (arity 2)
 *   and a random tag, with edge inputs 0, 1, p-1 and all-(p-1) states;
 * - the gadget's witness-mode path (values only, no LCs) against its record mode: the same number of
 *   aux variables and constraints, every aux value identical, and those values satisfying the
 *   constraints record mode built, with a tampered value rejected. */
#include <stdlib.h>

#include "cz_error.h"
#include "gadgets/poseidon.h"
#include "r1cs/r1cs.h"
#include "testutil.h"

static const unsigned ARITIES[] = {2, 4, 8, 11, 16, 24, 36};
#define NAR (sizeof ARITIES / sizeof ARITIES[0])

static void fill(cz_fr *x, unsigned n, int kind, cz_rng *rng) {
    cz_fr pm1;
    cz_fr_neg(&pm1, &CZ_FR_ONE_V);
    for (unsigned i = 0; i < n; i++) {
        switch (kind) {
        case 0: x[i] = pm1; break;                          /* every input p-1 */
        case 1: x[i] = i & 1 ? CZ_FR_ZERO_V : CZ_FR_ONE_V; break;
        case 2: cz_fr_random(&x[i], rng), x[0] = CZ_FR_ZERO_V, x[n - 1] = pm1; break;
        default: cz_fr_random(&x[i], rng);
        }
    }
}

static void test_native(cz_rng *rng) {
    cz_fr tags[3], pm1;
    cz_fr_set_u64(&tags[0], 1ull << 40); /* SnapDeals (arity-2 constants) */
    cz_fr_random(&tags[1], rng);
    cz_fr_neg(&pm1, &CZ_FR_ONE_V);
    tags[2] = pm1;
    for (size_t a = 0; a < NAR; a++) {
        unsigned ar = ARITIES[a];
        int reps = ar <= 11 ? 12 : 3;
        for (int rep = 0; rep < reps; rep++) {
            cz_fr x[36], fast, slow;
            fill(x, ar, rep, rng);
            const cz_fr *tag = rep < 6 ? NULL : &tags[rep % 3];
            CHECK(cz_poseidon_hash_tag(&fast, x, ar, tag) == 0);
            CHECK(cz_poseidon_hash_textbook(&slow, x, ar, tag) == 0);
            CHECK_MSG(cz_fr_equal(&fast, &slow), "arity %u rep %d: fast != textbook", ar, rep);
        }
    }
}

/* Runs the gadget on x in mode; returns the cs (not finalized) and the digest. */
static cz_cs *run_gadget(unsigned mode, const cz_fr *x, unsigned ar, const cz_fr *tag, cz_num *out) {
    cz_cs *cs;
    cz_num in[36];
    if (cz_cs_new(&cs, mode)) return NULL;
    for (unsigned j = 0; j < ar; j++) in[j] = cz_num_alloc(cs, &x[j]);
    CHECK(cz_poseidon_circuit_tag(cs, out, in, ar, tag) == 0);
    return cs;
}

static void test_gadget(cz_rng *rng) {
    cz_fr t40;
    cz_fr_set_u64(&t40, 1ull << 40);
    for (size_t a = 0; a <= NAR; a++) {
        unsigned ar = a < NAR ? ARITIES[a] : 2;
        const cz_fr *tag = a < NAR ? NULL : &t40;
        cz_fr x[36], want;
        fill(x, ar, a % 2 ? 3 : 2, rng);
        cz_poseidon_hash_textbook(&want, x, ar, tag);
        cz_num ow, orec, oc;
        cz_cs *w = run_gadget(CZ_CS_WITNESS, x, ar, tag, &ow);
        cz_cs *r = run_gadget(CZ_CS_RECORD | CZ_CS_WITNESS, x, ar, tag, &orec);
        cz_cs *c = run_gadget(CZ_CS_COUNT, x, ar, tag, &oc);
        if (!w || !r || !c) { CHECK(0); return; }
        CHECK_MSG(cz_fr_equal(&ow.val, &want) && cz_fr_equal(&orec.val, &want), "arity %u digest", ar);
        CHECK(ow.var.id == orec.var.id && ow.var.id == oc.var.id);
        CHECK_MSG(cz_cs_num_aux(w) == cz_cs_num_aux(r) && cz_cs_num_aux(w) == cz_cs_num_aux(c) &&
                      cz_cs_num_constraints(w) == cz_cs_num_constraints(r) &&
                      cz_cs_num_constraints(w) == cz_cs_num_constraints(c),
                  "arity %u: witness %llu aux / %llu c, record %llu / %llu", ar, (unsigned long long)cz_cs_num_aux(w),
                  (unsigned long long)cz_cs_num_constraints(w), (unsigned long long)cz_cs_num_aux(r),
                  (unsigned long long)cz_cs_num_constraints(r));
        cz_r1cs rr = {0};
        cz_fr *win = NULL, *waux = NULL, *rin = NULL, *raux = NULL;
        uint64_t nwin, nwaux, nrin, nraux;
        CHECK(cz_cs_finalize(w) == 0 && cz_cs_finalize(r) == 0 && cz_cs_take_r1cs(r, &rr) == 0);
        CHECK(cz_cs_take_witness(w, &win, &nwin, &waux, &nwaux) == 0);
        CHECK(cz_cs_take_witness(r, &rin, &nrin, &raux, &nraux) == 0);
        if (win && rin && nwaux == nraux && nwin == nrin) {
            uint64_t bad = 0;
            for (uint64_t i = 0; i < nwaux; i++) bad += !cz_fr_equal(&waux[i], &raux[i]);
            CHECK_MSG(bad == 0, "arity %u: %llu aux values differ", ar, (unsigned long long)bad);
            CHECK_MSG(cz_r1cs_check(NULL, &rr, win, waux, 1) == 0, "arity %u: %s", ar, cz_error_message());
            uint64_t k = ar + cz_rng_next(rng) % (nwaux - ar);
            cz_fr_add(&waux[k], &waux[k], &CZ_FR_ONE_V);
            CHECK_MSG(cz_r1cs_check(NULL, &rr, win, waux, 1) == CZ_EVERIFY, "arity %u tampered aux %llu accepted",
                      ar, (unsigned long long)k);
        } else {
            CHECK_MSG(0, "arity %u: witness shapes differ", ar);
        }
        free(win), free(waux), free(rin), free(raux);
        cz_r1cs_free(&rr);
        cz_cs_free(w), cz_cs_free(r), cz_cs_free(c);
    }
}

int main(void) {
    cz_rng rng;
    cz_test_rng(&rng);
    test_native(&rng);
    test_gadget(&rng);
    return cz_test_finish();
}
