/*
 * embed.c: text files -> one C file of string constants (a build tool, run
 * by the Makefile; it needs nothing but a C compiler).
 *
 *   embed NAME FILE [NAME FILE]... > OUT.c
 *
 * defines, for each pair, `const char NAME[]` holding FILE's text and
 * `const size_t NAME_len` its length. The text is FILE byte for byte, but
 * for two things meant for readers of the source, not for whoever compiles
 * the text:
 *   - a banner: when FILE starts with a line that only opens a comment,
 *     that comment, through its closing line, and one blank line after it
 *     are left out;
 *   - a line `#include "PATH"` (PATH relative to FILE's folder) is replaced
 *     by PATH's #define lines, with their comments removed. PATH must hold
 *     nothing else: one-line #defines, comments and blank lines (anything
 *     else is an error, so a header cannot grow into something this would
 *     silently drop);
 *   - a line `#include "PATH"` followed by the comment `text` is replaced
 *     by PATH's whole text, treated the same way (its banner left out, its
 *     own includes replaced): that is how brine's math (runtime/crmath/)
 *     reaches the kernels as the very source the runtime compiles.
 * That is how the GPU kernels' prelude (runtime-gpu/kernel_prelude.h) gets
 * the runtime's constants (runtime/reduce_shape.h) as text: NVRTC compiles
 * the kernels from a string, with no include path.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *prog = "embed";

static void die(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "%s: ", prog);
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    exit(1);
}

/* The whole file, NUL-terminated; a NUL inside is an error. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) die("cannot open %s%s", path, "");
    size_t n = 0, cap = 4096;
    char *s = malloc(cap);
    size_t got;
    while (s && (got = fread(s + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (cap - n - 1 == 0) s = realloc(s, cap *= 2);
    }
    if (!s || ferror(f)) die("cannot read %s%s", path, "");
    fclose(f);
    s[n] = 0;
    if (strlen(s) != n) die("%s holds a NUL byte%s", path, "");
    *len = n;
    return s;
}

/* out += the n bytes at p */
struct buf {
    char *p;
    size_t len, cap;
};
static void put(struct buf *b, const char *p, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        while (b->len + n + 1 > b->cap) b->cap = b->cap ? 2 * b->cap : 4096;
        b->p = realloc(b->p, b->cap);
        if (!b->p) die("out of memory%s%s", "", "");
    }
    memcpy(b->p + b->len, p, n);
    b->len += n;
    b->p[b->len] = 0;
}

/* The #define lines of a header of one-line #defines and comments. */
static void defines_of(struct buf *out, const char *path)
{
    size_t n;
    char *s = slurp(path, &n);
    int in_comment = 0;
    for (char *line = s; *line;) {
        char *eol = strchr(line, '\n');
        size_t ln = eol ? (size_t)(eol - line) : strlen(line);
        struct buf code = {0};
        put(&code, "", 0);
        for (size_t i = 0; i < ln; i++) {
            if (in_comment) {
                if (line[i] == '*' && i + 1 < ln && line[i + 1] == '/') in_comment = 0, i++;
            } else if (line[i] == '/' && i + 1 < ln && line[i + 1] == '*') {
                in_comment = 1, i++;
            } else {
                put(&code, &line[i], 1);
            }
        }
        while (code.len && (code.p[code.len - 1] == ' ' || code.p[code.len - 1] == '\t')) code.p[--code.len] = 0;
        if (code.len) {
            if (strncmp(code.p, "#define ", 8) != 0 || code.p[code.len - 1] == '\\')
                die("%s: only one-line #defines and comments can be embedded, found: %s", path, code.p);
            put(out, code.p, code.len);
            put(out, "\n", 1);
        }
        free(code.p);
        line += ln + (eol != NULL);
    }
    if (in_comment) die("%s: unterminated comment%s", path, "");
    free(s);
}

/* FILE's text as it is to be embedded (see the top of this file). */
static struct buf text_of(const char *path)
{
    size_t n;
    char *s = slurp(path, &n);
    char *p = s;
    if (strncmp(p, "/*\n", 3) == 0) {
        char *end = strstr(p, "\n */\n");
        if (!end) die("%s: the banner has no end line \" */\"%s", path, "");
        p = end + 5;
        if (*p == '\n') p++;
    }
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path + 1) : 0;
    struct buf out = {0};
    put(&out, "", 0);
    while (*p) {
        char *eol = strchr(p, '\n');
        size_t ln = eol ? (size_t)(eol - p + 1) : strlen(p);
        if (strncmp(p, "#include \"", 10) == 0) {
            const char *name = p + 10, *q = memchr(name, '"', ln - 10);
            if (!q) die("%s: unterminated #include%s", path, "");
            char *inc = malloc(dirlen + (size_t)(q - name) + 1);
            memcpy(inc, path, dirlen);
            memcpy(inc + dirlen, name, (size_t)(q - name));
            inc[dirlen + (size_t)(q - name)] = 0;
            if (strstr(q, "/* text */") && strstr(q, "/* text */") < p + ln) {
                struct buf t = text_of(inc);
                put(&out, t.p, t.len);
                free(t.p);
            } else {
                defines_of(&out, inc);
            }
            free(inc);
        } else {
            put(&out, p, ln);
        }
        p += ln;
    }
    free(s);
    return out;
}

/* A C string literal, one source line per line of text. */
static void c_string(const char *s)
{
    fputs("    \"", stdout);
    for (const char *p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '\n')
            fputs(p[1] ? "\\n\"\n    \"" : "\\n", stdout);
        else if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c >= 32 && c < 127 && c != '?') /* '?': no trigraphs */
            putchar(c);
        else
            printf("\\%03o", c);
    }
    fputs("\"", stdout);
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc % 2 != 1) {
        fprintf(stderr, "usage: %s NAME FILE [NAME FILE]... > OUT.c\n", prog);
        return 2;
    }
    printf("/* Generated by tools/embed.c from");
    for (int i = 2; i < argc; i += 2) printf(" %s", argv[i]);
    printf(": do not edit. */\n#include <stddef.h>\n");
    for (int i = 1; i < argc; i += 2) {
        struct buf t = text_of(argv[i + 1]);
        printf("\nconst char %s[] =\n", argv[i]);
        c_string(t.p);
        printf(";\nconst size_t %s_len = sizeof %s - 1;\n", argv[i], argv[i]);
        free(t.p);
    }
    if (fflush(stdout) != 0 || ferror(stdout)) die("cannot write the output%s%s", "", "");
    return 0;
}
