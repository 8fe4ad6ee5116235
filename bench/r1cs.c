/* cz_bench_r1cs [CONSTRAINTS] [THREADS]: synthesis throughput of a boolean-heavy synthetic circuit
 * (the shape of SHA-256 gadgets: per step one bit alloc + booleanity, one xor) in count, witness and
 * record modes, then a/b/c evaluation from the recorded CSR with 1 and THREADS threads.
 * Prints one comma-separated line per measurement: name, size, seconds, rate. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "r1cs/cs.h"
#include "r1cs/csr_dict.h"

static double now(void) { return omp_get_wtime(); }
/* CPU seconds of the whole process: on a shared machine the single-thread numbers mean more. */
static double cpu(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Per step: bits b1 (alloc, boolean), c = b0 xor b1 (alloc, (2 b0) * b1 = b0 + b1 - c). */
static void synth(cz_cs *cs, uint64_t steps) {
    cz_fr two, vals[2] = {CZ_FR_ZERO_V, CZ_FR_ONE_V};
    cz_fr_set_u64(&two, 2);
    bool need_v = cz_cs_needs_values(cs), need_lc = cz_cs_needs_lcs(cs);
    uint64_t x = 0x9e3779b97f4a7c15ull;
    uint64_t bit0 = 1;
    cz_var b0 = cz_cs_alloc(cs, &vals[1]);
    cz_lc la = CZ_LC_ZERO, lb = CZ_LC_ZERO, lc = CZ_LC_ZERO;
    for (uint64_t i = 0; i < steps; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        uint64_t bit1 = x & 1, c = bit0 ^ bit1;
        cz_var b1 = cz_cs_alloc(cs, need_v ? &vals[bit1] : NULL);
        if (need_lc) {
            cz_lc_clear(&la), cz_lc_clear(&lb), cz_lc_clear(&lc);
            cz_lc_add(cs, &la, CZ_CS_ONE, NULL);
            cz_lc_sub(cs, &la, b1, NULL);
            cz_lc_add(cs, &lb, b1, NULL);
        }
        cz_cs_enforce(cs, &la, &lb, &lc);
        cz_var cv = cz_cs_alloc(cs, need_v ? &vals[c] : NULL);
        if (need_lc) {
            cz_lc_clear(&la), cz_lc_clear(&lb), cz_lc_clear(&lc);
            cz_lc_add(cs, &la, b0, &two);
            cz_lc_add(cs, &lb, b1, NULL);
            cz_lc_add(cs, &lc, b0, NULL);
            cz_lc_add(cs, &lc, b1, NULL);
            cz_lc_sub(cs, &lc, cv, NULL);
        }
        cz_cs_enforce(cs, &la, &lb, &lc);
        b0 = cv;
        bit0 = c;
    }
    cz_lc_free(cs, &la), cz_lc_free(cs, &lb), cz_lc_free(cs, &lc);
}

int main(int argc, char **argv) {
    uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 4000000;
    int threads = argc > 2 ? atoi(argv[2]) : omp_get_max_threads();
    uint64_t steps = n / 2;
    const char *names[3] = {"count", "witness", "record"};
    const unsigned modes[3] = {CZ_CS_COUNT, CZ_CS_WITNESS, CZ_CS_RECORD};
    cz_r1cs r;
    cz_fr *in = NULL, *aux = NULL;
    uint64_t nin, naux;
    for (int m = 0; m < 3; m++) {
        cz_cs *cs;
        if (cz_cs_new(&cs, modes[m])) return 1;
        /* The engine knows the shape and reuses (pinned) value buffers across partitions: give the
         * cs buffers that are already faulted in, as it would. */
        if (modes[m] == CZ_CS_WITNESS) {
            cz_fr *bi = malloc(sizeof *bi), *ba = malloc((2 * steps + 1) * sizeof *ba);
            if (!bi || !ba) return 1;
            memset(ba, 1, (2 * steps + 1) * sizeof *ba); /* not 0: gcc turns malloc+memset(0) into calloc */
            if (cz_cs_set_value_buffers(cs, bi, 1, ba, 2 * steps + 1)) return 1;
        }
        /* Record mode gets its sizes from a count-mode pass first, as the engine would. */
        if (modes[m] == CZ_CS_RECORD && cz_cs_reserve(cs, 1, 2 * steps + 1, 2 * steps)) return 1;
        double t = now(), c = cpu();
        synth(cs, steps);
        if (cz_cs_finalize(cs)) return 1;
        t = now() - t, c = cpu() - c;
        printf("synth_%s,%llu constraints,%.3f s (cpu %.3f s),%.1f M constraints/cpu-s\n", names[m],
               (unsigned long long)cz_cs_num_constraints(cs), t, c, cz_cs_num_constraints(cs) / c / 1e6);
        if (modes[m] == CZ_CS_WITNESS && cz_cs_take_witness(cs, &in, &nin, &aux, &naux)) return 1;
        if (modes[m] == CZ_CS_RECORD && cz_cs_take_r1cs(cs, &r)) return 1;
        cz_cs_free(cs);
    }
    cz_fr *abc = malloc(3 * r.num_rows * sizeof *abc);
    if (!abc) return 1;
    memset(abc, 0, 3 * r.num_rows * sizeof *abc); /* fault the pages in outside the timing */
    cz_r1cs_eval(abc, abc + r.num_rows, abc + 2 * r.num_rows, &r, in, aux, threads); /* warm-up */
    for (int t = 1; t <= threads; t = t < threads && t * 2 > threads ? threads : t * 2) {
        double s = now(), c = cpu();
        cz_r1cs_eval(abc, abc + r.num_rows, abc + 2 * r.num_rows, &r, in, aux, t);
        s = now() - s, c = cpu() - c;
        uint64_t nnz = cz_r1cs_nnz(&r.a) + cz_r1cs_nnz(&r.b) + cz_r1cs_nnz(&r.c);
        printf("eval_abc,%llu rows %llu nnz %d threads,%.3f s (cpu %.3f s),%.1f M nnz/s\n",
               (unsigned long long)r.num_rows, (unsigned long long)nnz, t, s, c, nnz / s / 1e6);
        if (t == threads) break;
    }
    const cz_csr *mats[3] = {&r.a, &r.b, &r.c};
    for (int m = 0; m < 3; m++) {
        cz_csr_dict d;
        double s = now();
        if (cz_csr_dict_from_csr(&d, mats[m])) return 1;
        uint64_t nnz = cz_r1cs_nnz(mats[m]);
        printf("dict_%c,%llu nnz %u distinct,%.3f s,%.1f -> %.1f MB\n", "abc"[m], (unsigned long long)nnz, d.ncoeffs,
               now() - s, nnz * 36 / 1e6, (nnz * 8 + d.ncoeffs * 32.0) / 1e6);
        cz_csr_dict_free(&d);
    }
    uint64_t bad;
    double s = now();
    int rc = cz_r1cs_check(&bad, &r, in, aux, threads);
    printf("check,%llu rows,%.3f s,%s\n", (unsigned long long)r.num_rows, now() - s, rc ? "FAILED" : "satisfied");
    free(abc);
    free(in);
    free(aux);
    cz_r1cs_free(&r);
    return rc ? 1 : 0;
}
