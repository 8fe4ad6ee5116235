/* CPU Groth16 timings on a synthetic circuit of 2^k - 2 constraints (domain 2^k): record + witness
 * synthesis, setup from a fixed seed, prove (start = a/b/c, H, MSMs; finish = r, s, assembly) and verify.
 * Circuit: one public input y, aux chain (x_i + y) * x_{i-1} = x_{i+1}.
 * Usage: cz_bench_groth16 [log sizes, comma-separated] [threads] (defaults: 12,16 and OpenMP's default). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cz_error.h"
#include "groth16/prover.h"
#include "groth16/setup.h"
#include "groth16/verify.h"
#include "r1cs/cs.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int build(cz_r1cs *r, cz_fr **inputs, cz_fr **aux, size_t m) {
    cz_cs *cs;
    int rc = cz_cs_new(&cs, CZ_CS_RECORD | CZ_CS_WITNESS);
    if (rc) return rc;
    cz_fr y, x0, x1, t;
    cz_fr_set_u64(&y, 3);
    cz_fr_set_u64(&x0, 5);
    cz_fr_set_u64(&x1, 7);
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
    uint64_t ni, na;
    if (!(rc = cz_cs_finalize(cs)) && !(rc = cz_cs_take_r1cs(cs, r)))
        rc = cz_cs_take_witness(cs, inputs, &ni, aux, &na);
    cz_cs_free(cs);
    return rc;
}

int main(int argc, char **argv) {
    unsigned logs[16] = {12, 16};
    int nlogs = 2;
    if (argc > 1) {
        nlogs = 0;
        for (char *s = argv[1]; *s && nlogs < 16;) {
            char *end;
            logs[nlogs++] = (unsigned)strtoul(s, &end, 10);
            s = *end ? end + 1 : end;
        }
    }
    int threads = argc > 2 ? atoi(argv[2]) : omp_get_max_threads();
    printf("| log2 n | constraints | threads | synth s | setup s | prove start s | finish ms | verify ms |\n");
    printf("|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < nlogs; i++) {
        size_t m = ((size_t)1 << logs[i]) - 2; /* + 2 input rows = 2^k */
        cz_r1cs r;
        cz_fr *inputs, *aux;
        double t0 = now();
        if (build(&r, &inputs, &aux, m)) {
            fprintf(stderr, "build: %s\n", cz_error_message());
            return 1;
        }
        double t1 = now();
        cz_groth16_toxic tw;
        cz_groth16_toxic_from_seed(&tw, 42);
        cz_groth16_params p;
        if (cz_groth16_setup(&p, &r, &tw, threads)) {
            fprintf(stderr, "setup: %s\n", cz_error_message());
            return 1;
        }
        double t2 = now();
        cz_groth16_pending pd;
        cz_groth16_proof pf;
        if (cz_groth16_prove_start(&pd, &p, &r, inputs, aux, threads)) {
            fprintf(stderr, "prove: %s\n", cz_error_message());
            return 1;
        }
        double t3 = now();
        cz_groth16_prove_finish(&pf, &pd, &p.vk, NULL, NULL);
        double t4 = now();
        cz_groth16_pvk pvk;
        cz_groth16_pvk_init(&pvk, &p.vk);
        double t5 = now();
        int ok = cz_groth16_verify(&pvk, &pf, inputs + 1, r.num_inputs - 1);
        double t6 = now();
        printf("| %u | %zu | %d | %.2f | %.2f | %.2f | %.1f | %.1f%s |\n", logs[i], m, threads, t1 - t0, t2 - t1,
               t3 - t2, (t4 - t3) * 1e3, (t6 - t5) * 1e3, ok ? " (FAILED)" : "");
        fflush(stdout);
        cz_groth16_pvk_free(&pvk);
        cz_groth16_params_free(&p);
        cz_r1cs_free(&r);
        free(inputs);
        free(aux);
        if (ok) return 1;
    }
    return 0;
}
