/* SnapDeals (EmptySectorUpdate) circuit in count mode: every registered size must equal
 * filecoin-circuits.md §0.1 (2 KiB 1,705,039 and 32 GiB 81,049,499 constraints are asserted by
 * storage-proofs-update tests/circuit.rs; inputs and aux from the model snap.py), and upstream's
 * test sizes 1/4/8/16/32 KiB their asserted 1,248,389 / 2,165,109 / 2,620,359 / 6,300,021 /
 * 6,760,091. 32/64 GiB run ~81/85 M constraints (timed below). */
#include <time.h>

#include "cz_error.h"
#include "filecoin/snap_circuit.h"
#include "testutil.h"

int main(void) {
    static const struct {
        uint64_t size;
        uint64_t c, in, aux;
    } want[] = {
        {2048ull, 1705039, 5, 1703569},
        {8ull << 20, 10007503, 5, 9998039},
        {512ull << 20, 57450479, 5, 57401314},
        {32ull << 30, 81049499, 5, 80978488},
        {64ull << 30, 85006101, 5, 84931220},
        {1024ull, 1248389, 5, 0},
        {4096ull, 2165109, 5, 0},
        {8192ull, 2620359, 5, 0},
        {16384ull, 6300021, 5, 0},
        {32768ull, 6760091, 5, 0},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        cz_snap_params p;
        CHECK(cz_snap_params_for(&p, want[i].size) == 0);
        cz_cs *cs;
        CHECK(cz_cs_new(&cs, CZ_CS_COUNT) == 0);
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        int rc = cz_snap_synthesize(cs, &p, NULL);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        CHECK_MSG(rc == 0, "%s: %s", p.name, cz_error_message());
        CHECK(cz_cs_finalize(cs) == 0);
        uint64_t c = cz_cs_num_constraints(cs), in = cz_cs_num_inputs(cs), aux = cz_cs_num_aux(cs);
        printf("%-17s constraints %llu inputs %llu aux %llu (%.2f s)\n", p.name, (unsigned long long)c,
               (unsigned long long)in, (unsigned long long)aux,
               (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
        CHECK_MSG(c == want[i].c, "%s constraints %llu, want %llu", p.name, (unsigned long long)c,
                  (unsigned long long)want[i].c);
        CHECK_MSG(in == want[i].in, "%s inputs %llu", p.name, (unsigned long long)in);
        if (want[i].aux)
            CHECK_MSG(aux == want[i].aux, "%s aux %llu, want %llu", p.name, (unsigned long long)aux,
                      (unsigned long long)want[i].aux);
        cz_cs_free(cs);
        uint64_t ta, ca;
        CHECK(cz_snap_shape(&p, &ta, &ca) == 0 && ta + ca * p.challenges == aux);
    }
    cz_snap_params p;
    CHECK(cz_snap_params_for(&p, 4ull << 30) == CZ_EINVAL);
    cz_snap_params_for(&p, 2048);
    uint64_t kh;
    CHECK(cz_snap_k_and_h_select(&kh, &p, 0, 1) == 0 && kh == 1);
    CHECK(cz_snap_k_and_h_select(&kh, &p, 1, 1) == CZ_EINVAL);
    CHECK(cz_snap_k_and_h_select(&kh, &p, 0, 10) == CZ_EINVAL);
    cz_snap_params_for(&p, 32ull << 30);
    CHECK(cz_snap_k_and_h_select(&kh, &p, 5, 10) == 0 && kh == (5 | 8u << 4));
    cz_cs *cs;
    cz_cs_new(&cs, CZ_CS_WITNESS);
    CHECK(cz_snap_synthesize(cs, &p, NULL) == CZ_EINVAL);
    cz_cs_free(cs);
    return cz_test_finish();
}
