/* Internal to the Poseidon files: the fast permutation shared by the native hash and the gadget's
 * witness-mode path. */
#ifndef CZ_GADGETS_POSEIDON_IMPL_H
#define CZ_GADGETS_POSEIDON_IMPL_H

#include "gadgets/poseidon.h"

/* Runs the optimised static permutation on s[0..t) (s[0] the tag, then the inputs) and leaves the
 * final state in s. With cs (witness mode only, values only) it also allocates, in the exact order
 * and with the values of cz_poseidon_circuit_tag's record mode, every variable that circuit
 * allocates (the last one, the digest s[1], returned in *out) and counts its constraints. */
void cz_poseidon_permute_(const cz_poseidon_consts *c, cz_fr *s, cz_cs *cs, cz_num *out);

#endif
