/* The Fp Montgomery product on the FP64 pipe: eight 48-bit limbs held exactly in doubles (8 x 48 = 384, so R
 * is 2^384 as for the 12 x 32-bit product and the result is the same fully reduced value, byte for byte).
 *
 * Why it exists: the integer product (field.cuh) keeps the IMAD pipe ~93 % busy and issues only about a third
 * of the time, while the FP64 pipe (DFMA, 59 per SM per clock on the H200) sits idle, so warps multiplying here
 * beside warps multiplying on IMAD looked like up to ~2x on the products (the technique of Emmart, Zheng and
 * Weems, "Faster modular exponentiation using double precision floating point arithmetic on the GPU", ARITH
 * 2018, written afresh). Measured on the H200 (docs/perf.md, session 11; cz_bench_gpu's product table, modes
 * 3-10 of cz_gpu_mul_bench): alone 22.3 G/s against the integer product's 26.5; a quarter or half of each
 * scheduler's warps here and the rest on IMAD 27.0-27.4; one product of each kind per thread 26.5: the two do
 * not overlap on this GPU, so no kernel uses it. It stays, checked against the host by test_gpu_field and
 * against the integer product in the benchmark, to measure the question again on other GPUs.
 *
 * One limb product a*b < 2^96 splits exactly in two doubles with a round-toward-zero FMA:
 *   h = fma_rz(a, b, H) with H a multiple of 2^48 in [2^100, 2^101) (its unit in the last place is 2^48)
 *     = H + floor(a*b / 2^48) * 2^48;
 *   a*b mod 2^48 = fma(a, b, -(h - H)), exact (h - H is exact, and so is a result below 2^48).
 * The high halves of a column accumulate in such an H (its bits minus those of 2^100 count units of 2^48: the
 * next column's integer); see cz_fp_mul_dfma for the two ways of summing the low halves. Finely integrated
 * product scanning: column k takes a_i*b_j and q_i*p_j (i + j = k, i < k), then its integer t gives q_k =
 * t * (-p^-1) mod 2^48, and q_k*p_0 (whose low half makes t divisible by 2^48: it only carries) ends it.
 * Columns 8..15 are the result's limbs. Inputs fully reduced (< p): the result is below 2p, one conditional
 * subtraction. Every bound: a column has at most 8 products of each kind, so each H gains < 2^51 units (its
 * binade holds 2^52) and the low halves sum below 2^52. */
#ifndef CZ_GPU_FP_DFMA_CUH
#define CZ_GPU_FP_DFMA_CUH

#include "gpu/field.cuh"

#define CZ_D48_MASK ((1ull << 48) - 1)
#define CZ_D48_TWO52 0x4330000000000000ull  /* bits of 2^52 */
#define CZ_D48_TWO100 0x4630000000000000ull /* bits of 2^100 */

/* limb j (bits 48j .. 48j + 47) of p, and -p^-1 mod 2^48, as doubles (exact) */
static CZ_DEV double cz_d48_p(int j) {
    constexpr uint64_t P[6] = CZ_FP_MODULUS;
    const int w = 48 * j / 64, s = 48 * j % 64;
    return (double)(((P[w] >> s) | (s > 16 ? P[w + 1] << (64 - s) : 0)) & CZ_D48_MASK);
}
#define CZ_D48_INV ((double)(CZ_FP_INV & CZ_D48_MASK))

/* x < 2^48 as a double: 2^52 + x from its bits, minus 2^52 */
static CZ_DEV double cz_d48_from(uint32_t lo, uint32_t hi16) {
    return __dsub_rn(__hiloint2double((int)(hi16 | 0x43300000u), (int)lo), 4503599627370496.0);
}
/* the eight 48-bit limbs of twelve 32-bit words */
static CZ_DEV void cz_d48_split(double *d, const uint32_t *v) {
#pragma unroll
    for (int m = 0; m < 4; m++) {
        d[2 * m] = cz_d48_from(v[3 * m], v[3 * m + 1] & 0xffffu);
        d[2 * m + 1] = cz_d48_from(__funnelshift_r(v[3 * m + 1], v[3 * m + 2], 16), v[3 * m + 2] >> 16);
    }
}
static CZ_DEV uint64_t cz_d48_bits(double x) { return (uint64_t)__double_as_longlong(x); }

/* SUMLO 0: the low halves of a column are summed in doubles started at 2^52, one for a*b and one for q*p (4
 * FP64 operations per limb product); 1: each low half is formed as 2^52 + (a*b mod 2^48) by a second FMA against (2^100 + 2^52) - h and
 * its bits summed in a 64-bit integer, and so are the high halves' (3 FP64 operations and two integer adds
 * per limb product: more of the ALU pipe, less of FP64). */
template <int SUMLO>
static CZ_DEV cz_dfp cz_fp_mul_dfma(const cz_dfp &x, const cz_dfp &y) {
    const double C1 = 1267650600228229401496703205376.0 /* 2^100 */, C12 = C1 + 4503599627370496.0 /* + 2^52 */;
    double a[8], b[8], q[8];
    cz_d48_split(a, x.v);
    cz_d48_split(b, y.v);
    uint64_t limb[8], carry = 0;
    /* SUMLO 0: the high halves entering the current column, of a*b and of q*p (units of 2^48 above 2^100).
     * SUMLO 1: the integer sum entering it (bits, offsets counted in nin). */
    double in_ab = C1, in_qp = C1;
    uint64_t in_int = 0;
    int nin = 0;
#pragma unroll
    for (int k = 0; k < 16; k++) {
        uint64_t t;
        if (SUMLO == 0) {
            double lab = 4503599627370496.0 /* 2^52 */, lqp = lab, hab = C1, hqp = C1; /* two chains each */
#pragma unroll
            for (int i = 0; i < 8; i++) {
                const int j = k - i;
                if (j < 0 || j > 7) continue;
                const double h = __fma_rz(a[i], b[j], hab);
                lab = __dadd_rn(lab, __fma_rn(a[i], b[j], -__dsub_rn(h, hab)));
                hab = h;
                if (i < k) {
                    const double g = __fma_rz(q[i], cz_d48_p(j), hqp);
                    lqp = __dadd_rn(lqp, __fma_rn(q[i], cz_d48_p(j), -__dsub_rn(g, hqp)));
                    hqp = g;
                }
            }
            t = cz_d48_bits(lab) + cz_d48_bits(lqp) + cz_d48_bits(in_ab) + cz_d48_bits(in_qp) + carry -
                (2 * CZ_D48_TWO52 + 2 * CZ_D48_TWO100);
            in_ab = hab, in_qp = hqp;
        } else {
            uint64_t acc = in_int, nxt = 0;
            int nlo = 0, nhi = 0;
#pragma unroll
            for (int i = 0; i < 8; i++) {
                const int j = k - i;
                if (j < 0 || j > 7) continue;
                const double h = __fma_rz(a[i], b[j], C1);
                acc += cz_d48_bits(__fma_rz(a[i], b[j], __dsub_rn(C12, h)));
                nxt += cz_d48_bits(h);
                nlo++, nhi++;
                if (i < k) {
                    const double g = __fma_rz(q[i], cz_d48_p(j), C1);
                    acc += cz_d48_bits(__fma_rz(q[i], cz_d48_p(j), __dsub_rn(C12, g)));
                    nxt += cz_d48_bits(g);
                    nlo++, nhi++;
                }
            }
            t = acc + carry - ((uint64_t)nlo * CZ_D48_TWO52 + (uint64_t)nin * CZ_D48_TWO100);
            in_int = nxt, nin = nhi;
        }
        if (k < 8) {
            const uint64_t tl = t & CZ_D48_MASK;
            const double td = cz_d48_from((uint32_t)tl, (uint32_t)(tl >> 32));
            const double h = __fma_rz(td, CZ_D48_INV, C1);
            q[k] = __fma_rn(td, CZ_D48_INV, -__dsub_rn(h, C1));
            carry = (t >> 48) + (tl != 0);
            /* q_k * p_0: its low half completes t to a multiple of 2^48 (the + 1 above), its high half goes up */
            if (SUMLO == 0) {
                in_qp = __fma_rz(q[k], cz_d48_p(0), in_qp);
            } else {
                in_int += cz_d48_bits(__fma_rz(q[k], cz_d48_p(0), C1));
                nin++;
            }
        } else {
            limb[k - 8] = t & CZ_D48_MASK;
            carry = t >> 48;
        }
    }
    /* result < 2p < 2^382: column 16 (carry and the last high halves) is zero */
    cz_dfp r;
#pragma unroll
    for (int m = 0; m < 4; m++) {
        const uint64_t l0 = limb[2 * m], l1 = limb[2 * m + 1];
        r.v[3 * m] = (uint32_t)l0;
        r.v[3 * m + 1] = (uint32_t)(l0 >> 32) | ((uint32_t)l1 << 16);
        r.v[3 * m + 2] = (uint32_t)(l1 >> 16);
    }
    r.final_sub();
    return r;
}

#endif
