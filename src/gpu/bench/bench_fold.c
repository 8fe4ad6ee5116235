/* C's fold into L (prover_fold.c, the Lagrange-form H's C term) at a real circuit's size, timed without building
 * the Lagrange bases (8 minutes at 32 GiB): records the circuit's R1CS, draws Lh (n points) and L (num_aux points) as
 * k G with random 64-bit k on the device, and runs the fold with its check on a bare prover. Prints the fold's
 * report ("C (...) by column in, folded into L in, checked in") and its wall time; exit 1 when the fold fails or
 * its check does, and the fold's peak host memory above what was resident before it (/proc/self: the peak reset
 * through clear_refs). usage: cz_bench_fold [circuit id (default porep-32g)] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "ec/g1.h"
#include "ec/msm_internal.h"
#include "engine/circuit.h"
#include "gpu/gpu.h"
#include "gpu/gpu_internal.h"
#include "gpu/prover_internal.h"
#include "gpu/prover_priv.h"
#include "poly/ntt.h"
#include "util/rng.h"

/* a figure of /proc/self/status in kB (VmRSS:, VmHWM:), -1 when unreadable */
static double proc_kb(const char *key) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    double v = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, strlen(key))) v = atof(line + strlen(key));
    if (f) fclose(f);
    return v;
}

/* d[i] = k_i G, i < count, k_i random below 2^64 */
static int draw_points(cz_g1_affine *d, size_t count, uint64_t seed, void *st) {
    if (!count) return 0;
    cz_g1_affine g;
    cz_g1_generator(&g);
    const size_t chunk = (size_t)1 << 20;
    cz_g1_affine *hg = malloc(chunk * sizeof *hg);
    uint64_t *ks = malloc(count * 32);
    void *d_g = NULL, *d_ks = NULL, *d_x = NULL;
    int rc = hg && ks ? 0 : cz_error(CZ_ENOMEM, "points");
    if (!rc) rc = cz_gpu_malloc(&d_g, count * sizeof(cz_g1_affine));
    if (!rc) rc = cz_gpu_malloc(&d_ks, count * 32);
    if (!rc) rc = cz_gpu_malloc(&d_x, (count + 1) * sizeof(cz_g1_xyzz));
    for (size_t i = 0; i < chunk && !rc; i++) hg[i] = g;
    for (size_t o = 0; o < count && !rc; o += chunk)
        rc = cz_gpu_memcpy_htod((cz_g1_affine *)d_g + o, hg, (count - o < chunk ? count - o : chunk) * sizeof *hg);
    cz_rng rng;
    cz_rng_seed(&rng, seed);
    for (size_t i = 0; i < count && ks; i++) ks[4 * i] = cz_rng_next(&rng) | 1, ks[4 * i + 1] = ks[4 * i + 2] = ks[4 * i + 3] = 0;
    cz_fp beta, px, py;
    cz_msm_endo_consts_(&beta, &px, &py);
    if (!rc) rc = cz_gpu_memcpy_htod(d_ks, ks, count * 32);
    if (!rc) rc = cz_gpu_hl_prescale_(d_x, d_g, d_ks, 8, count + 1, &beta, st); /* the last one: infinity, unused */
    if (!rc) rc = cz_gpu_hl_affine_(d, d_x, count, st);
    if (!rc) rc = cz_gpu_stream_sync_(st);
    cz_gpu_free(d_g), cz_gpu_free(d_ks), cz_gpu_free(d_x);
    free(hg), free(ks);
    return rc;
}

int main(int argc, char **argv) {
    const char *id = argc > 1 ? argv[1] : "porep-32g";
    const cz_circuit *c = cz_circuit_find(id);
    if (!c || !c->build_r1cs) {
        fprintf(stderr, "unknown circuit %s\n", id);
        return 2;
    }
    double t0 = cz_gpu_now_ms_();
    cz_r1cs r;
    if (c->build_r1cs(c, &r, NULL, NULL)) {
        fprintf(stderr, "%s: %s\n", id, cz_error_message());
        return 1;
    }
    cz_domain d;
    if (cz_domain_for_size(&d, r.num_rows)) return 1;
    printf("%s: recorded in %.1f s: %llu rows (2^%u), %llu inputs, %llu aux, C %llu terms\n", id,
           (cz_gpu_now_ms_() - t0) / 1e3, (unsigned long long)r.num_rows, d.log_n, (unsigned long long)r.num_inputs,
           (unsigned long long)r.num_aux, (unsigned long long)cz_r1cs_nnz(&r.c));
    cz_gpu_prover *pr = NULL;
    int rc = cz_gpu_prover_init_(&pr, 0, 0);
    if (!pr) {
        fprintf(stderr, "prover: %s\n", cz_error_message());
        return 1;
    }
    pr->ni = r.num_inputs, pr->na = r.num_aux, pr->rows = r.num_rows, pr->n = d.n, pr->log_n = d.log_n, pr->lag = 1;
    pr->len[Q_L] = r.num_aux;
    t0 = cz_gpu_now_ms_();
    if (!rc) rc = cz_gpu_prover_dalloc_(pr, (void **)&pr->d_lh, d.n * sizeof(cz_g1_affine), "Lh");
    if (!rc) rc = cz_gpu_prover_dalloc_(pr, (void **)&pr->d_q[Q_L], r.num_aux * sizeof(cz_g1_affine), "L");
    if (!rc) rc = draw_points(pr->d_lh, d.n, 0x4c68, pr->st);
    if (!rc) rc = draw_points(pr->d_q[Q_L], r.num_aux, 0x4c, pr->st);
    if (!rc) printf("points drawn in %.1f s\n", (cz_gpu_now_ms_() - t0) / 1e3);
    cz_groth16_params p;
    memset(&p, 0, sizeof p); /* no L to restore: a failed check is an error here */
    /* the fold's host memory: the peak resident set from here on, less what is resident now */
    FILE *cr = fopen("/proc/self/clear_refs", "w");
    const int peak_reset = cr && fputs("5", cr) >= 0;
    if (cr) fclose(cr);
    const double rss0 = proc_kb("VmRSS:");
    t0 = cz_gpu_now_ms_();
    if (!rc) rc = cz_gpu_prover_lag_fold_(pr, &p, &r);
    const double ms = cz_gpu_now_ms_() - t0;
    if (rc) fprintf(stderr, "fold: %s\n", cz_error_message());
    printf("fold: %s in %.1f s%s\n", rc ? "failed" : pr->fold ? "done" : "refused", ms / 1e3, pr->lag_note);
    if (peak_reset && rss0 > 0)
        printf("fold: host memory %.2f GB at its peak above the %.2f GB resident before it\n",
               (proc_kb("VmHWM:") - rss0) * 1024 / 1e9, rss0 * 1024 / 1e9);
    const int ok = !rc && pr->fold;
    cz_gpu_prover_destroy(pr);
    cz_r1cs_free(&r);
    return ok ? 0 : 1;
}
