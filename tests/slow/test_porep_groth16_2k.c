/* End to end on the CPU, 2 KiB PoRep: the recorded circuit (2,687,921 constraints, domain 2^22), setup
 * from seeded toxic waste, proofs from our prover for the real gpuproxy 2KiB.json C1 and for a
 * synthetic C1, each verified with public inputs derived independently from the C1's public values
 * (seed -> challenges, porep_id -> graph parents). Must fail: a flipped seed bit, one public input + 1,
 * a proof from the other C1. Slow label: the setup alone takes minutes on 2 cores. The real fixture is
 * read in place (CZ_FIXTURES_DIR); without it only the synthetic half runs (and says so). */
#include "filecoin/synth.h"
#include "../unit/porep_g16_run.h"
#include "testutil.h"

int main(void) {
    cz_rng rng;
    cz_test_rng(&rng);
    cz_porep_params p;
    CHECK(cz_porep_params_for(&p, 2048) == 0);
    cz_r1cs r = {0};
    cz_groth16_params params;
    cz_groth16_pvk pvk;
    cz_porep_g16_times t = {0};
    int rc = pg_setup(&r, &params, &pvk, &p, cz_rng_next(&rng), &t);
    CHECK_MSG(rc == 0, "setup: %s", cz_error_message());
    if (rc) return cz_test_finish();
    unsigned logn = 0;
    while ((1ull << logn) < r.num_rows) logn++;
    printf("2 KiB PoRep: %llu constraints, %llu inputs, %llu aux, domain 2^%u; record %.2f s, setup %.1f s\n",
           (unsigned long long)r.num_constraints, (unsigned long long)r.num_inputs, (unsigned long long)r.num_aux,
           logn, t.record, t.setup);
    CHECK(r.num_inputs == 40 && params.vk.ic_len == 40);

    cz_c1 c1[2];
    memset(c1, 0, sizeof c1);
    int have[2] = {0, 0};
    char path[1024];
    if (cz_test_fixture_path(path, sizeof path, "ipfs-force-community+gpuproxy/2KiB.json")) {
        rc = cz_c1_load(&c1[0], path);
        CHECK_MSG(rc == 0, "%s: %s", path, cz_error_message());
        have[0] = rc == 0;
    } else {
        printf("2KiB.json fixture not found (set CZ_FIXTURES_DIR): real-C1 proof skipped\n");
    }
    rc = cz_porep_synthetic_c1(&c1[1], 2048, 1, cz_rng_next(&rng), 1000, 1);
    CHECK_MSG(rc == 0, "synthetic: %s", cz_error_message());
    have[1] = rc == 0;
    cz_groth16_proof proof[2];
    const char *name[2] = {"real 2KiB.json C1", "synthetic C1"};
    for (int i = 0; i < 2; i++) {
        if (!have[i]) continue;
        rc = pg_prove(&proof[i], &r, &params, &c1[i], 0, &t);
        CHECK_MSG(rc == 0, "%s: prove: %s", name[i], cz_error_message());
        if (rc) {
            have[i] = 0;
            continue;
        }
        rc = pg_verify(&pvk, &proof[i], &c1[i], c1[i].seed, 0, &t);
        CHECK_MSG(rc == 0, "%s: verify: rc %d %s", name[i], rc, cz_error_message());
        printf("%s: witness %.3f s, prove %.1f s, verify %.3f s: %s\n", name[i], t.witness, t.prove, t.verify,
               rc ? "REJECTED" : "verifies");
        /* a flipped seed bit: other challenges and parents */
        uint8_t seed[32];
        memcpy(seed, c1[i].seed, 32);
        seed[cz_rng_next(&rng) % 32] ^= (uint8_t)(1u << (cz_rng_next(&rng) % 8));
        CHECK(pg_verify(&pvk, &proof[i], &c1[i], seed, 0, NULL) == CZ_EVERIFY);
        /* one public input off by one */
        cz_fr pub[3 + 18 * CZ_POREP_MAX_CHALLENGES];
        unsigned nin = 3 + 18 * p.challenges, at = (unsigned)(cz_rng_next(&rng) % nin);
        CHECK(pg_inputs(pub, &c1[i], c1[i].seed, 0) == 0);
        cz_fr_add(&pub[at], &pub[at], &CZ_FR_ONE_V);
        CHECK_MSG(cz_groth16_verify(&pvk, &proof[i], pub, nin) == CZ_EVERIFY, "input %u + 1 accepted", at);
    }
    if (have[0] && have[1]) {
        CHECK(pg_verify(&pvk, &proof[0], &c1[1], c1[1].seed, 0, NULL) == CZ_EVERIFY);
        CHECK(pg_verify(&pvk, &proof[1], &c1[0], c1[0].seed, 0, NULL) == CZ_EVERIFY);
    }
    for (int i = 0; i < 2; i++)
        cz_c1_free(&c1[i]);
    cz_groth16_pvk_free(&pvk);
    cz_groth16_params_free(&params);
    cz_r1cs_free(&r);
    return cz_test_finish();
}
