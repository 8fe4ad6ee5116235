/* Short-Weierstrass (a = 0) point arithmetic template, shared by G1 (over Fp) and G2 (over Fp2).
 * Included by g1.h / g2.h with:
 *   EC_F        field element type            EC_FF(op)   field operation name (cz_fp_##op)
 *   EC_P(name)  point function name            EC_AFF, EC_JAC, EC_XYZZ  point types
 * Affine infinity is x = y = 0 (not on the curve, and what bellperson/sppark use for bases);
 * jacobian infinity is Z = 0; xyzz infinity is ZZ = 0. Formulas: hyperelliptic.org EFD
 * (dbl-2009-l, add-2007-bl, madd-2007-bl; xyzz: add-2008-s, madd-2008-s, dbl-2008-s-1). */

static inline bool EC_P(affine_is_infinity)(const EC_AFF *p) { return EC_FF(is_zero)(&p->x) && EC_FF(is_zero)(&p->y); }
static inline bool EC_P(jac_is_infinity)(const EC_JAC *p) { return EC_FF(is_zero)(&p->z); }
static inline bool EC_P(xyzz_is_infinity)(const EC_XYZZ *p) { return EC_FF(is_zero)(&p->zz); }

static inline void EC_P(jac_set_infinity)(EC_JAC *r) {
    memset(r, 0, sizeof *r);
}
static inline void EC_P(xyzz_set_infinity)(EC_XYZZ *r) { memset(r, 0, sizeof *r); }

static inline void EC_P(jac_from_affine)(EC_JAC *r, const EC_AFF *a) {
    if (EC_P(affine_is_infinity)(a)) {
        EC_P(jac_set_infinity)(r);
        return;
    }
    r->x = a->x;
    r->y = a->y;
    r->z = EC_ONE;
}

static inline void EC_P(affine_neg)(EC_AFF *r, const EC_AFF *a) {
    r->x = a->x;
    EC_FF(neg)(&r->y, &a->y);
}
static inline void EC_P(jac_neg)(EC_JAC *r, const EC_JAC *a) {
    r->x = a->x;
    EC_FF(neg)(&r->y, &a->y);
    r->z = a->z;
}

static inline void EC_P(jac_double)(EC_JAC *r, const EC_JAC *p) {
    if (EC_P(jac_is_infinity)(p)) {
        *r = *p;
        return;
    }
    EC_F A, B, C, D, E, F, t;
    EC_FF(sqr)(&A, &p->x);
    EC_FF(sqr)(&B, &p->y);
    EC_FF(sqr)(&C, &B);
    EC_FF(add)(&D, &p->x, &B);
    EC_FF(sqr)(&D, &D);
    EC_FF(sub)(&D, &D, &A);
    EC_FF(sub)(&D, &D, &C);
    EC_FF(double)(&D, &D);
    EC_FF(double)(&E, &A);
    EC_FF(add)(&E, &E, &A);
    EC_FF(sqr)(&F, &E);
    EC_FF(mul)(&t, &p->y, &p->z); /* before writing r, which may alias p */
    EC_FF(double)(&r->z, &t);
    EC_FF(double)(&t, &D);
    EC_FF(sub)(&r->x, &F, &t);
    EC_FF(sub)(&t, &D, &r->x);
    EC_FF(mul)(&t, &E, &t);
    EC_FF(double)(&C, &C);
    EC_FF(double)(&C, &C);
    EC_FF(double)(&C, &C);
    EC_FF(sub)(&r->y, &t, &C);
}

static inline void EC_P(jac_add)(EC_JAC *r, const EC_JAC *p, const EC_JAC *q) {
    if (EC_P(jac_is_infinity)(p)) {
        *r = *q;
        return;
    }
    if (EC_P(jac_is_infinity)(q)) {
        *r = *p;
        return;
    }
    EC_F z1z1, z2z2, u1, u2, s1, s2, h, i, j, rr, v, t;
    EC_FF(sqr)(&z1z1, &p->z);
    EC_FF(sqr)(&z2z2, &q->z);
    EC_FF(mul)(&u1, &p->x, &z2z2);
    EC_FF(mul)(&u2, &q->x, &z1z1);
    EC_FF(mul)(&s1, &p->y, &q->z);
    EC_FF(mul)(&s1, &s1, &z2z2);
    EC_FF(mul)(&s2, &q->y, &p->z);
    EC_FF(mul)(&s2, &s2, &z1z1);
    EC_FF(sub)(&h, &u2, &u1);
    EC_FF(sub)(&rr, &s2, &s1);
    if (EC_FF(is_zero)(&h)) {
        if (EC_FF(is_zero)(&rr)) {
            EC_P(jac_double)(r, p);
        } else {
            EC_P(jac_set_infinity)(r);
        }
        return;
    }
    EC_FF(double)(&i, &h);
    EC_FF(sqr)(&i, &i);
    EC_FF(mul)(&j, &h, &i);
    EC_FF(double)(&rr, &rr);
    EC_FF(mul)(&v, &u1, &i);
    EC_FF(add)(&t, &p->z, &q->z);
    EC_FF(sqr)(&t, &t);
    EC_FF(sub)(&t, &t, &z1z1);
    EC_FF(sub)(&t, &t, &z2z2);
    EC_FF(mul)(&r->z, &t, &h);
    EC_FF(sqr)(&t, &rr);
    EC_FF(sub)(&t, &t, &j);
    EC_FF(sub)(&t, &t, &v);
    EC_FF(sub)(&r->x, &t, &v);
    EC_FF(sub)(&t, &v, &r->x);
    EC_FF(mul)(&t, &rr, &t);
    EC_FF(mul)(&s1, &s1, &j);
    EC_FF(double)(&s1, &s1);
    EC_FF(sub)(&r->y, &t, &s1);
}

/* r = p + q with q affine (mixed addition). */
static inline void EC_P(jac_add_affine)(EC_JAC *r, const EC_JAC *p, const EC_AFF *q) {
    if (EC_P(affine_is_infinity)(q)) {
        *r = *p;
        return;
    }
    if (EC_P(jac_is_infinity)(p)) {
        EC_P(jac_from_affine)(r, q);
        return;
    }
    EC_F z1z1, u2, s2, h, hh, i, j, rr, v, t, y1 = p->y, x1 = p->x;
    EC_FF(sqr)(&z1z1, &p->z);
    EC_FF(mul)(&u2, &q->x, &z1z1);
    EC_FF(mul)(&s2, &q->y, &p->z);
    EC_FF(mul)(&s2, &s2, &z1z1);
    EC_FF(sub)(&h, &u2, &x1);
    EC_FF(sub)(&rr, &s2, &y1);
    if (EC_FF(is_zero)(&h)) {
        if (EC_FF(is_zero)(&rr)) {
            EC_P(jac_double)(r, p);
        } else {
            EC_P(jac_set_infinity)(r);
        }
        return;
    }
    EC_FF(sqr)(&hh, &h);
    EC_FF(double)(&i, &hh);
    EC_FF(double)(&i, &i);
    EC_FF(mul)(&j, &h, &i);
    EC_FF(double)(&rr, &rr);
    EC_FF(mul)(&v, &x1, &i);
    EC_FF(add)(&t, &p->z, &h);
    EC_FF(sqr)(&t, &t);
    EC_FF(sub)(&t, &t, &z1z1);
    EC_FF(sub)(&r->z, &t, &hh);
    EC_FF(sqr)(&t, &rr);
    EC_FF(sub)(&t, &t, &j);
    EC_FF(sub)(&t, &t, &v);
    EC_FF(sub)(&r->x, &t, &v);
    EC_FF(sub)(&t, &v, &r->x);
    EC_FF(mul)(&t, &rr, &t);
    EC_FF(mul)(&y1, &y1, &j);
    EC_FF(double)(&y1, &y1);
    EC_FF(sub)(&r->y, &t, &y1);
}

static inline void EC_P(xyzz_double)(EC_XYZZ *r, const EC_XYZZ *p) {
    if (EC_P(xyzz_is_infinity)(p)) {
        *r = *p;
        return;
    }
    EC_F u, v, w, s, m, t;
    EC_FF(double)(&u, &p->y);
    EC_FF(sqr)(&v, &u);
    EC_FF(mul)(&w, &u, &v);
    EC_FF(mul)(&s, &p->x, &v);
    EC_FF(sqr)(&m, &p->x);
    EC_FF(double)(&t, &m);
    EC_FF(add)(&m, &m, &t);
    EC_FF(mul)(&r->zz, &v, &p->zz);
    EC_FF(mul)(&r->zzz, &w, &p->zzz);
    EC_FF(mul)(&w, &w, &p->y);
    EC_FF(sqr)(&t, &m);
    EC_FF(sub)(&t, &t, &s);
    EC_FF(sub)(&r->x, &t, &s);
    EC_FF(sub)(&t, &s, &r->x);
    EC_FF(mul)(&t, &m, &t);
    EC_FF(sub)(&r->y, &t, &w);
}

/* Doubles an affine point into xyzz (dbl with ZZ = ZZZ = 1). */
static inline void EC_P(xyzz_double_affine)(EC_XYZZ *r, const EC_AFF *q) {
    EC_XYZZ t = {q->x, q->y, EC_ONE, EC_ONE};
    EC_P(xyzz_double)(r, &t);
}

static inline void EC_P(xyzz_add_affine)(EC_XYZZ *r, const EC_XYZZ *p, const EC_AFF *q) {
    if (EC_P(affine_is_infinity)(q)) {
        *r = *p;
        return;
    }
    if (EC_P(xyzz_is_infinity)(p)) {
        r->x = q->x;
        r->y = q->y;
        r->zz = EC_ONE;
        r->zzz = EC_ONE;
        return;
    }
    EC_F P, R, pp, ppp, Q, t;
    EC_FF(mul)(&P, &q->x, &p->zz);
    EC_FF(sub)(&P, &P, &p->x);
    EC_FF(mul)(&R, &q->y, &p->zzz);
    EC_FF(sub)(&R, &R, &p->y);
    if (EC_FF(is_zero)(&P)) {
        if (EC_FF(is_zero)(&R)) {
            EC_P(xyzz_double_affine)(r, q);
        } else {
            EC_P(xyzz_set_infinity)(r);
        }
        return;
    }
    EC_FF(sqr)(&pp, &P);
    EC_FF(mul)(&ppp, &P, &pp);
    EC_FF(mul)(&Q, &p->x, &pp);
    EC_FF(mul)(&r->zz, &p->zz, &pp);
    EC_FF(mul)(&r->zzz, &p->zzz, &ppp);
    EC_FF(sqr)(&t, &R);
    EC_FF(sub)(&t, &t, &ppp);
    EC_FF(sub)(&t, &t, &Q);
    EC_FF(mul)(&ppp, &ppp, &p->y);
    EC_FF(sub)(&r->x, &t, &Q);
    EC_FF(sub)(&t, &Q, &r->x);
    EC_FF(mul)(&t, &R, &t);
    EC_FF(sub)(&r->y, &t, &ppp);
}

/* r = p - q (q affine). */
static inline void EC_P(xyzz_sub_affine)(EC_XYZZ *r, const EC_XYZZ *p, const EC_AFF *q) {
    EC_AFF n;
    EC_P(affine_neg)(&n, q);
    EC_P(xyzz_add_affine)(r, p, &n);
}

static inline void EC_P(xyzz_add)(EC_XYZZ *r, const EC_XYZZ *p, const EC_XYZZ *q) {
    if (EC_P(xyzz_is_infinity)(p)) {
        *r = *q;
        return;
    }
    if (EC_P(xyzz_is_infinity)(q)) {
        *r = *p;
        return;
    }
    EC_F u1, u2, s1, s2, P, R, pp, ppp, Q, t;
    EC_FF(mul)(&u1, &p->x, &q->zz);
    EC_FF(mul)(&u2, &q->x, &p->zz);
    EC_FF(mul)(&s1, &p->y, &q->zzz);
    EC_FF(mul)(&s2, &q->y, &p->zzz);
    EC_FF(sub)(&P, &u2, &u1);
    EC_FF(sub)(&R, &s2, &s1);
    if (EC_FF(is_zero)(&P)) {
        if (EC_FF(is_zero)(&R)) {
            EC_P(xyzz_double)(r, p);
        } else {
            EC_P(xyzz_set_infinity)(r);
        }
        return;
    }
    EC_FF(sqr)(&pp, &P);
    EC_FF(mul)(&ppp, &P, &pp);
    EC_FF(mul)(&Q, &u1, &pp);
    EC_FF(mul)(&t, &p->zz, &q->zz);
    EC_FF(mul)(&r->zz, &t, &pp);
    EC_FF(mul)(&t, &p->zzz, &q->zzz);
    EC_FF(mul)(&r->zzz, &t, &ppp);
    EC_FF(sqr)(&t, &R);
    EC_FF(sub)(&t, &t, &ppp);
    EC_FF(sub)(&t, &t, &Q);
    EC_FF(sub)(&r->x, &t, &Q);
    EC_FF(sub)(&t, &Q, &r->x);
    EC_FF(mul)(&t, &R, &t);
    EC_FF(mul)(&s1, &s1, &ppp);
    EC_FF(sub)(&r->y, &t, &s1);
}

/* xyzz -> jacobian: (X ZZ^2, Y ZZZ^2, ZZZ), using ZZ^3 = ZZZ^2. */
static inline void EC_P(jac_from_xyzz)(EC_JAC *r, const EC_XYZZ *p) {
    if (EC_P(xyzz_is_infinity)(p)) {
        EC_P(jac_set_infinity)(r);
        return;
    }
    EC_F t;
    EC_FF(sqr)(&t, &p->zz);
    EC_FF(mul)(&r->x, &p->x, &t);
    EC_FF(sqr)(&t, &p->zzz);
    EC_FF(mul)(&r->y, &p->y, &t);
    r->z = p->zzz;
}
