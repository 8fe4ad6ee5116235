/* bellperson's SHA-256 gadget (gadgets/sha256.rs): the compression function with deferred
 * additions (a and e stay operand lists until the next round needs them) and one MultiEq per
 * compression call, and the padded multi-block hash with constant padding bits, which fold. */
#ifndef CZ_GADGETS_SHA256_H
#define CZ_GADGETS_SHA256_H

#include <stddef.h>

#include "gadgets/uint32.h"

/* The IV as constant UInt32s. */
void cz_sha256_iv(cz_u32 out[8]);
/* sha256_compression_function: 512 message bits (big-endian words), chaining value cur. */
void cz_sha256_compress(cz_cs *cs, const cz_bool in[512], const cz_u32 cur[8], cz_u32 out[8]);
/* sha256: nbits (a multiple of 8) input bits, MSB of each byte first; 256 output bits big-endian.
 * 0 or CZ_EINVAL (nbits not a multiple of 8) / CZ_ENOMEM. */
int cz_sha256_gadget(cz_cs *cs, const cz_bool *in, size_t nbits, cz_bool out[256]);

/* Plain SHA-256 (a small CPU reference used by tests and by vanilla checks). */
void cz_sha256_bytes(uint8_t out[32], const uint8_t *msg, size_t len);

#endif
