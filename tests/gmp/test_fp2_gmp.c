/* Fp2 = Fp[u]/(u^2+1) against mpz formulas on pairs of integers: add, sub, neg, double, mul, sqr,
 * mul_fp, mul_by_nonresidue (u+1), conj, inv, sqrt, pow and the ZCash sign. a = a0 + a1 u is a square
 * iff a = 0 or its norm a0^2 + a1^2 is a square in Fp (u^2 = -1 and p = 3 mod 4). */
#include "cz_error.h"
#include "ff_gmp.h"

static ff_field FP;

typedef struct {
    mpz_t c0, c1;
} pair;

static void pair_init(pair *a) { mpz_inits(a->c0, a->c1, NULL); }
static void pair_clear(pair *a) { mpz_clears(a->c0, a->c1, NULL); }

static void gen2(pair *a) {
    ff_gen(&FP, a->c0);
    ff_gen(&FP, a->c1);
    unsigned k = (unsigned)(ff_rnd() % 16);
    if (k == 0) mpz_set_ui(a->c0, 0); /* pure imaginary */
    if (k == 1) mpz_set_ui(a->c1, 0); /* in Fp */
}

static void load2(cz_fp2 *r, const pair *a) {
    ff_elem t;
    ff_load(&FP, &t, a->c0);
    r->c0 = t.fp;
    ff_load(&FP, &t, a->c1);
    r->c1 = t.fp;
}

static bool check2(const cz_fp2 *r, const mpz_t e0, const mpz_t e1) {
    ff_elem t0 = {.fp = r->c0}, t1 = {.fp = r->c1};
    return ff_check(&FP, &t0, e0) && ff_check(&FP, &t1, e1);
}

/* (a0 + a1 u)(b0 + b1 u) = (a0 b0 - a1 b1) + (a0 b1 + a1 b0) u, reduced. */
static void mul2(pair *r, const pair *a, const pair *b) {
    mpz_t t0, t1, t2;
    mpz_inits(t0, t1, t2, NULL);
    mpz_mul(t0, a->c0, b->c0);
    mpz_submul(t0, a->c1, b->c1);
    mpz_mul(t1, a->c0, b->c1);
    mpz_addmul(t1, a->c1, b->c0);
    mpz_mod(r->c0, t0, FP.p);
    mpz_mod(r->c1, t1, FP.p);
    mpz_clears(t0, t1, t2, NULL);
}

#define MSG2(op) "fp2 " op " a=%s+%s*u b=%s+%s*u", ff_hx(a.c0), ff_hx(a.c1), ff_hx(b.c0), ff_hx(b.c1)

static void test_ring(long n) {
    double t0 = ff_now();
    pair a, b, e;
    pair_init(&a), pair_init(&b), pair_init(&e);
    cz_fp2 x, y, r;
    for (long i = 0; i < n; i++) {
        gen2(&a);
        gen2(&b);
        load2(&x, &a);
        load2(&y, &b);
        bool alias = (i & 3) == 0;
        mpz_add(e.c0, a.c0, b.c0), mpz_add(e.c1, a.c1, b.c1);
        cz_fp2_add(&r, &x, &y);
        CHECK_MSG(check2(&r, e.c0, e.c1), MSG2("add"));
        mpz_sub(e.c0, a.c0, b.c0), mpz_sub(e.c1, a.c1, b.c1);
        cz_fp2_sub(&r, &x, &y);
        CHECK_MSG(check2(&r, e.c0, e.c1), MSG2("sub"));
        mpz_neg(e.c0, a.c0), mpz_neg(e.c1, a.c1);
        cz_fp2_neg(&r, &x);
        CHECK_MSG(check2(&r, e.c0, e.c1), MSG2("neg"));
        mpz_mul_2exp(e.c0, a.c0, 1), mpz_mul_2exp(e.c1, a.c1, 1);
        cz_fp2_double(&r, &x);
        CHECK_MSG(check2(&r, e.c0, e.c1), MSG2("double"));
        mpz_set(e.c0, a.c0), mpz_neg(e.c1, a.c1);
        cz_fp2_conj(&r, &x);
        CHECK_MSG(check2(&r, e.c0, e.c1), MSG2("conj"));
        mpz_sub(e.c0, a.c0, a.c1), mpz_add(e.c1, a.c0, a.c1);
        r = x;
        cz_fp2_mul_by_nonresidue(&r, alias ? &r : &x);
        CHECK_MSG(check2(&r, e.c0, e.c1), MSG2("mul_by_nonresidue"));
        mul2(&e, &a, &b);
        r = y;
        cz_fp2_mul(&r, &x, alias ? &r : &y);
        CHECK_MSG(check2(&r, e.c0, e.c1), MSG2("mul"));
        mul2(&e, &a, &a);
        r = x;
        cz_fp2_sqr(&r, alias ? &r : &x);
        CHECK_MSG(check2(&r, e.c0, e.c1), MSG2("sqr"));
        mpz_mul(e.c0, a.c0, b.c0), mpz_mul(e.c1, a.c1, b.c0);
        cz_fp2_mul_fp(&r, &x, &y.c0);
        CHECK_MSG(check2(&r, e.c0, e.c1), MSG2("mul_fp"));
        bool big = mpz_sgn(a.c1) ? mpz_cmp(a.c1, FP.half) > 0 : mpz_cmp(a.c0, FP.half) > 0;
        CHECK_MSG(cz_fp2_is_lexicographically_largest(&x) == big, MSG2("lex"));
        CHECK(cz_fp2_is_zero(&x) == (mpz_sgn(a.c0) == 0 && mpz_sgn(a.c1) == 0));
        CHECK(cz_fp2_equal(&x, &y) == (mpz_cmp(a.c0, b.c0) == 0 && mpz_cmp(a.c1, b.c1) == 0));
    }
    pair_clear(&a), pair_clear(&b), pair_clear(&e);
    printf("fp2 %-22s %8ld cases  %6.2f s\n", "add/sub/neg/mul/sqr/..", n, ff_now() - t0);
}

static void test_inv_sqrt_pow(long n) {
    double t0 = ff_now();
    pair a, b, e;
    pair_init(&a), pair_init(&b), pair_init(&e);
    mpz_t norm, t, x;
    mpz_inits(norm, t, x, NULL);
    cz_fp2 v, r;
    long squares = 0, non = 0;
    uint64_t ex[7];
    for (long i = 0; i < n; i++) {
        gen2(&a);
        if (i == 0) mpz_set_ui(a.c0, 0), mpz_set_ui(a.c1, 0);
        mpz_set_ui(b.c0, 0), mpz_set_ui(b.c1, 0);
        load2(&v, &a);
        /* inverse: conj(a) / norm(a) */
        mpz_mul(norm, a.c0, a.c0);
        mpz_addmul(norm, a.c1, a.c1);
        mpz_mod(norm, norm, FP.p);
        r = v;
        int rc = cz_fp2_inv(&r, (i & 3) ? &v : &r);
        if (mpz_sgn(norm) == 0) {
            CHECK_MSG(rc == CZ_EINVAL && cz_fp2_is_zero(&r), MSG2("inv(0)"));
        } else {
            mpz_invert(t, norm, FP.p);
            mpz_mul(e.c0, a.c0, t);
            mpz_mul(e.c1, a.c1, t);
            mpz_neg(e.c1, e.c1);
            CHECK_MSG(rc == 0 && check2(&r, e.c0, e.c1), MSG2("inv"));
        }

        /* sqrt: every other input squared first */
        if (i & 1) {
            mul2(&a, &a, &a);
            load2(&v, &a);
            mpz_mul(norm, a.c0, a.c0);
            mpz_addmul(norm, a.c1, a.c1);
            mpz_mod(norm, norm, FP.p);
        }
        bool is_sq = mpz_legendre(norm, FP.p) >= 0;
        r = v;
        rc = cz_fp2_sqrt(&r, (i & 2) ? &v : &r);
        if (is_sq) {
            squares++;
            ff_elem s0 = {.fp = r.c0}, s1 = {.fp = r.c1};
            ff_plain(&FP, b.c0, &s0);
            ff_plain(&FP, b.c1, &s1);
            mul2(&e, &b, &b);
            CHECK_MSG(rc == 0 && ff_canonical(&FP, &s0) && ff_canonical(&FP, &s1) &&
                          mpz_cmp(e.c0, a.c0) == 0 && mpz_cmp(e.c1, a.c1) == 0,
                      MSG2("sqrt"));
        } else {
            non++;
            CHECK_MSG(rc == CZ_EINVAL, MSG2("sqrt of a non-square"));
        }

        /* pow with 0..7 limb exponents (mostly short: the mpz reference is the slow part) */
        size_t nl = (size_t)(ff_rnd() % 16 == 0 ? ff_rnd() % 8 : ff_rnd() % 3);
        for (size_t j = 0; j < nl; j++) ex[j] = ff_rnd();
        if (nl) ex[nl - 1] >>= ff_rnd() % 64;
        ff_limbs_to_mpz(x, ex, (int)nl);
        if (nl == 0) mpz_set_ui(x, 0);
        mpz_set_ui(e.c0, 1), mpz_set_ui(e.c1, 0);
        for (size_t bit = mpz_sizeinbase(x, 2); bit-- > 0;) {
            mul2(&e, &e, &e);
            if (mpz_tstbit(x, bit)) mul2(&e, &e, &a);
        }
        cz_fp2_pow(&r, &v, ex, nl);
        CHECK_MSG(check2(&r, e.c0, e.c1), MSG2("pow"));
    }
    CHECK(squares > n / 3 && non > n / 8);
    mpz_clears(norm, t, x, NULL);
    pair_clear(&a), pair_clear(&b), pair_clear(&e);
    printf("fp2 %-22s %8ld cases  %6.2f s\n", "inv/sqrt/pow", n, ff_now() - t0);
}

int main(void) {
    ff_rand_init();
    CHECK(ff_moduli_ok());
    ff_field_init(&FP, "fp", FF_P_HEX, 6);
    long n = ff_cases();
    test_ring(n);
    test_inv_sqrt_pow(n / 10);
    ff_field_clear(&FP);
    gmp_randclear(ff_gmp_rand);
    return cz_test_finish();
}
