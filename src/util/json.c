/* Strict JSON tokenizer and base64; see json.h. */
#include "util/json.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"

typedef struct {
    cz_json *j;
    size_t pos;
    int depth;
} parser;

static int perr(parser *p, const char *what) {
    return cz_error(CZ_EFORMAT, "json: %s at byte %zu", what, p->pos);
}

static void skip_ws(parser *p) {
    const char *s = p->j->text;
    while (p->pos < p->j->text_len && (s[p->pos] == ' ' || s[p->pos] == '\t' || s[p->pos] == '\n' || s[p->pos] == '\r'))
        p->pos++;
}

static int64_t new_tok(parser *p, uint8_t type) {
    cz_json *j = p->j;
    if (j->ntok == j->cap) {
        uint32_t nc = j->cap ? j->cap * 2 : 256;
        if (nc < j->cap) return -1;
        cz_json_tok *t = realloc(j->tok, (size_t)nc * sizeof *t);
        if (!t) return -1;
        j->tok = t, j->cap = nc;
    }
    cz_json_tok *t = &j->tok[j->ntok];
    memset(t, 0, sizeof *t);
    t->type = type;
    t->start = (uint32_t)p->pos;
    return j->ntok++;
}

static int is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

/* Whether any byte of w (8 string bytes) is '"', '\\' or below 0x20 (a bit set, not always at that byte: a
 * hint to fall back to the byte loop). Mycroft's zero-byte test on w ^ '"' and w ^ '\\', and on w's bytes less
 * 0x20 (which borrows only from a byte below 0x20, or into one from a lower byte that did). */
static inline uint64_t special8(uint64_t w) {
    const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
    const uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
    return ((q - ones) & ~q & high) | ((b - ones) & ~b & high) | ((w - ones * 0x20) & ~w & high);
}

static int parse_string(parser *p) {
    const char *s = p->j->text;
    size_t n = p->j->text_len;
    p->pos++; /* opening quote */
    int64_t t = new_tok(p, CZ_JSON_STRING);
    if (t < 0) return cz_error(CZ_ENOMEM, "json: out of memory");
    while (p->pos < n && s[p->pos] != '"') {
        /* runs of plain characters 8 at a time (a Phase1Out is one 51 MB string): stop at the first word holding
         * a quote, a backslash or a control character, which the byte loop below then takes */
        while (p->pos + 8 <= n) {
            uint64_t w;
            memcpy(&w, s + p->pos, 8);
            if (special8(w)) break;
            p->pos += 8;
        }
        if (p->pos >= n || s[p->pos] == '"') break;
        unsigned char c = (unsigned char)s[p->pos];
        if (c < 0x20) return perr(p, "control character in string");
        if (c == '\\') {
            p->pos++;
            if (p->pos >= n) break;
            char e = s[p->pos];
            if (e == 'u') {
                if (p->pos + 4 >= n || !is_hex(s[p->pos + 1]) || !is_hex(s[p->pos + 2]) || !is_hex(s[p->pos + 3]) ||
                    !is_hex(s[p->pos + 4]))
                    return perr(p, "bad \\u escape");
                p->pos += 4;
            } else if (!strchr("\"\\/bfnrt", e) || !e) {
                return perr(p, "bad escape");
            }
        }
        p->pos++;
    }
    if (p->pos >= n) return perr(p, "unterminated string");
    p->j->tok[t].len = (uint32_t)(p->pos - p->j->tok[t].start);
    p->j->tok[t].next = p->j->ntok;
    p->pos++;
    return 0;
}

static int parse_number(parser *p) {
    const char *s = p->j->text;
    size_t n = p->j->text_len, st = p->pos;
    int64_t t = new_tok(p, CZ_JSON_NUMBER);
    if (t < 0) return cz_error(CZ_ENOMEM, "json: out of memory");
    if (p->pos < n && s[p->pos] == '-') p->pos++;
    if (p->pos >= n || s[p->pos] < '0' || s[p->pos] > '9') return perr(p, "bad number");
    if (s[p->pos] == '0') {
        p->pos++;
        if (p->pos < n && s[p->pos] >= '0' && s[p->pos] <= '9') return perr(p, "leading zero");
    } else {
        while (p->pos < n && s[p->pos] >= '0' && s[p->pos] <= '9') p->pos++;
    }
    if (p->pos < n && s[p->pos] == '.') {
        p->pos++;
        if (p->pos >= n || s[p->pos] < '0' || s[p->pos] > '9') return perr(p, "bad fraction");
        while (p->pos < n && s[p->pos] >= '0' && s[p->pos] <= '9') p->pos++;
    }
    if (p->pos < n && (s[p->pos] == 'e' || s[p->pos] == 'E')) {
        p->pos++;
        if (p->pos < n && (s[p->pos] == '+' || s[p->pos] == '-')) p->pos++;
        if (p->pos >= n || s[p->pos] < '0' || s[p->pos] > '9') return perr(p, "bad exponent");
        while (p->pos < n && s[p->pos] >= '0' && s[p->pos] <= '9') p->pos++;
    }
    p->j->tok[t].len = (uint32_t)(p->pos - st);
    p->j->tok[t].next = p->j->ntok;
    return 0;
}

static int parse_value(parser *p);

/* Packed mode: the elements of the array whose '[' was at p->pos - 1 (token t), read as bytes when every one is an
 * integer 0..255 in plain digits; 1 (packed, p->pos past the ']'), 0 (not such an array: p->pos and the bytes as
 * they were, for the general parse), or -1 (out of memory). */
static int parse_packed(parser *p, int64_t t) {
    cz_json *j = p->j;
    const char *s = j->text;
    const size_t n = j->text_len;
    /* in locals: a store to the bytes (uint8_t, which may alias anything) would otherwise reload them all */
    size_t pos = p->pos, nb = j->nbytes, cap = j->bcap;
    uint8_t *bytes = j->bytes;
    const size_t nb0 = nb;
    uint32_t count = 0;
#define WS(c) ((c) == ' ' || (c) == '\t' || (c) == '\n' || (c) == '\r')
#define DIGIT(c) ((unsigned)((c) - '0') <= 9u)
    for (;;) {
        while (pos < n && WS(s[pos])) pos++;
        if (pos >= n || !DIGIT(s[pos])) break;
        unsigned v = (unsigned)(s[pos++] - '0'), nd = 1;
        if (v == 0 && pos < n && DIGIT(s[pos])) break; /* a leading zero: the parse's error */
        while (pos < n && DIGIT(s[pos]) && nd < 4) v = v * 10 + (unsigned)(s[pos++] - '0'), nd++;
        if (v > 255 || (pos < n && (s[pos] == '.' || s[pos] == 'e' || s[pos] == 'E'))) break;
        if (nb == cap) {
            size_t nc = cap ? 2 * cap : 4096;
            uint8_t *b = realloc(bytes, nc);
            if (!b) {
                j->bytes = bytes, j->bcap = cap, j->nbytes = nb0;
                return -1;
            }
            bytes = b, cap = nc;
        }
        bytes[nb++] = (uint8_t)v;
        count++;
        while (pos < n && WS(s[pos])) pos++;
        if (pos < n && s[pos] == ',') {
            pos++;
            continue;
        }
        if (pos < n && s[pos] == ']' && count) {
            j->bytes = bytes, j->bcap = cap, j->nbytes = nb;
            p->pos = pos + 1;
            cz_json_tok *tk = &j->tok[t];
            tk->packed = 1;
            tk->start = (uint32_t)nb0;
            tk->count = count;
            tk->len = 0;
            tk->next = j->ntok;
            return 1;
        }
        break;
    }
#undef WS
#undef DIGIT
    j->bytes = bytes, j->bcap = cap, j->nbytes = nb0; /* p->pos as it was */
    return 0;
}

static int parse_container(parser *p, bool obj) {
    const char *s = p->j->text;
    size_t n = p->j->text_len;
    if (++p->depth > 64) return perr(p, "nesting too deep");
    int64_t t = new_tok(p, obj ? CZ_JSON_OBJECT : CZ_JSON_ARRAY);
    if (t < 0) return cz_error(CZ_ENOMEM, "json: out of memory");
    p->pos++;
    if (!obj && p->j->pack) {
        const int pk = parse_packed(p, t);
        if (pk < 0) return cz_error(CZ_ENOMEM, "json: out of memory");
        if (pk) {
            p->depth--;
            return 0;
        }
    }
    skip_ws(p);
    uint32_t count = 0;
    char close = obj ? '}' : ']';
    if (p->pos < n && s[p->pos] == close) {
        p->pos++;
    } else {
        for (;;) {
            int rc;
            skip_ws(p);
            if (obj) {
                if (p->pos >= n || s[p->pos] != '"') return perr(p, "expected a key");
                if ((rc = parse_string(p))) return rc;
                skip_ws(p);
                if (p->pos >= n || s[p->pos] != ':') return perr(p, "expected ':'");
                p->pos++;
                skip_ws(p);
            }
            if ((rc = parse_value(p))) return rc;
            count++;
            skip_ws(p);
            if (p->pos < n && s[p->pos] == ',') {
                p->pos++;
                continue;
            }
            if (p->pos < n && s[p->pos] == close) {
                p->pos++;
                break;
            }
            return perr(p, obj ? "expected ',' or '}'" : "expected ',' or ']'");
        }
    }
    cz_json_tok *tk = &p->j->tok[t];
    tk->count = count;
    tk->len = (uint32_t)(p->pos - tk->start);
    tk->next = p->j->ntok;
    p->depth--;
    return 0;
}

static int parse_lit(parser *p, const char *lit, uint8_t type) {
    size_t l = strlen(lit);
    if (p->j->text_len - p->pos < l || memcmp(p->j->text + p->pos, lit, l)) return perr(p, "bad literal");
    int64_t t = new_tok(p, type);
    if (t < 0) return cz_error(CZ_ENOMEM, "json: out of memory");
    p->pos += l;
    p->j->tok[t].len = (uint32_t)l;
    p->j->tok[t].next = p->j->ntok;
    return 0;
}

static int parse_value(parser *p) {
    skip_ws(p);
    if (p->pos >= p->j->text_len) return perr(p, "unexpected end");
    char c = p->j->text[p->pos];
    switch (c) {
    case '{': return parse_container(p, true);
    case '[': return parse_container(p, false);
    case '"': return parse_string(p);
    case 't': return parse_lit(p, "true", CZ_JSON_TRUE);
    case 'f': return parse_lit(p, "false", CZ_JSON_FALSE);
    case 'n': return parse_lit(p, "null", CZ_JSON_NULL);
    default:
        if (c == '-' || (c >= '0' && c <= '9')) return parse_number(p);
        return perr(p, "unexpected character");
    }
}

static int json_parse(cz_json *j, const char *text, size_t len, int pack) {
    memset(j, 0, sizeof *j);
    j->pack = pack;
    if (len >= UINT32_MAX) return cz_error(CZ_EFORMAT, "json: text of %zu bytes is too large", len);
    j->text = text, j->text_len = len;
    /* Room ahead for large texts, so that growth rarely copies (a 32 GiB C1's text is 38.6 MB): the packed bytes
     * take at least two characters each, a token at least one; malloc maps such blocks, whose untouched pages
     * cost nothing. */
    if (len >= (1u << 20)) {
        j->cap = (uint32_t)(len / 32);
        j->tok = malloc((size_t)j->cap * sizeof *j->tok);
        if (pack) j->bcap = len / 2, j->bytes = malloc(j->bcap);
        if (!j->tok || (pack && !j->bytes)) {
            cz_json_free(j);
            return cz_error(CZ_ENOMEM, "json: out of memory");
        }
    }
    parser p = {j, 0, 0};
    int rc = parse_value(&p);
    if (!rc) {
        skip_ws(&p);
        if (p.pos != len) rc = perr(&p, "trailing characters");
    }
    if (rc) cz_json_free(j);
    return rc;
}

int cz_json_parse(cz_json *j, const char *text, size_t len) { return json_parse(j, text, len, 0); }

int cz_json_parse_packed(cz_json *j, const char *text, size_t len) { return json_parse(j, text, len, 1); }

void cz_json_free(cz_json *j) {
    free(j->tok);
    free(j->bytes);
    j->tok = NULL;
    j->bytes = NULL;
    j->ntok = j->cap = 0;
    j->nbytes = j->bcap = 0;
}

int cz_json_bytes(const cz_json *j, int64_t t, uint8_t *out, uint32_t n, int *bad) {
    *bad = -1;
    if (t < 0 || j->tok[t].type != CZ_JSON_ARRAY || j->tok[t].count != n)
        return cz_error(CZ_EFORMAT, "json: expected an array of %u bytes", n);
    if (j->tok[t].packed) {
        memcpy(out, j->bytes + j->tok[t].start, n);
        return 0;
    }
    int64_t e = t + 1;
    for (uint32_t i = 0; i < n; i++, e = j->tok[e].next) {
        uint64_t v;
        if (j->tok[e].type != CZ_JSON_NUMBER || cz_json_u64(j, e, &v) || v > 255) {
            *bad = (int)i;
            return cz_error(CZ_EFORMAT, "json: element %u is not a byte", i);
        }
        out[i] = (uint8_t)v;
    }
    return 0;
}

int64_t cz_json_key_at(const cz_json *j, int64_t obj, uint32_t i) {
    if (obj < 0 || j->tok[obj].type != CZ_JSON_OBJECT || i >= j->tok[obj].count) return -1;
    int64_t t = obj + 1;
    for (uint32_t k = 0; k < i; k++) t = j->tok[t + 1].next;
    return t;
}

int64_t cz_json_get(const cz_json *j, int64_t obj, const char *key) {
    if (obj < 0 || j->tok[obj].type != CZ_JSON_OBJECT) return -1;
    int64_t t = obj + 1;
    for (uint32_t k = 0; k < j->tok[obj].count; k++) {
        if (cz_json_streq(j, t, key)) return t + 1;
        t = j->tok[t + 1].next;
    }
    return -1;
}

int64_t cz_json_at(const cz_json *j, int64_t arr, uint32_t i) {
    if (arr < 0 || j->tok[arr].type != CZ_JSON_ARRAY || j->tok[arr].packed || i >= j->tok[arr].count) return -1;
    int64_t t = arr + 1;
    for (uint32_t k = 0; k < i; k++) t = j->tok[t].next;
    return t;
}

int cz_json_u64(const cz_json *j, int64_t t, uint64_t *out) {
    if (t < 0 || j->tok[t].type != CZ_JSON_NUMBER) return cz_error(CZ_EFORMAT, "json: expected an unsigned integer");
    const char *s = j->text + j->tok[t].start;
    uint64_t v = 0;
    for (uint32_t i = 0; i < j->tok[t].len; i++) {
        if (s[i] < '0' || s[i] > '9') return cz_error(CZ_EFORMAT, "json: expected an unsigned integer");
        uint64_t d = (uint64_t)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10) return cz_error(CZ_EFORMAT, "json: integer out of range");
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

int cz_json_streq(const cz_json *j, int64_t t, const char *s) {
    if (t < 0 || j->tok[t].type != CZ_JSON_STRING) return 0;
    size_t l = strlen(s);
    return j->tok[t].len == l && !memcmp(j->text + j->tok[t].start, s, l);
}

static unsigned hexv(char c) { return c <= '9' ? (unsigned)(c - '0') : (unsigned)((c | 0x20) - 'a' + 10); }

int cz_json_string(const cz_json *j, int64_t t, char **out, size_t *len) {
    if (t < 0 || j->tok[t].type != CZ_JSON_STRING) return cz_error(CZ_EFORMAT, "json: expected a string");
    const char *s = j->text + j->tok[t].start;
    uint32_t n = j->tok[t].len;
    char *o = malloc((size_t)n + 1);
    if (!o) return cz_error(CZ_ENOMEM, "json: out of memory");
    size_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (s[i] != '\\') {
            o[k++] = s[i];
            continue;
        }
        char e = s[++i];
        switch (e) {
        case 'b': o[k++] = '\b'; break;
        case 'f': o[k++] = '\f'; break;
        case 'n': o[k++] = '\n'; break;
        case 'r': o[k++] = '\r'; break;
        case 't': o[k++] = '\t'; break;
        case 'u': {
            unsigned cp = hexv(s[i + 1]) << 12 | hexv(s[i + 2]) << 8 | hexv(s[i + 3]) << 4 | hexv(s[i + 4]);
            i += 4;
            if (cp >= 0xd800 && cp < 0xe000) { /* surrogates: only accepted as a valid pair */
                if (cp >= 0xdc00 || i + 6 >= n || s[i + 1] != '\\' || s[i + 2] != 'u') goto bad;
                unsigned lo = hexv(s[i + 3]) << 12 | hexv(s[i + 4]) << 8 | hexv(s[i + 5]) << 4 | hexv(s[i + 6]);
                if (lo < 0xdc00 || lo >= 0xe000) goto bad;
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                i += 6;
            }
            if (cp < 0x80) o[k++] = (char)cp;
            else if (cp < 0x800) o[k++] = (char)(0xc0 | cp >> 6), o[k++] = (char)(0x80 | (cp & 0x3f));
            else if (cp < 0x10000)
                o[k++] = (char)(0xe0 | cp >> 12), o[k++] = (char)(0x80 | ((cp >> 6) & 0x3f)), o[k++] = (char)(0x80 | (cp & 0x3f));
            else
                o[k++] = (char)(0xf0 | cp >> 18), o[k++] = (char)(0x80 | ((cp >> 12) & 0x3f)),
                o[k++] = (char)(0x80 | ((cp >> 6) & 0x3f)), o[k++] = (char)(0x80 | (cp & 0x3f));
            break;
        }
        default: o[k++] = e; /* " \ / */
        }
    }
    o[k] = 0;
    *out = o;
    if (len) *len = k;
    return 0;
bad:
    free(o);
    return cz_error(CZ_EFORMAT, "json: unpaired surrogate in string");
}

/* b64v of every byte */
static const int8_t b64tab[256] = {
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 62, -1, -1, -1, 63,
    52, 53, 54, 55, 56, 57, 58, 59, 60, 61, -1, -1, -1, -1, -1, -1,
    -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
    15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, -1, -1, -1, -1, -1,
    -1, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40,
    41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
};

static int b64v(unsigned char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

int cz_base64_decode(const char *in, size_t len, uint8_t **out, size_t *out_len) {
    if (len % 4) return cz_error(CZ_EFORMAT, "base64: length %zu is not a multiple of 4", len);
    size_t pad = 0;
    if (len && in[len - 1] == '=') pad++;
    if (len > 1 && in[len - 2] == '=') pad++;
    size_t n = len / 4 * 3 - pad;
    uint8_t *o = out ? malloc(n ? n : 1) : NULL; /* out NULL: check only */
    if (out && !o) return cz_error(CZ_ENOMEM, "base64: out of memory");
    size_t k = 0, i0 = 0;
    /* the quads before the last by b64tab (a Phase1Out is ~51 MB of base64): a bad character anywhere in a quad
     * leaves it to the loop below, which names it */
    for (; i0 + 4 < len; i0 += 4, k += 3) {
        const int a = b64tab[(unsigned char)in[i0]], b = b64tab[(unsigned char)in[i0 + 1]],
                  c = b64tab[(unsigned char)in[i0 + 2]], d = b64tab[(unsigned char)in[i0 + 3]];
        if ((a | b | c | d) < 0) break;
        const uint32_t w = (uint32_t)a << 18 | (uint32_t)b << 12 | (uint32_t)c << 6 | (uint32_t)d;
        if (o) o[k] = (uint8_t)(w >> 16), o[k + 1] = (uint8_t)(w >> 8), o[k + 2] = (uint8_t)w;
    }
    for (size_t i = i0; i < len; i += 4) {
        int v[4];
        for (int q = 0; q < 4; q++) {
            bool padpos = i + q >= len - pad;
            v[q] = padpos ? 0 : b64v((unsigned char)in[i + q]);
            if (v[q] < 0 || (padpos && in[i + q] != '=')) {
                free(o);
                return cz_error(CZ_EFORMAT, "base64: bad character at %zu", i + q);
            }
        }
        uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
        uint8_t b[3] = {(uint8_t)(w >> 16), (uint8_t)(w >> 8), (uint8_t)w};
        for (int q = 0; q < 3 && k < n && o; q++) o[k++] = b[q];
        /* non-canonical trailing bits are rejected */
        if (i + 4 == len && pad && (w & (pad == 1 ? 0xffu : 0xffffu))) {
            free(o);
            return cz_error(CZ_EFORMAT, "base64: non-zero padding bits");
        }
    }
    if (out) *out = o;
    *out_len = n;
    return 0;
}

size_t cz_base64_encoded_len(size_t n) { return 4 * ((n + 2) / 3); }

void cz_base64_encode(char *out, const uint8_t *in, size_t n) {
    static const char sym[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) | (i + 2 < n ? in[i + 2] : 0);
        *out++ = sym[v >> 18], *out++ = sym[(v >> 12) & 63];
        *out++ = i + 1 < n ? sym[(v >> 6) & 63] : '=';
        *out++ = i + 2 < n ? sym[v & 63] : '=';
    }
    *out = 0;
}
