/*
 * lsp_index.c: one analysis for the language server, run in a forked child
 * (lsp.h says why). The loader and the checker run on the editor's text with
 * a recovery point around them and diag.c's sink set, so that every way the
 * front end can end (a syntax error, errors after checking, a clean check)
 * comes back here; then the checked AST is walked once:
 *
 *   - every declaration and every use of a name becomes an occurrence of a
 *     symbol (locals, parameters, functions, constants, modules, structs
 *     and their fields, builtins and methods);
 *   - each symbol gets its type, a one-line signature (its detail) and, for
 *     top-level declarations, the comment lines written directly above it
 *     (a library function's doc);
 *   - par reductions and comprehensions are listed with their element type.
 * A half-checked AST (the file has errors) is walked the same way: nodes the
 * checker did not reach have no type or symbol and are skipped.
 */
#include "lsp.h"
#include "driver.h"
#include "emit_c.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct program *A_prog;   /* NULL until the loader finished */
static int A_file = -1;          /* the document's file id */
static int A_fd;
static struct buf A_syms, A_occ, A_par, A_bodies;
static int A_nsyms;
static struct map A_ids;         /* struct sym *, struct type * or "name" keys -> index + 1 */
static int A_scope0 = -1, A_scope1 = -1;

/* UTF-16 column (0-based) of a 1-based byte column on a 1-based line. */
static int u16col(int file, int line, int col)
{
    const struct source *s = source_get(file);
    if (line < 1 || line > s->nlines || col < 1)
        return 0;
    if (s->ascii) { /* one UTF-16 unit per byte, up to the line's end */
        int end = line < s->nlines ? s->line_starts[line] - 1 : (int)s->len; /* at the '\n' or the end */
        if (line == s->nlines && end > s->line_starts[line - 1] && s->text[end - 1] == '\n')
            end--;
        int n = end - s->line_starts[line - 1];
        return col - 1 < n ? col - 1 : n;
    }
    const unsigned char *p = (const unsigned char *)s->text + s->line_starts[line - 1];
    const unsigned char *end = (const unsigned char *)s->text + s->len;
    int n = 0;
    for (int i = 0; i < col - 1 && p + i < end && p[i] != '\n'; i++) {
        unsigned char c = p[i];
        if ((c & 0xc0) == 0x80)
            continue;
        n += c >= 0xf0 ? 2 : 1;
    }
    return n;
}

/* "LINE,COL,END_LINE,END_COL" of l: 0-based lines, UTF-16 columns */
static void put_ints4(struct buf *b, struct loc l)
{
    int v[4] = {l.line > 0 ? l.line - 1 : 0, u16col(l.file, l.line, l.col), l.end_line > 0 ? l.end_line - 1 : 0,
                u16col(l.file, l.end_line, l.end_col)};
    for (int i = 0; i < 4; i++) {
        if (i)
            bputn(b, ",", 1);
        bput_int(b, v[i]);
    }
}

static void put_loc(struct buf *b, struct loc l)
{
    bputn(b, "[", 1);
    put_ints4(b, l);
    bputn(b, "]", 1);
}

/* The comment lines directly above line (1-based) of file, without '#'. */
static const char *doc_above(int file, int line)
{
    const struct source *s = source_get(file);
    int first = line;
    while (first > 1) {
        const char *p = s->text + s->line_starts[first - 2];
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p != '#')
            break;
        first--;
    }
    struct buf b = {0};
    bputs(&b, "");
    for (int k = first; k < line; k++) {
        const char *p = s->text + s->line_starts[k - 1];
        while (*p == ' ' || *p == '\t')
            p++;
        p++; /* '#' */
        if (*p == ' ')
            p++;
        const char *e = p;
        while (*e && *e != '\n' && *e != '\r')
            e++;
        if (b.len)
            bputs(&b, "\n");
        bputn(&b, p, (size_t)(e - p));
    }
    return b.p;
}

static const char *uri_of(int file)
{
    if (file == A_file)
        return "";
    for (int i = 0; A_prog && i < A_prog->modules.len; i++) {
        struct module *m = A_prog->modules.items[i];
        if (m->file == file) {
            char *real = realpath(m->file_path, NULL);
            const char *u = arena_printf("file://%s", real ? real : m->file_path);
            free(real);
            return u;
        }
    }
    return "";
}

/* The last len bytes of l (math.pi's "pi"). */
static struct loc tail(struct loc l, size_t len)
{
    if (l.end_line == l.line && l.end_col - l.col > (int)len)
        l.col = l.end_col - (int)len;
    return l;
}

static const char *tname(struct type *t)
{
    return t ? type_name(t) : "?";
}

static const char *fn_detail(struct node *d)
{
    struct buf b = {0};
    bprintf(&b, "fn %s(", d->u.fn.name);
    for (int i = 0; i < d->u.fn.nparams; i++)
        bprintf(&b, "%s%s: %s", i ? ", " : "", d->u.fn.param_names[i], tname(d->u.fn.param_types[i]));
    bputs(&b, ")");
    if (d->u.fn.ret && d->u.fn.ret != ty_void)
        bprintf(&b, " -> %s", tname(d->u.fn.ret));
    const char *r = arena_strndup(b.p, b.len);
    free(b.p);
    return r;
}

/* A new symbol's index; key (klen bytes) identifies it. */
static int add_sym(const void *key, size_t klen, const char *name, char kind, struct type *t, const char *detail,
                   const char *doc, struct loc at, bool has_loc, int parent, const char *module, bool scoped)
{
    int id = (int)(intptr_t)map_get(&A_ids, key, klen);
    if (id)
        return id - 1;
    id = A_nsyms++;
    map_put(&A_ids, key, klen, (void *)(intptr_t)(id + 1));
    /* [NAME, KIND, TYPE, DETAIL, DOC, URI, LINE, COL, END_LINE, END_COL, SCOPE0, SCOPE1, PARENT, MODULE] */
    struct buf *b = &A_syms;
    bputs(b, id ? ",[" : "[");
    json_put_str(b, name);
    char k[4] = {',', '"', kind, '"'};
    bputn(b, k, 4);
    bputn(b, ",", 1);
    json_put_str(b, t ? type_name(t) : "");
    bputs(b, ",");
    json_put_str(b, detail ? detail : name);
    bputs(b, ",");
    if (doc && *doc)
        json_put_str(b, doc);
    else
        bputs(b, "null");
    if (has_loc && at.file >= 0) {
        bputs(b, ",");
        json_put_str(b, uri_of(at.file));
        bputn(b, ",", 1);
        put_ints4(b, at);
    } else {
        bputs(b, ",null,-1,-1,-1,-1");
    }
    bputn(b, ",", 1);
    bput_int(b, scoped && A_scope0 >= 0 ? A_scope0 : -1);
    bputn(b, ",", 1);
    bput_int(b, scoped && A_scope0 >= 0 ? A_scope1 : -1);
    bputn(b, ",", 1);
    bput_int(b, parent);
    bputn(b, ",", 1);
    if (module)
        json_put_str(b, module);
    else
        bputs(b, "null");
    bputs(b, "]");
    return id;
}

static const char *module_doc(struct module *m);

/* A module by name; its definition is the start of its file (os and world,
 * which have none: the import in this document). */
static int module_index(const char *name, struct module *m)
{
    const char *key = arena_printf("module %s", name);
    struct loc at = {.file = -1};
    for (int i = 0; !m && i < A_prog->main->decls.len; i++) {
        struct node *d = A_prog->main->decls.items[i];
        if (d->kind == N_IMPORT && strcmp(d->u.import.name, name) == 0)
            at = tail(d->loc, strlen(name));
    }
    if (m)
        at = (struct loc){m->file, 1, 1, 1, 1, 0};
    return add_sym(key, strlen(key), name, 'm', NULL, arena_printf("import %s", name), m ? module_doc(m) : NULL, at,
                   at.file >= 0, -1, NULL, false);
}

static int sym_index(struct sym *s)
{
    if (!s)
        return -1;
    if (s->kind != SYM_MODULE) { /* seen before: every use after the first is a lookup, no detail built */
        int id = (int)(intptr_t)map_get(&A_ids, &s, sizeof s);
        if (id)
            return id - 1;
    }
    const char *detail = s->name;
    const char *doc = NULL;
    char kind = 'v';
    bool scoped = false;
    switch (s->kind) {
    case SYM_LOCAL:
        kind = 'v';
        detail = arena_printf("%s %s: %s", s->is_var ? "var" : "let", s->name, tname(s->type));
        scoped = true;
        break;
    case SYM_PARAM:
        kind = 'p';
        detail = arena_printf("%s: %s", s->name, tname(s->type));
        scoped = true;
        break;
    case SYM_CONST:
        kind = 'c';
        detail = arena_printf("let %s: %s", s->name, tname(s->type));
        doc = doc_above(s->loc.file, s->loc.line);
        break;
    case SYM_FN:
        kind = 'f';
        detail = s->decl && s->decl->kind == N_FN ? fn_detail(s->decl) : s->name;
        doc = doc_above(s->loc.file, s->decl ? s->decl->loc.line : s->loc.line);
        break;
    case SYM_MODULE:
        break;
    }
    const char *module = s->module && s->kind != SYM_MODULE && s->module != A_prog->main ? s->module->name : NULL;
    if (s->kind == SYM_MODULE) /* one symbol per module name: its import and every use */
        return module_index(s->name, s->module);
    return add_sym(&s, sizeof s, s->name, kind, s->type, detail, doc, s->loc, true, -1, module, scoped);
}

/* The module's first comment block: the lines from line 1 while they are comments. */
static const char *module_doc(struct module *m)
{
    const struct source *s = source_get(m->file);
    int n = 1;
    while (n <= s->nlines && s->text[s->line_starts[n - 1]] == '#')
        n++;
    return doc_above(m->file, n);
}

/* A struct's field declarations: the indented lines "NAME: TYPE" after its
 * header, found in the text (the AST keeps the struct's place only). */
static struct loc field_loc(struct type *t, const char *fname)
{
    struct loc l = t->sloc;
    if (l.file < 0 || !t->sdefined)
        return l;
    const struct source *s = source_get(l.file);
    size_t flen = strlen(fname);
    for (int line = l.line + 1; line <= s->nlines && line <= l.line + 200; line++) {
        const char *p = s->text + s->line_starts[line - 1], *q = p;
        while (*q == ' ' || *q == '\t')
            q++;
        if (q == p && *q && *q != '\n' && *q != '#')
            break; /* back at the top level */
        if (strncmp(q, fname, flen) == 0 && (q[flen] == ':' || q[flen] == ' ')) {
            l.line = l.end_line = line;
            l.col = (int)(q - p) + 1;
            l.end_col = l.col + (int)flen;
            return l;
        }
    }
    return l;
}

static int struct_index(struct type *t)
{
    if (!t || t->kind != T_TUPLE || !t->sname)
        return -1;
    struct buf d = {0};
    bprintf(&d, "struct %s(", t->sname);
    for (int i = 0; i < t->nfields; i++)
        bprintf(&d, "%s%s: %s", i ? ", " : "", t->fnames[i], tname(t->fields[i]));
    bputs(&d, ")");
    int id = add_sym(&t, sizeof t, t->sname, 's', t, arena_strndup(d.p, d.len),
                     t->sdefined ? doc_above(t->sloc.file, t->sloc.line) : NULL, t->sloc, t->sdefined, -1, NULL, false);
    free(d.p);
    return id;
}

static int field_index(struct type *t, int k)
{
    int parent = struct_index(t);
    const char *key = arena_printf("field %p %d", (void *)t, k);
    return add_sym(key, strlen(key), t->fnames[k], 'F', t->fields[k],
                   arena_printf("%s.%s: %s", t->sname, t->fnames[k], tname(t->fields[k])), NULL,
                   field_loc(t, t->fnames[k]), t->sdefined, parent, NULL, false);
}

static int builtin_index(const char *name, char kind)
{
    const char *key = arena_printf("builtin %c %s", kind, name);
    struct loc none = {.file = -1};
    return add_sym(key, strlen(key), name, kind, NULL, name, NULL, none, false, -1, NULL, false);
}

static void occ(struct loc l, int sym)
{
    if (sym < 0 || l.file != A_file || l.line < 1)
        return;
    struct locc o = {l.line - 1, u16col(l.file, l.line, l.col),
                     u16col(l.file, l.line, l.end_line == l.line ? l.end_col : l.col + 1), sym};
    bputn(&A_occ, (const char *)&o, sizeof o);
}


static void walk_expr(struct node *n);
static void walk_block(struct nodes *b);

static void walk_iter(struct iterable *it)
{
    walk_expr(it->lo);
    walk_expr(it->hi);
    walk_expr(it->array);
}

static void walk_pat(struct nodes *pat)
{
    for (int i = 0; i < pat->len; i++) {
        struct node *nm = pat->items[i];
        if (nm && nm->kind == N_NAME)
            occ(nm->loc, sym_index(nm->u.name.sym));
    }
}

static void walk_gen(struct gen *g)
{
    for (struct gen *c = g; c; c = c->next) {
        walk_iter(&c->iter);
        if (c->var_sym)
            occ(c->var_loc, sym_index(c->var_sym));
        walk_pat(&c->pat);
    }
    if (g) {
        walk_expr(g->elem);
        walk_expr(g->cond);
        walk_expr(g->early);
        walk_expr(g->key);
        walk_expr(g->nkeys);
    }
}

static void par_entry(struct node *n, struct type *elem, const char *reducer)
{
    if (n->loc.file != A_file)
        return;
    bputs(&A_par, A_par.len ? "," : "");
    bprintf(&A_par, "[%d,%d,%d,%d,", n->loc.line - 1, u16col(n->loc.file, n->loc.line, n->loc.col),
            n->loc.end_line - 1, u16col(n->loc.file, n->loc.end_line, n->loc.end_col));
    json_put_str(&A_par, elem ? type_name(elem) : "?");
    bputs(&A_par, ",");
    json_put_str(&A_par, reducer);
    bputs(&A_par, "]");
}

static void walk_expr(struct node *n)
{
    if (!n)
        return;
    switch (n->ekind) {
    case N_INT: case N_FLOAT: case N_STR: case N_BOOL:
        return;
    case N_NAME:
        if (n->u.name.sym) {
            struct sym *s = n->u.name.sym;
            size_t len = strlen(n->u.name.name);
            occ(tail(n->loc, len), sym_index(s));
            /* math.pi, rewritten by the checker into one name: its module part */
            if (n->loc.end_line == n->loc.line && n->loc.end_col - n->loc.col > (int)len + 1 && s->module &&
                s->module != A_prog->main) {
                struct loc head = n->loc;
                head.end_col = n->loc.end_col - (int)len - 1;
                occ(head, module_index(s->module->name, s->module));
            }
        }
        else if (n->type && n->type->kind == T_TUPLE && n->type->sname && strcmp(n->type->sname, n->u.name.name) == 0)
            occ(n->loc, struct_index(n->type));
        return;
    case N_FSTRING:
        for (int i = 0; i < n->u.fstr.nparts; i++)
            if (n->u.fstr.parts[i].is_expr)
                walk_expr(n->u.fstr.parts[i].expr);
        return;
    case N_BINARY: case N_AND: case N_OR: {
        /* a long chain a + b + c ...: its left spine by a loop */
        struct node *left = n;
        while (left && left->kind == n->kind && left->u.bin.b) {
            walk_expr(left->u.bin.b);
            left = left->u.bin.a;
        }
        walk_expr(left);
        return;
    }
    case N_UNARY: case N_NOT:
        walk_expr(n->u.bin.a);
        return;
    case N_COND:
        walk_expr(n->u.cond.then);
        walk_expr(n->u.cond.cond);
        walk_expr(n->u.cond.els);
        return;
    case N_CALL: {
        struct node *callee = n->u.call.callee;
        enum builtin bi = n->u.call.builtin;
        if (callee && callee->kind == N_NAME && !callee->u.name.sym && bi != BI_NONE) {
            if (builtins[bi].kind != BK_SYNTAX) /* not a slice's "[:]" */
                occ(callee->loc, builtin_index(callee->u.name.name, 'b'));
        }
        else if (callee && callee->kind == N_NAME && !callee->u.name.sym && n->type && n->type->kind == T_TUPLE &&
                 n->type->sname && strcmp(n->type->sname, callee->u.name.name) == 0)
            occ(callee->loc, struct_index(n->type)); /* a constructor: Seg(lo=1, hi=2) */
        else if (callee && callee->kind == N_FIELD) {
            struct node *base = callee->u.field.base;
            if (n->u.call.fn)
                occ(callee->u.field.name_loc, sym_index(n->u.call.fn));
            else if (bi != BI_NONE && n->u.call.recv)
                occ(callee->u.field.name_loc, builtin_index(callee->u.field.name, 'M'));
            else if (bi != BI_NONE && base && base->kind == N_NAME)
                occ(callee->u.field.name_loc, builtin_index(arena_printf("%s.%s", base->u.name.name,
                                                                         callee->u.field.name), 'b'));
            walk_expr(base);
        } else {
            walk_expr(callee);
        }
        struct type *st = n->type && n->type->kind == T_TUPLE && n->type->sname ? n->type : NULL;
        for (int i = 0; i < n->u.call.args.len; i++) {
            struct node *a = n->u.call.args.items[i];
            if (a && a->kind == N_ASSIGN) { /* Seg(lo=...) */
                struct node *t = a->u.assign.target;
                if (st && t && t->kind == N_NAME)
                    for (int k = 0; k < st->nfields; k++)
                        if (strcmp(st->fnames[k], t->u.name.name) == 0)
                            occ(t->loc, field_index(st, k));
                walk_expr(a->u.assign.value);
            } else {
                walk_expr(a);
            }
        }
        if (n->u.call.gen)
            walk_gen(n->u.call.gen);
        return;
    }
    case N_FIELD: {
        struct node *base = n->u.field.base;
        walk_expr(base);
        struct type *t = base ? base->type : NULL;
        if (t && t->kind == T_TUPLE && t->sname && n->u.field.index >= 0 && n->u.field.index < t->nfields)
            occ(n->u.field.name_loc, field_index(t, n->u.field.index));
        return;
    }
    case N_INDEX:
        walk_expr(n->u.index.base);
        walk_expr(n->u.index.index);
        return;
    case N_ARRAY: case N_TUPLE:
        if (n->kind == N_TUPLE && n->type && n->type->sname && n->loc.file == A_file) {
            /* a constructor, Seg(lo=1, hi=2), rewritten into its fields' tuple */
            const struct source *src = source_get(n->loc.file);
            const char *p = src->text + src->line_starts[n->loc.line - 1] + n->loc.col - 1;
            size_t len = strlen(n->type->sname);
            if (strncmp(p, n->type->sname, len) == 0 && p[len] == '(') {
                struct loc at = n->loc;
                at.end_line = at.line, at.end_col = at.col + (int)len;
                occ(at, struct_index(n->type));
            }
        }
        for (int i = 0; i < n->u.array.len; i++)
            walk_expr(n->u.array.items[i]);
        return;
    case N_LISTCOMP:
        if (n->u.listcomp.par)
            par_entry(n, n->type && n->type->kind == T_ARRAY ? n->type->elem : NULL, "comprehension");
        walk_gen(n->u.listcomp.gen);
        return;
    case N_LAMBDA:
        for (int i = 0; i < n->u.lambda.n; i++)
            if (n->u.lambda.syms)
                occ(n->u.lambda.locs[i], sym_index(n->u.lambda.syms[i]));
        walk_expr(n->u.lambda.body);
        return;
    case N_REDUCE:
        if (n->u.reduce.par)
            par_entry(n, n->u.reduce.elem_type, reducer_name[n->u.reduce.reducer]);
        walk_expr(n->u.reduce.fnv);
        walk_expr(n->u.reduce.start);
        if (n->u.reduce.gen)
            walk_gen(n->u.reduce.gen);
        walk_expr(n->u.reduce.array);
        return;
    }
}

static void walk_stmt(struct node *n)
{
    if (!n)
        return;
    switch (n->kind) {
    case N_LET: case N_CONST:
        walk_expr(n->u.let.init);
        if (n->u.let.sym)
            occ(n->u.let.name_loc, sym_index(n->u.let.sym));
        walk_pat(&n->u.let.pat);
        return;
    case N_ASSIGN:
        walk_expr(n->u.assign.target);
        walk_expr(n->u.assign.value);
        return;
    case N_IF:
        for (int i = 0; i < n->u.if_.conds.len; i++) {
            walk_expr(n->u.if_.conds.items[i]);
            walk_block(&n->u.if_.blocks[i]);
        }
        walk_block(&n->u.if_.else_block);
        return;
    case N_WHILE:
        walk_expr(n->u.while_.cond);
        walk_block(&n->u.while_.body);
        return;
    case N_FOR:
        walk_iter(&n->u.for_.iter);
        if (n->u.for_.var_sym)
            occ(n->u.for_.var_loc, sym_index(n->u.for_.var_sym));
        walk_pat(&n->u.for_.pat);
        walk_block(&n->u.for_.body);
        return;
    case N_RETURN:
        walk_expr(n->u.ret.value);
        return;
    case N_EXPR_STMT:
        walk_expr(n->u.expr_stmt.expr);
        return;
    case N_FN:
        if (n->u.fn.sym)
            occ(n->u.fn.name_loc, sym_index(n->u.fn.sym));
        for (int i = 0; i < n->u.fn.nparams; i++)
            if (n->u.fn.param_syms && n->u.fn.param_syms[i])
                occ(n->u.fn.param_locs[i], sym_index(n->u.fn.param_syms[i]));
        walk_block(&n->u.fn.body);
        return;
    case N_BREAK: case N_CONTINUE: case N_PASS: case N_IMPORT:
        return;
    default:
        walk_expr(n);
        return;
    }
}

static void walk_block(struct nodes *b)
{
    for (int i = 0; b && i < b->len; i++)
        walk_stmt(b->items[i]);
}

static void index_program(void)
{
    struct module *m = A_prog->main;
    /* every module's top-level symbols, for completion of m.NAME */
    for (int i = 0; i < A_prog->modules.len; i++) {
        struct module *mod = A_prog->modules.items[i];
        for (int k = 0; k < mod->syms.len; k++)
            sym_index(mod->syms.items[k]);
    }
    for (int i = 0; i < type_structs.len; i++) {
        struct type *t = type_structs.items[i];
        struct_index(t);
        for (int k = 0; k < t->nfields; k++)
            field_index(t, k);
        if (t->sloc.file == A_file && t->sdefined)
            occ((struct loc){t->sloc.file, t->sloc.line, t->sloc.col, t->sloc.end_line, t->sloc.end_col, 0},
                struct_index(t));
    }
    const struct source *src = source_get(A_file);
    for (int i = 0; i < m->decls.len; i++) {
        struct node *d = m->decls.items[i];
        if (d->kind == N_IMPORT) {
            occ(tail(d->loc, strlen(d->u.import.name)), module_index(d->u.import.name, d->u.import.module));
            continue;
        }
        /* a local's scope: from its function's first line to the line
         * before the next declaration */
        A_scope0 = d->loc.line - 1;
        A_scope1 = i + 1 < m->decls.len ? m->decls.items[i + 1]->loc.line - 2 : src->nlines;
        if (d->kind == N_FN && d->u.fn.sym)
            bprintf(&A_bodies, "%s[%d,%d,%d]", A_bodies.len ? "," : "", sym_index(d->u.fn.sym), A_scope0, A_scope1);
        walk_stmt(d);
        A_scope0 = A_scope1 = -1;
    }
}

static void put_diags(struct buf *b)
{
    static struct diag_record recs[1000];
    int n = diag_records(recs, 1000);
    bputs(b, "\"diags\":[");
    int k = 0;
    for (int i = 0; i < n; i++) {
        struct diag_record *r = &recs[i];
        struct loc l = r->loc;
        const char *msg = r->message;
        if (l.file != A_file) { /* in an imported module: shown on line 1 */
            msg = arena_printf("in %s:%d:%d: %s", source_get(l.file)->name, l.line, l.col, msg);
            l = (struct loc){A_file, 1, 1, 1, 1, 0};
        }
        bputs(b, k++ ? ",{" : "{");
        bprintf(b, "\"e\":%d,\"r\":", r->error ? 1 : 0);
        put_loc(b, l);
        bputs(b, ",\"m\":");
        json_put_str(b, msg);
        if (r->note && r->note_loc.file == A_file) {
            bputs(b, ",\"n\":");
            json_put_str(b, r->note);
            bputs(b, ",\"nr\":");
            put_loc(b, r->note_loc);
        }
        bputs(b, "}");
    }
    bputs(b, "]");
}

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w <= 0)
            _exit(3);
        p += w;
        n -= (size_t)w;
    }
}

/* The end of every analysis: diag_finish's sink, or after the loader's or
 * parser's error came back to the recovery point. */
static _Noreturn void finish_analysis(void)
{
    struct buf b = {0};
    bputs(&b, "{");
    put_diags(&b);
    if (A_prog) {
        index_program();
        /* the parts as they are: bprintf would copy these hundreds of KiB twice */
        bputs(&b, ",\"ast\":true,\"syms\":[");
        bputn(&b, A_syms.p ? A_syms.p : "", A_syms.len);
        bputs(&b, "],\"par\":[");
        bputn(&b, A_par.p ? A_par.p : "", A_par.len);
        bputs(&b, "],\"bodies\":[");
        bputn(&b, A_bodies.p ? A_bodies.p : "", A_bodies.len);
        bputs(&b, "]");
    } else {
        bputs(&b, ",\"ast\":false");
    }
    bputs(&b, "}");
    /* the occurrences, the bulk of it, as struct locc records after a NUL */
    bputn(&b, "", 1);
    if (A_occ.len)
        bputn(&b, A_occ.p, A_occ.len);
    write_all(A_fd, b.p, b.len);
    _exit(0);
}

/* The loader's and checker's run, ending in finish (never returns). */
static _Noreturn void front_end(const char *path, const char *text, size_t len, int fd, void (*after)(void),
                                void (*finish)(void))
{
    A_fd = fd;
    A_file = 0; /* the server registers no source: the document is the child's first */
    diag_set_sink(finish);
    struct diag_catch top;
    if (setjmp(top.jb) == 0) {
        diag_catch_push(&top);
        struct program *prog = load_program_text(path, text, len, brine_paths()->stdlib);
        A_file = prog->main->file;
        A_prog = prog;
        diag_catch_pop(&top);
        check_program(prog); /* ends in diag_finish: the sink */
        if (after)
            after();
    }
    finish();
    _exit(0);
}

void lsp_analyze(const char *path, const char *text, size_t len, int fd)
{
    front_end(path, text, len, fd, NULL, finish_analysis);
}

void lsp_format(const char *path, const char *text, size_t len, int fd)
{
    struct buf b = {0};
    struct diag_catch top;
    diag_set_sink(NULL);
    if (setjmp(top.jb) == 0) {
        diag_catch_push(&top);
        int file = source_add(path, text, len);
        parse_file(file, "main");
        struct buf out = fmt_source(file);
        diag_catch_pop(&top);
        bputs(&b, "{\"text\":");
        json_put_strn(&b, out.p ? out.p : "", out.len);
        bputs(&b, "}");
    } else {
        struct diag_record r;
        bputs(&b, "{\"error\":");
        json_put_str(&b, diag_records(&r, 1) ? r.message : "syntax error");
        bputs(&b, "}");
    }
    write_all(fd, b.p, b.len);
    _exit(0);
}

/* ---- the par report: the whole pipeline, with emit_par.c telling ---------- */

static void par_seen(struct loc at, bool lanes, bool gpu)
{
    if (at.file != A_file)
        return;
    bprintf(&A_par, "%s[%d,%d,%d,%d]", A_par.len ? "," : "", at.line - 1, u16col(at.file, at.line, at.col), lanes,
            gpu);
}

static void par_pipeline(void)
{
    struct ir_program *ir = lower_program(A_prog);
    ir_verify(ir);
    optimize(ir, NULL);
    emit_par_seen = par_seen;
    emit_program(ir);
    struct buf b = {0};
    bputs(&b, "{\"par\":[");
    bputn(&b, A_par.p ? A_par.p : "", A_par.len);
    bputs(&b, "]}");
    write_all(A_fd, b.p, b.len);
    _exit(0);
}

static bool par_checking; /* diag_finish came back: with errors, no report */

static _Noreturn void par_finish(void)
{
    if (par_checking && diag_errors() == 0) {
        par_checking = false;
        par_pipeline();
    }
    write_all(A_fd, "{\"par\":null}", 12);
    _exit(0);
}

void lsp_par_report(const char *path, const char *text, size_t len, int fd)
{
    par_checking = true;
    front_end(path, text, len, fd, NULL, par_finish);
}
