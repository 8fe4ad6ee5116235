/* DRG and expander parents; see graph.h. */
#include "filecoin/graph.h"

#include <stdbool.h>
#include <string.h>

#include "gadgets/sha256.h"

/* ---- ChaCha8 as rand_chacha's ChaCha8Rng: 32-byte key, 64-bit block counter from 0, nonce 0,
 * u64 = two consecutive u32 words, low first ---- */
typedef struct {
    uint32_t key[8], buf[16];
    uint64_t ctr;
    unsigned pos;
} chacha8;

static inline uint32_t rotl32(uint32_t x, unsigned n) { return (x << n) | (x >> (32 - n)); }
#define QR(a, b, c, d)                                                                             \
    w[a] += w[b], w[d] = rotl32(w[d] ^ w[a], 16), w[c] += w[d], w[b] = rotl32(w[b] ^ w[c], 12),    \
    w[a] += w[b], w[d] = rotl32(w[d] ^ w[a], 8), w[c] += w[d], w[b] = rotl32(w[b] ^ w[c], 7)

void cz_chacha_block(uint32_t out[16], const uint32_t in[16], unsigned rounds) {
    uint32_t w[16];
    memcpy(w, in, sizeof w);
    for (unsigned i = 0; i < rounds / 2; i++) {
        QR(0, 4, 8, 12), QR(1, 5, 9, 13), QR(2, 6, 10, 14), QR(3, 7, 11, 15);
        QR(0, 5, 10, 15), QR(1, 6, 11, 12), QR(2, 7, 8, 13), QR(3, 4, 9, 14);
    }
    for (int i = 0; i < 16; i++) out[i] = w[i] + in[i];
}

static void chacha_block(chacha8 *r) {
    uint32_t st[16] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};
    memcpy(st + 4, r->key, 32);
    st[12] = (uint32_t)r->ctr, st[13] = (uint32_t)(r->ctr >> 32), st[14] = 0, st[15] = 0;
    cz_chacha_block(r->buf, st, 8);
    r->ctr++;
    r->pos = 0;
}

static uint32_t chacha_u32(chacha8 *r) {
    if (r->pos == 16) chacha_block(r);
    return r->buf[r->pos++];
}

static uint64_t chacha_u64(chacha8 *r) {
    uint64_t lo = chacha_u32(r);
    return lo | (uint64_t)chacha_u32(r) << 32;
}

static void drg_parents(uint64_t out[6], uint64_t node, const uint8_t porep_id[32], bool pred_first) {
    if (node < 2) {
        memset(out, 0, 6 * sizeof *out);
        return;
    }
    uint8_t buf[17 + 32], h[32];
    memcpy(buf, "Filecoin_DRSample", 17);
    memcpy(buf + 17, porep_id, 32);
    cz_sha256_bytes(h, buf, sizeof buf);
    chacha8 r;
    for (int i = 0; i < 7; i++) r.key[i] = (uint32_t)h[4 * i] | (uint32_t)h[4 * i + 1] << 8 | (uint32_t)h[4 * i + 2] << 16 | (uint32_t)h[4 * i + 3] << 24;
    r.key[7] = (uint32_t)node;
    r.ctr = 0, r.pos = 16;
    uint64_t meta = node * 5, nb = 0;
    while ((1ull << nb) < meta) nb++; /* ceil(log2(meta)) */
    out[pred_first ? 0 : 5] = node - 1;
    for (int k = pred_first ? 1 : 0; k < (pred_first ? 6 : 5); k++) {
        uint64_t bucket = chacha_u64(&r) % nb + 1;
        uint64_t largest = meta < (1ull << bucket) ? meta : (1ull << bucket);
        uint64_t smallest = largest >> 1 > 2 ? largest >> 1 : 2;
        uint64_t dist = smallest + chacha_u64(&r) % (largest - smallest + 1);
        uint64_t mapped = (meta - dist) / 5;
        out[k] = mapped == node ? node - 1 : mapped;
    }
}

void cz_porep_drg_parents(uint64_t out[6], uint64_t node, const uint8_t porep_id[32]) {
    drg_parents(out, node, porep_id, true);
}

void cz_porep_drg_parents_v1_0(uint64_t out[6], uint64_t node, const uint8_t porep_id[32]) {
    drg_parents(out, node, porep_id, false);
}

/* ---- BLAKE2b (RFC 7693) ---- */
static const uint64_t B2_IV[8] = {0x6a09e667f3bcc908ull, 0xbb67ae8584caa73bull, 0x3c6ef372fe94f82bull,
                                  0xa54ff53a5f1d36f1ull, 0x510e527fade682d1ull, 0x9b05688c2b3e6c1full,
                                  0x1f83d9abfb41bd6bull, 0x5be0cd19137e2179ull};
static const uint8_t SIGMA[12][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4}, {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13}, {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11}, {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5}, {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3}};

static inline uint64_t rotr64(uint64_t x, unsigned n) { return (x >> n) | (x << (64 - n)); }

static void b2_compress(uint64_t h[8], const uint8_t blk[128], uint64_t t, bool last) {
    uint64_t v[16], m[16];
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(m, blk, sizeof m);
#else
    for (int i = 0; i < 16; i++) {
        m[i] = 0;
        for (int b = 0; b < 8; b++) m[i] |= (uint64_t)blk[8 * i + b] << (8 * b);
    }
#endif
    for (int i = 0; i < 8; i++) v[i] = h[i], v[i + 8] = B2_IV[i];
    v[12] ^= t;
    if (last) v[14] = ~v[14];
#define G(a, b, c, d, x, y)                                                                        \
    v[a] += v[b] + x, v[d] = rotr64(v[d] ^ v[a], 32), v[c] += v[d], v[b] = rotr64(v[b] ^ v[c], 24), \
    v[a] += v[b] + y, v[d] = rotr64(v[d] ^ v[a], 16), v[c] += v[d], v[b] = rotr64(v[b] ^ v[c], 63)
    /* rounds written out: with r a constant the message words are known registers, not indexed loads (2.2 ->
     * ~1 s a GiB here; the 47 GB official 32 GiB file's digest is hashed at every daemon start) */
#define ROUND(r)                                                                                               \
    G(0, 4, 8, 12, m[SIGMA[r][0]], m[SIGMA[r][1]]), G(1, 5, 9, 13, m[SIGMA[r][2]], m[SIGMA[r][3]]);             \
    G(2, 6, 10, 14, m[SIGMA[r][4]], m[SIGMA[r][5]]), G(3, 7, 11, 15, m[SIGMA[r][6]], m[SIGMA[r][7]]);           \
    G(0, 5, 10, 15, m[SIGMA[r][8]], m[SIGMA[r][9]]), G(1, 6, 11, 12, m[SIGMA[r][10]], m[SIGMA[r][11]]);         \
    G(2, 7, 8, 13, m[SIGMA[r][12]], m[SIGMA[r][13]]), G(3, 4, 9, 14, m[SIGMA[r][14]], m[SIGMA[r][15]])
    ROUND(0); ROUND(1); ROUND(2); ROUND(3); ROUND(4); ROUND(5);
    ROUND(6); ROUND(7); ROUND(8); ROUND(9); ROUND(10); ROUND(11);
#undef ROUND
#undef G
    for (int i = 0; i < 8; i++) h[i] ^= v[i] ^ v[i + 8];
}

/* A BLAKE2b digest, asking stop(arg) (when given) first and then after each B2_PIECE bytes of msg: 1 when it said
 * stop (out is not written), else 0. */
#define B2_PIECE (16u << 20)
static int b2_hash(uint8_t *out, size_t outlen, const uint8_t *key, size_t keylen, const uint8_t *msg, size_t len,
                   bool (*stop)(void *), void *arg) {
    if (stop && stop(arg)) return 1;
    uint64_t h[8];
    memcpy(h, B2_IV, sizeof h);
    h[0] ^= 0x01010000ull ^ ((uint64_t)keylen << 8) ^ outlen; /* fanout 1, depth 1 */
    uint8_t blk[128];
    uint64_t t = 0;
    if (keylen) { /* the key, zero-padded, is the first block (the last one if there is no message) */
        memset(blk, 0, sizeof blk);
        memcpy(blk, key, keylen);
        t = 128;
        b2_compress(h, blk, t, len == 0);
        if (len == 0) goto done;
    }
    size_t off = 0;
    while (len - off > 128) {
        if (stop && off && off % B2_PIECE == 0 && stop(arg)) return 1;
        t += 128;
        b2_compress(h, msg + off, t, false);
        off += 128;
    }
    memset(blk, 0, sizeof blk);
    memcpy(blk, msg + off, len - off);
    t += len - off;
    b2_compress(h, blk, t, true);
done:
    for (size_t i = 0; i < outlen; i++) out[i] = (uint8_t)(h[i / 8] >> (8 * (i % 8)));
    return 0;
}

void cz_blake2b(uint8_t *out, size_t outlen, const uint8_t *key, size_t keylen, const uint8_t *msg, size_t len) {
    b2_hash(out, outlen, key, keylen, msg, len, NULL, NULL);
}

void cz_blake2b_512(uint8_t out[64], const uint8_t *msg, size_t len) { cz_blake2b(out, 64, NULL, 0, msg, len); }

int cz_blake2b_512_until(uint8_t out[64], const uint8_t *msg, size_t len, bool (*stop)(void *), void *arg) {
    return b2_hash(out, 64, NULL, 0, msg, len, stop, arg);
}

/* ---- Feistel expander ---- */
void cz_porep_exp_parents(uint64_t out[8], uint64_t node, uint64_t nodes, const uint8_t porep_id[32]) {
    uint8_t buf[16 + 32], raw[32];
    memcpy(buf, "Filecoin_Feistel", 16);
    memcpy(buf + 16, porep_id, 32);
    cz_sha256_bytes(raw, buf, sizeof buf);
    uint64_t keys[3];
    for (int i = 0; i < 3; i++) {
        keys[i] = 0;
        for (int b = 0; b < 8; b++) keys[i] |= (uint64_t)raw[8 * i + b] << (8 * b);
    }
    uint64_t n = nodes * 8, p4 = 4;
    unsigned log4 = 1;
    while (p4 < n) p4 *= 4, log4++;
    uint64_t rmask = (1ull << log4) - 1, lmask = rmask << log4;
    for (int i = 0; i < 8; i++) {
        uint64_t u = node * 8 + (uint64_t)i;
        do {
            uint64_t l = (u & lmask) >> log4, r = u & rmask;
            for (int k = 0; k < 3; k++) {
                uint8_t in[16], d[64];
                for (int b = 0; b < 8; b++) in[b] = (uint8_t)(r >> (56 - 8 * b)), in[8 + b] = (uint8_t)(keys[k] >> (56 - 8 * b));
                cz_blake2b_512(d, in, 16);
                uint64_t f = 0;
                for (int b = 0; b < 8; b++) f = f << 8 | d[b];
                uint64_t nl = r, nr = l ^ (f & rmask);
                l = nl, r = nr;
            }
            u = (l << log4) | r;
        } while (u >= n);
        out[i] = u / 8;
    }
}
