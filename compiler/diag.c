/*
 * diag.c: source files, locations and the one function that prints a
 * diagnostic (SPEC section 10):
 *
 *     error: mismatched types: int + float
 *       --> prog.br:3:13
 *        |
 *      3 |     let x = 1 + 2.0
 *        |             ^^^^^^^
 *
 * The gutter is as wide as the line number plus one. Columns count bytes, but
 * the underline is drawn in characters (one per UTF-8 sequence, tabs copied)
 * so it lines up under the text on a terminal. Very long lines are shown as
 * a window around the column, so a 1 MB line gives a readable message. Bytes
 * that are not printable text (binary input) are shown as '?'.
 *
 * In colour (on a terminal, or --color=always; never with NO_COLOR set or
 * --color=never) the label is bold red for an error and bold yellow for a
 * warning, the arrow and the gutter bold blue, the underline the label's
 * colour; the text itself is left as it is. Runtime panics come from the
 * runtime and are never coloured.
 *
 * Several errors a run: while a recovery point (struct diag_catch) is
 * pushed, error_at keeps its message and jumps back to that point, so the
 * checker can skip what went wrong and go on; diag_finish then prints every
 * error kept, in source order, a blank line between them (at most
 * MAX_SHOWN; one error prints exactly as it always has), and a closing
 * "could not compile" line when there were two or more. Warnings are kept
 * the same way and printed only when there is no error; --deny-warnings
 * keeps them as errors. Without a recovery point (the lexer, the parser,
 * the loader) the first error is the last.
 */
#include "brine.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PADDING 16 /* NUL bytes after each text: the lexer needs no bounds checks */

static struct source *sources;
static int nsources, cap_sources;

int source_add(const char *name, const char *text, size_t len)
{
    VEC_GROW(sources, nsources, cap_sources);
    char *copy = xmalloc(len + PADDING);
    memcpy(copy, text, len);
    memset(copy + len, 0, PADDING);

    /* Line starts: a line begins at 0 and after every '\n' (CRLF ends in
     * '\n' too; the '\r' is stripped when a line is shown). A final line
     * without newline still counts; an empty last "line" after a final
     * newline does not. */
    int cap = 0, n = 0;
    int *starts = NULL;
    VEC_GROW(starts, n, cap);
    starts[n++] = 0;
    unsigned char high = 0;
    for (size_t i = 0; i < len; i++) {
        high |= (unsigned char)copy[i];
        if (copy[i] == '\n' && i + 1 < len) {
            VEC_GROW(starts, n, cap);
            starts[n++] = (int)(i + 1);
        }
    }
    struct source *s = &sources[nsources];
    s->name = arena_strndup(name, strlen(name));
    s->text = copy;
    s->len = len;
    s->line_starts = starts;
    s->nlines = n;
    s->ascii = high < 0x80;
    return nsources++;
}

const struct source *source_get(int file)
{
    if (file < 0 || file >= nsources)
        internal_error("source_get: no file %d", file);
    return &sources[file];
}

struct loc loc_span(struct loc from, struct loc to)
{
    struct loc l = from;
    if (to.end_line > from.end_line || (to.end_line == from.end_line && to.end_col > from.end_col)) {
        l.end_line = to.end_line;
        l.end_col = to.end_col;
    }
    return l;
}

/* Length of the valid UTF-8 sequence at p (1..4), or 0 when invalid. */
static int utf8_len(const unsigned char *p, const unsigned char *end)
{
    unsigned c = p[0];
    if (c < 0x80)
        return 1;
    int n;
    unsigned min;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2, min = 0x80;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3, min = 0x800;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4, min = 0x10000;
    else
        return 0;
    if (end - p < n)
        return 0;
    unsigned cp = c & (0x3f >> (n - 1));
    for (int i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (p[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

/* Writes text[from, to) as shown on a terminal; returns how many columns
 * (characters) it took. mask: write spaces (tabs kept) instead of the text,
 * for the underline's indentation. */
static int show(FILE *out, const unsigned char *text, size_t from, size_t to, bool mask)
{
    int cols = 0;
    const unsigned char *end = text + to;
    for (size_t i = from; i < to;) {
        const unsigned char *p = text + i;
        int n = utf8_len(p, end);
        if (*p == '\t') {
            fputc('\t', out);
        } else if (mask) {
            fputc(' ', out);
        } else if (n == 0 || (*p < 0x20) || *p == 0x7f) {
            fputc('?', out);
        } else {
            fwrite(p, 1, (size_t)n, out);
        }
        i += n ? (size_t)n : 1;
        cols++;
    }
    return cols;
}

#define WINDOW 120 /* longest part of a line shown around the column */

static enum color_mode color_mode = COLOR_AUTO;

void diag_set_color(enum color_mode mode)
{
    color_mode = mode;
}

/* auto: stderr is a terminal and NO_COLOR is unset or empty (no-color.org). */
static bool use_color(void)
{
    if (color_mode != COLOR_AUTO)
        return color_mode == COLOR_ALWAYS;
    const char *no = getenv("NO_COLOR");
    return !(no && *no) && isatty(STDERR_FILENO);
}

#define SGR_RESET "\033[0m"
#define SGR_BLUE "\033[1;34m"

static void vreport(FILE *out, const char *kind, struct loc loc, const char *fmt, va_list ap)
{
    const struct source *src = source_get(loc.file);
    bool color = use_color();
    const char *hue = !color                          ? ""
                      : strcmp(kind, "warning") == 0 ? "\033[1;33m"
                      : strcmp(kind, "note") == 0    ? SGR_BLUE
                                                     : "\033[1;31m";
    const char *blue = color ? SGR_BLUE : "", *reset = color ? SGR_RESET : "";
    fprintf(out, "%s%s%s: ", hue, kind, reset);
    vfprintf(out, fmt, ap);
    fputc('\n', out);

    int width = 1;
    for (int n = loc.line; n >= 10; n /= 10)
        width++;
    width++;
    fprintf(out, "%*s%s-->%s %s:%d:%d\n", width, "", blue, reset, src->name, loc.line, loc.col);

    /* The line's text, without its '\n' or '\r\n'. */
    const unsigned char *text = (const unsigned char *)src->text;
    size_t start = src->len, end = src->len;
    if (loc.line >= 1 && loc.line <= src->nlines) {
        start = (size_t)src->line_starts[loc.line - 1];
        end = start;
        while (end < src->len && text[end] != '\n')
            end++;
        if (end > start && text[end - 1] == '\r')
            end--;
    }
    size_t linelen = end - start;
    size_t c0 = loc.col >= 1 ? (size_t)loc.col - 1 : 0; /* underline start, bytes into the line */
    if (c0 > linelen)
        c0 = linelen;
    size_t c1 = (loc.end_line > loc.line) ? linelen : (loc.end_col >= 1 ? (size_t)loc.end_col - 1 : 0);
    if (c1 > linelen)
        c1 = linelen;
    if (c1 < c0)
        c1 = c0;

    /* Window: show at most WINDOW bytes, starting a little before the column. */
    size_t w0 = 0, w1 = linelen;
    if (linelen > WINDOW) {
        w0 = c0 > WINDOW / 4 ? c0 - WINDOW / 4 : 0;
        while (w0 > 0 && w0 < linelen && (text[start + w0] & 0xc0) == 0x80)
            w0--; /* do not start inside a UTF-8 sequence */
        w1 = w0 + WINDOW < linelen ? w0 + WINDOW : linelen;
        while (w1 < linelen && (text[start + w1] & 0xc0) == 0x80)
            w1++;
        if (c1 > w1)
            c1 = w1;
    }

    fprintf(out, "%*s%s|%s\n", width + 1, "", blue, reset);
    fprintf(out, "%s%*d |%s ", blue, width, loc.line, reset);
    if (w0 > 0)
        fputs("...", out);
    show(out, text + start, w0, w1, false);
    if (w1 < linelen)
        fputs("...", out);
    fputc('\n', out);
    fprintf(out, "%*s%s|%s ", width + 1, "", blue, reset);
    if (w0 > 0)
        fputs("   ", out);
    show(out, text + start, w0, c0, true);
    int carets = 0;
    for (size_t i = c0; i < c1;) {
        int n = utf8_len(text + start + i, text + start + c1);
        i += n ? (size_t)n : 1;
        carets++;
    }
    if (carets == 0)
        carets = 1;
    fputs(hue, out);
    for (int i = 0; i < carets; i++)
        fputc('^', out);
    fprintf(out, "%s\n", reset);
}

static void report(FILE *out, const char *kind, struct loc loc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void report(FILE *out, const char *kind, struct loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(out, kind, loc, fmt, ap);
    va_end(ap);
}

/* ---- errors and warnings kept for diag_finish ----------------------------- */

#define MAX_SHOWN 20    /* errors printed; the closing line counts the rest */
#define MAX_KEPT 1000   /* errors kept before brine stops looking for more */

struct kept {
    struct loc loc;
    bool error;
    int seq;            /* order of arrival: ties keep it */
    char *text;         /* the whole diagnostic, note included (malloc'ed) */
    char *message;      /* just MSG (malloc'ed), for diag_records */
    char *note;         /* the note's text (malloc'ed) or NULL */
    struct loc note_loc;
};

static struct kept *kept;
static int nkept, cap_kept, nerrors;
static bool deny_warnings;
static struct diag_catch *catch_top;
static void (*finish_sink)(void);

void diag_set_deny_warnings(bool deny)
{
    deny_warnings = deny;
}

int diag_errors(void)
{
    return nerrors;
}

void diag_catch_push(struct diag_catch *c)
{
    c->prev = catch_top;
    catch_top = c;
}

void diag_catch_pop(struct diag_catch *c)
{
    if (catch_top != c)
        internal_error("diag_catch_pop: not the innermost recovery point");
    catch_top = c->prev;
}

/* Keeps "KIND: MSG" and its source line (and a note, when note is set). */
static void keep(bool error, struct loc loc, const struct loc *note_loc, const char *note, const char *fmt,
                 va_list ap)
{
    char *text = NULL, *message = NULL;
    size_t len = 0;
    va_list ap2;
    va_copy(ap2, ap);
    int mlen = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (mlen < 0)
        internal_error("cannot format a diagnostic");
    message = xmalloc((size_t)mlen + 1);
    va_copy(ap2, ap);
    vsnprintf(message, (size_t)mlen + 1, fmt, ap2);
    va_end(ap2);
    FILE *out = open_memstream(&text, &len);
    if (!out)
        internal_error("open_memstream failed");
    vreport(out, error ? "error" : "warning", loc, fmt, ap);
    if (note)
        report(out, "note", *note_loc, "%s", note);
    if (fclose(out) != 0)
        internal_error("cannot write a diagnostic to memory");
    VEC_GROW(kept, nkept, cap_kept);
    kept[nkept] = (struct kept){.loc = loc, .error = error, .seq = nkept, .text = text, .message = message,
                                .note = note ? strdup(note) : NULL, .note_loc = note_loc ? *note_loc : loc};
    nkept++;
    if (error)
        nerrors++;
}

static int by_place(const void *pa, const void *pb)
{
    const struct kept *a = pa, *b = pb;
    if (a->loc.file != b->loc.file)
        return a->loc.file < b->loc.file ? -1 : 1;
    if (a->loc.line != b->loc.line)
        return a->loc.line < b->loc.line ? -1 : 1;
    if (a->loc.col != b->loc.col)
        return a->loc.col < b->loc.col ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Prints what was kept: the errors when there are any (then exit 1), else
 * the warnings. The program is the first source added: the file the
 * command named, which load_program reads first. */
void diag_finish(void)
{
    if (finish_sink) {
        void (*sink)(void) = finish_sink;
        finish_sink = NULL;
        sink();
        internal_error("the diagnostics sink returned");
    }
    fflush(stdout);
    if (nkept) /* kept is NULL before the first: qsort(NULL, 0) is undefined */
        qsort(kept, (size_t)nkept, sizeof *kept, by_place);
    bool errors = nerrors > 0;
    int shown = 0;
    for (int i = 0; i < nkept; i++) {
        if (kept[i].error != errors)
            continue;
        if (errors && shown == MAX_SHOWN)
            break;
        if (shown++)
            fputc('\n', stderr);
        fputs(kept[i].text, stderr);
    }
    for (int i = 0; i < nkept; i++)
        free(kept[i].text), free(kept[i].message), free(kept[i].note);
    nkept = 0;
    if (!errors)
        return;
    if (nerrors >= 2) {
        bool color = use_color();
        fprintf(stderr, "\n%serror%s: could not compile '%s' due to %d%s previous errors", color ? "\033[1;31m" : "",
                color ? SGR_RESET : "", nsources ? sources[0].name : "?", nerrors, nerrors >= MAX_KEPT ? " or more" : "");
        if (nerrors > MAX_SHOWN)
            fprintf(stderr, "; %d more %s not shown", nerrors - MAX_SHOWN, nerrors - MAX_SHOWN == 1 ? "was" : "were");
        fputc('\n', stderr);
    }
    exit(1);
}

/* ---- diagnostics as data (the language server, lsp.c) ------------------- */

void diag_set_sink(void (*sink)(void))
{
    finish_sink = sink;
}

int diag_records(struct diag_record *out, int max)
{
    qsort(kept, (size_t)nkept, sizeof *kept, by_place);
    int n = 0;
    for (int i = 0; i < nkept && n < max; i++)
        out[n++] = (struct diag_record){.error = kept[i].error, .loc = kept[i].loc, .message = kept[i].message,
                                        .note = kept[i].note, .note_loc = kept[i].note_loc};
    return n;
}

/* After an error is kept: back to the recovery point, or the end. */
static _Noreturn void recover_or_finish(void)
{
    if (!catch_top || nerrors >= MAX_KEPT)
        diag_finish();
    struct diag_catch *c = catch_top;
    catch_top = c->prev;
    longjmp(c->jb, 1);
}

_Noreturn void diag_abandon(void)
{
    if (!catch_top)
        internal_error("diag_abandon without a recovery point");
    recover_or_finish();
}

_Noreturn void error_at(struct loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    keep(true, loc, NULL, NULL, fmt, ap);
    va_end(ap);
    recover_or_finish();
}

_Noreturn void error_note_at(struct loc loc, struct loc note_loc, const char *note, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    keep(true, loc, &note_loc, note, fmt, ap);
    va_end(ap);
    recover_or_finish();
}

void warning_at(struct loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    keep(deny_warnings, loc, NULL, NULL, fmt, ap);
    va_end(ap);
}

/* "brine: MSG" and the tail, exit 2: the command line's and the files' errors. */
static _Noreturn void usage_exit(const char *tail, const char *fmt, va_list ap)
{
    fflush(stdout);
    fputs("brine: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs(tail, stderr);
    exit(2);
}

_Noreturn void usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    usage_exit("\n", fmt, ap);
}

_Noreturn void command_line_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    usage_exit(" (see brine --help)\n", fmt, ap);
}

_Noreturn void internal_error_at(const char *file, int line, const char *fmt, ...)
{
    fflush(stdout);
    va_list ap;
    va_start(ap, fmt);
    fputs("brine: internal error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (%s:%d)\n", file, line);
    va_end(ap);
    exit(70);
}
