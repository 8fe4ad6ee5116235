/* G2 of BLS12-381: y^2 = x^3 + 4(u+1) over Fp2. Affine (infinity = (0,0), 192 bytes, the layout bases
 * have in memory and on the GPU), jacobian and xyzz (bucket) forms; ZCash encodings.
 * Inline: group law. g2.c: conversions, scalar multiplication, checks, encodings. */
#ifndef CZ_EC_G2_H
#define CZ_EC_G2_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "ff/fp2.h"
#include "ff/fr.h"

typedef struct { cz_fp2 x, y; } cz_g2_affine;
typedef struct { cz_fp2 x, y, z; } cz_g2_jac;
typedef struct { cz_fp2 x, y, zz, zzz; } cz_g2_xyzz;

#include "ec/ec_group_g2.h"
#include "ec/ec_impl.h"
#include "ec/ec_group_end.h"

/* Decoding flags. */
#define CZ_DECODE_CHECK_SUBGROUP 1u /* also check prime-order subgroup membership (default) */

void cz_g2_generator(cz_g2_affine *r);
void cz_g2_to_affine(cz_g2_affine *r, const cz_g2_jac *p);
/* Converts n jacobian points with one field inversion; out and in must not overlap. */
void cz_g2_batch_to_affine(cz_g2_affine *out, const cz_g2_jac *in, size_t n);
void cz_g2_xyzz_to_affine(cz_g2_affine *r, const cz_g2_xyzz *p);
bool cz_g2_jac_equal(const cz_g2_jac *a, const cz_g2_jac *b);
/* r = k*p for a scalar given as canonical little-endian limbs of nbits bits (variable time). */
void cz_g2_mul_raw(cz_g2_jac *r, const cz_g2_jac *p, const uint64_t *k, size_t nbits);
void cz_g2_mul(cz_g2_jac *r, const cz_g2_jac *p, const cz_fr *k);
/* Curve equation (infinity counts as on the curve). */
bool cz_g2_affine_is_on_curve(const cz_g2_affine *p);
/* Prime-order subgroup membership (fast endomorphism check); infinity is in the subgroup. */
bool cz_g2_affine_is_in_subgroup(const cz_g2_affine *p);
/* ZCash encodings: compressed 96 bytes, uncompressed 192 bytes (x.c1 before x.c0), big-endian, flags in byte 0
 * (0x80 compressed, 0x40 infinity, 0x20 y lexicographically largest comparing c1 first). Decoding checks flags,
 * field range and the curve equation, and the subgroup when flags has CZ_DECODE_CHECK_SUBGROUP;
 * errors are CZ_EINVAL (flags), CZ_ERANGE (coordinate >= p), CZ_ECURVE, CZ_ESUBGROUP. */
void cz_g2_to_compressed(uint8_t out[96], const cz_g2_affine *p);
void cz_g2_to_uncompressed(uint8_t out[192], const cz_g2_affine *p);
int cz_g2_from_compressed(cz_g2_affine *r, const uint8_t in[96], unsigned flags);
int cz_g2_from_uncompressed(cz_g2_affine *r, const uint8_t in[192], unsigned flags);
void cz_g2_random(cz_g2_affine *r, cz_rng *rng); /* k*G for random k */

#endif
