/* bellpepper-core's Boolean / AllocatedBit (gadgets/boolean.rs), written once against cz_cs so it runs
 * in record, witness and count mode. Constraint forms, allocation order and constant folding follow
 * bellpepper exactly, because the Filecoin circuits must come out identical to rust-fil-proofs'.
 *
 * A cz_bool is a constant, a variable (Is) or a negated variable (Not). val is the Boolean's value
 * (for Not: the negation of the bit); outside witness mode the value of a variable is meaningless but
 * harmless. Negation is free, constants fold without constraints. */
#ifndef CZ_GADGETS_BOOLEAN_H
#define CZ_GADGETS_BOOLEAN_H

#include <stdbool.h>
#include <stdint.h>

#include "r1cs/cs.h"

enum { CZ_BOOL_CONST = 0, CZ_BOOL_IS = 1, CZ_BOOL_NOT = 2 };

typedef struct {
    cz_var var;  /* the AllocatedBit (Is / Not) */
    uint8_t kind;
    uint8_t val; /* the Boolean's value, 0 or 1 */
} cz_bool;

static inline cz_bool cz_bool_const(bool v) { return (cz_bool){{0}, CZ_BOOL_CONST, (uint8_t)v}; }
static inline bool cz_bool_is_const(cz_bool b) { return b.kind == CZ_BOOL_CONST; }
static inline cz_bool cz_bool_not(cz_bool b) {
    if (b.kind != CZ_BOOL_CONST) b.kind = b.kind == CZ_BOOL_IS ? CZ_BOOL_NOT : CZ_BOOL_IS;
    b.val ^= 1;
    return b;
}
/* The value of the underlying AllocatedBit. */
static inline uint8_t cz_bool_bit(cz_bool b) { return b.val ^ (b.kind == CZ_BOOL_NOT); }

/* The 2^k (k < 256) table every packing gadget uses. */
const cz_fr *cz_gadget_pow2(unsigned k);

/* AllocatedBit::alloc: aux b, constraint (ONE - b) * b = 0. */
cz_bool cz_bit_alloc(cz_cs *cs, bool value);

/* lc += coeff * b as Boolean::lc(ONE, coeff) (coeff NULL = 1): constant true -> coeff*ONE,
 * Is -> coeff*b, Not -> coeff*ONE - coeff*b. A no-op outside record mode. */
void cz_bool_lc_add(cz_cs *cs, cz_lc *lc, cz_bool b, const cz_fr *coeff);
/* lc -= coeff * b. */
void cz_bool_lc_sub(cz_cs *cs, cz_lc *lc, cz_bool b, const cz_fr *coeff);

/* Boolean::xor / and with bellpepper's folding (constants, Is/Not combinations). */
cz_bool cz_bool_xor(cz_cs *cs, cz_bool a, cz_bool b);
cz_bool cz_bool_and(cz_cs *cs, cz_bool a, cz_bool b);
/* Boolean::sha256_ch ((a and b) xor (!a and c)) and sha256_maj. */
cz_bool cz_bool_sha256_ch(cz_cs *cs, cz_bool a, cz_bool b, cz_bool c);
cz_bool cz_bool_sha256_maj(cz_cs *cs, cz_bool a, cz_bool b, cz_bool c);

#endif
