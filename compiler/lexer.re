/*
 * lexer.re: source text -> tokens (SPEC section 1). Processed by re2c.
 *
 * The whole state lives in struct lexer (parser.y's header), passed as a
 * parameter; there are no globals. The text is NUL-padded by source_add, so
 * the scanner needs no bounds checks: a NUL at text+len is the end, a NUL
 * before it is an error.
 *
 * lexer_next() is the one function that owns the indent stack and the bracket
 * depth, and so the only producer of NEWLINE, INDENT and DEDENT:
 *   - at the start of a line (outside brackets) it measures the indentation;
 *     blank and comment-only lines produce nothing;
 *   - inside ( ) and [ ] newlines and indentation are ignored;
 *   - at the end of the text it emits a NEWLINE (if the last line had tokens)
 *     and a DEDENT for every open block.
 *
 * f-strings are lexed with an explicit mode (they cannot nest, since an
 * f-string expression holds no string literal):
 *     f"a{x:>5}b"  ->  FSTART FTEXT("a") FLBRACE NAME(x) FSPEC(">5") FRBRACE
 *                      FTEXT("b") FEND
 * The ':' that starts a spec is the one at bracket depth 0 inside the braces.
 *
 * Errors are reported here, with a precise span, and exit: the parser never
 * sees a bad token, so there is never a second message.
 */
#include "brine.h"
#include "parser.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/*!re2c
    re2c:define:YYCTYPE = "unsigned char";
    re2c:define:YYCURSOR = "L->cur";
    re2c:define:YYMARKER = "L->marker";
    re2c:yyfill:enable = 0;
    re2c:indent:string = "    ";

    id      = [A-Za-z_][A-Za-z0-9_]*;
    dec     = [0-9] ("_"? [0-9])*;
    hex     = "0" [xX] [0-9a-fA-F] ("_"? [0-9a-fA-F])*;
    bin     = "0" [bB] [01] ("_"? [01])*;
    exp     = [eE] [+-]? dec;
    float   = dec "." dec exp? | dec exp;
    badnum  = [0-9] [0-9A-Za-z_]* | [0-9] [0-9_]* "." [0-9] [0-9A-Za-z_]*;
    eol     = "\r"? "\n";
    utf8    = [\xc2-\xdf][\x80-\xbf]
            | "\xe0"[\xa0-\xbf][\x80-\xbf]
            | [\xe1-\xec\xee\xef][\x80-\xbf]{2}
            | "\xed"[\x80-\x9f][\x80-\xbf]
            | "\xf0"[\x90-\xbf][\x80-\xbf]{2}
            | [\xf1-\xf3][\x80-\xbf]{3}
            | "\xf4"[\x80-\x8f][\x80-\xbf]{2};
*/

enum { LM_CODE, LM_FSTR, LM_FEXPR, LM_FSPEC_DONE };

void lexer_init(struct lexer *L, int file)
{
    const struct source *src = source_get(file);
    memset(L, 0, sizeof *L);
    L->file = file;
    L->src = (const unsigned char *)src->text;
    L->end = L->src + src->len;
    L->cur = L->src;
    /* A UTF-8 byte order mark is allowed and skipped, as in Python. */
    if (src->len >= 3 && L->cur[0] == 0xef && L->cur[1] == 0xbb && L->cur[2] == 0xbf)
        L->cur += 3;
    L->line = 1;
    L->line_start = L->src;
    L->nindents = 1; /* indents[0] = 0: the top level */
    L->at_line_start = true;
    L->mode = LM_CODE;
}

static struct loc span(struct lexer *L, const unsigned char *from, const unsigned char *to)
{
    struct loc l;
    l.file = L->file;
    l.line = l.end_line = L->line;
    l.col = (int)(from - L->line_start) + 1;
    l.end_col = (int)(to - L->line_start) + 1;
    return l;
}

/* From `from` to the end of the current line (for "unterminated" spans). */
static struct loc span_to_eol(struct lexer *L, const unsigned char *from)
{
    const unsigned char *p = from;
    while (!(*p == '\n' || (*p == '\r' && p[1] == '\n') || (*p == 0 && p >= L->end)))
        p++;
    return span(L, from, p > from ? p : from + 1);
}

static void newline(struct lexer *L, const unsigned char *next)
{
    L->line++;
    L->line_start = next;
}

/* Length of the valid UTF-8 sequence at p, or 0. */
static int utf8_len(const unsigned char *p)
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
    unsigned cp = c & (0x3f >> (n - 1));
    for (int i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80) /* the NUL padding stops this too */
            return 0;
        cp = cp << 6 | (p[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

static _Noreturn void bad_char(struct lexer *L, const unsigned char *p, const char *where)
{
    struct loc l = span(L, p, p + 1);
    if (*p == 0)
        error_at(l, "NUL byte in source%s", where);
    if (*p >= 0x80) {
        int n = utf8_len(p);
        if (n == 0)
            error_at(l, "invalid UTF-8 byte 0x%02x%s", *p, where);
        l.end_col = l.col + n;
        error_at(l, "invalid character '%.*s'%s (identifiers and operators are ASCII)", n,
                 (const char *)p, where);
    }
    if (*p < 0x20 || *p == 0x7f)
        error_at(l, "invalid control character 0x%02x%s", *p, where);
    if (*p == ';')
        error_at(l, "invalid character ';' (a statement ends at the end of its line)");
    if (*p == '{' || *p == '}')
        error_at(l, "invalid character '%c'%s: Brine has no dict or set literals, and braces appear only inside "
                    "f-strings (f\"{x}\"); for pairs use an array of tuples [(\"a\", 1)] or a struct", *p, where);
    error_at(l, "invalid character '%c'%s", *p, where);
}

/* Skips a comment from L->cur (just after '#') to the end of the line,
 * checking that it is UTF-8 text. */
static void skip_comment(struct lexer *L)
{
    const unsigned char *p = L->cur;
    for (;;) {
        if (*p == '\n' || (*p == '\r' && p[1] == '\n'))
            break;
        if (*p == 0) {
            if (p >= L->end)
                break;
            bad_char(L, p, " in a comment");
        }
        int n = utf8_len(p);
        if (n == 0)
            bad_char(L, p, " in a comment");
        p += n;
    }
    L->cur = p;
}

/* ---- the decoded-text buffer (strings, f-string text) -------------------- */

static void buf_add(struct lexer *L, const void *s, size_t n)
{
    VEC_RESERVE(L->buf, L->bufcap, L->buflen + n);
    memcpy(L->buf + L->buflen, s, n);
    L->buflen += n;
}

static void buf_byte(struct lexer *L, char c)
{
    buf_add(L, &c, 1);
}

static void set_token(struct lexer *L, struct token *t, int kind, const unsigned char *from)
{
    t->kind = kind;
    t->loc = span(L, from, L->cur);
    t->text = (const char *)from;
    t->len = (size_t)(L->cur - from);
    if (kind != TK_NEWLINE && kind != TK_INDENT && kind != TK_DEDENT && kind != TK_YYEOF)
        L->line_has_tokens = true;
}

/* ---- contextual words -------------------------------------------------------
 *
 * `scan` and `by` are names everywhere except in the two places a
 * reduction gives them a meaning: `scan` directly before a reducer and its
 * '(' (scan sum(...)), and `by` inside brackets before the key expression
 * of a generator (sum(x for x in xs by k in 0..n)). So a program may still
 * call its variable `by` or its function `scan`. */
static bool word_is(const unsigned char *p, const unsigned char *e, const char *w)
{
    size_t n = strlen(w);
    return (size_t)(e - p) == n && memcmp(p, w, n) == 0;
}

static bool is_id_char(unsigned char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static int contextual_word(struct lexer *L)
{
    const unsigned char *p = L->tok, *e = L->cur;
    bool scan = word_is(p, e, "scan"), by = word_is(p, e, "by");
    if (!scan && !by)
        return TK_NAME;
    const unsigned char *q = e;
    while (q < L->end && (*q == ' ' || *q == '\t'))
        q++;
    if (q == e || q >= L->end)
        return TK_NAME;
    const unsigned char *w = q;
    while (w < L->end && is_id_char(*w))
        w++;
    if (scan) {
        if (!(word_is(q, w, "sum") || word_is(q, w, "product") || word_is(q, w, "min") || word_is(q, w, "max")))
            return TK_NAME;
        while (w < L->end && (*w == ' ' || *w == '\t'))
            w++;
        return w < L->end && *w == '(' ? TK_SCAN : TK_NAME;
    }
    if (L->depth == 0)
        return TK_NAME;
    if (*q == '(' || *q == '-')
        return TK_BY;
    if (w == q)
        return TK_NAME;
    static const char *const kw[] = {"for", "if", "in", "and", "or", "not", "else", "elif", "lambda", NULL};
    for (int i = 0; kw[i]; i++)
        if (word_is(q, w, kw[i]))
            return TK_NAME;
    return TK_BY;
}

/* ---- numbers ------------------------------------------------------------- */

static void int_value(struct lexer *L, struct token *t)
{
    const unsigned char *p = L->tok, *e = L->cur;
    unsigned base = 10;
    if (e - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        base = 16, p += 2;
    else if (e - p > 2 && p[0] == '0' && (p[1] == 'b' || p[1] == 'B'))
        base = 2, p += 2;
    unsigned __int128 v = 0, max = ~(unsigned __int128)0;
    bool too_big = false;
    for (; p < e; p++) {
        unsigned d;
        if (*p == '_')
            continue;
        if (*p >= '0' && *p <= '9')
            d = *p - '0';
        else if (*p >= 'a' && *p <= 'f')
            d = *p - 'a' + 10;
        else
            d = *p - 'A' + 10;
        if (v > (max - d) / base)
            too_big = true;
        else
            v = v * base + d;
    }
    t->ival = v;
    t->too_big = too_big;
}

static void float_value(struct lexer *L, struct token *t)
{
    char tmp[128];
    char *s = tmp;
    size_t n = (size_t)(L->cur - L->tok);
    if (n + 1 > sizeof tmp)
        s = xmalloc(n + 1);
    size_t k = 0;
    for (const unsigned char *p = L->tok; p < L->cur; p++)
        if (*p != '_')
            s[k++] = (char)*p;
    s[k] = '\0';
    t->fval = strtod(s, NULL);
    if (s != tmp)
        free(s);
    if (isinf(t->fval))
        error_at(t->loc, "float literal is out of range (larger than the largest float)");
}

/* ---- strings --------------------------------------------------------------- */

static void add_codepoint(struct lexer *L, unsigned long cp)
{
    char b[4];
    if (cp < 0x80) {
        buf_byte(L, (char)cp);
    } else if (cp < 0x800) {
        b[0] = (char)(0xc0 | cp >> 6);
        b[1] = (char)(0x80 | (cp & 0x3f));
        buf_add(L, b, 2);
    } else if (cp < 0x10000) {
        b[0] = (char)(0xe0 | cp >> 12);
        b[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        b[2] = (char)(0x80 | (cp & 0x3f));
        buf_add(L, b, 3);
    } else {
        b[0] = (char)(0xf0 | cp >> 18);
        b[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
        b[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
        b[3] = (char)(0x80 | (cp & 0x3f));
        buf_add(L, b, 4);
    }
}

static void unicode_escape(struct lexer *L)
{
    const unsigned char *p = L->tok + 3; /* after \u{ */
    struct loc l = span(L, L->tok, L->cur);
    if (L->cur - 1 - p > 6)
        error_at(l, "unicode escape has more than 6 hex digits");
    unsigned long cp = strtoul((const char *)p, NULL, 16);
    if (cp > 0x10ffff)
        error_at(l, "unicode escape out of range: U+%lX is above U+10FFFF", cp);
    if (cp >= 0xd800 && cp <= 0xdfff)
        error_at(l, "unicode escape U+%lX is a surrogate, not a character", cp);
    add_codepoint(L, cp);
}

/* The body of "..." (is_f false) or of f"..." (is_f true, one piece per
 * call: text, '{', or the closing quote). `open` is the opening quote. */
static void lex_string_body(struct lexer *L, struct token *t, bool is_f)
{
    const unsigned char *start = L->cur;
    L->buflen = 0;
    for (;;) {
        L->tok = L->cur;
        /*!re2c
        "\"" {
            if (!is_f) {
                set_token(L, t, TK_STRING, L->str_open);
                t->str = arena_strndup(L->buf ? L->buf : "", L->buflen);
                t->str_len = L->buflen;
                return;
            }
            if (L->tok > start) {
                L->cur = L->tok;
                goto text;
            }
            L->mode = LM_CODE;
            set_token(L, t, TK_FEND, L->tok);
            return;
        }
        "{{" { if (is_f) buf_byte(L, '{'); else buf_add(L, "{{", 2); continue; }
        "}}" { if (is_f) buf_byte(L, '}'); else buf_add(L, "}}", 2); continue; }
        "{" {
            if (!is_f) {
                buf_byte(L, '{');
                continue;
            }
            if (L->tok > start) {
                L->cur = L->tok;
                goto text;
            }
            L->mode = LM_FEXPR;
            L->fexpr_depth = L->depth;
            set_token(L, t, TK_FLBRACE, L->tok);
            return;
        }
        "}" {
            if (!is_f) {
                buf_byte(L, '}');
                continue;
            }
            error_at(span(L, L->tok, L->cur),
                     "single '}' in an f-string; write '}}' for a literal brace");
        }
        "\\n"  { buf_byte(L, '\n'); continue; }
        "\\t"  { buf_byte(L, '\t'); continue; }
        "\\r"  { buf_byte(L, '\r'); continue; }
        "\\0"  { buf_byte(L, '\0'); continue; }
        "\\\\" { buf_byte(L, '\\'); continue; }
        "\\\"" { buf_byte(L, '"'); continue; }
        "\\{"  { buf_byte(L, '{'); continue; }
        "\\}"  { buf_byte(L, '}'); continue; }
        "\\u{" [0-9a-fA-F]+ "}" { unicode_escape(L); continue; }
        "\\u"  {
            error_at(span(L, L->tok, L->cur), "invalid unicode escape; write \\u{HEX} with 1 to 6 hex digits");
        }
        "\\" {
            int n = 0;
            if (!(*L->cur == '\n' || *L->cur == '\r' || *L->cur == 0))
                n = *L->cur < 0x80 ? 1 : utf8_len(L->cur);
            if (n == 0)
                n = 1;
            error_at(span(L, L->tok, L->cur + n), "invalid escape sequence '\\%.*s' in a string",
                     n, (const char *)L->cur);
        }
        eol | "\r" {
            error_at(span_to_eol(L, L->str_open), "unterminated %sstring: missing closing '\"'",
                     is_f ? "f-" : "");
        }
        "\x00" {
            if (L->tok >= L->end)
                error_at(span_to_eol(L, L->str_open), "unterminated %sstring: missing closing '\"'",
                         is_f ? "f-" : "");
            bad_char(L, L->tok, " in a string");
        }
        [\x01-\x7f] { buf_byte(L, (char)*L->tok); continue; }
        utf8 { buf_add(L, L->tok, (size_t)(L->cur - L->tok)); continue; }
        * { bad_char(L, L->tok, " in a string"); }
        */
    }
text:
    set_token(L, t, TK_FTEXT, start);
    t->str = arena_strndup(L->buf ? L->buf : "", L->buflen);
    t->str_len = L->buflen;
}

/* After the ':' of {expr:spec}: the spec runs to the '}'. */
static void lex_spec(struct lexer *L, struct token *t)
{
    const unsigned char *p = L->cur;
    for (;;) {
        if (*p == '}')
            break;
        if (*p == '{')
            error_at(span(L, p, p + 1), "'{' is not allowed in a format spec");
        if (*p == '"' || *p == '\n' || *p == '\r' || (*p == 0 && p >= L->end))
            error_at(span(L, L->cur - 1, p), "format spec is missing its closing '}'");
        if (*p == '\\')
            error_at(span(L, p, p + 1), "'\\' is not allowed in a format spec");
        int n = utf8_len(p);
        if (n == 0 || *p == 0 || *p < 0x20)
            bad_char(L, p, " in a format spec");
        p += n;
    }
    const unsigned char *from = L->cur;
    L->cur = p;
    set_token(L, t, TK_FSPEC, from);
    L->mode = LM_FSPEC_DONE;
}

/* ---- code ------------------------------------------------------------------ */

static void open_bracket(struct lexer *L, char c)
{
    struct loc l = span(L, L->tok, L->cur);
    if (L->depth >= MAX_NESTING)
        error_at(l, "nesting deeper than %d levels", MAX_NESTING);
    L->brackets[L->depth] = l;
    L->bracket_ch[L->depth] = c;
    L->depth++;
}

static void close_bracket(struct lexer *L, char c)
{
    struct loc l = span(L, L->tok, L->cur);
    char open = c == ')' ? '(' : '[';
    int floor = L->mode == LM_FEXPR ? L->fexpr_depth : 0;
    if (L->depth <= floor)
        error_at(l, "unmatched '%c'", c);
    if (L->bracket_ch[L->depth - 1] != open)
        error_at(l, "closing '%c' does not match the opening '%c' on line %d", c,
                 L->bracket_ch[L->depth - 1], L->brackets[L->depth - 1].line);
    L->depth--;
}

static struct loc loc_at_end(struct lexer *L)
{
    /* At the very end: after a final newline, point at the end of the last
     * line instead of an empty line that does not exist. */
    const struct source *src = source_get(L->file);
    struct loc l;
    l.file = L->file;
    if (L->line > src->nlines && src->nlines > 0) {
        int line = src->nlines;
        size_t s = (size_t)src->line_starts[line - 1], e = s;
        while (e < src->len && src->text[e] != '\n' && src->text[e] != '\r')
            e++;
        l.line = l.end_line = line;
        l.col = (int)(e - s) + 1;
    } else {
        l.line = l.end_line = L->line;
        l.col = (int)(L->cur - L->line_start) + 1;
    }
    l.end_col = l.col + 1;
    return l;
}

static void eof_token(struct lexer *L, struct token *t)
{
    if (L->mode != LM_CODE)
        error_at(span_to_eol(L, L->str_open), "unterminated f-string: missing closing '\"'");
    if (L->depth > 0)
        error_at(L->brackets[L->depth - 1], "'%c' was never closed", L->bracket_ch[L->depth - 1]);
    int kind = TK_YYEOF;
    if (L->line_has_tokens) {
        kind = TK_NEWLINE;
        L->line_has_tokens = false;
    } else if (L->nindents > 1) {
        kind = TK_DEDENT;
        L->nindents--;
    }
    t->kind = kind;
    t->loc = loc_at_end(L);
    t->text = (const char *)L->cur;
    t->len = 0;
}

static void lex_code(struct lexer *L, struct token *t)
{
    for (;;) {
        L->tok = L->cur;
        /*!re2c
        [ \t]+ { continue; }
        "#" {
            if (L->mode == LM_FEXPR)
                error_at(span(L, L->tok, L->cur), "'#' is not allowed inside an f-string expression");
            skip_comment(L);
            continue;
        }
        eol {
            if (L->mode == LM_FEXPR)
                error_at(span_to_eol(L, L->str_open), "unterminated f-string: missing closing '\"'");
            if (L->depth > 0) {
                newline(L, L->cur);
                continue;
            }
            /* The NEWLINE token sits on the line it ends. */
            set_token(L, t, TK_NEWLINE, L->tok);
            t->loc.end_col = t->loc.col + 1;
            L->line_has_tokens = false;
            newline(L, L->cur);
            L->at_line_start = true;
            return;
        }
        "\x00" {
            if (L->tok >= L->end) {
                L->cur = L->tok; /* stay at the end: every later call is EOF too */
                eof_token(L, t);
                return;
            }
            bad_char(L, L->tok, "");
        }

        "fn"       { set_token(L, t, TK_FN, L->tok); return; }
        "let"      { set_token(L, t, TK_LET, L->tok); return; }
        "var"      { set_token(L, t, TK_VAR, L->tok); return; }
        "if"       { set_token(L, t, TK_IF, L->tok); return; }
        "elif"     { set_token(L, t, TK_ELIF, L->tok); return; }
        "else"     { set_token(L, t, TK_ELSE, L->tok); return; }
        "while"    { set_token(L, t, TK_WHILE, L->tok); return; }
        "for"      { set_token(L, t, TK_FOR, L->tok); return; }
        "in"       { set_token(L, t, TK_IN, L->tok); return; }
        "return"   { set_token(L, t, TK_RETURN, L->tok); return; }
        "break"    { set_token(L, t, TK_BREAK, L->tok); return; }
        "continue" { set_token(L, t, TK_CONTINUE, L->tok); return; }
        "pass"     { set_token(L, t, TK_PASS, L->tok); return; }
        "assert"   { set_token(L, t, TK_ASSERT, L->tok); return; }
        "par"      { set_token(L, t, TK_PAR, L->tok); return; }
        "and"      { set_token(L, t, TK_AND, L->tok); return; }
        "or"       { set_token(L, t, TK_OR, L->tok); return; }
        "not"      { set_token(L, t, TK_NOT, L->tok); return; }
        "true"     { set_token(L, t, TK_TRUE, L->tok); return; }
        "false"    { set_token(L, t, TK_FALSE, L->tok); return; }
        "import"   { set_token(L, t, TK_IMPORT, L->tok); return; }
        "struct"   { set_token(L, t, TK_STRUCT, L->tok); return; }
        "lambda"   { set_token(L, t, TK_LAMBDA, L->tok); return; }
        "None"     { set_token(L, t, TK_NONE, L->tok); return; }
        id         { set_token(L, t, contextual_word(L), L->tok); return; }

        dec | hex | bin { set_token(L, t, TK_INT, L->tok); int_value(L, t); return; }
        float      { set_token(L, t, TK_FLOAT, L->tok); float_value(L, t); return; }
        badnum {
            error_at(span(L, L->tok, L->cur), "invalid number literal '%.*s'",
                     (int)(L->cur - L->tok), (const char *)L->tok);
        }

        "\"" {
            if (L->mode == LM_FEXPR)
                error_at(span(L, L->tok, L->cur), "expected '}' to end the f-string expression, found '\"' (string literals are not allowed inside f-string expressions)");
            L->str_open = L->tok;
            lex_string_body(L, t, false);
            return;
        }
        "f\"" {
            if (L->mode == LM_FEXPR)
                error_at(span(L, L->tok, L->cur), "f-strings cannot be nested inside an f-string expression");
            L->str_open = L->tok;
            L->mode = LM_FSTR;
            set_token(L, t, TK_FSTART, L->tok);
            return;
        }

        "(" { open_bracket(L, '('); set_token(L, t, '(', L->tok); return; }
        "[" { open_bracket(L, '['); set_token(L, t, '[', L->tok); return; }
        ")" { close_bracket(L, ')'); set_token(L, t, ')', L->tok); return; }
        "]" { close_bracket(L, ']'); set_token(L, t, ']', L->tok); return; }
        ":" {
            if (L->mode == LM_FEXPR && L->depth == L->fexpr_depth) {
                lex_spec(L, t);
                return;
            }
            set_token(L, t, ':', L->tok);
            return;
        }
        "}" {
            if (L->mode == LM_FEXPR && L->depth == L->fexpr_depth) {
                L->mode = LM_FSTR;
                set_token(L, t, TK_FRBRACE, L->tok);
                return;
            }
            bad_char(L, L->tok, "");
        }
        "->"  { set_token(L, t, TK_ARROW, L->tok); return; }
        "..=" { set_token(L, t, TK_DOTDOTEQ, L->tok); return; }
        ".."  { set_token(L, t, TK_DOTDOT, L->tok); return; }
        "=="  { set_token(L, t, TK_EQ, L->tok); return; }
        "!="  { set_token(L, t, TK_NE, L->tok); return; }
        "<="  { set_token(L, t, TK_LE, L->tok); return; }
        ">="  { set_token(L, t, TK_GE, L->tok); return; }
        "<<=" { set_token(L, t, TK_SHLEQ, L->tok); return; }
        ">>=" { set_token(L, t, TK_SHREQ, L->tok); return; }
        "<<"  { set_token(L, t, TK_SHL, L->tok); return; }
        ">>"  { set_token(L, t, TK_SHR, L->tok); return; }
        "+="  { set_token(L, t, TK_PLUSEQ, L->tok); return; }
        "-="  { set_token(L, t, TK_MINUSEQ, L->tok); return; }
        "*="  { set_token(L, t, TK_STAREQ, L->tok); return; }
        "/="  { set_token(L, t, TK_SLASHEQ, L->tok); return; }
        "%="  { set_token(L, t, TK_PERCENTEQ, L->tok); return; }
        "&="  { set_token(L, t, TK_AMPEQ, L->tok); return; }
        "|="  { set_token(L, t, TK_PIPEEQ, L->tok); return; }
        "^="  { set_token(L, t, TK_CARETEQ, L->tok); return; }
        [,.=<>+\-*/%&|^~] { set_token(L, t, *L->tok, L->tok); return; }
        "**" {
            error_at(span(L, L->tok, L->cur), "there is no '**' operator; use pow(x, y) for floats");
        }
        "!" {
            if (L->mode == LM_FEXPR)
                error_at(span(L, L->tok, L->cur), "'!' conversions are not supported in f-strings; use a format spec after ':'");
            error_at(span(L, L->tok, L->cur), "invalid character '!'; write 'not' for logical negation"); }
        * { bad_char(L, L->tok, ""); }
        */
    }
}

/* At the start of a line outside brackets: skip blank and comment-only
 * lines, then compare the indentation with the stack. Returns true when it
 * produced an INDENT or DEDENT. */
static bool line_start(struct lexer *L, struct token *t)
{
    for (;;) {
        const unsigned char *p = L->cur;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '#') {
            L->cur = p + 1;
            skip_comment(L);
            p = L->cur;
        }
        if (*p == '\n') {
            newline(L, p + 1);
            L->cur = p + 1;
            continue;
        }
        if (*p == '\r' && p[1] == '\n') {
            newline(L, p + 2);
            L->cur = p + 2;
            continue;
        }
        L->at_line_start = false;
        if (*p == 0 && p >= L->end) {
            L->cur = p;
            return false; /* the end: lex_code emits the closing tokens */
        }
        for (const unsigned char *q = L->cur; q < p; q++)
            if (*q == '\t')
                error_at(span(L, q, q + 1), "tab in indentation; indent with spaces only");
        int n = (int)(p - L->cur);
        int top = L->indents[L->nindents - 1];
        L->cur = p;
        L->tok = p;
        if (n > top) {
            struct loc l = span(L, p, p + 1);
            if (L->nindents > MAX_NESTING)
                error_at(l, "nesting deeper than %d levels", MAX_NESTING);
            L->indents[L->nindents++] = n;
            t->kind = TK_INDENT;
            t->loc = span(L, L->line_start, p);
            t->text = (const char *)p;
            t->len = 0;
            return true;
        }
        if (n < top) {
            int k = L->nindents;
            while (k > 1 && L->indents[k - 1] > n)
                k--;
            if (L->indents[k - 1] != n)
                error_at(span(L, L->line_start, p > L->line_start ? p : p + 1),
                         "unindent does not match any outer indentation level");
            L->pending_dedents = L->nindents - k - 1;
            L->nindents = k;
            t->kind = TK_DEDENT;
            t->loc = span(L, p, p + 1);
            t->text = (const char *)p;
            t->len = 0;
            return true;
        }
        return false;
    }
}

void lexer_next(struct lexer *L, struct token *t)
{
    memset(t, 0, sizeof *t);
    if (L->pending_dedents > 0) {
        L->pending_dedents--;
        t->kind = TK_DEDENT;
        t->loc = span(L, L->cur, L->cur + 1);
        t->text = (const char *)L->cur;
        return;
    }
    switch (L->mode) {
    case LM_CODE:
        if (L->at_line_start && L->depth == 0 && line_start(L, t))
            return;
        lex_code(L, t);
        return;
    case LM_FEXPR:
        lex_code(L, t);
        return;
    case LM_FSTR:
        lex_string_body(L, t, true);
        return;
    case LM_FSPEC_DONE:
        /* lex_spec stopped at the '}' */
        L->tok = L->cur;
        L->cur++;
        L->mode = LM_FSTR;
        set_token(L, t, TK_FRBRACE, L->tok);
        return;
    }
}

/* ---- --dump=tokens --------------------------------------------------------- */

#define TOKEN_NAMES(X)                                                                      \
    X(NAME) X(INT) X(FLOAT) X(STRING) X(FSTART) X(FTEXT) X(FLBRACE) X(FSPEC) X(FRBRACE)       \
    X(FEND) X(FN) X(LET) X(VAR) X(IF) X(ELIF) X(ELSE) X(WHILE) X(FOR) X(IN) X(RETURN)         \
    X(BREAK) X(CONTINUE) X(PASS) X(PAR) X(AND) X(OR) X(NOT) X(TRUE) X(FALSE) X(IMPORT)        \
    X(ARROW) X(DOTDOT) X(DOTDOTEQ) X(EQ) X(NE) X(LE) X(GE) X(SHL) X(SHR) X(PLUSEQ) X(MINUSEQ) \
    X(STAREQ) X(SLASHEQ) X(PERCENTEQ) X(AMPEQ) X(PIPEEQ) X(CARETEQ) X(SHLEQ) X(SHREQ)         \
    X(NEWLINE) X(INDENT) X(DEDENT)                                                         \
    X(STRUCT) X(SCAN) X(BY)

const char *token_kind_name(int kind)
{
    switch (kind) {
    case TK_YYEOF: return "EOF";
#define X(k) case TK_##k: return #k;
    TOKEN_NAMES(X)
#undef X
    case '(': return "LPAREN";
    case ')': return "RPAREN";
    case '[': return "LBRACKET";
    case ']': return "RBRACKET";
    case ',': return "COMMA";
    case ':': return "COLON";
    case '.': return "DOT";
    case '=': return "ASSIGN";
    case '<': return "LT";
    case '>': return "GT";
    case '+': return "PLUS";
    case '-': return "MINUS";
    case '*': return "STAR";
    case '/': return "SLASH";
    case '%': return "PERCENT";
    case '&': return "AMP";
    case '|': return "PIPE";
    case '^': return "CARET";
    case '~': return "TILDE";
    }
    return "?";
}

void dump_tokens(FILE *out, int file)
{
    struct lexer L;
    lexer_init(&L, file);
    for (;;) {
        struct token t;
        lexer_next(&L, &t);
        fprintf(out, "%d:%d %s", t.loc.line, t.loc.col, token_kind_name(t.kind));
        if (t.len > 0 && t.kind != TK_NEWLINE) {
            fputc(' ', out);
            fwrite(t.text, 1, t.len, out);
        }
        fputc('\n', out);
        if (t.kind == TK_YYEOF)
            break;
    }
    free(L.buf);
}
