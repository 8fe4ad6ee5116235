/* A small strict JSON reader for the core library (which must build with only a C compiler):
 * parses RFC 8259 text into a flat token array (no per-value allocation), with lookups by key and
 * index. Numbers are kept as text and read as unsigned integers on request (the Filecoin formats
 * only use non-negative integers). Rejects trailing garbage, bad escapes, control characters in
 * strings, leading zeros, deep nesting (> 64) and invalid UTF-8 is passed through unchecked. */
#ifndef CZ_UTIL_JSON_H
#define CZ_UTIL_JSON_H

#include <stddef.h>
#include <stdint.h>

enum { CZ_JSON_NULL, CZ_JSON_FALSE, CZ_JSON_TRUE, CZ_JSON_NUMBER, CZ_JSON_STRING, CZ_JSON_ARRAY, CZ_JSON_OBJECT };

typedef struct {
    uint8_t type;
    uint8_t packed;      /* cz_json_parse_packed: an array of bytes without element tokens (start: its bytes) */
    uint32_t start, len; /* text span: strings without the quotes, containers/numbers whole */
    uint32_t count;      /* children: array elements, object members (a member = key token + value) */
    uint32_t next;       /* index of the token after this value's subtree */
} cz_json_tok;

typedef struct {
    const char *text;
    size_t text_len;
    cz_json_tok *tok;
    uint32_t ntok, cap;
    uint8_t *bytes; /* cz_json_parse_packed: the packed arrays' elements, nbytes in all */
    size_t nbytes, bcap;
    int pack;
} cz_json;

/* Parses text (not NUL-terminated necessarily; the caller keeps it alive). Token 0 is the root.
 * 0, CZ_EFORMAT (with the byte offset in the message) or CZ_ENOMEM. */
int cz_json_parse(cz_json *j, const char *text, size_t len);
/* The same, except that a non-empty array whose elements are all integers 0..255 written as plain digits (serde's
 * Vec<u8> / [u8; 32], most of a C1) is one token with no element tokens: packed = 1, count its elements, which are
 * the bytes at j->bytes + start (its text span is then not kept). cz_json_at finds no element of such an array;
 * cz_json_bytes reads it, packed or not. A 32 GiB C1's 10.4 M numbers take 10 MB instead of ~220 MB of tokens.
 * Any other array, and every error, is as cz_json_parse's. */
int cz_json_parse_packed(cz_json *j, const char *text, size_t len);
void cz_json_free(cz_json *j);

/* Member value of object token obj with key (raw, unescaped keys only); -1 if absent or obj is not
 * an object. */
int64_t cz_json_get(const cz_json *j, int64_t obj, const char *key);
/* Element i of array token arr; -1 if out of range or not an array. */
int64_t cz_json_at(const cz_json *j, int64_t arr, uint32_t i);
/* The i-th member's key token of an object (value is key + 1); -1 if out of range. */
int64_t cz_json_key_at(const cz_json *j, int64_t obj, uint32_t i);
static inline int cz_json_type(const cz_json *j, int64_t t) { return t < 0 ? -1 : j->tok[t].type; }
static inline uint32_t cz_json_count(const cz_json *j, int64_t t) { return t < 0 ? 0 : j->tok[t].count; }
/* An unsigned integer token (no sign, fraction or exponent) below 2^64: 0 or CZ_EFORMAT. */
int cz_json_u64(const cz_json *j, int64_t t, uint64_t *out);
/* Array token t of exactly n integers 0..255 (packed or not) into out: 0, or CZ_EFORMAT when it is not one
 * (*bad: the first element that is not a byte, or -1 when t is no array of n elements). */
int cz_json_bytes(const cz_json *j, int64_t t, uint8_t *out, uint32_t n, int *bad);
/* A string token compared with s (raw bytes). */
int cz_json_streq(const cz_json *j, int64_t t, const char *s);
/* Decodes a string token (escapes resolved, \u to UTF-8) into a new NUL-terminated buffer (free()).
 * 0, CZ_EFORMAT or CZ_ENOMEM. */
int cz_json_string(const cz_json *j, int64_t t, char **out, size_t *len);

/* Standard base64 (RFC 4648, padding required when the length is not a multiple of 4; whitespace
 * rejected). *out is malloc'ed; out NULL only checks (*out_len still gets the decoded length). 0,
 * CZ_EFORMAT or CZ_ENOMEM. */
int cz_base64_decode(const char *in, size_t len, uint8_t **out, size_t *out_len);
/* Standard base64 with padding: writes cz_base64_encoded_len(n) characters and a NUL to out. */
size_t cz_base64_encoded_len(size_t n);
void cz_base64_encode(char *out, const uint8_t *in, size_t n);

#endif
