/*
 * ctext.c: the C text helpers that both emitters share (ctext.h).
 */
#include "ctext.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void c_escape_byte(struct buf *b, unsigned char c)
{
    if (c == '"' || c == '\\') bprintf(b, "\\%c", c);
    else if (c >= 32 && c < 127 && c != '?') bputn(b, (const char *)&c, 1);
    else bprintf(b, "\\%03o", c);
}

void c_string(struct buf *b, const char *s, size_t len)
{
    bputs(b, "\"");
    for (size_t i = 0; i < len; i++) c_escape_byte(b, (unsigned char)s[i]);
    bputs(b, "\"");
}

void c_string_lines(struct buf *b, const char *s)
{
    bputs(b, "    \"");
    for (const char *p = s; *p; p++) {
        if (*p == '\n') bputs(b, p[1] ? "\\n\"\n    \"" : "\\n");
        else c_escape_byte(b, (unsigned char)*p);
    }
    bputs(b, "\"");
}

const char *int_lit(struct type *t, unsigned __int128 v)
{
    if (t == ty_u64) return arena_printf("%" PRIu64 "ULL", (uint64_t)v);
    if (t == ty_i128) return arena_printf("brt_i128_make(%" PRIu64 "ULL, %" PRIu64 "ULL)", (uint64_t)v, (uint64_t)(v >> 64));
    int64_t x = (int64_t)(uint64_t)v;
    if (x == INT64_MIN) return "(-9223372036854775807LL-1)";
    /* a negative literal in parentheses: an operator written before it
     * (-x, a - x without spaces) must not read --4LL, a decrement */
    return arena_printf(x < 0 ? "(%" PRId64 "LL)" : "%" PRId64 "LL", x);
}

const char *float_bits_lit(const char *fn, double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return arena_printf("%s(0x%016" PRIx64 "ULL)", fn, u);
}

const char *num_suffix(struct type *t)
{
    return t == ty_int ? "i64" : t == ty_u64 ? "u64" : t == ty_i128 ? "i128" : t == ty_float ? "f64" : NULL;
}

void bvline(struct buf *b, int ind, const char *fmt, va_list ap)
{
    for (int i = 0; i < ind; i++) bputs(b, "    ");
    va_list ap2;
    va_copy(ap2, ap);
    char tmp[1024];
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    if (n < (int)sizeof tmp) {
        bputs(b, tmp);
    } else {
        char *big = xmalloc((size_t)n + 1);
        vsnprintf(big, (size_t)n + 1, fmt, ap2);
        bputs(b, big);
        free(big);
    }
    va_end(ap2);
    bputs(b, "\n");
}
