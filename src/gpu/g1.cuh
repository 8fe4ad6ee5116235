/* Device G1 (y^2 = x^3 + 4 over Fp): affine bases (x, y; infinity = (0,0), 96 B as on the host) and
 * xyzz accumulators (x, y, zz, zzz; infinity = zz 0, 192 B, the host's cz_g1_xyzz layout).
 * Same formulas as src/ec/ec_impl.h (EFD "xyzz" madd/add/dbl for a = 0). The group-law functions are
 * not inlined: each is thousands of instructions and inlining them everywhere made ptxas take minutes. */
#ifndef CZ_GPU_G1_CUH
#define CZ_GPU_G1_CUH

#include "gpu/field.cuh"

struct cz_dg1_aff {
    cz_dfp x, y;
    CZ_DEV bool is_inf() const { return x.is_zero() && y.is_zero(); }
};

struct cz_dg1_xyzz {
    cz_dfp x, y, zz, zzz;
    static CZ_DEV cz_dg1_xyzz inf() {
        cz_dg1_xyzz r;
        r.x = r.y = r.zz = r.zzz = cz_dfp::zero();
        return r;
    }
    CZ_DEV bool is_inf() const { return zz.is_zero(); }
};

static CZ_DEV cz_dg1_aff cz_dg1_ld_aff(const cz_dg1_aff *p) {
    cz_dg1_aff r;
    r.x = cz_ld(&p->x);
    r.y = cz_ld(&p->y);
    return r;
}
static CZ_DEV cz_dg1_xyzz cz_dg1_ld(const cz_dg1_xyzz *p) {
    cz_dg1_xyzz r;
    r.x = cz_ld(&p->x);
    r.y = cz_ld(&p->y);
    r.zz = cz_ld(&p->zz);
    r.zzz = cz_ld(&p->zzz);
    return r;
}
static CZ_DEV void cz_dg1_st(cz_dg1_xyzz *p, const cz_dg1_xyzz &a) {
    cz_st(&p->x, a.x);
    cz_st(&p->y, a.y);
    cz_st(&p->zz, a.zz);
    cz_st(&p->zzz, a.zzz);
}

static __device__ __noinline__ cz_dg1_xyzz cz_dg1_dbl(const cz_dg1_xyzz &p) {
    if (p.is_inf()) return p;
    cz_dfp u = p.y.dbl(), v = u.sqr(), w = u * v, s = p.x * v, m = p.x.sqr();
    m = m + m.dbl();
    cz_dg1_xyzz r;
    r.zz = v * p.zz;
    r.zzz = w * p.zzz;
    r.x = m.sqr() - s.dbl();
    r.y = m * (s - r.x) - w * p.y;
    return r;
}

static __device__ __noinline__ cz_dg1_xyzz cz_dg1_dbl_aff(const cz_dg1_aff &q) {
    cz_dfp u = q.y.dbl(), v = u.sqr(), w = u * v, s = q.x * v, m = q.x.sqr();
    m = m + m.dbl();
    cz_dg1_xyzz r;
    r.zz = v;
    r.zzz = w;
    r.x = m.sqr() - s.dbl();
    r.y = m * (s - r.x) - w * q.y;
    return r;
}

/* p + q, q affine (infinity allowed on either side). Inlined in the hot loops (bucket accumulation,
 * batch addition): a call passes the points through the stack frame (local memory). */
static CZ_DEV cz_dg1_xyzz cz_dg1_add_aff_inl(const cz_dg1_xyzz &p, const cz_dg1_aff &q) {
    if (q.is_inf()) return p;
    if (p.is_inf()) {
        cz_dg1_xyzz r;
        r.x = q.x;
        r.y = q.y;
        r.zz = r.zzz = cz_dfp::one();
        return r;
    }
    cz_dfp P = q.x * p.zz - p.x, R = q.y * p.zzz - p.y;
    if (P.is_zero()) return R.is_zero() ? cz_dg1_dbl_aff(q) : cz_dg1_xyzz::inf();
    cz_dfp pp = P.sqr(), ppp = P * pp, Q = p.x * pp;
    cz_dg1_xyzz r;
    r.zz = p.zz * pp;
    r.zzz = p.zzz * ppp;
    r.x = R.sqr() - ppp - Q.dbl();
    r.y = R * (Q - r.x) - p.y * ppp;
    return r;
}

static __device__ __noinline__ cz_dg1_xyzz cz_dg1_add_aff(const cz_dg1_xyzz &p, const cz_dg1_aff &q) {
    return cz_dg1_add_aff_inl(p, q);
}

static __device__ __noinline__ cz_dg1_xyzz cz_dg1_add(const cz_dg1_xyzz &p, const cz_dg1_xyzz &q) {
    if (q.is_inf()) return p;
    if (p.is_inf()) return q;
    cz_dfp u1 = p.x * q.zz, u2 = q.x * p.zz, s1 = p.y * q.zzz, s2 = q.y * p.zzz;
    cz_dfp P = u2 - u1, R = s2 - s1;
    if (P.is_zero()) return R.is_zero() ? cz_dg1_dbl(p) : cz_dg1_xyzz::inf();
    cz_dfp pp = P.sqr(), ppp = P * pp, Q = u1 * pp;
    cz_dg1_xyzz r;
    r.zz = p.zz * q.zz * pp;
    r.zzz = p.zzz * q.zzz * ppp;
    r.x = R.sqr() - ppp - Q.dbl();
    r.y = R * (Q - r.x) - s1 * ppp;
    return r;
}

/* Warp-wide sum with shuffles; lane 0 ends with the total. */
static CZ_DEV cz_dg1_xyzz cz_dg1_warp_sum(cz_dg1_xyzz a) {
#pragma unroll 1
    for (int off = 16; off > 0; off >>= 1) {
        cz_dg1_xyzz b;
#pragma unroll
        for (int i = 0; i < 12; i++) {
            b.x.v[i] = __shfl_down_sync(0xffffffffu, a.x.v[i], off);
            b.y.v[i] = __shfl_down_sync(0xffffffffu, a.y.v[i], off);
            b.zz.v[i] = __shfl_down_sync(0xffffffffu, a.zz.v[i], off);
            b.zzz.v[i] = __shfl_down_sync(0xffffffffu, a.zzz.v[i], off);
        }
        a = cz_dg1_add(a, b);
    }
    return a;
}

#endif
