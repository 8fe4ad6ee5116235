/* Random numbers: a fast seeded generator for tests and synthetic data (xoshiro256**), and the OS
 * CSPRNG (getrandom) for anything secret such as the Groth16 blinding factors r and s. */
#ifndef CZ_UTIL_RNG_H
#define CZ_UTIL_RNG_H

#include <stddef.h>
#include <stdint.h>

typedef struct { uint64_t s[4]; } cz_rng;

void cz_rng_seed(cz_rng *rng, uint64_t seed);
/* Seeds from the OS CSPRNG; returns 0 or CZ_EIO. */
int cz_rng_seed_os(cz_rng *rng);
uint64_t cz_rng_next(cz_rng *rng);
void cz_rng_bytes(cz_rng *rng, void *out, size_t len);
/* Fills out with bytes from the OS CSPRNG; returns 0 or CZ_EIO. */
int cz_os_random(void *out, size_t len);

#endif
