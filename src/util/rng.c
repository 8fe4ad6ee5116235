#include "util/rng.h"

#include <errno.h>
#include <string.h>
#include <sys/random.h>

#include "cz_error.h"

static uint64_t splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void cz_rng_seed(cz_rng *rng, uint64_t seed) {
    for (int i = 0; i < 4; i++) rng->s[i] = splitmix64(&seed);
}

int cz_rng_seed_os(cz_rng *rng) {
    int rc = cz_os_random(rng->s, sizeof rng->s);
    if (rc) return rc;
    if ((rng->s[0] | rng->s[1] | rng->s[2] | rng->s[3]) == 0) rng->s[0] = 1;
    return 0;
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t cz_rng_next(cz_rng *rng) {
    uint64_t *s = rng->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

void cz_rng_bytes(cz_rng *rng, void *out, size_t len) {
    uint8_t *p = out;
    while (len >= 8) {
        uint64_t v = cz_rng_next(rng);
        memcpy(p, &v, 8);
        p += 8;
        len -= 8;
    }
    if (len) {
        uint64_t v = cz_rng_next(rng);
        memcpy(p, &v, len);
    }
}

int cz_os_random(void *out, size_t len) {
    uint8_t *p = out;
    while (len) {
        ssize_t n = getrandom(p, len, 0);
        if (n < 0) {
            if (errno == EINTR) continue;
            return cz_error(CZ_EIO, "getrandom failed: %s", strerror(errno));
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}
