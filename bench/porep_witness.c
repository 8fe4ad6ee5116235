/* PoRep witness generation time per partition: random (unsatisfying, but shape-exact) vanilla
 * values, so any sector size can be timed without sealing. Also times count mode.
 * usage: cz_bench_porep_witness [sector_bytes (default 2048)] [threads (default: all)] [reps] [dense|compact]
 * compact: the aux vector in compact form (r1cs/wcompact.h), never allocated as 32 bytes per value, so
 * the process's peak RSS (/usr/bin/time -v) shows what the witness really needs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "cz_error.h"
#include "filecoin/porep_circuit.h"
#include "filecoin/synth.h"

static double cpu(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
    uint64_t size = argc > 1 ? strtoull(argv[1], NULL, 0) : 2048;
    int threads = argc > 2 ? atoi(argv[2]) : 0;
    int reps = argc > 3 ? atoi(argv[3]) : 2;
    bool compact = argc > 4 && !strcmp(argv[4], "compact");
    cz_porep_params p;
    if (cz_porep_params_for(&p, size)) {
        fprintf(stderr, "%s\n", cz_error_message());
        return 2;
    }
    cz_porep_witness w;
    cz_fr *pool;
    if (cz_porep_witness_random(&w, &pool, &p, 42)) {
        fprintf(stderr, "%s\n", cz_error_message());
        return 1;
    }
    cz_porep_challenge *ch = (cz_porep_challenge *)w.ch;
    uint64_t top, per;
    double t0 = now();
    if (cz_porep_shape(&p, &top, &per)) return 1;
    double tshape = now() - t0;
    uint64_t naux = top + per * p.challenges, nin = 4 + 18ull * p.challenges;
    cz_fr *in = malloc(nin * sizeof(cz_fr)), *aux = compact ? NULL : malloc(naux * sizeof(cz_fr));
    if (!in || (!compact && !aux)) {
        fprintf(stderr, "out of memory for %llu aux\n", (unsigned long long)naux);
        return 1;
    }
    if (!compact)
        for (uint64_t i = 0; i < naux; i++) aux[i].l[0] = i; /* touch the pages first */
    cz_wcompact cw;
    cz_wcompact_init(&cw);
    printf("%s: %llu aux, %llu inputs, %u challenges, %s witness; shape (count of one challenge) %.2f s\n", p.name,
           (unsigned long long)naux, (unsigned long long)nin, p.challenges, compact ? "compact" : "dense", tshape);
    for (int r = 0; r < reps; r++) {
        t0 = now();
        double c0 = cpu();
        int rc = compact ? cz_porep_witness_compact(&p, &w, in, nin, &cw, threads)
                         : cz_porep_witness_parallel(&p, &w, in, nin, aux, naux, threads);
        double t = now() - t0, c = cpu() - c0;
        if (rc) {
            fprintf(stderr, "%s\n", cz_error_message());
            return 1;
        }
        printf("witness, %d threads: %.3f s wall, %.3f s CPU per partition (%.1f ns CPU per aux)\n", threads, t, c,
               1e9 * c / (double)naux);
    }
    if (compact)
        printf("compact aux: %llu values, %llu dense (%.2f %%), %.1f MB (dense form %.1f MB)\n",
               (unsigned long long)cw.n, (unsigned long long)cw.n_dense, 100.0 * (double)cw.n_dense / (double)cw.n,
               (double)cz_wcompact_bytes(&cw) / 1e6, (double)naux * 32 / 1e6);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("peak RSS after the witness: %.1f MB\n", (double)ru.ru_maxrss / 1024);
    cz_wcompact_free(&cw);
    cz_cs *cs;
    cz_cs_new(&cs, CZ_CS_COUNT);
    t0 = now();
    cz_porep_synthesize(cs, &p, NULL);
    printf("count mode: %.3f s (%llu constraints)\n", now() - t0, (unsigned long long)cz_cs_num_constraints(cs));
    cz_cs_free(cs);
    free(in), free(aux), free(pool), free(ch);
    return 0;
}
