/* Fp and Fr against GMP: add, sub, neg, double, mul, sqr, inv, sqrt, pow, legendre, from_raw/to_raw,
 * set_u64, random, byte encodings (Fp 48 B big-endian; Fr 32 B little- and big-endian, 64 B wide
 * reduction) and the lexicographic sign, each on ff_cases() random and edge inputs per field.
 * Aliased outputs (r == a) are exercised on a quarter of the cases. Fp2 is in test_fp2_gmp.c. */
#include "cz_error.h"
#include "ff_gmp.h"

static ff_field FP, FR;

#define REPORT(f, what, n, t0) \
    printf("%s %-22s %8ld cases  %6.2f s\n", (f)->name, what, (long)(n), ff_now() - (t0))

static void test_add_sub_neg(const ff_field *f, long n) {
    double t0 = ff_now();
    mpz_t a, b, e;
    mpz_inits(a, b, e, NULL);
    ff_elem ea, eb, r;
    for (long i = 0; i < n; i++) {
        ff_gen(f, a);
        ff_gen(f, b);
        ff_load(f, &ea, a);
        ff_load(f, &eb, b);
        bool alias = (i & 3) == 0;
        mpz_add(e, a, b);
        if (alias)
            r = ea, f->add(&r, &r, &eb);
        else
            f->add(&r, &ea, &eb);
        CHECK_MSG(ff_check(f, &r, e), "%s add a=%s b=%s", f->name, ff_hx(a), ff_hx(b));
        mpz_sub(e, a, b);
        if (alias)
            r = eb, f->sub(&r, &ea, &r);
        else
            f->sub(&r, &ea, &eb);
        CHECK_MSG(ff_check(f, &r, e), "%s sub a=%s b=%s", f->name, ff_hx(a), ff_hx(b));
        mpz_neg(e, a);
        if (alias)
            r = ea, f->neg(&r, &r);
        else
            f->neg(&r, &ea);
        CHECK_MSG(ff_check(f, &r, e), "%s neg a=%s", f->name, ff_hx(a));
        mpz_mul_2exp(e, a, 1);
        f->dbl(&r, &ea);
        CHECK_MSG(ff_check(f, &r, e), "%s double a=%s", f->name, ff_hx(a));
        CHECK(f->is_zero(&ea) == (mpz_sgn(a) == 0));
        CHECK(f->equal(&ea, &eb) == (mpz_cmp(a, b) == 0));
    }
    mpz_clears(a, b, e, NULL);
    REPORT(f, "add/sub/neg/double", n, t0);
}

static void test_mul_sqr(const ff_field *f, long n) {
    double t0 = ff_now();
    mpz_t a, b, e;
    mpz_inits(a, b, e, NULL);
    ff_elem ea, eb, r;
    for (long i = 0; i < n; i++) {
        ff_gen(f, a);
        ff_gen(f, b);
        ff_load(f, &ea, a);
        ff_load(f, &eb, b);
        bool alias = (i & 3) == 0;
        mpz_mul(e, a, b);
        if (alias)
            r = eb, f->mul(&r, &ea, &r);
        else
            f->mul(&r, &ea, &eb);
        CHECK_MSG(ff_check(f, &r, e), "%s mul a=%s b=%s", f->name, ff_hx(a), ff_hx(b));
        mpz_mul(e, a, a);
        if (alias)
            r = ea, f->sqr(&r, &r);
        else
            f->sqr(&r, &ea);
        CHECK_MSG(ff_check(f, &r, e), "%s sqr a=%s", f->name, ff_hx(a));
    }
    mpz_clears(a, b, e, NULL);
    REPORT(f, "mul/sqr", n, t0);
}

static void test_inv(const ff_field *f, long n) {
    double t0 = ff_now();
    mpz_t a, e;
    mpz_inits(a, e, NULL);
    ff_elem ea, r;
    for (long i = 0; i < n; i++) {
        ff_gen(f, a);
        if (i == 0) mpz_set_ui(a, 0);
        ff_load(f, &ea, a);
        r = ea;
        int rc = f->inv(&r, (i & 3) ? &ea : &r);
        if (mpz_sgn(a) == 0) {
            CHECK_MSG(rc == CZ_EINVAL && f->is_zero(&r), "%s inv(0) rc=%d", f->name, rc);
            continue;
        }
        mpz_invert(e, a, f->p);
        CHECK_MSG(rc == 0 && ff_check(f, &r, e), "%s inv a=%s rc=%d", f->name, ff_hx(a), rc);
    }
    mpz_clears(a, e, NULL);
    REPORT(f, "inv", n, t0);
}

/* Half the inputs are squares by construction, so both outcomes are well covered. */
static void test_sqrt_legendre(const ff_field *f, long n) {
    double t0 = ff_now();
    mpz_t a, s, e;
    mpz_inits(a, s, e, NULL);
    ff_elem ea, r;
    long squares = 0, non = 0;
    for (long i = 0; i < n; i++) {
        ff_gen(f, a);
        if (i & 1) {
            mpz_mul(a, a, a);
            mpz_mod(a, a, f->p);
        }
        ff_load(f, &ea, a);
        int leg = mpz_legendre(a, f->p);
        CHECK_MSG(f->legendre(&ea) == leg, "%s legendre a=%s want %d", f->name, ff_hx(a), leg);
        r = ea;
        int rc = f->sqrt(&r, (i & 2) ? &ea : &r);
        if (leg >= 0) {
            squares++;
            ff_plain(f, s, &r);
            mpz_mul(e, s, s);
            mpz_mod(e, e, f->p);
            CHECK_MSG(rc == 0 && ff_canonical(f, &r) && mpz_cmp(e, a) == 0, "%s sqrt a=%s rc=%d", f->name,
                      ff_hx(a), rc);
        } else {
            non++;
            CHECK_MSG(rc == CZ_EINVAL, "%s sqrt of non-residue a=%s rc=%d", f->name, ff_hx(a), rc);
        }
    }
    CHECK(squares > n / 3 && non > n / 8);
    mpz_clears(a, s, e, NULL);
    REPORT(f, "sqrt+legendre", n, t0);
}

/* Exponents of 0..n+2 limbs: random, limb patterns, and p-1, p-2, (p-1)/2, p, p+1. */
static void test_pow(const ff_field *f, long n) {
    double t0 = ff_now();
    mpz_t a, x, e;
    mpz_inits(a, x, e, NULL);
    ff_elem ea, r;
    uint64_t ex[8];
    for (long i = 0; i < n; i++) {
        ff_gen(f, a);
        ff_load(f, &ea, a);
        size_t nl = (size_t)(ff_rnd() % (uint64_t)(f->n + 3));
        unsigned kind = (unsigned)(ff_rnd() % 8);
        if (kind == 0 && nl >= (size_t)f->n) {
            static const long d[] = {-1, -2, 0, 1};
            long k = (long)(ff_rnd() % 5);
            if (k == 4)
                mpz_set(x, f->half);
            else if (d[k] < 0)
                mpz_sub_ui(x, f->p, (unsigned long)-d[k]);
            else
                mpz_add_ui(x, f->p, (unsigned long)d[k]);
            memset(ex, 0, sizeof ex);
            ff_mpz_to_limbs(ex, (int)nl, x);
        } else {
            for (size_t j = 0; j < nl; j++)
                ex[j] = kind == 1 ? ff_pattern_limb(f, (int)(j % (size_t)f->n)) : ff_rnd();
            ff_limbs_to_mpz(x, ex, (int)nl);
        }
        if (nl == 0) mpz_set_ui(x, 0);
        mpz_powm(e, a, x, f->p);
        r = ea;
        f->pow(&r, (i & 3) ? &ea : &r, ex, nl);
        CHECK_MSG(ff_check(f, &r, e), "%s pow a=%s e=%s (%zu limbs)", f->name, ff_hx(a), ff_hx(x), nl);
    }
    mpz_clears(a, x, e, NULL);
    REPORT(f, "pow", n, t0);
}

/* from_raw must accept exactly [0, p) and agree with GMP's Montgomery form; to_raw inverts it. */
static void test_raw(const ff_field *f, long n) {
    double t0 = ff_now();
    mpz_t a, g;
    mpz_inits(a, g, NULL);
    ff_elem want, r;
    uint64_t v[6], back[6];
    for (long i = 0; i < n; i++) {
        bool in = (i % 3) != 0;
        if (in)
            ff_gen(f, a);
        else
            ff_gen_out_of_range(f, a);
        ff_mpz_to_limbs(v, f->n, a);
        memset(&r, 0x5a, sizeof r);
        int rc = f->from_raw(&r, v);
        if (!in) {
            CHECK_MSG(rc == CZ_ERANGE, "%s from_raw accepted %s >= p (rc=%d)", f->name, ff_hx(a), rc);
            continue;
        }
        ff_load(f, &want, a);
        CHECK_MSG(rc == 0 && memcmp(r.l, want.l, (size_t)f->n * 8) == 0, "%s from_raw %s rc=%d", f->name,
                  ff_hx(a), rc);
        f->to_raw(back, &want);
        ff_limbs_to_mpz(g, back, f->n);
        CHECK_MSG(mpz_cmp(g, a) == 0, "%s to_raw %s gave %s", f->name, ff_hx(a), ff_hx(g));
    }
    mpz_clears(a, g, NULL);
    REPORT(f, "from_raw/to_raw", n, t0);
}

static void test_set_u64_random(const ff_field *f, long n) {
    double t0 = ff_now();
    mpz_t a;
    mpz_init(a);
    ff_elem r;
    cz_rng g;
    cz_rng_seed(&g, ff_rnd());
    long high_bit = 0;
    for (long i = 0; i < n; i++) {
        uint64_t v = i < 3 ? (uint64_t[]){0, 1, ~(uint64_t)0}[i] : ff_rnd() >> (ff_rnd() % 64);
        f->set_u64(&r, v);
        mpz_import(a, 1, -1, 8, 0, 0, &v);
        CHECK_MSG(ff_check(f, &r, a), "%s set_u64 %llu", f->name, (unsigned long long)v);
        f->random(&r, &g);
        CHECK_MSG(ff_canonical(f, &r), "%s random not reduced", f->name);
        ff_plain(f, a, &r);
        high_bit += mpz_cmp(a, f->half) > 0;
    }
    /* Uniform over [0, p): about half above (p-1)/2 (a crude bias check; 10 sigma is ~n/60). */
    CHECK_MSG(n < 1000 || labs(2 * high_bit - n) < n / 20, "%s random: %ld of %ld above p/2", f->name,
              high_bit, n);
    mpz_clear(a);
    REPORT(f, "set_u64/random", n, t0);
}

/* Fp: 48-byte big-endian encoding, range check on decode, and the ZCash sign (value > (p-1)/2). */
static void test_fp_bytes(long n) {
    const ff_field *f = &FP;
    double t0 = ff_now();
    mpz_t a, g;
    mpz_inits(a, g, NULL);
    ff_elem want;
    cz_fp r;
    uint8_t b[48], out[48];
    for (long i = 0; i < n; i++) {
        bool in = (i % 3) != 0;
        if (in)
            ff_gen(f, a);
        else
            ff_gen_out_of_range(f, a);
        memset(b, 0, sizeof b);
        size_t cnt;
        mpz_export(b + 48 - (mpz_sizeinbase(a, 256)), &cnt, 1, 1, 1, 0, a);
        int rc = cz_fp_from_bytes_be(&r, b);
        if (!in) {
            CHECK_MSG(rc == CZ_ERANGE, "fp from_bytes_be accepted %s >= p", ff_hx(a));
            continue;
        }
        ff_load(f, &want, a);
        CHECK_MSG(rc == 0 && cz_fp_equal(&r, &want.fp), "fp from_bytes_be %s", ff_hx(a));
        cz_fp_to_bytes_be(out, &want.fp);
        CHECK_MSG(memcmp(out, b, 48) == 0, "fp to_bytes_be %s", ff_hx(a));
        CHECK_MSG(cz_fp_is_lexicographically_largest(&want.fp) == (mpz_cmp(a, f->half) > 0), "fp lex %s",
                  ff_hx(a));
    }
    /* Fully random 48-byte strings: about 90% are >= p. */
    for (long i = 0; i < n / 4; i++) {
        for (int j = 0; j < 48; j++) b[j] = (uint8_t)ff_rnd();
        mpz_import(a, 48, 1, 1, 1, 0, b);
        int rc = cz_fp_from_bytes_be(&r, b);
        if (mpz_cmp(a, f->p) >= 0) {
            CHECK(rc == CZ_ERANGE);
        } else {
            ff_load(f, &want, a);
            CHECK(rc == 0 && cz_fp_equal(&r, &want.fp));
        }
    }
    mpz_clears(a, g, NULL);
    REPORT(f, "bytes_be/lex", n + n / 4, t0);
}

/* Fr: 32-byte little- and big-endian encodings, range checks, and the 64-byte wide reduction. */
static void test_fr_bytes(long n) {
    const ff_field *f = &FR;
    double t0 = ff_now();
    mpz_t a;
    mpz_init(a);
    ff_elem want;
    cz_fr r1, r2;
    uint8_t le[32], be[32], out[32], wide[64];
    for (long i = 0; i < n; i++) {
        bool in = (i % 3) != 0;
        if (in)
            ff_gen(f, a);
        else
            ff_gen_out_of_range(f, a);
        memset(le, 0, sizeof le);
        mpz_export(le, NULL, -1, 1, -1, 0, a);
        for (int j = 0; j < 32; j++) be[j] = le[31 - j];
        int rc1 = cz_fr_from_bytes_le(&r1, le), rc2 = cz_fr_from_bytes_be(&r2, be);
        if (!in) {
            CHECK_MSG(rc1 == CZ_ERANGE && rc2 == CZ_ERANGE, "fr from_bytes accepted %s >= r", ff_hx(a));
            continue;
        }
        ff_load(f, &want, a);
        CHECK_MSG(rc1 == 0 && cz_fr_equal(&r1, &want.fr), "fr from_bytes_le %s", ff_hx(a));
        CHECK_MSG(rc2 == 0 && cz_fr_equal(&r2, &want.fr), "fr from_bytes_be %s", ff_hx(a));
        cz_fr_to_bytes_le(out, &want.fr);
        CHECK_MSG(memcmp(out, le, 32) == 0, "fr to_bytes_le %s", ff_hx(a));
        cz_fr_to_bytes_be(out, &want.fr);
        CHECK_MSG(memcmp(out, be, 32) == 0, "fr to_bytes_be %s", ff_hx(a));
    }
    REPORT(f, "bytes_le/be", n, t0);

    t0 = ff_now();
    for (long i = 0; i < n; i++) {
        switch (ff_rnd() % 6) {
        case 0: memset(wide, (int)(ff_rnd() % 3 == 0 ? 0 : 0xff), 64); break;
        case 1: /* k*r + small, and 2^511-ish patterns around multiples of r */
            mpz_urandomb(a, ff_gmp_rand, 256);
            mpz_mul(a, a, f->p);
            if (ff_rnd() & 1) mpz_add_ui(a, a, ff_rnd() & 3);
            memset(wide, 0, 64);
            mpz_export(wide, NULL, -1, 1, -1, 0, a);
            break;
        case 2:
            for (int j = 0; j < 8; j++) {
                uint64_t w = ff_pattern_limb(f, j % 4);
                for (int k = 0; k < 8; k++) wide[j * 8 + k] = (uint8_t)(w >> (8 * k));
            }
            break;
        default:
            for (int j = 0; j < 64; j++) wide[j] = (uint8_t)ff_rnd();
        }
        mpz_import(a, 64, -1, 1, -1, 0, wide);
        cz_fr_from_bytes_wide_le(&r1, wide);
        ff_elem got = {.fr = r1};
        CHECK_MSG(ff_check(f, &got, a), "fr from_bytes_wide_le %s", ff_hx(a));
    }
    mpz_clear(a);
    REPORT(f, "from_bytes_wide_le", n, t0);
}

/* Montgomery batch inversion: every element against mpz_invert, zeros stay zero. */
static void test_fr_batch_inv(long batches) {
    const ff_field *f = &FR;
    double t0 = ff_now();
    enum { MAXB = 64 };
    mpz_t a[MAXB], e;
    for (int i = 0; i < MAXB; i++) mpz_init(a[i]);
    mpz_init(e);
    cz_fr v[MAXB], scratch[MAXB];
    long total = 0;
    for (long b = 0; b < batches; b++) {
        size_t n = (size_t)(ff_rnd() % (MAXB + 1));
        for (size_t i = 0; i < n; i++) {
            if (ff_rnd() % 8 == 0)
                mpz_set_ui(a[i], 0);
            else
                ff_gen(f, a[i]);
            ff_elem t;
            ff_load(f, &t, a[i]);
            v[i] = t.fr;
        }
        cz_fr_batch_inv(v, n, scratch);
        for (size_t i = 0; i < n; i++, total++) {
            ff_elem got = {.fr = v[i]};
            if (mpz_sgn(a[i]) == 0)
                mpz_set_ui(e, 0);
            else
                mpz_invert(e, a[i], f->p);
            CHECK_MSG(ff_check(f, &got, e), "fr batch_inv[%zu of %zu] a=%s", i, n, ff_hx(a[i]));
        }
    }
    for (int i = 0; i < MAXB; i++) mpz_clear(a[i]);
    mpz_clear(e);
    REPORT(f, "batch_inv (elements)", total, t0);
}

static void run_field(const ff_field *f, long n) {
    test_add_sub_neg(f, n);
    test_mul_sqr(f, n);
    test_inv(f, n);
    test_sqrt_legendre(f, n);
    test_pow(f, n);
    test_raw(f, n);
    test_set_u64_random(f, n);
}

int main(void) {
    ff_rand_init();
    CHECK_MSG(ff_moduli_ok(), "the moduli typed in tests/gmp/ff_gmp.h do not follow from the curve seed x");
    ff_field_init(&FP, "fp", FF_P_HEX, 6);
    ff_field_init(&FR, "fr", FF_R_HEX, 4);
    FF_SET_OPS(&FP, fp);
    FF_SET_OPS(&FR, fr);
    long n = ff_cases();
    double t0 = ff_now();
    run_field(&FP, n);
    test_fp_bytes(n);
    run_field(&FR, n);
    test_fr_bytes(n);
    test_fr_batch_inv(n / 32);
    printf("total %.2f s\n", ff_now() - t0);
    ff_field_clear(&FP);
    ff_field_clear(&FR);
    gmp_randclear(ff_gmp_rand);
    return cz_test_finish();
}
