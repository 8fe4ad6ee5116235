/* Window PoSt 32 GiB (2349 sectors) and 64 GiB (2300 sectors) in count mode: constraints must equal
 * the "125,279,217" / "129,887,900" comments of rust-fil-proofs filecoin-proofs/src/constants.rs,
 * inputs and aux filecoin-circuits.md §0.1 (model post.py). ~10 s each on one core, hence slow. */
#include <time.h>

#include "cz_error.h"
#include "filecoin/post_circuit.h"
#include "testutil.h"

int main(void) {
    static const struct {
        uint64_t size;
        uint64_t c, in, aux;
    } want[] = {
        {32ull << 30, 125279217, 25840, 126902376},
        {64ull << 30, 129887900, 25301, 131500200},
    };
    for (size_t i = 0; i < 2; i++) {
        cz_post_params p;
        CHECK(cz_post_params_for(&p, CZ_POST_WINDOW, want[i].size) == 0);
        cz_cs *cs;
        CHECK(cz_cs_new(&cs, CZ_CS_COUNT) == 0);
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        int rc = cz_post_synthesize(cs, &p, NULL);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        CHECK_MSG(rc == 0, "%s: %s", p.name, cz_error_message());
        CHECK(cz_cs_finalize(cs) == 0);
        uint64_t c = cz_cs_num_constraints(cs), in = cz_cs_num_inputs(cs), aux = cz_cs_num_aux(cs);
        printf("%-19s constraints %llu inputs %llu aux %llu (%.2f s)\n", p.name, (unsigned long long)c,
               (unsigned long long)in, (unsigned long long)aux,
               (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
        CHECK_MSG(c == want[i].c, "%s constraints %llu", p.name, (unsigned long long)c);
        CHECK_MSG(in == want[i].in, "%s inputs %llu", p.name, (unsigned long long)in);
        CHECK_MSG(aux == want[i].aux, "%s aux %llu", p.name, (unsigned long long)aux);
        CHECK(cz_post_sector_aux(&p) * p.sectors == aux);
        cz_cs_free(cs);
    }
    return cz_test_finish();
}
