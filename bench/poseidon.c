/* Poseidon (Filecoin constants) per-hash time: the native hash, the textbook permutation it must
 * match, and the gadget in witness mode (values only, the hot path of PoRep/PoSt witness generation),
 * for arities 2, 8 and 11. usage: cz_bench_poseidon [iters per round (default 100)] */
#include "bench_util.h"
#include "cz_error.h"
#include "gadgets/poseidon.h"

int main(int argc, char **argv) {
    long iters = argc > 1 ? atol(argv[1]) : 100;
    char cpu[256];
    cz_bench_cpu_name(cpu, sizeof cpu);
    printf("# %s, per hash\n", cpu);
    CZ_BENCH_HEADER();
    cz_rng rng;
    cz_rng_seed(&rng, 7);
    static const unsigned arities[] = {2, 8, 11};
    for (unsigned a = 0; a < 3; a++) {
        unsigned ar = arities[a];
        cz_fr in[11], out;
        for (unsigned i = 0; i < ar; i++) cz_fr_random(&in[i], &rng);
        char label[64];
        snprintf(label, sizeof label, "native arity %u", ar);
        CZ_BENCH(label, iters, NULL, cz_poseidon_hash(&out, in, ar); in[0] = out);
        snprintf(label, sizeof label, "textbook arity %u", ar);
        CZ_BENCH(label, iters / 4 + 1, NULL, cz_poseidon_hash_textbook(&out, in, ar, NULL); in[0] = out);
        cz_cs *cs;
        if (cz_cs_new(&cs, CZ_CS_WITNESS) ||
            cz_cs_reserve(cs, 1, ar + (uint64_t)CZ_BENCH_ROUNDS * iters * 600, (uint64_t)CZ_BENCH_ROUNDS * iters * 600)) {
            fprintf(stderr, "%s\n", cz_error_message());
            return 1;
        }
        cz_num x[11], o;
        for (unsigned i = 0; i < ar; i++) x[i] = cz_num_alloc(cs, &in[i]);
        snprintf(label, sizeof label, "gadget witness arity %u", ar);
        CZ_BENCH(label, iters, NULL, cz_poseidon_circuit(cs, &o, x, ar));
        if (cz_cs_status(cs)) fprintf(stderr, "cs error: %s\n", cz_error_message());
        cz_cs_free(cs);
    }
    return 0;
}
