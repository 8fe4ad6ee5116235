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

template <class F>
static CZ_DEV cz_dxyzz<F> cz_ec_shfl_idx(const cz_dxyzz<F> &a, unsigned src) {
    cz_dxyzz<F> r;
    r.x = a.x.shfl_idx(src);
    r.y = a.y.shfl_idx(src);
    r.zz = a.zz.shfl_idx(src);
    r.zzz = a.zzz.shfl_idx(src);
    return r;
}

/* p + q by the four lanes of a quad (lanes 4g .. 4g+3, each holding the same p and q; each gets the sum): the
 * 16 products of cz_ec_add in 4 rounds of one product per lane, the results shared by shuffles. For the
 * latency-bound ends of the reductions (a tree of single additions): a lane does its products one after the
 * other even when they are independent (ptxas does not overlap two carry-chain products; measured on the
 * H200: one Fp product ~1,800 cycles alone in a warp, two independent ones ~3,700), so cz_ec_add's chain
 * costs ~16 product latencies and this one 4. Same formulas and order of products as cz_ec_add, so the
 * same xyzz bytes. The whole warp calls it (full-mask shuffles); the special cases are taken after the
 * last shuffle, uniformly within a quad. */
template <class F>
static __device__ __noinline__ cz_dxyzz<F> cz_ec_add_quad(const cz_dxyzz<F> &p, const cz_dxyzz<F> &q) {
    const unsigned k = threadIdx.x & 3, b = threadIdx.x & 31 & ~3u;
    if (__all_sync(0xffffffffu, p.is_inf() || q.is_inf())) return q.is_inf() ? p : q; /* nothing to add in the warp */
    /* round 1: u1 = p.x q.zz, u2 = q.x p.zz, s1 = p.y q.zzz, s2 = q.y p.zzz */
    F m = (k == 0 ? p.x : k == 1 ? q.x : k == 2 ? p.y : q.y) * (k == 0 ? q.zz : k == 1 ? p.zz : k == 2 ? q.zzz : p.zzz);
    const F u1 = m.shfl_idx(b), u2 = m.shfl_idx(b + 1), s1 = m.shfl_idx(b + 2), s2 = m.shfl_idx(b + 3);
    const F P = u2 - u1, R = s2 - s1;
    /* round 2: P^2, R^2, p.zz q.zz, p.zzz q.zzz */
    m = (k == 0 ? P : k == 1 ? R : k == 2 ? p.zz : p.zzz) * (k == 0 ? P : k == 1 ? R : k == 2 ? q.zz : q.zzz);
    const F pp = m.shfl_idx(b), rr = m.shfl_idx(b + 1), zz = m.shfl_idx(b + 2), zzz = m.shfl_idx(b + 3);
    /* round 3: ppp = P pp, Q = u1 pp, zz pp (lane 3 idle) */
    m = (k == 0 ? P : k == 1 ? u1 : zz) * pp;
    const F ppp = m.shfl_idx(b), Q = m.shfl_idx(b + 1), zz3 = m.shfl_idx(b + 2);
    const F x3 = rr - ppp - Q.dbl();
    /* round 4: zzz ppp, s1 ppp, R (Q - x3) (lane 3 idle) */
    m = (k == 0 ? zzz : k == 1 ? s1 : R) * (k == 2 ? Q - x3 : ppp);
    const F zzz3 = m.shfl_idx(b), t = m.shfl_idx(b + 1), w = m.shfl_idx(b + 2);
    if (q.is_inf()) return p;
    if (p.is_inf()) return q;
    if (P.is_zero()) return R.is_zero() ? cz_ec_dbl(p) : cz_dxyzz<F>::inf();
    cz_dxyzz<F> r;
    r.x = x3;
    r.y = w - t;
    r.zz = zz3;
    r.zzz = zzz3;
    return r;
}

/* Sum of the values of lanes 0 .. n-1 (1 <= n <= 32, the same n in every lane; the other lanes' values are
 * not read) by quads: level by level, m values become ceil(m / 2) (value j + ceil(m / 2) added to value j),
 * quad g computing the new values g and g + 8; after the first level value j lives in quad j mod 8, slot
 * j / 8 (s0, s1). Lane 0 (and its quad) ends with the total. 32 values: 6 quad additions in a row, against
 * 5 of cz_ec_add for cz_ec_warp_sum. The whole warp calls it. */
template <class F>
static CZ_DEV cz_dxyzz<F> cz_ec_warp_sum_quad(const cz_dxyzz<F> &a, unsigned n) {
    const unsigned lane = threadIdx.x & 31, g = lane >> 2, k = lane & 3;
    unsigned m = n, h = (m + 1) / 2;
    cz_dxyzz<F> s0 = cz_dxyzz<F>::inf(), s1 = s0;
#pragma unroll 1
    for (unsigned r = 0; r < 2; r++) { /* first level: from the lanes */
        const unsigned j = g + 8 * r;
        if (r == 1 && h <= 8) break; /* uniform: h is the same in every lane */
        cz_dxyzz<F> p = cz_ec_shfl_idx(a, j < h ? j : 0), q = cz_ec_shfl_idx(a, j + h < m ? j + h : 0);
        if (j >= h) p = cz_dxyzz<F>::inf();
        if (j >= h || j + h >= m) q = cz_dxyzz<F>::inf();
        const cz_dxyzz<F> v = cz_ec_add_quad(p, q);
        if (r == 0) s0 = v;
        else s1 = v;
    }
#pragma unroll 1
    for (m = h; m > 1; m = h) {
        h = (m + 1) / 2; /* value g += value g + h (quad (g + h) mod 8, slot (g + h) / 8) */
        const unsigned o = g + h, src = 4 * (o & 7) + k;
        const cz_dxyzz<F> q0 = cz_ec_shfl_idx(s0, src), q1 = cz_ec_shfl_idx(s1, src);
        cz_dxyzz<F> q = o >= m ? cz_dxyzz<F>::inf() : o >= 8 ? q1 : q0;
        const cz_dxyzz<F> p = g < h ? s0 : cz_dxyzz<F>::inf();
        s0 = cz_ec_add_quad(p, q);
        s1 = cz_dxyzz<F>::inf();
    }
    return s0;
}

#endif
