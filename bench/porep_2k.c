/* CPU Groth16 for the 2 KiB PoRep circuit, end to end: record the circuit once, setup from seeded toxic
 * waste, then witness, prove and verify for a C1 (the real gpuproxy 2KiB.json when given or found
 * under CZ_FIXTURES_DIR, else a synthetic one). Prints each phase's time.
 * Usage: cz_bench_porep_2k [path/to/2KiB.json | synth] */
#include "filecoin/synth.h"
#include "../tests/testutil.h"
#include "../tests/unit/porep_g16_run.h"

int main(int argc, char **argv) {
    cz_porep_params p;
    if (cz_porep_params_for(&p, 2048)) return 1;
    char path[1024];
    const char *src = argc > 1 ? argv[1] : cz_test_fixture_path(path, sizeof path, "ipfs-force-community+gpuproxy/2KiB.json");
    cz_c1 c1;
    int rc = src && strcmp(src, "synth") ? cz_c1_load(&c1, src) : cz_porep_synthetic_c1(&c1, 2048, 1, 42, 1000, 1);
    if (rc) {
        fprintf(stderr, "c1: %s\n", cz_error_message());
        return 1;
    }
    printf("C1: %s\n", src && strcmp(src, "synth") ? src : "synthetic (seed 42)");
    cz_r1cs r = {0};
    cz_groth16_params params;
    cz_groth16_pvk pvk;
    cz_porep_g16_times t = {0};
    cz_groth16_proof proof;
    if ((rc = pg_setup(&r, &params, &pvk, &p, 1, &t)) || (rc = pg_prove(&proof, &r, &params, &c1, 0, &t)) ||
        (rc = pg_verify(&pvk, &proof, &c1, c1.seed, 0, &t))) {
        fprintf(stderr, "failed: %s\n", cz_error_message());
        return 1;
    }
    printf("2 KiB PoRep: %llu constraints, %llu aux\n", (unsigned long long)r.num_constraints,
           (unsigned long long)r.num_aux);
    printf("record %.2f s\nsetup %.1f s\nwitness %.3f s\nprove %.2f s\nverify %.3f s\n", t.record, t.setup, t.witness,
           t.prove, t.verify);
    cz_groth16_pvk_free(&pvk);
    cz_groth16_params_free(&params);
    cz_r1cs_free(&r);
    cz_c1_free(&c1);
    return 0;
}
