/* G1 of BLS12-381: y^2 = x^3 + 4 over Fp. Affine (infinity = (0,0), 96 bytes, the layout bases
 * have in memory and on the GPU), jacobian and xyzz (bucket) forms; ZCash encodings.
 * Inline: group law. g1.c: conversions, scalar multiplication, checks, encodings. */
#ifndef CZ_EC_G1_H
#define CZ_EC_G1_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "ff/fp.h"
#include "ff/fr.h"

typedef struct { cz_fp x, y; } cz_g1_affine;
typedef struct { cz_fp x, y, z; } cz_g1_jac;
typedef struct { cz_fp x, y, zz, zzz; } cz_g1_xyzz;

#include "ec/ec_group_g1.h"
#include "ec/ec_impl.h"
#include "ec/ec_group_end.h"

/* Decoding flags. */
#define CZ_DECODE_CHECK_SUBGROUP 1u /* also check prime-order subgroup membership (default) */

void cz_g1_generator(cz_g1_affine *r);
void cz_g1_to_affine(cz_g1_affine *r, const cz_g1_jac *p);
/* Converts n jacobian points with one field inversion; out and in must not overlap. */
void cz_g1_batch_to_affine(cz_g1_affine *out, const cz_g1_jac *in, size_t n);
void cz_g1_xyzz_to_affine(cz_g1_affine *r, const cz_g1_xyzz *p);
bool cz_g1_jac_equal(const cz_g1_jac *a, const cz_g1_jac *b);
/* r = k*p for a scalar given as canonical little-endian limbs of nbits bits (variable time). */
void cz_g1_mul_raw(cz_g1_jac *r, const cz_g1_jac *p, const uint64_t *k, size_t nbits);
void cz_g1_mul(cz_g1_jac *r, const cz_g1_jac *p, const cz_fr *k);
/* Curve equation (infinity counts as on the curve). */
bool cz_g1_affine_is_on_curve(const cz_g1_affine *p);
/* Prime-order subgroup membership (fast endomorphism check); infinity is in the subgroup. */
bool cz_g1_affine_is_in_subgroup(const cz_g1_affine *p);
/* ZCash encodings: compressed 48 bytes, uncompressed 96 bytes, big-endian, flags in byte 0
 * (0x80 compressed, 0x40 infinity, 0x20 y lexicographically largest). Decoding checks flags,
 * field range and the curve equation, and the subgroup when flags has CZ_DECODE_CHECK_SUBGROUP;
 * errors are CZ_EINVAL (flags), CZ_ERANGE (coordinate >= p), CZ_ECURVE, CZ_ESUBGROUP. */
void cz_g1_to_compressed(uint8_t out[48], const cz_g1_affine *p);
void cz_g1_to_uncompressed(uint8_t out[96], const cz_g1_affine *p);
int cz_g1_from_compressed(cz_g1_affine *r, const uint8_t in[48], unsigned flags);
int cz_g1_from_uncompressed(cz_g1_affine *r, const uint8_t in[96], unsigned flags);
void cz_g1_random(cz_g1_affine *r, cz_rng *rng); /* k*G for random k */

#endif
