/* The device's fixed-base products (src/gpu/fixed_base.cu) against the CPU's (groth16/fixed_base.h), bit for
 * bit, on fresh random scalars and edge scalars (0, 1, 2, r - 1, r - 2, powers of two across the window
 * borders, digit patterns that are all +-2^(c-1), values below 2^12), in G1 and G2, the outputs poisoned
 * first; sizes 1 .. 2^16 and (uncapped) one past the device's 2^21-point chunk; then the whole seeded setup
 * through cz_groth16_setup_ex with the GPU products equals the CPU setup's bytes on random circuits; a
 * table that does not cover 256 bits is refused. Exits 77 (skipped) without a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "gpu/gpu.h"
#include "groth16/setup.h"
#include "gpu_circuit.h"
#include "testutil.h"

#include "groth16/fixed_base.h"

static cz_rng rng;

static void edge_scalars(cz_fr *k, size_t n) {
    size_t i = 0;
    cz_fr one = CZ_FR_ONE_V, t;
#define PUT(x) \
    do {       \
        if (i < n) k[i++] = (x); \
    } while (0)
    PUT(CZ_FR_ZERO_V);
    PUT(one);
    cz_fr_add(&t, &one, &one);
    PUT(t);
    cz_fr_neg(&t, &one);
    PUT(t);
    cz_fr_sub(&t, &t, &one);
    PUT(t);
    const unsigned bits[] = {1, 10, 11, 12, 13, 23, 24, 25, 63, 64, 127, 128, 251, 252, 253, 254};
    for (size_t b = 0; b < sizeof bits / sizeof bits[0]; b++) {
        uint64_t raw[4] = {0};
        raw[bits[b] / 64] = 1ull << (bits[b] % 64);
        if (!cz_fr_from_raw(&t, raw)) PUT(t);
        raw[bits[b] / 64] -= 1; /* (2^(b mod 64) - 1) 2^(64 floor(b / 64)) */
        if (bits[b] % 64 && !cz_fr_from_raw(&t, raw)) PUT(t);
    }
    /* every 12-bit window 0x800 (each digit -2^11 with a carry) and 0x7ff / 0xfff patterns */
    const uint64_t pats[] = {0x800800800800800ull, 0x7ff7ff7ff7ff7ffull, 0xfffffffffffffffull, 0x001001001001001ull};
    for (size_t p = 0; p < sizeof pats / sizeof pats[0]; p++) {
        uint64_t raw[4] = {pats[p], pats[p] >> 4 | pats[p] << 60, pats[p] >> 8 | pats[p] << 56, pats[p] >> 12 & 0x0fffffffffffffffull >> 4};
        if (!cz_fr_from_raw(&t, raw)) PUT(t);
    }
    for (uint64_t s = 3; s < 4100; s += 409) {
        cz_fr_set_u64(&t, s);
        PUT(t);
    }
#undef PUT
    for (; i < n; i++) cz_fr_random(&k[i], &rng);
}

static void one_size(const cz_g1_affine *tab1, const cz_g2_affine *tab2, size_t n, int g2) {
    cz_fr *k = malloc(n * sizeof *k);
    size_t es = g2 ? sizeof(cz_g2_affine) : sizeof(cz_g1_affine);
    unsigned char *want = malloc(n * es), *got = malloc(n * es);
    if (!k || !want || !got) {
        CHECK(0);
        free(k), free(want), free(got);
        return;
    }
    edge_scalars(k, n);
    /* shuffle so the edge cases land anywhere in a warp / chunk */
    for (size_t i = n; i > 1; i--) {
        size_t j = cz_rng_next(&rng) % i;
        cz_fr t = k[i - 1];
        k[i - 1] = k[j], k[j] = t;
    }
    int rc = g2 ? cz_g2_fb_mul_many_((cz_g2_affine *)want, tab2, k, n, 0)
                : cz_g1_fb_mul_many_((cz_g1_affine *)want, tab1, k, n, 0);
    CHECK(rc == 0);
    memset(got, 0xa5, n * es);
    rc = cz_gpu_fb_mul_many(g2, got, g2 ? (const void *)tab2 : (const void *)tab1, CZ_FB_C, CZ_FB_WINDOWS, k, n);
    CHECK_MSG(rc == 0, "G%d, %zu points: %s", g2 + 1, n, cz_error_message());
    size_t bad = 0, first = n;
    for (size_t i = 0; i < n; i++)
        if (memcmp(got + i * es, want + i * es, es)) {
            if (!bad) first = i;
            bad++;
        }
    CHECK_MSG(bad == 0, "G%d, %zu points: %zu differ from the CPU's (first at %zu)", g2 + 1, n, bad, first);
    free(k), free(want), free(got);
}

static int same_params(const cz_groth16_params *a, const cz_groth16_params *b) {
    return a->h_len == b->h_len && a->l_len == b->l_len && a->a_len == b->a_len && a->b_len == b->b_len &&
           !memcmp(a->h, b->h, a->h_len * sizeof *a->h) && !memcmp(a->l, b->l, a->l_len * sizeof *a->l) &&
           !memcmp(a->a, b->a, a->a_len * sizeof *a->a) && !memcmp(a->b_g1, b->b_g1, a->b_len * sizeof *a->b_g1) &&
           !memcmp(a->b_g2, b->b_g2, a->b_len * sizeof *a->b_g2) &&
           !memcmp(a->vk.ic, b->vk.ic, a->vk.ic_len * sizeof *a->vk.ic);
}

static int gpu_mul_many(void *ctx, int g2, void *out, const void *tab, unsigned c, unsigned windows, const cz_fr *k,
                        size_t n) {
    (*(int *)ctx)++;
    return cz_gpu_fb_mul_many(g2, out, tab, c, windows, k, n);
}

int main(void) {
    if (cz_gpu_device_count() <= 0) {
        printf("SKIP: no CUDA device\n");
        return 77;
    }
    cz_test_rng(&rng);
    const size_t cap = cz_test_gpu_max_n((size_t)1 << 22);
    cz_g1_affine *tab1 = cz_g1_fb_table_();
    cz_g2_affine *tab2 = cz_g2_fb_table_();
    CHECK(tab1 && tab2);
    if (!tab1 || !tab2) return cz_test_finish();

    const size_t sizes[] = {1, 2, 31, 33, 128, 1000, 4097, 1 << 16};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int g2 = 0; g2 < 2; g2++)
            if (sizes[s] <= cap) one_size(tab1, tab2, sizes[s], g2);
    printf("fixed-base products, 1 .. 2^16 points, G1 and G2: checked\n");
    if (cap >= ((size_t)1 << 21) + 77) { /* past one chunk */
        one_size(tab1, tab2, ((size_t)1 << 21) + 77, 0);
        printf("fixed-base products, 2^21 + 77 G1 points: checked\n");
    }

    /* the whole setup, GPU products against the CPU's */
    for (int round = 0; round < 3; round++) {
        circuit c;
        cz_groth16_toxic tox;
        cz_groth16_params pc, pg;
        /* A random circuit can leave a free variable in no constraint (its terms cancelled), which the setup
         * refuses as unconstrained: draw another (nc >= nfree makes that rare). */
        int rc = -1;
        for (int tries = 0; tries < 20 && rc; tries++) {
            size_t nfree = 200 + cz_rng_next(&rng) % 3000, nc = nfree + cz_rng_next(&rng) % 5000;
            if (build(&rng, &c, 1 + round, nfree, nc, cz_rng_next(&rng), 45, 45)) break;
            cz_groth16_toxic_from_seed(&tox, cz_rng_next(&rng));
            rc = cz_groth16_setup(&pc, &c.r, &tox, 0);
            if (rc) circuit_free(&c);
            CHECK_MSG(!rc || strstr(cz_error_message(), "unconstrained"), "CPU setup: %s", cz_error_message());
        }
        CHECK_MSG(rc == 0, "no random circuit the setup accepts in 20 tries");
        if (rc) continue;
        int calls = 0;
        cz_groth16_fb_ops ops = {gpu_mul_many, &calls, 0};
        rc = cz_groth16_setup_ex(&pg, &c.r, &tox, 0, &ops);
        CHECK_MSG(rc == 0, "setup with GPU products: %s", cz_error_message());
        CHECK_MSG(calls == 6 && ops.fail_count == 0, "GPU products: %d calls, %u failed", calls, ops.fail_count);
        CHECK_MSG(rc || same_params(&pc, &pg), "round %d: the setup with GPU products differs from the CPU's", round);
        cz_groth16_params_free(&pc);
        if (!rc) cz_groth16_params_free(&pg);
        circuit_free(&c);
    }
    printf("seeded setup with GPU products = CPU setup: checked\n");

    cz_fr k = CZ_FR_ONE_V;
    cz_g1_affine o;
    CHECK(cz_gpu_fb_mul_many(0, &o, tab1, 12, 21, &k, 1) == CZ_EINVAL);
    CHECK(cz_gpu_fb_mul_many(0, &o, tab1, 12, 22, &k, 0) == 0);
    free(tab1);
    free(tab2);
    return cz_test_finish();
}
