/* Device G2 (y^2 = x^3 + 4(u + 1) over Fp2): the generic group law of ec.cuh over cz_dfp2 (affine bases
 * 192 B, xyzz accumulators 384 B, the host's cz_g2_affine / cz_g2_xyzz layouts). */
#ifndef CZ_GPU_G2_CUH
#define CZ_GPU_G2_CUH

#include "gpu/ec.cuh"

typedef cz_daff<cz_dfp2> cz_dg2_aff;
typedef cz_dxyzz<cz_dfp2> cz_dg2_xyzz;

#endif
