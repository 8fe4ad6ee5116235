/* Setup + CPU prover + verifier on random circuits from the r1cs builder.
 * Oracle independent of the NTT, the MSM, the setup's iNTT and the pairing: with the toxic waste, r and
 * s known, the proof's A, B, C must be the generator times scalars computed naively from the CSR rows
 * and Lagrange coefficients L_j(tau) = w^j (tau^n - 1) / (n (tau - w^j)). Then: proofs verify, any
 * flipped public input or proof bit fails, batches accept good sets and reject one bad proof. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cz_error.h"
#include "groth16/prover.h"
#include "groth16/setup.h"
#include "groth16/verify.h"
#include "groth16_testcircuit.h"
#include "poly/ntt.h"
#include "testutil.h"

static cz_rng rng;

static void rand_nonzero(cz_fr *x) {
    do cz_fr_random(x, &rng);
    while (cz_fr_is_zero(x));
}

static const cz_fr *wval(const cz_test_circuit *tc, uint32_t col) {
    return col < tc->ni ? &tc->inputs[col] : &tc->aux[col - tc->ni];
}

/* Row i of m times the witness, split into the input columns and the aux columns. */
static void row_eval(cz_fr *in, cz_fr *ax, const cz_csr *m, uint64_t i, const cz_test_circuit *tc) {
    *in = CZ_FR_ZERO_V, *ax = CZ_FR_ZERO_V;
    for (uint64_t k = m->row_ptr[i]; k < m->row_ptr[i + 1]; k++) {
        cz_fr t;
        cz_fr_mul(&t, &m->val[k], wval(tc, m->col[k]));
        cz_fr_add(m->col[k] < tc->ni ? in : ax, m->col[k] < tc->ni ? in : ax, &t);
    }
}

/* The proof's discrete logs, computed naively; returns 0 unless tau hits the domain (never in practice). */
static int naive_proof_scalars(cz_fr *as, cz_fr *bs, cz_fr *cs, const cz_test_circuit *tc,
                               const cz_groth16_toxic *t, const cz_fr *r, const cz_fr *s) {
    const cz_r1cs *R = &tc->r1cs;
    size_t n = 1;
    unsigned logn = 0;
    while (n < R->num_rows) n <<= 1, logn++;
    cz_fr w, wj = CZ_FR_ONE_V, tn = CZ_FR_ONE_V, nfr, zt;
    cz_fr_root_of_unity(&w, logn);
    for (size_t i = 0; i < n; i++) cz_fr_mul(&tn, &tn, &t->tau);
    cz_fr_sub(&zt, &tn, &CZ_FR_ONE_V);
    cz_fr_set_u64(&nfr, n);
    cz_fr At = CZ_FR_ZERO_V, Bt = CZ_FR_ZERO_V, Ct = CZ_FR_ZERO_V, aux_part = CZ_FR_ZERO_V;
    for (uint64_t j = 0; j < R->num_rows; j++) {
        cz_fr L, d, ai, aa, bi, ba, ci, ca, x, y;
        cz_fr_sub(&d, &t->tau, &wj);
        if (cz_fr_is_zero(&d)) return -1;
        cz_fr_mul(&d, &d, &nfr);
        cz_fr_inv(&d, &d);
        cz_fr_mul(&L, &wj, &zt);
        cz_fr_mul(&L, &L, &d);
        row_eval(&ai, &aa, &R->a, j, tc);
        row_eval(&bi, &ba, &R->b, j, tc);
        row_eval(&ci, &ca, &R->c, j, tc);
        cz_fr_add(&x, &ai, &aa), cz_fr_mul(&x, &x, &L), cz_fr_add(&At, &At, &x);
        cz_fr_add(&x, &bi, &ba), cz_fr_mul(&x, &x, &L), cz_fr_add(&Bt, &Bt, &x);
        cz_fr_add(&x, &ci, &ca), cz_fr_mul(&x, &x, &L), cz_fr_add(&Ct, &Ct, &x);
        /* beta u + alpha v + w over the aux columns */
        cz_fr_mul(&x, &aa, &t->beta);
        cz_fr_mul(&y, &ba, &t->alpha);
        cz_fr_add(&x, &x, &y);
        cz_fr_add(&x, &x, &ca);
        cz_fr_mul(&x, &x, &L);
        cz_fr_add(&aux_part, &aux_part, &x);
        cz_fr_mul(&wj, &wj, &w);
    }
    cz_fr x, dinv;
    cz_fr_add(as, &t->alpha, &At);
    cz_fr_mul(&x, r, &t->delta), cz_fr_add(as, as, &x);
    cz_fr_add(bs, &t->beta, &Bt);
    cz_fr_mul(&x, s, &t->delta), cz_fr_add(bs, bs, &x);
    /* C = (aux part + A(tau) B(tau) - C(tau)) / delta + s A + r B - r s delta */
    cz_fr_mul(&x, &At, &Bt);
    cz_fr_sub(&x, &x, &Ct);
    cz_fr_add(&x, &x, &aux_part);
    cz_fr_inv(&dinv, &t->delta);
    cz_fr_mul(cs, &x, &dinv);
    cz_fr_mul(&x, s, as), cz_fr_add(cs, cs, &x);
    cz_fr_mul(&x, r, bs), cz_fr_add(cs, cs, &x);
    cz_fr_mul(&x, r, s), cz_fr_mul(&x, &x, &t->delta), cz_fr_sub(cs, cs, &x);
    return 0;
}

static int g1_is(const cz_g1_affine *p, const cz_fr *k) {
    cz_g1_affine g;
    cz_g1_jac gj, e;
    cz_g1_generator(&g);
    cz_g1_jac_from_affine(&gj, &g);
    cz_g1_mul(&e, &gj, k);
    cz_g1_affine ea;
    cz_g1_to_affine(&ea, &e);
    return !memcmp(&ea, p, sizeof ea);
}

static int g2_is(const cz_g2_affine *p, const cz_fr *k) {
    cz_g2_affine g;
    cz_g2_jac gj, e;
    cz_g2_generator(&g);
    cz_g2_jac_from_affine(&gj, &g);
    cz_g2_mul(&e, &gj, k);
    cz_g2_affine ea;
    cz_g2_to_affine(&ea, &e);
    return !memcmp(&ea, p, sizeof ea);
}

/* Setup points against one scalar multiplication each (the ec module's w-NAF, not setup's fixed-base
 * tables): the verifying key, and H_i = tau^i (tau^n - 1) / delta at the ends of the query, around
 * the fixed-base code's chunk boundary (2048 outputs) and at a random index. */
static void check_setup_points(const cz_groth16_params *p, const cz_groth16_toxic *t) {
    cz_fr one = CZ_FR_ONE_V;
    CHECK(g1_is(&p->vk.alpha_g1, &t->alpha) && g1_is(&p->vk.beta_g1, &t->beta) && g1_is(&p->vk.delta_g1, &t->delta));
    CHECK(g2_is(&p->vk.beta_g2, &t->beta) && g2_is(&p->vk.gamma_g2, &t->gamma) && g2_is(&p->vk.delta_g2, &t->delta));
    CHECK(!g1_is(&p->vk.alpha_g1, &one)); /* the check itself can fail */
    size_t n = p->h_len + 1;
    cz_fr zt, dinv, k;
    cz_fr_pow(&zt, &t->tau, (uint64_t[]){n}, 1);
    cz_fr_sub(&zt, &zt, &one);
    CHECK(cz_fr_inv(&dinv, &t->delta) == 0);
    cz_fr_mul(&zt, &zt, &dinv);
    size_t idx[] = {0, 1, 2047, 2048, 2049, p->h_len - 1, (size_t)(cz_rng_next(&rng) % p->h_len)};
    for (size_t j = 0; j < sizeof idx / sizeof idx[0]; j++) {
        if (idx[j] >= p->h_len) continue;
        cz_fr_pow(&k, &t->tau, (uint64_t[]){idx[j]}, 1);
        cz_fr_mul(&k, &k, &zt);
        CHECK_MSG(g1_is(&p->h[idx[j]], &k), "setup: H[%zu] of %zu is not tau^i Z(tau) / delta", idx[j], p->h_len);
    }
}

static int prove(cz_groth16_proof *pf, const cz_groth16_params *p, const cz_test_circuit *tc, const cz_fr *r,
                 const cz_fr *s) {
    cz_groth16_pending pd;
    int rc = cz_groth16_prove_start(&pd, p, &tc->r1cs, tc->inputs, tc->aux, 0);
    return rc ? rc : cz_groth16_prove_finish(pf, &pd, &p->vk, r, s);
}

/* Every single-bit flip of the proof bytes fails decoding or verification. */
static void flip_every_bit(const cz_groth16_pvk *pvk, const cz_groth16_proof *pf, const cz_fr *pub, size_t npub) {
    uint8_t bytes[CZ_GROTH16_PROOF_BYTES];
    cz_groth16_proof_encode(bytes, pf);
    size_t rejected = 0, by_decode = 0;
    for (size_t bit = 0; bit < 8 * CZ_GROTH16_PROOF_BYTES; bit++) {
        bytes[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        int rc = cz_groth16_verify_bytes(pvk, bytes, pub, npub);
        if (rc != 0) rejected++;
        if (rc != 0 && rc != CZ_EVERIFY) by_decode++;
        CHECK_MSG(rc != 0, "bit %zu flipped still verifies", bit);
        bytes[bit / 8] ^= (uint8_t)(1u << (bit % 8));
    }
    CHECK(cz_groth16_verify_bytes(pvk, bytes, pub, npub) == 0);
    printf("bit flips: %zu/%d rejected (%zu by decoding)\n", rejected, 8 * CZ_GROTH16_PROOF_BYTES, by_decode);
}

static void run_config(size_t pub, size_t nfree, size_t nc, int extensive) {
    cz_test_circuit tc;
    uint64_t shape = cz_rng_next(&rng);
    CHECK(tc_build(&tc, pub, nfree, nc, shape, &rng) == 0);
    CHECK(cz_r1cs_check(NULL, &tc.r1cs, tc.inputs, tc.aux, 0) == 0);
    cz_groth16_toxic t;
    cz_groth16_toxic_from_seed(&t, cz_rng_next(&rng));
    cz_groth16_params p;
    int rc = cz_groth16_setup(&p, &tc.r1cs, &t, 0);
    CHECK_MSG(rc == 0, "setup: %s", cz_error_message());
    if (rc) {
        tc_free(&tc);
        return;
    }
    CHECK(p.a_len == tc.ni + tc.r1cs.a_aux_popcount && p.l_len == tc.na && p.vk.ic_len == tc.ni);
    check_setup_points(&p, &t);

    cz_fr r, s, as, bs, cs;
    rand_nonzero(&r), rand_nonzero(&s);
    cz_groth16_proof pf;
    CHECK_MSG(prove(&pf, &p, &tc, &r, &s) == 0, "prove: %s", cz_error_message());
    CHECK(naive_proof_scalars(&as, &bs, &cs, &tc, &t, &r, &s) == 0);
    CHECK_MSG(g1_is(&pf.a, &as), "A differs from the naive scalar (pub %zu, nfree %zu, nc %zu)", pub, nfree, nc);
    CHECK_MSG(g2_is(&pf.b, &bs), "B differs from the naive scalar");
    CHECK_MSG(g1_is(&pf.c, &cs), "C differs from the naive scalar");

    cz_groth16_pvk pvk;
    CHECK(cz_groth16_pvk_init(&pvk, &p.vk) == 0);
    const cz_fr *pubv = tc.inputs + 1;
    rc = cz_groth16_verify(&pvk, &pf, pubv, pub);
    CHECK_MSG(rc == 0, "verify: %s (pub %zu, nfree %zu, nc %zu)", cz_error_message(), pub, nfree, nc);

    uint8_t bytes[CZ_GROTH16_PROOF_BYTES];
    cz_groth16_proof back;
    cz_groth16_proof_encode(bytes, &pf);
    CHECK(cz_groth16_proof_decode(&back, bytes) == 0 && !memcmp(&back, &pf, sizeof pf));
    CHECK(cz_groth16_verify_bytes(&pvk, bytes, pubv, pub) == 0);

    /* One flipped bit of any public input (its canonical bytes) fails: bits 0, 254 and two random ones;
     * a flip that leaves the field (>= r) cannot even be given as an input. So does a wrong input count. */
    cz_fr *bad = malloc((pub + 1) * sizeof *bad);
    for (size_t i = 0; i < pub; i++) {
        unsigned bits[4] = {0, 254, (unsigned)(cz_rng_next(&rng) % 255), (unsigned)(cz_rng_next(&rng) % 255)};
        for (int k = 0; k < 4; k++) {
            memcpy(bad, pubv, pub * sizeof *bad);
            uint8_t le[32];
            cz_fr_to_bytes_le(le, &bad[i]);
            le[bits[k] / 8] ^= (uint8_t)(1u << (bits[k] % 8));
            if (cz_fr_from_bytes_le(&bad[i], le) != 0) continue;
            CHECK_MSG(cz_groth16_verify(&pvk, &pf, bad, pub) == CZ_EVERIFY, "input %zu bit %u flipped still verifies",
                      i, bits[k]);
        }
    }
    memcpy(bad, pubv, pub * sizeof *bad);
    CHECK(cz_groth16_verify(&pvk, &pf, bad, pub + 1) == CZ_EINVAL);
    CHECK(strstr(cz_error_message(), "public inputs") != NULL);
    free(bad);

    /* r, s from the OS CSPRNG: a different, valid proof. */
    cz_groth16_proof pf2;
    CHECK(prove(&pf2, &p, &tc, NULL, NULL) == 0);
    CHECK(memcmp(&pf2, &pf, sizeof pf) != 0);
    CHECK(cz_groth16_verify(&pvk, &pf2, pubv, pub) == 0);
    CHECK(cz_groth16_prove_finish(&pf2, &(cz_groth16_pending){0}, &p.vk, &r, NULL) == CZ_EINVAL);
    cz_groth16_vk vk_bad = p.vk;
    memset(&vk_bad.delta_g2, 0, sizeof vk_bad.delta_g2);
    CHECK(cz_groth16_prove_finish(&pf2, &(cz_groth16_pending){0}, &vk_bad, &r, &s) == CZ_EINVAL);
    CHECK(strstr(cz_error_message(), "delta") != NULL);

    if (extensive) {
        flip_every_bit(&pvk, &pf, pubv, pub);
        /* The .params we write reads back into an equivalent prover input. */
        char path[64];
        snprintf(path, sizeof path, "/tmp/cz_test_prove_%d.params", (int)getpid());
        cz_groth16_params q;
        CHECK(cz_groth16_params_write_file(path, &p) == 0);
        CHECK(cz_groth16_params_read_file(&q, path, CZ_PARAMS_CHECK_SUBGROUP) == 0);
        cz_groth16_proof pf3;
        CHECK(prove(&pf3, &q, &tc, &r, &s) == 0 && !memcmp(&pf3, &pf, sizeof pf));
        cz_groth16_params_free(&q);
        cz_groth16_vk vk;
        CHECK(cz_groth16_vk_read_file(&vk, path) == 0);
        cz_groth16_pvk pvk2;
        CHECK(cz_groth16_pvk_init(&pvk2, &vk) == 0);
        CHECK(cz_groth16_verify(&pvk2, &pf, pubv, pub) == 0);
        cz_groth16_pvk_free(&pvk2);
        cz_groth16_vk_free(&vk);
        unlink(path);
    }
    cz_groth16_pvk_free(&pvk);
    cz_groth16_params_free(&p);
    tc_free(&tc);
}

static void test_batch(void) {
    enum { K = 5, PUB = 3 };
    uint64_t shape = cz_rng_next(&rng);
    cz_test_circuit tc[K];
    for (int j = 0; j < K; j++) CHECK(tc_build(&tc[j], PUB, 12, 40, shape, &rng) == 0);
    for (int j = 1; j < K; j++) CHECK(cz_r1cs_nnz(&tc[j].r1cs.a) == cz_r1cs_nnz(&tc[0].r1cs.a));
    cz_groth16_toxic t;
    cz_groth16_toxic_from_seed(&t, cz_rng_next(&rng));
    cz_groth16_params p;
    CHECK(cz_groth16_setup(&p, &tc[0].r1cs, &t, 0) == 0);
    cz_groth16_pvk pvk;
    CHECK(cz_groth16_pvk_init(&pvk, &p.vk) == 0);
    cz_groth16_proof pf[K];
    const cz_fr *in[K];
    for (int j = 0; j < K; j++) {
        CHECK(prove(&pf[j], &p, &tc[j], NULL, NULL) == 0);
        in[j] = tc[j].inputs + 1;
        CHECK(cz_groth16_verify(&pvk, &pf[j], in[j], PUB) == 0);
    }
    CHECK(cz_groth16_verify_batch(&pvk, pf, in, PUB, K) == 0);
    CHECK(cz_groth16_verify_batch(&pvk, pf, in, PUB, 1) == 0);
    CHECK(cz_groth16_verify_batch(&pvk, pf, in, PUB, 0) == 0);
    /* One proof paired with another proof's inputs. */
    const cz_fr *swapped[K];
    memcpy(swapped, in, sizeof in);
    swapped[3] = in[1];
    CHECK(cz_groth16_verify_batch(&pvk, pf, swapped, PUB, K) == CZ_EVERIFY);
    /* One proof with its C taken from another proof. */
    cz_groth16_proof mixed[K];
    memcpy(mixed, pf, sizeof pf);
    mixed[K - 1].c = pf[0].c;
    CHECK(cz_groth16_verify_batch(&pvk, mixed, in, PUB, K) == CZ_EVERIFY);
    /* Two bad proofs whose errors would cancel in an unweighted sum: swap the C of proofs 0 and 1... */
    memcpy(mixed, pf, sizeof pf);
    mixed[0].c = pf[1].c, mixed[1].c = pf[0].c;
    CHECK(cz_groth16_verify_batch(&pvk, mixed, in, PUB, K) == CZ_EVERIFY);
    CHECK(cz_groth16_verify_batch(&pvk, pf, in, PUB + 1, K) == CZ_EINVAL);
    cz_groth16_pvk_free(&pvk);
    cz_groth16_params_free(&p);
    for (int j = 0; j < K; j++) tc_free(&tc[j]);
}

/* Proof decoding names the element, its offset and the problem. */
static void test_proof_decode_errors(void) {
    cz_groth16_proof pf, q;
    cz_g1_random(&pf.a, &rng);
    cz_g2_random(&pf.b, &rng);
    cz_g1_random(&pf.c, &rng);
    uint8_t b[CZ_GROTH16_PROOF_BYTES], c[CZ_GROTH16_PROOF_BYTES];
    cz_groth16_proof_encode(b, &pf);
    CHECK(cz_groth16_proof_decode(&q, b) == 0 && !memcmp(&q, &pf, sizeof q));
    /* Infinity A. */
    memcpy(c, b, sizeof c);
    memset(c, 0, 48);
    c[0] = 0xc0;
    CHECK(cz_groth16_proof_decode(&q, c) != 0);
    CHECK(strstr(cz_error_message(), "element A") && strstr(cz_error_message(), "offset 0") &&
          strstr(cz_error_message(), "infinity"));
    /* Uncompressed flag on B. */
    memcpy(c, b, sizeof c);
    c[48] &= 0x7f;
    CHECK(cz_groth16_proof_decode(&q, c) != 0);
    CHECK(strstr(cz_error_message(), "element B") && strstr(cz_error_message(), "offset 48"));
    /* C: x >= p. */
    memcpy(c, b, sizeof c);
    memset(c + 144, 0xff, 48);
    c[144] = 0x9f;
    CHECK(cz_groth16_proof_decode(&q, c) != 0);
    CHECK(strstr(cz_error_message(), "element C") && strstr(cz_error_message(), "offset 144"));
    /* C on the curve but outside the subgroup. */
    cz_g1_affine off;
    cz_fp four, rhs;
    cz_fp_set_u64(&four, 4);
    do {
        cz_fp_random(&off.x, &rng);
        cz_fp_sqr(&rhs, &off.x);
        cz_fp_mul(&rhs, &rhs, &off.x);
        cz_fp_add(&rhs, &rhs, &four);
    } while (cz_fp_sqrt(&off.y, &rhs) != 0);
    memcpy(c, b, sizeof c);
    cz_g1_to_compressed(c + 144, &off);
    CHECK(cz_groth16_proof_decode(&q, c) == CZ_ESUBGROUP);
    CHECK(strstr(cz_error_message(), "element C") && strstr(cz_error_message(), "subgroup"));

    /* Partitions concatenated: whole proofs only, errors name the partition. */
    uint8_t multi[3 * CZ_GROTH16_PROOF_BYTES];
    cz_groth16_proof three[3];
    size_t count = 9;
    for (int i = 0; i < 3; i++) memcpy(multi + i * CZ_GROTH16_PROOF_BYTES, b, CZ_GROTH16_PROOF_BYTES);
    CHECK(cz_groth16_proofs_decode(three, 3, &count, multi, sizeof multi, "p.proof") == 0 && count == 3);
    CHECK(!memcmp(&three[2], &pf, sizeof pf));
    CHECK(cz_groth16_proofs_decode(three, 2, &count, multi, sizeof multi, "p.proof") == CZ_ERANGE && count == 0);
    CHECK(cz_groth16_proofs_decode(three, 3, &count, multi, sizeof multi - 1, "p.proof") == CZ_EFORMAT);
    CHECK(strstr(cz_error_message(), "p.proof") && strstr(cz_error_message(), "truncated"));
    CHECK(cz_groth16_proofs_decode(three, 3, &count, multi, 0, "p.proof") == CZ_EFORMAT);
    memcpy(multi + 2 * CZ_GROTH16_PROOF_BYTES + 144, c + 144, 48);
    CHECK(cz_groth16_proofs_decode(three, 3, &count, multi, sizeof multi, "p.proof") == CZ_ESUBGROUP);
    CHECK(strstr(cz_error_message(), "partition 2") && strstr(cz_error_message(), "offset 384") &&
          strstr(cz_error_message(), "element C"));
}

static void test_setup_and_prover_errors(void) {
    /* An aux variable used nowhere: bellperson's UnconstrainedVariable. */
    cz_cs *cs;
    CHECK(cz_cs_new(&cs, CZ_CS_RECORD) == 0);
    cz_var x = cz_cs_alloc(cs, NULL), y = cz_cs_alloc(cs, NULL);
    (void)y;
    cz_lc a = CZ_LC_ZERO, b = CZ_LC_ZERO, c = CZ_LC_ZERO;
    cz_lc_add(cs, &a, x, NULL);
    cz_lc_add(cs, &b, x, NULL);
    cz_lc_add(cs, &c, x, NULL);
    cz_cs_enforce(cs, &a, &b, &c);
    cz_lc_free(cs, &a), cz_lc_free(cs, &b), cz_lc_free(cs, &c);
    cz_r1cs r;
    CHECK(cz_cs_finalize(cs) == 0 && cz_cs_take_r1cs(cs, &r) == 0);
    cz_cs_free(cs);
    cz_groth16_toxic t;
    cz_groth16_toxic_from_seed(&t, 1);
    cz_groth16_params p;
    CHECK(cz_groth16_setup(&p, &r, &t, 0) == CZ_EINVAL);
    CHECK(strstr(cz_error_message(), "aux variable 1") && strstr(cz_error_message(), "unconstrained"));
    cz_r1cs_free(&r);

    /* Params of one circuit with another circuit. */
    cz_test_circuit c1, c2;
    CHECK(tc_build(&c1, 2, 4, 10, 7, &rng) == 0);
    CHECK(tc_build(&c2, 2, 4, 40, 8, &rng) == 0);
    CHECK(cz_groth16_setup(&p, &c1.r1cs, &t, 0) == 0);
    cz_groth16_pending pd;
    CHECK(cz_groth16_prove_start(&pd, &p, &c2.r1cs, c2.inputs, c2.aux, 0) == CZ_EFORMAT);
    CHECK(strstr(cz_error_message(), "do not fit") != NULL);
    cz_fr one = c1.inputs[0];
    cz_fr_add(&c1.inputs[0], &c1.inputs[0], &one);
    CHECK(cz_groth16_prove_start(&pd, &p, &c1.r1cs, c1.inputs, c1.aux, 0) == CZ_EINVAL);
    CHECK(strstr(cz_error_message(), "ONE") != NULL);
    cz_groth16_params_free(&p);
    tc_free(&c1);
    tc_free(&c2);
}

int main(void) {
    cz_test_rng(&rng);
    run_config(2, 5, 20, 1);   /* the bit-flip and file round trip run here */
    run_config(0, 3, 10, 0);   /* no public input besides ONE */
    run_config(1, 0, 1, 0);    /* one constraint, no free aux */
    run_config(4, 1, 3, 0);    /* inputs outnumber constraints */
    run_config(5, 60, 600, 0); /* n = 1024 */
    run_config(3, 40, 2500, 0); /* n = 4096: queries span two fixed-base chunks */
    test_batch();
    test_proof_decode_errors();
    test_setup_and_prover_errors();
    return cz_test_finish();
}
