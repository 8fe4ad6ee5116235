/* Host helpers of the GPU prover's compact-witness entry (src/gpu/wcompact_gather.h; no GPU needed), against
 * naive computations on the dense vector (classification by value: cz_fr_is_zero / equal to ONE), on fresh
 * random vectors: all bits, no bits, bit-heavy and half-and-half mixes, lengths around multiples of 64 and
 * 4096 (one gather block) and random ones, built by push and by append (bitmaps shifted across words):
 *  - cz_wcompact_dense_in_words over random word ranges = number of non-bits among those values;
 *  - cz_wcompact_check_for accepts the vector for its length only, and rejects a wrong n_dense (also over
 *    more than one of its threads' blocks);
 *  - cz_wcompact_upload_bytes = 32 ni + 16 per 64 values + 32 per non-bit;
 *  - cz_wcompact_gather_density walked per block of 64 words with prefix ranks (as B_G2's gather does it)
 *    = the dense values at the set density bits, in order, with junk density bits past n ignored. */
#include <stdlib.h>
#include <string.h>

#include "gpu/wcompact_gather.h"
#include "testutil.h"

static cz_rng rng;

static int is_bitval(const cz_fr *x) { return cz_fr_is_zero(x) || cz_fr_equal(x, &CZ_FR_ONE_V); }

/* pb: per mille of values that are 0 or 1 (half each) */
static void fill(cz_fr *v, uint64_t n, unsigned pb) {
    for (uint64_t i = 0; i < n; i++) {
        unsigned u = (unsigned)(cz_rng_next(&rng) % 1000);
        if (u < pb) v[i] = (u & 1) ? CZ_FR_ONE_V : CZ_FR_ZERO_V;
        else cz_fr_random(&v[i], &rng);
    }
}

static void check_one(uint64_t n, unsigned pb, int by_append) {
    cz_fr *v = malloc((n + 1) * sizeof *v), *got = malloc((n + 1) * sizeof *got), *want = malloc((n + 1) * sizeof *want);
    fill(v, n, pb);
    cz_wcompact w;
    cz_wcompact_init(&w);
    int rc;
    if (by_append) { /* two parts, the first of an odd length, so the second's bits land shifted */
        uint64_t cut = n ? cz_rng_next(&rng) % (n + 1) : 0;
        cz_wcompact a, b;
        cz_wcompact_init(&a);
        cz_wcompact_init(&b);
        rc = cz_wcompact_from_dense(&a, v, cut);
        if (!rc) rc = cz_wcompact_from_dense(&b, v + cut, n - cut);
        if (!rc) rc = cz_wcompact_append(&w, &a);
        if (!rc) rc = cz_wcompact_append(&w, &b);
        cz_wcompact_free(&a);
        cz_wcompact_free(&b);
    } else {
        rc = cz_wcompact_from_dense(&w, v, n);
    }
    CHECK_MSG(rc == 0, "build n %llu: %s", (unsigned long long)n, cz_error_message());
    const uint64_t nw = (n + 63) / 64;
    uint64_t other = 0;
    for (uint64_t i = 0; i < n; i++) other += !is_bitval(&v[i]);

    /* check_for and upload bytes */
    CHECK_MSG(cz_wcompact_check_for(&w, n) == 0, "n %llu mix %u: check_for rejects a good vector", (unsigned long long)n, pb);
    CHECK(cz_wcompact_check_for(&w, n + 1) == CZ_EFORMAT);
    w.n_dense++;
    CHECK_MSG(cz_wcompact_check_for(&w, n) == CZ_EFORMAT, "n %llu: a wrong n_dense passes", (unsigned long long)n);
    w.n_dense--;
    const uint64_t ni = 1 + cz_rng_next(&rng) % 400;
    CHECK_MSG(cz_wcompact_upload_bytes(ni, &w) == 32 * ni + 16 * nw + 32 * other, "n %llu: upload bytes",
              (unsigned long long)n);

    /* dense_in_words over random ranges (and the whole vector) */
    for (int t = 0; t < 8; t++) {
        uint64_t w0 = nw ? cz_rng_next(&rng) % (nw + 1) : 0, w1 = nw ? cz_rng_next(&rng) % (nw + 3) : 0;
        if (t == 0) w0 = 0, w1 = nw;
        if (w1 < w0) w1 = w0;
        uint64_t c = 0;
        for (uint64_t i = 64 * w0; i < 64 * w1 && i < n; i++) c += !is_bitval(&v[i]);
        CHECK_MSG(cz_wcompact_dense_in_words(&w, w0, w1) == c, "n %llu mix %u: dense in words %llu..%llu",
                  (unsigned long long)n, pb, (unsigned long long)w0, (unsigned long long)w1);
    }

    /* gather by density, per block of 64 words with prefix ranks */
    uint64_t *dens = malloc((nw + 1) * 8);
    unsigned dp = (unsigned)(cz_rng_next(&rng) % 4); /* 0: none, 3: all, else random */
    for (uint64_t k = 0; k <= nw; k++)
        dens[k] = dp == 0 ? 0 : dp == 3 ? ~(uint64_t)0 : cz_rng_next(&rng);
    size_t nwant = 0;
    for (uint64_t i = 0; i < n; i++)
        if (dens[i >> 6] >> (i & 63) & 1) want[nwant++] = v[i];
    size_t o = 0;
    uint64_t rank = 0;
    for (uint64_t b = 0; b * 64 < nw; b++) {
        o += cz_wcompact_gather_density(got + o, &w, dens, b * 64, b * 64 + 64, rank);
        rank += cz_wcompact_dense_in_words(&w, b * 64, b * 64 + 64);
    }
    CHECK_MSG(o == nwant && memcmp(got, want, nwant * sizeof *got) == 0,
              "n %llu mix %u density %u append %d: gather gives %zu values, want %zu (or they differ)",
              (unsigned long long)n, pb, dp, by_append, o, nwant);
    CHECK(rank == other);
    free(dens);
    cz_wcompact_free(&w);
    free(v);
    free(got);
    free(want);
}

/* check_for over more than one block of its threads (2^16 words): a bitmap of ~8.4 M values built directly
 * (check_for reads is_bit and n_dense, not the values), its last word's bits past n set to show they are
 * not counted */
static void check_big(void) {
    const uint64_t n = 64 * (((uint64_t)2 << 16) + 5) - 13, nw = (n + 63) / 64;
    cz_wcompact w;
    cz_wcompact_init(&w);
    w.is_bit = malloc(nw * 8);
    static cz_fr dummy;
    uint64_t d = 0;
    for (uint64_t k = 0; k < nw; k++) {
        w.is_bit[k] = cz_rng_next(&rng) & cz_rng_next(&rng); /* ~3/4 of the values dense */
        uint64_t x = ~w.is_bit[k];
        if (k == nw - 1) x &= ((uint64_t)1 << (n & 63)) - 1;
        d += (uint64_t)__builtin_popcountll(x);
    }
    w.n = n, w.n_dense = d, w.dense = &dummy;
    CHECK(cz_wcompact_check_for(&w, n) == 0);
    w.n_dense = d + 1;
    CHECK(cz_wcompact_check_for(&w, n) == CZ_EFORMAT);
    w.n_dense = d - 1;
    CHECK(cz_wcompact_check_for(&w, n) == CZ_EFORMAT);
    free(w.is_bit);
}

int main(void) {
    cz_test_rng(&rng);
    check_big();
    static const uint64_t ns[] = {0, 1, 2, 63, 64, 65, 127, 128, 129, 4095, 4096, 4097, 8191, 8257};
    static const unsigned mixes[] = {1000, 0, 970, 500};
    for (size_t a = 0; a < 2; a++)
        for (size_t m = 0; m < sizeof mixes / sizeof mixes[0]; m++) {
            for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) check_one(ns[k], mixes[m], (int)a);
            for (int r = 0; r < 4; r++) check_one(1 + cz_rng_next(&rng) % 20000, mixes[m], (int)a);
        }
    return cz_test_finish();
}
