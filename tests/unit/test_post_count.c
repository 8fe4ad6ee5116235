/* Winning and Window PoSt circuits in count mode for every registered sector size: constraints,
 * inputs (incl. ONE) and aux must equal filecoin-circuits.md §0.1 (Window 32/64 GiB constraints
 * are the "125,279,217" / "129,887,900" of rust-fil-proofs constants.rs; the rest from the model
 * post.py, which reproduces upstream's fallback_circuit tests). Also the per-sector aux formula the
 * parallel witness relies on, and the test circuit sizes of storage-proofs-post's tests. */
#include <time.h>

#include "cz_error.h"
#include "filecoin/post_circuit.h"
#include "testutil.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(void) {
    static const struct {
        cz_post_kind kind;
        uint64_t size;
        uint64_t c, in, aux;
    } want[] = {
        {CZ_POST_WINNING, 2048ull, 90750, 133, 91674},
        {CZ_POST_WINNING, 8ull << 20, 230670, 133, 233442},
        {CZ_POST_WINNING, 512ull << 20, 300630, 133, 304326},
        {CZ_POST_WINNING, 32ull << 30, 370590, 133, 375210},
        {CZ_POST_WINNING, 64ull << 30, 391314, 133, 396000},
        {CZ_POST_WINDOW, 2048ull, 21866, 23, 22128},
        {CZ_POST_WINDOW, 8ull << 20, 64266, 23, 65088},
        {CZ_POST_WINDOW, 512ull << 20, 85466, 23, 86568},
        /* Window 32 GiB (125,279,217 c / 25,840 inputs / 126,902,376 aux) and 64 GiB take ~10 s each
         * in count mode: tests/slow/test_post_count_large.c */
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        cz_post_params p;
        CHECK(cz_post_params_for(&p, want[i].kind, want[i].size) == 0);
        cz_cs *cs;
        CHECK(cz_cs_new(&cs, CZ_CS_COUNT) == 0);
        double t0 = now();
        int rc = cz_post_synthesize(cs, &p, NULL);
        double t1 = now();
        CHECK_MSG(rc == 0, "%s: %s", p.name, cz_error_message());
        CHECK(cz_cs_finalize(cs) == 0);
        uint64_t c = cz_cs_num_constraints(cs), in = cz_cs_num_inputs(cs), aux = cz_cs_num_aux(cs);
        printf("%-19s constraints %llu inputs %llu aux %llu (%.2f s)\n", p.name, (unsigned long long)c,
               (unsigned long long)in, (unsigned long long)aux, t1 - t0);
        CHECK_MSG(c == want[i].c, "%s constraints %llu, want %llu", p.name, (unsigned long long)c,
                  (unsigned long long)want[i].c);
        CHECK_MSG(in == want[i].in, "%s inputs %llu, want %llu", p.name, (unsigned long long)in,
                  (unsigned long long)want[i].in);
        CHECK_MSG(aux == want[i].aux, "%s aux %llu, want %llu", p.name, (unsigned long long)aux,
                  (unsigned long long)want[i].aux);
        CHECK(cz_post_sector_aux(&p) * p.sectors == aux);
        CHECK(1 + cz_post_sector_inputs(&p) * p.sectors == in);
        cz_cs_free(cs);
    }
    /* storage-proofs-post tests/fallback_circuit.rs: 64 leaves (8-8), 3 sectors x 5 challenges =
     * 16,869; 2 sectors x 5 = 11,246 */
    cz_post_params p;
    cz_post_params_for(&p, CZ_POST_WINDOW, 2048);
    static const struct {
        unsigned sectors, challenges;
        uint64_t c;
    } tests[] = {{3, 5, 16869}, {2, 5, 11246}};
    for (size_t i = 0; i < 2; i++) {
        p.sectors = tests[i].sectors, p.challenges = tests[i].challenges;
        cz_cs *cs;
        cz_cs_new(&cs, CZ_CS_COUNT);
        CHECK(cz_post_synthesize(cs, &p, NULL) == 0);
        CHECK_MSG(cz_cs_num_constraints(cs) == tests[i].c, "fallback test %zu: %llu", i,
                  (unsigned long long)cz_cs_num_constraints(cs));
        cz_cs_free(cs);
    }
    /* bad parameters and a witness-mode call without proofs fail with a message */
    CHECK(cz_post_params_for(&p, CZ_POST_WINDOW, 4096) == CZ_EINVAL);
    CHECK(cz_post_params_for(&p, (cz_post_kind)7, 2048) == CZ_EINVAL);
    cz_cs *cs;
    cz_cs_new(&cs, CZ_CS_WITNESS);
    cz_post_params_for(&p, CZ_POST_WINNING, 2048);
    CHECK(cz_post_synthesize(cs, &p, NULL) == CZ_EINVAL);
    cz_cs_free(cs);
    return cz_test_finish();
}
