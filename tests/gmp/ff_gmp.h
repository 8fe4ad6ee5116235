/* Shared helpers for the GMP oracle tests: a field descriptor (Fp or Fr behind one set of function
 * pointers), conversions between cz limbs and mpz, and input generators (uniform, edge values,
 * structured limb patterns). Expected results are always computed with mpz from plain integers;
 * ff_check() accepts a result only if its limbs equal expected*R mod p exactly, so an unreduced
 * (non-canonical) output fails as well as a wrong one. */
#ifndef CZ_TESTS_FF_GMP_H
#define CZ_TESTS_FF_GMP_H

#include <gmp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ff/fp2.h"
#include "ff/fr.h"
#include "testutil.h"

typedef union {
    cz_fp fp;
    cz_fr fr;
    uint64_t l[6];
} ff_elem;

#define FF_MAX_EDGES 160

typedef struct {
    const char *name;
    int n;                       /* limbs */
    mpz_t p, R, Rinv, top, half; /* top = 2^(64n), half = (p-1)/2 */
    mpz_t edges[FF_MAX_EDGES];
    int n_edges;
    void (*add)(ff_elem *, const ff_elem *, const ff_elem *);
    void (*sub)(ff_elem *, const ff_elem *, const ff_elem *);
    void (*mul)(ff_elem *, const ff_elem *, const ff_elem *);
    void (*sqr)(ff_elem *, const ff_elem *);
    void (*neg)(ff_elem *, const ff_elem *);
    void (*dbl)(ff_elem *, const ff_elem *);
    int (*inv)(ff_elem *, const ff_elem *);
    int (*sqrt)(ff_elem *, const ff_elem *);
    void (*pow)(ff_elem *, const ff_elem *, const uint64_t *, size_t);
    int (*legendre)(const ff_elem *);
    int (*from_raw)(ff_elem *, const uint64_t *);
    void (*to_raw)(uint64_t *, const ff_elem *);
    void (*set_u64)(ff_elem *, uint64_t);
    void (*random)(ff_elem *, cz_rng *);
    bool (*is_zero)(const ff_elem *);
    bool (*equal)(const ff_elem *, const ff_elem *);
} ff_field;

/* Wrappers so both fields fit one descriptor (union members are named like the field prefix). */
#define FF_WRAP(F)                                                                                   \
    static void F##_add_w(ff_elem *r, const ff_elem *a, const ff_elem *b) {                          \
        cz_##F##_add(&r->F, &a->F, &b->F);                                                           \
    }                                                                                                \
    static void F##_sub_w(ff_elem *r, const ff_elem *a, const ff_elem *b) {                          \
        cz_##F##_sub(&r->F, &a->F, &b->F);                                                           \
    }                                                                                                \
    static void F##_mul_w(ff_elem *r, const ff_elem *a, const ff_elem *b) {                          \
        cz_##F##_mul(&r->F, &a->F, &b->F);                                                           \
    }                                                                                                \
    static void F##_sqr_w(ff_elem *r, const ff_elem *a) { cz_##F##_sqr(&r->F, &a->F); }              \
    static void F##_neg_w(ff_elem *r, const ff_elem *a) { cz_##F##_neg(&r->F, &a->F); }              \
    static void F##_dbl_w(ff_elem *r, const ff_elem *a) { cz_##F##_double(&r->F, &a->F); }           \
    static int F##_inv_w(ff_elem *r, const ff_elem *a) { return cz_##F##_inv(&r->F, &a->F); }        \
    static int F##_sqrt_w(ff_elem *r, const ff_elem *a) { return cz_##F##_sqrt(&r->F, &a->F); }      \
    static void F##_pow_w(ff_elem *r, const ff_elem *a, const uint64_t *e, size_t n) {               \
        cz_##F##_pow(&r->F, &a->F, e, n);                                                            \
    }                                                                                                \
    static int F##_legendre_w(const ff_elem *a) { return cz_##F##_legendre(&a->F); }                 \
    static int F##_from_raw_w(ff_elem *r, const uint64_t *v) { return cz_##F##_from_raw(&r->F, v); } \
    static void F##_to_raw_w(uint64_t *v, const ff_elem *a) { cz_##F##_to_raw(v, &a->F); }           \
    static void F##_set_u64_w(ff_elem *r, uint64_t v) { cz_##F##_set_u64(&r->F, v); }                \
    static void F##_random_w(ff_elem *r, cz_rng *g) { cz_##F##_random(&r->F, g); }                   \
    static bool F##_is_zero_w(const ff_elem *a) { return cz_##F##_is_zero(&a->F); }                  \
    static bool F##_equal_w(const ff_elem *a, const ff_elem *b) { return cz_##F##_equal(&a->F, &b->F); }

FF_WRAP(fp)
FF_WRAP(fr)

#define FF_SET_OPS(f, F)                                                                          \
    do {                                                                                          \
        (f)->add = F##_add_w, (f)->sub = F##_sub_w, (f)->mul = F##_mul_w, (f)->sqr = F##_sqr_w;   \
        (f)->neg = F##_neg_w, (f)->dbl = F##_dbl_w, (f)->inv = F##_inv_w, (f)->sqrt = F##_sqrt_w; \
        (f)->pow = F##_pow_w, (f)->legendre = F##_legendre_w, (f)->from_raw = F##_from_raw_w;     \
        (f)->to_raw = F##_to_raw_w, (f)->set_u64 = F##_set_u64_w, (f)->random = F##_random_w;     \
        (f)->is_zero = F##_is_zero_w, (f)->equal = F##_equal_w;                                   \
    } while (0)

/* The moduli as hex strings, typed independently of src/ff/constants.h (the standard BLS12-381
 * parameters; ff_moduli_ok() re-derives both from the curve seed x, so a mistyped string fails). */
#define FF_P_HEX \
    "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab"
#define FF_R_HEX "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001"

/* p = (x-1)^2 (x^4 - x^2 + 1)/3 + x and r = x^4 - x^2 + 1 with x = -0xd201000000010000; p, r prime. */
static bool ff_moduli_ok(void) {
    mpz_t x, r, p, t;
    mpz_inits(x, r, p, t, NULL);
    mpz_set_str(x, "-d201000000010000", 16);
    mpz_pow_ui(r, x, 4);
    mpz_pow_ui(t, x, 2);
    mpz_sub(r, r, t);
    mpz_add_ui(r, r, 1);
    mpz_sub_ui(t, x, 1);
    mpz_mul(p, t, t);
    mpz_mul(p, p, r);
    bool ok = mpz_divisible_ui_p(p, 3) != 0;
    mpz_divexact_ui(p, p, 3);
    mpz_add(p, p, x);
    mpz_set_str(t, FF_P_HEX, 16);
    ok = ok && mpz_cmp(p, t) == 0 && mpz_probab_prime_p(p, 30) > 0;
    mpz_set_str(t, FF_R_HEX, 16);
    ok = ok && mpz_cmp(r, t) == 0 && mpz_probab_prime_p(r, 30) > 0;
    mpz_clears(x, r, p, t, NULL);
    return ok;
}

static gmp_randstate_t ff_gmp_rand;
static cz_rng ff_rng;

static inline uint64_t ff_rnd(void) { return cz_rng_next(&ff_rng); }

static double ff_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void ff_limbs_to_mpz(mpz_t r, const uint64_t *l, int n) { mpz_import(r, (size_t)n, -1, 8, 0, 0, l); }

/* v must be below 2^(64n). */
static void ff_mpz_to_limbs(uint64_t *l, int n, const mpz_t v) {
    memset(l, 0, (size_t)n * 8);
    if (mpz_sizeinbase(v, 2) > (size_t)(64 * n)) abort();
    mpz_export(l, NULL, -1, 8, 0, 0, v);
}

/* Hex of an mpz for failure messages (rotating buffers: up to 4 per message). */
static const char *ff_hx(const mpz_t v) {
    static char buf[4][300];
    static int k;
    k = (k + 1) & 3;
    gmp_snprintf(buf[k], sizeof buf[k], "0x%Zx", v);
    return buf[k];
}

/* Loads a plain integer (< p) into Montgomery form using GMP only (not cz_*_from_raw). */
static void ff_load(const ff_field *f, ff_elem *e, const mpz_t plain) {
    mpz_t t;
    mpz_init(t);
    mpz_mul_2exp(t, plain, (mp_bitcnt_t)(64 * f->n));
    mpz_mod(t, t, f->p);
    memset(e, 0, sizeof *e);
    ff_mpz_to_limbs(e->l, f->n, t);
    mpz_clear(t);
}

/* The plain value of e according to GMP (limbs * R^-1 mod p). */
static void ff_plain(const ff_field *f, mpz_t out, const ff_elem *e) {
    ff_limbs_to_mpz(out, e->l, f->n);
    mpz_mul(out, out, f->Rinv);
    mpz_mod(out, out, f->p);
}

/* true iff e's limbs are exactly (expected mod p) * R mod p. */
static bool ff_check(const ff_field *f, const ff_elem *e, const mpz_t expected) {
    static mpz_t got, want;
    static int init;
    if (!init) {
        mpz_inits(got, want, NULL);
        init = 1;
    }
    ff_limbs_to_mpz(got, e->l, f->n);
    mpz_mod(want, expected, f->p);
    mpz_mul_2exp(want, want, (mp_bitcnt_t)(64 * f->n));
    mpz_mod(want, want, f->p);
    return mpz_cmp(got, want) == 0;
}

/* true iff the limbs hold a canonical (fully reduced) value. */
static bool ff_canonical(const ff_field *f, const ff_elem *e) {
    mpz_t t;
    mpz_init(t);
    ff_limbs_to_mpz(t, e->l, f->n);
    bool ok = mpz_cmp(t, f->p) < 0;
    mpz_clear(t);
    return ok;
}

static void ff_add_edge(ff_field *f, const mpz_t v) {
    if (f->n_edges >= FF_MAX_EDGES) abort();
    mpz_init(f->edges[f->n_edges]);
    mpz_mod(f->edges[f->n_edges], v, f->p);
    f->n_edges++;
}

static void ff_field_init(ff_field *f, const char *name, const char *hex, int n) {
    f->name = name;
    f->n_edges = 0;
    f->n = n;
    mpz_inits(f->p, f->R, f->Rinv, f->top, f->half, NULL);
    mpz_set_str(f->p, hex, 16);
    mpz_setbit(f->top, (mp_bitcnt_t)(64 * n));
    mpz_mod(f->R, f->top, f->p);
    if (!mpz_invert(f->Rinv, f->R, f->p)) abort();
    mpz_sub_ui(f->half, f->p, 1);
    mpz_fdiv_q_2exp(f->half, f->half, 1);

    mpz_t v, w;
    mpz_inits(v, w, NULL);
    for (unsigned long s = 0; s <= 4; s++) {
        mpz_set_ui(v, s);
        ff_add_edge(f, v); /* 0..4 */
        mpz_sub_ui(v, f->p, s + 1);
        ff_add_edge(f, v); /* p-1..p-5 */
    }
    mpz_set(v, f->half);
    ff_add_edge(f, v); /* (p-1)/2 */
    mpz_add_ui(v, v, 1);
    ff_add_edge(f, v); /* (p+1)/2 */
    mpz_add_ui(v, v, 1);
    ff_add_edge(f, v);
    const size_t bits = mpz_sizeinbase(f->p, 2);
    static const unsigned ks[] = {1,   31,  32,  33,  63,  64,  65,  127, 128, 129, 191, 192,
                                  193, 253, 254, 255, 256, 257, 319, 320, 321, 379, 380};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        if (ks[i] >= bits) continue;
        mpz_set_ui(v, 0);
        mpz_setbit(v, ks[i]);
        mpz_sub_ui(w, v, 1);
        ff_add_edge(f, w); /* 2^k - 1 */
        ff_add_edge(f, v); /* 2^k */
        mpz_add_ui(w, v, 1);
        ff_add_edge(f, w); /* 2^k + 1 */
        mpz_sub(w, f->p, v);
        ff_add_edge(f, w); /* p - 2^k */
    }
    /* Just below p with every limb under limb j all ones: floor(p / 2^64j) * 2^64j - 1. */
    for (int j = 1; j < n; j++) {
        mpz_fdiv_q_2exp(v, f->p, (mp_bitcnt_t)(64 * j));
        mpz_mul_2exp(v, v, (mp_bitcnt_t)(64 * j));
        mpz_sub_ui(v, v, 1);
        ff_add_edge(f, v);
    }
    /* Montgomery constants as plain values: R, R^2, R^-1, p - R, R +- 1. */
    ff_add_edge(f, f->R);
    mpz_mul(v, f->R, f->R);
    ff_add_edge(f, v);
    ff_add_edge(f, f->Rinv);
    mpz_sub(v, f->p, f->R);
    ff_add_edge(f, v);
    mpz_add_ui(v, f->R, 1);
    ff_add_edge(f, v);
    mpz_sub_ui(v, f->R, 1);
    ff_add_edge(f, v);
    /* 7 (Fr's multiplicative generator) and 7^odd-part (a high-order 2-power root of unity). */
    mpz_set_ui(v, 7);
    ff_add_edge(f, v);
    mpz_sub_ui(w, f->p, 1);
    mpz_fdiv_q_2exp(w, w, mpz_scan1(w, 0));
    mpz_powm(v, v, w, f->p);
    ff_add_edge(f, v);
    mpz_clears(v, w, NULL);
}

static void ff_field_clear(ff_field *f) {
    mpz_clears(f->p, f->R, f->Rinv, f->top, f->half, NULL);
    for (int i = 0; i < f->n_edges; i++) mpz_clear(f->edges[i]);
}

/* A limb pattern that stresses carries: zeros, ones, all-ones, top bit, the modulus' own limbs. */
static uint64_t ff_pattern_limb(const ff_field *f, int i) {
    uint64_t pl = mpz_getlimbn(f->p, i); /* mp_limb_t is 64-bit on the targets we build for */
    switch (ff_rnd() % 11) {
    case 0: return 0;
    case 1: return 1;
    case 2: return ~(uint64_t)0;
    case 3: return (uint64_t)1 << 63;
    case 4: return ~(uint64_t)0 >> 1;
    case 5: return ff_rnd() & 0xffffffffu;
    case 6: return ff_rnd() | ((uint64_t)1 << 63);
    case 7: return pl;
    case 8: return pl - 1;
    case 9: return pl + 1;
    default: return ff_rnd();
    }
}

/* A value < p: uniform most of the time, else an edge value, a limb pattern, a small value, p minus a
 * small value, or an edge value plus/minus a small offset. */
static void ff_gen(const ff_field *f, mpz_t out) {
    uint64_t l[6];
    switch (ff_rnd() % 16) {
    case 0:
    case 1: mpz_set(out, f->edges[ff_rnd() % (uint64_t)f->n_edges]); return;
    case 2:
        for (int i = 0; i < f->n; i++) l[i] = ff_pattern_limb(f, i);
        ff_limbs_to_mpz(out, l, f->n);
        mpz_mod(out, out, f->p);
        return;
    case 3: mpz_set_ui(out, ff_rnd() >> (ff_rnd() % 64)); return;
    case 4: mpz_sub_ui(out, f->p, 1 + (ff_rnd() >> (ff_rnd() % 63 + 1))); return;
    case 5:
        mpz_set(out, f->edges[ff_rnd() % (uint64_t)f->n_edges]);
        if (ff_rnd() & 1)
            mpz_add_ui(out, out, ff_rnd() & 0xffff);
        else
            mpz_sub_ui(out, out, ff_rnd() & 0xffff);
        mpz_mod(out, out, f->p);
        return;
    default: mpz_urandomm(out, ff_gmp_rand, f->p); return;
    }
}

/* A value in [p, 2^(64n)): what decoders must reject. */
static void ff_gen_out_of_range(const ff_field *f, mpz_t out) {
    mpz_t span;
    mpz_init(span);
    mpz_sub(span, f->top, f->p);
    switch (ff_rnd() % 6) {
    case 0: mpz_set(out, f->p); break;
    case 1: mpz_add_ui(out, f->p, 1 + (ff_rnd() & 0xff)); break;
    case 2: mpz_sub_ui(out, f->top, 1 + (ff_rnd() & 0xff)); break;
    case 3: {
        uint64_t l[6];
        do {
            for (int i = 0; i < f->n; i++) l[i] = ff_pattern_limb(f, i);
            ff_limbs_to_mpz(out, l, f->n);
        } while (mpz_cmp(out, f->p) < 0);
        break;
    }
    default:
        mpz_urandomm(out, ff_gmp_rand, span);
        mpz_add(out, out, f->p);
        break;
    }
    mpz_clear(span);
}

/* Seeds both generators from the per-run test seed (replay with CZ_TEST_SEED). */
static void ff_rand_init(void) {
    cz_test_rng(&ff_rng);
    gmp_randinit_default(ff_gmp_rand);
    gmp_randseed_ui(ff_gmp_rand, (unsigned long)cz_test_seed());
}

/* Case count: CZ_GMP_CASES, else 100000 (10000 under sanitizers, which only look for memory errors). */
static long ff_cases(void) {
    const char *env = getenv("CZ_GMP_CASES");
    if (env && *env) return atol(env);
#if defined(__SANITIZE_ADDRESS__)
    return 10000;
#else
    return 100000;
#endif
}

#endif
