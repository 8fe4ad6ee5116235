/* StackedDrg PoRep circuit in count mode for every registered sector size: constraints, inputs
 * (incl. ONE) and aux must equal filecoin-circuits.md §0.1 (32 GiB: curio cuzk's production
 * measurement 130,278,541 + 328 inputs, 130,169,893 aux; the others derived by the validated model
 * count.py). Count mode allocates nothing per variable, so this runs in CI. */
#include <time.h>

#include "cz_error.h"
#include "filecoin/porep_circuit.h"
#include "testutil.h"

int main(void) {
    static const struct { uint64_t size; uint64_t c, in, aux; } want[] = {
        {2048ull, 2687921, 40, 2685673},
        {8ull << 20, 3844929, 40, 3842449},
        {512ull << 20, 4423433, 40, 4420837},
        {32ull << 30, 130278541, 328, 130169893},
        {64ull << 30, 131185849, 328, 131076643},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        cz_porep_params p;
        CHECK(cz_porep_params_for(&p, want[i].size) == 0);
        cz_cs *cs;
        CHECK(cz_cs_new(&cs, CZ_CS_COUNT) == 0);
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        int rc = cz_porep_synthesize(cs, &p, NULL);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        CHECK_MSG(rc == 0, "%s: %s", p.name, cz_error_message());
        CHECK(cz_cs_finalize(cs) == 0);
        uint64_t c = cz_cs_num_constraints(cs), in = cz_cs_num_inputs(cs), aux = cz_cs_num_aux(cs);
        printf("%-7s constraints %llu inputs %llu aux %llu (%.2f s)\n", p.name, (unsigned long long)c,
               (unsigned long long)in, (unsigned long long)aux,
               (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
        CHECK_MSG(c == want[i].c, "%s constraints %llu, want %llu", p.name, (unsigned long long)c,
                  (unsigned long long)want[i].c);
        CHECK_MSG(in == want[i].in, "%s inputs %llu", p.name, (unsigned long long)in);
        CHECK_MSG(aux == want[i].aux, "%s aux %llu, want %llu", p.name, (unsigned long long)aux,
                  (unsigned long long)want[i].aux);
        cz_cs_free(cs);
        uint64_t top, per;
        CHECK(cz_porep_shape(&p, &top, &per) == 0 && top + per * p.challenges == want[i].aux);
    }
    cz_porep_params p;
    CHECK(cz_porep_params_for(&p, 4096) == CZ_EINVAL);
    cz_cs *cs;
    cz_cs_new(&cs, CZ_CS_WITNESS);
    cz_porep_params_for(&p, 2048);
    CHECK(cz_porep_synthesize(cs, &p, NULL) == CZ_EINVAL);
    cz_cs_free(cs);
    return cz_test_finish();
}
