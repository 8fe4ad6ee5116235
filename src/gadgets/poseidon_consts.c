/* Poseidon constants as neptune 11 derives them (round_constants.rs, mds.rs, preprocessing.rs). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "gadgets/poseidon_impl.h"

#define MAX_ARITY 36

static unsigned partial_rounds(unsigned arity) {
    switch (arity) {
    case 2: return 55;
    case 4: return 56;
    case 8: return 57;
    case 11: return 57;
    case 16: return 59;
    case 24: return 59;
    case 36: return 60;
    default: return 0;
    }
}

/* Grain LFSR (80-bit state, self-shrinking), as neptune's round_constants.rs. */
typedef struct { uint8_t s[80]; unsigned head; } grain;

static uint8_t grain_step(grain *g) {
    const uint8_t *s = g->s;
    unsigned h = g->head;
#define B(i) s[(h + (i)) % 80]
    uint8_t nb = B(62) ^ B(51) ^ B(38) ^ B(23) ^ B(13) ^ B(0);
#undef B
    g->s[h] = nb;
    g->head = (h + 1) % 80;
    return nb;
}

static uint8_t grain_bit(grain *g) {
    for (;;) {
        uint8_t x = grain_step(g), y = grain_step(g);
        if (x) return y;
    }
}

static void grain_init(grain *g, unsigned t, unsigned rf, unsigned rp) {
    unsigned n = 0;
    struct { unsigned bits; uint64_t v; } f[] = {{2, 1}, {4, 1}, {12, 255}, {12, t}, {10, rf}, {10, rp}, {30, (1u << 30) - 1}};
    for (size_t k = 0; k < sizeof f / sizeof f[0]; k++)
        for (int i = (int)f[k].bits - 1; i >= 0; i--) g->s[n++] = (f[k].v >> i) & 1;
    g->head = 0;
    for (int i = 0; i < 160; i++) grain_step(g);
}

static void grain_constants(cz_fr *out, unsigned count, unsigned t, unsigned rf, unsigned rp) {
    grain g;
    grain_init(&g, t, rf, rp);
    for (unsigned k = 0; k < count;) {
        uint64_t v[4] = {0, 0, 0, 0};
        for (int i = 254; i >= 0; i--) v[i >> 6] |= (uint64_t)grain_bit(&g) << (i & 63);
        if (cz_fr_from_raw(&out[k], v) == 0) k++;
    }
}

/* Row vector times matrix: out_j = sum_i v_i m[i][j] (neptune apply_matrix). */
static void apply(cz_fr *out, const cz_fr *m, const cz_fr *v, unsigned n) {
    cz_fr tmp[MAX_ARITY + 1], p;
    for (unsigned j = 0; j < n; j++) {
        tmp[j] = CZ_FR_ZERO_V;
        for (unsigned i = 0; i < n; i++) cz_fr_mul(&p, &v[i], &m[i * n + j]), cz_fr_add(&tmp[j], &tmp[j], &p);
    }
    memcpy(out, tmp, n * sizeof(cz_fr));
}

static void matmul(cz_fr *out, const cz_fr *a, const cz_fr *b, unsigned n) {
    cz_fr *tmp = malloc(n * n * sizeof(cz_fr)), p;
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = 0; j < n; j++) {
            tmp[i * n + j] = CZ_FR_ZERO_V;
            for (unsigned k = 0; k < n; k++) cz_fr_mul(&p, &a[i * n + k], &b[k * n + j]), cz_fr_add(&tmp[i * n + j], &tmp[i * n + j], &p);
        }
    memcpy(out, tmp, n * n * sizeof(cz_fr));
    free(tmp);
}

/* Gauss-Jordan inverse; 0 or CZ_EINVAL when singular. */
static int mat_inv(cz_fr *out, const cz_fr *a, unsigned n) {
    cz_fr *m = malloc(n * 2 * n * sizeof(cz_fr)), iv, f, p;
    unsigned w = 2 * n;
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = 0; j < w; j++)
            m[i * w + j] = j < n ? a[i * n + j] : (j - n == i ? CZ_FR_ONE_V : CZ_FR_ZERO_V);
    for (unsigned c = 0; c < n; c++) {
        unsigned r = c;
        while (r < n && cz_fr_is_zero(&m[r * w + c])) r++;
        if (r == n) { free(m); return CZ_EINVAL; }
        for (unsigned j = 0; j < w; j++) { cz_fr t = m[c * w + j]; m[c * w + j] = m[r * w + j]; m[r * w + j] = t; }
        cz_fr_inv(&iv, &m[c * w + c]);
        for (unsigned j = 0; j < w; j++) cz_fr_mul(&m[c * w + j], &m[c * w + j], &iv);
        for (unsigned r2 = 0; r2 < n; r2++) {
            if (r2 == c || cz_fr_is_zero(&m[r2 * w + c])) continue;
            f = m[r2 * w + c];
            for (unsigned j = 0; j < w; j++) cz_fr_mul(&p, &f, &m[c * w + j]), cz_fr_sub(&m[r2 * w + j], &m[r2 * w + j], &p);
        }
    }
    for (unsigned i = 0; i < n; i++) memcpy(&out[i * n], &m[i * w + n], n * sizeof(cz_fr));
    free(m);
    return 0;
}

static int build(cz_poseidon_consts *c, unsigned arity) {
    unsigned t = arity + 1, rf = 8, rp = partial_rounds(arity), half = rf / 2;
    c->arity = arity, c->t = t, c->rf = rf, c->rp = rp;
    cz_fr_set_u64(&c->merkle_tag, (1ull << arity) - 1);
    c->rc = malloc((rf + rp) * t * sizeof(cz_fr));
    c->mds = malloc(t * t * sizeof(cz_fr));
    c->crc = malloc((rf * t + rp) * sizeof(cz_fr));
    c->pre_sparse = malloc(t * t * sizeof(cz_fr));
    c->w_hat = malloc(rp * t * sizeof(cz_fr));
    c->v_rest = malloc(rp * (t - 1) * sizeof(cz_fr));
    cz_fr *minv = malloc(t * t * sizeof(cz_fr)), *cur = malloc(t * t * sizeof(cz_fr)),
          *mp = malloc(t * t * sizeof(cz_fr)), *mhat = malloc(t * t * sizeof(cz_fr)),
          *mhinv = malloc(t * t * sizeof(cz_fr)), *pk = malloc(rp * sizeof(cz_fr));
    int rc = 0;
    if (!c->rc || !c->mds || !c->crc || !c->pre_sparse || !c->w_hat || !c->v_rest || !minv || !cur || !mp ||
        !mhat || !mhinv || !pk) {
        rc = CZ_ENOMEM;
        goto out;
    }
    grain_constants(c->rc, (rf + rp) * t, t, rf, rp);
    for (unsigned i = 0; i < t; i++)
        for (unsigned j = 0; j < t; j++) {
            cz_fr x;
            cz_fr_set_u64(&x, i + t + j);
            cz_fr_inv(&c->mds[i * t + j], &x);
        }
    if ((rc = mat_inv(minv, c->mds, t))) goto out;
    /* compress_round_constants: round-0 keys; M^-1 keys of rounds 1..half-1; M^-1 (accumulated key
     * vector through the partial rounds); the partial keys; M^-1 keys of the last half-1 rounds. */
    cz_fr *o = c->crc, acc[MAX_ARITY + 1], iv[MAX_ARITY + 1];
    memcpy(o, c->rc, t * sizeof(cz_fr)), o += t;
    for (unsigned i = 0; i + 1 < half; i++) apply(o, minv, c->rc + (i + 1) * t, t), o += t;
    unsigned final = half + rp;
    memcpy(acc, c->rc + final * t, t * sizeof(cz_fr));
    for (unsigned i = 0; i < rp; i++) {
        const cz_fr *prev = c->rc + (final - i - 1) * t;
        apply(iv, minv, acc, t);
        pk[i] = iv[0];
        iv[0] = CZ_FR_ZERO_V;
        for (unsigned j = 0; j < t; j++) cz_fr_add(&acc[j], &prev[j], &iv[j]);
    }
    apply(o, minv, acc, t), o += t;
    for (unsigned i = rp; i-- > 0;) *o++ = pk[i];
    for (unsigned i = 1; i < half; i++) apply(o, minv, c->rc + (i + final) * t, t), o += t;
    /* factor_to_sparse_matrixes: peel M' (identity in row/column 0) off rp times; the sparse
     * factors come out last-round first. */
    memcpy(cur, c->mds, t * t * sizeof(cz_fr));
    for (unsigned r = 0; r < rp; r++) {
        unsigned n1 = t - 1;
        for (unsigned i = 0; i < n1; i++)
            for (unsigned j = 0; j < n1; j++) mhat[i * n1 + j] = cur[(i + 1) * t + j + 1];
        if ((rc = mat_inv(mhinv, mhat, n1))) goto out;
        for (unsigned i = 0; i < t; i++)
            for (unsigned j = 0; j < t; j++)
                mp[i * t + j] = (i == 0 || j == 0) ? (i == j ? CZ_FR_ONE_V : CZ_FR_ZERO_V) : cur[i * t + j];
        cz_fr wv[MAX_ARITY], what[MAX_ARITY];
        for (unsigned i = 1; i < t; i++) wv[i - 1] = cur[i * t];
        apply(what, mhinv, wv, n1);
        unsigned slot = rp - 1 - r;
        c->w_hat[slot * t] = cur[0];
        for (unsigned i = 1; i < t; i++) c->w_hat[slot * t + i] = what[i - 1];
        for (unsigned j = 1; j < t; j++) c->v_rest[slot * (t - 1) + j - 1] = cur[j];
        matmul(cur, c->mds, mp, t);
    }
    memcpy(c->pre_sparse, cur, t * t * sizeof(cz_fr));
out:
    free(minv), free(cur), free(mp), free(mhat), free(mhinv), free(pk);
    return rc;
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static cz_poseidon_consts *cache[MAX_ARITY + 1];

const cz_poseidon_consts *cz_poseidon_constants(unsigned arity) {
    if (arity > MAX_ARITY || !partial_rounds(arity)) {
        cz_error(CZ_EINVAL, "poseidon: arity %u is not supported (2, 4, 8, 11, 16, 24, 36)", arity);
        return NULL;
    }
    pthread_mutex_lock(&lock);
    cz_poseidon_consts *c = cache[arity];
    if (!c) {
        c = calloc(1, sizeof *c);
        if (c && build(c, arity)) {
            free(c->rc), free(c->mds), free(c->crc), free(c->pre_sparse), free(c->w_hat), free(c->v_rest), free(c);
            c = NULL;
        }
        if (!c) cz_error(CZ_ENOMEM, "poseidon: out of memory building arity-%u constants", arity);
        cache[arity] = c;
    }
    pthread_mutex_unlock(&lock);
    return c;
}

static inline void sbox(cz_fr *x) {
    cz_fr x2, x4;
    cz_fr_sqr(&x2, x);
    cz_fr_sqr(&x4, &x2);
    cz_fr_mul(x, x, &x4);
}

static void init_state(cz_fr *s, const cz_fr *in, unsigned arity, const cz_fr *tag) {
    if (tag) s[0] = *tag;
    else cz_fr_set_u64(&s[0], (1ull << arity) - 1);
    memcpy(s + 1, in, arity * sizeof(cz_fr));
}

int cz_poseidon_hash_textbook(cz_fr *out, const cz_fr *in, unsigned arity, const cz_fr *tag) {
    const cz_poseidon_consts *c = cz_poseidon_constants(arity);
    if (!c) return cz_error(CZ_EINVAL, "poseidon: no constants for arity %u", arity);
    unsigned t = c->t;
    cz_fr s[MAX_ARITY + 1];
    init_state(s, in, arity, tag);
    const cz_fr *k = c->rc;
    unsigned half = c->rf / 2;
    for (unsigned r = 0; r < c->rf + c->rp; r++, k += t) {
        bool full = r < half || r >= half + c->rp;
        for (unsigned i = 0; i < t; i++) cz_fr_add(&s[i], &s[i], &k[i]);
        if (full) for (unsigned i = 0; i < t; i++) sbox(&s[i]);
        else sbox(&s[0]);
        apply(s, c->mds, s, t);
    }
    *out = s[1];
    return 0;
}

/* The optimised static form (poseidon_fast.c): the same permutation with ~4x fewer multiplications
 * at t = 9, and lazily reduced matrix products. */
int cz_poseidon_hash_tag(cz_fr *out, const cz_fr *in, unsigned arity, const cz_fr *tag) {
    const cz_poseidon_consts *c = cz_poseidon_constants(arity);
    if (!c) return cz_error(CZ_EINVAL, "poseidon: no constants for arity %u", arity);
    cz_fr s[MAX_ARITY + 1];
    s[0] = tag ? *tag : c->merkle_tag;
    memcpy(s + 1, in, arity * sizeof(cz_fr));
    cz_poseidon_permute_(c, s, NULL, NULL);
    *out = s[1];
    return 0;
}
