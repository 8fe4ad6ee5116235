/* A strict subset of TOML, enough for cuzk.toml: [table] and [a.b] headers, bare or quoted keys,
 * basic/literal strings, integers (sign, '_', 0x/0o/0b), floats, booleans and (possibly multi-line)
 * arrays of those. Anything outside the subset is an error naming the line, never a silent guess. */
#ifndef CZ_ENGINE_TOML_H
#define CZ_ENGINE_TOML_H

#include <stddef.h>
#include <stdint.h>

typedef enum { CZ_TOML_STRING, CZ_TOML_INT, CZ_TOML_FLOAT, CZ_TOML_BOOL, CZ_TOML_ARRAY } cz_toml_type;

typedef struct cz_toml_value {
    cz_toml_type type;
    char *s;                     /* STRING */
    int64_t i;                   /* INT, BOOL (0/1) */
    double f;                    /* FLOAT */
    struct cz_toml_value *items; /* ARRAY */
    size_t n;
} cz_toml_value;

typedef struct {
    char *table; /* "" for the root table */
    char *key;
    int line;    /* 1-based line of the key */
    cz_toml_value v;
} cz_toml_entry;

typedef struct {
    cz_toml_entry *e;
    size_t n, cap;
} cz_toml_doc;

/* Parses text (NUL-terminated). CZ_EFORMAT with "<name>:<line>: ..." on the first error. */
int cz_toml_parse(cz_toml_doc *doc, const char *text, const char *name);
void cz_toml_free(cz_toml_doc *doc);
const char *cz_toml_type_name(cz_toml_type t);

#endif
