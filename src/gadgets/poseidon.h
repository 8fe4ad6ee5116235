/* Poseidon as neptune 11 defines it for Filecoin (Strength::Standard, HashType::MerkleTree,
 * BLS12-381 Fr, x^5, R_F = 8): constants derived here (Grain LFSR round constants, Cauchy MDS, the
 * compressed round constants and sparse matrices of neptune's preprocessing), the plain hash, and
 * neptune's legacy circuit (circuit.rs PoseidonCircuit::hash), the only one rust-fil-proofs uses.
 * Supported arities: 2, 4, 8, 11, 16, 24, 36 (t = arity + 1). */
#ifndef CZ_GADGETS_POSEIDON_H
#define CZ_GADGETS_POSEIDON_H

#include "gadgets/num.h"

typedef struct {
    unsigned arity, t, rf, rp;
    cz_fr merkle_tag;  /* 2^arity - 1, the default domain tag (kept to skip a conversion per hash) */
    cz_fr *rc;         /* (rf + rp) * t textbook round constants, round r at [r t, (r+1) t) */
    cz_fr *mds;        /* t * t, mds[i * t + j] = 1 / (i + t + j) */
    cz_fr *crc;        /* rf * t + rp compressed round constants */
    cz_fr *pre_sparse; /* t * t, applied after full round rf/2 - 1 */
    cz_fr *w_hat;      /* rp * t: first column of sparse matrix r */
    cz_fr *v_rest;     /* rp * (t - 1): first row (without [0][0]) of sparse matrix r */
} cz_poseidon_consts;

/* The constants for arity (built once, thread-safe, kept for the process); NULL with CZ_EINVAL
 * recorded for an unsupported arity, NULL on out of memory. */
const cz_poseidon_consts *cz_poseidon_constants(unsigned arity);

/* Poseidon of state [tag, in...], digest state[1]; tag NULL = 2^arity - 1 (MerkleTree). Computed in
 * the optimised static form (compressed keys, sparse partial rounds); the _textbook variant runs
 * the plain permutation (round keys, full MDS every round) and must agree. 0 or CZ_EINVAL. */
int cz_poseidon_hash_textbook(cz_fr *out, const cz_fr *in, unsigned arity, const cz_fr *tag);
int cz_poseidon_hash_tag(cz_fr *out, const cz_fr *in, unsigned arity, const cz_fr *tag);
static inline int cz_poseidon_hash(cz_fr *out, const cz_fr *in, unsigned arity) {
    return cz_poseidon_hash_tag(out, in, arity, NULL);
}

/* neptune::circuit::poseidon_hash over allocated inputs (MerkleTree tag or *tag): 3 arity +
 * 4 t (R_F - 1) + 4 R_P + 1 constraints and aux (311 / 505 / 598 for arity 2 / 8 / 11).
 * In witness mode alone (no LCs) it runs the native permutation and only writes the variables it
 * allocates (same order and values as record mode). 0, CZ_EINVAL or CZ_ENOMEM (also left sticky in cs). */
int cz_poseidon_circuit_tag(cz_cs *cs, cz_num *out, const cz_num *in, unsigned arity, const cz_fr *tag);
static inline int cz_poseidon_circuit(cz_cs *cs, cz_num *out, const cz_num *in, unsigned arity) {
    return cz_poseidon_circuit_tag(cs, out, in, arity, NULL);
}

#endif
