/* bellpepper-core AllocatedNum (gadgets/num.rs), bellperson multipack and storage-proofs-core's
 * small gadgets (insertion::pick, constraint::equal), in bellpepper's allocation/constraint order.
 * A cz_num carries its value in witness mode (zero otherwise). */
#ifndef CZ_GADGETS_NUM_H
#define CZ_GADGETS_NUM_H

#include <stddef.h>

#include "gadgets/boolean.h"

typedef struct {
    cz_var var;
    cz_fr val;
} cz_num;

/* AllocatedNum::alloc (0 c, 1 a); value may be NULL outside witness mode. */
cz_num cz_num_alloc(cz_cs *cs, const cz_fr *value);
/* AllocatedNum::inputize: a new input x, constraint x * ONE = num. */
void cz_num_inputize(cz_cs *cs, const cz_num *n);
/* AllocatedNum::to_bits_le (non-strict): 255 AllocatedBits bit 0 first (a boolean constraint each),
 * then 0 * 0 = sum 2^i b_i - num. */
void cz_num_to_bits_le(cz_cs *cs, const cz_num *n, cz_bool out[255]);
/* multipack::pack_bits: a num x of the first min(n, 254) bits, (sum 2^i b_i) * ONE = x. */
cz_num cz_pack_bits(cz_cs *cs, const cz_bool *bits, size_t n);
/* multipack::pack_into_inputs: one input per 254-bit chunk, (sum 2^i b_i) * ONE = input. */
void cz_pack_into_inputs(cz_cs *cs, const cz_bool *bits, size_t n);
/* insertion::pick: c = cond ? a : b, (b - a) * cond = b - c. */
cz_num cz_pick(cz_cs *cs, cz_bool cond, const cz_num *a, const cz_num *b);
/* constraint::equal: a * ONE = b. */
void cz_num_enforce_equal(cz_cs *cs, const cz_num *a, const cz_num *b);
/* reverse_bit_numbering: bits padded with constant false to a multiple of 8, then the order within
 * each byte reversed. out holds ((n + 7) / 8) * 8 entries; returns that length. */
size_t cz_reverse_bit_numbering(cz_bool *out, const cz_bool *bits, size_t n);

#endif
