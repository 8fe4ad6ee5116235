/* Window PoSt witness time per sector (32 GiB: 10 challenges, arity-8 Poseidon paths), the workload
 * Poseidon dominates: random (unsatisfying, shape-exact) proofs, one thread (cz_post_witness_parallel into pre-touched buffers), a partition
 * cut to a few sectors (sectors are independent, so per-sector time x 2349 is the full partition).
 * usage: cz_bench_post_witness [sectors (default 20)] [reps (default 5)] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cz_error.h"
#include "filecoin/post_circuit.h"

static double cpu(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 20;
    int reps = argc > 2 ? atoi(argv[2]) : 5;
    if (reps < 1 || reps > 64 || n < 1) return 2;
    cz_post_params p;
    if (cz_post_params_for(&p, CZ_POST_WINDOW, 34359738368ull)) {
        fprintf(stderr, "%s\n", cz_error_message());
        return 2;
    }
    p.sectors = n;
    cz_rng rng;
    cz_rng_seed(&rng, 42);
    unsigned nsib = cz_tree_path_len(&p.tree);
    cz_post_sector *sec = calloc(n, sizeof *sec);
    cz_merkle_proof *pr = calloc((size_t)n * p.challenges, sizeof *pr);
    cz_fr *sib = calloc((size_t)n * p.challenges * nsib, sizeof *sib);
    if (!sec || !pr || !sib) return 1;
    for (unsigned s = 0; s < n; s++) {
        cz_fr_random(&sec[s].comm_r, &rng), cz_fr_random(&sec[s].comm_c, &rng), cz_fr_random(&sec[s].comm_r_last, &rng);
        sec[s].proofs = pr + (size_t)s * p.challenges;
        for (unsigned c = 0; c < p.challenges; c++) {
            cz_merkle_proof *m = &pr[(size_t)s * p.challenges + c];
            m->root = sec[s].comm_r_last;
            cz_fr_random(&m->leaf, &rng);
            m->index = cz_rng_next(&rng) & ((1ull << p.nodes_log2) - 1);
            m->nsib = nsib;
            m->sib = sib + ((size_t)s * p.challenges + c) * nsib;
            for (unsigned k = 0; k < nsib; k++) cz_fr_random(&m->sib[k], &rng);
        }
    }
    /* the production path: cz_post_witness_parallel into pre-sized, pre-touched buffers */
    uint64_t nin = 1 + (uint64_t)n * cz_post_sector_inputs(&p), aux = (uint64_t)n * cz_post_sector_aux(&p);
    cz_fr *in = calloc(nin, sizeof *in), *av = calloc(aux, sizeof *av);
    if (!in || !av) return 1;
    for (uint64_t i = 0; i < aux; i++) av[i] = CZ_FR_ONE_V;
    double t[64];
    for (int r = 0; r < reps; r++) {
        double c0 = cpu();
        int rc = cz_post_witness_parallel(&p, sec, in, nin, av, aux, 1);
        t[r] = cpu() - c0;
        if (rc) {
            fprintf(stderr, "%s\n", cz_error_message());
            return 1;
        }
    }
    free(in), free(av);
    qsort(t, (size_t)reps, sizeof *t, cmp);
    double med = t[reps / 2];
    printf("WindowPoSt-32GiB witness, %u sectors x %u challenges (path %u), %llu aux: median %.4f s CPU "
           "(%.1f us / sector; x %u sectors = %.1f s per partition)\n",
           n, p.challenges, nsib, (unsigned long long)aux, med, 1e6 * med / n, 2349u, med / n * 2349);
    free(sec), free(pr), free(sib);
    return 0;
}
