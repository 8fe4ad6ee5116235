/* The JSON reader's packed mode (util/json.h cz_json_parse_packed, the C1 parser's) and base64, on fresh random data:
 *  - RFC 4648's test vectors decode (§10), and random byte strings of 0..300 bytes survive encode / decode; a bad
 *    character put at a random place is named by its offset, a '=' inside or non-zero padding bits are refused;
 *  - random documents (objects, arrays of arrays, arrays of numbers 0..299, 1000, 1.5, -1, 1e2, strings, random
 *    whitespace) parse the same both ways: every node of the packed tree has the plain tree's type and count, an
 *    array is packed exactly when it is non-empty and all its elements are integers 0..255 in plain digits, and
 *    its bytes are the plain tree's values; sibling links (next) line up, cz_json_get finds the same members;
 *  - malformed arrays (a leading zero, a trailing comma, a missing comma, unterminated) fail both ways with the
 *    same message;
 *  - cz_json_bytes reads packed and plain arrays alike and names a bad element;
 *  - a document of 2,000 byte arrays of 32 takes 2,001 tokens packed, 66,001 plain. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "testutil.h"
#include "util/json.h"
#include "util/rng.h"

static cz_rng rng;

static unsigned rnd(unsigned n) { return (unsigned)(cz_rng_next(&rng) % n); }

typedef struct {
    char *s;
    size_t n, cap;
} buf;

static void put(buf *b, const char *s) {
    size_t l = strlen(s);
    if (b->n + l + 1 > b->cap) {
        b->cap = (b->n + l + 1) * 2;
        b->s = realloc(b->s, b->cap);
    }
    memcpy(b->s + b->n, s, l + 1);
    b->n += l;
}

static void ws(buf *b) {
    static const char *const w[] = {"", "", "", " ", "\n", "\t ", "\r\n  "};
    put(b, w[rnd(7)]);
}

/* an array element: mostly bytes, sometimes a number that is no byte, a string or a nested value */
static void gen(buf *b, int depth);
static void gen_number_array(buf *b, int depth) {
    const unsigned n = rnd(40), spoil = rnd(4) == 0 ? rnd(n + 1) : n + 1; /* one element of another kind, or none */
    put(b, "[");
    for (unsigned i = 0; i < n; i++) {
        ws(b);
        char t[32];
        if (i == spoil) {
            static const char *const other[] = {"256", "1000", "1.5", "-1", "1e2", "\"7\"", "true", "null", "[1]", "{}"};
            snprintf(t, sizeof t, "%s", other[rnd(10)]);
            if (depth > 3 && (t[0] == '[' || t[0] == '{')) snprintf(t, sizeof t, "300");
        } else {
            snprintf(t, sizeof t, "%u", rnd(256));
        }
        put(b, t);
        ws(b);
        if (i + 1 < n) put(b, ",");
    }
    put(b, "]");
}

static void gen(buf *b, int depth) {
    const unsigned k = depth > 4 ? 4 + rnd(2) : rnd(6);
    char t[32];
    switch (k) {
    case 0:
    case 1: { /* an object */
        const unsigned n = rnd(5);
        put(b, "{");
        for (unsigned i = 0; i < n; i++) {
            ws(b);
            snprintf(t, sizeof t, "\"k%u\"", i);
            put(b, t);
            ws(b);
            put(b, ":");
            ws(b);
            gen(b, depth + 1);
            if (i + 1 < n) put(b, ",");
        }
        put(b, "}");
        break;
    }
    case 2: { /* an array of values */
        const unsigned n = rnd(5);
        put(b, "[");
        for (unsigned i = 0; i < n; i++) {
            ws(b);
            gen(b, depth + 1);
            ws(b);
            if (i + 1 < n) put(b, ",");
        }
        put(b, "]");
        break;
    }
    case 3:
    case 4: gen_number_array(b, depth); break;
    default:
        if (rnd(2)) snprintf(t, sizeof t, "%u", rnd(100000));
        else snprintf(t, sizeof t, "\"s%u\"", rnd(100));
        put(b, t);
    }
}

/* whether plain array token t of j has only integers 0..255 in plain digits (and at least one) */
static int byte_array(const cz_json *j, int64_t t, uint8_t *vals) {
    if (j->tok[t].type != CZ_JSON_ARRAY || !j->tok[t].count) return 0;
    int64_t e = t + 1;
    for (uint32_t i = 0; i < j->tok[t].count; i++, e = j->tok[e].next) {
        uint64_t v;
        const char *s = j->text + j->tok[e].start;
        if (j->tok[e].type != CZ_JSON_NUMBER || j->tok[e].len > 3 || cz_json_u64(j, e, &v) || v > 255) return 0;
        for (uint32_t q = 0; q < j->tok[e].len; q++)
            if (s[q] < '0' || s[q] > '9') return 0;
        vals[i] = (uint8_t)v;
    }
    return 1;
}

/* Walks the plain tree (a, token ta) and the packed one (b, tb) together; 0 when they agree. */
static int same_tree(const cz_json *a, int64_t ta, const cz_json *b, int64_t tb, int *packed) {
    const cz_json_tok *x = &a->tok[ta], *y = &b->tok[tb];
    if (x->type != y->type || x->count != y->count) return 1;
    if (x->type == CZ_JSON_ARRAY) {
        uint8_t vals[64];
        const int ba = byte_array(a, ta, vals);
        if (ba != y->packed) return 2;
        if (ba) {
            (*packed)++;
            uint8_t got[64];
            int bad;
            if (cz_json_bytes(b, tb, got, y->count, &bad) || memcmp(got, vals, y->count)) return 3;
            if (memcmp(b->bytes + y->start, vals, y->count)) return 4;
            return y->next == (uint32_t)tb + 1 ? 0 : 5;
        }
    }
    if (x->type == CZ_JSON_ARRAY || x->type == CZ_JSON_OBJECT) {
        int64_t ea = ta + 1, eb = tb + 1;
        for (uint32_t i = 0; i < x->count; i++) {
            if (x->type == CZ_JSON_OBJECT) { /* key then value */
                if (a->tok[ea].len != b->tok[eb].len || memcmp(a->text + a->tok[ea].start, b->text + b->tok[eb].start, a->tok[ea].len))
                    return 6;
                char key[16];
                snprintf(key, sizeof key, "k%u", i);
                if (cz_json_get(a, ta, key) != ea + 1 || cz_json_get(b, tb, key) != eb + 1) return 7;
                ea++, eb++;
            }
            int rc = same_tree(a, ea, b, eb, packed);
            if (rc) return rc;
            ea = a->tok[ea].next, eb = b->tok[eb].next;
        }
        return (uint32_t)ea == x->next && (uint32_t)eb == y->next ? 0 : 8;
    }
    if (x->type == CZ_JSON_NUMBER || x->type == CZ_JSON_STRING)
        return x->len == y->len && !memcmp(a->text + x->start, b->text + y->start, x->len) ? 0 : 9;
    return 0;
}

static void test_base64(void) {
    static const char *const rfc[][2] = {{"", ""},          {"f", "Zg=="},         {"fo", "Zm8="},
                                         {"foo", "Zm9v"},   {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="},
                                         {"foobar", "Zm9vYmFy"}};
    for (int i = 0; i < 7; i++) {
        uint8_t *o = NULL;
        size_t n = 0;
        int rc = cz_base64_decode(rfc[i][1], strlen(rfc[i][1]), &o, &n);
        CHECK_MSG(rc == 0 && n == strlen(rfc[i][0]) && !memcmp(o, rfc[i][0], n), "RFC 4648 vector \"%s\"", rfc[i][1]);
        free(o);
    }
    int bad_named = 0;
    for (int trial = 0; trial < 400; trial++) {
        const size_t n = rnd(301);
        uint8_t *in = malloc(n + 1), *o = NULL;
        for (size_t i = 0; i < n; i++) in[i] = (uint8_t)cz_rng_next(&rng);
        char *e = malloc(cz_base64_encoded_len(n) + 1);
        cz_base64_encode(e, in, n);
        const size_t el = strlen(e);
        size_t on = 0;
        int rc = cz_base64_decode(e, el, &o, &on);
        CHECK_MSG(rc == 0 && on == n && (!n || !memcmp(o, in, n)), "base64 round trip of %zu bytes", n);
        free(o);
        if (el) { /* a bad character at a random place (not the padding's): named by its offset */
            size_t at = rnd((unsigned)el);
            while (at && e[at] == '=') at--;
            const char badc = at + 4 >= el ? "*-_ \n."[rnd(6)] : "*-_ \n=."[rnd(7)]; /* no '=' in the last quad */
            e[at] = badc;
            o = NULL;
            rc = cz_base64_decode(e, el, &o, &on);
            char want[64];
            snprintf(want, sizeof want, "bad character at %zu", at);
            const int named = rc == CZ_EFORMAT && strstr(cz_error_message(), want) != NULL;
            CHECK_MSG(named, "base64: %c at %zu of %zu: rc %d, %s", badc, at, el, rc, cz_error_message());
            bad_named += named;
            free(o);
        }
        free(in);
        free(e);
    }
    uint8_t *o = NULL;
    size_t on;
    CHECK(cz_base64_decode("Zm9=vYmFy", 9, &o, &on) == CZ_EFORMAT);      /* length */
    CHECK(cz_base64_decode("Zm=vYmFy", 8, &o, &on) == CZ_EFORMAT);       /* '=' inside */
    CHECK(cz_base64_decode("Zh==", 4, &o, &on) == CZ_EFORMAT);           /* non-zero padding bits */
    CHECK(cz_base64_decode("Zm9vYmFy Zm9v", 13, &o, &on) == CZ_EFORMAT); /* whitespace */
    printf("base64: RFC 4648 vectors, 400 random round trips, %d bad characters named by offset\n", bad_named);
}

static void test_packed(void) {
    int packed = 0, docs = 0;
    for (int trial = 0; trial < 600; trial++) {
        buf b = {0};
        ws(&b);
        gen(&b, 0);
        ws(&b);
        cz_json a, p;
        const int ra = cz_json_parse(&a, b.s, b.n), rp = cz_json_parse_packed(&p, b.s, b.n);
        CHECK_MSG(ra == 0 && rp == 0, "trial %d: parse %d / packed %d: %s", trial, ra, rp, b.s);
        if (!ra && !rp) {
            const int d = same_tree(&a, 0, &p, 0, &packed);
            CHECK_MSG(d == 0, "trial %d: the trees differ (%d): %s", trial, d, b.s);
            CHECK(p.ntok <= a.ntok);
            docs++;
        }
        if (!ra) cz_json_free(&a);
        if (!rp) cz_json_free(&p);
        free(b.s);
    }
    CHECK_MSG(packed > 500, "only %d arrays packed", packed);
    printf("packed: %d random documents parse alike both ways (%d arrays packed)\n", docs, packed);

    static const char *const bad[] = {"[1,01]", "[1,]", "[1 2]", "[256,", "[1,2", "[0 ,3,]", "[00]", "[1,2]]", "[-01]", "[1.]"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cz_json a, p;
        const int ra = cz_json_parse(&a, bad[i], strlen(bad[i]));
        char ma[256];
        snprintf(ma, sizeof ma, "%s", cz_error_message());
        const int rp = cz_json_parse_packed(&p, bad[i], strlen(bad[i]));
        CHECK_MSG(ra == CZ_EFORMAT && rp == ra && !strcmp(ma, cz_error_message()), "%s: %d \"%s\" / %d \"%s\"", bad[i], ra,
                  ma, rp, cz_error_message());
    }

    /* cz_json_bytes */
    const char *doc = "{\"a\":[1,2,3],\"b\":[1,2,300],\"c\":[1,\"x\",3],\"d\":[]}";
    for (int mode = 0; mode < 2; mode++) {
        cz_json j;
        CHECK(!(mode ? cz_json_parse_packed(&j, doc, strlen(doc)) : cz_json_parse(&j, doc, strlen(doc))));
        uint8_t o[3];
        int bad_at;
        CHECK(cz_json_bytes(&j, cz_json_get(&j, 0, "a"), o, 3, &bad_at) == 0 && o[0] == 1 && o[1] == 2 && o[2] == 3);
        CHECK(cz_json_bytes(&j, cz_json_get(&j, 0, "a"), o, 2, &bad_at) == CZ_EFORMAT && bad_at == -1);
        CHECK(cz_json_bytes(&j, cz_json_get(&j, 0, "b"), o, 3, &bad_at) == CZ_EFORMAT && bad_at == 2);
        CHECK(cz_json_bytes(&j, cz_json_get(&j, 0, "c"), o, 3, &bad_at) == CZ_EFORMAT && bad_at == 1);
        CHECK(cz_json_bytes(&j, cz_json_get(&j, 0, "d"), o, 0, &bad_at) == 0);
        CHECK(cz_json_bytes(&j, cz_json_get(&j, 0, "zz"), o, 3, &bad_at) == CZ_EFORMAT && bad_at == -1);
        CHECK(j.tok[cz_json_get(&j, 0, "a")].packed == mode && !j.tok[cz_json_get(&j, 0, "b")].packed);
        CHECK(cz_json_at(&j, cz_json_get(&j, 0, "a"), 0) == (mode ? -1 : cz_json_get(&j, 0, "a") + 1));
        cz_json_free(&j);
    }

    /* 2,000 byte arrays of 32: one token each packed */
    buf b = {0};
    put(&b, "[");
    for (int i = 0; i < 2000; i++) {
        put(&b, i ? ",[" : "[");
        for (int q = 0; q < 32; q++) {
            char t[8];
            snprintf(t, sizeof t, q ? ",%u" : "%u", rnd(256));
            put(&b, t);
        }
        put(&b, "]");
    }
    put(&b, "]");
    cz_json a, p;
    CHECK(cz_json_parse(&a, b.s, b.n) == 0 && cz_json_parse_packed(&p, b.s, b.n) == 0);
    int np = 0;
    CHECK(same_tree(&a, 0, &p, 0, &np) == 0 && np == 2000);
    CHECK_MSG(p.ntok == 2001 && a.ntok == 66001 && p.nbytes == 64000, "tokens %u packed, %u plain, %zu bytes", p.ntok,
              a.ntok, p.nbytes);
    printf("2,000 byte arrays of 32: %u tokens packed, %u plain\n", p.ntok, a.ntok);
    cz_json_free(&a);
    cz_json_free(&p);
    free(b.s);
}

/* Strings, whose plain runs the reader skips 8 bytes at a time: random strings at random alignments (plain ASCII,
 * UTF-8 bytes, every escape, and sometimes a raw control character, a bad escape or no closing quote) against a
 * byte-by-byte reference: the same verdict, the error at the same offset, the same token length and decoded
 * text. Then a 2.5 MB document (the reader's room ahead) parses alike both ways. */
static void test_strings(void) {
    int bad = 0, errs = 0;
    for (int it = 0; it < 4000; it++) {
        buf b = {0};
        const unsigned pre = rnd(9);
        put(&b, "[");
        for (unsigned i = 0; i < pre; i++) put(&b, " ");
        put(&b, "\"");
        const size_t s0 = b.n;
        char dec[512];
        size_t nd = 0;
        long err_at = -1; /* the reference: offset of the first error, or -1 */
        const unsigned len = rnd(60);
        int open = rnd(40) != 0;
        for (unsigned i = 0; i < len; i++) {
            const unsigned k = rnd(100);
            char t[8] = {0};
            if (k < 70) { /* plain: ASCII without '"' and '\\', or a high byte */
                unsigned c = rnd(5) ? 0x20 + rnd(0x5f) : 0x80 + rnd(0x80);
                if (c == '"' || c == '\\') c = 'x';
                t[0] = (char)c, dec[nd++] = (char)c;
            } else if (k < 95) { /* an escape */
                static const char *esc[] = {"\\\"", "\\\\", "\\/", "\\n", "\\t", "\\b", "\\f", "\\r"};
                static const char out[] = {'"', '\\', '/', '\n', '\t', '\b', '\f', '\r'};
                const unsigned e = rnd(8);
                snprintf(t, sizeof t, "%s", esc[e]);
                dec[nd++] = out[e];
            } else if (k < 96) { /* a raw control character */
                t[0] = (char)(1 + rnd(0x1f));
                if (err_at < 0) err_at = (long)(b.n);
            } else if (k < 97) { /* a bad escape */
                snprintf(t, sizeof t, "\\x");
                if (err_at < 0) err_at = (long)(b.n + 1);
            } else { /* \u escape */
                snprintf(t, sizeof t, "\\u0041");
                dec[nd++] = 'A';
            }
            put(&b, t);
        }
        if (open) put(&b, "\",1]");
        if (!open && err_at < 0) err_at = -2; /* unterminated: an error, its offset the text's end */
        cz_json j;
        const int rc = cz_json_parse(&j, b.s, b.n);
        if (err_at == -1) {
            char *out = NULL;
            size_t ol = 0;
            const int ok = !rc && j.ntok == 3 && cz_json_type(&j, 1) == CZ_JSON_STRING && j.tok[1].start == s0 &&
                           j.tok[1].len == b.n - 4 - s0 && !cz_json_string(&j, 1, &out, &ol) && ol == nd &&
                           !memcmp(out, dec, nd);
            bad += !ok;
            free(out);
            if (!rc) cz_json_free(&j);
        } else {
            char want[64];
            snprintf(want, sizeof want, "at byte %ld", err_at == -2 ? (long)b.n : err_at);
            const int ok = rc == CZ_EFORMAT && strstr(cz_error_message(), want);
            if (!ok && bad < 5) fprintf(stderr, "string %d: want an error %s, got rc %d: %s\n", it, want, rc, cz_error_message());
            bad += !ok, errs++;
        }
        free(b.s);
    }
    CHECK_MSG(bad == 0, "strings: %d of 4000 off the byte-by-byte reference", bad);
    printf("strings: 4000 (%d malformed)\n", errs);

    /* a document over 1 MiB: a 2 MB string, 20,000 byte arrays, and a number after */
    buf b = {0};
    put(&b, "{\"s\":\"");
    for (int i = 0; i < 2000000 / 64; i++) put(&b, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/");
    put(&b, "\\n\",\"a\":[");
    for (int i = 0; i < 20000; i++) {
        char t[16];
        snprintf(t, sizeof t, "%s[%u,%u]", i ? "," : "", rnd(256), rnd(256));
        put(&b, t);
    }
    put(&b, "],\"n\":7}");
    cz_json jp, jq;
    const int rp = cz_json_parse_packed(&jp, b.s, b.n), rq = cz_json_parse(&jq, b.s, b.n);
    CHECK_MSG(!rp && !rq, "large document: packed %d, plain %d", rp, rq);
    if (!rp && !rq) {
        const int64_t ap = cz_json_get(&jp, 0, "a"), aq = cz_json_get(&jq, 0, "a");
        uint64_t np = 0, nq = 0;
        CHECK(jp.ntok == 20007 && jq.ntok == 60007 && cz_json_count(&jp, ap) == 20000 && cz_json_count(&jq, aq) == 20000);
        CHECK(!cz_json_u64(&jp, cz_json_get(&jp, 0, "n"), &np) && !cz_json_u64(&jq, cz_json_get(&jq, 0, "n"), &nq) &&
              np == 7 && nq == 7);
        CHECK(jp.tok[cz_json_get(&jp, 0, "s")].len == 2000000 / 64 * 64 + 2);
        int diff = 0;
        int64_t ep = ap + 1, eq = aq + 1;
        for (int i = 0; i < 20000; i++, ep = jp.tok[ep].next, eq = jq.tok[eq].next) {
            uint8_t x[2], y[2];
            int bx = 0, by = 0;
            diff += cz_json_bytes(&jp, ep, x, 2, &bx) || cz_json_bytes(&jq, eq, y, 2, &by) || memcmp(x, y, 2);
        }
        CHECK_MSG(diff == 0, "large document: %d byte arrays differ packed / plain", diff);
        cz_json_free(&jp), cz_json_free(&jq);
    }
    free(b.s);
}

int main(void) {
    cz_test_rng(&rng);
    test_base64();
    test_packed();
    test_strings();
    return cz_test_finish();
}
