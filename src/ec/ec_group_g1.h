/* The template parameters of the ec/..._impl.h template headers for G1; include before an instantiation and
 * ec/ec_group_end.h after it. No include guard: it is meant to be included once per instantiation. */
#define EC_F cz_fp
#define EC_FF(op) cz_fp_##op
#define EC_P(name) cz_g1_##name
#define EC_AFF cz_g1_affine
#define EC_JAC cz_g1_jac
#define EC_XYZZ cz_g1_xyzz
#define EC_ONE CZ_FP_ONE_V
