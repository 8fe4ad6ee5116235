/* The 0 / 1 / other mix of a PoRep partition's aux values (the L query's scalars), which sets the size of
 * the tail MSMs of the GPU prover's split. Witness from random vanilla values, shape-exact as in
 * bench/porep_witness.c (SHA-256 and Poseidon of random data give the real bit statistics; the witness
 * does not satisfy the circuit, which does not matter for the mix). Prints "mix p0 p1" (per mille) last.
 * usage: cz_bench_porep_mix [sector_bytes (default 32 GiB)] [threads (default: all)] */
#include <stdio.h>
#include <stdlib.h>

#include "cz_error.h"
#include "filecoin/porep_circuit.h"
#include "filecoin/synth.h"

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
        else {
            uint8_t be[32];
            cz_fr_to_bytes_be(be, &aux[i]);
            unsigned bits = 256;
            for (unsigned k = 0; k < 32 && be[k] == 0; k++) bits -= 8;
            if (bits) for (unsigned char t = be[32 - bits / 8]; !(t & 0x80); t <<= 1) bits--;
            hist[bits]++;
        }
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
    free(in), free(aux), free(pool), free(ch);
    return 0;
}
