/* cz_bench_spmv [circuit-id]: the resident SpMV (a = A w, b = B w) on a real circuit's matrices (default
 * porep-32g: recording it takes ~1 min and ~40 GB of host memory), for several long-row bounds
 * (CZ_GPU_SPMV_LONG: rows of more terms are summed by a warp each; 0 = a thread every row). Prints the
 * matrices' row-length profile, then per bound the median of CZ_BENCH_REPS (5) runs of each product, natural
 * and bit-reversed, and checks that every bound gives the bytes of the first (random witness on the device).
 * Then, at the default bound, each matrix in the narrow and the wide layout (CZ_GPU_CSR_NARROW=0) and narrow with
 * its term arrays in mapped host memory (cz_gpu_csr_upload_host_, read over PCIe; CZ_BENCH_LAYOUTS_ONLY=1: this
 * table alone): its bytes and the natural product from a PoRep-like witness (CZ_BENCH_BITS per mille of the aux
 * 0 or 1, half each; default 970) read dense and compact (cz_gpu_csr_mul_vec_cw), every result the same bytes. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cz_error.h"
#include "engine/circuit.h"
#include "gpu/gpu.h"
#include "gpu/prover_internal.h"
#include "r1cs/wcompact.h"
#include "util/rng.h"
#include "bench_clock.h"

static int cmp_f(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

static void profile(const char *name, const cz_csr *m) {
    uint64_t nnz = m->row_ptr[m->rows], mx = 0, slots = 0, long8 = 0, lterms = 0;
    for (uint64_t w = 0; w < m->rows; w += 32) {
        uint64_t wm = 0;
        for (uint64_t j = w; j < w + 32 && j < m->rows; j++) {
            uint64_t l = m->row_ptr[j + 1] - m->row_ptr[j];
            if (l > wm) wm = l;
            if (l > 8) long8++, lterms += l;
        }
        if (wm > mx) mx = wm;
        slots += 32 * wm;
    }
    printf("%s: %llu rows, %llu terms (%.2f a row), longest %llu; a thread a row: %.2f x the terms in warp steps; "
           "rows over 8 terms: %llu holding %.1f %% of the terms\n",
           name, (unsigned long long)m->rows, (unsigned long long)nnz, (double)nnz / m->rows, (unsigned long long)mx,
           (double)slots / nnz, (unsigned long long)long8, 100.0 * lterms / nnz);
}

/* median ms of reps runs of m's natural product from d_w (compact: from wv) */
static int time_product(float *med, cz_fr *d_o, size_t n, const cz_gpu_csr *g, const cz_fr *d_w,
                        const cz_gpu_wview *wv, int reps, cz_gpu_timer *tm) {
    float ms[64];
    int rc = 0, k = reps < 64 ? reps : 64;
    for (int i = 0; i < k && !rc; i++) {
        rc = cz_gpu_timer_start(tm, NULL);
        if (!rc) rc = wv ? cz_gpu_csr_mul_vec_cw(d_o, n, g, wv, 0, NULL) : cz_gpu_csr_mul_vec(d_o, n, g, d_w, NULL);
        if (!rc) rc = cz_gpu_timer_stop(tm, NULL, &ms[i]);
    }
    if (rc) return rc;
    qsort(ms, (size_t)k, sizeof ms[0], cmp_f);
    *med = ms[k / 2];
    return 0;
}

/* The layouts' bytes and the dense / compact witness products at the default long-row bound (1 when a result
 * differs from the first). d_w's aux are made PoRep-like first. */
static int layouts(const cz_r1cs *r, cz_fr *d_w, cz_fr *d_o, size_t n, int reps, cz_gpu_timer *tm) {
    const char *e = getenv("CZ_BENCH_BITS");
    const unsigned bits = e && *e ? (unsigned)atoi(e) : 970;
    const uint64_t ni = r->num_inputs, na = r->num_aux, nw = (na + 63) / 64;
    unsetenv("CZ_GPU_SPMV_LONG");
    cz_fr *hw = malloc((ni + na) * sizeof(cz_fr)), *ref = malloc(n * sizeof(cz_fr)), *got = malloc(n * sizeof(cz_fr));
    uint32_t *offs = malloc((nw + 1) * 4), *d_offs = NULL;
    uint64_t *d_is_bit = NULL, *d_bit = NULL;
    cz_fr *d_in = NULL, *d_dense = NULL;
    cz_wcompact cw;
    cz_wcompact_init(&cw);
    int rc = !hw || !ref || !got || !offs ? cz_error(CZ_ENOMEM, "bench buffers") : 0;
    if (!rc) rc = cz_gpu_memcpy_dtoh(hw, d_w, (ni + na) * sizeof(cz_fr));
    cz_rng rng;
    cz_rng_seed(&rng, 0xb175);
    for (uint64_t i = 0; i < na && !rc; i++) {
        const unsigned u = (unsigned)(cz_rng_next(&rng) % 1000);
        if (u < bits) hw[ni + i] = u & 1 ? CZ_FR_ONE_V : CZ_FR_ZERO_V;
    }
    if (!rc) rc = cz_gpu_memcpy_htod(d_w, hw, (ni + na) * sizeof(cz_fr));
    if (!rc) rc = cz_wcompact_from_dense(&cw, hw + ni, na);
    offs[0] = 0;
    for (uint64_t k = 0; k < nw && !rc; k++) {
        uint64_t x = ~cw.is_bit[k];
        if (k == nw - 1 && (na & 63)) x &= ((uint64_t)1 << (na & 63)) - 1;
        offs[k + 1] = offs[k] + (uint32_t)__builtin_popcountll(x);
    }
    if (!rc) rc = cz_gpu_malloc((void **)&d_in, ni * sizeof(cz_fr));
    if (!rc) rc = cz_gpu_malloc((void **)&d_dense, (cw.n_dense ? cw.n_dense : 1) * sizeof(cz_fr));
    if (!rc) rc = cz_gpu_malloc((void **)&d_is_bit, (nw ? nw : 1) * 8);
    if (!rc) rc = cz_gpu_malloc((void **)&d_bit, (nw ? nw : 1) * 8);
    if (!rc) rc = cz_gpu_malloc((void **)&d_offs, (nw + 1) * 4);
    if (!rc) rc = cz_gpu_memcpy_htod(d_in, hw, ni * sizeof(cz_fr));
    if (!rc && cw.n_dense) rc = cz_gpu_memcpy_htod(d_dense, cw.dense, cw.n_dense * sizeof(cz_fr));
    if (!rc && nw) rc = cz_gpu_memcpy_htod(d_is_bit, cw.is_bit, nw * 8);
    if (!rc && nw) rc = cz_gpu_memcpy_htod(d_bit, cw.bit, nw * 8);
    if (!rc) rc = cz_gpu_memcpy_htod(d_offs, offs, (nw + 1) * 4);
    const cz_gpu_wview wv = {d_in, d_is_bit, d_bit, d_dense, d_offs, ni, na};
    if (!rc)
        printf("\n%u per mille of the aux 0 or 1 (%llu dense of %llu)\n\n| matrix | layout | row / index bytes | "
               "MB (device, or host for the host rows) | dense witness (ms) | compact witness (ms) | bytes as the first |\n"
               "|---|---|---:|---:|---:|---:|---|\n",
               bits, (unsigned long long)cw.n_dense, (unsigned long long)na);
    int same = 1;
    for (int k = 0; k < 2 && !rc; k++)
        for (int lay = 0; lay < 3 && !rc; lay++) {
            const int wide = lay == 1, host = lay == 2;
            if (wide) setenv("CZ_GPU_CSR_NARROW", "0", 1);
            else unsetenv("CZ_GPU_CSR_NARROW");
            cz_gpu_csr *g = NULL;
            if (host) { /* the term arrays in mapped host memory, read over PCIe */
                cz_csr_dict dc;
                size_t b_;
                rc = cz_gpu_csr_prepare_(k ? &r->b : &r->a, &dc, &b_);
                if (!rc) rc = cz_gpu_csr_upload_host_(&g, k ? &r->b : &r->a, &dc);
                cz_csr_dict_free(&dc);
            } else {
                rc = cz_gpu_csr_upload(&g, k ? &r->b : &r->a);
            }
            unsigned rb = 0, cb = 0;
            size_t bytes = 0;
            if (!rc) cz_gpu_csr_layout_(g, &rb, &cb, &bytes);
            if (!rc) bytes += cz_gpu_csr_host_bytes_(g);
            float t[2] = {0, 0};
            for (int c = 0; c < 2 && !rc; c++) {
                rc = time_product(&t[c], d_o, n, g, d_w, c ? &wv : NULL, reps, tm);
                if (!rc) rc = cz_gpu_memcpy_dtoh(lay || c ? got : ref, d_o, n * sizeof(cz_fr));
                if (!rc && (lay || c)) same &= !memcmp(ref, got, n * sizeof(cz_fr));
            }
            cz_gpu_csr_free(g);
            if (!rc)
                printf("| %s | %s | %u / %u | %.1f | %.2f | %.2f | %s |\n", k ? "B" : "A",
                       host ? "narrow, host memory" : wide ? "wide" : "narrow", rb,
                       cb, bytes / 1e6, t[0], t[1], same ? "yes" : "NO");
        }
    unsetenv("CZ_GPU_CSR_NARROW");
    cz_wcompact_free(&cw);
    cz_gpu_free(d_in);
    cz_gpu_free(d_dense);
    cz_gpu_free(d_is_bit);
    cz_gpu_free(d_bit);
    cz_gpu_free(d_offs);
    free(hw);
    free(ref);
    free(got);
    free(offs);
    return rc ? rc : same ? 0 : 1;
}

int main(int argc, char **argv) {
    const char *id = argc > 1 ? argv[1] : "porep-32g";
    const cz_circuit *c = cz_circuit_find(id);
    if (!c || !c->build_r1cs) {
        fprintf(stderr, "no circuit %s\n", id);
        return 2;
    }
    const char *e = getenv("CZ_BENCH_REPS");
    const int reps = e && atoi(e) > 0 ? atoi(e) : 5;
    cz_r1cs r = {0};
    double t0 = now_ms();
    if (c->build_r1cs(c, &r, NULL, NULL)) {
        fprintf(stderr, "%s\n", cz_error_message());
        return 1;
    }
    printf("%s recorded in %.1f s: %llu constraints, %llu inputs, %llu aux\n", id, (now_ms() - t0) / 1e3,
           (unsigned long long)r.num_constraints, (unsigned long long)r.num_inputs, (unsigned long long)r.num_aux);
    profile("A", &r.a);
    profile("B", &r.b);
    unsigned log_n = 1;
    while (((size_t)1 << log_n) < r.num_rows) log_n++;
    const size_t n = (size_t)1 << log_n, nw = r.num_inputs + r.num_aux;
    cz_fr *d_w = NULL, *d_o = NULL;
    int rc = cz_gpu_malloc((void **)&d_w, nw * sizeof(cz_fr));
    if (!rc) rc = cz_gpu_malloc((void **)&d_o, n * sizeof(cz_fr));
    if (!rc) rc = cz_gpu_fr_random(d_w, nw, 0x5eed);
    cz_fr *ref[2][2] = {{NULL, NULL}, {NULL, NULL}}, *got = malloc(n * sizeof(cz_fr));
    const char *bounds[] = {"0", "4", "8", "16", "32", "64"};
    cz_gpu_timer *tm = NULL;
    if (!rc) rc = cz_gpu_timer_create(&tm);
    e = getenv("CZ_BENCH_LAYOUTS_ONLY"); /* the layouts' table alone */
    const int skip = e && atoi(e) != 0;
    printf("\n| long-row bound | A (ms) | B (ms) | A bit-reversed (ms) | B bit-reversed (ms) | bytes as bound 0 |\n|---|---:|---:|---:|---:|---|\n");
    for (size_t bi = 0; bi < (skip ? 0 : sizeof bounds / sizeof bounds[0]) && !rc; bi++) {
        setenv("CZ_GPU_SPMV_LONG", bounds[bi], 1);
        float med[2][2];
        int same = 1;
        for (int k = 0; k < 2 && !rc; k++) {
            cz_gpu_csr *g = NULL;
            rc = cz_gpu_csr_upload(&g, k ? &r.b : &r.a);
            for (int rev = 0; rev < 2 && !rc; rev++) {
                float ms[64];
                for (int i = 0; i < reps && i < 64 && !rc; i++) {
                    rc = cz_gpu_timer_start(tm, NULL);
                    if (!rc) rc = rev ? cz_gpu_csr_mul_vec_rev(d_o, log_n, g, d_w, NULL) : cz_gpu_csr_mul_vec(d_o, n, g, d_w, NULL);
                    if (!rc) rc = cz_gpu_timer_stop(tm, NULL, &ms[i]);
                }
                if (rc) break;
                qsort(ms, (size_t)(reps < 64 ? reps : 64), sizeof ms[0], cmp_f);
                med[k][rev] = ms[(reps < 64 ? reps : 64) / 2];
                rc = cz_gpu_memcpy_dtoh(got, d_o, n * sizeof(cz_fr));
                if (!rc && !ref[k][rev]) {
                    ref[k][rev] = malloc(n * sizeof(cz_fr));
                    memcpy(ref[k][rev], got, n * sizeof(cz_fr));
                } else if (!rc) {
                    same &= !memcmp(ref[k][rev], got, n * sizeof(cz_fr));
                }
            }
            cz_gpu_csr_free(g);
        }
        if (!rc)
            printf("| %s | %.2f | %.2f | %.2f | %.2f | %s |\n", bounds[bi], med[0][0], med[1][0], med[0][1], med[1][1],
                   same ? "yes" : "NO");
        if (!same) rc = 1;
    }
    if (!rc) rc = layouts(&r, d_w, d_o, n, reps, tm);
    if (rc) fprintf(stderr, "cz_bench_spmv: %s\n", rc == 1 ? "the products differ (tables above)" : cz_error_message());
    cz_gpu_timer_destroy(tm);
    cz_gpu_free(d_w);
    cz_gpu_free(d_o);
    for (int k = 0; k < 2; k++) free(ref[k][0]), free(ref[k][1]);
    free(got);
    cz_r1cs_free(&r);
    return rc ? 1 : 0;
}
