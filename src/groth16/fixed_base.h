/* Fixed-base scalar multiplication of the G1/G2 generators, shared by the two setups (bellperson's
 * .params in setup.c, snarkjs' .zkey in snarkjs_setup.c). Private to src/groth16.
 *
 * Setup multiplies the two generators by millions of scalars. A table of d * 2^(c w) * G for the
 * signed digits 1 <= d <= 2^(c-1) of 22 windows of c = 12 bits (45 k points: 4.3 MiB in G1, one
 * window's 192 KiB slice stays in L2 while a chunk of outputs passes over it) turns each product into
 * at most 22 additions. The additions are affine and batched across a chunk of outputs, window by
 * window, with one shared inversion per window and chunk (Montgomery's trick): ~6 products each
 * instead of ~11 for a mixed jacobian addition, and the outputs come out affine with no final
 * normalisation. Affine points are unique, so the output bytes do not depend on the method. */
#ifndef CZ_GROTH16_FIXED_BASE_H
#define CZ_GROTH16_FIXED_BASE_H

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "ec/g1.h"
#include "ec/g2.h"
#include "ec/msm_internal.h"

#define CZ_FB_C 12
#define CZ_FB_WINDOWS ((256 + CZ_FB_C - 1) / CZ_FB_C)
#define CZ_FB_HALF ((size_t)1 << (CZ_FB_C - 1))
/* Outputs per batch: the inversion (~650 products) then costs < 1 product per addition. */
#define CZ_FB_CHUNK 2048
#define CZ_FB_AHEAD 8

enum { CZ_FB_ADD, CZ_FB_DBL, CZ_FB_INF };

#include "ec/ec_group_g1.h"
#include "groth16/fixed_base_impl.h"
#include "ec/ec_group_end.h"
#include "ec/ec_group_g2.h"
#include "groth16/fixed_base_impl.h"
#include "ec/ec_group_end.h"

#endif
