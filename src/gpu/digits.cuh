/* Signed (Booth) window digits of a canonical 256-bit scalar held as eight 32-bit words ld apart (ld = 1: one
 * scalar's words in a row; the MSM's word planes: n apart), shared by the MSM's digit kernel and the fixed-base
 * products. The same digits as the host's cz_msm_digit_ (ec/msm_internal.h). */
#ifndef CZ_GPU_DIGITS_CUH
#define CZ_GPU_DIGITS_CUH

#include <stdint.h>

/* window w of c bits (c <= 31): bits [w c - 1, w c + c) of s (bit -1 = 0), value in [-2^(c-1), 2^(c-1)] */
static __device__ __forceinline__ int32_t cz_booth_digit(const uint32_t *s, size_t ld, unsigned w, unsigned c) {
    const int lo = (int)(w * c) - 1; /* first bit */
    uint64_t bits;
    if (lo < 0) {
        bits = ((uint64_t)s[0] << 1);
    } else {
        const unsigned limb = lo >> 5, sh = lo & 31;
        uint64_t v = s[limb * ld]; /* w c - 1 <= 255: the caller's windows start inside the scalar */
        if (limb + 1 < 8) v |= (uint64_t)s[(limb + 1) * ld] << 32;
        bits = v >> sh;
        /* a third word only when the c + 1 bits reach past the two (c > 31 - sh + 32: never for c <= 31) */
        if (sh && sh + c + 1 > 64 && limb + 2 < 8) bits |= (uint64_t)s[(limb + 2) * ld] << (64 - sh);
    }
    const uint32_t wval = (uint32_t)(bits & ((1u << (c + 1)) - 1));
    const uint32_t neg = wval >> c;       /* top bit: negative digit */
    const uint32_t mag = (wval + 1) >> 1; /* (lower bits + borrow-in bit) */
    return neg ? (int32_t)mag - (1 << c) : (int32_t)mag;
}

#endif
