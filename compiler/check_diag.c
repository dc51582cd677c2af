/*
 * check_diag.c: the words of the checker's messages.
 *
 * Type names as a user writes them (tn), places ("line 3"), the standard
 * "expected T, found U" message with its hints (a float where an int was
 * wanted: float(i) or int(x)), and the edit distance that the "did you
 * mean" suggestions rank names by. The suggestions themselves stay in
 * check.c, beside the scopes they search.
 */
#include "check.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *tn(struct type *t)
{
    return type_name(t);
}

/* The source text under a location on one line (a literal's spelling). */
const char *loc_text(struct loc loc)
{
    const struct source *src = source_get(loc.file);
    if (loc.line < 1 || loc.line > src->nlines || loc.end_line != loc.line || loc.end_col <= loc.col)
        return "?";
    const char *p = src->text + src->line_starts[loc.line - 1] + loc.col - 1;
    return arena_strndup(p, (size_t)(loc.end_col - loc.col));
}

static const char *vfmt(const char *fmt, va_list ap)
{
    char buf[512];
    vsnprintf(buf, sizeof buf, fmt, ap);
    return arena_strndup(buf, strlen(buf));
}

/* What a symbol is, for "'x' is a let binding" style messages. */
const char *sym_what(struct sym *s)
{
    switch (s->kind) {
    case SYM_LOCAL:
        if (xs(s)->loop_var)
            return "a loop variable";
        return s->is_var ? "a var" : "a let binding";
    case SYM_PARAM:
        return "a parameter";
    case SYM_CONST:
        return "a constant";
    case SYM_FN:
        return "a function";
    case SYM_MODULE:
        return "a module";
    }
    return "a name";
}

/* "mismatched types: expected float for 'x', found int"; `for` describes
 * what the value belongs to. An integer literal where a float is wanted gets
 * its own wording, since that is the usual slip. */
void expect_type(struct node *n, struct type *want, const char *forfmt, ...)
{
    if (n->type == want)
        return;
    va_list ap;
    va_start(ap, forfmt);
    const char *what = vfmt(forfmt, ap);
    va_end(ap);
    if (n->kind == N_INT && want == ty_float) {
        const char *text = loc_text(n->loc);
        bool plain = text[0] != '\0';
        for (const char *p = text; *p; p++)
            if (!((*p >= '0' && *p <= '9') || *p == '_' || (p == text && *p == '-')))
                plain = false;
        error_at(n->loc, "mismatched types: expected float %s, found integer literal%s%s%s", what,
                 plain ? " (write " : "", plain ? text : "", plain ? ".0)" : "");
    }
    error_at(n->loc, "mismatched types: expected %s %s, found %s%s", tn(want), what, tn(n->type),
             want == ty_float && type_is_integer(n->type) ? " (convert it with float(...))" : "");
}

/* The fix for float mixed with an integer in an operator, the same as
 * expect_type's for an assignment: " (write 2.0)" when the integer side is
 * a plain literal, else " (convert it with float(...))"; "" for any other
 * mix of types. */
const char *float_int_hint(struct node *a, struct type *ta, struct node *b, struct type *tb)
{
    struct node *in;
    if (ta == ty_float && type_is_integer(tb))
        in = b;
    else if (tb == ty_float && type_is_integer(ta))
        in = a;
    else
        return "";
    if (in->kind == N_INT) {
        const char *text = loc_text(in->loc);
        bool plain = text[0] != '\0';
        for (const char *p = text; *p; p++)
            if (!((*p >= '0' && *p <= '9') || *p == '_'))
                plain = false;
        if (plain)
            return arena_printf(" (write %s.0)", text);
    }
    return arena_printf(" (convert the %s with float(...))", tn(in->type));
}

void expect_bool(struct node *n, const char *what)
{
    if (n->type != ty_bool)
        error_at(n->loc, "expected bool for %s, found %s", what, tn(n->type));
}

/* "; did you mean 'total'?" for a misspelt name, or "". Candidates: the
 * visible locals and globals, and the builtins when a function is wanted. */
static int edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64)
        return 99;
    int row[65];
    for (size_t j = 0; j <= lb; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int up = row[j];
            int best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

void consider(const char *name, const char *cand, const char **best, int *best_d)
{
    if (strcmp(name, cand) == 0)
        return;
    int d = edit_distance(name, cand);
    if (d < *best_d || (d == *best_d && *best && strcmp(cand, *best) < 0)) {
        *best = cand;
        *best_d = d;
    }
}

