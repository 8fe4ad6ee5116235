/* The H query in Lagrange form: the h MSM with four NTTs instead of six (issue 4's lead; docs/perf.md,
 * session 35). CPU reference, the oracle for a device version.
 *
 * The prover's h (cz_groth16_compute_h) is U = (coset_iNTT(y) - iNTT(c)) / (g^n - 1) with y = A_coset B_coset
 * (A_coset = coset_NTT(iNTT(a)), likewise B) and the MSM takes sum_{i < n-1} U_i H_i. That sum is linear in y
 * and c, so with
 *   Lc[j] = s sum_{i < n-1} (g w^j)^-i H_i        (the coset g<w>, j in natural order)
 *   Lh[j] = s sum_{i < n-1} w^(-i j) H_i          (the domain <w>)
 *   s = 1 / (n (g^n - 1))
 * it is sum_j y_j Lc[j] - sum_j c_j Lh[j] for ANY y and c: the coset iNTT of y and the iNTT of c go, and c
 * (= a b on the domain) is 80 % zeros, 3 % ones, 3 % minus ones and 12.6 % twos in a 32 GiB PoRep partition
 * (cz_bench_porep_mix), so its MSM is mostly batch additions. Dropping H_{n-1} (the params have n - 1 bases) is
 * exact because each sum above only reaches i < n - 1.
 * The bases come from the H query by two inverse NTTs over G1 (n/2 log n scalar multiplications each). */
#ifndef CZ_GROTH16_H_LAGRANGE_H
#define CZ_GROTH16_H_LAGRANGE_H

#include <stddef.h>

#include "ec/g1.h"
#include "poly/ntt.h"

/* lc, lh: d->n affine points each (either may be NULL); h: the params' H query, d->n - 1 points. nthreads <= 0:
 * OpenMP's default. 0, CZ_EINVAL (h_len != n - 1) or CZ_ENOMEM. */
int cz_groth16_h_lagrange(cz_g1_affine *lc, cz_g1_affine *lh, const cz_domain *d, const cz_g1_affine *h, size_t h_len,
                          int nthreads);

/* The prover's h MSM (sum_{i < n-1} h_i H_i, h = cz_groth16_compute_h(a, b, c)) through the Lagrange bases, the
 * way a device prover would do it: y = A_coset B_coset (4 NTTs, into a; b is clobbered), one MSM of y over lc, and
 * c over lh split by value: ones, minus ones and twos by batch addition (the twos' sum doubled once), the other
 * nonzero values by one MSM. a, b, c: d->n evaluations on the domain each (zero-padded past the rows).
 * 0 or CZ_ENOMEM. */
int cz_groth16_h_msm_lagrange(cz_g1_jac *out, const cz_domain *d, const cz_g1_affine *lc, const cz_g1_affine *lh,
                              cz_fr *a, cz_fr *b, const cz_fr *c, int nthreads);

/* In place over n = d->n jacobian points: v_j <- sum_i w^(-i j) v_i (unscaled inverse NTT over G1, natural order in
 * and out). */
int cz_g1_intt_unscaled(const cz_domain *d, cz_g1_jac *v, int nthreads);

#endif
