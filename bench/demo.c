/* cz_bench_demo: a short tour of what cuzk computes, with timings; run by scripts/demo.sh.
 * Every section checks its results against an independent fact (field laws, the order of the G1
 * generator, linearity of scalar multiplication) and the program exits 0 only if all checks pass.
 * Sections so far: the fields Fr/Fp/Fp2 and the G1 group law; pairing and MSM sections are added
 * as those layers land. */
#include "bench_util.h"

static int checks_passed, checks_failed;

static void check(bool ok, const char *what) {
    printf("  [%s] %s\n", ok ? " ok " : "FAIL", what);
    if (ok)
        checks_passed++;
    else
        checks_failed++;
}

static double per_op_ns(double t0, long n) { return (cz_bench_now() - t0) * 1e9 / (double)n; }

static void demo_fields(cz_rng *rng) {
    printf("Fields (Fr: 255-bit scalars, Fp: 381-bit base field, Fp2 = Fp[u]/(u^2+1))\n");
    bool dist = true, inv = true, sq = true, inv2 = true;
    for (int i = 0; i < 1000; i++) {
        cz_fr a, b, c, l, r, t;
        cz_fr_random(&a, rng), cz_fr_random(&b, rng), cz_fr_random(&c, rng);
        cz_fr_add(&l, &a, &b);
        cz_fr_mul(&l, &l, &c); /* (a+b)c */
        cz_fr_mul(&r, &a, &c);
        cz_fr_mul(&t, &b, &c);
        cz_fr_add(&r, &r, &t); /* ac+bc */
        dist = dist && cz_fr_equal(&l, &r);
        cz_fr_inv(&t, &a);
        cz_fr_mul(&t, &t, &a);
        inv = inv && cz_fr_equal(&t, &CZ_FR_ONE_V);
        cz_fp x, y, z;
        cz_fp_random(&x, rng);
        cz_fp_sqr(&y, &x);
        sq = sq && cz_fp_sqrt(&z, &y) == 0 &&
             (cz_fp_equal(&z, &x) || (cz_fp_neg(&z, &z), cz_fp_equal(&z, &x)));
        cz_fp2 p, q;
        cz_fp2_random(&p, rng);
        cz_fp2_inv(&q, &p);
        cz_fp2_mul(&q, &q, &p);
        inv2 = inv2 && cz_fp2_equal(&q, &CZ_FP2_ONE_V);
    }
    check(dist, "Fr: (a+b)c = ac+bc on 1000 random triples");
    check(inv, "Fr: a * a^-1 = 1");
    check(sq, "Fp: sqrt(x^2) = +-x");
    check(inv2, "Fp2: a * a^-1 = 1");
    cz_fr w, m1;
    cz_fr_root_of_unity(&w, 32);
    for (int i = 0; i < 31; i++) cz_fr_sqr(&w, &w);
    cz_fr_neg(&m1, &CZ_FR_ONE_V);
    check(cz_fr_equal(&w, &m1), "Fr: the 2^32-th root of unity w has w^(2^31) = -1 (NTT domains up to 2^32)");

    cz_fr a, b;
    cz_fr_random(&a, rng), cz_fr_random(&b, rng);
    cz_fp x, y;
    cz_fp_random(&x, rng), cz_fp_random(&y, rng);
    const long n = 1000000;
    double t0 = cz_bench_now();
    for (long i = 0; i < n; i++) cz_fr_mul(&a, &a, &b);
    printf("  Fr mul: %.1f ns\n", per_op_ns(t0, n));
    t0 = cz_bench_now();
    for (long i = 0; i < n; i++) cz_fp_mul(&x, &x, &y);
    printf("  Fp mul: %.1f ns\n", per_op_ns(t0, n));
    t0 = cz_bench_now();
    for (long i = 0; i < 1000; i++) cz_fp_inv(&x, &x);
    printf("  Fp inv: %.1f us\n", per_op_ns(t0, 1000) / 1e3);
    if (a.l[0] == 42 && x.l[0] == 42) printf("  (unlikely)\n"); /* keeps the chains alive */
}

/* The standard G1 generator (ZCash / IETF BLS12-381); checked below, not trusted. */
static const char *G1_X =
    "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb";
static const char *G1_Y =
    "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1";

static int fp_from_hex(cz_fp *r, const char *hex) {
    uint8_t b[48];
    for (int i = 0; i < 48; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1) return -1;
        b[i] = (uint8_t)v;
    }
    return cz_fp_from_bytes_be(r, b);
}

/* k*p, double-and-add from the top bit with mixed additions (variable time; demo only). */
static void demo_g1_mul(cz_g1_jac *r, const cz_g1_affine *p, const uint64_t *k, int nlimbs) {
    cz_g1_jac_set_infinity(r);
    for (int i = 64 * nlimbs - 1; i >= 0; i--) {
        cz_g1_jac_double(r, r);
        if ((k[i / 64] >> (i % 64)) & 1) cz_g1_jac_add_affine(r, r, p);
    }
}

static bool demo_g1_equal(const cz_g1_jac *a, const cz_g1_jac *b) {
    bool ia = cz_g1_jac_is_infinity(a), ib = cz_g1_jac_is_infinity(b);
    if (ia || ib) return ia && ib;
    cz_fp za, zb, l, r;
    cz_fp_sqr(&za, &a->z);
    cz_fp_sqr(&zb, &b->z);
    cz_fp_mul(&l, &a->x, &zb);
    cz_fp_mul(&r, &b->x, &za);
    if (!cz_fp_equal(&l, &r)) return false;
    cz_fp_mul(&za, &za, &a->z);
    cz_fp_mul(&zb, &zb, &b->z);
    cz_fp_mul(&l, &a->y, &zb);
    cz_fp_mul(&r, &b->y, &za);
    return cz_fp_equal(&l, &r);
}

static void demo_g1(cz_rng *rng) {
    printf("G1 (y^2 = x^3 + 4 over Fp)\n");
    cz_g1_affine g;
    bool decoded = fp_from_hex(&g.x, G1_X) == 0 && fp_from_hex(&g.y, G1_Y) == 0;
    check(decoded, "generator coordinates decode as field elements");
    static const cz_fp b4 = {CZ_FP_B_MONT};
    cz_fp lhs, rhs;
    cz_fp_sqr(&lhs, &g.y);
    cz_fp_sqr(&rhs, &g.x);
    cz_fp_mul(&rhs, &rhs, &g.x);
    cz_fp_add(&rhs, &rhs, &b4);
    check(cz_fp_equal(&lhs, &rhs), "generator G is on the curve");

    static const uint64_t r_limbs[4] = CZ_FR_MODULUS;
    uint64_t rm1[4];
    memcpy(rm1, r_limbs, sizeof rm1);
    rm1[0] -= 1; /* r is odd: no borrow */
    cz_g1_jac t, u, gj, ng;
    double t0 = cz_bench_now();
    demo_g1_mul(&t, &g, r_limbs, 4);
    double mul_us = (cz_bench_now() - t0) * 1e6;
    check(cz_g1_jac_is_infinity(&t), "r*G = infinity (G has prime order r)");
    demo_g1_mul(&t, &g, rm1, 4);
    cz_g1_jac_from_affine(&gj, &g);
    cz_g1_jac_neg(&ng, &gj);
    check(demo_g1_equal(&t, &ng), "(r-1)*G = -G");

    /* Linearity: a*G + b*G = (a+b)*G, through jacobian add, mixed add and xyzz add. */
    cz_fr a, b, s;
    cz_fr_random(&a, rng), cz_fr_random(&b, rng);
    cz_fr_add(&s, &a, &b);
    uint64_t ka[4], kb[4], ks[4];
    cz_fr_to_raw(ka, &a), cz_fr_to_raw(kb, &b), cz_fr_to_raw(ks, &s);
    cz_g1_jac pa, pb, ps, sum;
    demo_g1_mul(&pa, &g, ka, 4);
    demo_g1_mul(&pb, &g, kb, 4);
    demo_g1_mul(&ps, &g, ks, 4);
    cz_g1_jac_add(&sum, &pa, &pb);
    check(demo_g1_equal(&sum, &ps), "a*G + b*G = (a+b)*G (jacobian add)");
    cz_g1_affine pb_aff;
    cz_bench_g1_affine(&pb_aff, &pb);
    cz_g1_jac_add_affine(&u, &pa, &pb_aff);
    check(demo_g1_equal(&u, &ps), "a*G + b*G = (a+b)*G (mixed add)");
    cz_g1_xyzz xa, xs;
    cz_g1_xyzz_set_infinity(&xa);
    cz_g1_affine pa_aff;
    cz_bench_g1_affine(&pa_aff, &pa);
    cz_g1_xyzz_add_affine(&xa, &xa, &pa_aff);
    cz_g1_xyzz_add_affine(&xs, &xa, &pb_aff);
    cz_g1_jac_from_xyzz(&u, &xs);
    check(demo_g1_equal(&u, &ps), "a*G + b*G = (a+b)*G (xyzz bucket add)");
    cz_g1_jac_add(&u, &gj, &gj);
    cz_g1_jac_double(&t, &gj);
    check(demo_g1_equal(&u, &t), "G + G = 2G (add falls back to doubling)");
    cz_g1_jac_add(&u, &gj, &ng);
    check(cz_g1_jac_is_infinity(&u), "G + (-G) = infinity");

    const long n = 100000;
    cz_g1_jac acc = gj;
    t0 = cz_bench_now();
    for (long i = 0; i < n; i++) cz_g1_jac_add_affine(&acc, &acc, &pb_aff);
    printf("  G1 mixed add: %.1f ns\n", per_op_ns(t0, n));
    t0 = cz_bench_now();
    for (long i = 0; i < n; i++) cz_g1_jac_add(&acc, &acc, &pa);
    printf("  G1 jacobian add: %.1f ns\n", per_op_ns(t0, n));
    printf("  G1 scalar mult (255-bit, double-and-add): %.1f us\n", mul_us);
    if (acc.x.l[0] == 42) printf("  (unlikely)\n");
}

int main(void) {
    cz_rng rng;
    if (cz_rng_seed_os(&rng)) cz_rng_seed(&rng, (uint64_t)time(NULL));
    char cpu[256];
    cz_bench_cpu_name(cpu, sizeof cpu);
    printf("cuzk demo on %s\n\n", cpu);
    demo_fields(&rng);
    printf("\n");
    demo_g1(&rng);
    printf("\ndemo: %d checks passed, %d failed\n", checks_passed, checks_failed);
    return checks_failed ? 1 : 0;
}
