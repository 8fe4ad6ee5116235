/* Fr, the BLS12-381 scalar field (255-bit r), in Montgomery form: four little-endian 64-bit limbs
 * holding a*2^256 mod r, fully reduced: the bytes bellperson/blstrs Scalar holds in memory, so a
 * witness vector goes to the GPU as is. All functions allow the output to alias any input. */
#ifndef CZ_FF_FR_H
#define CZ_FF_FR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ff/constants.h"
#include "util/rng.h"

typedef struct { uint64_t l[4]; } cz_fr;

#define MONT_N 4
#define MONT_T cz_fr
#define MONT_FN(name) cz_fr_##name
#define MONT_P CZ_FR_MODULUS
#define MONT_INV CZ_FR_INV
/* x86-64 assembly in optimized builds unless CZ_NO_ASM (-O0 cannot give the multiplication its nine
 * registers; never in CUDA translation units); the multiplication also
 * needs BMI2 + ADX (-madx, CMake option CZ_ADX). */
#if defined(__x86_64__) && defined(__GNUC__) && defined(__OPTIMIZE__) && !defined(CZ_NO_ASM) && !defined(__CUDACC__)
#include "ff/mont_asm_x86.h"
#define MONT_ASM_ADD cz_mont_add4_asm
#define MONT_ASM_SUB cz_mont_sub4_asm
#if defined(__ADX__) && defined(__BMI2__)
#define MONT_ASM_MUL cz_mont_mul4_adx
#endif
#endif
#include "ff/mont_impl.h"
#undef MONT_ASM_MUL
#undef MONT_ASM_ADD
#undef MONT_ASM_SUB
#undef MONT_N
#undef MONT_T
#undef MONT_FN
#undef MONT_P
#undef MONT_INV

static const cz_fr CZ_FR_ZERO_V = {{0}};
static const cz_fr CZ_FR_ONE_V = {CZ_FR_R};

void cz_fr_set_u64(cz_fr *r, uint64_t v);
void cz_fr_pow(cz_fr *r, const cz_fr *a, const uint64_t *e, size_t n);
int cz_fr_inv(cz_fr *r, const cz_fr *a);
/* Inverts n elements in place with one inversion (Montgomery's trick); zeros stay zero.
 * scratch holds n elements. */
void cz_fr_batch_inv(cz_fr *a, size_t n, cz_fr *scratch);
int cz_fr_sqrt(cz_fr *r, const cz_fr *a);
int cz_fr_legendre(const cz_fr *a);
/* Canonical (plain) integer limbs; from_raw fails with CZ_ERANGE for values >= r. */
int cz_fr_from_raw(cz_fr *r, const uint64_t v[4]);
void cz_fr_to_raw(uint64_t v[4], const cz_fr *a);
/* 32-byte little-endian canonical encoding, as blstrs Scalar::to_repr / from_repr. */
int cz_fr_from_bytes_le(cz_fr *r, const uint8_t in[32]);
void cz_fr_to_bytes_le(uint8_t out[32], const cz_fr *a);
/* 32-byte big-endian canonical encoding. */
int cz_fr_from_bytes_be(cz_fr *r, const uint8_t in[32]);
void cz_fr_to_bytes_be(uint8_t out[32], const cz_fr *a);
/* Reduces 64 little-endian bytes mod r (uniform sampling, hash-to-field). */
void cz_fr_from_bytes_wide_le(cz_fr *r, const uint8_t in[64]);
void cz_fr_random(cz_fr *r, cz_rng *rng);
/* The 2^k-th primitive root of unity 7^((r-1)/2^k) (bellperson's domain), k <= 32. */
int cz_fr_root_of_unity(cz_fr *r, unsigned k);

#endif
