/* bellperson .params / .vk files: layout (counts, offsets), write -> read round trip, and located errors
 * for truncated files (also from the counts alone: cz_groth16_params_layout_of / _file_layout), bad counts, points
 * off the curve, outside the subgroup, x >= p and infinity; a decode given
 * up by its stop callback (cz_groth16_params_decode_until) at every point it asks, and never reading on past it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cz_error.h"
#include "groth16/params.h"
#include "testutil.h"

static cz_rng rng;

static void random_params(cz_groth16_params *p, size_t ic, size_t h, size_t l, size_t a, size_t b) {
    memset(p, 0, sizeof *p);
    cz_g1_random(&p->vk.alpha_g1, &rng);
    cz_g1_random(&p->vk.beta_g1, &rng);
    cz_g2_random(&p->vk.beta_g2, &rng);
    cz_g2_random(&p->vk.gamma_g2, &rng);
    cz_g1_random(&p->vk.delta_g1, &rng);
    cz_g2_random(&p->vk.delta_g2, &rng);
    p->vk.ic_len = ic;
    p->vk.ic = malloc(ic * sizeof *p->vk.ic);
    p->h_len = h, p->l_len = l, p->a_len = a, p->b_len = b;
    p->h = malloc((h + 1) * 96), p->l = malloc((l + 1) * 96), p->a = malloc((a + 1) * 96);
    p->b_g1 = malloc((b + 1) * 96), p->b_g2 = malloc((b + 1) * 192);
    for (size_t i = 0; i < ic; i++) cz_g1_random(&p->vk.ic[i], &rng);
    for (size_t i = 0; i < h; i++) cz_g1_random(&p->h[i], &rng);
    for (size_t i = 0; i < l; i++) cz_g1_random(&p->l[i], &rng);
    for (size_t i = 0; i < a; i++) cz_g1_random(&p->a[i], &rng);
    for (size_t i = 0; i < b; i++) cz_g1_random(&p->b_g1[i], &rng);
    for (size_t i = 0; i < b; i++) cz_g2_random(&p->b_g2[i], &rng);
}

static int g1_eq(const cz_g1_affine *x, const cz_g1_affine *y) { return !memcmp(x, y, sizeof *x); }
static int g2_eq(const cz_g2_affine *x, const cz_g2_affine *y) { return !memcmp(x, y, sizeof *x); }

static int params_equal(const cz_groth16_params *x, const cz_groth16_params *y) {
    int ok = g1_eq(&x->vk.alpha_g1, &y->vk.alpha_g1) && g1_eq(&x->vk.beta_g1, &y->vk.beta_g1) &&
             g2_eq(&x->vk.beta_g2, &y->vk.beta_g2) && g2_eq(&x->vk.gamma_g2, &y->vk.gamma_g2) &&
             g1_eq(&x->vk.delta_g1, &y->vk.delta_g1) && g2_eq(&x->vk.delta_g2, &y->vk.delta_g2) &&
             x->vk.ic_len == y->vk.ic_len && x->h_len == y->h_len && x->l_len == y->l_len && x->a_len == y->a_len &&
             x->b_len == y->b_len;
    if (!ok) return 0;
    ok = !memcmp(x->vk.ic, y->vk.ic, x->vk.ic_len * 96) && !memcmp(x->h, y->h, x->h_len * 96) &&
         !memcmp(x->l, y->l, x->l_len * 96) && !memcmp(x->a, y->a, x->a_len * 96) &&
         !memcmp(x->b_g1, y->b_g1, x->b_len * 96) && !memcmp(x->b_g2, y->b_g2, x->b_len * 192);
    return ok;
}

static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

/* Expects decoding buf to fail with code and a message naming every string in want (NULL-terminated). */
static void expect_params_error(const uint8_t *buf, size_t len, unsigned flags, int code, const char *const *want,
                                const char *what) {
    cz_groth16_params q;
    int rc = cz_groth16_params_decode(&q, buf, len, "t.params", flags);
    CHECK_MSG(rc == code, "%s: got %s (%s), want %s", what, cz_error_name(rc), cz_error_message(), cz_error_name(code));
    const char *msg = cz_error_message();
    for (; rc && *want; want++)
        CHECK_MSG(strstr(msg, *want) != NULL, "%s: message \"%s\" lacks \"%s\"", what, msg, *want);
    if (rc == 0) cz_groth16_params_free(&q);
}

/* A G1 point on the curve but (with overwhelming probability) outside the prime-order subgroup. */
static void g1_off_subgroup(cz_g1_affine *r) {
    cz_fp four, rhs;
    cz_fp_set_u64(&four, 4);
    for (;;) {
        cz_fp_random(&r->x, &rng);
        cz_fp_sqr(&rhs, &r->x);
        cz_fp_mul(&rhs, &rhs, &r->x);
        cz_fp_add(&rhs, &rhs, &four);
        if (cz_fp_sqrt(&r->y, &rhs) == 0) return;
    }
}

/* cz_groth16_params_decode_until's stop: counts its calls and says stop at call stop_at (never when 0). */
static int stop_calls, stop_at;
static bool stop_when(void *arg) {
    (void)arg;
    return ++stop_calls == stop_at;
}

/* With the decode's pieces set to 4,096 points, a file whose H spans two of them (2^13 - 1 points, a handful of
 * distinct ones repeated): decoded whole when never stopped (13 calls: the vk's seven points and IC, then H's two
 * pieces, L, A, B_G1, B_G2), and stopped at each of those calls with CZ_ECANCELED, the parameters freed; stopped
 * before H's second piece, a bad point there is never read (unstopped, the decode names it). */
static void decode_stopped(const char *path) {
    cz_groth16_params p, q;
    random_params(&p, 3, 7, 5, 4, 2);
    const size_t h = (1u << 13) - 1;
    cz_groth16_params_set_piece_for_test(4096);
    cz_g1_affine *hh = malloc(h * sizeof *hh);
    CHECK(hh != NULL);
    if (!hh) return;
    for (size_t i = 0; i < h; i++) hh[i] = p.h[i % 7];
    free(p.h);
    p.h = hh, p.h_len = h;
    CHECK(cz_groth16_params_write_file(path, &p) == 0);
    size_t len = 0;
    uint8_t *buf = (uint8_t *)cz_test_read_file(path, &len);
    CHECK(buf != NULL && len == cz_groth16_params_size(&p));
    if (!buf) return;
    stop_calls = 0, stop_at = 0;
    CHECK(cz_groth16_params_decode_until(&q, buf, len, "t.params", 0, stop_when, NULL) == 0);
    CHECK(params_equal(&p, &q));
    CHECK_MSG(stop_calls == 13, "decode_until asked its stop %d times (13: 7 for the vk, 6 pieces)", stop_calls);
    cz_groth16_params_free(&q);
    const int calls = stop_calls;
    for (int k = 1; k <= calls; k++) {
        stop_calls = 0, stop_at = k;
        memset(&q, 0xa5, sizeof q);
        const int rc = cz_groth16_params_decode_until(&q, buf, len, "t.params", 0, stop_when, NULL);
        CHECK_MSG(rc == CZ_ECANCELED && strstr(cz_error_message(), "decode stopped") && stop_calls == k,
                  "stopped at call %d: rc %d (%s), %d calls", k, rc, cz_error_message(), stop_calls);
        CHECK_MSG(!q.h && !q.l && !q.a && !q.b_g1 && !q.b_g2 && !q.vk.ic && !q.h_len && !q.vk.ic_len,
                  "stopped at call %d: the parameters are not freed", k);
        if (rc == 0) cz_groth16_params_free(&q);
    }
    /* H's second piece: a point off the curve there; call 9 is the stop before that piece */
    const size_t off_h = 868 + 96 * 3, at = off_h + 4 + 96 * ((1u << 12) + 7);
    buf[at + 95] ^= 1;
    stop_calls = 0, stop_at = 9;
    int rc = cz_groth16_params_decode_until(&q, buf, len, "t.params", 0, stop_when, NULL);
    CHECK_MSG(rc == CZ_ECANCELED && strstr(cz_error_message(), "section H: decode stopped at point 4096 of 8191"),
              "stopped before H's second piece: rc %d (%s)", rc, cz_error_message());
    stop_calls = 0, stop_at = 0;
    rc = cz_groth16_params_decode_until(&q, buf, len, "t.params", 0, stop_when, NULL);
    CHECK_MSG(rc == CZ_ECURVE && strstr(cz_error_message(), "section H: point 4103"),
              "the bad point unstopped: rc %d (%s)", rc, cz_error_message());
    free(buf);
    cz_groth16_params_free(&p);
    cz_groth16_params_set_piece_for_test(0);
}

int main(void) {
    cz_test_rng(&rng);
    char path[64], vkpath[64];
    snprintf(path, sizeof path, "/tmp/cz_test_params_%d.params", (int)getpid());
    snprintf(vkpath, sizeof vkpath, "/tmp/cz_test_params_%d.vk", (int)getpid());

    /* Sizes: IC 3, H 7 (n = 8), L 5, A 4, B 2. */
    const size_t ic = 3, h = 7, l = 5, a = 4, b = 2;
    cz_groth16_params p, q;
    random_params(&p, ic, h, l, a, b);
    CHECK(cz_groth16_params_write_file(path, &p) == 0);
    size_t len = 0;
    uint8_t *buf = (uint8_t *)cz_test_read_file(path, &len);
    const size_t off_h = 868 + 96 * ic, off_l = off_h + 4 + 96 * h, off_a = off_l + 4 + 96 * l,
                 off_b1 = off_a + 4 + 96 * a, off_b2 = off_b1 + 4 + 96 * b, total = off_b2 + 4 + 192 * b;
    CHECK(len == total && cz_groth16_params_size(&p) == total);
    /* Layout by hand: counts big-endian at their offsets, points uncompressed in order, G2 with c1 first. */
    CHECK(be32(buf + 864) == ic && be32(buf + off_h) == h && be32(buf + off_l) == l && be32(buf + off_a) == a &&
          be32(buf + off_b1) == b && be32(buf + off_b2) == b);
    uint8_t e1[96], e2[192];
    cz_g1_to_uncompressed(e1, &p.vk.alpha_g1);
    CHECK(!memcmp(buf, e1, 96));
    cz_g2_to_uncompressed(e2, &p.vk.gamma_g2);
    CHECK(!memcmp(buf + 384, e2, 192));
    cz_g1_to_uncompressed(e1, &p.l[l - 1]);
    CHECK(!memcmp(buf + off_l + 4 + 96 * (l - 1), e1, 96));
    cz_g2_to_uncompressed(e2, &p.b_g2[1]);
    CHECK(!memcmp(buf + off_b2 + 4 + 192, e2, 192));
    uint8_t fp_be[48];
    cz_fp_to_bytes_be(fp_be, &p.b_g2[1].x.c1);
    CHECK(!memcmp(buf + off_b2 + 4 + 192, fp_be, 48));

    /* Round trip, with and without subgroup checks; the reader ignores trailing bytes as bellperson does. */
    CHECK(cz_groth16_params_read_file(&q, path, CZ_PARAMS_CHECK_SUBGROUP) == 0);
    CHECK(params_equal(&p, &q));
    cz_groth16_params_free(&q);
    CHECK(cz_groth16_params_read_file(&q, path, 0) == 0);
    CHECK(params_equal(&p, &q));
    cz_groth16_params_free(&q);
    uint8_t *longer = calloc(total + 10, 1);
    memcpy(longer, buf, total);
    CHECK(cz_groth16_params_decode(&q, longer, total + 10, "t.params", CZ_PARAMS_CHECK_SUBGROUP) == 0);
    CHECK(params_equal(&p, &q));
    cz_groth16_params_free(&q);
    free(longer);

    /* .vk: exactly the first 868 + 96 ic bytes; readable from the .vk and from the .params. */
    cz_groth16_vk vk;
    CHECK(cz_groth16_vk_write_file(vkpath, &p.vk) == 0);
    size_t vlen = 0;
    uint8_t *vbuf = (uint8_t *)cz_test_read_file(vkpath, &vlen);
    CHECK(vlen == off_h && !memcmp(vbuf, buf, vlen));
    CHECK(cz_groth16_vk_read_file(&vk, vkpath) == 0);
    CHECK(vk.ic_len == ic && !memcmp(vk.ic, p.vk.ic, 96 * ic) && g2_eq(&vk.delta_g2, &p.vk.delta_g2));
    cz_groth16_vk_free(&vk);
    CHECK(cz_groth16_vk_read_file(&vk, path) == 0);
    cz_groth16_vk_free(&vk);
    CHECK(cz_groth16_vk_read_file(&vk, "/nonexistent/x.vk") == CZ_EIO);
    CHECK(strstr(cz_error_message(), "/nonexistent/x.vk") != NULL);

    /* Truncation at several offsets: each names the section it falls in. */
    struct { size_t cut; const char *section; } cuts[] = {
        {0, "vk.alpha_g1"}, {50, "vk.alpha_g1"}, {200, "vk.beta_g2"}, {700, "vk.delta_g2"}, {866, "vk.ic"},
        {868 + 96 * ic - 1, "vk.ic"}, {off_h + 2, "section H"}, {off_h + 4 + 100, "section H"},
        {off_l + 4 + 96 * 3, "section L"}, {off_a + 3, "section A"}, {off_b1 + 4 + 95, "section B_G1"},
        {off_b2 + 4 + 192 + 191, "section B_G2"}, {total - 1, "section B_G2"},
    };
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        const char *want[] = {"t.params", "truncated", cuts[i].section, "offset", NULL};
        expect_params_error(buf, cuts[i].cut, CZ_PARAMS_CHECK_SUBGROUP, CZ_EFORMAT, want, cuts[i].section);
        size_t consumed;
        if (cuts[i].cut < off_h) CHECK(cz_groth16_vk_decode(&vk, buf, cuts[i].cut, "t.vk", &consumed) == CZ_EFORMAT);
        /* the layout (counts alone) finds the same, naming the same section */
        cz_groth16_params_layout lay;
        CHECK_MSG(cz_groth16_params_layout_of(&lay, buf, cuts[i].cut, "t.params") == CZ_EFORMAT &&
                      strstr(cz_error_message(), cuts[i].section) && strstr(cz_error_message(), "truncated"),
                  "layout cut at %zu: %s", cuts[i].cut, cz_error_message());
    }
    /* whole: the layout's counts are the params', its end the file's; bytes after B_G2 are not an error, end says
     * where the sections stop */
    {
        cz_groth16_params_layout lay;
        uint64_t fb = 0;
        CHECK(cz_groth16_params_file_layout(&lay, &fb, path) == 0 && fb == total && lay.end == total &&
              lay.ic_len == ic && lay.h_len == p.h_len && lay.l_len == p.l_len && lay.a_len == p.a_len &&
              lay.b_len == p.b_len);
        uint8_t *more = calloc(total + 7, 1);
        memcpy(more, buf, total);
        CHECK(more && cz_groth16_params_layout_of(&lay, more, total + 7, "t.params") == 0 && lay.end == total);
        free(more);
        CHECK(cz_groth16_params_file_layout(&lay, &fb, "/nonexistent/x.params") == CZ_EIO);
    }
    CHECK(cz_groth16_vk_decode(&vk, buf, off_h, "t.vk", NULL) == 0);
    cz_groth16_vk_free(&vk);

    uint8_t *c = malloc(total);
    char offs[64];
    /* A point off the curve: flip the lowest bit of y of L[2]. */
    memcpy(c, buf, total);
    size_t at = off_l + 4 + 96 * 2;
    c[at + 95] ^= 1;
    snprintf(offs, sizeof offs, "offset %zu", at);
    {
        const char *want[] = {"section L", "point 2", offs, "not on the curve", NULL};
        expect_params_error(c, total, CZ_PARAMS_CHECK_SUBGROUP, CZ_ECURVE, want, "off curve");
    }
    /* A G2 point off the curve (B_G2[0]) is caught with or without subgroup checks. */
    memcpy(c, buf, total);
    at = off_b2 + 4;
    c[at + 191] ^= 2;
    snprintf(offs, sizeof offs, "offset %zu", at);
    {
        const char *want[] = {"section B_G2", "point 0", offs, "not on the curve", NULL};
        expect_params_error(c, total, 0, CZ_ECURVE, want, "g2 off curve");
    }
    /* x >= p in H[4]. */
    memcpy(c, buf, total);
    at = off_h + 4 + 96 * 4;
    cz_fp m1;
    cz_fp_neg(&m1, &CZ_FP_ONE_V);
    cz_fp_to_bytes_be(c + at, &m1);
    c[at + 47]++; /* p - 1 ends in 0xaa: no carry, x = p */
    snprintf(offs, sizeof offs, "offset %zu", at);
    {
        const char *want[] = {"section H", "point 4", offs, "modulus", NULL};
        expect_params_error(c, total, 0, CZ_ERANGE, want, "x = p");
    }
    /* On the curve, outside the subgroup, in A[3]: rejected only with the subgroup check. */
    memcpy(c, buf, total);
    cz_g1_affine bad;
    g1_off_subgroup(&bad);
    at = off_a + 4 + 96 * 3;
    cz_g1_to_uncompressed(c + at, &bad);
    snprintf(offs, sizeof offs, "offset %zu", at);
    {
        const char *want[] = {"section A", "point 3", offs, "subgroup", NULL};
        expect_params_error(c, total, CZ_PARAMS_CHECK_SUBGROUP, CZ_ESUBGROUP, want, "subgroup");
        const char *none[] = {NULL};
        expect_params_error(c, total, 0, 0, none, "subgroup unchecked");
    }
    /* The vk is always subgroup-checked. */
    memcpy(c, buf, total);
    cz_g1_to_uncompressed(c + 576, &bad);
    {
        const char *want[] = {"vk.delta_g1", "offset 576", "subgroup", NULL};
        expect_params_error(c, total, 0, CZ_ESUBGROUP, want, "vk subgroup");
    }
    /* Infinity: allowed for the six vk points, refused in IC and in every query. */
    cz_g1_affine inf1;
    memset(&inf1, 0, sizeof inf1);
    cz_g2_affine inf2;
    memset(&inf2, 0, sizeof inf2);
    memcpy(c, buf, total);
    cz_g1_to_uncompressed(c, &inf1);
    CHECK(c[0] == 0x40);
    cz_g2_to_uncompressed(c + 384, &inf2);
    CHECK(cz_groth16_params_decode(&q, c, total, "t.params", CZ_PARAMS_CHECK_SUBGROUP) == 0);
    CHECK(cz_g1_affine_is_infinity(&q.vk.alpha_g1) && cz_g2_affine_is_infinity(&q.vk.gamma_g2));
    cz_groth16_params_free(&q);
    struct { size_t at; int g2; const char *section; } infs[] = {
        {868 + 96, 0, "vk.ic"}, {off_h + 4, 0, "section H"}, {off_l + 4 + 96 * 4, 0, "section L"},
        {off_a + 4, 0, "section A"}, {off_b1 + 4 + 96, 0, "section B_G1"}, {off_b2 + 4 + 192, 1, "section B_G2"},
    };
    for (size_t i = 0; i < sizeof infs / sizeof infs[0]; i++) {
        memcpy(c, buf, total);
        if (infs[i].g2) cz_g2_to_uncompressed(c + infs[i].at, &inf2);
        else cz_g1_to_uncompressed(c + infs[i].at, &inf1);
        snprintf(offs, sizeof offs, "offset %zu", infs[i].at);
        const char *want[] = {infs[i].section, offs, "infinity", NULL};
        expect_params_error(c, total, CZ_PARAMS_CHECK_SUBGROUP, CZ_EFORMAT, want, infs[i].section);
    }
    /* Compressed flag on an uncompressed point. */
    memcpy(c, buf, total);
    c[off_b1 + 4] |= 0x80;
    {
        const char *want[] = {"section B_G1", "point 0", "flag", NULL};
        expect_params_error(c, total, 0, CZ_EINVAL, want, "flags");
    }
    /* Bad counts: an H count that is not n - 1, a count past the end, B_G2 != B_G1, IC = 0, A < IC. */
    memcpy(c, buf, total);
    c[off_h + 3] = 6;
    {
        const char *want[] = {"section H", "bad count", NULL};
        expect_params_error(c, total, 0, CZ_EFORMAT, want, "H count");
    }
    memcpy(c, buf, total);
    c[off_l] = 0x7f;
    {
        const char *want[] = {"section L", "bad count", NULL};
        expect_params_error(c, total, 0, CZ_EFORMAT, want, "huge count");
    }
    memcpy(c, buf, total);
    c[off_b2 + 3] = 1;
    {
        const char *want[] = {"section B_G2", "bad count", NULL};
        expect_params_error(c, total, 0, CZ_EFORMAT, want, "B count");
    }
    memcpy(c, buf, total);
    memset(c + 864, 0, 4);
    {
        const char *want[] = {"vk.ic", "bad count", NULL};
        expect_params_error(c, total, 0, CZ_EFORMAT, want, "IC count");
    }
    cz_groth16_params_free(&p);

    /* A tiny file with A shorter than IC. */
    random_params(&p, 3, 1, 1, 2, 1);
    CHECK(cz_groth16_params_write_file(path, &p) == 0);
    CHECK(cz_groth16_params_read_file(&q, path, 0) == CZ_EFORMAT);
    CHECK(strstr(cz_error_message(), "section A") && strstr(cz_error_message(), path));
    cz_groth16_params_free(&p);
    /* Empty sections are legal (n = 1 gives an empty H; a circuit without aux has empty L). */
    random_params(&p, 1, 0, 0, 1, 0);
    CHECK(cz_groth16_params_write_file(path, &p) == 0);
    CHECK(cz_groth16_params_read_file(&q, path, CZ_PARAMS_CHECK_SUBGROUP) == 0);
    CHECK(params_equal(&p, &q));
    cz_groth16_params_free(&q);
    cz_groth16_params_free(&p);

    decode_stopped(path);

    free(c);
    free(buf);
    free(vbuf);
    unlink(path);
    unlink(vkpath);
    return cz_test_finish();
}
