/* 0/1 batch addition template (sum of the bases selected by a bitmap), instantiated for G1 and G2 by
 * batch_add.c with the ec_impl.h macros.
 *
 * Affine additions sharing one inversion (Montgomery's trick) cost about 6 multiplications each
 * against 10 for an xyzz mixed addition. Each chunk of the bitmap keeps a buffer of up to
 * CZ_BADD_BUF selected points; a round adds the buffer's points in pairs with one inversion, halving
 * it, and refills it from the bitmap. */

#define CZ_BADD_BUF 1024
/* Once the input is used up, rounds on a small buffer cost more in the inversion than they save;
 * the last few points go into an xyzz accumulator instead. */
#define CZ_BADD_TAIL 128

typedef struct {
    EC_AFF pts[CZ_BADD_BUF];
    EC_F den[CZ_BADD_BUF / 2], pref[CZ_BADD_BUF / 2];
    unsigned char kind[CZ_BADD_BUF / 2];
} EC_P(badd_scratch_);

/* buf[0..k) -> pairwise sums (infinities dropped), in place; returns the new count. */
static size_t EC_P(badd_round_)(EC_P(badd_scratch_) *s, size_t k) {
    EC_AFF *buf = s->pts;
    size_t np = k / 2;
    EC_F acc = EC_ONE;
    for (size_t j = 0; j < np; j++) {
        const EC_AFF *a = &buf[2 * j], *b = &buf[2 * j + 1];
        if (!EC_FF(equal)(&a->x, &b->x)) {
            s->kind[j] = CZ_BADD_ADD;
            EC_FF(sub)(&s->den[j], &b->x, &a->x);
        } else if (EC_FF(equal)(&a->y, &b->y) && !EC_FF(is_zero)(&a->y)) {
            s->kind[j] = CZ_BADD_DBL;
            EC_FF(double)(&s->den[j], &a->y);
        } else { /* a = -b (or a 2-torsion point doubled) */
            s->kind[j] = CZ_BADD_INF;
            s->den[j] = EC_ONE;
        }
        s->pref[j] = acc;
        EC_FF(mul)(&acc, &acc, &s->den[j]);
    }
    /* pref[j] = den[0..j-1]; walk back turning den[j] into its inverse. */
    EC_FF(inv)(&acc, &acc);
    for (size_t j = np; j-- > 0;) {
        EC_F inv;
        EC_FF(mul)(&inv, &acc, &s->pref[j]);
        EC_FF(mul)(&acc, &acc, &s->den[j]);
        s->den[j] = inv;
    }
    size_t out = 0;
    for (size_t j = 0; j < np; j++) {
        if (s->kind[j] == CZ_BADD_INF) continue;
        EC_AFF a = buf[2 * j], b = buf[2 * j + 1];
        EC_F lambda, t;
        if (s->kind[j] == CZ_BADD_ADD) {
            EC_FF(sub)(&t, &b.y, &a.y);
        } else {
            EC_FF(sqr)(&t, &a.x);
            EC_FF(add)(&lambda, &t, &t);
            EC_FF(add)(&t, &t, &lambda);
        }
        EC_FF(mul)(&lambda, &t, &s->den[j]);
        EC_AFF *r = &buf[out++]; /* out <= j <= 2j: never a point still to be read */
        EC_FF(sqr)(&t, &lambda);
        EC_FF(sub)(&t, &t, &a.x);
        EC_FF(sub)(&r->x, &t, &b.x);
        EC_FF(sub)(&t, &a.x, &r->x);
        EC_FF(mul)(&t, &t, &lambda);
        EC_FF(sub)(&r->y, &t, &a.y);
    }
    if (k & 1) buf[out++] = buf[k - 1];
    return out;
}

/* Sum of the selected bases with index in [lo, hi). */
static void EC_P(badd_chunk_)(EC_XYZZ *r, EC_P(badd_scratch_) *s, const EC_AFF *bases, const uint64_t *bitmap,
                              size_t lo, size_t hi) {
    size_t k = 0, i = lo;
    for (;;) {
        while (k < CZ_BADD_BUF && i < hi) {
            uint64_t word = bitmap[i >> 6] >> (i & 63);
            if (word == 0) {
                i = ((i >> 6) + 1) << 6;
                continue;
            }
            i += (size_t)__builtin_ctzll(word);
            if (i >= hi) break;
            if (!EC_P(affine_is_infinity)(&bases[i])) s->pts[k++] = bases[i];
            i++;
        }
        if (i >= hi && k <= CZ_BADD_TAIL) break;
        k = EC_P(badd_round_)(s, k);
    }
    EC_P(xyzz_set_infinity)(r);
    for (size_t j = 0; j < k; j++) EC_P(xyzz_add_affine)(r, r, &s->pts[j]);
}

static void EC_P(batch_add_xyzz_)(EC_XYZZ *r, const EC_AFF *bases, const uint64_t *bitmap, size_t n, int nthreads) {
    EC_P(xyzz_set_infinity)(r);
    if (n == 0) return;
    int t = nthreads > 0 ? nthreads : omp_get_max_threads();
    /* Several chunks per thread for balance when the density varies along the bitmap; chunk
     * bounds on word boundaries so that no two chunks share a word. */
    size_t words = (n + 63) / 64, nchunks = (size_t)t * 4;
    if (nchunks > words / 64) nchunks = words / 64; /* at least 4096 bits per chunk */
    if (nchunks < 1) nchunks = 1;
    if (t > (int)nchunks) t = (int)nchunks;
    EC_XYZZ *part = cz_msm_alloc_(nchunks * sizeof *part);

#pragma omp parallel num_threads(t)
    {
        EC_P(badd_scratch_) *s = cz_msm_alloc_(sizeof *s);
#pragma omp for schedule(dynamic, 1)
        for (size_t p = 0; p < nchunks; p++) {
            size_t lo = words * p / nchunks * 64, hi = words * (p + 1) / nchunks * 64;
            if (hi > n) hi = n;
            EC_P(badd_chunk_)(&part[p], s, bases, bitmap, lo, hi);
        }
        free(s);
    }
    for (size_t p = 0; p < nchunks; p++) EC_P(xyzz_add)(r, r, &part[p]);
    free(part);
}

void EC_P(batch_add)(EC_JAC *r, const EC_AFF *bases, const uint64_t *bitmap, size_t n, int nthreads) {
    EC_XYZZ acc;
    EC_P(batch_add_xyzz_)(&acc, bases, bitmap, n, nthreads);
    EC_P(jac_from_xyzz)(r, &acc);
}

#undef CZ_BADD_BUF
#undef CZ_BADD_TAIL
