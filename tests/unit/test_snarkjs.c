/* The snarkjs path without node: the zkey prover's proof against the whole proof recomputed at the
 * scalar level from the toxic waste (pi_a = (alpha + A(tau) + r delta) G1, ...; Lagrange basis by the
 * closed formula, no NTT, no MSM), our verifier on it, zkey and JSON round trips, damaged inputs.
 * snarkjs itself is the oracle in tests/interop/test_groth16_snarkjs.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cz_error.h"
#include "groth16/snarkjs.h"
#include "groth16/verify.h"
#include "groth16_testcircuit.h"
#include "testutil.h"

static void test_domain(void) {
    for (unsigned k = 1; k <= 20; k++) {
        cz_domain d;
        CHECK(cz_snarkjs_domain(&d, k) == 0);
        cz_fr x = d.omega, g2;
        for (unsigned i = 1; i < k; i++) cz_fr_sqr(&x, &x);
        cz_fr m1;
        cz_fr_neg(&m1, &CZ_FR_ONE_V);
        CHECK_MSG(cz_fr_equal(&x, &m1), "omega^(n/2) != -1 at 2^%u", k);
        cz_fr_sqr(&g2, &d.g);
        CHECK(cz_fr_equal(&g2, &d.omega));
        cz_fr t;
        cz_fr_mul(&t, &d.omega, &d.omega_inv);
        CHECK(cz_fr_equal(&t, &CZ_FR_ONE_V));
    }
    /* ffjavascript's roots are 5-based: the 2^32-th root must be a non-square's power, i.e. differ from
     * bellperson's (7-based) for the same size. */
    cz_domain a, b;
    CHECK(cz_snarkjs_domain(&a, 10) == 0 && cz_domain_init(&b, 10) == 0);
    CHECK(!cz_fr_equal(&a.omega, &b.omega));
}

/* L_i(tau) on the domain <omega> of size n, by the closed formula. */
static cz_fr lagrange(const cz_fr *tau, const cz_fr *omega, size_t n, size_t i) {
    cz_fr tn = CZ_FR_ONE_V, wi = CZ_FR_ONE_V, num, den, nn;
    for (size_t k = 0; k < n; k++) cz_fr_mul(&tn, &tn, tau);
    for (size_t k = 0; k < i; k++) cz_fr_mul(&wi, &wi, omega);
    cz_fr_sub(&num, &tn, &CZ_FR_ONE_V);
    cz_fr_mul(&num, &num, &wi);
    cz_fr_sub(&den, tau, &wi);
    cz_fr_set_u64(&nn, n);
    cz_fr_mul(&den, &den, &nn);
    cz_fr_inv(&den, &den);
    cz_fr_mul(&num, &num, &den);
    return num;
}

static void g1_of(cz_g1_affine *out, const cz_fr *k) {
    cz_g1_affine g;
    cz_g1_jac j, r;
    cz_g1_generator(&g);
    cz_g1_jac_from_affine(&j, &g);
    cz_g1_mul(&r, &j, k);
    cz_g1_to_affine(out, &r);
}
static void g2_of(cz_g2_affine *out, const cz_fr *k) {
    cz_g2_affine g;
    cz_g2_jac j, r;
    cz_g2_generator(&g);
    cz_g2_jac_from_affine(&j, &g);
    cz_g2_mul(&r, &j, k);
    cz_g2_to_affine(out, &r);
}

static void test_prove(cz_rng *rng, size_t pub, size_t nfree, size_t nc, const char *dir) {
    cz_test_circuit tc;
    CHECK(tc_build(&tc, pub, nfree, nc, cz_rng_next(rng), rng) == 0);
    const cz_r1cs *r1 = &tc.r1cs;
    const size_t nv = tc.ni + tc.na;
    cz_fr *w = malloc(nv * sizeof *w);
    memcpy(w, tc.inputs, tc.ni * sizeof *w);
    memcpy(w + tc.ni, tc.aux, tc.na * sizeof *w);
    cz_groth16_toxic t;
    cz_groth16_toxic_from_seed(&t, cz_rng_next(rng));
    cz_snarkjs_zkey z;
    CHECK(cz_snarkjs_setup(&z, r1, &t, 0) == 0);
    CHECK(z.n_vars == nv && z.n_public == pub && z.domain_size >= r1->num_rows && z.domain_size / 2 < r1->num_rows);
    cz_fr rr, ss;
    cz_fr_random(&rr, rng);
    cz_fr_random(&ss, rng);
    if (cz_rng_next(rng) % 4 == 0) rr = ss = CZ_FR_ZERO_V; /* the raw MSM sums */
    cz_groth16_proof p;
    CHECK(cz_snarkjs_prove(&p, &z, w, nv, &rr, &ss, 0) == 0);

    /* Scalar-level reference (interop.md §2). */
    cz_domain d;
    CHECK(cz_snarkjs_domain(&d, z.power) == 0);
    const size_t n = z.domain_size, rows = r1->num_rows;
    cz_fr *av = calloc(n, sizeof *av), *bv = calloc(n, sizeof *bv), *cv = calloc(n, sizeof *cv);
    cz_fr *zero_in = calloc(tc.ni, sizeof *zero_in);
    cz_fr *ap = calloc(n, sizeof *ap), *bp = calloc(n, sizeof *bp), *cp = calloc(n, sizeof *cp);
    cz_r1cs_eval(av, bv, cv, r1, tc.inputs, tc.aux, 1);
    cz_csr_mul_vec(ap, &r1->a, tc.ni, zero_in, tc.aux, 1);
    cz_csr_mul_vec(bp, &r1->b, tc.ni, zero_in, tc.aux, 1);
    cz_csr_mul_vec(cp, &r1->c, tc.ni, zero_in, tc.aux, 1);
    cz_fr A = CZ_FR_ZERO_V, B = CZ_FR_ZERO_V, C = CZ_FR_ZERO_V, Ap = CZ_FR_ZERO_V, Bp = CZ_FR_ZERO_V, Cp = CZ_FR_ZERO_V;
    for (size_t i = 0; i < rows; i++) {
        cz_fr l = lagrange(&t.tau, &d.omega, n, i), x;
        cz_fr *acc[6] = {&A, &B, &C, &Ap, &Bp, &Cp};
        const cz_fr *val[6] = {&av[i], &bv[i], &cv[i], &ap[i], &bp[i], &cp[i]};
        for (int k = 0; k < 6; k++) {
            cz_fr_mul(&x, &l, val[k]);
            cz_fr_add(acc[k], acc[k], &x);
        }
    }
    cz_fr ea, eb, ec, x, y, dinv;
    cz_fr_mul(&x, &rr, &t.delta);
    cz_fr_add(&ea, &t.alpha, &A);
    cz_fr_add(&ea, &ea, &x); /* a' */
    cz_fr_mul(&x, &ss, &t.delta);
    cz_fr_add(&eb, &t.beta, &B);
    cz_fr_add(&eb, &eb, &x); /* b' */
    cz_fr_mul(&ec, &t.beta, &Ap);
    cz_fr_mul(&x, &t.alpha, &Bp);
    cz_fr_add(&ec, &ec, &x);
    cz_fr_add(&ec, &ec, &Cp);
    cz_fr_mul(&x, &A, &B);
    cz_fr_add(&ec, &ec, &x);
    cz_fr_sub(&ec, &ec, &C);
    cz_fr_inv(&dinv, &t.delta);
    cz_fr_mul(&ec, &ec, &dinv);
    cz_fr_mul(&x, &ss, &ea);
    cz_fr_add(&ec, &ec, &x);
    cz_fr_mul(&x, &rr, &eb);
    cz_fr_add(&ec, &ec, &x);
    cz_fr_mul(&y, &rr, &ss);
    cz_fr_mul(&y, &y, &t.delta);
    cz_fr_sub(&ec, &ec, &y);
    cz_groth16_proof want;
    g1_of(&want.a, &ea);
    g2_of(&want.b, &eb);
    g1_of(&want.c, &ec);
    CHECK_MSG(!memcmp(&want.a, &p.a, sizeof p.a), "pi_a differs from the scalar reference (pub %zu, nc %zu)", pub, nc);
    CHECK_MSG(!memcmp(&want.b, &p.b, sizeof p.b), "pi_b differs from the scalar reference");
    CHECK_MSG(!memcmp(&want.c, &p.c, sizeof p.c), "pi_c differs from the scalar reference");

    /* Our verifier with the zkey's vk; one changed input fails. */
    cz_groth16_vk vk;
    cz_groth16_pvk pvk;
    CHECK(cz_snarkjs_zkey_vk(&vk, &z) == 0 && cz_groth16_pvk_init(&pvk, &vk) == 0);
    CHECK(cz_groth16_verify(&pvk, &p, tc.inputs + 1, pub) == 0);
    if (pub) {
        cz_fr *bad = malloc(pub * sizeof *bad);
        memcpy(bad, tc.inputs + 1, pub * sizeof *bad);
        size_t i = cz_rng_next(rng) % pub;
        cz_fr_add(&bad[i], &bad[i], &CZ_FR_ONE_V);
        CHECK(cz_groth16_verify(&pvk, &p, bad, pub) == CZ_EVERIFY);
        free(bad);
    }
    cz_groth16_proof q;
    CHECK(cz_snarkjs_prove(&q, &z, w, nv, NULL, NULL, 0) == 0); /* OS randomness */
    CHECK(cz_groth16_verify(&pvk, &q, tc.inputs + 1, pub) == 0);
    CHECK(memcmp(&q.a, &p.a, sizeof q.a) != 0);

    /* zkey round trip, then damage. */
    char path[512], jp[512], jv[512], jpub[512];
    snprintf(path, sizeof path, "%s/k.zkey", dir);
    snprintf(jp, sizeof jp, "%s/proof.json", dir);
    snprintf(jv, sizeof jv, "%s/vk.json", dir);
    snprintf(jpub, sizeof jpub, "%s/public.json", dir);
    CHECK(cz_snarkjs_zkey_write(path, &z) == 0);
    cz_snarkjs_zkey z2;
    CHECK(cz_snarkjs_zkey_read(&z2, path, CZ_ZKEY_CHECK_SUBGROUP) == 0);
    CHECK(z2.n_vars == z.n_vars && z2.n_public == z.n_public && z2.domain_size == z.domain_size && z2.n_coef == z.n_coef);
    CHECK(!memcmp(z2.a, z.a, nv * sizeof *z.a) && !memcmp(z2.b2, z.b2, nv * sizeof *z.b2) &&
          !memcmp(z2.h, z.h, n * sizeof *z.h) &&
          !memcmp(z2.ic, z.ic, (pub + 1) * sizeof *z.ic) && !memcmp(&z2.delta2, &z.delta2, sizeof z.delta2));
    for (size_t i = 0; i < z.n_coef; i++) /* field by field: the struct has padding */
        CHECK(z2.coef[i].matrix == z.coef[i].matrix && z2.coef[i].row == z.coef[i].row &&
              z2.coef[i].signal == z.coef[i].signal && cz_fr_equal(&z2.coef[i].value, &z.coef[i].value));
    cz_snarkjs_zkey_free(&z2);
    size_t len = 0;
    uint8_t *buf = (uint8_t *)cz_test_read_file(path, &len);
    CHECK(buf != NULL);
    CHECK(cz_snarkjs_zkey_parse(&z2, buf, len - 1, "cut", 0) == CZ_EFORMAT);
    CHECK(strstr(cz_error_message(), "cut") != NULL);
    const size_t sec5 = 12 + 16 + 976 + 12 + (pub + 1) * 96 + 12 + 4 + z.n_coef * 44 + 12; /* A bases */
    size_t at = sec5 + 96 * (cz_rng_next(rng) % nv);
    int zero = 1;
    for (size_t i = 0; i < 96; i++) zero &= buf[at + i] == 0;
    buf[at + 7] ^= 0x10; /* a point's x: off the curve (or infinity no longer all zeros) */
    int rc = cz_snarkjs_zkey_parse(&z2, buf, len, "flip", 0);
    CHECK_MSG(rc == CZ_ECURVE, "flipped A point (was infinity: %d): %s", zero, cz_error_message());
    CHECK(strstr(cz_error_message(), "section 5") != NULL);
    free(buf);

    /* JSON round trips. */
    CHECK(cz_snarkjs_proof_write_json(jp, &p) == 0 && cz_snarkjs_vk_write_json(jv, &vk) == 0 &&
          cz_snarkjs_public_write_json(jpub, tc.inputs + 1, pub) == 0);
    cz_groth16_proof p2;
    cz_groth16_vk vk2;
    cz_fr *pub2;
    size_t npub2;
    if (rr.l[0] | rr.l[1] | ss.l[0]) { /* r = s = 0 can leave a point at infinity, which proof.json refuses */
        CHECK(cz_snarkjs_proof_read_json(&p2, jp) == 0);
        CHECK(!memcmp(&p2, &p, sizeof p));
    }
    CHECK(cz_snarkjs_vk_read_json(&vk2, jv) == 0);
    CHECK(vk2.ic_len == vk.ic_len && !memcmp(vk2.ic, vk.ic, vk.ic_len * sizeof *vk.ic) &&
          !memcmp(&vk2.alpha_g1, &vk.alpha_g1, sizeof vk.alpha_g1) && !memcmp(&vk2.delta_g2, &vk.delta_g2, sizeof vk.delta_g2) &&
          !memcmp(&vk2.gamma_g2, &vk.gamma_g2, sizeof vk.gamma_g2) && !memcmp(&vk2.beta_g2, &vk.beta_g2, sizeof vk.beta_g2));
    CHECK(cz_snarkjs_public_read_json(&pub2, &npub2, jpub) == 0);
    CHECK(npub2 == pub && (!pub || !memcmp(pub2, tc.inputs + 1, pub * sizeof *pub2)));
    free(pub2);
    cz_groth16_vk_free(&vk2);
    cz_groth16_pvk_free(&pvk);
    cz_groth16_vk_free(&vk);
    cz_snarkjs_zkey_free(&z);
    free(av), free(bv), free(cv), free(ap), free(bp), free(cp), free(zero_in), free(w);
    tc_free(&tc);
}

static void write_text(const char *path, const char *s) {
    FILE *f = fopen(path, "w");
    fputs(s, f);
    fclose(f);
}

static void test_json_errors(const char *dir) {
    char p[512];
    snprintf(p, sizeof p, "%s/bad.json", dir);
    cz_groth16_proof pr;
    cz_fr *pub;
    size_t n;
    static const char *q = "4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129015664037894272559787";
    char big[1024];
    snprintf(big, sizeof big, "{\"pi_a\": [\"%s\", \"2\", \"1\"], \"pi_b\": [], \"pi_c\": []}", q);
    write_text(p, big);
    CHECK(cz_snarkjs_proof_read_json(&pr, p) == CZ_ERANGE);
    write_text(p, "{\"pi_a\": [\"1\", \"2\", \"1\"], \"pi_b\": [], \"pi_c\": []}"); /* (1, 2) is not on y^2 = x^3 + 4 */
    CHECK(cz_snarkjs_proof_read_json(&pr, p) == CZ_ECURVE);
    write_text(p, "{\"pi_a\": [\"1\", \"2\", \"1\"], ");
    CHECK(cz_snarkjs_proof_read_json(&pr, p) == CZ_EFORMAT);
    CHECK(strstr(cz_error_message(), "bad.json") && strstr(cz_error_message(), "byte 2"));
    write_text(p, "[\"52435875175126190479447740508185965837690552500527637822603658699938581184513\"]"); /* r */
    CHECK(cz_snarkjs_public_read_json(&pub, &n, p) == CZ_ERANGE);
    write_text(p, "[\"0\", \"52435875175126190479447740508185965837690552500527637822603658699938581184512\"]");
    CHECK(cz_snarkjs_public_read_json(&pub, &n, p) == 0 && n == 2);
    cz_fr m1;
    cz_fr_neg(&m1, &CZ_FR_ONE_V);
    CHECK(cz_fr_is_zero(&pub[0]) && cz_fr_equal(&pub[1], &m1));
    free(pub);
    write_text(p, "[1]");
    CHECK(cz_snarkjs_public_read_json(&pub, &n, p) == CZ_ERANGE);
    unlink(p);
}

int main(void) {
    cz_rng rng;
    cz_test_rng(&rng);
    char dir[] = "/tmp/cz_snarkjs_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    test_domain();
    test_prove(&rng, 0, 1, 3, dir);
    test_prove(&rng, 1, 3, 20, dir);
    test_prove(&rng, 3, 8, 100, dir);
    test_prove(&rng, 5, 12, 250, dir);
    test_json_errors(dir);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) fprintf(stderr, "could not remove %s\n", dir);
    return cz_test_finish();
}
