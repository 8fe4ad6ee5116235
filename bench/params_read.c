/* cz_bench_params_read FILE [REPS (1)]: reads and decodes a Groth16 parameter file (bellperson layout) as an SRS
 * load does (cz_groth16_params_read_file, no subgroup checks), and prints the seconds, the points decoded and
 * the rate, one line per rep. Exit status 2 when the file is rejected. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "cz_error.h"
#include "groth16/params.h"

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE [REPS]\n", argv[0]);
        return 2;
    }
    const int reps = argc > 2 ? atoi(argv[2]) : 1;
    for (int r = 0; r < reps; r++) {
        cz_groth16_params p;
        const double t0 = omp_get_wtime();
        int rc = cz_groth16_params_read_file(&p, argv[1], 0);
        const double t = omp_get_wtime() - t0;
        if (rc) {
            fprintf(stderr, "%s: %s: %s\n", argv[1], cz_error_name(rc), cz_error_message());
            return 2;
        }
        const size_t g1 = p.h_len + p.l_len + p.a_len + p.b_len + p.vk.ic_len, g2 = p.b_len;
        printf("params_read threads=%d s=%.3f g1=%zu g2=%zu g1_equiv_per_s=%.1fM\n", omp_get_max_threads(), t, g1, g2,
               (g1 + 2.0 * g2) / t / 1e6);
        fflush(stdout);
        cz_groth16_params_free(&p);
    }
    return 0;
}
