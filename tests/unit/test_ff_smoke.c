/* Quick algebraic laws for Fp, Fr, Fp2 on random values (the GMP oracle tests are in tests/gmp). */
#include "ff/fp2.h"
#include "ff/fr.h"
#include "testutil.h"

int main(void) {
    cz_rng rng;
    cz_test_rng(&rng);
    for (int i = 0; i < 2000; i++) {
        cz_fp a, b, c, t, u;
        cz_fp_random(&a, &rng);
        cz_fp_random(&b, &rng);
        cz_fp_random(&c, &rng);
        cz_fp_add(&t, &a, &b);
        cz_fp_mul(&t, &t, &c);
        cz_fp_mul(&u, &a, &c);
        cz_fp_mul(&b, &b, &c);
        cz_fp_add(&u, &u, &b);
        CHECK(cz_fp_equal(&t, &u));
        cz_fp_inv(&t, &a);
        cz_fp_mul(&t, &t, &a);
        CHECK(cz_fp_equal(&t, &CZ_FP_ONE_V));
        cz_fp_sqr(&t, &a);
        CHECK(cz_fp_sqrt(&u, &t) == 0);
        cz_fp_sqr(&u, &u);
        CHECK(cz_fp_equal(&t, &u));

        cz_fr x, y, z;
        cz_fr_random(&x, &rng);
        cz_fr_sqr(&y, &x);
        CHECK(cz_fr_sqrt(&z, &y) == 0);
        cz_fr_sqr(&z, &z);
        CHECK(cz_fr_equal(&z, &y));
        cz_fr_inv(&y, &x);
        cz_fr_mul(&y, &y, &x);
        CHECK(cz_fr_equal(&y, &CZ_FR_ONE_V));

        cz_fp2 p, q, s;
        cz_fp2_random(&p, &rng);
        cz_fp2_sqr(&q, &p);
        CHECK(cz_fp2_sqrt(&s, &q) == 0);
        cz_fp2_sqr(&s, &s);
        CHECK(cz_fp2_equal(&s, &q));
        cz_fp2_inv(&q, &p);
        cz_fp2_mul(&q, &q, &p);
        CHECK(cz_fp2_equal(&q, &CZ_FP2_ONE_V));
    }
    cz_fr w;
    CHECK(cz_fr_root_of_unity(&w, 32) == 0);
    for (int i = 0; i < 31; i++) cz_fr_sqr(&w, &w);
    cz_fr m1;
    cz_fr_neg(&m1, &CZ_FR_ONE_V);
    CHECK(cz_fr_equal(&w, &m1));
    return cz_test_finish();
}
