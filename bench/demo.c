/* cz_bench_demo: a short tour of what cuzk computes, with timings; run by scripts/demo.sh.
 * Every section checks its results against an independent fact (field laws, the order of the G1
 * generator, linearity of scalar multiplication) and the program exits 0 only if all checks pass.
 * Sections: the fields Fr/Fp/Fp2, the G1 group law, the pairing, MSM and batch addition, and a Groth16
 * proof on the CPU backend. */
#include <omp.h>

#include "bench_util.h"
#include "cz_error.h"
#include "ec/msm.h"
#include "ec/pairing.h"
#include "groth16/prover.h"
#include "groth16/setup.h"
#include "groth16/verify.h"
#include "r1cs/cs.h"

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

static bool g1_on_curve_affine(const cz_g1_affine *g) {
    static const cz_fp b4 = {CZ_FP_B_MONT};
    cz_fp lhs, rhs;
    cz_fp_sqr(&lhs, &g->y);
    cz_fp_sqr(&rhs, &g->x);
    cz_fp_mul(&rhs, &rhs, &g->x);
    cz_fp_add(&rhs, &rhs, &b4);
    return cz_fp_equal(&lhs, &rhs);
}

static void demo_g1(cz_rng *rng) {
    printf("G1 (y^2 = x^3 + 4 over Fp)\n");
    cz_g1_affine g;
    cz_g1_generator(&g);
    check(g1_on_curve_affine(&g), "generator G is on the curve (checked with the field ops alone)");
    uint8_t enc[48];
    cz_g1_to_compressed(enc, &g);
    check(enc[0] == 0x97 && enc[1] == 0xf1 && enc[2] == 0xd3, "G compresses to the ZCash bytes 97f1d3...");

    static const uint64_t r_limbs[4] = CZ_FR_MODULUS;
    uint64_t rm1[4];
    memcpy(rm1, r_limbs, sizeof rm1);
    rm1[0] -= 1; /* r is odd: no borrow */
    cz_g1_jac t, u, gj, ng;
    cz_g1_jac_from_affine(&gj, &g);
    double t0 = cz_bench_now();
    cz_g1_mul_raw(&t, &gj, r_limbs, 255);
    double mul_us = (cz_bench_now() - t0) * 1e6;
    check(cz_g1_jac_is_infinity(&t), "r*G = infinity (G has prime order r)");
    cz_g1_mul_raw(&t, &gj, rm1, 255);
    cz_g1_jac_neg(&ng, &gj);
    check(cz_g1_jac_equal(&t, &ng), "(r-1)*G = -G");

    /* Linearity: a*G + b*G = (a+b)*G, through jacobian add, mixed add and xyzz add. */
    cz_fr a, b, s;
    cz_fr_random(&a, rng), cz_fr_random(&b, rng);
    cz_fr_add(&s, &a, &b);
    cz_g1_jac pa, pb, ps, sum;
    cz_g1_mul(&pa, &gj, &a);
    cz_g1_mul(&pb, &gj, &b);
    cz_g1_mul(&ps, &gj, &s);
    cz_g1_jac_add(&sum, &pa, &pb);
    check(cz_g1_jac_equal(&sum, &ps), "a*G + b*G = (a+b)*G (jacobian add)");
    cz_g1_affine pa_aff, pb_aff;
    cz_g1_to_affine(&pa_aff, &pa);
    cz_g1_to_affine(&pb_aff, &pb);
    cz_g1_jac_add_affine(&u, &pa, &pb_aff);
    check(cz_g1_jac_equal(&u, &ps), "a*G + b*G = (a+b)*G (mixed add)");
    cz_g1_xyzz xa, xs;
    cz_g1_xyzz_set_infinity(&xa);
    cz_g1_xyzz_add_affine(&xa, &xa, &pa_aff);
    cz_g1_xyzz_add_affine(&xs, &xa, &pb_aff);
    cz_g1_jac_from_xyzz(&u, &xs);
    check(cz_g1_jac_equal(&u, &ps), "a*G + b*G = (a+b)*G (xyzz bucket add)");
    cz_g1_jac_add(&u, &gj, &ng);
    check(cz_g1_jac_is_infinity(&u), "G + (-G) = infinity");
    check(cz_g1_affine_is_in_subgroup(&pa_aff), "a*G passes the endomorphism subgroup check");

    const long n = 100000;
    cz_g1_jac acc = gj;
    t0 = cz_bench_now();
    for (long i = 0; i < n; i++) cz_g1_jac_add_affine(&acc, &acc, &pb_aff);
    printf("  G1 mixed add: %.1f ns\n", per_op_ns(t0, n));
    printf("  G1 scalar mult (255-bit, w-NAF): %.1f us\n", mul_us);
    if (acc.x.l[0] == 42) printf("  (unlikely)\n");
}

static void demo_pairing(cz_rng *rng) {
    printf("Pairing (optimal ate, e: G1 x G2 -> GT)\n");
    cz_g1_affine g1, p, abp;
    cz_g2_affine g2, q, bq;
    cz_g1_generator(&g1);
    cz_g2_generator(&g2);
    cz_fr a, b, ab;
    cz_fr_random(&a, rng), cz_fr_random(&b, rng);
    cz_fr_mul(&ab, &a, &b);
    cz_g1_jac j1;
    cz_g2_jac j2;
    cz_g1_jac_from_affine(&j1, &g1);
    cz_g2_jac_from_affine(&j2, &g2);
    cz_g1_jac t1;
    cz_g2_jac t2;
    cz_g1_mul(&t1, &j1, &a), cz_g1_to_affine(&p, &t1);
    cz_g1_mul(&t1, &j1, &ab), cz_g1_to_affine(&abp, &t1);
    cz_g2_mul(&t2, &j2, &b), cz_g2_to_affine(&bq, &t2);
    q = g2;
    cz_fp12 e1, e2;
    double t0 = cz_bench_now();
    cz_pairing(&e1, &p, &bq);
    double pair_us = (cz_bench_now() - t0) * 1e6;
    cz_pairing(&e2, &abp, &q);
    check(cz_fp12_equal(&e1, &e2), "e(aG1, bG2) = e(abG1, G2) (bilinearity)");
    /* e(aG1, bG2) * e(-abG1, G2) = 1 as one multi-pairing: the shape of a Groth16 check */
    cz_g1_affine ps[2] = {p, abp};
    cz_g2_affine qs[2] = {bq, q};
    cz_g1_affine_neg(&ps[1], &ps[1]);
    t0 = cz_bench_now();
    bool one = cz_pairing_product_is_one(ps, qs, 2);
    double prod_us = (cz_bench_now() - t0) * 1e6;
    check(one, "e(aG1, bG2) * e(-abG1, G2) = 1 (multi-pairing, one final exponentiation)");
    ps[1] = abp;
    check(!cz_pairing_product_is_one(ps, qs, 2), "... and != 1 without the negation");
    printf("  one pairing: %.0f us, 2-pair product check: %.0f us\n", pair_us, prod_us);
}

static void demo_msm(cz_rng *rng) {
    const size_t n = (size_t)1 << 14;
    printf("MSM (Pippenger, signed windows, %d threads) and 0/1 batch addition, G1, n = %zu\n",
           omp_get_max_threads(), n);
    cz_g1_affine *bases = malloc(n * sizeof *bases);
    cz_fr *k = malloc(n * sizeof *k);
    uint64_t *bits = calloc((n + 63) / 64, sizeof *bits);
    cz_g1_jac *tmp = malloc(n * sizeof *tmp);
    if (!bases || !k || !bits || !tmp) {
        check(false, "allocate the MSM inputs");
        free(bases), free(k), free(bits), free(tmp);
        return;
    }
    /* bases_i = (i+1)*G by repeated addition, so sum k_i bases_i = (sum k_i (i+1)) * G: an independent
     * answer computed in Fr. */
    cz_g1_affine g;
    cz_g1_generator(&g);
    cz_g1_jac acc;
    cz_g1_jac_set_infinity(&acc);
    for (size_t i = 0; i < n; i++) {
        cz_g1_jac_add_affine(&acc, &acc, &g);
        tmp[i] = acc;
    }
    cz_g1_batch_to_affine(bases, tmp, n);
    cz_fr want = CZ_FR_ZERO_V, ones = CZ_FR_ZERO_V;
    for (size_t i = 0; i < n; i++) {
        cz_fr_random(&k[i], rng);
        cz_fr idx, t;
        cz_fr_set_u64(&idx, i + 1);
        cz_fr_mul(&t, &k[i], &idx);
        cz_fr_add(&want, &want, &t);
        if (cz_rng_next(rng) & 1) {
            bits[i / 64] |= 1ULL << (i % 64);
            cz_fr_add(&ones, &ones, &idx);
        }
    }
    cz_g1_jac got, expect, gj;
    cz_g1_jac_from_affine(&gj, &g);
    double t0 = cz_bench_now();
    cz_g1_msm(&got, bases, k, n, 0);
    double msm_ms = (cz_bench_now() - t0) * 1e3;
    cz_g1_mul(&expect, &gj, &want);
    check(cz_g1_jac_equal(&got, &expect), "sum k_i (i+1)G = (sum k_i (i+1)) G for random k_i");
    t0 = cz_bench_now();
    cz_g1_batch_add(&got, bases, bits, n, 0);
    double ba_ms = (cz_bench_now() - t0) * 1e3;
    cz_g1_mul(&expect, &gj, &ones);
    check(cz_g1_jac_equal(&got, &expect), "batch addition of a random half of the bases");
    printf("  MSM: %.1f ms, batch add: %.2f ms\n", msm_ms, ba_ms);
    free(bases), free(k), free(bits), free(tmp);
}

/* A small Groth16 round trip on the CPU backend: x^(2^m) = y with public x, y (m squarings). */
static void demo_groth16(void) {
    const unsigned m = 1000;
    printf("Groth16 (CPU backend): prove x^(2^%u) = y, x and y public\n", m);
    cz_cs *cs = NULL;
    cz_r1cs r1cs;
    cz_fr *inputs = NULL, *aux = NULL;
    uint64_t ni = 0, na = 0;
    cz_groth16_params params;
    cz_groth16_pvk pvk;
    memset(&r1cs, 0, sizeof r1cs);
    memset(&params, 0, sizeof params);
    bool have_params = false, have_pvk = false;
    int rc = cz_cs_new(&cs, CZ_CS_RECORD | CZ_CS_WITNESS);
    if (!rc) {
        cz_fr x, v;
        cz_fr_set_u64(&x, 3);
        v = x;
        for (unsigned i = 0; i < m; i++) cz_fr_sqr(&v, &v);
        cz_var vx = cz_cs_alloc_input(cs, &x), vy = cz_cs_alloc_input(cs, &v), cur = vx;
        cz_fr val = x;
        for (unsigned i = 0; i < m; i++) {
            cz_fr nv;
            cz_fr_sqr(&nv, &val);
            cz_var next = cz_cs_alloc(cs, &nv);
            cz_lc a = CZ_LC_ZERO, c = CZ_LC_ZERO;
            cz_lc_add(cs, &a, cur, NULL);
            cz_lc_add(cs, &c, next, NULL);
            cz_cs_enforce(cs, &a, &a, &c);
            cz_lc_free(cs, &a), cz_lc_free(cs, &c);
            cur = next, val = nv;
        }
        cz_lc l = CZ_LC_ZERO, one = CZ_LC_ZERO, rr = CZ_LC_ZERO;
        cz_lc_add(cs, &l, cur, NULL);
        cz_lc_add(cs, &one, CZ_CS_ONE, NULL);
        cz_lc_add(cs, &rr, vy, NULL);
        cz_cs_enforce(cs, &l, &one, &rr);
        cz_lc_free(cs, &l), cz_lc_free(cs, &one), cz_lc_free(cs, &rr);
        rc = cz_cs_finalize(cs);
    }
    if (!rc) rc = cz_cs_take_r1cs(cs, &r1cs);
    if (!rc) rc = cz_cs_take_witness(cs, &inputs, &ni, &aux, &na);
    cz_cs_free(cs);
    cz_groth16_toxic toxic;
    cz_groth16_toxic_from_seed(&toxic, 42);
    double t0 = cz_bench_now();
    if (!rc) rc = cz_groth16_setup(&params, &r1cs, &toxic, 0);
    have_params = rc == 0;
    double setup_ms = (cz_bench_now() - t0) * 1e3;
    if (!rc) rc = cz_groth16_pvk_init(&pvk, &params.vk);
    have_pvk = rc == 0;
    cz_groth16_pending pending;
    cz_groth16_proof proof;
    t0 = cz_bench_now();
    if (!rc) rc = cz_groth16_prove_start(&pending, &params, &r1cs, inputs, aux, 0);
    if (!rc) rc = cz_groth16_prove_finish(&proof, &pending, &params.vk, NULL, NULL);
    double prove_ms = (cz_bench_now() - t0) * 1e3;
    check(rc == 0, rc ? cz_error_message() : "setup from seeded toxic waste and a proof with r, s from the OS");
    if (!rc) {
        uint8_t bytes[CZ_GROTH16_PROOF_BYTES];
        cz_groth16_proof_encode(bytes, &proof);
        t0 = cz_bench_now();
        int v = cz_groth16_verify_bytes(&pvk, bytes, inputs + 1, ni - 1);
        double verify_ms = (cz_bench_now() - t0) * 1e3;
        check(v == 0, "the 192-byte proof verifies");
        bytes[100] ^= 1;
        check(cz_groth16_verify_bytes(&pvk, bytes, inputs + 1, ni - 1) != 0, "one flipped proof bit is rejected");
        bytes[100] ^= 1;
        cz_fr_add(&inputs[2], &inputs[2], &CZ_FR_ONE_V);
        check(cz_groth16_verify_bytes(&pvk, bytes, inputs + 1, ni - 1) != 0, "a wrong public input is rejected");
        printf("  %llu constraints: setup %.0f ms, prove %.0f ms, verify %.1f ms\n",
               (unsigned long long)r1cs.num_constraints, setup_ms, prove_ms, verify_ms);
    }
    if (have_pvk) cz_groth16_pvk_free(&pvk);
    if (have_params) cz_groth16_params_free(&params);
    cz_r1cs_free(&r1cs);
    free(inputs), free(aux);
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
    printf("\n");
    demo_pairing(&rng);
    printf("\n");
    demo_msm(&rng);
    printf("\n");
    demo_groth16();
    printf("\ndemo: %d checks passed, %d failed\n", checks_passed, checks_failed);
    return checks_failed ? 1 : 0;
}
