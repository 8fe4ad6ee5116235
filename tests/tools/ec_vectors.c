/* C side of the EC interop check against @noble/curves and blst (tests/interop/test_ec_noble.sh).
 *   cz_tool_ec_vectors gen N   writes N fresh random cases per category and group to stdout
 *   cz_tool_ec_vectors check   reads the same line protocol (written by tests/oracles/ec_check.mjs) on stdin
 * Line protocol, one case per line, lowercase hex, G = g1 | g2:
 *   gen G <compressed> <uncompressed>          the generator
 *   enc G <compressed> <uncompressed>          a subgroup point (or infinity) in both encodings
 *   mul G <P uncompressed> <k, 32 B BE> <[k]P uncompressed>
 *   nonsub G <compressed> <uncompressed>       on the curve, outside the subgroup: rejected when checked
 *   bad G <what> <encoding>                    malformed (length says which form): always rejected
 * The generator checks its own lines too, so "both sides reject" holds for every line. */
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "ec_points.h"
#include "testutil.h"

typedef union { cz_g1_affine g1; cz_g2_affine g2; } aff_t;
typedef struct {
    const char *name;
    size_t nb; /* compressed bytes; uncompressed is twice that */
    void (*random)(aff_t *, cz_rng *);
    void (*on_curve)(aff_t *, cz_rng *);
    void (*enc_c)(uint8_t *, const aff_t *);
    void (*enc_u)(uint8_t *, const aff_t *);
    int (*dec_c)(aff_t *, const uint8_t *, unsigned);
    int (*dec_u)(aff_t *, const uint8_t *, unsigned);
    void (*mul)(aff_t *, const aff_t *, const cz_fr *);
    void (*generator)(aff_t *);
    bool (*is_inf)(const aff_t *);
    bool (*eq)(const aff_t *, const aff_t *);
} group_t;

#define GROUP_FNS(G)                                                                                             \
    static void G##_random(aff_t *r, cz_rng *rng) { cz_##G##_random(&r->G, rng); }                              \
    static void G##_on_curve(aff_t *r, cz_rng *rng) { cz_test_##G##_on_curve(&r->G, rng); }                     \
    static void G##_enc_c(uint8_t *o, const aff_t *p) { cz_##G##_to_compressed(o, &p->G); }                      \
    static void G##_enc_u(uint8_t *o, const aff_t *p) { cz_##G##_to_uncompressed(o, &p->G); }                    \
    static int G##_dec_c(aff_t *r, const uint8_t *i, unsigned f) { return cz_##G##_from_compressed(&r->G, i, f); } \
    static int G##_dec_u(aff_t *r, const uint8_t *i, unsigned f) { return cz_##G##_from_uncompressed(&r->G, i, f); } \
    static void G##_mul(aff_t *r, const aff_t *p, const cz_fr *k) {                                              \
        cz_##G##_jac j;                                                                                          \
        cz_##G##_jac_from_affine(&j, &p->G);                                                                     \
        cz_##G##_mul(&j, &j, k);                                                                                 \
        cz_##G##_to_affine(&r->G, &j);                                                                           \
    }                                                                                                            \
    static void G##_generator(aff_t *r) { cz_##G##_generator(&r->G); }                                          \
    static bool G##_is_inf(const aff_t *p) { return cz_##G##_affine_is_infinity(&p->G); }                        \
    static bool G##_eq(const aff_t *a, const aff_t *b) { return memcmp(&a->G, &b->G, sizeof a->G) == 0; }
GROUP_FNS(g1)
GROUP_FNS(g2)
#define GROUP(G, NB) {#G, NB, G##_random, G##_on_curve, G##_enc_c, G##_enc_u, G##_dec_c, G##_dec_u, G##_mul, G##_generator, G##_is_inf, G##_eq}
static const group_t groups[2] = {GROUP(g1, 48), GROUP(g2, 96)};

static void put_hex(const uint8_t *b, size_t n) {
    char h[2 * 192 + 1];
    cz_hex_encode(h, b, n);
    printf(" %s", h);
}

static void emit_pair(const char *tag, const group_t *g, const aff_t *p) {
    uint8_t c[96], u[192];
    g->enc_c(c, p);
    g->enc_u(u, p);
    printf("%s %s", tag, g->name);
    put_hex(c, g->nb);
    put_hex(u, 2 * g->nb);
    printf("\n");
}

/* Overwrites the 48-byte big-endian field slot f with p + add (>= p, below 2^381), keeping f's flag bits. */
static void put_ge_p(uint8_t *f, uint32_t add) {
    static const uint64_t p[6] = CZ_FP_MODULUS;
    uint8_t flags = f[0] & 0xe0;
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 8; j++) f[(5 - i) * 8 + j] = (uint8_t)(p[i] >> (56 - 8 * j));
    for (int i = 47; add; i--) {
        uint32_t s = f[i] + (add & 0xff);
        f[i] = (uint8_t)s;
        add = (add >> 8) + (s >> 8);
    }
    f[0] |= flags;
}

enum { BAD_KINDS = 11 };
static const char *const bad_names[BAD_KINDS] = {
    "c-flag-clear", "u-flag-set", "u-sort", "inf-sort", "inf-payload", "inf-low-bits",
    "inf-on-finite", "x-ge-p", "y-ge-p", "x-not-on-curve", "u-off-curve"};

/* Makes a malformed encoding of kind k into out; returns its length and the code C must answer. */
static size_t make_bad(const group_t *g, int k, uint8_t *out, int *want, cz_rng *rng) {
    aff_t p, inf;
    memset(&inf, 0, sizeof inf);
    g->random(&p, rng);
    size_t nb = g->nb;
    *want = CZ_EINVAL;
    switch (k) {
    case 0: g->enc_c(out, &p); out[0] &= 0x7f; return nb;
    case 1: g->enc_u(out, cz_rng_next(rng) & 1 ? &p : &inf); out[0] |= 0x80; return 2 * nb;
    case 2: g->enc_u(out, &p); out[0] |= 0x20; return 2 * nb;
    case 3:
        if (cz_rng_next(rng) & 1) { g->enc_c(out, &inf); out[0] |= 0x20; return nb; }
        g->enc_u(out, &inf); out[0] |= 0x20; return 2 * nb;
    case 4: {
        size_t n = cz_rng_next(rng) & 1 ? nb : 2 * nb;
        (n == nb ? g->enc_c : g->enc_u)(out, &inf);
        out[1 + cz_rng_next(rng) % (n - 1)] |= (uint8_t)(1u << (cz_rng_next(rng) % 8));
        return n;
    }
    case 5: g->enc_c(out, &inf); out[0] |= (uint8_t)(1 + cz_rng_next(rng) % 31); return nb;
    case 6: g->enc_c(out, &p); out[0] |= 0x40; return nb;
    case 7: {
        size_t n = cz_rng_next(rng) & 1 ? nb : 2 * nb;
        (n == nb ? g->enc_c : g->enc_u)(out, &p);
        put_ge_p(out + 48 * (cz_rng_next(rng) % (nb / 48)), (uint32_t)(cz_rng_next(rng) % 1000));
        *want = CZ_ERANGE;
        return n;
    }
    case 8:
        g->enc_u(out, &p);
        put_ge_p(out + nb + 48 * (cz_rng_next(rng) % (nb / 48)), (uint32_t)(cz_rng_next(rng) % 1000));
        *want = CZ_ERANGE;
        return 2 * nb;
    case 9: /* flip x until x^3 + b has no root (about half the time per try) */
        *want = CZ_ECURVE;
        for (;;) {
            g->enc_c(out, &p);
            cz_rng_bytes(rng, out + nb - 8, 8);
            aff_t d;
            if (g->dec_c(&d, out, 0) == CZ_ECURVE) return nb;
        }
    default:
        g->enc_u(out, &p);
        out[2 * nb - 1] ^= (uint8_t)(1 + cz_rng_next(rng) % 255);
        *want = CZ_ECURVE;
        return 2 * nb;
    }
}

static int gen(int n) {
    cz_rng rng;
    cz_test_rng(&rng);
    for (int gi = 0; gi < 2; gi++) {
        const group_t *g = &groups[gi];
        aff_t p, q, d;
        g->generator(&p);
        emit_pair("gen", g, &p);
        for (int i = 0; i < n; i++) {
            if (i % 50 == 0) memset(&p, 0, sizeof p);
            else g->random(&p, &rng);
            emit_pair("enc", g, &p);
        }
        for (int i = 0; i < n; i++) {
            cz_fr k;
            uint8_t kb[32], u[192];
            g->random(&p, &rng);
            cz_fr_random(&k, &rng);
            if (i == 0) k = CZ_FR_ZERO_V;
            if (i == 1) k = CZ_FR_ONE_V;
            if (i == 2) cz_fr_neg(&k, &CZ_FR_ONE_V);
            g->mul(&q, &p, &k);
            cz_fr_to_bytes_be(kb, &k);
            printf("mul %s", g->name);
            g->enc_u(u, &p);
            put_hex(u, 2 * g->nb);
            put_hex(kb, 32);
            g->enc_u(u, &q);
            put_hex(u, 2 * g->nb);
            printf("\n");
        }
        for (int i = 0; i < n; i++) {
            uint8_t c[96], u[192];
            g->on_curve(&p, &rng);
            g->enc_c(c, &p);
            g->enc_u(u, &p);
            CHECK(g->dec_c(&d, c, CZ_DECODE_CHECK_SUBGROUP) == CZ_ESUBGROUP);
            CHECK(g->dec_u(&d, u, CZ_DECODE_CHECK_SUBGROUP) == CZ_ESUBGROUP);
            emit_pair("nonsub", g, &p);
        }
        for (int i = 0; i < n; i++) {
            uint8_t b[192];
            int want, k = i % BAD_KINDS;
            size_t len = make_bad(g, k, b, &want, &rng);
            int rc = (len == g->nb ? g->dec_c : g->dec_u)(&d, b, CZ_DECODE_CHECK_SUBGROUP);
            CHECK_MSG(rc == want, "%s bad %s: got %s want %s", g->name, bad_names[k], cz_error_name(rc), cz_error_name(want));
            printf("bad %s %s", g->name, bad_names[k]);
            put_hex(b, len);
            printf("\n");
        }
    }
    fflush(stdout);
    fprintf(stderr, "cz_tool_ec_vectors gen self-check: %lu passed, %lu failed\n", cz_test_passed, cz_test_failed);
    return cz_test_failed ? 1 : 0;
}

/* Decodes a hex field of exactly n bytes. */
static bool hex_field(uint8_t *out, size_t n, const char *tok) { return tok && strlen(tok) == 2 * n && cz_hex_decode(out, n, tok) == 0; }

static unsigned long counts[2][5];
enum { K_GEN, K_ENC, K_MUL, K_NONSUB, K_BAD };

static void check_line(char *line, unsigned long lineno) {
    char *save = NULL, *kind = strtok_r(line, " \n", &save), *gname = strtok_r(NULL, " \n", &save);
    if (!kind) return;
    int gi = gname && !strcmp(gname, "g1") ? 0 : gname && !strcmp(gname, "g2") ? 1 : -1;
    CHECK_MSG(gi >= 0, "line %lu: unknown group", lineno);
    if (gi < 0) return;
    const group_t *g = &groups[gi];
    size_t nb = g->nb;
    uint8_t c[96], u[192], c2[96], u2[192];
    aff_t p, q;
    char *t1 = strtok_r(NULL, " \n", &save), *t2 = strtok_r(NULL, " \n", &save), *t3 = strtok_r(NULL, " \n", &save);
    if (!strcmp(kind, "gen") || !strcmp(kind, "enc")) {
        bool ok = hex_field(c, nb, t1) && hex_field(u, 2 * nb, t2);
        CHECK_MSG(ok, "line %lu: malformed", lineno);
        if (!ok) return;
        int rc1 = g->dec_c(&p, c, CZ_DECODE_CHECK_SUBGROUP), rc2 = g->dec_u(&q, u, CZ_DECODE_CHECK_SUBGROUP);
        CHECK_MSG(rc1 == 0 && rc2 == 0, "line %lu: %s %s decode: %s / %s (%s)", lineno, kind, g->name, cz_error_name(rc1), cz_error_name(rc2),
                  cz_error_message());
        CHECK_MSG(g->eq(&p, &q), "line %lu: compressed and uncompressed decode to different points", lineno);
        g->enc_c(c2, &p);
        g->enc_u(u2, &p);
        CHECK_MSG(!memcmp(c, c2, nb) && !memcmp(u, u2, 2 * nb), "line %lu: re-encoding differs", lineno);
        if (!strcmp(kind, "gen")) {
            g->generator(&q);
            CHECK_MSG(g->eq(&p, &q), "line %lu: %s generator differs", lineno, g->name);
            counts[gi][K_GEN]++;
        } else {
            counts[gi][K_ENC]++;
        }
    } else if (!strcmp(kind, "mul")) {
        uint8_t kb[32];
        cz_fr k;
        bool ok = hex_field(u, 2 * nb, t1) && hex_field(kb, 32, t2) && hex_field(u2, 2 * nb, t3) && cz_fr_from_bytes_be(&k, kb) == 0;
        CHECK_MSG(ok, "line %lu: malformed", lineno);
        if (!ok) return;
        CHECK_MSG(g->dec_u(&p, u, CZ_DECODE_CHECK_SUBGROUP) == 0, "line %lu: P rejected: %s", lineno, cz_error_message());
        g->mul(&q, &p, &k);
        g->enc_u(u, &q);
        CHECK_MSG(!memcmp(u, u2, 2 * nb), "line %lu: %s [k]P differs", lineno, g->name);
        counts[gi][K_MUL]++;
    } else if (!strcmp(kind, "nonsub")) {
        bool ok = hex_field(c, nb, t1) && hex_field(u, 2 * nb, t2);
        CHECK_MSG(ok, "line %lu: malformed", lineno);
        if (!ok) return;
        int rc1 = g->dec_c(&p, c, CZ_DECODE_CHECK_SUBGROUP), rc2 = g->dec_u(&p, u, CZ_DECODE_CHECK_SUBGROUP);
        CHECK_MSG(rc1 == CZ_ESUBGROUP && rc2 == CZ_ESUBGROUP, "line %lu: non-subgroup %s point: %s / %s", lineno, g->name,
                  cz_error_name(rc1), cz_error_name(rc2));
        rc1 = g->dec_c(&p, c, 0);
        rc2 = g->dec_u(&q, u, 0);
        CHECK_MSG(rc1 == 0 && rc2 == 0 && g->eq(&p, &q), "line %lu: not a valid curve point without the subgroup check", lineno);
        counts[gi][K_NONSUB]++;
    } else if (!strcmp(kind, "bad")) {
        size_t len = t2 ? strlen(t2) / 2 : 0;
        bool ok = (len == nb || len == 2 * nb) && hex_field(u, len, t2);
        CHECK_MSG(ok, "line %lu: malformed", lineno);
        if (!ok) return;
        int rc = (len == nb ? g->dec_c : g->dec_u)(&p, u, CZ_DECODE_CHECK_SUBGROUP);
        CHECK_MSG(rc < 0, "line %lu: bad %s %s accepted", lineno, g->name, t1);
        counts[gi][K_BAD]++;
    } else {
        CHECK_MSG(0, "line %lu: unknown kind %s", lineno, kind);
    }
}

static int check(void) {
    static char line[4096];
    unsigned long lineno = 0;
    while (fgets(line, sizeof line, stdin)) check_line(line, ++lineno);
    for (int gi = 0; gi < 2; gi++)
        fprintf(stderr, "%s: gen %lu, enc %lu, mul %lu, nonsub %lu, bad %lu\n", groups[gi].name, counts[gi][K_GEN],
                counts[gi][K_ENC], counts[gi][K_MUL], counts[gi][K_NONSUB], counts[gi][K_BAD]);
    return cz_test_finish();
}

int main(int argc, char **argv) {
    if (argc == 3 && !strcmp(argv[1], "gen")) return gen(atoi(argv[2]));
    if (argc == 2 && !strcmp(argv[1], "check")) return check();
    fprintf(stderr, "usage: %s gen N | check < vectors\n", argv[0]);
    return 2;
}
