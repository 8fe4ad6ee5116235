/* Fp, the BLS12-381 base field (381-bit p), in Montgomery form: six little-endian 64-bit limbs
 * holding a*2^384 mod p, fully reduced. Same bytes as blst/blstrs hold in memory and the GPU reads.
 * All functions allow the output to alias any input. */
#ifndef CZ_FF_FP_H
#define CZ_FF_FP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ff/constants.h"
#include "util/rng.h"

typedef struct { uint64_t l[6]; } cz_fp;

#define MONT_N 6
#define MONT_T cz_fp
#define MONT_FN(name) cz_fp_##name
#define MONT_P CZ_FP_MODULUS
#define MONT_INV CZ_FP_INV
/* x86-64 assembly in optimized builds unless CZ_NO_ASM (-O0 cannot give the multiplication its nine
 * registers; never in CUDA translation units); the multiplication also
 * needs BMI2 + ADX (-madx, CMake option CZ_ADX). */
#if defined(__x86_64__) && defined(__GNUC__) && defined(__OPTIMIZE__) && !defined(CZ_NO_ASM) && !defined(__CUDACC__)
#include "ff/mont_asm_x86.h"
#define MONT_ASM_ADD cz_mont_add6_asm
#define MONT_ASM_SUB cz_mont_sub6_asm
#if defined(__ADX__) && defined(__BMI2__)
#define MONT_ASM_MUL cz_mont_mul6_adx
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

static const cz_fp CZ_FP_ZERO_V = {{0}};
static const cz_fp CZ_FP_ONE_V = {CZ_FP_R};

void cz_fp_set_u64(cz_fp *r, uint64_t v);
/* a^e with e given as n little-endian limbs (plain integer, not Montgomery). */
void cz_fp_pow(cz_fp *r, const cz_fp *a, const uint64_t *e, size_t n);
/* r = 1/a; returns 0, or CZ_EINVAL when a = 0 (then r = 0). */
int cz_fp_inv(cz_fp *r, const cz_fp *a);
/* r = a square root of a; returns 0, or CZ_EINVAL when a is not a square. */
int cz_fp_sqrt(cz_fp *r, const cz_fp *a);
/* Legendre symbol: 1 (nonzero square), -1 (non-square), 0 (zero). */
int cz_fp_legendre(const cz_fp *a);
/* true iff the canonical value of a is greater than (p-1)/2 (the ZCash "sign" of y). */
bool cz_fp_is_lexicographically_largest(const cz_fp *a);
/* Canonical (non-Montgomery) integers as limbs; from_raw fails with CZ_ERANGE for values >= p. */
int cz_fp_from_raw(cz_fp *r, const uint64_t v[6]);
void cz_fp_to_raw(uint64_t v[6], const cz_fp *a);
/* 48-byte big-endian canonical encoding (as in ZCash point encodings). */
int cz_fp_from_bytes_be(cz_fp *r, const uint8_t in[48]);
void cz_fp_to_bytes_be(uint8_t out[48], const cz_fp *a);
void cz_fp_random(cz_fp *r, cz_rng *rng);

#endif
