/*
 * fmt.c: `brine fmt`, the formatter (docs/cli.md, "brine fmt").
 *
 * A token-stream formatter, not an AST pretty-printer: the file is parsed
 * first (so a syntax error is reported as the compiler reports it, and the
 * file is left alone), then lexed again with lexer_next, and every byte the
 * tokens do not cover is whitespace or a comment: the comments are found in
 * those gaps. The output is rebuilt one physical line at a time:
 *
 *   - a logical line starts at 4 spaces per block level;
 *   - inside ( ) and [ ] the user's line breaks stay: a continuation line is
 *     indented 4 past the line that opened its innermost bracket, a line
 *     that starts with a closing bracket as the line that opened it;
 *   - between tokens the spacing is fixed (space_between);
 *   - f-strings are copied byte for byte, string literals are one token;
 *   - a comment after code stays after it, two spaces away; a comment on its
 *     own line stays on its own line, at the level of the code around it
 *     (at a block's end: the deepest level its column reaches);
 *   - blank lines: none at the start, none after a block header, runs
 *     collapsed to one, and exactly one around a top-level fn (with the
 *     comments directly above it).
 *
 * The result is checked before it is written: lexing it gives the same
 * tokens (layout tokens by kind, the rest byte for byte) and the same
 * comments, and formatting it again changes nothing. If not, that is a bug
 * here: internal error, exit 70, nothing written. Each file is formatted
 * in a child process, so one file's syntax error (error_at exits) leaves the
 * others to be done.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "driver.h"
#include "parser.h"

/* A token with its place; col is 1-based. */
struct ftok {
    int kind;
    int line, col;
    const char *text;
    size_t len;
};

/* A comment: '#' to the end of its line, trailing blanks dropped. `before`:
 * the index of the token it precedes. */
struct fcomment {
    int line, col;
    const char *text;
    size_t len;
    int before;
};

struct scan {
    struct ftok *toks;
    int ntoks, cap;
    struct fcomment *comments;
    int ncomments, ccap;
};

/* The 1-based line of byte offset off. */
static int line_of(const struct source *src, size_t off)
{
    int lo = 0, hi = src->nlines - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if ((size_t)src->line_starts[mid] <= off)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo + 1;
}

/* The comments in [from, to) of file's text: everything there that is not
 * blank is one. */
static void gap_comments(struct scan *s, const struct source *src, const char *from, const char *to, int before)
{
    for (const char *p = from; p < to; p++) {
        if (*p != '#')
            continue;
        const char *e = p;
        while (e < to && *e != '\n')
            e++;
        const char *end = e;
        while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
            end--;
        VEC_GROW(s->comments, s->ncomments, s->ccap);
        size_t off = (size_t)(p - src->text);
        int line = line_of(src, off);
        s->comments[s->ncomments++] = (struct fcomment){
            line, (int)(off - (size_t)src->line_starts[line - 1]) + 1, p, (size_t)(end - p), before};
        p = e;
    }
}

/* All tokens of file (to EOF) and its comments. Lexer errors exit. */
static struct scan scan_file(int file)
{
    const struct source *src = source_get(file);
    struct scan s = {0};
    struct lexer L;
    lexer_init(&L, file);
    const char *prev_end = src->text;
    for (;;) {
        struct token t;
        lexer_next(&L, &t);
        VEC_GROW(s.toks, s.ntoks, s.cap);
        /* an INDENT's span runs from the line start to the first token */
        int col = t.kind == TK_INDENT ? t.loc.end_col : t.loc.col;
        s.toks[s.ntoks] = (struct ftok){t.kind, t.loc.line, col, t.text, t.len};
        if (t.len > 0 || t.kind == TK_YYEOF) {
            const char *start = t.kind == TK_YYEOF ? src->text + src->len : t.text;
            gap_comments(&s, src, prev_end, start, s.ntoks);
            prev_end = t.text + t.len;
        }
        s.ntoks++;
        if (t.kind == TK_YYEOF)
            break;
    }
    free(L.buf);
    return s;
}

/* ---- the layout ------------------------------------------------------------ */

/* One output line, before its blank lines are decided. */
struct fline {
    struct buf text;
    int src_line; /* the source line it comes from */
    int level;    /* block level of its logical line */
    int indent;   /* spaces */
    bool comment; /* a comment on its own line */
    bool cont;    /* a continuation line inside brackets */
    bool header;  /* ends in the ':' of a block header */
    bool fn;      /* a top-level statement starting with fn */
    bool fn_head; /* the first line of a top-level fn, comments above it included */
};

struct layout {
    struct fline *lines;
    int n, cap;
};

static struct fline *new_line(struct layout *lo, int src_line, int level, int indent)
{
    VEC_GROW(lo->lines, lo->n, lo->cap);
    struct fline *l = &lo->lines[lo->n++];
    memset(l, 0, sizeof *l);
    bputs(&l->text, "");
    l->src_line = src_line;
    l->level = level;
    l->indent = indent;
    return l;
}

/* After these a '(' is a call, a '[' an index, a '-' binary. */
static bool operand_end(int k)
{
    return k == TK_NAME || k == TK_INT || k == TK_FLOAT || k == TK_STRING || k == TK_TRUE || k == TK_FALSE ||
           k == TK_NONE || k == ')' || k == ']' || k == TK_FEND;
}

/* The spacing rule between two tokens of one line: one space, except none
 * inside brackets, before ',' ':' and '.', after '.', around '..' and '..=',
 * after a unary '-' or '~', after the ':' of a slice (in_square: the
 * innermost open bracket is '['; a lambda's ':' is not a slice's), before
 * the '(' of a call and the '[' of an index, and between the 'fn' of a
 * type and its '('. A unary '-' before another '-' keeps its space
 * (`- -2.5`, never `--2.5`, which reads as a decrement). */
static bool space_between(int prev, bool prev_unary, int cur, bool in_square)
{
    if (prev_unary && prev == '-' && cur == '-')
        return true;
    if (prev == '(' || prev == '[' || prev == '.' || prev_unary)
        return false;
    if (prev == TK_FN && cur == '(')
        return false;
    if (prev == ':' && in_square)
        return false;
    if (cur == ')' || cur == ']' || cur == ',' || cur == ':' || cur == '.')
        return false;
    if (prev == TK_DOTDOT || prev == TK_DOTDOTEQ || cur == TK_DOTDOT || cur == TK_DOTDOTEQ)
        return false;
    if ((cur == '(' || cur == '[') && operand_end(prev))
        return false;
    return true;
}

static void put_comment(struct fline *l, const struct fcomment *c)
{
    bputn(&l->text, c->text, c->len);
}

/* The formatted text of a scanned file. */
static struct buf layout_text(const struct scan *s, bool bom)
{
    struct layout lo = {0};
    int level = 0, prev_level = 0;
    int src_ind[MAX_NESTING + 2] = {0};
    int open_indent[MAX_NESTING + 1];
    char open_kind[MAX_NESTING + 1];
    int depth = 0;
    int cur = -1;       /* the code line being filled, or -1 at a line start */
    int last_line = 0;  /* the source line of the last token placed */
    int prev_kind = 0;  /* the last token of this logical line (0: none yet) */
    bool prev_unary = false;
    int lambdas[MAX_NESTING + 1]; /* the bracket depth of each lambda whose ':' is still to come */
    int nlambdas = 0;
    bool after_lambda_colon = false;
    int ci = 0;
    for (int j = 0; j < s->ntoks; j++) {
        const struct ftok *t = &s->toks[j];
        if (t->kind == TK_INDENT) {
            level++;
            src_ind[level] = t->col - 1;
            continue;
        }
        if (t->kind == TK_DEDENT) {
            level--;
            continue;
        }
        for (; ci < s->ncomments && s->comments[ci].before <= j; ci++) {
            const struct fcomment *c = &s->comments[ci];
            if (cur >= 0 && c->line == lo.lines[cur].src_line) {
                bputs(&lo.lines[cur].text, "  ");
                put_comment(&lo.lines[cur], c);
                continue;
            }
            int indent, lvl = level;
            if (depth > 0) {
                indent = open_indent[depth - 1] + 4;
            } else {
                int a = prev_level < level ? prev_level : level, b = prev_level < level ? level : prev_level;
                lvl = a;
                for (int l = a; l <= b; l++)
                    if (src_ind[l] <= c->col - 1)
                        lvl = l;
                indent = 4 * lvl;
            }
            struct fline *l = new_line(&lo, c->line, lvl, indent);
            l->comment = true;
            l->cont = depth > 0;
            put_comment(l, c);
        }
        if (t->kind == TK_YYEOF)
            break;
        if (t->kind == TK_NEWLINE) {
            cur = -1;
            prev_level = level;
            prev_kind = 0;
            nlambdas = 0;
            prev_unary = false;
            continue;
        }
        int kind = t->kind;
        if (cur < 0) {
            struct fline *l = new_line(&lo, t->line, level, 4 * level);
            l->fn = level == 0 && kind == TK_FN;
            cur = lo.n - 1;
        } else if (t->line != last_line) {
            int indent = open_indent[depth - 1] + (kind == ')' || kind == ']' ? 0 : 4);
            struct fline *l = new_line(&lo, t->line, level, indent);
            l->cont = true;
            cur = lo.n - 1;
        } else if (depth > 0 && (kind == '=' || prev_kind == '=')) {
            /* inside brackets '=' names a struct's field: Seg(lo=0.0) */
        } else if (space_between(prev_kind, prev_unary, kind,
                                 depth > 0 && open_kind[depth - 1] == '[' && !after_lambda_colon)) {
            bputs(&lo.lines[cur].text, " ");
        }
        after_lambda_colon = false;
        if (kind == TK_LAMBDA && nlambdas <= MAX_NESTING) {
            lambdas[nlambdas++] = depth;
        } else if (kind == ':' && nlambdas && lambdas[nlambdas - 1] == depth) {
            nlambdas--;
            after_lambda_colon = true;
        }
        struct fline *l = &lo.lines[cur];
        bool unary = kind == '~' || (kind == '-' && !operand_end(prev_kind));
        if (kind == TK_FSTART) {
            /* f-strings cannot nest: the first FEND closes this one */
            int k = j;
            while (s->toks[k].kind != TK_FEND)
                k++;
            bputn(&l->text, t->text, (size_t)(s->toks[k].text + s->toks[k].len - t->text));
            j = k;
            kind = TK_FEND;
        } else {
            bputn(&l->text, t->text, t->len);
        }
        if (kind == '(' || kind == '[') {
            open_kind[depth] = (char)kind;
            open_indent[depth++] = l->indent;
        }
        else if (kind == ')' || kind == ']')
            depth--;
        l->header = kind == ':' && depth == 0;
        last_line = t->line;
        prev_kind = kind;
        prev_unary = unary;
    }

    /* A top-level fn takes the comments directly above it along. */
    for (int k = 0; k < lo.n; k++) {
        if (!lo.lines[k].fn || lo.lines[k].cont)
            continue;
        int h = k;
        while (h > 0 && lo.lines[h - 1].comment && lo.lines[h - 1].level == 0 && !lo.lines[h - 1].cont &&
               lo.lines[h].src_line - lo.lines[h - 1].src_line == 1)
            h--;
        lo.lines[h].fn_head = true;
    }

    struct buf out = {0};
    bputs(&out, bom ? "\xef\xbb\xbf" : "");
    for (int k = 0; k < lo.n; k++) {
        struct fline *l = &lo.lines[k];
        if (k > 0) {
            const struct fline *p = &lo.lines[k - 1];
            bool blank = l->src_line - p->src_line > 1;
            if (p->header)
                blank = false;
            else if (l->level == 0 && !l->cont && (p->level > 0 || l->fn_head))
                blank = true;
            if (blank)
                bputs(&out, "\n");
        }
        bprintf(&out, "%*s", l->indent, "");
        bputn(&out, l->text.p, l->text.len);
        bputs(&out, "\n");
        free(l->text.p);
    }
    free(lo.lines);
    return out;
}

/* Formats a registered source file (which must parse). */
static struct buf format_file(int file)
{
    const struct source *src = source_get(file);
    bool bom = src->len >= 3 && memcmp(src->text, "\xef\xbb\xbf", 3) == 0;
    struct scan s = scan_file(file);
    struct buf out = layout_text(&s, bom);
    free(s.toks);
    free(s.comments);
    return out;
}

/* The language server's formatting (lsp.c): the registered source file
 * (which must parse) in the canonical layout, checked as brine fmt checks
 * it (internal error when the check fails). */
static void verify(int file, const struct buf *out);
struct buf fmt_source(int file)
{
    struct buf out = format_file(file);
    verify(file, &out);
    return out;
}

/* ---- the check --------------------------------------------------------------- */

static bool layout_kind(int k)
{
    return k == TK_NEWLINE || k == TK_INDENT || k == TK_DEDENT || k == TK_YYEOF;
}

static bool same_program(const struct scan *a, const struct scan *b)
{
    if (a->ntoks != b->ntoks || a->ncomments != b->ncomments)
        return false;
    for (int i = 0; i < a->ntoks; i++) {
        const struct ftok *x = &a->toks[i], *y = &b->toks[i];
        if (x->kind != y->kind)
            return false;
        if (!layout_kind(x->kind) && (x->len != y->len || memcmp(x->text, y->text, x->len) != 0))
            return false;
    }
    for (int i = 0; i < a->ncomments; i++) {
        const struct fcomment *x = &a->comments[i], *y = &b->comments[i];
        if (x->len != y->len || memcmp(x->text, y->text, x->len) != 0)
            return false;
    }
    return true;
}

/* In a child (so that a lexer error in the output cannot pass for the
 * user's): the output lexes to the same program, and is a fixed point. */
static void verify(int file, const struct buf *out)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0)
        internal_error("cannot fork to check the formatted text: %s", strerror(errno));
    if (pid == 0) {
        struct scan a = scan_file(file);
        int again = source_add(source_get(file)->name, out->p, out->len);
        struct scan b = scan_file(again);
        if (!same_program(&a, &b))
            _exit(3);
        struct buf twice = format_file(again);
        _exit(twice.len == out->len && memcmp(twice.p, out->p, out->len) == 0 ? 0 : 4);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            internal_error("cannot wait for the check of the formatted text: %s", strerror(errno));
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        internal_error("formatting %s %s; refusing to write it", source_get(file)->name,
                       WIFEXITED(st) && WEXITSTATUS(st) == 4 ? "is not idempotent"
                                                             : "would change its tokens or comments");
}

/* ---- the command --------------------------------------------------------------- */

/* The file at path replaced by data: a temporary file in the same directory
 * (of the link's target), then rename, so the file is never half written. */
static void replace_file(const char *path, const char *data, size_t len)
{
    char *real = realpath(path, NULL);
    if (!real) {
        fprintf(stderr, "brine: cannot write '%s': %s\n", path, strerror(errno));
        exit(EXIT_USAGE);
    }
    struct stat st;
    if (stat(real, &st) != 0) {
        fprintf(stderr, "brine: cannot write '%s': %s\n", path, strerror(errno));
        exit(EXIT_USAGE);
    }
    char *dir_copy = arena_strndup(real, strlen(real));
    const char *tmpl = arena_printf("%s/.brine-fmt-XXXXXX", dirname(dir_copy));
    char *tmp = arena_strndup(tmpl, strlen(tmpl));
    int fd = mkstemp(tmp);
    if (fd < 0) {
        fprintf(stderr, "brine: cannot write '%s': %s\n", path, strerror(errno));
        exit(EXIT_USAGE);
    }
    size_t done = 0;
    bool ok = true;
    while (ok && done < len) {
        ssize_t w = write(fd, data + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            ok = false;
        else
            done += (size_t)w;
    }
    int saved = errno;
    ok = ok && fchmod(fd, st.st_mode & 07777) == 0;
    if (ok)
        saved = errno;
    if (close(fd) != 0 && ok)
        ok = false, saved = errno;
    if (ok && rename(tmp, real) != 0)
        ok = false, saved = errno;
    if (!ok) {
        unlink(tmp);
        fprintf(stderr, "brine: cannot write '%s': %s\n", path, strerror(saved));
        exit(EXIT_USAGE);
    }
    free(real);
}

enum { FMT_OK = 0, FMT_DIFFERS = 3 };

/* What fmt does with a file whose layout differs. */
enum fmt_mode {
    FMT_WRITE, /* rewrite it */
    FMT_CHECK, /* --check: a diff that patch -p0 applies */
    FMT_LIST,  /* -l: its name */
};

/* One file (or "-": stdin to stdout). In a child: errors exit. */
static int fmt_one(const char *path, enum fmt_mode mode)
{
    size_t len;
    char *text;
    bool is_stdin = strcmp(path, "-") == 0;
    if (is_stdin) {
        text = read_stdin_source(&len);
        path = "<stdin>";
    } else {
        require_source(path);
        text = read_source(path, &len);
    }
    int file = source_add(path, text, len);
    parse_file(file, "main"); /* a syntax error: reported, exit 1 */
    struct buf out = format_file(file);
    verify(file, &out);
    const struct source *src = source_get(file);
    bool same = out.len == src->len && memcmp(out.p, src->text, out.len) == 0;
    if (same) {
    } else if (mode == FMT_LIST || (is_stdin && mode == FMT_CHECK)) {
        printf("%s\n", path);
    } else if (mode == FMT_CHECK) {
        /* The name on stderr, the patch alone on stdout. */
        fprintf(stderr, "%s: not formatted (-as is +formatted)\n", path);
        struct buf d = {0};
        bprintf(&d, "--- %s\n+++ %s\n", path, path);
        text_diff(&d, src->text, src->len, out.p, out.len, DIFF_PATCH);
        fwrite(d.p, 1, d.len, stdout);
        free(d.p);
    } else if (!is_stdin) {
        replace_file(path, out.p, out.len);
    }
    if (is_stdin && mode == FMT_WRITE)
        fwrite(out.p, 1, out.len, stdout);
    if (fflush(stdout) != 0) {
        fprintf(stderr, "brine: cannot write the output: %s\n", strerror(errno));
        exit(EXIT_USAGE);
    }
    return same || mode == FMT_WRITE ? FMT_OK : FMT_DIFFERS;
}

/* The order of exit statuses, the worst last. */
static int severity(int status)
{
    return status == EXIT_INTERNAL ? 3 : status == EXIT_USAGE ? 2 : status == EXIT_COMPILE ? 1 : 0;
}

struct file_list {
    char **paths;
    int n, cap;
};

static int cmp_paths(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every .br under dir, recursively, in sorted order; hidden entries (".git")
 * are skipped and links to directories not followed (as find(1)), so a link
 * cycle cannot make the walk endless. */
static void find_sources(const char *dir, struct file_list *list)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "brine: cannot read directory '%s': %s\n", dir, strerror(errno));
        exit(EXIT_USAGE);
    }
    struct file_list here = {0};
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.') {
            size_t n = strlen(dir);
            VEC_GROW(here.paths, here.n, here.cap);
            here.paths[here.n++] = arena_printf("%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/", e->d_name);
        }
    closedir(d);
    qsort(here.paths, (size_t)here.n, sizeof *here.paths, cmp_paths);
    for (int i = 0; i < here.n; i++) {
        struct stat st, lst;
        const char *p = here.paths[i];
        if (lstat(p, &lst) != 0 || stat(p, &st) != 0)
            continue;
        size_t n = strlen(p);
        if (S_ISDIR(st.st_mode) && !S_ISLNK(lst.st_mode))
            find_sources(p, list);
        else if (S_ISREG(st.st_mode) && n > 3 && strcmp(p + n - 3, ".br") == 0) {
            VEC_GROW(list->paths, list->n, list->cap);
            list->paths[list->n++] = here.paths[i];
        }
    }
    free(here.paths);
}

int fmt_main(int argc, char **argv)
{
    enum fmt_mode mode = FMT_WRITE;
    struct file_list files = {0};
    int noperands = 0;
    const char *v;
    struct cli_args args = cli_start("fmt", argc, argv);
    for (enum cli_id id; (id = cli_next(&args, &v)) != CLI_DONE;) {
        switch (id) {
        case CLI_OPERAND: {
            struct stat st;
            noperands++;
            if (strcmp(v, "-") != 0 && stat(v, &st) == 0 && S_ISDIR(st.st_mode)) {
                find_sources(v, &files);
            } else {
                VEC_GROW(files.paths, files.n, files.cap);
                files.paths[files.n++] = (char *)v;
            }
            break;
        }
        case CLI_HELP:
            cli_print_help(args.cmd, stdout);
            return 0;
        case OPT_CHECK:
            if (mode != FMT_LIST)
                mode = FMT_CHECK;
            break;
        case OPT_LIST: mode = FMT_LIST; break;
        default: internal_error("fmt: option %d not handled", (int)id);
        }
    }
    if (noperands == 0)
        command_line_error("fmt needs a source file or a directory (or '-' for stdin)");
    /* Worst first: 70 internal, 2 usage, 1 a syntax error or (--check, -l)
     * a file not formatted. */
    int worst = 0;
    for (int i = 0; i < files.n; i++) {
        fflush(stdout);
        fflush(stderr);
        pid_t pid = fork();
        if (pid < 0)
            internal_error("cannot fork: %s", strerror(errno));
        if (pid == 0)
            _exit(fmt_one(files.paths[i], mode));
        int st;
        while (waitpid(pid, &st, 0) < 0)
            if (errno != EINTR)
                internal_error("cannot wait: %s", strerror(errno));
        int r = WIFEXITED(st) ? WEXITSTATUS(st) : EXIT_INTERNAL;
        if (r == FMT_DIFFERS)
            r = EXIT_COMPILE;
        else if (r != 0 && r != EXIT_COMPILE && r != EXIT_USAGE)
            r = EXIT_INTERNAL;
        if (severity(r) > severity(worst))
            worst = r;
    }
    free(files.paths);
    return worst;
}
