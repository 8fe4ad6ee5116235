/* Device short-Weierstrass group law for a = 0 curves, generic over the coordinate field F (cz_dfp for
 * G1, cz_dfp2 for G2): affine bases (x, y; infinity = (0,0), the host's cz_g1_affine / cz_g2_affine
 * bytes) and xyzz accumulators (x, y, zz, zzz; infinity = zz 0, the host's cz_g*_xyzz layout).
 * Same formulas as src/ec/ec_impl.h (EFD "xyzz" madd/add/dbl for a = 0); b never appears.
 * The doubling and full addition are not inlined: each is thousands of instructions and inlining them
 * everywhere made ptxas take minutes; the mixed addition has an inline form for the hot loops. */
#ifndef CZ_GPU_EC_CUH
#define CZ_GPU_EC_CUH

#include "gpu/field.cuh"

template <class F>
struct cz_daff {
    F x, y;
    CZ_DEV bool is_inf() const { return x.is_zero() && y.is_zero(); }
};

template <class F>
struct cz_dxyzz {
    F x, y, zz, zzz;
    static CZ_DEV cz_dxyzz inf() {
        cz_dxyzz r;
        r.x = r.y = r.zz = r.zzz = F::zero();
        return r;
    }
    CZ_DEV bool is_inf() const { return zz.is_zero(); }
};

template <class F>
static CZ_DEV cz_daff<F> cz_ec_ld_aff(const cz_daff<F> *p) {
    cz_daff<F> r;
    r.x = cz_ld(&p->x);
    r.y = cz_ld(&p->y);
    return r;
}
template <class F>
static CZ_DEV cz_dxyzz<F> cz_ec_ld(const cz_dxyzz<F> *p) {
    cz_dxyzz<F> r;
    r.x = cz_ld(&p->x);
    r.y = cz_ld(&p->y);
    r.zz = cz_ld(&p->zz);
    r.zzz = cz_ld(&p->zzz);
    return r;
}
template <class F>
static CZ_DEV void cz_ec_st(cz_dxyzz<F> *p, const cz_dxyzz<F> &a) {
    cz_st(&p->x, a.x);
    cz_st(&p->y, a.y);
    cz_st(&p->zz, a.zz);
    cz_st(&p->zzz, a.zzz);
}

template <class F>
static __device__ __noinline__ cz_dxyzz<F> cz_ec_dbl(const cz_dxyzz<F> &p) {
    if (p.is_inf()) return p;
    F u = p.y.dbl(), v = u.sqr(), w = u * v, s = p.x * v, m = p.x.sqr();
    m = m + m.dbl();
    cz_dxyzz<F> r;
    r.zz = v * p.zz;
    r.zzz = w * p.zzz;
    r.x = m.sqr() - s.dbl();
    r.y = m * (s - r.x) - w * p.y;
    return r;
}

template <class F>
static __device__ __noinline__ cz_dxyzz<F> cz_ec_dbl_aff(const cz_daff<F> &q) {
    F u = q.y.dbl(), v = u.sqr(), w = u * v, s = q.x * v, m = q.x.sqr();
    m = m + m.dbl();
    cz_dxyzz<F> r;
    r.zz = v;
    r.zzz = w;
    r.x = m.sqr() - s.dbl();
    r.y = m * (s - r.x) - w * q.y;
    return r;
}

/* p + q, q affine (infinity allowed on either side). Inlined in the hot loops (bucket accumulation,
 * batch addition): a call passes the points through the stack frame (local memory). */
template <class F>
static CZ_DEV cz_dxyzz<F> cz_ec_add_aff_inl(const cz_dxyzz<F> &p, const cz_daff<F> &q) {
    if (q.is_inf()) return p;
    if (p.is_inf()) {
        cz_dxyzz<F> r;
        r.x = q.x;
        r.y = q.y;
        r.zz = r.zzz = F::one();
        return r;
    }
    F P = q.x * p.zz - p.x, R = q.y * p.zzz - p.y;
    if (P.is_zero()) return R.is_zero() ? cz_ec_dbl_aff(q) : cz_dxyzz<F>::inf();
    F pp = P.sqr(), ppp = P * pp, Q = p.x * pp;
    cz_dxyzz<F> r;
    r.zz = p.zz * pp;
    r.zzz = p.zzz * ppp;
    r.x = R.sqr() - ppp - Q.dbl();
    r.y = R * (Q - r.x) - p.y * ppp;
    return r;
}

template <class F>
static __device__ __noinline__ cz_dxyzz<F> cz_ec_add_aff(const cz_dxyzz<F> &p, const cz_daff<F> &q) {
    return cz_ec_add_aff_inl(p, q);
}

template <class F>
static __device__ __noinline__ cz_dxyzz<F> cz_ec_add(const cz_dxyzz<F> &p, const cz_dxyzz<F> &q) {
    if (q.is_inf()) return p;
    if (p.is_inf()) return q;
    F u1 = p.x * q.zz, u2 = q.x * p.zz, s1 = p.y * q.zzz, s2 = q.y * p.zzz;
    F P = u2 - u1, R = s2 - s1;
    if (P.is_zero()) return R.is_zero() ? cz_ec_dbl(p) : cz_dxyzz<F>::inf();
    F pp = P.sqr(), ppp = P * pp, Q = u1 * pp;
    cz_dxyzz<F> r;
    r.zz = p.zz * q.zz * pp;
    r.zzz = p.zzz * q.zzz * ppp;
    r.x = R.sqr() - ppp - Q.dbl();
    r.y = R * (Q - r.x) - s1 * ppp;
    return r;
}

/* Warp-wide sum with shuffles; lane 0 ends with the total. */
template <class F>
static CZ_DEV cz_dxyzz<F> cz_ec_warp_sum(cz_dxyzz<F> a) {
#pragma unroll 1
    for (int off = 16; off > 0; off >>= 1) {
        cz_dxyzz<F> b;
        b.x = a.x.shfl_down(off);
        b.y = a.y.shfl_down(off);
        b.zz = a.zz.shfl_down(off);
        b.zzz = a.zzz.shfl_down(off);
        a = cz_ec_add(a, b);
    }
    return a;
}

#endif
