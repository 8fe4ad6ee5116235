/* The device scratch's chunk choice (src/gpu/fit_chunk.h cz_fit_chunk_pick; msm_impl.cuh fit_chunk calls it with
 * cudaMemGetInfo's free memory; CZ_GPU_FIT_HELD=0 gives the margin alone). No GPU needed.
 *  - session 70's case: a scratch sized in a partition with room (4 GiB free) keeps its chunk in the partitions
 *    after it, when free memory has dropped below the 2 GiB margin but its own buffers still hold that chunk (the
 *    margin-only rule, written out here, shrank it below the 2^20 points where the affine rounds start);
 *  - nothing held: the chunk leaves the margin free, the largest that does;
 *  - neither rule met even at lo: 0; a need past what is held that would eat into the margin is never chosen;
 *  - on random linear needs, held bytes, free memory and margins: the result is the largest power of two in
 *    [lo, start] that fits either rule (every larger one fits neither), and what it allocates beyond what is held
 *    leaves the margin free. */
#include <stdint.h>
#include <stdio.h>

#include "gpu/fit_chunk.h"
#include "testutil.h"

typedef struct {
    size_t per, fixed; /* need(c) = per * c + fixed */
} lin;

static size_t need_lin(size_t c, const void *ctx) {
    const lin *l = ctx;
    return l->per * c + l->fixed;
}

/* the margin alone (fit_chunk under CZ_GPU_FIT_HELD=0; its default before session 71) */
static size_t margin_only(size_t start, size_t lo, size_t held, size_t fr, size_t margin, const lin *l) {
    if (need_lin(start, l) <= held) return start;
    for (size_t ch = start; ch >= lo; ch /= 2)
        if (need_lin(ch, l) + margin <= fr + held) return ch;
    return 0;
}

int main(void) {
    cz_rng rng;
    cz_test_rng(&rng);
    const size_t gib = (size_t)1 << 30, mib = (size_t)1 << 20, margin = 2 * gib;
    /* a G2 batch addition's rounds: ~288 B of scratch a chunk point (affine buffers and running products) */
    const lin g2 = {288, 64 * mib};
    const size_t start = (size_t)1 << 25, lo = (size_t)1 << 16;

    /* the first partition: 4 GiB free, nothing held */
    size_t c1 = cz_fit_chunk_pick(start, lo, 0, 4 * gib, margin, need_lin, &g2);
    CHECK(c1 == (size_t)1 << 22); /* 288 * 2^22 + 64 MiB = 1.19 GiB, + 2 GiB <= 4; 2^23 needs 2.31 + 2 */
    CHECK(need_lin(c1, &g2) + margin <= 4 * gib && need_lin(2 * c1, &g2) + margin > 4 * gib);
    /* held with the growth's eighth ahead; then the tail MSMs' scratch takes the rest: 0.5 GiB free */
    const size_t held = need_lin(c1, &g2) + need_lin(c1, &g2) / 8;
    CHECK(cz_fit_chunk_pick(start, lo, held, gib / 2, margin, need_lin, &g2) == c1);
    CHECK(cz_fit_chunk_pick(start, lo, held, 0, margin, need_lin, &g2) == c1); /* even with none free */
    const size_t old = margin_only(start, lo, held, gib / 2, margin, &g2);
    CHECK_MSG(old < ((size_t)1 << 20), "the margin-only rule: %zu", old); /* what the H100 showed (0: 2^16 chunks) */

    /* nothing held: the margin left free, the largest chunk that does */
    CHECK(cz_fit_chunk_pick(start, lo, 0, 4 * gib, margin, need_lin, &g2) == (size_t)1 << 22);
    CHECK(cz_fit_chunk_pick(start, lo, 0, 100 * gib, margin, need_lin, &g2) == start);
    /* neither rule even at lo: 0 (the caller's fallback) */
    CHECK(cz_fit_chunk_pick(start, lo, 0, margin + 64 * mib, margin, need_lin, &g2) == 0);
    CHECK(cz_fit_chunk_pick(start, lo, 32 * mib, margin, margin, need_lin, &g2) == 0);
    /* held a little short of a chunk, and free memory that the growth would take below the margin: a smaller one */
    const size_t h2 = need_lin((size_t)1 << 20, &g2) - 1;
    CHECK(cz_fit_chunk_pick(start, lo, h2, 0, margin, need_lin, &g2) == (size_t)1 << 19);

    /* random cases against the rule written out per candidate */
    for (int it = 0; it < 200000; it++) {
        lin l = {1 + cz_rng_next(&rng) % 2048, cz_rng_next(&rng) % (256 * mib)};
        const unsigned ls = 10 + (unsigned)(cz_rng_next(&rng) % 21), ll = (unsigned)(cz_rng_next(&rng) % (ls + 1));
        const size_t st = (size_t)1 << ls, lw = (size_t)1 << ll;
        const size_t h = cz_rng_next(&rng) % 4 == 0 ? 0 : cz_rng_next(&rng) % (64 * gib);
        const size_t fr = cz_rng_next(&rng) % (80 * gib), m = cz_rng_next(&rng) % (4 * gib);
        const size_t r = cz_fit_chunk_pick(st, lw, h, fr, m, need_lin, &l);
        size_t want = 0;
        for (size_t ch = st; ch >= lw && !want; ch /= 2) {
            const size_t b = need_lin(ch, &l);
            if (b <= h || b + m <= fr + h) want = ch;
        }
        if (r != want) {
            CHECK_MSG(r == want, "start 2^%u lo 2^%u held %zu free %zu margin %zu need %zu c + %zu: %zu, want %zu", ls,
                      ll, h, fr, m, l.per, l.fixed, r, want);
            break;
        }
        if (r && need_lin(r, &l) > h && need_lin(r, &l) - h + m > fr) {
            CHECK_MSG(0, "chunk %zu takes %zu new bytes of %zu free with a margin of %zu", r, need_lin(r, &l) - h, fr,
                      m);
            break;
        }
        if (r) CHECK(r >= lw && r <= st && (r & (r - 1)) == 0);
    }
    return cz_test_finish();
}
