/* cz_bench_record [ID ...]: records each circuit's R1CS as an SRS load does (the circuit's build_r1cs
 * hook) and prints one line per circuit: rows, terms, seconds and an FNV-1a digest of the matrices and
 * densities, so two recordings (CZ_RECORD_THREADS=1: the serial loop, against all threads) can be compared.
 * Default: porep-8m wpost-8m snap-8m. Exit status 2 when a circuit is unknown or fails to record. */
#include <inttypes.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "engine/circuit.h"
#include "r1cs/r1cs.h"

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

int main(int argc, char **argv) {
    static const char *const dflt[] = {"porep-8m", "wpost-8m", "snap-8m"};
    int n = argc > 1 ? argc - 1 : 3;
    int status = 0;
    for (int i = 0; i < n; i++) {
        const char *id = argc > 1 ? argv[i + 1] : dflt[i];
        const cz_circuit *c = cz_circuit_find(id);
        if (!c || !c->build_r1cs) {
            fprintf(stderr, "%s: unknown circuit or no recording hook\n", id);
            status = 2;
            continue;
        }
        cz_r1cs r;
        double t0 = omp_get_wtime();
        int rc = c->build_r1cs(c, &r);
        double t = omp_get_wtime() - t0;
        if (rc) {
            fprintf(stderr, "%s: %s: %s\n", id, cz_error_name(rc), cz_error_message());
            status = 2;
            continue;
        }
        printf("%s record_threads=%s rows=%" PRIu64 " terms=%" PRIu64 "/%" PRIu64 "/%" PRIu64 " record_s=%.3f digest=%016" PRIx64
               "\n", id, getenv("CZ_RECORD_THREADS") && *getenv("CZ_RECORD_THREADS") ? getenv("CZ_RECORD_THREADS") : "all", r.num_rows, cz_r1cs_nnz(&r.a), cz_r1cs_nnz(&r.b), cz_r1cs_nnz(&r.c), t,
               digest(&r));
        fflush(stdout);
        cz_r1cs_free(&r);
    }
    return status;
}
