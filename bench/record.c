/* cz_bench_record [--count] [ID ...]: records each circuit's R1CS as an SRS load does (the circuit's build_r1cs
 * hook) and prints one line per circuit: rows, terms, seconds and an FNV-1a digest of the matrices and
 * densities, so two recordings (CZ_RECORD_THREADS=1: the serial loop, against all threads) can be compared.
 * --count: first counts it as a first SRS load on a host does (count_r1cs), and prints the count's seconds
 * and bytes beside the recording's (count=exact when the shapes agree, count=WRONG otherwise; exit status 3);
 * --count-only: the count alone (32 GiB circuits on a host without the ~30 GB a recording takes).
 * Then codes the coefficients as an SRS load does (cz_r1cs_code) and prints the seconds, the distinct values
 * of A / B / C, the host bytes before and after, and the seconds of a = A w, b, c (cz_r1cs_eval, the CPU
 * backend's) for a random w before and after (abc=same when equal; exit status 3 otherwise).
 * CZ_RECORD_STOP_MS=T: the recording's stop (a daemon's shutdown) fires T ms after it began, and the line says how
 * long the recording ran on after that (stop_lag_s: its return less T) and where it stopped; nothing else is done.
 * Default: porep-8m wpost-8m snap-8m. Exit status 2 when a circuit is unknown or fails to record. */
#include <inttypes.h>
#include <omp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "engine/circuit.h"
#include "r1cs/r1cs.h"
#include "util/rng.h"

/* A 64-bit digest of a byte string: 1 MiB chunks hashed word by word on all threads, then the chunk
 * hashes in order (FNV-1a-style multiply-xor; a check that two recordings agree, not a cryptographic hash). */
static uint64_t hash_bytes(uint64_t h, const void *p, size_t n) {
    const uint8_t *b = p;
    const size_t chunk = 1 << 20, nc = (n + chunk - 1) / chunk;
    uint64_t *part = malloc((nc ? nc : 1) * sizeof *part);
    if (!part) abort();
#pragma omp parallel for schedule(static)
    for (size_t c = 0; c < nc; c++) {
        size_t lo = c * chunk, hi = lo + chunk < n ? lo + chunk : n;
        uint64_t x = 0xcbf29ce484222325ull;
        size_t i = lo;
        for (; i + 8 <= hi; i += 8) {
            uint64_t w;
            memcpy(&w, b + i, 8);
            x = (x ^ w) * 0x100000001b3ull;
            x ^= x >> 29;
        }
        for (; i < hi; i++) x = (x ^ b[i]) * 0x100000001b3ull;
        part[c] = x;
    }
    for (size_t c = 0; c < nc; c++) h = (h ^ part[c]) * 0x100000001b3ull, h ^= h >> 31;
    h = (h ^ n) * 0x100000001b3ull;
    free(part);
    return h;
}

static uint64_t digest(const cz_r1cs *r) {
    uint64_t h = 0xcbf29ce484222325ull;
    const uint64_t shape[4] = {r->num_inputs, r->num_aux, r->num_constraints, r->num_rows};
    h = hash_bytes(h, shape, sizeof shape);
    const cz_csr *m[3] = {&r->a, &r->b, &r->c};
    for (int k = 0; k < 3; k++) {
        uint64_t nnz = cz_r1cs_nnz(m[k]);
        h = hash_bytes(h, m[k]->row_ptr, (m[k]->rows + 1) * sizeof *m[k]->row_ptr);
        h = hash_bytes(h, m[k]->col, nnz * sizeof *m[k]->col);
        h = hash_bytes(h, m[k]->val, nnz * sizeof *m[k]->val);
    }
    uint64_t words = (r->num_aux + 63) / 64;
    h = hash_bytes(h, r->a_aux_density, words * 8);
    h = hash_bytes(h, r->b_aux_density, words * 8);
    h = hash_bytes(h, r->b_input_density, (r->num_inputs + 63) / 64 * 8);
    return h;
}

/* --count: c's count_r1cs into *sh, its time in *secs. 0, or 2 (no hook, or it failed: said on stderr). */
static int count(const cz_circuit *c, cz_r1cs_shape *sh, double *secs) {
    if (!c->count_r1cs) {
        fprintf(stderr, "%s: no count_r1cs hook\n", c->id);
        return 2;
    }
    double t0 = omp_get_wtime();
    int rc = c->count_r1cs(c, sh);
    *secs = omp_get_wtime() - t0;
    if (rc) fprintf(stderr, "%s: count: %s: %s\n", c->id, cz_error_name(rc), cz_error_message());
    return rc ? 2 : 0;
}

/* CZ_RECORD_STOP_MS: a stop that fires once `after` seconds have passed since t0 */
typedef struct {
    double t0, after;
} timed_stop;

static bool stop_at(void *arg) {
    const timed_stop *t = arg;
    return omp_get_wtime() - t->t0 >= t->after;
}

int main(int argc, char **argv) {
    static const char *const dflt[] = {"porep-8m", "wpost-8m", "snap-8m"};
    const bool only = argc > 1 && !strcmp(argv[1], "--count-only");
    const bool counting = only || (argc > 1 && !strcmp(argv[1], "--count"));
    char **ids = argv + 1 + counting;
    int n = argc - 1 - counting ? argc - 1 - counting : 3;
    int status = 0;
    for (int i = 0; i < n; i++) {
        const char *id = argc - 1 - counting ? ids[i] : dflt[i];
        const cz_circuit *c = cz_circuit_find(id);
        if (!c || !c->build_r1cs) {
            fprintf(stderr, "%s: unknown circuit or no recording hook\n", id);
            status = 2;
            continue;
        }
        cz_r1cs_shape sh;
        double count_s = 0;
        if (counting && count(c, &sh, &count_s)) {
            status = 2;
            continue;
        }
        if (only) {
            printf("%s count_s=%.3f rows=%" PRIu64 " terms=%" PRIu64 "/%" PRIu64 "/%" PRIu64 " inputs=%" PRIu64
                   " aux=%" PRIu64 " count_bytes=%" PRIu64 "\n", id, count_s, sh.num_rows, sh.nnz[0], sh.nnz[1],
                   sh.nnz[2], sh.num_inputs, sh.num_aux, cz_r1cs_shape_bytes(&sh));
            fflush(stdout);
            continue;
        }
        cz_r1cs r;
        const char *stop_env = getenv("CZ_RECORD_STOP_MS");
        double t0 = omp_get_wtime();
        timed_stop ts = {t0, stop_env && *stop_env ? atof(stop_env) / 1000.0 : 0};
        int rc = c->build_r1cs(c, &r, ts.after > 0 ? stop_at : NULL, &ts);
        double t = omp_get_wtime() - t0;
        if (ts.after > 0) { /* the recording's stop fired (or it ended first) */
            printf("%s stop_ms=%s rc=%s record_s=%.3f stop_lag_s=%.3f (%s)\n", id, stop_env,
                   rc ? cz_error_name(rc) : "0", t, t > ts.after ? t - ts.after : 0.0,
                   rc ? cz_error_message() : "recorded before the stop");
            if (!rc) cz_r1cs_free(&r);
            else if (rc != CZ_ECANCELED) status = 2;
            continue;
        }
        if (rc) {
            fprintf(stderr, "%s: %s: %s\n", id, cz_error_name(rc), cz_error_message());
            status = 2;
            continue;
        }
        printf("%s record_threads=%s rows=%" PRIu64 " terms=%" PRIu64 "/%" PRIu64 "/%" PRIu64 " record_s=%.3f digest=%016" PRIx64
               "\n", id, getenv("CZ_RECORD_THREADS") && *getenv("CZ_RECORD_THREADS") ? getenv("CZ_RECORD_THREADS") : "all", r.num_rows, cz_r1cs_nnz(&r.a), cz_r1cs_nnz(&r.b), cz_r1cs_nnz(&r.c), t,
               digest(&r));
        if (counting) {
            const cz_r1cs_shape got = cz_r1cs_shape_of(&r);
            const bool same = !memcmp(&got, &sh, sizeof got);
            printf("%s count_s=%.3f record_s=%.3f count_bytes=%" PRIu64 " record_bytes=%" PRIu64 " count=%s\n", id,
                   count_s, t, cz_r1cs_shape_bytes(&sh), cz_r1cs_host_bytes(&r), same ? "exact" : "WRONG");
            if (!same && !status) status = 3;
        }
        /* the coefficients coded as an SRS load codes them (cz_r1cs_code): the host bytes the HOT tier holds, and
         * a = A w, b, c for a random w (the CPU backend's) before and after, which must be equal */
        const uint64_t full = cz_r1cs_host_bytes(&r), nw = r.num_inputs + r.num_aux;
        cz_fr *w = malloc(nw * sizeof *w), *abc = malloc(6 * r.num_rows * sizeof *abc);
        if (!w || !abc) {
            fprintf(stderr, "%s: out of memory for the evaluation\n", id);
            return 2;
        }
        cz_rng rng;
        cz_rng_seed(&rng, 0x636f646564ull);
        for (uint64_t j = 0; j < nw; j++) cz_fr_random(&w[j], &rng);
        w[0] = CZ_FR_ONE_V;
        double ev[2];
        for (int pass = 0; pass < 2; pass++) {
            if (pass) {
                t0 = omp_get_wtime();
                rc = cz_r1cs_code(&r, 0);
                t = omp_get_wtime() - t0;
                if (rc) break;
            }
            cz_fr *o = abc + 3 * pass * r.num_rows;
            const double e0 = omp_get_wtime();
            cz_r1cs_eval(o, o + r.num_rows, o + 2 * r.num_rows, &r, w, w + r.num_inputs, 0);
            ev[pass] = omp_get_wtime() - e0;
        }
        if (rc) {
            fprintf(stderr, "%s: code: %s: %s\n", id, cz_error_name(rc), cz_error_message());
            status = 2;
        } else {
            const bool same = !memcmp(abc, abc + 3 * r.num_rows, 3 * r.num_rows * sizeof *abc);
            printf("%s code_s=%.3f coeffs=%u/%u/%u bytes=%" PRIu64 " coded_bytes=%" PRIu64 " ratio=%.3f eval_s=%.3f/%.3f "
                   "abc=%s\n", id, t, r.a.ncoeffs, r.b.ncoeffs, r.c.ncoeffs, full, cz_r1cs_host_bytes(&r),
                   (double)cz_r1cs_host_bytes(&r) / (double)full, ev[0], ev[1], same ? "same" : "DIFFER");
            if (!same) status = 3;
        }
        free(w);
        free(abc);
        fflush(stdout);
        cz_r1cs_free(&r);
    }
    return status;
}
