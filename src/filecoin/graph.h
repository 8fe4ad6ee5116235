/* The StackedDrg graph (ApiVersion >= 1.1): DRG parents (BucketGraph, ChaCha8 bucket sampling,
 * storage-proofs-core drgraph.rs) and expander parents (3-round Feistel with blake2b,
 * stacked/vanilla/graph.rs, crypto/feistel.rs); filecoin-circuits.md §1.2. */
#ifndef CZ_FILECOIN_GRAPH_H
#define CZ_FILECOIN_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Parents 0..5 of node (ApiVersion >= 1.1: parent 0 = node - 1; nodes 0 and 1 have all-zero
 * parents). */
void cz_porep_drg_parents(uint64_t out[6], uint64_t node, const uint8_t porep_id[32]);
/* ApiVersion 1.0.0 order: the five sampled parents first, node - 1 last. */
void cz_porep_drg_parents_v1_0(uint64_t out[6], uint64_t node, const uint8_t porep_id[32]);
/* The 8 expander parents of node in a graph of nodes nodes. */
void cz_porep_exp_parents(uint64_t out[8], uint64_t node, uint64_t nodes, const uint8_t porep_id[32]);
/* BLAKE2b-512 (unkeyed), used by the Feistel round function. */
void cz_blake2b_512(uint8_t out[64], const uint8_t *msg, size_t len);
/* cz_blake2b_512 of a long message that can be given up: stop(arg) is asked first and then after each 16 MiB of
 * msg, and once it returns true the hash ends there: 1, out not written; else 0 (the digest in out). */
int cz_blake2b_512_until(uint8_t out[64], const uint8_t *msg, size_t len, bool (*stop)(void *), void *arg);
/* BLAKE2b with an outlen-byte digest (1..64) and an optional key (keylen 0..64), RFC 7693; the
 * synthetic-PoRep challenge keys use it keyed with a 32-byte digest. */
void cz_blake2b(uint8_t *out, size_t outlen, const uint8_t *key, size_t keylen, const uint8_t *msg, size_t len);
/* One ChaCha block: out = rounds-round permutation of in, plus in (RFC 8439 layout: 4 constants,
 * 8 key words, then counter / nonce words as the caller lays them out). rounds 8 (rand_chacha's
 * ChaCha8Rng, DRG parents) or 20 (ChaCha20, synthetic challenges). */
void cz_chacha_block(uint32_t out[16], const uint32_t in[16], unsigned rounds);

#endif
