/* Synthetic C1 at 8 MiB and 512 MiB: every constraint of the circuit satisfied (record + witness
 * needs ~1-1.5 GB and tens of seconds on a small machine, hence the slow label). At 32 GiB and
 * 64 GiB a whole partition would need ~40 GB in record mode, so the circuit is cut to its top part
 * plus one challenge (same gadgets: 11 layers with expander parents, arity-11 columns, sub / top
 * tree levels): every constraint satisfied, ~2 GB. Also an 8 MiB SyntheticPoRep sector sealed in
 * memory (cz_porep_sealed_c1, ~12 s CPU): verifies, inputs derive, circuit satisfied. */
#include "../unit/porep_synth_check.h"

static void one_challenge(uint64_t size, uint64_t seed) {
    cz_c1 c1;
    int rc = cz_porep_synthetic_c1(&c1, size, 1, seed, 1000, 1);
    CHECK_MSG(rc == 0, "%s", cz_error_message());
    if (rc) return;
    CHECK_MSG(cz_c1_verify(&c1, 0, true) == 0, "%s", cz_error_message());
    cz_porep_witness w;
    CHECK(cz_c1_witness(&c1, 0, &w) == 0);
    cz_porep_params p = c1.params;
    p.challenges = 1;
    for (unsigned pick = 0; pick < 2; pick++) { /* challenge 0, then the last one */
        w.ch = &c1.ch[pick ? c1.challenges - 1 : 0];
        cz_cs *cs;
        cz_cs_new(&cs, CZ_CS_RECORD | CZ_CS_WITNESS);
        double t0 = ps_now();
        CHECK(cz_porep_synthesize(cs, &p, &w) == 0);
        double tsyn = ps_now() - t0;
        uint64_t top, per;
        CHECK(cz_porep_shape(&p, &top, &per) == 0 && cz_cs_num_aux(cs) == top + per);
        cz_r1cs r = {0};
        cz_fr *in = NULL, *aux = NULL;
        uint64_t ni = 0, na = 0;
        CHECK(cz_cs_finalize(cs) == 0 && cz_cs_take_r1cs(cs, &r) == 0 && cz_cs_take_witness(cs, &in, &ni, &aux, &na) == 0);
        cz_cs_free(cs);
        t0 = ps_now();
        rc = cz_r1cs_check(NULL, &r, in, aux, 0);
        CHECK_MSG(rc == 0, "%s challenge %u: %s", p.name, pick, cz_error_message());
        printf("synthetic %s, one challenge: %llu constraints, record+witness %.1f s, check %.1f s: %s\n", p.name,
               (unsigned long long)r.num_constraints, tsyn, ps_now() - t0, rc ? "NOT satisfied" : "satisfied");
        cz_r1cs_free(&r);
        free(in), free(aux);
    }
    cz_c1_free(&c1);
}

int main(void) {
    cz_rng rng;
    cz_test_rng(&rng);
    porep_synth_check(8ull << 20, cz_rng_next(&rng));
    porep_synth_check(512ull << 20, cz_rng_next(&rng));
    {
        cz_c1 c1;
        double t0 = ps_now();
        int rc = cz_porep_sealed_c1(&c1, 11, cz_rng_next(&rng), 1000, 1); /* StackedDrg8MiBV1_1_Feat_SyntheticPoRep */
        CHECK_MSG(rc == 0, "%s", cz_error_message());
        if (!rc) porep_c1_check(&c1, 0, ps_now() - t0), cz_c1_free(&c1);
    }
    one_challenge(32ull << 30, cz_rng_next(&rng));
    one_challenge(64ull << 30, cz_rng_next(&rng));
    return cz_test_finish();
}
