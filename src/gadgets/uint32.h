/* bellperson's UInt32 (gadgets/uint32.rs) and MultiEq (gadgets/multieq.rs).
 *
 * A cz_u32 is 32 cz_bools, least significant first, plus its value (exact for constants and in
 * witness mode). Constant operands fold exactly as bellperson folds them.
 *
 * MultiEq packs many equalities "lhs == rhs" (each n bits wide) into one constraint
 * (sum 2^off lhs) * ONE = (sum 2^off rhs); it flushes before adding an equality when
 * bits_used + n >= 254 and once at the end (cz_multieq_finish = bellperson's Drop), so its
 * constraints land after the bits they constrain, as upstream. */
#ifndef CZ_GADGETS_UINT32_H
#define CZ_GADGETS_UINT32_H

#include "gadgets/boolean.h"

typedef struct {
    cz_bool bits[32]; /* LSB first */
    uint32_t value;
} cz_u32;

typedef struct {
    cz_cs *cs;
    unsigned bits_used;
    cz_lc lhs, rhs;
} cz_multieq;

void cz_multieq_init(cz_multieq *m, cz_cs *cs);
/* Flushes the pending equality (if any) and releases the LCs. */
void cz_multieq_finish(cz_multieq *m);

cz_u32 cz_u32_constant(uint32_t v);
/* UInt32::from_bits_be: bits[0] is the most significant. */
cz_u32 cz_u32_from_bits_be(const cz_bool bits[32]);
void cz_u32_into_bits_be(cz_bool out[32], const cz_u32 *x);
cz_u32 cz_u32_rotr(const cz_u32 *x, unsigned by);
cz_u32 cz_u32_shr(const cz_u32 *x, unsigned by);
cz_u32 cz_u32_xor(cz_cs *cs, const cz_u32 *a, const cz_u32 *b);
cz_u32 cz_u32_sha256_ch(cz_cs *cs, const cz_u32 *a, const cz_u32 *b, const cz_u32 *c);
cz_u32 cz_u32_sha256_maj(cz_cs *cs, const cz_u32 *a, const cz_u32 *b, const cz_u32 *c);
/* UInt32::addmany of n (2..10) operands: all-constant -> constant; otherwise bitlen(n (2^32-1))
 * AllocatedBits of the sum (each with its boolean constraint), then one MultiEq equality. */
cz_u32 cz_u32_addmany(cz_multieq *m, const cz_u32 *const *ops, unsigned n);

#endif
