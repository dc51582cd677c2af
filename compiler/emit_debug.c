/*
 * emit_debug.c: the C of `brine build -g` (emit_c.h): a debugger sees the
 * .br program.
 *
 *   - `#line N "prog.br"` before each statement whose line differs from the
 *     last one written, and before each function and par helper, so the
 *     line table (gdb's breakpoints, perf, valgrind) names .br lines;
 *   - the code that is not the program's (trampolines, main()) goes back to
 *     the C file's own lines with `#line N "OUT.c"`;
 *   - every Brine variable keeps its Brine name in C: `xs` with id 5 is the
 *     C local xs_v5 (a pass over the finished text renames the token v5
 *     outside strings and comments, so the emitters keep writing v<id>).
 *     Functions keep their C names bf_<module>_<name>.
 *
 * Without -g none of this runs and the C is unchanged.
 */
#include "emit_c.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *debug_c_name; /* the C file's name under -g, else NULL */

void emit_set_debug(const char *c_name)
{
    debug_c_name = c_name;
}

bool emit_debug_on(void)
{
    return debug_c_name != NULL;
}

void debug_note_var(struct ir_var *v)
{
    if (!debug_c_name || !v->name || !*v->name) return;
    if (!CG->var_names) CG->var_names = arena_alloc(sizeof *CG->var_names * (size_t)(CG->ir->nvars + 1));
    if (v->id >= 1 && v->id <= CG->ir->nvars) CG->var_names[v->id] = v->name;
}

void debug_line(struct buf *b, struct loc l, bool force)
{
    if (!debug_c_name || l.line <= 0) return;
    if (!force && F && F->debug_line == l.line && F->debug_file == l.file) return;
    if (F) {
        F->debug_line = l.line;
        F->debug_file = l.file;
    }
    const struct source *src = source_get(l.file);
    const char *name = src && src->name ? src->name : "?";
    /* its own line, at column 0, whatever the indentation */
    if (b->len && b->p[b->len - 1] != '\n') bputs(b, "\n");
    bprintf(b, "#line %d ", l.line);
    c_string(b, name, strlen(name));
    bputs(b, "\n");
}

void debug_back_to_c(struct buf *b)
{
    if (debug_c_name) bputs(b, "#line BP_C_LINE\n");
}

static bool ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Appends n bytes to r, counting its lines. */
static void put(struct buf *r, int *lines, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) *lines += p[i] == '\n';
    bputn(r, p, n);
}

/* The finished text with v<id> renamed, each "#line BP_C_LINE" made the C
 * file's own next line, and after a .br #line every line of C given that
 * same line again (a statement's C is several lines, all of them its line). */
void debug_finish(struct buf *out)
{
    if (!debug_c_name) return;
    struct buf r = {0};
    const char *p = out->p, *end = out->p + out->len;
    int lines = 0;                /* newlines written to r */
    const char *br = NULL;        /* the last .br directive, up to its newline; NULL: in C */
    size_t brlen = 0;
    static const char mark[] = "#line BP_C_LINE\n";
    bool line_start = true;
    while (p < end) {
        char c = *p;
        if (line_start) {
            line_start = false;
            if ((size_t)(end - p) >= sizeof mark - 1 && memcmp(p, mark, sizeof mark - 1) == 0) {
                char d[32];
                snprintf(d, sizeof d, "#line %d ", lines + 2);
                put(&r, &lines, d, strlen(d));
                c_string(&r, debug_c_name, strlen(debug_c_name));
                put(&r, &lines, "\n", 1);
                p += sizeof mark - 1;
                br = NULL;
                line_start = true;
                continue;
            }
            if (c == '#' && strncmp(p, "#line ", 6) == 0) {
                const char *nl = memchr(p, '\n', (size_t)(end - p));
                br = p;
                brlen = (size_t)((nl ? nl + 1 : end) - p);
                put(&r, &lines, p, brlen);
                p += brlen;
                line_start = true;
                continue;
            }
            bool continued = p - out->p >= 2 && p[-2] == '\\';
            if (br && c != '#' && c != '\n' && !continued) put(&r, &lines, br, brlen);
        }
        if (c == '\n') {
            put(&r, &lines, p++, 1);
            line_start = true;
        } else if (c == '"' || c == '\'') { /* a literal, as it is */
            const char *q = p + 1;
            while (q < end && *q != c && *q != '\n') q += *q == '\\' ? 2 : 1;
            q = q < end && *q == c ? q + 1 : q;
            put(&r, &lines, p, (size_t)(q - p));
            p = q;
        } else if (c == '/' && p + 1 < end && p[1] == '*') {
            const char *q = strstr(p + 2, "*/");
            q = q ? q + 2 : end;
            put(&r, &lines, p, (size_t)(q - p));
            p = q;
        } else if (ident_char(c)) {
            const char *q = p;
            while (q < end && ident_char(*q)) q++;
            long id = 0;
            bool var = *p == 'v' && q - p > 1;
            for (const char *s = p + 1; var && s < q; s++) {
                if (*s < '0' || *s > '9' || id > 100000000) var = false;
                else id = id * 10 + (*s - '0');
            }
            if (var && CG->var_names && id >= 1 && id <= CG->ir->nvars && CG->var_names[id]) {
                char *nm = arena_printf("%s_v%ld", CG->var_names[id], id);
                /* the optimizer's names (p.0, a scalar made of an array's
                 * element) hold characters no C name may */
                for (char *d = nm; *d; d++)
                    if (!ident_char(*d)) *d = '_';
                put(&r, &lines, nm, strlen(nm));
            } else {
                put(&r, &lines, p, (size_t)(q - p));
            }
            p = q;
        } else {
            put(&r, &lines, p++, 1);
        }
    }
    free(out->p);
    *out = r;
}
