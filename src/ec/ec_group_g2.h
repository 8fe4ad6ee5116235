/* The template parameters of the ec/..._impl.h template headers for G2; include before an instantiation and
 * ec/ec_group_end.h after it. No include guard: it is meant to be included once per instantiation. */
#define EC_F cz_fp2
#define EC_FF(op) cz_fp2_##op
#define EC_P(name) cz_g2_##name
#define EC_AFF cz_g2_affine
#define EC_JAC cz_g2_jac
#define EC_XYZZ cz_g2_xyzz
#define EC_ONE CZ_FP2_ONE_V
