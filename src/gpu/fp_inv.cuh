/* Device field inversion and shuffle helpers for the batch-affine additions (msm_impl.cuh).
 *
 * The inversion runs in ONE thread per batch of thousands of elements (Montgomery's trick at grid
 * scale), so its latency, not its throughput, is what counts: Fermat (a^(p-2), ~460 dependent
 * products of ~1200 cycles each) would take ~0.3 ms; the binary extended Euclid below runs on plain
 * 12x32-bit integers (shifts and subtractions, ~1,100 short steps) in a fraction of that.
 * The input is a Montgomery form aR != 0; the integer inverse (aR)^-1 is taken back to Montgomery form
 * a^-1 R with one product by R^3 (mont(w, R^3) = w R^2). Fp2 inverts through the norm. */
#ifndef CZ_GPU_FP_INV_CUH
#define CZ_GPU_FP_INV_CUH

#include "gpu/field.cuh"

/* r = a - b on 12-limb integers; returns the borrow (1 when a < b). */
static CZ_DEV uint32_t cz_fpi_sub(uint32_t *r, const uint32_t *a, const uint32_t *b) {
    int64_t bw = 0;
#pragma unroll
    for (int i = 0; i < 12; i++) {
        bw += (int64_t)a[i] - b[i];
        r[i] = (uint32_t)bw;
        bw >>= 32;
    }
    return bw < 0;
}

/* x += p on 12-limb integers (the caller knows the sum fits: x < p, or x wrapped below 0 by a subtraction). */
static CZ_DEV void cz_fpi_add_p(uint32_t *x) {
    uint64_t c = 0;
#pragma unroll
    for (int i = 0; i < 12; i++) {
        c += (uint64_t)x[i] + cz_fp_cfg::p(i);
        x[i] = (uint32_t)c;
        c >>= 32;
    }
}

/* x = x / 2 mod p for x < p (x + p < 2^382 fits). */
static CZ_DEV void cz_fpi_half(uint32_t *x) {
    if (x[0] & 1) cz_fpi_add_p(x);
#pragma unroll
    for (int i = 0; i < 11; i++) x[i] = __funnelshift_r(x[i], x[i + 1], 1);
    x[11] >>= 1;
}

static CZ_DEV void cz_fpi_shr1(uint32_t *u) {
#pragma unroll
    for (int i = 0; i < 11; i++) u[i] = __funnelshift_r(u[i], u[i + 1], 1);
    u[11] >>= 1;
}

static CZ_DEV bool cz_fpi_is_one(const uint32_t *u) {
    uint32_t acc = u[0] ^ 1;
#pragma unroll
    for (int i = 1; i < 12; i++) acc |= u[i];
    return acc == 0;
}

/* a^-1 in Montgomery form (a != 0; a = 0 gives 0). Binary extended Euclid (u, v, x1, x2 with
 * x1 * a = u, x2 * a = v mod p): halve the even one of u, v (and its x mod p), subtract the smaller
 * from the larger, until one of them is 1. */
static __device__ __noinline__ cz_dfp cz_fp_inv(const cz_dfp &a) {
    if (a.is_zero()) return a;
    uint32_t u[12], v[12], x1[12], x2[12], t[12];
#pragma unroll
    for (int i = 0; i < 12; i++) {
        u[i] = a.v[i];
        v[i] = cz_fp_cfg::p(i);
        x1[i] = i == 0;
        x2[i] = 0;
    }
#pragma unroll 1
    while (!cz_fpi_is_one(u) && !cz_fpi_is_one(v)) {
#pragma unroll 1
        while (!(u[0] & 1)) {
            cz_fpi_shr1(u);
            cz_fpi_half(x1);
        }
#pragma unroll 1
        while (!(v[0] & 1)) {
            cz_fpi_shr1(v);
            cz_fpi_half(x2);
        }
        if (!cz_fpi_sub(t, u, v)) { /* u >= v */
#pragma unroll
            for (int i = 0; i < 12; i++) u[i] = t[i];
            if (cz_fpi_sub(x1, x1, x2)) cz_fpi_add_p(x1); /* mod p */
        } else {
            cz_fpi_sub(v, v, u);
            if (cz_fpi_sub(x2, x2, x1)) cz_fpi_add_p(x2); /* mod p */
        }
    }
    cz_dfp w, r3;
    const bool uo = cz_fpi_is_one(u);
#pragma unroll
    for (int i = 0; i < 12; i++) w.v[i] = uo ? x1[i] : x2[i];
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

/* Shuffles of whole field elements (field.cuh has shfl_down only). */
static CZ_DEV cz_dfp cz_shfl_up(const cz_dfp &a, unsigned off) {
    cz_dfp r;
#pragma unroll
    for (int i = 0; i < 12; i++) r.v[i] = __shfl_up_sync(0xffffffffu, a.v[i], off);
    return r;
}
static CZ_DEV cz_dfp2 cz_shfl_up(const cz_dfp2 &a, unsigned off) { return {cz_shfl_up(a.c0, off), cz_shfl_up(a.c1, off)}; }
static CZ_DEV cz_dfp cz_shfl_down(const cz_dfp &a, unsigned off) { return a.shfl_down(off); }
static CZ_DEV cz_dfp2 cz_shfl_down(const cz_dfp2 &a, unsigned off) { return a.shfl_down(off); }

#endif
