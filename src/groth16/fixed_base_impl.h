/* Template of fixed_base.h, included once per group with the ec/ec_group_g?.h parameters. */

/* The table of the generator: tab[w * CZ_FB_HALF + j] = (j + 1) 2^(c w) G. NULL when out of memory. */
static EC_AFF *EC_P(fb_table_)(void) {
    size_t n = (size_t)CZ_FB_WINDOWS * CZ_FB_HALF;
    EC_JAC *j = malloc(n * sizeof *j);
    EC_AFF *tab = malloc(n * sizeof *tab), g;
    if (!j || !tab) {
        free(j);
        free(tab);
        return NULL;
    }
    EC_P(generator)(&g);
    EC_JAC base;
    EC_P(jac_from_affine)(&base, &g);
    for (size_t w = 0; w < CZ_FB_WINDOWS; w++) {
        EC_JAC *row = j + w * CZ_FB_HALF;
        row[0] = base;
        for (size_t d = 1; d < CZ_FB_HALF; d++) EC_P(jac_add)(&row[d], &row[d - 1], &base);
        EC_P(jac_double)(&base, &row[CZ_FB_HALF - 1]); /* 2 * 2^(c-1) * base */
    }
    EC_P(batch_to_affine)(tab, j, n);
    free(j);
    return tab;
}

/* One product, jacobian accumulation (for the handful of verifying-key points). */
static void EC_P(fb_mul1_)(EC_AFF *out, const EC_AFF *tab, const cz_fr *k) {
    uint64_t raw[4];
    cz_fr_to_raw(raw, k);
    EC_JAC r;
    EC_P(jac_set_infinity)(&r);
    for (unsigned w = 0; w < CZ_FB_WINDOWS; w++) {
        int d = cz_msm_digit_(raw, w, CZ_FB_C);
        if (d == 0) continue;
        EC_AFF q = tab[w * CZ_FB_HALF + (size_t)(d > 0 ? d : -d) - 1];
        if (d < 0) EC_P(affine_neg)(&q, &q);
        EC_P(jac_add_affine)(&r, &r, &q);
    }
    EC_P(to_affine)(out, &r);
}

typedef struct {
    uint64_t (*raw)[4];
    const EC_AFF **q;   /* the table point of each pending addition */
    uint32_t *idx;      /* its output */
    unsigned char *kind; /* CZ_FB_ADD / _DBL / _INF, + 4 when the table point is negated */
    EC_F *den, *pref;
} EC_P(fb_scratch_);

/* out[0..m) = k[i] G, window by window: each pass adds one table point to every output with one
 * inversion. Partial sums may meet their table point (doubling) or its negation (infinity) only for
 * scalars built to do so, but both are handled exactly. */
static void EC_P(fb_chunk_)(EC_AFF *out, const EC_AFF *tab, const cz_fr *k, size_t m, EC_P(fb_scratch_) *s) {
    for (size_t i = 0; i < m; i++) cz_fr_to_raw(s->raw[i], &k[i]);
    memset(out, 0, m * sizeof *out);
    for (unsigned w = 0; w < CZ_FB_WINDOWS; w++) {
        const EC_AFF *row = tab + w * CZ_FB_HALF;
        EC_F acc = EC_ONE;
        size_t np = 0;
        for (size_t i = 0; i < m; i++) {
            /* The table lookups are random within the window's slice: fetch a few outputs ahead. */
            if (i + CZ_FB_AHEAD < m) {
                int da = cz_msm_digit_(s->raw[i + CZ_FB_AHEAD], w, CZ_FB_C);
                if (da != 0) __builtin_prefetch(&row[(da > 0 ? da : -da) - 1]);
            }
            int d = cz_msm_digit_(s->raw[i], w, CZ_FB_C);
            if (d == 0) continue;
            const EC_AFF *Q = &row[(d > 0 ? d : -d) - 1];
            EC_AFF *A = &out[i];
            if (EC_P(affine_is_infinity)(A)) {
                A->x = Q->x;
                if (d < 0) EC_FF(neg)(&A->y, &Q->y);
                else A->y = Q->y;
                continue;
            }
            unsigned char kd;
            if (!EC_FF(equal)(&Q->x, &A->x)) {
                kd = CZ_FB_ADD;
                EC_FF(sub)(&s->den[np], &Q->x, &A->x);
            } else {
                EC_F y = Q->y;
                if (d < 0) EC_FF(neg)(&y, &y);
                if (EC_FF(equal)(&y, &A->y) && !EC_FF(is_zero)(&y)) {
                    kd = CZ_FB_DBL;
                    EC_FF(double)(&s->den[np], &y);
                } else {
                    kd = CZ_FB_INF;
                    s->den[np] = EC_ONE;
                }
            }
            s->kind[np] = kd | (d < 0 ? 4 : 0);
            s->q[np] = Q;
            s->idx[np] = (uint32_t)i;
            s->pref[np] = acc;
            EC_FF(mul)(&acc, &acc, &s->den[np]);
            np++;
        }
        if (np == 0) continue;
        EC_FF(inv)(&acc, &acc);
        for (size_t j = np; j-- > 0;) {
            EC_F inv, lambda, t, x3;
            EC_FF(mul)(&inv, &acc, &s->pref[j]);
            EC_FF(mul)(&acc, &acc, &s->den[j]);
            EC_AFF *A = &out[s->idx[j]];
            const EC_AFF *Q = s->q[j];
            unsigned kd = s->kind[j] & 3;
            if (kd == CZ_FB_INF) {
                memset(A, 0, sizeof *A);
                continue;
            }
            if (kd == CZ_FB_ADD) {
                if (s->kind[j] & 4) { /* -Q.y - A.y */
                    EC_FF(add)(&t, &Q->y, &A->y);
                    EC_FF(neg)(&t, &t);
                } else {
                    EC_FF(sub)(&t, &Q->y, &A->y);
                }
            } else {
                EC_FF(sqr)(&t, &A->x);
                EC_FF(add)(&lambda, &t, &t);
                EC_FF(add)(&t, &t, &lambda);
            }
            EC_FF(mul)(&lambda, &t, &inv);
            EC_FF(sqr)(&x3, &lambda);
            EC_FF(sub)(&x3, &x3, &A->x);
            EC_FF(sub)(&x3, &x3, &Q->x);
            EC_FF(sub)(&t, &A->x, &x3);
            EC_FF(mul)(&t, &t, &lambda);
            EC_FF(sub)(&A->y, &t, &A->y);
            A->x = x3;
        }
    }
}

/* out[i] = k[i] G for i < n (affine; infinity for k = 0), chunks of outputs spread over nt threads. */
static int EC_P(fb_mul_many_)(EC_AFF *out, const EC_AFF *tab, const cz_fr *k, size_t n, int nt) {
    size_t nchunks = (n + CZ_FB_CHUNK - 1) / CZ_FB_CHUNK;
    if (nt > (int)nchunks) nt = nchunks ? (int)nchunks : 1;
    int err = 0;
#pragma omp parallel num_threads(nt)
    {
        EC_P(fb_scratch_) s;
        s.raw = malloc(CZ_FB_CHUNK * sizeof *s.raw);
        s.q = malloc(CZ_FB_CHUNK * sizeof *s.q);
        s.idx = malloc(CZ_FB_CHUNK * sizeof *s.idx);
        s.kind = malloc(CZ_FB_CHUNK);
        s.den = malloc(CZ_FB_CHUNK * sizeof *s.den);
        s.pref = malloc(CZ_FB_CHUNK * sizeof *s.pref);
        int mine = !s.raw || !s.q || !s.idx || !s.kind || !s.den || !s.pref;
        if (mine) {
#pragma omp atomic write
            err = 1;
        }
#pragma omp for schedule(dynamic, 1)
        for (size_t c = 0; c < nchunks; c++) {
            if (mine) continue;
            size_t lo = c * CZ_FB_CHUNK, hi = lo + CZ_FB_CHUNK < n ? lo + CZ_FB_CHUNK : n;
            EC_P(fb_chunk_)(out + lo, tab, k + lo, hi - lo, &s);
        }
        free(s.raw);
        free(s.q);
        free(s.idx);
        free(s.kind);
        free(s.den);
        free(s.pref);
    }
    return err ? cz_error(CZ_ENOMEM, "setup: out of memory for the fixed-base scratch") : 0;
}
