/* Optimal ate pairing. G2 runs on the M-type twist E': y^2 = x^3 + 4 xi in homogeneous projective
 * coordinates (x = X/Z, y = Y/Z); untwisting (x, y) -> (x w^-2, y w^-3) and multiplying each line by
 * w^3 and by an Fp2 factor (both vanish in the final exponentiation) leaves lines of the sparse shape
 * c0 + c1 xP v + c2 yP v w (see cz_pairing_line). Doubling/addition formulas: Costello-Lange-Naehrig
 * (eprint 2009/615) in the form of Aranha et al. (eprint 2010/526, eqs. 10-12), doubling scaled by 4
 * to avoid halvings. */
#include "ec/pairing.h"

#include "ff/tower_constants.h"

/* Pairs per block of the unprepared Miller loop: the stack holds one T per pair, so longer
 * products run block by block (still one final exponentiation). */
#define CZ_MILLER_BLOCK 32

/* Homogeneous projective G2 point of the Miller loop (not jacobian: x = X/Z, y = Y/Z). */
typedef struct { cz_fp2 x, y, z; } g2_proj;

static inline void proj_from_affine(g2_proj *t, const cz_g2_affine *q) {
    t->x = q->x;
    t->y = q->y;
    t->z = CZ_FP2_ONE_V;
}

static void fp2_mul_by_12xi(cz_fp2 *r, const cz_fp2 *a) {
    cz_fp2 t;
    cz_fp2_mul_by_nonresidue(&t, a);
    cz_fp2_double(&t, &t);
    cz_fp2_add(r, &t, &t); /* 4 xi a */
    cz_fp2_double(&t, r);
    cz_fp2_add(r, r, &t); /* 12 xi a */
}

/* T = 2T; the tangent line at T: c0 = Y^2 - 3b'Z^2, c1 = -3X^2, c2 = 2YZ (b' = 4 xi). */
static void dbl_step(g2_proj *t, cz_pairing_line *l) {
    cz_fp2 j, b, c, e, f, h, xy, s, e3;
    cz_fp2_sqr(&j, &t->x);
    cz_fp2_sqr(&b, &t->y);
    cz_fp2_sqr(&c, &t->z);
    fp2_mul_by_12xi(&e, &c); /* 3 b' Z^2 */
    cz_fp2_double(&f, &e);
    cz_fp2_add(&f, &f, &e);
    cz_fp2_add(&h, &t->y, &t->z);
    cz_fp2_sqr(&h, &h);
    cz_fp2_sub(&h, &h, &b);
    cz_fp2_sub(&h, &h, &c);
    cz_fp2_mul(&xy, &t->x, &t->y);

    cz_fp2_sub(&l->c0, &b, &e);
    cz_fp2_double(&s, &j);
    cz_fp2_add(&s, &s, &j);
    cz_fp2_neg(&l->c1, &s);
    l->c2 = h;

    /* 4 * (XY/2 (B - F), ((B + F)/2)^2 - 3E^2, B H) */
    cz_fp2_sub(&s, &b, &f);
    cz_fp2_mul(&t->x, &xy, &s);
    cz_fp2_double(&t->x, &t->x);
    cz_fp2_add(&s, &b, &f);
    cz_fp2_sqr(&s, &s);
    cz_fp2_sqr(&e, &e);
    cz_fp2_double(&e3, &e);
    cz_fp2_add(&e3, &e3, &e);
    cz_fp2_double(&e3, &e3);
    cz_fp2_double(&e3, &e3); /* 12 E^2 */
    cz_fp2_sub(&t->y, &s, &e3);
    cz_fp2_mul(&t->z, &b, &h);
    cz_fp2_double(&t->z, &t->z);
    cz_fp2_double(&t->z, &t->z);
}

/* T = T + Q (Q affine, T != +-Q); the chord: c0 = theta xQ - lambda yQ, c1 = -theta, c2 = lambda
 * with theta = Y - yQ Z, lambda = X - xQ Z. */
static void add_step(g2_proj *t, const cz_g2_affine *q, cz_pairing_line *l) {
    cz_fp2 th, la, c, d, e, f, g, h, s;
    cz_fp2_mul(&th, &q->y, &t->z);
    cz_fp2_sub(&th, &t->y, &th);
    cz_fp2_mul(&la, &q->x, &t->z);
    cz_fp2_sub(&la, &t->x, &la);
    cz_fp2_sqr(&c, &th);
    cz_fp2_sqr(&d, &la);
    cz_fp2_mul(&e, &la, &d);
    cz_fp2_mul(&f, &t->z, &c);
    cz_fp2_mul(&g, &t->x, &d);
    cz_fp2_add(&h, &e, &f);
    cz_fp2_sub(&h, &h, &g);
    cz_fp2_sub(&h, &h, &g);

    cz_fp2_mul(&l->c0, &th, &q->x);
    cz_fp2_mul(&s, &la, &q->y);
    cz_fp2_sub(&l->c0, &l->c0, &s);
    cz_fp2_neg(&l->c1, &th);
    l->c2 = la;

    cz_fp2_mul(&t->x, &la, &h);
    cz_fp2_sub(&g, &g, &h);
    cz_fp2_mul(&g, &th, &g);
    cz_fp2_mul(&s, &t->y, &e);
    cz_fp2_sub(&t->y, &g, &s);
    cz_fp2_mul(&t->z, &t->z, &e);
}

static inline void apply_line(cz_fp12 *f, const cz_pairing_line *l, const cz_g1_affine *p) {
    cz_fp2 l1, l4;
    cz_fp2_mul_fp(&l1, &l->c1, &p->x);
    cz_fp2_mul_fp(&l4, &l->c2, &p->y);
    cz_fp12_mul_by_014(f, f, &l->c0, &l1, &l4);
}

static inline bool pair_is_trivial(const cz_g1_affine *p, const cz_g2_affine *q) {
    return cz_g1_affine_is_infinity(p) || cz_g2_affine_is_infinity(q);
}

/* Miller loop of up to CZ_MILLER_BLOCK pairs, none at infinity; f is not yet conjugated. */
static void miller_block(cz_fp12 *f, const cz_g1_affine *const *p, const cz_g2_affine *const *q, size_t n) {
    g2_proj t[CZ_MILLER_BLOCK];
    cz_pairing_line l;
    for (size_t j = 0; j < n; j++) proj_from_affine(&t[j], q[j]);
    *f = CZ_FP12_ONE_V;
    for (int i = 62; i >= 0; i--) {
        if (i != 62) cz_fp12_sqr(f, f);
        for (size_t j = 0; j < n; j++) {
            dbl_step(&t[j], &l);
            apply_line(f, &l, p[j]);
        }
        if ((CZ_BLS_X_ABS >> i) & 1) {
            for (size_t j = 0; j < n; j++) {
                add_step(&t[j], q[j], &l);
                apply_line(f, &l, p[j]);
            }
        }
    }
}

void cz_miller_loop(cz_fp12 *f, const cz_g1_affine *p, const cz_g2_affine *q, size_t n) {
    const cz_g1_affine *pb[CZ_MILLER_BLOCK];
    const cz_g2_affine *qb[CZ_MILLER_BLOCK];
    cz_fp12 acc = CZ_FP12_ONE_V, blk;
    size_t m = 0;
    bool first = true;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && !pair_is_trivial(&p[i], &q[i])) {
            pb[m] = &p[i];
            qb[m] = &q[i];
            m++;
        }
        if (m == CZ_MILLER_BLOCK || (i == n && m > 0)) {
            miller_block(first ? &acc : &blk, pb, qb, m);
            if (!first) cz_fp12_mul(&acc, &acc, &blk);
            first = false;
            m = 0;
        }
    }
    /* x < 0: f_{x} = 1/f_{|x|}, and conjugation is that inverse up to the final exponentiation. */
    cz_fp12_conj(f, &acc);
}

void cz_g2_prepare(cz_g2_prepared *r, const cz_g2_affine *q) {
    r->infinity = cz_g2_affine_is_infinity(q);
    if (r->infinity) {
        memset(r->lines, 0, sizeof r->lines);
        return;
    }
    g2_proj t;
    size_t k = 0;
    proj_from_affine(&t, q);
    for (int i = 62; i >= 0; i--) {
        dbl_step(&t, &r->lines[k++]);
        if ((CZ_BLS_X_ABS >> i) & 1) add_step(&t, q, &r->lines[k++]);
    }
}

void cz_miller_loop_prepared(cz_fp12 *f, const cz_g1_affine *p, const cz_g2_prepared *const *q, size_t n) {
    cz_fp12 acc = CZ_FP12_ONE_V;
    size_t k = 0;
    for (int i = 62; i >= 0; i--) {
        if (i != 62) cz_fp12_sqr(&acc, &acc);
        size_t steps = ((CZ_BLS_X_ABS >> i) & 1) ? 2 : 1;
        for (size_t s = 0; s < steps; s++, k++) {
            for (size_t j = 0; j < n; j++) {
                if (q[j]->infinity || cz_g1_affine_is_infinity(&p[j])) continue;
                apply_line(&acc, &q[j]->lines[k], &p[j]);
            }
        }
    }
    cz_fp12_conj(f, &acc);
}

/* a^|x| by square-and-multiply on the 6-bit-weight |x|, cyclotomic squarings. */
static void cyclotomic_exp_x_abs(cz_fp12 *r, const cz_fp12 *a) {
    cz_fp12 acc = *a;
    for (int i = 62; i >= 0; i--) {
        cz_fp12_cyclotomic_sqr(&acc, &acc);
        if ((CZ_BLS_X_ABS >> i) & 1) cz_fp12_mul(&acc, &acc, a);
    }
    *r = acc;
}

/* a^x for x < 0 on the cyclotomic subgroup (the inverse is the conjugate). */
static void pow_x(cz_fp12 *r, const cz_fp12 *a) {
    cyclotomic_exp_x_abs(r, a);
    cz_fp12_conj(r, r);
}

void cz_final_exponentiation(cz_fp12 *r, const cz_fp12 *f) {
    cz_fp12 t0, t1, t2, t3, t4, t5, t6, t7, s;
    /* Easy part: f^((p^6 - 1)(p^2 + 1)) lands in the cyclotomic subgroup. */
    if (cz_fp12_inv(&t0, f)) {
        *r = (cz_fp12){CZ_FP6_ZERO_V, CZ_FP6_ZERO_V};
        return;
    }
    cz_fp12_conj(&t1, f);
    cz_fp12_mul(&t0, &t1, &t0);
    cz_fp12_frobenius(&t1, &t0, 2);
    cz_fp12_mul(&t1, &t1, &t0);

    /* Hard part: g^(3 (p^4 - p^2 + 1)/r). With t2 = g^x, t3 = g^(x-2), t4 = t3^x, t5 = t4^x,
     * t6 = t5^x g^(2x), t7 = t6^x, the result is
     * (t2 t5)^(p^2) (t4 g)^(p^3) (t6 / g)^p t7 / t3 * g; tools/gen_tower_constants.py checks the exponent. */
    pow_x(&t2, &t1);
    cz_fp12_cyclotomic_sqr(&t3, &t1);
    cz_fp12_conj(&t3, &t3);
    cz_fp12_mul(&t3, &t3, &t2);
    pow_x(&t4, &t3);
    pow_x(&t5, &t4);
    pow_x(&t6, &t5);
    cz_fp12_cyclotomic_sqr(&s, &t2);
    cz_fp12_mul(&t6, &t6, &s);
    pow_x(&t7, &t6);

    cz_fp12_mul(&t2, &t2, &t5);
    cz_fp12_frobenius(&t2, &t2, 2);
    cz_fp12_mul(&t4, &t4, &t1);
    cz_fp12_frobenius(&t4, &t4, 3);
    cz_fp12_conj(&s, &t1);
    cz_fp12_mul(&t6, &t6, &s);
    cz_fp12_frobenius(&t6, &t6, 1);
    cz_fp12_conj(&t3, &t3);
    cz_fp12_mul(&t7, &t7, &t3);
    cz_fp12_mul(&t7, &t7, &t1);

    cz_fp12_mul(&s, &t2, &t4);
    cz_fp12_mul(&s, &s, &t6);
    cz_fp12_mul(r, &s, &t7);
}

void cz_pairing(cz_fp12 *e, const cz_g1_affine *p, const cz_g2_affine *q) { cz_multi_pairing(e, p, q, 1); }

void cz_multi_pairing(cz_fp12 *e, const cz_g1_affine *p, const cz_g2_affine *q, size_t n) {
    cz_fp12 f;
    cz_miller_loop(&f, p, q, n);
    cz_final_exponentiation(e, &f);
}

void cz_multi_pairing_prepared(cz_fp12 *e, const cz_g1_affine *p, const cz_g2_prepared *const *q, size_t n) {
    cz_fp12 f;
    cz_miller_loop_prepared(&f, p, q, n);
    cz_final_exponentiation(e, &f);
}

bool cz_pairing_product_is_one(const cz_g1_affine *p, const cz_g2_affine *q, size_t n) {
    cz_fp12 e;
    cz_multi_pairing(&e, p, q, n);
    return cz_fp12_is_one(&e);
}

bool cz_pairing_product_is_one_prepared(const cz_g1_affine *p, const cz_g2_prepared *const *q, size_t n) {
    cz_fp12 e;
    cz_multi_pairing_prepared(&e, p, q, n);
    return cz_fp12_is_one(&e);
}
