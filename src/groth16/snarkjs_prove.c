/* The prover for .zkey keys, step for step as snarkjs' groth16_prove.js so that fixed r, s give the same
 * proof: A_T/B_T rows from the section-4 coefficients, C_T = A_T*B_T pointwise, then for each of the
 * three: iNTT on snarkjs' domain, shift coefficient k by omega2^k and NTT (= values on the odd coset
 * omega2*omega^i), P = A*B - C there, and MSM(H, P). No division by Z: the zkey's H bases absorb it.
 * The MSMs are the subgroup ones (endomorphism split): a key's bases are in the prime-order subgroup
 * (cz_snarkjs_zkey_read with CZ_ZKEY_CHECK_SUBGROUP enforces it; a key that breaks it gives a wrong
 * proof either way). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cz_error.h"
#include "ec/msm.h"
#include "groth16/snarkjs.h"
#include "util/rng.h"

int cz_snarkjs_domain(cz_domain *d, unsigned log_n) {
    if (log_n > CZ_NTT_MAX_LOG) return cz_error(CZ_ERANGE, "snarkjs domain: 2^%u is too large", log_n);
    int rc = cz_domain_init(d, log_n);
    if (rc) return rc;
    /* ffjavascript: Fr.w[32] = nqr^((r-1)/2^32) with nqr = 5, and Fr.w[k] = Fr.w[k+1]^2. */
    static const uint64_t rp[4] = CZ_FR_MODULUS;
    const uint64_t e[4] = {rp[0] >> 32 | rp[1] << 32, rp[1] >> 32 | rp[2] << 32, rp[2] >> 32 | rp[3] << 32, rp[3] >> 32};
    cz_fr w, five;
    cz_fr_set_u64(&five, 5);
    cz_fr_pow(&w, &five, e, 4);
    for (unsigned k = 32; k > log_n + 1; k--) cz_fr_sqr(&w, &w);
    d->g = w; /* omega2, the 2^(log_n+1)-th root */
    cz_fr_sqr(&d->omega, &w);
    if (cz_fr_inv(&d->omega_inv, &d->omega) || cz_fr_inv(&d->g_inv, &d->g))
        return cz_error(CZ_EINVAL, "snarkjs domain: zero root"); /* cannot happen */
    return 0;
}

/* CZ_PROFILE=1 in the environment prints each phase's wall time to stderr (tuning aid). */
static double prof_t0, prof_c0;
static int prof_on = -1;
static void prof(const char *what) {
    if (prof_on < 0) prof_on = getenv("CZ_PROFILE") != NULL;
    if (!prof_on) return;
    struct timespec t, c;
    clock_gettime(CLOCK_MONOTONIC, &t);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c);
    double now = (double)t.tv_sec + 1e-9 * (double)t.tv_nsec, cpu = (double)c.tv_sec + 1e-9 * (double)c.tv_nsec;
    if (what)
        fprintf(stderr, "cz_profile snarkjs_prove %-8s %8.1f ms wall %8.1f ms cpu\n", what, 1e3 * (now - prof_t0),
                1e3 * (cpu - prof_c0));
    prof_t0 = now;
    prof_c0 = cpu;
}

static int os_random_fr(cz_fr *x) {
    uint8_t wide[64];
    int rc = cz_os_random(wide, sizeof wide);
    if (!rc) cz_fr_from_bytes_wide_le(x, wide);
    return rc;
}

int cz_snarkjs_prove(cz_groth16_proof *proof, const cz_snarkjs_zkey *z, const cz_fr *w, size_t n_w, const cz_fr *r_in,
                     const cz_fr *s_in, int nthreads) {
    if (n_w != z->n_vars)
        return cz_error(CZ_EINVAL, "snarkjs prove: witness has %zu values, the zkey wants %u", n_w, z->n_vars);
    if (!cz_fr_equal(&w[0], &CZ_FR_ONE_V)) return cz_error(CZ_EINVAL, "snarkjs prove: witness[0] is not 1");
    cz_fr r, s;
    int rc;
    if (r_in && s_in) {
        r = *r_in;
        s = *s_in;
    } else if ((rc = os_random_fr(&r)) || (rc = os_random_fr(&s)))
        return rc;
    prof(NULL);
    cz_domain d;
    if ((rc = cz_snarkjs_domain(&d, z->power))) return rc;
    const size_t n = z->domain_size;
    /* Huge pages: first touches of fresh 4 KiB pages are slow here (cz_msm_big_alloc). */
    cz_fr *a = cz_msm_big_alloc(n * sizeof *a), *b = cz_msm_big_alloc(n * sizeof *b),
          *c = cz_msm_big_alloc(n * sizeof *c);
    if (!a || !b || !c) {
        rc = cz_error(CZ_ENOMEM, "snarkjs prove: out of memory for a domain of %zu", n);
        goto done;
    }
    memset(a, 0, n * sizeof *a);
    memset(b, 0, n * sizeof *b);
    /* Rows of A and B: two independent accumulations, one per thread. */
#pragma omp parallel for num_threads(2) schedule(static, 1)
    for (uint32_t m = 0; m < 2; m++) {
        cz_fr *dst = m ? b : a;
        for (size_t i = 0; i < z->n_coef; i++) {
            const cz_snarkjs_coef *k = &z->coef[i];
            if (k->matrix != m) continue;
            cz_fr t;
            cz_fr_mul(&t, &k->value, &w[k->signal]);
            cz_fr_add(&dst[k->row], &dst[k->row], &t);
        }
    }
#pragma omp parallel for schedule(static) num_threads(nthreads > 0 ? nthreads : omp_get_max_threads())
    for (size_t i = 0; i < n; i++) cz_fr_mul(&c[i], &a[i], &b[i]);
    prof("abc");
    cz_fr *v[3] = {a, b, c};
    for (int i = 0; i < 3; i++)
        if ((rc = cz_ntt_inverse(&d, v[i])) || (rc = cz_ntt_coset_forward(&d, v[i]))) goto done;
#pragma omp parallel for schedule(static) num_threads(nthreads > 0 ? nthreads : omp_get_max_threads())
    for (size_t i = 0; i < n; i++) {
        cz_fr_mul(&a[i], &a[i], &b[i]);
        cz_fr_sub(&a[i], &a[i], &c[i]);
    }
    prof("ntt");
    cz_g1_jac ma, mb1, mc, mh;
    cz_g2_jac mb2;
    if ((rc = cz_g1_msm_subgroup(&ma, z->a, w, z->n_vars, nthreads))) goto done;
    prof("msm_a");
    if ((rc = cz_g1_msm_subgroup(&mb1, z->b1, w, z->n_vars, nthreads))) goto done;
    prof("msm_b1");
    if ((rc = cz_g2_msm_subgroup(&mb2, z->b2, w, z->n_vars, nthreads))) goto done;
    prof("msm_b2");
    const size_t n_priv = (size_t)z->n_vars - z->n_public - 1;
    if ((rc = cz_g1_msm_subgroup(&mc, z->c, w + z->n_public + 1, n_priv, nthreads))) goto done;
    prof("msm_c");
    if ((rc = cz_g1_msm_subgroup(&mh, z->h, a, n, nthreads))) goto done;
    prof("msm_h");

    /* pi_a = alpha + A + r delta; pi_b = beta + B2 + s delta; b1 = beta + B1 + s delta;
     * pi_c = C + H + s pi_a + r b1 - r s delta (all in G1 but pi_b). */
    cz_g1_jac t1, pa, b1, pc, d1;
    cz_g2_jac t2, pb, d2;
    cz_g1_jac_from_affine(&d1, &z->delta1);
    cz_g2_jac_from_affine(&d2, &z->delta2);
    cz_g1_jac_add_affine(&pa, &ma, &z->alpha1);
    cz_g1_mul(&t1, &d1, &r);
    cz_g1_jac_add(&pa, &pa, &t1);
    cz_g2_jac_add_affine(&pb, &mb2, &z->beta2);
    cz_g2_mul(&t2, &d2, &s);
    cz_g2_jac_add(&pb, &pb, &t2);
    cz_g1_jac_add_affine(&b1, &mb1, &z->beta1);
    cz_g1_mul(&t1, &d1, &s);
    cz_g1_jac_add(&b1, &b1, &t1);
    cz_g1_jac_add(&pc, &mc, &mh);
    cz_g1_mul(&t1, &pa, &s);
    cz_g1_jac_add(&pc, &pc, &t1);
    cz_g1_mul(&t1, &b1, &r);
    cz_g1_jac_add(&pc, &pc, &t1);
    cz_fr rs;
    cz_fr_mul(&rs, &r, &s);
    cz_fr_neg(&rs, &rs);
    cz_g1_mul(&t1, &d1, &rs);
    cz_g1_jac_add(&pc, &pc, &t1);
    cz_g1_to_affine(&proof->a, &pa);
    cz_g2_to_affine(&proof->b, &pb);
    cz_g1_to_affine(&proof->c, &pc);
    prof("finish");
    rc = 0;
done:
    free(a);
    free(b);
    free(c);
    return rc;
}
