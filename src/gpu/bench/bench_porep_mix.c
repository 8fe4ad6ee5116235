/* The 0 / 1 / other mix of a PoRep partition's aux values (the L query's scalars), which sets the size of
 * the tail MSMs of the GPU prover's split. Witness from random vanilla values, shape-exact as in
 * bench/porep_witness.c (SHA-256 and Poseidon of random data give the real bit statistics; the witness
 * does not satisfy the circuit, which does not matter for the mix). Prints a line "mix p0 p1" (per mille).
 * CZ_MIX_QUERIES=<circuit id> (e.g. porep-32g; the sector size's circuit) also records that circuit's R1CS and
 * prints the mix of the aux values each query takes (A: its density, B: its density, L: every aux), and
 * "mix_b p0 p1" / "mix_not_b p0 p1" (B's aux / the others) for cz_bench_prover's CZ_BENCH_MIX_B / CZ_BENCH_MIX
 * (the recording needs the R1CS's host memory: ~29 GB at 32 GiB). Also the share of batch additions that stored
 * subset sums of k consecutive bases would leave (group_mix).
 * usage: cz_bench_porep_mix [sector_bytes (default 32 GiB)] [threads (default: all)] */
#include <stdio.h>
#include <stdlib.h>

#include "cz_error.h"
#include "engine/circuit.h"
#include "filecoin/porep_circuit.h"
#include "filecoin/synth.h"

/* Bit length of a value (0 for zero). */
static unsigned bit_len(const cz_fr *x) {
    uint8_t be[32];
    cz_fr_to_bytes_be(be, x);
    unsigned bits = 256;
    for (unsigned k = 0; k < 32 && be[k] == 0; k++) bits -= 8;
    if (bits)
        for (unsigned char t = be[32 - bits / 8]; !(t & 0x80); t <<= 1) bits--;
    return bits;
}

/* The mix of c = (A w)(B w), row by row (the witness is random-vanilla, so (A w)(B w) stands for C w, which it
 * equals wherever the gadgets' own values are consistent): how many of the domain's scalars an MSM of c over
 * Lagrange bases on H would take as 0, 1, small or full. Negative values (r - k) count by the bit length of k. */
static int c_mix(const cz_r1cs *r, const cz_fr *in, const cz_fr *aux) {
    const uint64_t rows = r->num_rows;
    cz_fr *a = malloc(rows * sizeof(cz_fr)), *b = malloc(rows * sizeof(cz_fr)), *c = malloc(rows * sizeof(cz_fr));
    if (!a || !b || !c) {
        free(a), free(b), free(c);
        fprintf(stderr, "c mix: out of memory\n");
        return 1;
    }
    cz_r1cs_eval(a, b, c, r, in, aux, 0);
    uint64_t n0 = 0, n1 = 0, neq = 0, hist[257] = {0}, nhist[257] = {0};
    for (uint64_t i = 0; i < rows; i++) {
        cz_fr t, m;
        cz_fr_mul(&t, &a[i], &b[i]);
        neq += cz_fr_equal(&t, &c[i]);
        if (cz_fr_is_zero(&t)) n0++;
        else if (cz_fr_equal(&t, &CZ_FR_ONE_V)) n1++;
        else {
            cz_fr_neg(&m, &t);
            const unsigned bp = bit_len(&t), bn = bit_len(&m);
            if (bn < bp) nhist[bn]++;
            else hist[bp]++;
        }
    }
    uint64_t n = 1;
    while (n < rows) n <<= 1;
    printf("c = (A w)(B w): %llu rows (domain %llu), equal to C w on %llu: zeros %llu (%.2f %%), ones %llu (%.2f %%), "
           "other %llu (%.2f %%)\n", (unsigned long long)rows, (unsigned long long)n, (unsigned long long)neq,
           (unsigned long long)n0, 100.0 * n0 / rows, (unsigned long long)n1, 100.0 * n1 / rows,
           (unsigned long long)(rows - n0 - n1), 100.0 * (rows - n0 - n1) / rows);
    printf("c other by bit length:");
    for (unsigned k = 0; k <= 256; k++)
        if (hist[k]) printf(" %u:%llu", k, (unsigned long long)hist[k]);
    printf("\nc negative (r - k) by k's bit length:");
    for (unsigned k = 0; k <= 256; k++)
        if (nhist[k]) printf(" %u:%llu", k, (unsigned long long)nhist[k]);
    printf("\n");
    free(a), free(b), free(c);
    return 0;
}

/* A lead for the bitmap batch additions (a query's sum over the aux values that are 1): with the 2^k - 1 subset sums
 * of each group of k consecutive bases stored beside them ((2^k - 1) / k times the points), a group whose 0 / 1
 * pattern is not all zeros costs one addition instead of one per 1. Prints, for k = 2..4, the groups with a 1
 * against the ones, over the query's aux in order (dens: its density bitmap, NULL: every aux, as L; the other
 * values go to the tail MSM either way). */
static void group_mix(const char *q, const cz_fr *aux, uint64_t naux, const uint64_t *dens) {
    for (unsigned k = 2; k <= 4; k++) {
        uint64_t groups = 0, ones = 0;
        unsigned at = 0;
        int any = 0;
        for (uint64_t i = 0; i < naux; i++) {
            if (dens && !cz_density_get(dens, i)) continue;
            const int one = cz_fr_equal(&aux[i], &CZ_FR_ONE_V);
            ones += (uint64_t)one, any |= one;
            if (++at == k) groups += (uint64_t)any, at = 0, any = 0;
        }
        groups += (uint64_t)any; /* a last, short group */
        printf("query %s, groups of %u: %llu with a 1, against %llu ones: %.3f of the additions, %.2fx the points\n", q,
               k, (unsigned long long)groups, (unsigned long long)ones, ones ? (double)groups / ones : 0.0,
               ((1u << k) - 1) / (double)k);
    }
}

/* The zeros / ones / others among the aux values of each query of circuit id (its recorded densities). */
static int query_mix(const char *id, const cz_fr *in, const cz_fr *aux, uint64_t naux, const uint64_t all[3]) {
    const cz_circuit *c = cz_circuit_find(id);
    cz_r1cs r;
    if (!c || !c->build_r1cs || c->build_r1cs(c, &r, NULL, NULL)) {
        fprintf(stderr, "%s: cannot record (%s)\n", id, c ? cz_error_message() : "unknown circuit");
        return 1;
    }
    if (r.num_aux != naux) {
        fprintf(stderr, "%s has %llu aux, the witness %llu\n", id, (unsigned long long)r.num_aux, (unsigned long long)naux);
        cz_r1cs_free(&r);
        return 1;
    }
    const uint64_t *dens[2] = {r.a_aux_density, r.b_aux_density};
    uint64_t n[2][3] = {{0}};
    for (uint64_t i = 0; i < naux; i++) {
        const int kind = cz_fr_is_zero(&aux[i]) ? 0 : cz_fr_equal(&aux[i], &CZ_FR_ONE_V) ? 1 : 2;
        for (int q = 0; q < 2; q++) n[q][kind] += cz_density_get(dens[q], i);
    }
    for (int q = 0; q < 2; q++) {
        const uint64_t t = n[q][0] + n[q][1] + n[q][2];
        printf("query %c: %llu aux: zeros %llu (%.2f %%), ones %llu (%.2f %%), other %llu (%.2f %%)\n", q ? 'B' : 'A',
               (unsigned long long)t, (unsigned long long)n[q][0], 100.0 * n[q][0] / t, (unsigned long long)n[q][1],
               100.0 * n[q][1] / t, (unsigned long long)n[q][2], 100.0 * n[q][2] / t);
        if (q) printf("mix_b %u %u\n", (unsigned)(1000.0 * n[q][0] / t + 0.5), (unsigned)(1000.0 * n[q][1] / t + 0.5));
    }
    group_mix("A", aux, naux, dens[0]);
    group_mix("B", aux, naux, dens[1]);
    const uint64_t nb0 = all[0] - n[1][0], nb1 = all[1] - n[1][1], nbt = naux - (n[1][0] + n[1][1] + n[1][2]);
    printf("mix_not_b %u %u\n", (unsigned)(1000.0 * nb0 / nbt + 0.5), (unsigned)(1000.0 * nb1 / nbt + 0.5));
    int rc = c_mix(&r, in, aux);
    cz_r1cs_free(&r);
    return rc;
}

int main(int argc, char **argv) {
    uint64_t size = argc > 1 ? strtoull(argv[1], NULL, 0) : 34359738368ull;
    int threads = argc > 2 ? atoi(argv[2]) : 0;
    cz_porep_params p;
    if (cz_porep_params_for(&p, size)) {
        fprintf(stderr, "%s\n", cz_error_message());
        return 2;
    }
    cz_porep_witness w;
    cz_fr *pool;
    if (cz_porep_witness_random(&w, &pool, &p, 7)) {
        fprintf(stderr, "%s\n", cz_error_message());
        return 1;
    }
    cz_porep_challenge *ch = (cz_porep_challenge *)w.ch;
    uint64_t top, per;
    if (cz_porep_shape(&p, &top, &per)) return 1;
    uint64_t naux = top + per * p.challenges, nin = 4 + 18ull * p.challenges;
    cz_fr *in = malloc(nin * sizeof(cz_fr)), *aux = malloc(naux * sizeof(cz_fr));
    if (!in || !aux || cz_porep_witness_parallel(&p, &w, in, nin, aux, naux, threads)) {
        fprintf(stderr, "witness: %s\n", cz_error_message());
        return 1;
    }
    uint64_t zeros = 0, ones = 0, hist[257] = {0};
    for (uint64_t i = 0; i < naux; i++) {
        if (cz_fr_is_zero(&aux[i])) zeros++;
        else if (cz_fr_equal(&aux[i], &CZ_FR_ONE_V)) ones++;
        else hist[bit_len(&aux[i])]++;
    }
    uint64_t other = naux - zeros - ones;
    printf("%s: %llu aux: zeros %llu (%.2f %%), ones %llu (%.2f %%), other %llu (%.2f %%)\n", p.name,
           (unsigned long long)naux, (unsigned long long)zeros, 100.0 * zeros / naux, (unsigned long long)ones,
           100.0 * ones / naux, (unsigned long long)other, 100.0 * other / naux);
    printf("other values by bit length:");
    for (unsigned b = 0; b <= 256; b++)
        if (hist[b]) printf(" %u:%llu", b, (unsigned long long)hist[b]);
    printf("\n");
    printf("mix %u %u\n", (unsigned)(1000.0 * zeros / naux + 0.5), (unsigned)(1000.0 * ones / naux + 0.5));
    group_mix("L", aux, naux, NULL);
    const char *qid = getenv("CZ_MIX_QUERIES");
    const uint64_t all[3] = {zeros, ones, other};
    if (qid && *qid && query_mix(qid, in, aux, naux, all)) return 1;
    free(in), free(aux), free(pool), free(ch);
    return 0;
}
