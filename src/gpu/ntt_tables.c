/* Host side of the GPU NTT: the twiddle and scaling tables, computed with the host field code so the
 * device uses exactly the roots the CPU NTT uses (bellperson's omega = 7^((r-1)/2^k), g = 7). */
#include "gpu/gpu_internal.h"

#include "cz_error.h"

/* out[i] = base^i for i < n */
static void powers(cz_fr *out, const cz_fr *base, size_t n, const cz_fr *first) {
    cz_fr acc = *first;
    for (size_t i = 0; i < n; i++) {
        out[i] = acc;
        cz_fr_mul(&acc, &acc, base);
    }
}

/* lo[i] = s * b^i, hi[i] = b^(i << 14) */
static void split_table(cz_fr *lo, cz_fr *hi, const cz_fr *b, const cz_fr *s) {
    cz_fr one = CZ_FR_ONE_V, step = *b;
    powers(lo, b, CZ_GPU_TW_SIZE, s);
    for (unsigned i = 0; i < CZ_GPU_TW_BITS; i++) cz_fr_sqr(&step, &step);
    powers(hi, &step, CZ_GPU_TW_SIZE, &one);
}

int cz_gpu_ntt_tables_(cz_fr *t, unsigned log_n) {
    if (log_n < 1 || log_n > 28) return cz_error(CZ_ERANGE, "GPU NTT size 2^%u outside 2^1..2^28", log_n);
    cz_fr w, wi, g = {CZ_FR_GENERATOR_MONT}, gi, n, ninv, one = CZ_FR_ONE_V, w10, w10i;
    int rc = cz_fr_root_of_unity(&w, log_n);
    if (!rc) rc = cz_fr_inv(&wi, &w);
    if (!rc) rc = cz_fr_inv(&gi, &g);
    cz_fr_set_u64(&n, (uint64_t)1 << log_n);
    if (!rc) rc = cz_fr_inv(&ninv, &n);
    if (!rc) rc = cz_fr_root_of_unity(&w10, CZ_GPU_INNER_LOG);
    if (!rc) rc = cz_fr_inv(&w10i, &w10);
    if (rc) return rc;
    split_table(t + CZ_NTT_T_FWD_LO, t + CZ_NTT_T_FWD_HI, &w, &one);
    split_table(t + CZ_NTT_T_INV_LO, t + CZ_NTT_T_INV_HI, &wi, &one);
    split_table(t + CZ_NTT_T_G_LO, t + CZ_NTT_T_G_HI, &g, &one);
    split_table(t + CZ_NTT_T_POST_LO, t + CZ_NTT_T_POST_HI, &gi, &ninv);
    powers(t + CZ_NTT_T_GN_LO, &g, CZ_GPU_TW_SIZE, &ninv);
    powers(t + CZ_NTT_T_INNER_FWD, &w10, CZ_GPU_INNER_SIZE, &one);
    powers(t + CZ_NTT_T_INNER_INV, &w10i, CZ_GPU_INNER_SIZE, &one);
    t[CZ_NTT_T_NINV] = ninv;
    return 0;
}

int cz_gpu_ntt_direct_(cz_fr *t, unsigned log_n, unsigned s, size_t size, int inv) {
    cz_fr w, one = CZ_FR_ONE_V;
    int rc = cz_fr_root_of_unity(&w, log_n);
    if (!rc && inv) rc = cz_fr_inv(&w, &w);
    if (rc) return rc;
    for (unsigned i = 0; i < s; i++) cz_fr_sqr(&w, &w);
    powers(t, &w, size, &one);
    return 0;
}
