/* CPU multi-scalar multiplication and 0/1 batch addition over G1 and G2 (OpenMP).
 * The reference every GPU kernel is checked against, and the CPU prover's engine.
 * Scalars are Fr in Montgomery form (as a witness holds them); infinity bases are allowed. */
#ifndef CZ_EC_MSM_H
#define CZ_EC_MSM_H

#include <stddef.h>
#include <stdint.h>

#include "ec/g1.h"
#include "ec/g2.h"

/* r = sum_i scalars[i] * bases[i], Pippenger with signed windows; nthreads <= 0 uses OpenMP's default.
 * Returns 0, or CZ_ENOMEM (r = infinity) when the buckets cannot be allocated. */
int cz_g1_msm(cz_g1_jac *r, const cz_g1_affine *bases, const cz_fr *scalars, size_t n, int nthreads);
int cz_g2_msm(cz_g2_jac *r, const cz_g2_affine *bases, const cz_fr *scalars, size_t n, int nthreads);
/* The same sum for bases in the prime-order subgroup (every proving key's bases are; infinity allowed):
 * each scalar is split as k0 + k1 x^2 with 128-bit halves and [x^2]P is one cheap map (GLV on G1, psi^2
 * on G2), which halves the windows. For a curve point outside the subgroup the endomorphism is not
 * [x^2] and the result is some other point (never a memory error): use cz_g1_msm / cz_g2_msm there. */
int cz_g1_msm_subgroup(cz_g1_jac *r, const cz_g1_affine *bases, const cz_fr *scalars, size_t n, int nthreads);
int cz_g2_msm_subgroup(cz_g2_jac *r, const cz_g2_affine *bases, const cz_fr *scalars, size_t n, int nthreads);
/* r = sum of bases[i] whose bit i is set in bitmap (64 bits per word, bit i = word i/64, bit i%64). */
void cz_g1_batch_add(cz_g1_jac *r, const cz_g1_affine *bases, const uint64_t *bitmap, size_t n, int nthreads);
void cz_g2_batch_add(cz_g2_jac *r, const cz_g2_affine *bases, const uint64_t *bitmap, size_t n, int nthreads);

/* malloc for arrays of MBs (points, scalars, polynomials): blocks of 2 MiB and more are 2 MiB-aligned
 * with transparent huge pages requested, so that first touching them takes one page fault per 2 MiB
 * instead of per 4 KiB (under this project's VMs a 4 KiB fault costs ~20 us: ~5 ms per MB). Released
 * with free(); NULL when out of memory. */
void *cz_msm_big_alloc(size_t size);

#endif
