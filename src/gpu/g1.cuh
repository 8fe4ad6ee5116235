/* Device G1 (y^2 = x^3 + 4 over Fp): the generic group law of ec.cuh over cz_dfp, under the G1 names
 * the kernels use (affine bases 96 B, xyzz accumulators 192 B, the host's layouts). */
#ifndef CZ_GPU_G1_CUH
#define CZ_GPU_G1_CUH

#include "gpu/ec.cuh"

typedef cz_daff<cz_dfp> cz_dg1_aff;
typedef cz_dxyzz<cz_dfp> cz_dg1_xyzz;

static CZ_DEV cz_dg1_aff cz_dg1_ld_aff(const cz_dg1_aff *p) { return cz_ec_ld_aff(p); }
static CZ_DEV cz_dg1_xyzz cz_dg1_ld(const cz_dg1_xyzz *p) { return cz_ec_ld(p); }
static CZ_DEV void cz_dg1_st(cz_dg1_xyzz *p, const cz_dg1_xyzz &a) { cz_ec_st(p, a); }
static CZ_DEV cz_dg1_xyzz cz_dg1_dbl(const cz_dg1_xyzz &p) { return cz_ec_dbl(p); }
static CZ_DEV cz_dg1_xyzz cz_dg1_dbl_aff(const cz_dg1_aff &q) { return cz_ec_dbl_aff(q); }
static CZ_DEV cz_dg1_xyzz cz_dg1_add_aff_inl(const cz_dg1_xyzz &p, const cz_dg1_aff &q) { return cz_ec_add_aff_inl(p, q); }
static CZ_DEV cz_dg1_xyzz cz_dg1_add_aff(const cz_dg1_xyzz &p, const cz_dg1_aff &q) { return cz_ec_add_aff(p, q); }
static CZ_DEV cz_dg1_xyzz cz_dg1_add(const cz_dg1_xyzz &p, const cz_dg1_xyzz &q) { return cz_ec_add(p, q); }
static CZ_DEV cz_dg1_xyzz cz_dg1_warp_sum(cz_dg1_xyzz a) { return cz_ec_warp_sum(a); }

#endif
