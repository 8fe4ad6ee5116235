/* Strict TOML subset parser (see toml.h). Single pass over the text; positions are tracked so that
 * every error names its line. */
#include "engine/toml.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"

typedef struct {
    const char *p, *name;
    int line;
} cur;

static int perr(cur *c, const char *msg) { return cz_error(CZ_EFORMAT, "%s:%d: %s", c->name, c->line, msg); }

static void skip_ws(cur *c) {
    while (*c->p == ' ' || *c->p == '\t') c->p++;
}

/* Skips whitespace, comments and newlines (inside arrays). */
static void skip_ws_nl(cur *c) {
    for (;;) {
        skip_ws(c);
        if (*c->p == '#') {
            while (*c->p && *c->p != '\n') c->p++;
        } else if (*c->p == '\r' && c->p[1] == '\n') {
            c->p++;
        } else if (*c->p == '\n') {
            c->p++, c->line++;
        } else {
            return;
        }
    }
}

/* After a value or header: only whitespace, a comment, then end of line. */
static int end_of_line(cur *c) {
    skip_ws(c);
    if (*c->p == '#')
        while (*c->p && *c->p != '\n') c->p++;
    if (*c->p == '\r') c->p++;
    if (*c->p == '\n') {
        c->p++, c->line++;
        return 0;
    }
    if (!*c->p) return 0;
    return perr(c, "unexpected text after the value");
}

static int is_bare(char ch) { return isalnum((unsigned char)ch) || ch == '_' || ch == '-'; }

static void put_utf8(char **o, unsigned cp) {
    unsigned char *u = (unsigned char *)*o;
    if (cp < 0x80) {
        *u++ = cp;
    } else if (cp < 0x800) {
        *u++ = 0xc0 | (cp >> 6), *u++ = 0x80 | (cp & 63);
    } else if (cp < 0x10000) {
        *u++ = 0xe0 | (cp >> 12), *u++ = 0x80 | ((cp >> 6) & 63), *u++ = 0x80 | (cp & 63);
    } else {
        *u++ = 0xf0 | (cp >> 18), *u++ = 0x80 | ((cp >> 12) & 63), *u++ = 0x80 | ((cp >> 6) & 63),
        *u++ = 0x80 | (cp & 63);
    }
    *o = (char *)u;
}

/* A one-line basic ("...") or literal ('...') string; multi-line strings are outside the subset. */
static int parse_string(cur *c, char **out) {
    char q = *c->p++;
    if (c->p[0] == q && c->p[1] == q) return perr(c, "multi-line strings are not supported");
    const char *s = c->p;
    size_t cap = 0;
    while (s[cap] && s[cap] != '\n') cap++;
    char *buf = malloc(cap + 1), *o = buf;
    if (!buf) return cz_error(CZ_ENOMEM, "out of memory");
    for (;;) {
        char ch = *c->p;
        if (!ch || ch == '\n') {
            free(buf);
            return perr(c, "unterminated string");
        }
        c->p++;
        if (ch == q) break;
        if (q == '"' && ch == '\\') {
            char e = *c->p++;
            switch (e) {
            case 'n': *o++ = '\n'; break;
            case 't': *o++ = '\t'; break;
            case 'r': *o++ = '\r'; break;
            case 'b': *o++ = '\b'; break;
            case 'f': *o++ = '\f'; break;
            case '"': *o++ = '"'; break;
            case '\\': *o++ = '\\'; break;
            case 'u':
            case 'U': {
                int nd = e == 'u' ? 4 : 8;
                unsigned cp = 0;
                for (int i = 0; i < nd; i++) {
                    char h = *c->p++;
                    if (!isxdigit((unsigned char)h)) {
                        free(buf);
                        return perr(c, "bad \\u escape");
                    }
                    cp = cp * 16 + (unsigned)(isdigit((unsigned char)h) ? h - '0' : (tolower(h) - 'a' + 10));
                }
                if (cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000)) {
                    free(buf);
                    return perr(c, "bad unicode scalar in escape");
                }
                put_utf8(&o, cp);
                break;
            }
            default:
                free(buf);
                return perr(c, "unknown escape in string");
            }
        } else if ((unsigned char)ch < 0x20 && ch != '\t') {
            free(buf);
            return perr(c, "control character in string");
        } else {
            *o++ = ch;
        }
    }
    *o = 0;
    *out = buf;
    return 0;
}

static int parse_key(cur *c, char **out) {
    if (*c->p == '"' || *c->p == '\'') return parse_string(c, out);
    const char *s = c->p;
    while (is_bare(*c->p)) c->p++;
    if (c->p == s) return perr(c, "expected a key");
    *out = strndup(s, (size_t)(c->p - s));
    return *out ? 0 : cz_error(CZ_ENOMEM, "out of memory");
}

static void value_free(cz_toml_value *v) {
    if (v->type == CZ_TOML_STRING) free(v->s);
    if (v->type == CZ_TOML_ARRAY) {
        for (size_t i = 0; i < v->n; i++) value_free(&v->items[i]);
        free(v->items);
    }
    memset(v, 0, sizeof *v);
}

static int parse_number(cur *c, cz_toml_value *v) {
    char buf[128];
    size_t n = 0;
    const char *s = c->p;
    while (*s && (isalnum((unsigned char)*s) || *s == '_' || *s == '+' || *s == '-' || *s == '.')) {
        if (n + 1 >= sizeof buf) return perr(c, "number too long");
        if (*s == '_') {
            /* TOML: an underscore must sit between two digits. */
            if (!n || !isxdigit((unsigned char)buf[n - 1]) || !isxdigit((unsigned char)s[1]))
                return perr(c, "misplaced '_' in number");
        } else {
            buf[n++] = *s;
        }
        s++;
    }
    buf[n] = 0;
    if (!n) return perr(c, "expected a value");
    if (!strcmp(buf, "inf") || !strcmp(buf, "+inf") || !strcmp(buf, "-inf") || !strcmp(buf, "nan") ||
        !strcmp(buf, "+nan") || !strcmp(buf, "-nan")) {
        v->type = CZ_TOML_FLOAT;
        v->f = strtod(buf, NULL);
        c->p = s;
        return 0;
    }
    char *end;
    errno = 0;
    const char *digits = buf + (buf[0] == '+' || buf[0] == '-');
    int base = 10;
    if (digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'o' || digits[1] == 'b')) {
        if (digits != buf) return perr(c, "a sign is not allowed on hex/octal/binary integers");
        base = digits[1] == 'x' ? 16 : digits[1] == 'o' ? 8 : 2;
        digits += 2;
        long long x = strtoll(digits, &end, base);
        if (!*digits || *end || errno) return perr(c, "bad integer");
        v->type = CZ_TOML_INT, v->i = x;
    } else if (strpbrk(buf, ".eE")) {
        /* TOML float: digits ['.' digits] [e [sign] digits], a digit on each side of the '.' */
        const char *q = digits;
        int ok = isdigit((unsigned char)*q);
        while (isdigit((unsigned char)*q)) q++;
        if (*q == '.') {
            q++;
            ok &= isdigit((unsigned char)*q);
            while (isdigit((unsigned char)*q)) q++;
        }
        if (*q == 'e' || *q == 'E') {
            q++;
            if (*q == '+' || *q == '-') q++;
            ok &= isdigit((unsigned char)*q);
            while (isdigit((unsigned char)*q)) q++;
        }
        if (!ok || *q) return perr(c, "bad float");
        double x = strtod(buf, &end);
        if (*end) return perr(c, "bad float");
        v->type = CZ_TOML_FLOAT, v->f = x;
    } else {
        if (!isdigit((unsigned char)digits[0])) return perr(c, "expected a value (strings need quotes)");
        if (digits[0] == '0' && digits[1]) return perr(c, "leading zeros are not allowed");
        long long x = strtoll(buf, &end, 10);
        if (*end) return perr(c, "bad integer");
        if (errno) return perr(c, "integer out of range");
        v->type = CZ_TOML_INT, v->i = x;
    }
    c->p = s;
    return 0;
}

static int parse_value(cur *c, cz_toml_value *v, int depth) {
    memset(v, 0, sizeof *v);
    char ch = *c->p;
    if (ch == '"' || ch == '\'') {
        v->type = CZ_TOML_STRING;
        return parse_string(c, &v->s);
    }
    if (!strncmp(c->p, "true", 4) && !is_bare(c->p[4])) {
        v->type = CZ_TOML_BOOL, v->i = 1, c->p += 4;
        return 0;
    }
    if (!strncmp(c->p, "false", 5) && !is_bare(c->p[5])) {
        v->type = CZ_TOML_BOOL, v->i = 0, c->p += 5;
        return 0;
    }
    if (ch == '{') return perr(c, "inline tables are not supported");
    if (ch == '[') {
        if (depth > 8) return perr(c, "arrays nested too deeply");
        c->p++;
        v->type = CZ_TOML_ARRAY;
        size_t cap = 0;
        for (;;) {
            skip_ws_nl(c);
            if (*c->p == ']') {
                c->p++;
                return 0;
            }
            if (v->n == cap) {
                cap = cap ? 2 * cap : 4;
                cz_toml_value *ni = realloc(v->items, cap * sizeof *ni);
                if (!ni) return cz_error(CZ_ENOMEM, "out of memory");
                v->items = ni;
            }
            /* counted even when it fails half-way (a nested array's items so far): the caller's value_free then
             * frees them too */
            const int rc = parse_value(c, &v->items[v->n++], depth + 1);
            if (rc) return rc;
            skip_ws_nl(c);
            if (*c->p == ',') {
                c->p++;
            } else if (*c->p != ']') {
                return perr(c, "expected ',' or ']' in array");
            }
        }
    }
    return parse_number(c, v);
}

static int add_entry(cz_toml_doc *d, cz_toml_entry *e) {
    if (d->n == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 16;
        cz_toml_entry *ne = realloc(d->e, cap * sizeof *ne);
        if (!ne) return cz_error(CZ_ENOMEM, "out of memory");
        d->e = ne, d->cap = cap;
    }
    d->e[d->n++] = *e;
    return 0;
}

int cz_toml_parse(cz_toml_doc *doc, const char *text, const char *name) {
    memset(doc, 0, sizeof *doc);
    cur c = {text, name ? name : "<toml>", 1};
    char *table = strdup("");
    /* Tables already opened, to reject a duplicate [header]. */
    char **tables = NULL;
    size_t ntables = 0;
    int rc = 0;
    if (!table) return cz_error(CZ_ENOMEM, "out of memory");
    for (;;) {
        skip_ws_nl(&c);
        if (!*c.p) break;
        if (*c.p == '[') {
            c.p++;
            if (*c.p == '[') {
                rc = perr(&c, "arrays of tables are not supported");
                break;
            }
            /* Dotted header: a.b.c, joined with '.'. */
            char hdr[512] = "";
            for (;;) {
                skip_ws(&c);
                char *part;
                if ((rc = parse_key(&c, &part))) break;
                if (strlen(hdr) + strlen(part) + 2 > sizeof hdr) {
                    free(part);
                    rc = perr(&c, "table name too long");
                    break;
                }
                if (*hdr) strcat(hdr, ".");
                strcat(hdr, part);
                free(part);
                skip_ws(&c);
                if (*c.p == '.') {
                    c.p++;
                    continue;
                }
                if (*c.p != ']') {
                    rc = perr(&c, "expected ']' after the table name");
                    break;
                }
                c.p++;
                break;
            }
            if (rc) break;
            for (size_t i = 0; i < ntables; i++)
                if (!strcmp(tables[i], hdr)) rc = perr(&c, "table defined twice");
            if (rc) break;
            char **nt = realloc(tables, (ntables + 1) * sizeof *nt);
            if (!nt) {
                rc = cz_error(CZ_ENOMEM, "out of memory");
                break;
            }
            tables = nt;
            tables[ntables++] = strdup(hdr);
            free(table);
            table = strdup(hdr);
            if ((rc = end_of_line(&c))) break;
            continue;
        }
        cz_toml_entry e = {0};
        e.line = c.line;
        if ((rc = parse_key(&c, &e.key))) break;
        skip_ws(&c);
        if (*c.p == '.') {
            free(e.key);
            rc = perr(&c, "dotted keys are not supported");
            break;
        }
        if (*c.p != '=') {
            free(e.key);
            rc = perr(&c, "expected '=' after the key");
            break;
        }
        c.p++;
        skip_ws(&c);
        if ((rc = parse_value(&c, &e.v, 0)) || (rc = end_of_line(&c))) {
            free(e.key);
            value_free(&e.v);
            break;
        }
        for (size_t i = 0; i < doc->n; i++)
            if (!strcmp(doc->e[i].table, table) && !strcmp(doc->e[i].key, e.key))
                rc = cz_error(CZ_EFORMAT, "%s:%d: key '%s' defined twice", c.name, e.line, e.key);
        e.table = strdup(table);
        if (rc || (rc = add_entry(doc, &e))) {
            free(e.key), free(e.table);
            value_free(&e.v);
            break;
        }
    }
    free(table);
    for (size_t i = 0; i < ntables; i++) free(tables[i]);
    free(tables);
    if (rc) cz_toml_free(doc);
    return rc;
}

void cz_toml_free(cz_toml_doc *doc) {
    for (size_t i = 0; i < doc->n; i++) {
        free(doc->e[i].table);
        free(doc->e[i].key);
        value_free(&doc->e[i].v);
    }
    free(doc->e);
    memset(doc, 0, sizeof *doc);
}

const char *cz_toml_type_name(cz_toml_type t) {
    switch (t) {
    case CZ_TOML_STRING: return "string";
    case CZ_TOML_INT: return "integer";
    case CZ_TOML_FLOAT: return "float";
    case CZ_TOML_BOOL: return "boolean";
    case CZ_TOML_ARRAY: return "array";
    }
    return "?";
}
