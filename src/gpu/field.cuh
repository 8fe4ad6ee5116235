/* Device Montgomery arithmetic for Fr (8x32 limbs) and Fp (12x32 limbs): the host's 4x64 / 6x64
 * little-endian fully reduced limbs read as 32-bit words, so R is the same (2^256 / 2^384) and the
 * bytes agree with src/ff exactly. Both moduli leave the top bit clear with room to spare, which
 * allows the no-carry CIOS product (as the host's mont_impl.h does with 64-bit limbs). */
#ifndef CZ_GPU_FIELD_CUH
#define CZ_GPU_FIELD_CUH

#include <stdint.h>

#include "ff/constants.h"

#define CZ_DEV __device__ __forceinline__

/* Fr's Montgomery factor -p^-1 mod 2^32 is 2^32 - 1, so m = t0 * inv is -t0, and with a literal inv ptxas
 * folds that negation into the m*p products and splits half of them into IMAD.X + IMAD.HI.U32.X instead of
 * fusing each into one IMAD.WIDE.U32.X (SASS of 50612f2: 96 + 96 split of ~256 per two Fr products).
 * Read from constant memory, the factor is opaque to ptxas (sppark does the same for its M0). */
static __constant__ uint32_t cz_fr_inv_c_ = (uint32_t)CZ_FR_INV;

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
    static CZ_DEV uint32_t inv_mul() { return cz_fr_inv_c_; }
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
    static CZ_DEV uint32_t inv_mul() { return inv; }
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

    /* a + b and a - b on PTX carry chains: one instruction per word (plus the conditional p), where the 64-bit
     * C arithmetic of reduce_once took ~3x as many (ncu on the H200: the NTT pass kernel is bound by its ALU
     * pipe, 49 % busy, math-pipe throttle its top stall). a + b < 2p < 2^(32N) for both moduli: no carry out. */
    friend CZ_DEV cz_dfield operator+(const cz_dfield &a, const cz_dfield &b) {
        cz_dfield r;
        asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r.v[0]) : "r"(a.v[0]), "r"(b.v[0]));
#pragma unroll
        for (int i = 1; i < N - 1; i++) asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r.v[i]) : "r"(a.v[i]), "r"(b.v[i]));
        asm volatile("addc.u32 %0, %1, %2;" : "=r"(r.v[N - 1]) : "r"(a.v[N - 1]), "r"(b.v[N - 1]));
        r.final_sub();
        return r;
    }

    /* a - b, plus p when it borrowed */
    friend CZ_DEV cz_dfield operator-(const cz_dfield &a, const cz_dfield &b) {
        cz_dfield r;
        uint32_t mask;
        asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(r.v[0]) : "r"(a.v[0]), "r"(b.v[0]));
#pragma unroll
        for (int i = 1; i < N; i++) asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(r.v[i]) : "r"(a.v[i]), "r"(b.v[i]));
        asm volatile("subc.u32 %0, 0, 0;" : "=r"(mask));
        asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(r.v[0]) : "r"(C::p(0) & mask));
#pragma unroll
        for (int i = 1; i < N - 1; i++) asm volatile("addc.cc.u32 %0, %0, %1;" : "+r"(r.v[i]) : "r"(C::p(i) & mask));
        asm volatile("addc.u32 %0, %0, %1;" : "+r"(r.v[N - 1]) : "r"(C::p(N - 1) & mask));
        return r;
    }

    CZ_DEV cz_dfield neg() const { return zero() - *this; }
    CZ_DEV cz_dfield dbl() const { return *this + *this; }

    /* Montgomery product a*b/R mod p, the default: operand scanning with the Montgomery step interleaved
     * per multiplier word, PTX carry chains, and the partial products split by the parity of the limb
     * index (the technique of sppark's ff/mont_t.cuh, written afresh here). a_j*b_i for even j goes to
     * words j, j+1 of the "aligned" array E, for odd j to the "shifted" array O (word k of O weighs
     * 2^(32(k+1))). The low and high halves of one product are then neighbours in one carry chain
     * (mad.lo.cc + madc.hi.cc), and E and O are independent chains. After the Montgomery step E[0] is 0;
     * the division by 2^32 is free: O becomes the aligned array and E (moved down two words, its word 1
     * going into the new aligned word 0) the shifted one. Both moduli leave spare top bits, so the
     * running sum stays below 2^(32(N+1)) and the chains never carry out of their top word; one
     * conditional subtraction at the end gives the fully reduced (host-identical) result. */
    friend CZ_DEV cz_dfield operator*(const cz_dfield &a, const cz_dfield &b) {
        uint32_t e[N], o[N];
        mont_row(e, o, a.v, b.v[0], true);
        mont_row(o, e, a.v, b.v[1], false);
#pragma unroll
        for (int i = 2; i < N; i += 2) {
            mont_row(e, o, a.v, b.v[i], false);
            mont_row(o, e, a.v, b.v[i + 1], false);
        }
        /* N is even: o is aligned (o[0] = 0), e shifted */
        cz_dfield r;
        merge_eo(r.v, e, o);
        r.final_sub();
        return r;
    }

    /* The naive CIOS product (32-bit limbs, 64-bit accumulators, IMAD.WIDE): the previous default, kept
     * for the multiplication micro-benchmark and as a cross-check in it. */
    CZ_DEV cz_dfield mul_cios(const cz_dfield &b) const {
        const cz_dfield &a = *this;
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

  private:
    /* acc[j], acc[j+1] = a[j]*b for even j < n (no carries: the words do not overlap). */
    static CZ_DEV void mul_even(uint32_t *acc, const uint32_t *a, uint32_t b, int n) {
#pragma unroll
        for (int j = 0; j < n; j += 2)
            asm volatile("mul.lo.u32 %0, %2, %3;\n\tmul.hi.u32 %1, %2, %3;" : "=r"(acc[j]), "=r"(acc[j + 1]) : "r"(a[j]), "r"(b));
    }
    /* acc[0..n) += sum of a[j]*b*2^(32j) over even j, one carry chain; leaves the carry out in CC.1 */
    static CZ_DEV void mad_even(uint32_t *acc, const uint32_t *a, uint32_t b, int n) {
        asm volatile("mad.lo.cc.u32 %0, %2, %3, %0;\n\tmadc.hi.cc.u32 %1, %2, %3, %1;" : "+r"(acc[0]), "+r"(acc[1]) : "r"(a[0]), "r"(b));
#pragma unroll
        for (int j = 2; j < n; j += 2)
            asm volatile("madc.lo.cc.u32 %0, %2, %3, %0;\n\tmadc.hi.cc.u32 %1, %2, %3, %1;" : "+r"(acc[j]), "+r"(acc[j + 1]) : "r"(a[j]), "r"(b));
    }
    /* One multiplier word: (E, O) += a*b (O gets the odd limbs), then the Montgomery step that zeroes E[0].
     * Not first: O is first moved down two words, its word 1 added into E[0] (the carry of that add
     * enters O's chain at O[0], which has the same weight). */
    static CZ_DEV void mont_row(uint32_t *E, uint32_t *O, const uint32_t *a, uint32_t b, bool first) {
        if (first) {
            mul_even(O, a + 1, b, N);
            mul_even(E, a, b, N);
        } else {
            asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(E[0]) : "r"(O[1]));
#pragma unroll
            for (int j = 0; j < N - 2; j += 2)
                asm volatile("madc.lo.cc.u32 %0, %2, %3, %4;\n\tmadc.hi.cc.u32 %1, %2, %3, %5;"
                             : "=r"(O[j]), "=r"(O[j + 1]) : "r"(a[j + 1]), "r"(b), "r"(O[j + 2]), "r"(O[j + 3]));
            asm volatile("madc.lo.cc.u32 %0, %2, %3, 0;\n\tmadc.hi.u32 %1, %2, %3, 0;" : "=r"(O[N - 2]), "=r"(O[N - 1]) : "r"(a[N - 1]), "r"(b));
            mad_even(E, a, b, N);
            asm volatile("addc.u32 %0, %0, 0;" : "+r"(O[N - 1]));
        }
        const uint32_t m = E[0] * C::inv_mul();
        uint32_t P[N];
#pragma unroll
        for (int j = 0; j < N; j++) P[j] = C::p(j);
        mad_even(O, P + 1, m, N);
        mad_even(E, P, m, N);
        asm volatile("addc.u32 %0, %0, 0;" : "+r"(O[N - 1]));
    }

    /* r = the value held by the aligned array o (o[0] = 0) and the shifted array e after the last Montgomery
     * row: word k is o[k+1] + e[k] (below 2^(32N): no carry out) */
    static CZ_DEV void merge_eo(uint32_t *r, const uint32_t *e, const uint32_t *o) {
        asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r[0]) : "r"(e[0]), "r"(o[1]));
#pragma unroll
        for (int k = 1; k < N - 1; k++) asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r[k]) : "r"(e[k]), "r"(o[k + 1]));
        asm volatile("addc.u32 %0, %1, 0;" : "=r"(r[N - 1]) : "r"(e[N - 1]));
    }
    /* x[i+j], x[i+j+1] += a[i]*a[j] for j = j0, j0 + 2, ... < N, one carry chain, its carry into the next free
     * word (zero so far: each row's chains end one word above the previous row's). */
    static CZ_DEV void sq_chain(uint32_t *x, const uint32_t *a, int i, int j0) {
        asm volatile("mad.lo.cc.u32 %0, %2, %3, %0;\n\tmadc.hi.cc.u32 %1, %2, %3, %1;"
                     : "+r"(x[i + j0]), "+r"(x[i + j0 + 1]) : "r"(a[j0]), "r"(a[i]));
        int j = j0 + 2;
#pragma unroll
        for (; j < N; j += 2)
            asm volatile("madc.lo.cc.u32 %0, %2, %3, %0;\n\tmadc.hi.cc.u32 %1, %2, %3, %1;"
                         : "+r"(x[i + j]), "+r"(x[i + j + 1]) : "r"(a[j]), "r"(a[i]));
        asm volatile("addc.u32 %0, %0, 0;" : "+r"(x[i + j]));
    }
    /* w = a^2 (2N words). Row i's cross products a[i]*a[j], j > i, land at words i + j: the odd offsets in od,
     * the even ones in ev (two independent chains per row, as in operator*); w = 2 (ev + od) + the squares. */
    static CZ_DEV void wide_sqr(uint32_t *w, const uint32_t *a) {
        uint32_t ev[2 * N], od[2 * N];
#pragma unroll
        for (int k = 0; k < 2 * N; k++) ev[k] = od[k] = 0;
#pragma unroll
        for (int i = 0; i < N - 1; i++) {
            sq_chain(od, a, i, i + 1);
            if (i + 2 < N) sq_chain(ev, a, i, i + 2);
        }
        /* w[0] = 0; w[1..2N) = 2 (ev + od) (ev[0] = od[0] = ev[1] = 0) */
        asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(w[1]) : "r"(ev[1]), "r"(od[1]));
#pragma unroll
        for (int k = 2; k < 2 * N; k++) asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(w[k]) : "r"(ev[k]), "r"(od[k]));
        asm volatile("add.cc.u32 %0, %0, %0;" : "+r"(w[1]));
#pragma unroll
        for (int k = 2; k < 2 * N; k++) asm volatile("addc.cc.u32 %0, %0, %0;" : "+r"(w[k]));
        w[0] = 0;
        asm volatile("mad.lo.cc.u32 %0, %2, %2, %0;\n\tmadc.hi.cc.u32 %1, %2, %2, %1;" : "+r"(w[0]), "+r"(w[1]) : "r"(a[0]));
#pragma unroll
        for (int i = 1; i < N - 1; i++)
            asm volatile("madc.lo.cc.u32 %0, %2, %2, %0;\n\tmadc.hi.cc.u32 %1, %2, %2, %1;"
                         : "+r"(w[2 * i]), "+r"(w[2 * i + 1]) : "r"(a[i]));
        asm volatile("madc.lo.cc.u32 %0, %2, %2, %0;\n\tmadc.hi.u32 %1, %2, %2, %1;"
                     : "+r"(w[2 * N - 2]), "+r"(w[2 * N - 1]) : "r"(a[N - 1]));
    }
    /* One Montgomery step without a product row (mont_row's reduction alone): not first, O moves down two words
     * (its word 1 into E[0], the carry entering O's chain) while it takes p's odd limbs times m, then E takes
     * the even ones, which zeroes E[0]. m comes from E[0] + O[1] computed apart, so nothing sits between the
     * add.cc and the chain that consumes its carry. */
    static CZ_DEV void redc_row(uint32_t *E, uint32_t *O, bool first) {
        uint32_t P[N];
#pragma unroll
        for (int j = 0; j < N; j++) P[j] = C::p(j);
        if (first) {
            const uint32_t m = E[0] * C::inv_mul();
            mul_even(O, P + 1, m, N);
            mad_even(E, P, m, N);
        } else {
            const uint32_t m = (E[0] + O[1]) * C::inv_mul();
            asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(E[0]) : "r"(O[1]));
#pragma unroll
            for (int j = 0; j < N - 2; j += 2)
                asm volatile("madc.lo.cc.u32 %0, %2, %3, %4;\n\tmadc.hi.cc.u32 %1, %2, %3, %5;"
                             : "=r"(O[j]), "=r"(O[j + 1]) : "r"(P[j + 1]), "r"(m), "r"(O[j + 2]), "r"(O[j + 3]));
            asm volatile("madc.lo.cc.u32 %0, %2, %3, 0;\n\tmadc.hi.u32 %1, %2, %3, 0;" : "=r"(O[N - 2]), "=r"(O[N - 1]) : "r"(P[N - 1]), "r"(m));
            mad_even(E, P, m, N);
        }
        asm volatile("addc.u32 %0, %0, 0;" : "+r"(O[N - 1]));
    }

    /* Shoup's product by a constant (mul_shoup): A[k], A[k + 1] += a[i] * b for the i in [0, N) whose column
     * k = i + j - base lies in [0, NW) and has parity par, one carry chain (the pairs of one parity do not
     * overlap), its carry into word last + 2 when that is below NW; a product whose high word would be word NW
     * keeps its low word only (the sum is taken mod 2^(32 NW)). */
    template <int NW>
    static CZ_DEV void shoup_chain(uint32_t *A, const uint32_t *a, uint32_t b, int j, int base, int par) {
        bool first = true;
        int last = -1;
#pragma unroll
        for (int i = 0; i < N; i++) {
            const int k = i + j - base;
            if (k < 0 || k >= NW || (k & 1) != par) continue;
            if (k + 1 < NW) {
                if (first)
                    asm volatile("mad.lo.cc.u32 %0, %2, %3, %0;\n\tmadc.hi.cc.u32 %1, %2, %3, %1;" : "+r"(A[k]), "+r"(A[k + 1]) : "r"(a[i]), "r"(b));
                else
                    asm volatile("madc.lo.cc.u32 %0, %2, %3, %0;\n\tmadc.hi.cc.u32 %1, %2, %3, %1;" : "+r"(A[k]), "+r"(A[k + 1]) : "r"(a[i]), "r"(b));
            } else {
                if (first) asm volatile("mad.lo.u32 %0, %1, %2, %0;" : "+r"(A[k]) : "r"(a[i]), "r"(b));
                else asm volatile("madc.lo.u32 %0, %1, %2, %0;" : "+r"(A[k]) : "r"(a[i]), "r"(b));
            }
            first = false;
            last = k;
        }
        if (last >= 0 && last + 2 < NW) asm volatile("addc.u32 %0, %0, 0;" : "+r"(A[last + 2]));
    }

  public:
    /* v = v - p if v >= p (v < 2p), branch-free. */
    CZ_DEV void final_sub() {
        uint32_t s[N], borrow;
        asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(s[0]) : "r"(v[0]), "r"(C::p(0)));
#pragma unroll
        for (int i = 1; i < N; i++) asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(s[i]) : "r"(v[i]), "r"(C::p(i)));
        asm volatile("subc.u32 %0, 0, 0;" : "=r"(borrow));
#pragma unroll
        for (int i = 0; i < N; i++) v[i] = borrow ? v[i] : s[i];
    }
    /* Montgomery square a^2/R mod p, ~22 % fewer multiply instructions than a*a (Fp: 156 + 300 IMAD against
     * 588): the 2N-word square from the N(N-1)/2 cross products (doubled) and the N squares (wide_sqr), then
     * N Montgomery steps on its low half L (redc_row: (L + M p)/R <= p) and the high half H < p added; the sum
     * is below 2p, so one conditional subtraction gives the fully reduced (host-identical) result. The same
     * split as sppark's wide square + mul_by_1, written afresh on this file's even/odd carry chains. */
    CZ_DEV cz_dfield sqr() const {
        uint32_t w[2 * N];
        wide_sqr(w, v);
        uint32_t e[N], o[N];
#pragma unroll
        for (int i = 0; i < N; i++) e[i] = w[i];
        redc_row(e, o, true);
        redc_row(o, e, false);
#pragma unroll
        for (int i = 2; i < N; i += 2) {
            redc_row(e, o, false);
            redc_row(o, e, false);
        }
        /* o aligned (o[0] = 0), e shifted: (L + M p)/R; then + H */
        cz_dfield r;
        merge_eo(r.v, e, o);
        asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(r.v[0]) : "r"(w[N]));
#pragma unroll
        for (int k = 1; k < N - 1; k++) asm volatile("addc.cc.u32 %0, %0, %1;" : "+r"(r.v[k]) : "r"(w[N + k]));
        asm volatile("addc.u32 %0, %0, %1;" : "+r"(r.v[N - 1]) : "r"(w[2 * N - 1]));
        r.final_sub();
        return r;
    }
    /* this * c mod p for a constant c < p given as a plain integer (not Montgomery) with cp = floor(c 2^(32N) / p)
     * (Shoup / Harvey): q = the high half of this * cp, then this * c - q p mod 2^(32N). In Montgomery form that
     * is the product by the field element c: (x R) c = (x c) R, the bytes of this * (c R) (Montgomery). q is
     * summed from the partial products of columns N - 2 and up only; the dropped ones are D < N^2 2^(32(N-1)).
     * With Q = floor(this * c / p): cp > c 2^(32N) / p - 1 gives (this * cp - D) / 2^(32N) > this * c / p -
     * (this + D) / 2^(32N) > this * c / p - 1 (this + D < p + 2^(32N-24) < 2^(32N)), and q <= this * cp /
     * 2^(32N) <= this * c / p, so q is Q or Q - 1: the remainder is below 2p < 2^(32N) (both moduli) and one
     * conditional subtraction reduces it fully. Fr (N = 8): 43 + 36 + 36 partial products (IMAD lo/hi 86 + 64 + 64, against the Montgomery
     * product's 128 + 136); H200: 69.7 against 58.2 G products/s (cz_bench_gpu's product table). */
    CZ_DEV cz_dfield mul_shoup(const cz_dfield &c, const cz_dfield &cp) const {
        constexpr int NH = N + 2; /* columns N - 2 .. 2N - 1 */
        uint32_t e[NH], o[NH];
#pragma unroll
        for (int k = 0; k < NH; k++) e[k] = o[k] = 0;
#pragma unroll
        for (int j = 0; j < N; j++) {
            shoup_chain<NH>(e, v, cp.v[j], j, N - 2, 0);
            shoup_chain<NH>(o, v, cp.v[j], j, N - 2, 1);
        }
        uint32_t q[N];
        {
            uint32_t h[NH];
            asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(h[0]) : "r"(e[0]), "r"(o[0]));
#pragma unroll
            for (int k = 1; k < NH - 1; k++) asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(h[k]) : "r"(e[k]), "r"(o[k]));
            asm volatile("addc.u32 %0, %1, %2;" : "=r"(h[NH - 1]) : "r"(e[NH - 1]), "r"(o[NH - 1]));
#pragma unroll
            for (int k = 0; k < N; k++) q[k] = h[k + 2];
        }
        /* this * c + q (2^(32N) - p) mod 2^(32N) */
        uint32_t le[N], lo[N], np[N];
#pragma unroll
        for (int k = 0; k < N; k++) {
            le[k] = lo[k] = 0;
            np[k] = ~C::p(k) + (k == 0); /* 2^(32N) - p: p is odd, so only word 0 takes the +1 */
        }
#pragma unroll
        for (int j = 0; j < N; j++) {
            shoup_chain<N>(le, v, c.v[j], j, 0, 0);
            shoup_chain<N>(lo, v, c.v[j], j, 0, 1);
        }
#pragma unroll
        for (int j = 0; j < N; j++) {
            shoup_chain<N>(le, np, q[j], j, 0, 0);
            shoup_chain<N>(lo, np, q[j], j, 0, 1);
        }
        cz_dfield r;
        asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r.v[0]) : "r"(le[0]), "r"(lo[0]));
#pragma unroll
        for (int k = 1; k < N - 1; k++) asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r.v[k]) : "r"(le[k]), "r"(lo[k]));
        asm volatile("addc.u32 %0, %1, %2;" : "=r"(r.v[N - 1]) : "r"(le[N - 1]), "r"(lo[N - 1]));
        r.final_sub();
        return r;
    }
    /* the plain (canonical) value of this Montgomery element: this / R, the Montgomery product by the integer 1 */
    CZ_DEV cz_dfield from_mont() const {
        cz_dfield one_plain = zero();
        one_plain.v[0] = 1;
        return *this * one_plain;
    }
    /* the constant pair of mul_shoup for the Montgomery element m: c = m / R (plain), cp = floor(c 2^(32N) / p)
     * by schoolbook binary division (slow; for tables and tests) */
    CZ_DEV void shoup_const(cz_dfield &c, cz_dfield &cp) const {
        c = from_mont();
        cz_dfield rem = c;
#pragma unroll 1
        for (int bit = 32 * N - 1; bit >= 0; bit--) {
            /* rem = 2 rem (rem < p < 2^(32N - 1)), then minus p when that fits */
            uint32_t t[N], s[N], borrow;
            asm volatile("add.cc.u32 %0, %1, %1;" : "=r"(t[0]) : "r"(rem.v[0]));
#pragma unroll
            for (int k = 1; k < N; k++) asm volatile("addc.cc.u32 %0, %1, %1;" : "=r"(t[k]) : "r"(rem.v[k]));
            asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(s[0]) : "r"(t[0]), "r"(C::p(0)));
#pragma unroll
            for (int k = 1; k < N; k++) asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(s[k]) : "r"(t[k]), "r"(C::p(k)));
            asm volatile("subc.u32 %0, 0, 0;" : "=r"(borrow));
            const bool ge = borrow == 0;
#pragma unroll
            for (int k = 0; k < N; k++) rem.v[k] = ge ? s[k] : t[k];
            if (ge) cp.v[bit / 32] |= 1u << (bit % 32);
            else cp.v[bit / 32] &= ~(1u << (bit % 32));
        }
    }
    /* warp shuffles of the whole element (full mask): from lane + off, lane - off, or lane src */
    CZ_DEV cz_dfield shfl_down(unsigned off) const { return shfl([off](uint32_t w) { return __shfl_down_sync(0xffffffffu, w, off); }); }
    CZ_DEV cz_dfield shfl_up(unsigned off) const { return shfl([off](uint32_t w) { return __shfl_up_sync(0xffffffffu, w, off); }); }
    CZ_DEV cz_dfield shfl_idx(unsigned src) const { return shfl([src](uint32_t w) { return __shfl_sync(0xffffffffu, w, src); }); }
    template <class S>
    CZ_DEV cz_dfield shfl(S word) const {
        cz_dfield r;
#pragma unroll
        for (int i = 0; i < N; i++) r.v[i] = word(v[i]);
        return r;
    }
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

/* Fp2 = Fp[u]/(u^2 + 1), the host's cz_fp2 layout (c0, c1; 96 B). Results are fully reduced, so any
 * formula gives the host's bytes. */
struct cz_dfp2 {
    cz_dfp c0, c1;
    static CZ_DEV cz_dfp2 zero() { return {cz_dfp::zero(), cz_dfp::zero()}; }
    static CZ_DEV cz_dfp2 one() { return {cz_dfp::one(), cz_dfp::zero()}; }
    CZ_DEV bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
    friend CZ_DEV cz_dfp2 operator+(const cz_dfp2 &a, const cz_dfp2 &b) { return {a.c0 + b.c0, a.c1 + b.c1}; }
    friend CZ_DEV cz_dfp2 operator-(const cz_dfp2 &a, const cz_dfp2 &b) { return {a.c0 - b.c0, a.c1 - b.c1}; }
    CZ_DEV cz_dfp2 neg() const { return {c0.neg(), c1.neg()}; }
    CZ_DEV cz_dfp2 dbl() const { return {c0.dbl(), c1.dbl()}; }
    /* Karatsuba: 3 Fp products */
    friend CZ_DEV cz_dfp2 operator*(const cz_dfp2 &a, const cz_dfp2 &b) {
        cz_dfp t0 = a.c0 * b.c0, t1 = a.c1 * b.c1, s = (a.c0 + a.c1) * (b.c0 + b.c1);
        return {t0 - t1, s - t0 - t1};
    }
    /* (c0 + c1 u)^2 = (c0 + c1)(c0 - c1) + 2 c0 c1 u: 2 Fp products */
    CZ_DEV cz_dfp2 sqr() const { return {(c0 + c1) * (c0 - c1), (c0 * c1).dbl()}; }
    CZ_DEV cz_dfp2 shfl_down(unsigned off) const { return {c0.shfl_down(off), c1.shfl_down(off)}; }
    CZ_DEV cz_dfp2 shfl_up(unsigned off) const { return {c0.shfl_up(off), c1.shfl_up(off)}; }
    CZ_DEV cz_dfp2 shfl_idx(unsigned src) const { return {c0.shfl_idx(src), c1.shfl_idx(src)}; }
};
static CZ_DEV cz_dfp2 cz_ld(const cz_dfp2 *p) { return {cz_ld(&p->c0), cz_ld(&p->c1)}; }
static CZ_DEV void cz_st(cz_dfp2 *p, const cz_dfp2 &a) {
    cz_st(&p->c0, a.c0);
    cz_st(&p->c1, a.c1);
}

#endif
