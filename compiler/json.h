/*
 * json.h: a small JSON reader and writer (json.c) for the language server.
 *
 * Reading builds a tree in one pool of memory (json_free on the root frees
 * it all at once; never on an inner value);
 * numbers are doubles, strings are decoded UTF-8 (\u escapes and surrogate
 * pairs included). Writing appends to a struct buf: json_put_str quotes and
 * escapes, json_write prints a tree back (a request's id echoed as it came).
 * Depth is limited (JSON_MAX_DEPTH) so hostile input cannot blow the stack.
 */
#ifndef BRINE_JSON_H
#define BRINE_JSON_H
#include "brine.h"

#define JSON_MAX_DEPTH 200

enum json_kind { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct json {
    enum json_kind kind;
    bool b;
    double num;
    char *str;            /* J_STR: NUL-terminated (may hold NULs: see len) */
    size_t len;
    struct json **items;  /* J_ARR and J_OBJ: the values */
    char **keys;          /* J_OBJ: the keys */
    int n, cap;
    void *pool;           /* the root: the memory of the whole tree */
};

/* NULL when text is not one JSON value (trailing whitespace allowed). */
struct json *json_parse(const char *text, size_t len);
void json_free(struct json *root);
/* The member key of an object (NULL when j is not an object or has none);
 * json_at: item i of an array, else NULL. */
struct json *json_get(const struct json *j, const char *key);
struct json *json_at(const struct json *j, int i);
/* Typed reads with a default when absent or of another kind. */
const char *json_str(const struct json *j, const char *dflt);
double json_num(const struct json *j, double dflt);
int json_int(const struct json *j, int dflt);
bool json_bool(const struct json *j, bool dflt);
/* Shorthands for json_get then the typed read. */
const char *json_get_str(const struct json *j, const char *key, const char *dflt);
int json_get_int(const struct json *j, const char *key, int dflt);

void json_put_str(struct buf *b, const char *s);
void json_put_strn(struct buf *b, const char *s, size_t n);
void json_write(struct buf *b, const struct json *j);

#endif
