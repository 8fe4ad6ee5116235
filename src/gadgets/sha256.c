/* SHA-256 gadget in bellperson's exact order; see sha256.h. */
#include "gadgets/sha256.h"

#include <stdlib.h>
#include <string.h>

#include "cz_error.h"

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
static const uint32_t IV[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                               0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

void cz_sha256_iv(cz_u32 out[8]) {
    for (int i = 0; i < 8; i++) out[i] = cz_u32_constant(IV[i]);
}

/* bellperson's Maybe: a concrete word, or a deferred list of addends. */
typedef struct {
    bool deferred;
    unsigned n;
    cz_u32 ops[8];
} maybe_u32;

static cz_u32 maybe_compute(cz_multieq *m, maybe_u32 *x, const cz_u32 *other) {
    if (!x->deferred) return x->ops[0];
    const cz_u32 *p[9];
    unsigned n = 0;
    for (unsigned i = 0; i < x->n; i++) p[n++] = &x->ops[i];
    if (other) p[n++] = other;
    return cz_u32_addmany(m, p, n);
}

static cz_u32 xor3_rot(cz_cs *cs, const cz_u32 *x, unsigned r1, unsigned r2, unsigned r3, bool shr3) {
    cz_u32 a = cz_u32_rotr(x, r1), b = cz_u32_rotr(x, r2);
    cz_u32 c = shr3 ? cz_u32_shr(x, r3) : cz_u32_rotr(x, r3);
    cz_u32 t = cz_u32_xor(cs, &a, &b);
    return cz_u32_xor(cs, &t, &c);
}

void cz_sha256_compress(cz_cs *cs, const cz_bool in[512], const cz_u32 cur[8], cz_u32 out[8]) {
    cz_u32 w[64];
    for (int i = 0; i < 16; i++) w[i] = cz_u32_from_bits_be(in + 32 * i);
    cz_multieq m;
    cz_multieq_init(&m, cs);
    for (int i = 16; i < 64; i++) {
        cz_u32 s0 = xor3_rot(cs, &w[i - 15], 7, 18, 3, true);
        cz_u32 s1 = xor3_rot(cs, &w[i - 2], 17, 19, 10, true);
        const cz_u32 *ops[4] = {&w[i - 16], &s0, &w[i - 7], &s1};
        w[i] = cz_u32_addmany(&m, ops, 4);
    }
    maybe_u32 a = {false, 1, {cur[0]}}, e = {false, 1, {cur[4]}};
    cz_u32 b = cur[1], c = cur[2], d = cur[3], f = cur[5], g = cur[6], h = cur[7];
    for (int i = 0; i < 64; i++) {
        cz_u32 new_e = maybe_compute(&m, &e, NULL);
        cz_u32 s1 = xor3_rot(cs, &new_e, 6, 11, 25, false);
        cz_u32 ch = cz_u32_sha256_ch(cs, &new_e, &f, &g);
        cz_u32 new_a = maybe_compute(&m, &a, NULL);
        cz_u32 s0 = xor3_rot(cs, &new_a, 2, 13, 22, false);
        cz_u32 maj = cz_u32_sha256_maj(cs, &new_a, &b, &c);
        /* temp1 = [h, S1, ch, K[i], w[i]]; e = temp1 ++ [d]; a = temp1 ++ [S0, maj] */
        maybe_u32 ne = {true, 6, {h, s1, ch, cz_u32_constant(K[i]), w[i], d}};
        maybe_u32 na = {true, 7, {h, s1, ch, cz_u32_constant(K[i]), w[i], s0, maj}};
        h = g;
        g = f;
        f = new_e;
        e = ne;
        d = c;
        c = b;
        b = new_a;
        a = na;
    }
    out[0] = maybe_compute(&m, &a, &cur[0]);
    const cz_u32 *p[2];
    p[0] = &cur[1], p[1] = &b, out[1] = cz_u32_addmany(&m, p, 2);
    p[0] = &cur[2], p[1] = &c, out[2] = cz_u32_addmany(&m, p, 2);
    p[0] = &cur[3], p[1] = &d, out[3] = cz_u32_addmany(&m, p, 2);
    out[4] = maybe_compute(&m, &e, &cur[4]);
    p[0] = &cur[5], p[1] = &f, out[5] = cz_u32_addmany(&m, p, 2);
    p[0] = &cur[6], p[1] = &g, out[6] = cz_u32_addmany(&m, p, 2);
    p[0] = &cur[7], p[1] = &h, out[7] = cz_u32_addmany(&m, p, 2);
    cz_multieq_finish(&m);
}

int cz_sha256_gadget(cz_cs *cs, const cz_bool *in, size_t nbits, cz_bool out[256]) {
    if (nbits % 8) return cz_error(CZ_EINVAL, "sha256 gadget: %zu input bits is not a whole number of bytes", nbits);
    size_t total = (nbits + 1 + 64 + 511) / 512 * 512;
    cz_bool blk[512];
    cz_u32 cur[8], nxt[8];
    cz_sha256_iv(cur);
    for (size_t off = 0; off < total; off += 512) {
        for (size_t i = 0; i < 512; i++) {
            size_t j = off + i;
            if (j < nbits) blk[i] = in[j];
            else if (j == nbits) blk[i] = cz_bool_const(true);
            else if (j >= total - 64) blk[i] = cz_bool_const(((uint64_t)nbits >> (total - 1 - j)) & 1);
            else blk[i] = cz_bool_const(false);
        }
        cz_sha256_compress(cs, blk, cur, nxt);
        memcpy(cur, nxt, sizeof cur);
    }
    for (int i = 0; i < 8; i++) cz_u32_into_bits_be(out + 32 * i, &cur[i]);
    return 0;
}

/* ---- plain SHA-256 ---- */

static inline uint32_t ror(uint32_t x, unsigned r) { return (x >> r) | (x << (32 - r)); }

static void sha_block(uint32_t st[8], const uint8_t blk[64]) {
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)blk[4 * i] << 24 | (uint32_t)blk[4 * i + 1] << 16 | (uint32_t)blk[4 * i + 2] << 8 | blk[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = st[0], b = st[1], c = st[2], d = st[3], e = st[4], f = st[5], g = st[6], h = st[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = h + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
        uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        h = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
    }
    st[0] += a, st[1] += b, st[2] += c, st[3] += d, st[4] += e, st[5] += f, st[6] += g, st[7] += h;
}

void cz_sha256_bytes(uint8_t out[32], const uint8_t *msg, size_t len) {
    uint32_t st[8];
    memcpy(st, IV, sizeof st);
    size_t i = 0;
    for (; i + 64 <= len; i += 64) sha_block(st, msg + i);
    uint8_t tail[128];
    size_t r = len - i;
    memset(tail, 0, sizeof tail);
    if (r) memcpy(tail, msg + i, r);
    tail[r] = 0x80;
    size_t tl = r + 9 <= 64 ? 64 : 128;
    uint64_t bits = (uint64_t)len * 8;
    for (int k = 0; k < 8; k++) tail[tl - 1 - k] = (uint8_t)(bits >> (8 * k));
    sha_block(st, tail);
    if (tl == 128) sha_block(st, tail + 64);
    for (int k = 0; k < 8; k++)
        out[4 * k] = (uint8_t)(st[k] >> 24), out[4 * k + 1] = (uint8_t)(st[k] >> 16),
        out[4 * k + 2] = (uint8_t)(st[k] >> 8), out[4 * k + 3] = (uint8_t)st[k];
}
