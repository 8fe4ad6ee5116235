/* Test-local G1/G2 helpers for the pairing tests: generators from their published coordinates and a
 * plain double-and-add, written apart from src/ec/g1.c, g2.c (test_pairing cross-checks the two).
 * Names are tp_ to stay clear of the cz_ API. */
#ifndef CZ_PAIRING_TEST_POINTS_H
#define CZ_PAIRING_TEST_POINTS_H

#include <stdlib.h>

#include "ec/g1.h"
#include "ec/g2.h"
#include "testutil.h"

static void tp_fp_hex(cz_fp *r, const char *hex) {
    uint8_t b[48];
    if (cz_hex_decode(b, 48, hex) != 0 || cz_fp_from_bytes_be(r, b) != 0) {
        fprintf(stderr, "bad test constant %s\n", hex);
        exit(2);
    }
}

static void tp_g1_generator(cz_g1_affine *g) {
    tp_fp_hex(&g->x, "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb");
    tp_fp_hex(&g->y, "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1");
}

static void tp_g2_generator(cz_g2_affine *g) {
    tp_fp_hex(&g->x.c0, "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8");
    tp_fp_hex(&g->x.c1, "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e");
    tp_fp_hex(&g->y.c0, "0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801");
    tp_fp_hex(&g->y.c1, "0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be");
}

static bool tp_g1_on_curve(const cz_g1_affine *p) {
    cz_fp l, r, b;
    cz_fp_sqr(&l, &p->y);
    cz_fp_sqr(&r, &p->x);
    cz_fp_mul(&r, &r, &p->x);
    cz_fp_set_u64(&b, 4);
    cz_fp_add(&r, &r, &b);
    return cz_fp_equal(&l, &r);
}

static bool tp_g2_on_curve(const cz_g2_affine *p) {
    cz_fp2 l, r, b = {{{0}}, {{0}}};
    cz_fp2_sqr(&l, &p->y);
    cz_fp2_sqr(&r, &p->x);
    cz_fp2_mul(&r, &r, &p->x);
    cz_fp_set_u64(&b.c0, 4);
    cz_fp_set_u64(&b.c1, 4);
    cz_fp2_add(&r, &r, &b);
    return cz_fp2_equal(&l, &r);
}

/* k*p for k given as 4 little-endian limbs (k may be 0 or >= r), result affine. */
static void tp_g1_mul(cz_g1_affine *r, const cz_g1_affine *p, const uint64_t k[4]) {
    cz_g1_jac acc;
    cz_g1_jac_set_infinity(&acc);
    for (int i = 255; i >= 0; i--) {
        cz_g1_jac_double(&acc, &acc);
        if ((k[i / 64] >> (i % 64)) & 1) cz_g1_jac_add_affine(&acc, &acc, p);
    }
    if (cz_g1_jac_is_infinity(&acc)) {
        memset(r, 0, sizeof *r);
        return;
    }
    cz_fp zi, zi2;
    cz_fp_inv(&zi, &acc.z);
    cz_fp_sqr(&zi2, &zi);
    cz_fp_mul(&r->x, &acc.x, &zi2);
    cz_fp_mul(&zi2, &zi2, &zi);
    cz_fp_mul(&r->y, &acc.y, &zi2);
}

static void tp_g2_mul(cz_g2_affine *r, const cz_g2_affine *p, const uint64_t k[4]) {
    cz_g2_jac acc;
    cz_g2_jac_set_infinity(&acc);
    for (int i = 255; i >= 0; i--) {
        cz_g2_jac_double(&acc, &acc);
        if ((k[i / 64] >> (i % 64)) & 1) cz_g2_jac_add_affine(&acc, &acc, p);
    }
    if (cz_g2_jac_is_infinity(&acc)) {
        memset(r, 0, sizeof *r);
        return;
    }
    cz_fp2 zi, zi2;
    cz_fp2_inv(&zi, &acc.z);
    cz_fp2_sqr(&zi2, &zi);
    cz_fp2_mul(&r->x, &acc.x, &zi2);
    cz_fp2_mul(&zi2, &zi2, &zi);
    cz_fp2_mul(&r->y, &acc.y, &zi2);
}

/* A random scalar in [1, r) as plain limbs. */
static void tp_scalar(uint64_t k[4], cz_rng *rng) {
    cz_fr s;
    do cz_fr_random(&s, rng);
    while (cz_fr_is_zero(&s));
    cz_fr_to_raw(k, &s);
}

#endif
