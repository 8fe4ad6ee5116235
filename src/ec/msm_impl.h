/* Pippenger MSM template, instantiated for G1 and G2 by msm.c with the ec_impl.h macros
 * (EC_F, EC_FF, EC_P, EC_AFF, EC_XYZZ, EC_JAC) and the shared helpers of msm.c
 * (cz_msm_plan_, cz_msm_digit_).
 *
 * Work is split into tasks (window w, point chunk p); each task fills its own 2^(c-1) buckets and
 * reduces them with a running sum, so tasks share nothing and a thread only needs one bucket array.
 * Task results are combined serially in a fixed order.
 *
 * Two ways to fill the buckets, chosen by the plan:
 *  - xyzz buckets, one mixed addition (~10 products) per point: best for small inputs;
 *  - affine buckets filled in batches (plan.batch > 0): the additions of a batch share one inversion
 *    (Montgomery's trick), ~6 products per point. A batch may touch a bucket only once (its new value
 *    is not known until the batch is done), so a point whose bucket is already in the batch waits in
 *    a queue for the next one; when the queue is full and the batch is still small (many points in
 *    few buckets), the point goes into a per-bucket xyzz overflow instead, so inversions stay rare
 *    whatever the scalars. */

/* Out-of-line copies of the group law: each inline formula is expanded once per group rather than
 * at every call site, which keeps the compile time of this file down (a call costs nothing next
 * to ten field multiplications). */
static __attribute__((noinline)) void EC_P(msm_add_)(EC_XYZZ *r, const EC_XYZZ *p, const EC_XYZZ *q) {
    EC_P(xyzz_add)(r, p, q);
}
static __attribute__((noinline)) void EC_P(msm_madd_)(EC_XYZZ *r, const EC_AFF *q) {
    EC_P(xyzz_add_affine)(r, r, q);
}
static __attribute__((noinline)) void EC_P(msm_double_)(EC_XYZZ *r) { EC_P(xyzz_double)(r, r); }

/* The points of one Pippenger run: a[0..na) then b[0..), scalars ka / kb alike (the endomorphism path
 * puts the original bases in a and their images in b, so the originals need no copy). */
typedef struct {
    const EC_AFF *a, *b;
    const uint64_t (*ka)[4], (*kb)[4];
    size_t na;
} EC_P(msm_src_);

static inline const EC_AFF *EC_P(msm_base_)(const EC_P(msm_src_) *s, size_t i) {
    return i < s->na ? &s->a[i] : &s->b[i - s->na];
}
static inline const uint64_t *EC_P(msm_k_)(const EC_P(msm_src_) *s, size_t i) {
    return i < s->na ? s->ka[i] : s->kb[i - s->na];
}

/* sum_{b} (b+1) * buckets[b] by the running-sum trick (2 additions per bucket). */
static void EC_P(msm_reduce_)(EC_XYZZ *r, const EC_XYZZ *buckets, size_t nb) {
    EC_XYZZ run, sum;
    EC_P(xyzz_set_infinity)(&run);
    EC_P(xyzz_set_infinity)(&sum);
    for (size_t b = nb; b-- > 0;) {
        if (!EC_P(xyzz_is_infinity)(&buckets[b])) EC_P(msm_add_)(&run, &run, &buckets[b]);
        EC_P(msm_add_)(&sum, &sum, &run);
    }
    *r = sum;
}

/* One task: the window-w partial sum over points [lo, hi). */
static void EC_P(msm_task_)(EC_XYZZ *r, EC_XYZZ *buckets, size_t nb, const EC_P(msm_src_) *src, size_t lo,
                            size_t hi, unsigned w, unsigned c) {
    memset(buckets, 0, nb * sizeof *buckets);
    int d = lo < hi ? cz_msm_digit_(EC_P(msm_k_)(src, lo), w, c) : 0;
    for (size_t i = lo; i < hi; i++) {
        /* Look one point ahead so the next bucket's cache line is on its way during this addition. */
        int dn = i + 1 < hi ? cz_msm_digit_(EC_P(msm_k_)(src, i + 1), w, c) : 0;
        if (dn != 0) __builtin_prefetch(&buckets[(dn > 0 ? dn : -dn) - 1], 1);
        if (d > 0) {
            EC_P(msm_madd_)(&buckets[d - 1], EC_P(msm_base_)(src, i));
        } else if (d < 0) {
            EC_AFF neg;
            EC_P(affine_neg)(&neg, EC_P(msm_base_)(src, i));
            EC_P(msm_madd_)(&buckets[-d - 1], &neg);
        }
        d = dn;
    }
    EC_P(msm_reduce_)(r, buckets, nb);
}

/* ---- batch-affine buckets ---- */

/* Bucket arrays of at least 2^CZ_MSM_TREE_MIN_LOG reduce through group sums (msm_ba_reduce_). */
#ifndef CZ_MSM_TREE_MIN_LOG
#define CZ_MSM_TREE_MIN_LOG 4
#endif
#ifndef CZ_MSM_AHEAD
#define CZ_MSM_AHEAD 8
#endif

/* Per-thread state of the batch-affine path; all arrays sized once per MSM. A batch entry is the base
 * (with a flag to negate it) and its bucket; its denominator and the running product of the
 * denominators are computed when it joins the batch, while the bucket is in cache. */
typedef struct {
    EC_AFF *bkt;            /* nb affine buckets; (0,0) = empty */
    unsigned char *busy;    /* bucket has an addition in the current batch */
    EC_XYZZ *ovf;           /* nb overflow buckets, allocated on first use (NULL until then) */
    bool ovf_dirty;         /* ovf holds points of the current task */
    size_t nb, cap;         /* buckets; batch and queue capacity */
    size_t nbat, nq;        /* points in the batch / in the queue */
    const EC_AFF **pt, **qpt; /* batch and queue bases */
    uint32_t *bi, *qbi;     /* their buckets */
    unsigned char *kind, *qneg; /* CZ_MSM_BA_ADD / _DBL / _INF, | CZ_MSM_BA_NEG for a negated base */
    EC_F *den;              /* denominators */
    cz_fp *key, *pref;      /* what is inverted: the denominator, or its norm (MSM_NORM_INV); prefix products */
    cz_fp acc;              /* product of the batch's keys */
    EC_AFF *tr;             /* bucket reduction: nb transposed buckets */
    EC_F *tden;             /* and nb/2 denominators, then their inverses */
    cz_fp *tkey, *tpref;    /* nb/2 keys and prefix products */
    unsigned char *tkind;   /* nb/2 kinds */
    int err;                /* an allocation failed */
} EC_P(msm_ba_);

static void EC_P(msm_ba_free_)(EC_P(msm_ba_) *s) {
    free(s->bkt);
    free(s->busy);
    free(s->ovf);
    free(s->pt);
    free(s->qpt);
    free(s->bi);
    free(s->qbi);
    free(s->kind);
    free(s->qneg);
    free(s->den);
    free(s->key);
    free(s->pref);
    free(s->tr);
    free(s->tden);
    free(s->tkey);
    free(s->tpref);
    free(s->tkind);
}

static int EC_P(msm_ba_init_)(EC_P(msm_ba_) *s, size_t nb, size_t cap) {
    memset(s, 0, sizeof *s);
    s->nb = nb;
    s->cap = cap;
    s->acc = CZ_FP_ONE_V;
    s->bkt = malloc(nb * sizeof *s->bkt);
    s->busy = calloc(nb, 1);
    s->pt = malloc(cap * sizeof *s->pt);
    s->qpt = malloc(cap * sizeof *s->qpt);
    s->bi = malloc(cap * sizeof *s->bi);
    s->qbi = malloc(cap * sizeof *s->qbi);
    s->kind = malloc(cap);
    s->qneg = malloc(cap);
    s->den = malloc(cap * sizeof *s->den);
    s->key = malloc(cap * sizeof *s->key);
    s->pref = malloc(cap * sizeof *s->pref);
    if (nb >= ((size_t)1 << CZ_MSM_TREE_MIN_LOG)) {
        s->tr = malloc(nb * sizeof *s->tr);
        s->tden = malloc(nb / 2 * sizeof *s->tden);
        s->tkey = malloc(nb / 2 * sizeof *s->tkey);
        s->tpref = malloc(nb / 2 * sizeof *s->tpref);
        s->tkind = malloc(nb / 2);
        if (!s->tr || !s->tden || !s->tkey || !s->tpref || !s->tkind) {
            EC_P(msm_ba_free_)(s);
            return -1;
        }
    }
    if (!s->bkt || !s->busy || !s->pt || !s->qpt || !s->bi || !s->qbi || !s->kind || !s->qneg || !s->den ||
        !s->key || !s->pref) {
        EC_P(msm_ba_free_)(s);
        return -1;
    }
    return 0;
}

/* Bucket b += (neg ? -p : p) in xyzz, outside the batches (see the header comment). */
static void EC_P(msm_ba_spill_)(EC_P(msm_ba_) *s, const EC_AFF *p, bool neg, uint32_t b) {
    if (!s->ovf) {
        s->ovf = malloc(s->nb * sizeof *s->ovf);
        if (!s->ovf) {
            s->err = 1;
            return;
        }
    }
    if (!s->ovf_dirty) {
        s->ovf_dirty = true;
        memset(s->ovf, 0, s->nb * sizeof *s->ovf);
    }
    EC_AFF q = *p;
    if (neg) EC_FF(neg)(&q.y, &q.y);
    EC_P(msm_madd_)(&s->ovf[b], &q);
}

/* Puts +-p into bucket b now (empty bucket) or into the batch; false when b is busy or the batch full. */
static inline bool EC_P(msm_ba_try_)(EC_P(msm_ba_) *s, const EC_AFF *p, bool neg, uint32_t b) {
    if (s->busy[b]) return false;
    EC_AFF *B = &s->bkt[b];
    if (EC_P(affine_is_infinity)(B)) {
        B->x = p->x;
        if (neg) EC_FF(neg)(&B->y, &p->y);
        else B->y = p->y;
        return true;
    }
    if (s->nbat == s->cap) return false;
    size_t j = s->nbat++;
    s->busy[b] = 1;
    s->pt[j] = p;
    s->bi[j] = b;
    unsigned char k;
    if (!EC_FF(equal)(&p->x, &B->x)) {
        k = CZ_MSM_BA_ADD;
        EC_FF(sub)(&s->den[j], &p->x, &B->x);
    } else {
        EC_F y = p->y;
        if (neg) EC_FF(neg)(&y, &y);
        if (EC_FF(equal)(&y, &B->y) && !EC_FF(is_zero)(&y)) {
            k = CZ_MSM_BA_DBL;
            EC_FF(double)(&s->den[j], &y);
        } else { /* p = -B (or B of order 2 doubled): the bucket empties */
            k = CZ_MSM_BA_INF;
            s->den[j] = EC_ONE;
        }
    }
    s->kind[j] = k | (neg ? CZ_MSM_BA_NEG : 0);
    s->pref[j] = s->acc;
#ifdef MSM_NORM_INV
    MSM_NORM_INV(&s->key[j], &s->den[j]);
    cz_fp_mul(&s->acc, &s->acc, &s->key[j]);
#else
    cz_fp_mul(&s->acc, &s->acc, &s->den[j]);
#endif
    return true;
}

/* Performs the batch: bkt[bi[j]] += +-pt[j] for all j with one inversion. */
static void EC_P(msm_ba_run_)(EC_P(msm_ba_) *s) {
    size_t m = s->nbat;
    if (m == 0) return;
    cz_fp acc;
    cz_fp_inv(&acc, &s->acc); /* every denominator (so every norm) is nonzero */
    /* Backwards: 1/key[j] = acc * pref[j] with acc = 1/(key[0]..key[j]), then the affine update. */
    for (size_t j = m; j-- > 0;) {
        EC_F inv, lambda, t;
#ifdef MSM_NORM_INV
        cz_fp ik;
        cz_fp_mul(&ik, &acc, &s->pref[j]);
        cz_fp_mul(&acc, &acc, &s->key[j]);
        MSM_NORM_DIV(&inv, &s->den[j], &ik); /* 1/d = conj(d) / N(d) */
#else
        cz_fp_mul(&inv, &acc, &s->pref[j]);
        cz_fp_mul(&acc, &acc, &s->den[j]);
#endif
        uint32_t b = s->bi[j];
        EC_AFF *B = &s->bkt[b];
        const EC_AFF *P = s->pt[j];
        unsigned k = s->kind[j];
        s->busy[b] = 0;
        if ((k & ~CZ_MSM_BA_NEG) == CZ_MSM_BA_INF) {
            memset(B, 0, sizeof *B);
            continue;
        }
        if ((k & ~CZ_MSM_BA_NEG) == CZ_MSM_BA_ADD) {
            if (k & CZ_MSM_BA_NEG) { /* -P.y - B.y */
                EC_FF(add)(&t, &P->y, &B->y);
                EC_FF(neg)(&t, &t);
            } else {
                EC_FF(sub)(&t, &P->y, &B->y);
            }
        } else {
            EC_FF(sqr)(&t, &B->x);
            EC_FF(add)(&lambda, &t, &t);
            EC_FF(add)(&t, &t, &lambda);
        }
        EC_FF(mul)(&lambda, &t, &inv);
        EC_F x3;
        EC_FF(sqr)(&x3, &lambda);
        EC_FF(sub)(&x3, &x3, &B->x);
        EC_FF(sub)(&x3, &x3, &P->x);
        EC_FF(sub)(&t, &B->x, &x3);
        EC_FF(mul)(&t, &t, &lambda);
        EC_FF(sub)(&B->y, &t, &B->y);
        B->x = x3;
    }
    s->nbat = 0;
    s->acc = CZ_FP_ONE_V;
}

/* Runs the batch, then moves what the queue can into the next one. */
static void EC_P(msm_ba_flush_)(EC_P(msm_ba_) *s) {
    EC_P(msm_ba_run_)(s);
    size_t keep = 0;
    for (size_t j = 0; j < s->nq; j++)
        if (!EC_P(msm_ba_try_)(s, s->qpt[j], s->qneg[j], s->qbi[j])) {
            s->qpt[keep] = s->qpt[j];
            s->qneg[keep] = s->qneg[j];
            s->qbi[keep++] = s->qbi[j];
        }
    s->nq = keep;
}

/* In place: t[g] = sum of t[g gs .. g gs + gs) for g < ng (gs a power of two; infinities allowed),
 * by rounds of pairwise affine additions sharing one inversion per round. */
static void EC_P(msm_group_sums_)(EC_P(msm_ba_) *s, EC_AFF *t, size_t ng, size_t gs) {
    enum { COPY_B = 8 }; /* a is the infinity: the sum is b (and b infinite gives a, either way a copy) */
    for (; gs > 1; gs /= 2) {
        size_t half = gs / 2, np = ng * half;
        cz_fp acc = CZ_FP_ONE_V;
        for (size_t k = 0; k < np; k++) {
            const EC_AFF *a = &t[2 * k], *b = a + 1; /* group k / half, pair k % half: 2k as gs = 2 half */
            unsigned char kd;
            EC_F *den = &s->tden[k];
            if (EC_P(affine_is_infinity)(a) || EC_P(affine_is_infinity)(b)) {
                kd = EC_P(affine_is_infinity)(a) ? COPY_B : CZ_MSM_BA_INF | COPY_B;
                *den = EC_ONE;
            } else if (!EC_FF(equal)(&a->x, &b->x)) {
                kd = CZ_MSM_BA_ADD;
                EC_FF(sub)(den, &b->x, &a->x);
            } else if (EC_FF(equal)(&a->y, &b->y) && !EC_FF(is_zero)(&a->y)) {
                kd = CZ_MSM_BA_DBL;
                EC_FF(double)(den, &a->y);
            } else {
                kd = CZ_MSM_BA_INF;
                *den = EC_ONE;
            }
            s->tkind[k] = kd;
            s->tpref[k] = acc;
#ifdef MSM_NORM_INV
            MSM_NORM_INV(&s->tkey[k], den);
            cz_fp_mul(&acc, &acc, &s->tkey[k]);
#else
            cz_fp_mul(&acc, &acc, den);
#endif
        }
        cz_fp_inv(&acc, &acc);
        for (size_t k = np; k-- > 0;) { /* tden[k] becomes its inverse */
#ifdef MSM_NORM_INV
            cz_fp ik;
            cz_fp_mul(&ik, &acc, &s->tpref[k]);
            cz_fp_mul(&acc, &acc, &s->tkey[k]);
            MSM_NORM_DIV(&s->tden[k], &s->tden[k], &ik);
#else
            cz_fp inv;
            cz_fp_mul(&inv, &acc, &s->tpref[k]);
            cz_fp_mul(&acc, &acc, &s->tden[k]);
            s->tden[k] = inv;
#endif
        }
        /* Forwards: the output k never overwrites an input 2k, 2k + 1 still to be read. */
        for (size_t k = 0; k < np; k++) {
            EC_AFF a = t[2 * k], b = t[2 * k + 1];
            unsigned kd = s->tkind[k];
            if (kd & COPY_B) {
                t[k] = (kd & CZ_MSM_BA_INF) ? a : b;
                continue;
            }
            if (kd == CZ_MSM_BA_INF) {
                memset(&t[k], 0, sizeof t[k]);
                continue;
            }
            EC_F lambda, u;
            if (kd == CZ_MSM_BA_ADD) {
                EC_FF(sub)(&u, &b.y, &a.y);
            } else {
                EC_FF(sqr)(&u, &a.x);
                EC_FF(add)(&lambda, &u, &u);
                EC_FF(add)(&u, &u, &lambda);
            }
            EC_FF(mul)(&lambda, &u, &s->tden[k]);
            EC_FF(sqr)(&u, &lambda);
            EC_FF(sub)(&u, &u, &a.x);
            EC_FF(sub)(&t[k].x, &u, &b.x);
            EC_FF(sub)(&u, &a.x, &t[k].x);
            EC_FF(mul)(&u, &u, &lambda);
            EC_FF(sub)(&t[k].y, &u, &a.y);
        }
    }
}

/* sum_b (b+1) bkt[b] for nb = 2^lg affine buckets. With b = hi m + lo (m = 2^h) the weight is
 * (lo + 1) + m hi, so the sum is sum_lo (lo+1) SL[lo] + m sum_hi hi SH[hi] with SL[lo] = sum_hi
 * bkt[hi m + lo] and SH[hi] = sum_lo bkt[hi m + lo]: two group sums of nb points (affine, batched:
 * ~6 products an addition) and running sums over m and nb/m entries, instead of a running sum over
 * nb (two xyzz additions, ~24 products, per bucket). Destroys bkt. */
static void EC_P(msm_ba_reduce_)(EC_XYZZ *r, EC_P(msm_ba_) *s, unsigned lg) {
    unsigned h = lg / 2;
    size_t m = (size_t)1 << h, M = s->nb >> h;
    for (size_t hi = 0; hi < M; hi++)
        for (size_t lo = 0; lo < m; lo++) s->tr[lo * M + hi] = s->bkt[hi * m + lo];
    EC_P(msm_group_sums_)(s, s->tr, m, M);  /* tr[lo] = SL[lo] */
    EC_P(msm_group_sums_)(s, s->bkt, M, m); /* bkt[hi] = SH[hi] */
    EC_XYZZ run, sum, run2, sum2;
    EC_P(xyzz_set_infinity)(&run);
    EC_P(xyzz_set_infinity)(&sum);
    for (size_t lo = m; lo-- > 0;) {
        EC_P(msm_madd_)(&run, &s->tr[lo]);
        EC_P(msm_add_)(&sum, &sum, &run);
    }
    EC_P(xyzz_set_infinity)(&run2);
    EC_P(xyzz_set_infinity)(&sum2);
    for (size_t hi = M; hi-- > 1;) {
        EC_P(msm_madd_)(&run2, &s->bkt[hi]);
        EC_P(msm_add_)(&sum2, &sum2, &run2);
    }
    for (unsigned i = 0; i < h; i++) EC_P(msm_double_)(&sum2);
    EC_P(msm_add_)(r, &sum, &sum2);
}

static void EC_P(msm_ba_task_)(EC_XYZZ *r, EC_P(msm_ba_) *s, const EC_P(msm_src_) *src, size_t lo, size_t hi,
                               unsigned w, unsigned c) {
    memset(s->bkt, 0, s->nb * sizeof *s->bkt);
    s->ovf_dirty = false;
    int d = lo < hi ? cz_msm_digit_(EC_P(msm_k_)(src, lo), w, c) : 0;
    for (size_t i = lo; i < hi; i++) {
        int dn = i + 1 < hi ? cz_msm_digit_(EC_P(msm_k_)(src, i + 1), w, c) : 0;
        /* A bucket array of 2^(c-1) points misses the L1 (and often the L2): fetch the bucket of a
         * point a few places ahead, far enough for the load to arrive before that point's turn. */
        if (i + CZ_MSM_AHEAD < hi) {
            int da = cz_msm_digit_(EC_P(msm_k_)(src, i + CZ_MSM_AHEAD), w, c);
            if (da != 0) __builtin_prefetch(&s->bkt[(da > 0 ? da : -da) - 1], 1);
        }
        const EC_AFF *p = EC_P(msm_base_)(src, i);
        if (d != 0 && !EC_P(affine_is_infinity)(p)) {
            bool neg = d < 0;
            uint32_t b = (uint32_t)(neg ? -d : d) - 1;
            if (!EC_P(msm_ba_try_)(s, p, neg, b)) {
                if (s->nq == s->cap) {
                    /* An inversion for a batch this small would cost more than xyzz additions. */
                    if (s->nbat < s->cap / 2)
                        EC_P(msm_ba_spill_)(s, p, neg, b);
                    else
                        EC_P(msm_ba_flush_)(s);
                }
                if (s->nq < s->cap && !EC_P(msm_ba_try_)(s, p, neg, b)) {
                    s->qpt[s->nq] = p;
                    s->qneg[s->nq] = neg;
                    s->qbi[s->nq++] = b;
                }
            }
            if (s->nbat == s->cap) EC_P(msm_ba_flush_)(s);
        }
        d = dn;
    }
    EC_P(msm_ba_flush_)(s);
    EC_P(msm_ba_run_)(s);
    for (size_t j = 0; j < s->nq; j++) EC_P(msm_ba_spill_)(s, s->qpt[j], s->qneg[j], s->qbi[j]);
    s->nq = 0;

    if (!s->ovf_dirty && s->tr) {
        unsigned lg = 0;
        while (((size_t)1 << lg) < s->nb) lg++;
        EC_P(msm_ba_reduce_)(r, s, lg);
        return;
    }
    /* Running sum; affine buckets enter with mixed additions. */
    EC_XYZZ run, sum;
    EC_P(xyzz_set_infinity)(&run);
    EC_P(xyzz_set_infinity)(&sum);
    const EC_XYZZ *ovf = s->ovf_dirty ? s->ovf : NULL;
    for (size_t b = s->nb; b-- > 0;) {
        EC_P(msm_madd_)(&run, &s->bkt[b]); /* an empty bucket is the affine infinity: no-op */
        if (ovf && !EC_P(xyzz_is_infinity)(&ovf[b])) EC_P(msm_add_)(&run, &run, &ovf[b]);
        EC_P(msm_add_)(&sum, &sum, &run);
    }
    *r = sum;
}

/* Pippenger over the points of src (n in all), plain scalars below 2^bits. */
static int EC_P(msm_run_)(EC_XYZZ *r, const EC_P(msm_src_) *src, size_t n, int t, unsigned bits) {
    EC_P(xyzz_set_infinity)(r);
    if (n == 0 || bits == 0) return 0;
    cz_msm_plan plan = cz_msm_plan_bits_(n, t, sizeof(EC_F) / sizeof(cz_fp), bits);
    unsigned c = plan.c, nw = plan.windows;
    size_t nchunks = plan.chunks, ntasks = (size_t)nw * nchunks, nb = (size_t)1 << (c - 1);
    EC_XYZZ *part = malloc(ntasks * sizeof *part);
    int err = 0;
    if (!part) return cz_error(CZ_ENOMEM, "msm: out of memory for %zu points", n);
    if (t > (int)ntasks) t = (int)ntasks;

#pragma omp parallel num_threads(t)
    {
        EC_XYZZ *buckets = NULL;
        EC_P(msm_ba_) ba;
        int mine = plan.batch ? EC_P(msm_ba_init_)(&ba, nb, plan.batch)
                              : !(buckets = malloc(nb * sizeof *buckets));
        if (mine) {
#pragma omp atomic write
            err = 1;
        }
        /* Windows first: with one chunk per window the threads take whole windows. */
#pragma omp for schedule(dynamic, 1)
        for (size_t k = 0; k < ntasks; k++) {
            if (mine) continue;
            size_t w = k / nchunks, p = k % nchunks;
            size_t lo = n * p / nchunks, hi = n * (p + 1) / nchunks;
            if (plan.batch) {
                EC_P(msm_ba_task_)(&part[k], &ba, src, lo, hi, (unsigned)w, c);
                if (ba.err) {
#pragma omp atomic write
                    err = 1;
                }
            } else {
                EC_P(msm_task_)(&part[k], buckets, nb, src, lo, hi, (unsigned)w, c);
            }
        }
        if (plan.batch && !mine) EC_P(msm_ba_free_)(&ba);
        free(buckets);
    }
    if (err) {
        free(part);
        return cz_error(CZ_ENOMEM, "msm: out of memory for %zu points (window %u bits)", n, c);
    }

    /* Horner over windows from the top: acc = 2^c * acc + W_w. */
    EC_XYZZ acc, win;
    EC_P(xyzz_set_infinity)(&acc);
    for (size_t w = nw; w-- > 0;) {
        for (unsigned j = 0; j < c; j++) EC_P(msm_double_)(&acc);
        EC_P(xyzz_set_infinity)(&win);
        for (size_t p = 0; p < nchunks; p++) EC_P(msm_add_)(&win, &win, &part[w * nchunks + p]);
        EC_P(msm_add_)(&acc, &acc, &win);
    }
    *r = acc;
    free(part);
    return 0;
}

/* Bit length of the largest of n plain scalars (0 when all are zero): the windows only need to
 * cover it, which saves whole windows when every scalar is small. */
static unsigned EC_P(msm_bits_)(const uint64_t (*raw)[4], size_t n) {
    uint64_t o[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < n; i++)
        for (int j = 0; j < 4; j++) o[j] |= raw[i][j];
    for (int j = 3; j >= 0; j--)
        if (o[j]) return 64 * (unsigned)j + 64 - (unsigned)__builtin_clzll(o[j]);
    return 0;
}

/* Pippenger over plain scalars raw[0..n) (each below r). With endo set (bases in the prime-order
 * subgroup), each k is split as k0 + k1 L with L = x^2 (cz_msm_glv_split_) and [L]P is the cheap
 * map EC_P(msm_endo_map_): 2n points with 128-bit scalars, half the windows of n with 255 bits, so
 * half the bucket reductions and the same number of bucket additions. */
static int EC_P(msm_raw_)(EC_XYZZ *r, const EC_AFF *bases, uint64_t (*raw)[4], size_t n, int t, bool endo) {
    EC_P(msm_src_) src = {bases, NULL, (const uint64_t(*)[4])raw, NULL, n};
    unsigned bits = EC_P(msm_bits_)((const uint64_t(*)[4])raw, n);
    if (!endo || bits <= 128 || n < 2) return EC_P(msm_run_)(r, &src, n, t, bits);
    EC_AFF *img = cz_msm_big_alloc(n * sizeof *img);
    uint64_t(*hi)[4] = cz_msm_big_alloc(n * sizeof *hi);
    if (!img || !hi) {
        free(img);
        free(hi);
        return cz_error(CZ_ENOMEM, "msm: out of memory for %zu points", n);
    }
    EC_P(msm_endo_init_)();
#pragma omp parallel for schedule(static) num_threads(t) if (n >= 4096)
    for (size_t i = 0; i < n; i++) {
        uint64_t k0[2], k1[2];
        cz_msm_glv_split_(k0, k1, raw[i]);
        raw[i][0] = k0[0], raw[i][1] = k0[1], raw[i][2] = raw[i][3] = 0;
        hi[i][0] = k1[0], hi[i][1] = k1[1], hi[i][2] = hi[i][3] = 0;
        EC_P(msm_endo_map_)(&img[i], &bases[i]);
    }
    src.b = img;
    src.kb = (const uint64_t(*)[4])hi;
    int rc = EC_P(msm_run_)(r, &src, 2 * n, t, 128);
    free(img);
    free(hi);
    return rc;
}

/* Witnesses are often mostly bits. When at least a quarter of the scalars are 0 or 1, the ones go
 * to the 0/1 batch addition, the zeros are dropped, and Pippenger gets only the rest (planned for
 * their number, not n). */
static int EC_P(msm_xyzz_)(EC_XYZZ *r, const EC_AFF *bases, const cz_fr *scalars, size_t n, int nthreads,
                           bool endo) {
    EC_P(xyzz_set_infinity)(r);
    if (n == 0) return 0;
    int t = nthreads > 0 ? nthreads : omp_get_max_threads();
    uint64_t(*raw)[4] = cz_msm_big_alloc(n * sizeof *raw);
    if (!raw) return cz_error(CZ_ENOMEM, "msm: out of memory for %zu points", n);
    size_t small = 0;
#pragma omp parallel for schedule(static) num_threads(t) reduction(+ : small) if (n >= 4096)
    for (size_t i = 0; i < n; i++) {
        cz_fr_to_raw(raw[i], &scalars[i]);
        small += (raw[i][0] <= 1) & ((raw[i][1] | raw[i][2] | raw[i][3]) == 0);
    }
    int rc;
    if (small < n / 4 || n < 64) {
        rc = EC_P(msm_raw_)(r, bases, raw, n, t, endo);
        free(raw);
        return rc;
    }
    size_t words = (n + 63) / 64, nbig = 0;
    uint64_t *ones = calloc(words, sizeof *ones);
    EC_AFF *big = cz_msm_big_alloc((n - small) * sizeof *big);
    if (!ones || !big) {
        free(raw);
        free(ones);
        free(big);
        return cz_error(CZ_ENOMEM, "msm: out of memory for %zu points", n);
    }
    for (size_t i = 0; i < n; i++) {
        if ((raw[i][1] | raw[i][2] | raw[i][3]) == 0 && raw[i][0] <= 1) {
            if (raw[i][0]) ones[i / 64] |= (uint64_t)1 << (i % 64);
            continue;
        }
        big[nbig] = bases[i];
        if (nbig != i) memcpy(raw[nbig], raw[i], sizeof raw[i]); /* nbig < i: compacts in place */
        nbig++;
    }
    EC_JAC sum1;
    EC_XYZZ rest;
    EC_P(batch_add)(&sum1, bases, ones, n, t);
    rc = EC_P(msm_raw_)(&rest, big, raw, nbig, t, endo);
    if (!rc) {
        /* rest + sum1: sum1 as xyzz (X, Y, Z^2, Z^3) */
        EC_XYZZ s1;
        if (EC_P(jac_is_infinity)(&sum1)) {
            EC_P(xyzz_set_infinity)(&s1);
        } else {
            s1.x = sum1.x;
            s1.y = sum1.y;
            EC_FF(sqr)(&s1.zz, &sum1.z);
            EC_FF(mul)(&s1.zzz, &s1.zz, &sum1.z);
        }
        EC_P(msm_add_)(r, &rest, &s1);
    }
    free(raw);
    free(ones);
    free(big);
    return rc;
}

int EC_P(msm)(EC_JAC *r, const EC_AFF *bases, const cz_fr *scalars, size_t n, int nthreads) {
    EC_XYZZ acc;
    int rc = EC_P(msm_xyzz_)(&acc, bases, scalars, n, nthreads, false);
    EC_P(jac_from_xyzz)(r, &acc);
    return rc;
}

int EC_P(msm_subgroup)(EC_JAC *r, const EC_AFF *bases, const cz_fr *scalars, size_t n, int nthreads) {
    EC_XYZZ acc;
    int rc = EC_P(msm_xyzz_)(&acc, bases, scalars, n, nthreads, true);
    EC_P(jac_from_xyzz)(r, &acc);
    return rc;
}
