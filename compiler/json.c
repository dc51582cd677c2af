/*
 * json.c: the JSON reader and writer of json.h: a recursive descent parser
 * over a byte range (never past len), and an escaping writer that keeps
 * valid UTF-8 as it is and writes control characters as \u00XX.
 */
#include "json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct jp {
    const char *p, *end;
    int depth;
};

/* The tree of one json_parse in chunks of a pool: one free for all of it. */
struct pool {
    struct pool *next;
    size_t used, cap;
    _Alignas(16) char data[];
};
static struct pool *pool_now; /* the tree being parsed */

static void *palloc(size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if (!pool_now || pool_now->used + n > pool_now->cap) {
        size_t cap = n > (1u << 20) ? n : (1u << 20);
        struct pool *p = xmalloc(sizeof *p + cap);
        p->next = pool_now, p->used = 0, p->cap = cap;
        pool_now = p;
    }
    void *r = pool_now->data + pool_now->used;
    pool_now->used += n;
    return r;
}

static char *pstrndup(const char *s, size_t n)
{
    char *r = palloc(n + 1);
    memcpy(r, s, n);
    r[n] = 0;
    return r;
}

static void ws(struct jp *s)
{
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
        s->p++;
}

static struct json *jnew(enum json_kind k)
{
    struct json *j = palloc(sizeof *j);
    memset(j, 0, sizeof *j);
    j->kind = k;
    return j;
}

static void jadd(struct json *j, char *key, struct json *v)
{
    if (j->n == j->cap) {
        int cap = j->cap ? j->cap * 2 : 8;
        struct json **items = palloc(sizeof *items * (size_t)cap);
        if (j->n)
            memcpy(items, j->items, sizeof *items * (size_t)j->n);
        j->items = items;
        if (j->kind == J_OBJ) {
            char **keys = palloc(sizeof *keys * (size_t)cap);
            if (j->n)
                memcpy(keys, j->keys, sizeof *keys * (size_t)j->n);
            j->keys = keys;
        }
        j->cap = cap;
    }
    if (j->kind == J_OBJ)
        j->keys[j->n] = key;
    j->items[j->n++] = v;
}

static int hex4(const char *p, const char *end)
{
    if (end - p < 4)
        return -1;
    int v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= c - '0';
        else if (c >= 'a' && c <= 'f') v |= c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') v |= c - 'A' + 10;
        else return -1;
    }
    return v;
}

static void put_utf8(struct buf *b, unsigned cp)
{
    char u[4];
    int n;
    if (cp < 0x80) u[0] = (char)cp, n = 1;
    else if (cp < 0x800) u[0] = (char)(0xc0 | cp >> 6), u[1] = (char)(0x80 | (cp & 0x3f)), n = 2;
    else if (cp < 0x10000)
        u[0] = (char)(0xe0 | cp >> 12), u[1] = (char)(0x80 | ((cp >> 6) & 0x3f)), u[2] = (char)(0x80 | (cp & 0x3f)), n = 3;
    else
        u[0] = (char)(0xf0 | cp >> 18), u[1] = (char)(0x80 | ((cp >> 12) & 0x3f)),
        u[2] = (char)(0x80 | ((cp >> 6) & 0x3f)), u[3] = (char)(0x80 | (cp & 0x3f)), n = 4;
    bputn(b, u, (size_t)n);
}

/* A string after its opening quote; false on a bad one. */
static bool jstring(struct jp *s, struct buf *out)
{
    bputs(out, "");
    while (s->p < s->end) {
        /* a run of plain bytes at once */
        const char *run = s->p;
        while (s->p < s->end && *s->p != '"' && *s->p != '\\' && (unsigned char)*s->p >= 0x20)
            s->p++;
        if (s->p > run)
            bputn(out, run, (size_t)(s->p - run));
        if (s->p >= s->end)
            return false;
        char c = *s->p++;
        if (c == '"')
            return true;
        if ((unsigned char)c < 0x20)
            return false;
        if (c != '\\') {
            bputn(out, &c, 1);
            continue;
        }
        if (s->p >= s->end)
            return false;
        c = *s->p++;
        switch (c) {
        case '"': case '\\': case '/': bputn(out, &c, 1); break;
        case 'b': bputs(out, "\b"); break;
        case 'f': bputs(out, "\f"); break;
        case 'n': bputs(out, "\n"); break;
        case 'r': bputs(out, "\r"); break;
        case 't': bputs(out, "\t"); break;
        case 'u': {
            int v = hex4(s->p, s->end);
            if (v < 0)
                return false;
            s->p += 4;
            unsigned cp = (unsigned)v;
            if (cp >= 0xd800 && cp < 0xdc00 && s->end - s->p >= 6 && s->p[0] == '\\' && s->p[1] == 'u') {
                int lo = hex4(s->p + 2, s->end);
                if (lo >= 0xdc00 && lo < 0xe000) {
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (unsigned)(lo - 0xdc00);
                    s->p += 6;
                }
            }
            if (cp >= 0xd800 && cp < 0xe000)
                cp = 0xfffd; /* a lone surrogate */
            if (cp == 0)
                bputn(out, "", 1);
            else
                put_utf8(out, cp);
            break;
        }
        default:
            return false;
        }
    }
    return false;
}

static struct json *jvalue(struct jp *s);

static struct json *jfail(struct json *j)
{
    (void)j; /* the pool goes as a whole */
    return NULL;
}

static struct json *jvalue(struct jp *s)
{
    ws(s);
    if (s->p >= s->end || ++s->depth > JSON_MAX_DEPTH)
        return NULL;
    struct json *j = NULL;
    char c = *s->p;
    if (c == '{' || c == '[') {
        bool obj = c == '{';
        j = jnew(obj ? J_OBJ : J_ARR);
        s->p++;
        ws(s);
        if (s->p < s->end && *s->p == (obj ? '}' : ']')) {
            s->p++;
            s->depth--;
            return j;
        }
        for (;;) {
            char *key = NULL;
            if (obj) {
                ws(s);
                static struct buf k;
                k.len = 0;
                if (s->p >= s->end || *s->p != '"')
                    return jfail(j);
                s->p++;
                if (!jstring(s, &k))
                    return jfail(j);
                key = pstrndup(k.p, k.len);
                ws(s);
                if (s->p >= s->end || *s->p != ':')
                    return jfail(j);
                s->p++;
            }
            struct json *v = jvalue(s);
            if (!v)
                return jfail(j);
            jadd(j, key, v);
            ws(s);
            if (s->p < s->end && *s->p == ',') {
                s->p++;
                continue;
            }
            if (s->p < s->end && *s->p == (obj ? '}' : ']')) {
                s->p++;
                break;
            }
            return jfail(j);
        }
    } else if (c == '"') {
        s->p++;
        static struct buf b; /* scratch: the decoded text, then copied into the pool */
        b.len = 0;
        if (!jstring(s, &b))
            return NULL;
        j = jnew(J_STR);
        j->str = pstrndup(b.p, b.len);
        j->len = b.len;
    } else if (c == 't' && s->end - s->p >= 4 && memcmp(s->p, "true", 4) == 0) {
        j = jnew(J_BOOL), j->b = true, s->p += 4;
    } else if (c == 'f' && s->end - s->p >= 5 && memcmp(s->p, "false", 5) == 0) {
        j = jnew(J_BOOL), s->p += 5;
    } else if (c == 'n' && s->end - s->p >= 4 && memcmp(s->p, "null", 4) == 0) {
        j = jnew(J_NULL), s->p += 4;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        /* plain integers, most of what the server reads, without strtod */
        const char *q = s->p + (c == '-');
        long long iv = 0;
        int digits = 0;
        while (q < s->end && *q >= '0' && *q <= '9' && digits < 15)
            iv = iv * 10 + (*q++ - '0'), digits++;
        if (digits && (q == s->end || !strchr(".eE0123456789", *q))) {
            j = jnew(J_NUM);
            j->num = (double)(c == '-' ? -iv : iv);
            s->p = q;
            s->depth--;
            return j;
        }
        char tmp[64];
        size_t n = 0;
        while (s->p + n < s->end && n < sizeof tmp - 1 && strchr("+-.eE0123456789", s->p[n]))
            n++;
        memcpy(tmp, s->p, n);
        tmp[n] = 0;
        char *e;
        double v = strtod(tmp, &e);
        if (e == tmp)
            return NULL;
        s->p += e - tmp;
        j = jnew(J_NUM);
        j->num = v;
    } else {
        return NULL;
    }
    s->depth--;
    return j;
}

static void pool_free(struct pool *p)
{
    while (p) {
        struct pool *next = p->next;
        free(p);
        p = next;
    }
}

struct json *json_parse(const char *text, size_t len)
{
    struct jp s = {text, text + len, 0};
    pool_now = NULL;
    struct json *j = jvalue(&s);
    if (j) {
        ws(&s);
        if (s.p != s.end)
            j = NULL;
    }
    if (!j) {
        pool_free(pool_now);
        pool_now = NULL;
        return NULL;
    }
    /* the root is the pool's first allocation: it carries the pool */
    j->pool = pool_now;
    pool_now = NULL;
    return j;
}

void json_free(struct json *j)
{
    if (j)
        pool_free(j->pool);
}

struct json *json_get(const struct json *j, const char *key)
{
    if (!j || j->kind != J_OBJ)
        return NULL;
    for (int i = 0; i < j->n; i++)
        if (strcmp(j->keys[i], key) == 0)
            return j->items[i];
    return NULL;
}

struct json *json_at(const struct json *j, int i)
{
    return j && j->kind == J_ARR && i >= 0 && i < j->n ? j->items[i] : NULL;
}

const char *json_str(const struct json *j, const char *dflt)
{
    return j && j->kind == J_STR ? j->str : dflt;
}

double json_num(const struct json *j, double dflt)
{
    return j && j->kind == J_NUM ? j->num : dflt;
}

int json_int(const struct json *j, int dflt)
{
    if (!j || j->kind != J_NUM || !(j->num >= -2147483647.0 && j->num <= 2147483647.0))
        return dflt;
    return (int)j->num;
}

bool json_bool(const struct json *j, bool dflt)
{
    return j && j->kind == J_BOOL ? j->b : dflt;
}

const char *json_get_str(const struct json *j, const char *key, const char *dflt)
{
    return json_str(json_get(j, key), dflt);
}

int json_get_int(const struct json *j, const char *key, int dflt)
{
    return json_int(json_get(j, key), dflt);
}

void json_put_strn(struct buf *b, const char *s, size_t n)
{
    bputs(b, "\"");
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"') bputs(b, "\\\"");
        else if (c == '\\') bputs(b, "\\\\");
        else if (c == '\n') bputs(b, "\\n");
        else if (c == '\r') bputs(b, "\\r");
        else if (c == '\t') bputs(b, "\\t");
        else if (c < 0x20 || c == 0x7f) bprintf(b, "\\u%04x", c);
        else if (c < 0x80) bputn(b, (const char *)&s[i], 1);
        else {
            /* valid UTF-8 as it is; a stray byte as U+FFFD */
            int len = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
            bool ok = len > 0 && i + (size_t)len <= n;
            for (int k = 1; ok && k < len; k++)
                ok = ((unsigned char)s[i + (size_t)k] & 0xc0) == 0x80;
            if (ok) {
                bputn(b, s + i, (size_t)len);
                i += (size_t)len - 1;
            } else {
                bputs(b, "\\ufffd");
            }
        }
    }
    bputs(b, "\"");
}

void json_put_str(struct buf *b, const char *s)
{
    json_put_strn(b, s ? s : "", s ? strlen(s) : 0);
}

void json_write(struct buf *b, const struct json *j)
{
    if (!j) {
        bputs(b, "null");
        return;
    }
    switch (j->kind) {
    case J_NULL: bputs(b, "null"); return;
    case J_BOOL: bputs(b, j->b ? "true" : "false"); return;
    case J_NUM:
        if (j->num == floor(j->num) && fabs(j->num) < 1e15) bprintf(b, "%.0f", j->num);
        else bprintf(b, "%.17g", j->num);
        return;
    case J_STR: json_put_strn(b, j->str, j->len); return;
    case J_ARR: case J_OBJ:
        bputs(b, j->kind == J_ARR ? "[" : "{");
        for (int i = 0; i < j->n; i++) {
            if (i) bputs(b, ",");
            if (j->kind == J_OBJ) {
                json_put_str(b, j->keys[i]);
                bputs(b, ":");
            }
            json_write(b, j->items[i]);
        }
        bputs(b, j->kind == J_ARR ? "]" : "}");
        return;
    }
}
