/* Device field inversion and shuffle helpers for the batch-affine additions (msm_impl.cuh).
 *
 * The inversion runs in ONE thread per batch of thousands of elements (Montgomery's trick at grid
 * scale), so its latency, not its throughput, is what counts: Fermat (a^(p-2), ~460 dependent
 * products of ~1200 cycles each) would take ~0.3 ms, the plain binary extended Euclid (~1,100 shift /
 * subtract steps on 12 limbs) took ~0.15 ms on the H200; below is Pornin's version of it, which batches
 * 30 steps at a time on 64-bit stand-ins. The input is a Montgomery form aR != 0; the integer inverse
 * (aR)^-1 is taken back to Montgomery form a^-1 R with one product by R^3 (mont(w, R^3) = w R^2). Fp2
 * inverts through the norm. */
#ifndef CZ_GPU_FP_INV_CUH
#define CZ_GPU_FP_INV_CUH

#include "gpu/field.cuh"

/* Pornin's optimised binary GCD ("Optimized Binary GCD for Modular Inversion", IACR ePrint 2020/972),
 * variable time, on 12x32-bit limbs. Invariants a = u y, b = v y (mod p), b odd, 0 <= a, b < 2^381; an
 * outer step runs 30 binary-GCD steps on 62-bit stand-ins of a and b (their low 30 bits, exact, and the
 * top 32 bits of both at the same position) that only decide, and records them in a matrix of
 * signed factors (|f| + |g| <= 2^30 per row), then applies it to the full a, b (an exact division by
 * 2^30) and to u, v (a Montgomery division by 2^30 mod p). When a stand-in decision was wrong, a or b
 * comes out negative and is negated with its row; the invariants hold either way, and the paper shows
 * the sizes still fall by ~30 bits per step: ~26 outer steps for 381 bits against ~1,100 shift /
 * subtract steps of the plain algorithm. Ends with a = 0, b = gcd = 1, v = y^-1. */
#define CZ_FPI_K 30

/* bit length of a 12-limb integer */
static CZ_DEV int cz_fpi_bitlen(const uint32_t *x) {
    int n = 0;
#pragma unroll
    for (int i = 0; i < 12; i++)
        if (x[i]) n = 32 * i + 32 - __clz(x[i]);
    return n;
}

/* the 32 bits of x starting at bit s (s + 32 <= 384 + 32; limbs past 11 read as 0) */
static CZ_DEV uint32_t cz_fpi_bits32(const uint32_t *x, int s) {
    const int q = s >> 5, r = s & 31;
    uint32_t lo = 0, hi = 0;
#pragma unroll
    for (int i = 0; i < 12; i++) {
        lo = i == q ? x[i] : lo;
        hi = i == q + 1 ? x[i] : hi;
    }
    return __funnelshift_r(lo, hi, r);
}

/* t = f x + g y on 13-limb two's complement (|t| < 2^412): both products by the factors' magnitudes,
 * each negated through xor with its sign mask plus one carried in. */
static CZ_DEV void cz_fpi_lin(uint32_t *t, const uint32_t *x, int32_t f, const uint32_t *y, int32_t g) {
    const uint32_t af = f < 0 ? 0u - (uint32_t)f : (uint32_t)f, ag = g < 0 ? 0u - (uint32_t)g : (uint32_t)g;
    const uint32_t mf = f < 0 ? 0xffffffffu : 0, mg = g < 0 ? 0xffffffffu : 0;
    uint64_t cx = 0, cy = 0, acc = (uint64_t)(f < 0) + (g < 0);
#pragma unroll
    for (int i = 0; i < 13; i++) {
        if (i < 12) cx += (uint64_t)x[i] * af, cy += (uint64_t)y[i] * ag;
        acc += (uint64_t)((uint32_t)cx ^ mf) + ((uint32_t)cy ^ mg);
        t[i] = (uint32_t)acc;
        acc >>= 32, cx >>= 32, cy >>= 32;
    }
}

/* t >>= 30, arithmetic, on 13 limbs */
static CZ_DEV void cz_fpi_sar(uint32_t *t) {
#pragma unroll
    for (int i = 0; i < 12; i++) t[i] = __funnelshift_r(t[i], t[i + 1], CZ_FPI_K);
    t[12] = (uint32_t)((int32_t)t[12] >> CZ_FPI_K);
}

/* a = (f a0 + g b0) / 2^30 (exact); when negative, negated along with f and g */
static CZ_DEV void cz_fpi_upd_ab(uint32_t *r, const uint32_t *a0, const uint32_t *b0, int32_t &f, int32_t &g) {
    uint32_t t[13];
    cz_fpi_lin(t, a0, f, b0, g);
    cz_fpi_sar(t);
    if ((int32_t)t[12] < 0) {
        uint64_t c = 1;
#pragma unroll
        for (int i = 0; i < 12; i++) {
            c += (uint32_t)~t[i];
            t[i] = (uint32_t)c;
            c >>= 32;
        }
        f = -f, g = -g;
    }
#pragma unroll
    for (int i = 0; i < 12; i++) r[i] = t[i];
}

/* r = (f u + g v) / 2^30 mod p, for u, v < p: adds q p (q < 2^30) so the low 30 bits vanish, shifts
 * (the result is in (-p, 2p)), then one correction */
static CZ_DEV void cz_fpi_upd_uv(uint32_t *r, const uint32_t *u, const uint32_t *v, int32_t f, int32_t g) {
    uint32_t t[13];
    cz_fpi_lin(t, u, f, v, g);
    const uint32_t q = (t[0] * cz_fp_cfg::inv) & ((1u << CZ_FPI_K) - 1); /* -t p^-1 mod 2^30 */
    uint64_t c = 0, acc = 0;
#pragma unroll
    for (int i = 0; i < 13; i++) {
        if (i < 12) c += (uint64_t)cz_fp_cfg::p(i) * q;
        acc += (uint64_t)t[i] + (uint32_t)c;
        t[i] = (uint32_t)acc;
        acc >>= 32, c >>= 32;
    }
    cz_fpi_sar(t);
    const bool neg = (int32_t)t[12] < 0;
    uint32_t s[12];
    int64_t bw = 0;
#pragma unroll
    for (int i = 0; i < 12; i++) { /* s = t - p */
        bw += (int64_t)t[i] - cz_fp_cfg::p(i);
        s[i] = (uint32_t)bw;
        bw >>= 32;
    }
    const bool ge = !neg && (t[12] != 0 || bw == 0); /* t >= p */
    uint64_t ca = 0;
#pragma unroll
    for (int i = 0; i < 12; i++) { /* t + p when negative */
        ca += (uint64_t)t[i] + cz_fp_cfg::p(i);
        const uint32_t w = (uint32_t)ca;
        ca >>= 32;
        r[i] = neg ? w : ge ? s[i] : t[i];
    }
}

/* a^-1 in Montgomery form (a = 0 gives 0). The input aR is inverted as an integer; one product by R^3
 * takes (aR)^-1 to a^-1 R. Outer steps are capped (the paper's bound for 381 bits is well below 64). */
static __device__ __noinline__ cz_dfp cz_fp_inv(const cz_dfp &a) {
    if (a.is_zero()) return a;
    uint32_t A[12], B[12], U[12], V[12];
#pragma unroll
    for (int i = 0; i < 12; i++) {
        A[i] = a.v[i];
        B[i] = cz_fp_cfg::p(i);
        U[i] = i == 0;
        V[i] = 0;
    }
#pragma unroll 1
    for (int it = 0; it < 64; it++) {
        uint32_t nz = 0;
#pragma unroll
        for (int i = 0; i < 12; i++) nz |= A[i];
        if (!nz) break;
        int n = cz_fpi_bitlen(A), nb = cz_fpi_bitlen(B);
        n = n > nb ? n : nb;
        n = n > 2 * CZ_FPI_K + 2 ? n : 2 * CZ_FPI_K + 2;
        const uint64_t lm = (1u << CZ_FPI_K) - 1;
        uint64_t xa = ((uint64_t)cz_fpi_bits32(A, n - 32) << CZ_FPI_K) | (A[0] & lm);
        uint64_t xb = ((uint64_t)cz_fpi_bits32(B, n - 32) << CZ_FPI_K) | (B[0] & lm);
        int32_t f0 = 1, g0 = 0, f1 = 0, g1 = 1;
#pragma unroll 1
        for (int i = 0; i < CZ_FPI_K; i++) {
            if (xa & 1) {
                if (xa < xb) {
                    const uint64_t t = xa;
                    xa = xb, xb = t;
                    int32_t s = f0;
                    f0 = f1, f1 = s;
                    s = g0, g0 = g1, g1 = s;
                }
                xa -= xb, f0 -= f1, g0 -= g1;
            }
            xa >>= 1, f1 *= 2, g1 *= 2;
        }
        uint32_t na[12], nb2[12], nu[12];
        cz_fpi_upd_ab(na, A, B, f0, g0);
        cz_fpi_upd_ab(nb2, A, B, f1, g1);
        cz_fpi_upd_uv(nu, U, V, f0, g0);
        cz_fpi_upd_uv(V, U, V, f1, g1);
#pragma unroll
        for (int i = 0; i < 12; i++) A[i] = na[i], B[i] = nb2[i], U[i] = nu[i];
    }
    cz_dfp w, r3;
#pragma unroll
    for (int i = 0; i < 12; i++) w.v[i] = V[i];
    constexpr uint64_t R3[6] = CZ_FP_R3;
#pragma unroll
    for (int i = 0; i < 12; i++) r3.v[i] = (uint32_t)(R3[i / 2] >> (32 * (i % 2)));
    return w * r3;
}

/* (c0 + c1 u)^-1 = (c0 - c1 u) / (c0^2 + c1^2) (u^2 = -1) */
static __device__ __noinline__ cz_dfp2 cz_fp_inv(const cz_dfp2 &a) {
    cz_dfp t = cz_fp_inv(a.c0.sqr() + a.c1.sqr());
    return {a.c0 * t, (a.c1 * t).neg()};
}

/* Shuffles of whole field elements, as free functions for the templates over F. */
template <class F>
static CZ_DEV F cz_shfl_up(const F &a, unsigned off) { return a.shfl_up(off); }
template <class F>
static CZ_DEV F cz_shfl_down(const F &a, unsigned off) { return a.shfl_down(off); }

#endif
