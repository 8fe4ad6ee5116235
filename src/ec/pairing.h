/* The optimal ate pairing e: G1 x G2 -> GT (in Fp12) of BLS12-381, byte-for-byte the values of
 * @noble/curves (final exponent 3 (p^12 - 1)/r; tests/interop/test_pairing_noble.sh). Inputs are affine
 * points assumed to be in the prime-order subgroups (the decoders check that); a pair with a point at
 * infinity contributes 1. Variable time; no allocation; thread-safe. */
#ifndef CZ_EC_PAIRING_H
#define CZ_EC_PAIRING_H

#include <stdbool.h>
#include <stddef.h>

#include "ec/g1.h"
#include "ec/g2.h"
#include "ff/fp12.h"

/* One line per Miller-loop step on |x| = 0xd201000000010000: 63 doublings and 5 additions. */
#define CZ_PAIRING_LINES 68

/* A line l(P) = c0 + (c1 xP) v + (c2 yP) v w, up to a factor that the final exponentiation removes. */
typedef struct { cz_fp2 c0, c1, c2; } cz_pairing_line;

/* A G2 point with its Miller-loop lines precomputed (19.6 KB), for points paired many times
 * (the verifying key). */
typedef struct {
    cz_pairing_line lines[CZ_PAIRING_LINES];
    bool infinity;
} cz_g2_prepared;

void cz_g2_prepare(cz_g2_prepared *r, const cz_g2_affine *q);

/* Product of the Miller loops of n pairs, sharing the squarings of f (no final exponentiation). */
void cz_miller_loop(cz_fp12 *f, const cz_g1_affine *p, const cz_g2_affine *q, size_t n);
void cz_miller_loop_prepared(cz_fp12 *f, const cz_g1_affine *p, const cz_g2_prepared *const *q, size_t n);
/* f^(3 (p^12 - 1)/r): easy part, then the hard part as an addition chain in x with cyclotomic
 * squarings. r = 0 when f = 0. */
void cz_final_exponentiation(cz_fp12 *r, const cz_fp12 *f);

void cz_pairing(cz_fp12 *e, const cz_g1_affine *p, const cz_g2_affine *q);
/* e = prod e(p[i], q[i]) with one final exponentiation; n = 0 gives 1. */
void cz_multi_pairing(cz_fp12 *e, const cz_g1_affine *p, const cz_g2_affine *q, size_t n);
void cz_multi_pairing_prepared(cz_fp12 *e, const cz_g1_affine *p, const cz_g2_prepared *const *q, size_t n);
/* prod e(p[i], q[i]) == 1 (the shape of Groth16 and BLS signature checks). */
bool cz_pairing_product_is_one(const cz_g1_affine *p, const cz_g2_affine *q, size_t n);
bool cz_pairing_product_is_one_prepared(const cz_g1_affine *p, const cz_g2_prepared *const *q, size_t n);

#endif
