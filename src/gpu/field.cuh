/* Device Montgomery arithmetic for Fr (8x32 limbs) and Fp (12x32 limbs): the host's 4x64 / 6x64
 * little-endian fully reduced limbs read as 32-bit words, so R is the same (2^256 / 2^384) and the
 * bytes agree with src/ff exactly. Both moduli leave the top bit clear with room to spare, which
 * allows the no-carry CIOS product (as the host's mont_impl.h does with 64-bit limbs). */
#ifndef CZ_GPU_FIELD_CUH
#define CZ_GPU_FIELD_CUH

#include <stdint.h>

#include "ff/constants.h"

#define CZ_DEV __device__ __forceinline__

struct cz_fr_cfg {
    enum { N = 8 };
    static CZ_DEV uint32_t p(int i) {
        constexpr uint64_t P[4] = CZ_FR_MODULUS;
        return (uint32_t)(P[i / 2] >> (32 * (i % 2)));
    }
    static CZ_DEV uint32_t one(int i) {
        constexpr uint64_t R[4] = CZ_FR_R;
        return (uint32_t)(R[i / 2] >> (32 * (i % 2)));
    }
    static constexpr uint32_t inv = (uint32_t)CZ_FR_INV; /* -p^-1 mod 2^32 */
};

struct cz_fp_cfg {
    enum { N = 12 };
    static CZ_DEV uint32_t p(int i) {
        constexpr uint64_t P[6] = CZ_FP_MODULUS;
        return (uint32_t)(P[i / 2] >> (32 * (i % 2)));
    }
    static CZ_DEV uint32_t one(int i) {
        constexpr uint64_t R[6] = CZ_FP_R;
        return (uint32_t)(R[i / 2] >> (32 * (i % 2)));
    }
    static constexpr uint32_t inv = (uint32_t)CZ_FP_INV;
};

template <class C>
struct cz_dfield {
    enum { N = C::N };
    uint32_t v[N];

    static CZ_DEV cz_dfield zero() {
        cz_dfield r;
#pragma unroll
        for (int i = 0; i < N; i++) r.v[i] = 0;
        return r;
    }
    static CZ_DEV cz_dfield one() {
        cz_dfield r;
#pragma unroll
        for (int i = 0; i < N; i++) r.v[i] = C::one(i);
        return r;
    }
    CZ_DEV bool is_zero() const {
        uint32_t acc = 0;
#pragma unroll
        for (int i = 0; i < N; i++) acc |= v[i];
        return acc == 0;
    }
    CZ_DEV bool operator==(const cz_dfield &b) const {
        uint32_t acc = 0;
#pragma unroll
        for (int i = 0; i < N; i++) acc |= v[i] ^ b.v[i];
        return acc == 0;
    }

    /* r = t - p if t >= p (t < 2p). */
    static CZ_DEV void reduce_once(uint32_t r[N], const uint32_t t[N]) {
        uint32_t s[N];
        int64_t b = 0;
#pragma unroll
        for (int i = 0; i < N; i++) {
            b += (int64_t)t[i] - C::p(i);
            s[i] = (uint32_t)b;
            b >>= 32; /* arithmetic: 0 or -1 */
        }
        bool keep = b < 0;
#pragma unroll
        for (int i = 0; i < N; i++) r[i] = keep ? t[i] : s[i];
    }

    friend CZ_DEV cz_dfield operator+(const cz_dfield &a, const cz_dfield &b) {
        uint32_t t[N];
        uint64_t c = 0;
#pragma unroll
        for (int i = 0; i < N; i++) {
            c += (uint64_t)a.v[i] + b.v[i];
            t[i] = (uint32_t)c;
            c >>= 32;
        }
        cz_dfield r;
        reduce_once(r.v, t);
        return r;
    }

    friend CZ_DEV cz_dfield operator-(const cz_dfield &a, const cz_dfield &b) {
        uint32_t t[N];
        int64_t bw = 0;
#pragma unroll
        for (int i = 0; i < N; i++) {
            bw += (int64_t)a.v[i] - b.v[i];
            t[i] = (uint32_t)bw;
            bw >>= 32;
        }
        /* add p back when a < b */
        uint32_t mask = bw < 0 ? 0xffffffffu : 0;
        cz_dfield r;
        uint64_t c = 0;
#pragma unroll
        for (int i = 0; i < N; i++) {
            c += (uint64_t)t[i] + (C::p(i) & mask);
            r.v[i] = (uint32_t)c;
            c >>= 32;
        }
        return r;
    }

    CZ_DEV cz_dfield neg() const { return zero() - *this; }
    CZ_DEV cz_dfield dbl() const { return *this + *this; }

#ifdef CZ_GPU_PTX_MUL
    /* Off by default: measured slower on the H200 (NTT 2^27 103.6 ms against 75.7 ms for the version
     * below; IMAD.HI runs at half rate on Hopper). Kept for comparison (-DCZ_GPU_PTX_MUL); bit-exact.
     * Montgomery product a*b/R mod p: CIOS row by row with PTX carry chains (mad.lo.cc / madc.hi.cc),
     * N+1 words of accumulator (both moduli are at least 2 bits short of the limbs, so t + a*b_i + m*p
     * fits: t < p(2 + 2^33) < 2^(32N+32)). The chains are volatile so they stay in order; the carry
     * flag is not visible to the compiler. */
    friend CZ_DEV cz_dfield operator*(const cz_dfield &a, const cz_dfield &b) {
        uint32_t t[N + 1];
#pragma unroll
        for (int j = 0; j <= N; j++) t[j] = 0;
#pragma unroll
        for (int i = 0; i < N; i++) {
            const uint32_t bi = b.v[i];
            asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[0]) : "r"(a.v[0]), "r"(bi));
#pragma unroll
            for (int j = 1; j < N; j++) asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[j]) : "r"(a.v[j]), "r"(bi));
            asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[N]));
            asm volatile("mad.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[1]) : "r"(a.v[0]), "r"(bi));
#pragma unroll
            for (int j = 1; j < N - 1; j++) asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[j + 1]) : "r"(a.v[j]), "r"(bi));
            asm volatile("madc.hi.u32 %0, %1, %2, %0;" : "+r"(t[N]) : "r"(a.v[N - 1]), "r"(bi));
            const uint32_t m = t[0] * C::inv;
            asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[0]) : "r"(m), "r"(C::p(0)));
#pragma unroll
            for (int j = 1; j < N; j++) asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[j]) : "r"(m), "r"(C::p(j)));
            asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[N]));
            asm volatile("mad.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[1]) : "r"(m), "r"(C::p(0)));
#pragma unroll
            for (int j = 1; j < N - 1; j++) asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[j + 1]) : "r"(m), "r"(C::p(j)));
            asm volatile("madc.hi.u32 %0, %1, %2, %0;" : "+r"(t[N]) : "r"(m), "r"(C::p(N - 1)));
            /* t[0] is now 0: divide by 2^32 */
#pragma unroll
            for (int j = 0; j < N; j++) t[j] = t[j + 1];
            t[N] = 0;
        }
        cz_dfield r;
        reduce_once(r.v, t);
        return r;
    }
#else
    /* Montgomery product a*b/R mod p: CIOS, 32-bit limbs, 64-bit accumulators (IMAD.WIDE): the default. */
    friend CZ_DEV cz_dfield operator*(const cz_dfield &a, const cz_dfield &b) {
        uint32_t t[N];
#pragma unroll
        for (int j = 0; j < N; j++) t[j] = 0;
#pragma unroll
        for (int i = 0; i < N; i++) {
            const uint32_t bi = b.v[i];
            uint64_t acc = (uint64_t)a.v[0] * bi + t[0];
            uint32_t A = (uint32_t)(acc >> 32);
            const uint32_t t0 = (uint32_t)acc;
            const uint32_t m = t0 * C::inv;
            uint64_t red = (uint64_t)m * C::p(0) + t0;
            uint32_t Cy = (uint32_t)(red >> 32);
#pragma unroll
            for (int j = 1; j < N; j++) {
                acc = (uint64_t)a.v[j] * bi + t[j] + A;
                A = (uint32_t)(acc >> 32);
                red = (uint64_t)m * C::p(j) + (uint32_t)acc + Cy;
                Cy = (uint32_t)(red >> 32);
                t[j - 1] = (uint32_t)red;
            }
            t[N - 1] = Cy + A;
        }
        cz_dfield r;
        reduce_once(r.v, t);
        return r;
    }
#endif
    CZ_DEV cz_dfield sqr() const { return *this * *this; }
};

typedef cz_dfield<cz_fr_cfg> cz_dfr;
typedef cz_dfield<cz_fp_cfg> cz_dfp;

/* 16-byte loads/stores of elements in global or shared memory (alignment: 32 B for Fr, 16 B for Fp). */
template <class F>
CZ_DEV F cz_ld(const F *p) {
    F r;
    const uint4 *q = reinterpret_cast<const uint4 *>(p);
#pragma unroll
    for (int i = 0; i < F::N / 4; i++) {
        uint4 w = q[i];
        r.v[4 * i] = w.x;
        r.v[4 * i + 1] = w.y;
        r.v[4 * i + 2] = w.z;
        r.v[4 * i + 3] = w.w;
    }
    return r;
}
template <class F>
CZ_DEV void cz_st(F *p, const F &a) {
    uint4 *q = reinterpret_cast<uint4 *>(p);
#pragma unroll
    for (int i = 0; i < F::N / 4; i++) q[i] = make_uint4(a.v[4 * i], a.v[4 * i + 1], a.v[4 * i + 2], a.v[4 * i + 3]);
}

#endif
