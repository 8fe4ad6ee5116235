/* Fixed-base scalar multiplication of the G1/G2 generators, shared by the two setups (bellperson's
 * .params in setup.c, snarkjs' .zkey in snarkjs_setup.c). Private to src/groth16; needs <omp.h>,
 * <stdlib.h> and the ec headers before it. */
#ifndef CZ_GROTH16_FIXED_BASE_H
#define CZ_GROTH16_FIXED_BASE_H

#include <stdlib.h>

#include "ec/g1.h"
#include "ec/g2.h"

/* Fixed-base multiplication: setup multiplies the two generators by millions of scalars, so a table of
 * d * 2^(8w) * G (32 byte windows w, digits d < 256) turns each product into at most 32 mixed additions
 * instead of ~255 doublings and ~50 additions. */
#define FB_WINDOWS 32
#define FB_DIGITS 256
#define DEFINE_FIXED_BASE(G)                                                                          \
    static cz_##G##_affine *G##_fb_table(const cz_##G##_jac *g) {                                      \
        size_t n = (size_t)FB_WINDOWS * FB_DIGITS;                                                    \
        cz_##G##_jac *j = malloc(n * sizeof *j);                                                      \
        cz_##G##_affine *tab = malloc(n * sizeof *tab);                                               \
        if (!j || !tab) {                                                                             \
            free(j);                                                                                  \
            free(tab);                                                                                \
            return NULL;                                                                              \
        }                                                                                             \
        cz_##G##_jac base = *g;                                                                       \
        for (size_t w = 0; w < FB_WINDOWS; w++) {                                                     \
            cz_##G##_jac *row = j + w * FB_DIGITS;                                                    \
            cz_##G##_jac_set_infinity(&row[0]);                                                       \
            row[1] = base;                                                                            \
            for (size_t d = 2; d < FB_DIGITS; d++)                                                    \
                cz_##G##_jac_add(&row[d], &row[d - 1], &base);                                        \
            cz_##G##_jac_double(&base, &row[FB_DIGITS / 2]);                                          \
        }                                                                                             \
        cz_##G##_batch_to_affine(tab, j, n);                                                          \
        free(j);                                                                                      \
        return tab;                                                                                   \
    }                                                                                                 \
    static void G##_fb_mul(cz_##G##_jac *r, const cz_##G##_affine *tab, const cz_fr *k) {              \
        uint64_t raw[4];                                                                              \
        cz_fr_to_raw(raw, k);                                                                         \
        cz_##G##_jac_set_infinity(r);                                                                 \
        for (size_t w = 0; w < FB_WINDOWS; w++) {                                                     \
            unsigned d = (unsigned)(raw[w / 8] >> (8 * (w % 8))) & 0xff;                              \
            if (d)                                                                                    \
                cz_##G##_jac_add_affine(r, r, &tab[w * FB_DIGITS + d]);                               \
        }                                                                                             \
    }                                                                                                 \
    static void G##_mul_many(cz_##G##_affine *out, const cz_##G##_affine *tab, const cz_fr *k, size_t n, \
                             cz_##G##_jac *tmp, int nt) {                                             \
        _Pragma("omp parallel for schedule(static) num_threads(nt) if (n > 256)")                    \
        for (size_t i = 0; i < n; i++)                                                                \
            G##_fb_mul(&tmp[i], tab, &k[i]);                                                          \
        cz_##G##_batch_to_affine(out, tmp, n);                                                        \
    }                                                                                                 \
    static void G##_mul1(cz_##G##_affine *out, const cz_##G##_affine *tab, const cz_fr *k) {           \
        cz_##G##_jac r;                                                                               \
        G##_fb_mul(&r, tab, k);                                                                       \
        cz_##G##_to_affine(out, &r);                                                                  \
    }

#endif
