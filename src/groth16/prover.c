#include "groth16/prover.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "ec/msm.h"
#include "util/rng.h"

void cz_groth16_compute_h(const cz_domain *d, cz_fr *a, cz_fr *b, cz_fr *c) {
    cz_ntt_inverse(d, a);
    cz_ntt_inverse(d, b);
    cz_ntt_inverse(d, c);
    cz_ntt_coset_forward(d, a);
    cz_ntt_coset_forward(d, b);
    cz_ntt_coset_forward(d, c);
#pragma omp parallel for schedule(static) if (d->n >= 4096)
    for (size_t i = 0; i < d->n; i++) {
        cz_fr_mul(&a[i], &a[i], &b[i]);
        cz_fr_sub(&a[i], &a[i], &c[i]);
    }
    cz_ntt_divide_by_z_on_coset(d, a);
    cz_ntt_coset_inverse(d, a);
}

int cz_groth16_prove_start(cz_groth16_pending *out, const cz_groth16_params *p, const cz_r1cs *r,
                           const cz_fr *inputs, const cz_fr *aux, int nthreads) {
    const size_t ni = r->num_inputs, na = r->num_aux;
    if (ni == 0 || !cz_fr_equal(&inputs[0], &CZ_FR_ONE_V))
        return cz_error(CZ_EINVAL, "prove: the first input must be ONE");
    cz_domain d;
    int rc = cz_domain_for_size(&d, r->num_rows);
    if (rc)
        return rc;
    const size_t n = d.n;
    if (p->h_len != n - 1 || p->l_len != na || p->vk.ic_len != ni || p->a_len != ni + r->a_aux_popcount ||
        p->b_len != r->b_input_popcount + r->b_aux_popcount)
        return cz_error(CZ_EFORMAT,
                        "prove: params do not fit the circuit: H %zu (want %zu), L %zu (want %zu), IC %zu (want %zu), "
                        "A %zu (want %zu), B %zu (want %zu)",
                        p->h_len, n - 1, p->l_len, na, p->vk.ic_len, ni, p->a_len, ni + (size_t)r->a_aux_popcount,
                        p->b_len, (size_t)(r->b_input_popcount + r->b_aux_popcount));

    cz_fr *abc = calloc(3 * n, sizeof *abc);
    cz_fr *sa = malloc((p->a_len + 1) * sizeof *sa), *sb = malloc((p->b_len + 1) * sizeof *sb);
    if (!abc || !sa || !sb) {
        free(abc);
        free(sa);
        free(sb);
        return cz_error(CZ_ENOMEM, "prove: out of memory for a domain of %zu", n);
    }
    cz_fr *a = abc, *b = abc + n, *c = abc + 2 * n;
    cz_r1cs_eval(a, b, c, r, inputs, aux, nthreads);
    cz_groth16_compute_h(&d, a, b, c);

    /* The A and B queries hold only density-selected variables: gather their scalars in query order. */
    size_t ka = 0, kb = 0;
    for (size_t i = 0; i < ni; i++) {
        sa[ka++] = inputs[i];
        if (cz_density_get(r->b_input_density, i))
            sb[kb++] = inputs[i];
    }
    for (size_t j = 0; j < na; j++) {
        if (cz_density_get(r->a_aux_density, j))
            sa[ka++] = aux[j];
        if (cz_density_get(r->b_aux_density, j))
            sb[kb++] = aux[j];
    }

    rc = cz_g1_msm_subgroup(&out->h_msm, p->h, a, n - 1, nthreads);
    if (!rc) rc = cz_g1_msm_subgroup(&out->l_msm, p->l, aux, na, nthreads);
    if (!rc) rc = cz_g1_msm_subgroup(&out->a_ans, p->a, sa, ka, nthreads);
    if (!rc) rc = cz_g1_msm_subgroup(&out->b1_ans, p->b_g1, sb, kb, nthreads);
    if (!rc) rc = cz_g2_msm_subgroup(&out->b2_ans, p->b_g2, sb, kb, nthreads);
    free(abc);
    free(sa);
    free(sb);
    return rc;
}

static int os_random_fr(cz_fr *x) {
    uint8_t wide[64];
    int rc = cz_os_random(wide, sizeof wide);
    if (rc)
        return cz_error(rc, "prove: cannot read the OS CSPRNG for the blinding factors");
    cz_fr_from_bytes_wide_le(x, wide);
    memset(wide, 0, sizeof wide);
    return 0;
}

static void g1_add_mul(cz_g1_jac *acc, const cz_g1_jac *p, const cz_fr *k) {
    cz_g1_jac t;
    cz_g1_mul(&t, p, k);
    cz_g1_jac_add(acc, acc, &t);
}

int cz_groth16_prove_finish(cz_groth16_proof *proof, const cz_groth16_pending *pd, const cz_groth16_vk *vk,
                            const cz_fr *r_in, const cz_fr *s_in) {
    cz_fr r, s, rs;
    int rc;
    /* bellperson refuses to prove against such a key (SynthesisError::UnexpectedIdentity). */
    if (cz_g1_affine_is_infinity(&vk->delta_g1) || cz_g2_affine_is_infinity(&vk->delta_g2))
        return cz_error(CZ_EINVAL, "prove: delta is the point at infinity in the verifying key");
    if (r_in && s_in) {
        r = *r_in;
        s = *s_in;
    } else if (!r_in && !s_in) {
        if ((rc = os_random_fr(&r)) || (rc = os_random_fr(&s)))
            return rc;
    } else {
        return cz_error(CZ_EINVAL, "prove: give both r and s, or neither");
    }
    cz_fr_mul(&rs, &r, &s);
    cz_g1_jac alpha1, beta1, delta1;
    cz_g2_jac beta2, delta2;
    cz_g1_jac_from_affine(&alpha1, &vk->alpha_g1);
    cz_g1_jac_from_affine(&beta1, &vk->beta_g1);
    cz_g1_jac_from_affine(&delta1, &vk->delta_g1);
    cz_g2_jac_from_affine(&beta2, &vk->beta_g2);
    cz_g2_jac_from_affine(&delta2, &vk->delta_g2);

    /* bellperson: A = alpha + r delta + A_ans; B = beta + s delta + B2_ans;
     * C = s A_ans + r B1_ans + rs delta + s alpha + r beta + H + L. */
    cz_g1_jac ga = alpha1, gc = pd->h_msm;
    g1_add_mul(&ga, &delta1, &r);
    cz_g1_jac_add(&ga, &ga, &pd->a_ans);

    cz_g2_jac gb = beta2, t2;
    cz_g2_mul(&t2, &delta2, &s);
    cz_g2_jac_add(&gb, &gb, &t2);
    cz_g2_jac_add(&gb, &gb, &pd->b2_ans);

    cz_g1_jac_add(&gc, &gc, &pd->l_msm);
    g1_add_mul(&gc, &pd->a_ans, &s);
    g1_add_mul(&gc, &pd->b1_ans, &r);
    g1_add_mul(&gc, &delta1, &rs);
    g1_add_mul(&gc, &alpha1, &s);
    g1_add_mul(&gc, &beta1, &r);

    cz_g1_to_affine(&proof->a, &ga);
    cz_g2_to_affine(&proof->b, &gb);
    cz_g1_to_affine(&proof->c, &gc);
    memset(&r, 0, sizeof r);
    memset(&s, 0, sizeof s);
    memset(&rs, 0, sizeof rs);
    return 0;
}
