/* The device bytes a prover plans within (gpu_prover.h cz_gpu_prover_usable; prover.c), the one rule that create()
 * and the backend's checks before a create() (backend_gpu.c acquire: "streams even alone", "its bases do not fit
 * beside the residents") share. Pure arithmetic over the figures given: it runs without a GPU (label unit, built with
 * the CUDA backend). On random device sizes, free memory, others' bytes and margins:
 *  - free less the margin, 0 when the margin takes it all; a margin of 0 is the default one (1 GiB + 2 %);
 *  - the others' bytes are added as if freed, never past the device's total; SIZE_MAX (not known) is the total;
 *  - CZ_GPU_MEM_LIMIT_MB and CZ_GPU_MEM_LIMIT_KB cap the result (a smaller card simulated), and only lower it: the
 *    backend's checks used to leave the cap out, so that under it they disagreed with create() (session 58). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpu/gpu_prover.h"
#include "../testutil.h"

/* the rule written out again, independently: min(free + others, total) - margin, floored at 0, then the caps */
static size_t want(size_t fr, size_t tot, size_t others, size_t margin, size_t cap) {
    if (!margin) margin = ((size_t)1 << 30) + tot / 50;
    unsigned __int128 fa = (unsigned __int128)fr + others;
    if (fa > tot) fa = tot;
    size_t u = fa > margin ? (size_t)(fa - margin) : 0;
    return cap && cap < u ? cap : u;
}

int main(void) {
    cz_rng rng;
    cz_test_rng(&rng);
    unsetenv("CZ_GPU_MEM_LIMIT_MB");
    unsetenv("CZ_GPU_MEM_LIMIT_KB");
    const size_t gib = (size_t)1 << 30;

    /* fixed cases an 80 GB card shows (81,559 MiB) */
    const size_t h100 = (size_t)81559 << 20, dm = gib + h100 / 50;
    CHECK(cz_gpu_prover_usable(10 * gib, h100, 0, 0) == 10 * gib - dm);
    CHECK(cz_gpu_prover_usable(10 * gib, h100, 30 * gib, 0) == 40 * gib - dm);
    CHECK(cz_gpu_prover_usable(10 * gib, h100, SIZE_MAX, 0) == h100 - dm);
    CHECK(cz_gpu_prover_usable(10 * gib, h100, 100 * gib, 0) == h100 - dm); /* not past the total */
    CHECK(cz_gpu_prover_usable(10 * gib, h100, 0, 2 * gib) == 8 * gib);
    CHECK(cz_gpu_prover_usable(gib, h100, 0, 2 * gib) == 0);
    CHECK(cz_gpu_prover_usable(dm, h100, 0, 0) == 0);
    CHECK(cz_gpu_prover_usable(h100, h100, 0, 0) == h100 - dm);
    printf("fixed cases: ok\n");

    int bad = 0;
    for (int i = 0; i < 20000; i++) {
        const size_t tot = (size_t)(cz_rng_next(&rng) % (200 * gib)) + 1;
        const size_t fr = (size_t)(cz_rng_next(&rng) % (tot + 1));
        const uint64_t k = cz_rng_next(&rng);
        const size_t others = k % 5 == 0 ? SIZE_MAX : k % 5 == 1 ? 0 : (size_t)(cz_rng_next(&rng) % (tot + 1));
        const size_t margin = k / 5 % 3 == 0 ? 0 : (size_t)(cz_rng_next(&rng) % (4 * gib));
        const size_t got = cz_gpu_prover_usable(fr, tot, others, margin), w = want(fr, tot, others, margin, 0);
        if (got != w && bad++ < 5)
            fprintf(stderr, "free %zu total %zu others %zu margin %zu: %zu, want %zu\n", fr, tot, others, margin,
                    got, w);
    }
    CHECK_MSG(bad == 0, "%d of 20000 random cases wrong", bad);
    printf("random cases, no cap: %d wrong\n", bad);

    /* the caps: MB, KB, both (the lower wins), and a cap above the figure changes nothing */
    bad = 0;
    for (int i = 0; i < 6000; i++) {
        const size_t tot = (size_t)(cz_rng_next(&rng) % (200 * gib)) + 1;
        const size_t fr = (size_t)(cz_rng_next(&rng) % (tot + 1));
        const size_t others = (size_t)(cz_rng_next(&rng) % (tot + 1));
        const unsigned long long mb = cz_rng_next(&rng) % 150000 + 1, kb = cz_rng_next(&rng) % (150000ull << 10) + 1;
        char b[32];
        const int mode = i % 3;
        size_t cap = 0;
        if (mode != 1) {
            snprintf(b, sizeof b, "%llu", mb);
            setenv("CZ_GPU_MEM_LIMIT_MB", b, 1);
            cap = (size_t)mb << 20;
        }
        if (mode != 0) {
            snprintf(b, sizeof b, "%llu", kb);
            setenv("CZ_GPU_MEM_LIMIT_KB", b, 1);
            cap = cap && cap < (size_t)kb << 10 ? cap : (size_t)kb << 10;
        }
        const size_t got = cz_gpu_prover_usable(fr, tot, others, 0), w = want(fr, tot, others, 0, cap);
        if (got != w && bad++ < 5)
            fprintf(stderr, "cap mode %d (%llu MB, %llu KB), free %zu total %zu others %zu: %zu, want %zu\n", mode, mb,
                    kb, fr, tot, others, got, w);
        unsetenv("CZ_GPU_MEM_LIMIT_MB");
        unsetenv("CZ_GPU_MEM_LIMIT_KB");
    }
    CHECK_MSG(bad == 0, "%d of 6000 capped cases wrong", bad);
    printf("random cases, capped: %d wrong\n", bad);

    /* a 16 GB card simulated on an 80 GB one: the cap, whatever the others hold */
    setenv("CZ_GPU_MEM_LIMIT_MB", "14300", 1);
    CHECK(cz_gpu_prover_usable(70 * gib, h100, 0, 0) == (size_t)14300 << 20);
    CHECK(cz_gpu_prover_usable(5 * gib, h100, SIZE_MAX, 0) == (size_t)14300 << 20);
    CHECK(cz_gpu_prover_usable(5 * gib, h100, 0, 0) == 5 * gib - dm);
    unsetenv("CZ_GPU_MEM_LIMIT_MB");
    printf("a smaller card simulated: ok\n");
    return cz_test_finish();
}
