/* CPU 0/1 batch addition for G1 and G2: the two instantiations of batch_add_impl.h. */
#include <omp.h>
#include <stdlib.h>

#include "ec/msm.h"
#include "ec/msm_internal.h"

/* How a pair of buffered points is added: distinct x, doubling, or opposite points. */
enum { CZ_BADD_ADD, CZ_BADD_DBL, CZ_BADD_INF };

#define EC_F cz_fp
#define EC_FF(op) cz_fp_##op
#define EC_P(name) cz_g1_##name
#define EC_AFF cz_g1_affine
#define EC_JAC cz_g1_jac
#define EC_XYZZ cz_g1_xyzz
#define EC_ONE CZ_FP_ONE_V
#include "ec/batch_add_impl.h"
#undef EC_F
#undef EC_FF
#undef EC_P
#undef EC_AFF
#undef EC_JAC
#undef EC_XYZZ
#undef EC_ONE

#define EC_F cz_fp2
#define EC_FF(op) cz_fp2_##op
#define EC_P(name) cz_g2_##name
#define EC_AFF cz_g2_affine
#define EC_JAC cz_g2_jac
#define EC_XYZZ cz_g2_xyzz
#define EC_ONE CZ_FP2_ONE_V
#include "ec/batch_add_impl.h"
#undef EC_F
#undef EC_FF
#undef EC_P
#undef EC_AFF
#undef EC_JAC
#undef EC_XYZZ
#undef EC_ONE
