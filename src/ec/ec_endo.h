/* The endomorphisms behind the fast subgroup checks, exposed for tests (which re-check the derived
 * constants) and for anyone who wants GLV/GLS later. Constants are derived on first use. */
#ifndef CZ_EC_ENDO_H
#define CZ_EC_ENDO_H

#include "ec/g1.h"
#include "ec/g2.h"

/* |x| of the BLS parameter x = -0xd201000000010000. */
#define CZ_BLS_X_ABS 0xd201000000010000ULL

/* beta, a primitive cube root of unity in Fp with (beta x, y) = [-x^2](x, y) on G1. */
void cz_g1_glv_beta(cz_fp *r);
/* psi = untwist-Frobenius-twist on G2: psi(x, y) = (conj(x) cx, conj(y) cy); on G2 it acts as [x]. */
void cz_g2_psi(cz_g2_affine *r, const cz_g2_affine *p);
void cz_g2_psi_coeffs(cz_fp2 *cx, cz_fp2 *cy);

#endif
