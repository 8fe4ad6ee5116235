/* Ends an instantiation begun with ec/ec_group_g1.h or ec/ec_group_g2.h. */
#undef EC_F
#undef EC_FF
#undef EC_P
#undef EC_AFF
#undef EC_JAC
#undef EC_XYZZ
#undef EC_ONE
