/*
 * ast.c: AST nodes, the nesting check, and the AST dump.
 *
 * dump_ast prints a module as an indented S-expression, one node per line,
 * children indented two spaces, types shown as ": T" once the checker has set
 * them. It is meant for golden tests of the parser and checker, so it prints
 * everything that matters and nothing that depends on the machine.
 *
 * ast_check_depth runs right after parsing: later phases walk the tree
 * recursively, so nesting deeper than MAX_NESTING (SPEC section 2) must stop
 * here with a message instead of a stack overflow later. It recurses at most
 * MAX_NESTING + 1 levels itself.
 */
#include "brine.h"

#include <string.h>

void ast_check_depth(struct module *m); /* called by parse_file (parser.y) */

struct node *node_new(int kind, struct loc loc)
{
    struct node *n = arena_alloc(sizeof *n);
    n->kind = kind;
    n->loc = loc;
    return n;
}

/* ---- nesting check --------------------------------------------------------- */

static void depth_expr(struct node *n, int depth);
static void depth_block(struct nodes *b, int depth);

static void too_deep(struct node *n)
{
    error_at(n->loc, "nesting deeper than %d levels", MAX_NESTING);
}

static void depth_iter(struct iterable *it, int depth)
{
    if (it->is_range) {
        depth_expr(it->lo, depth);
        depth_expr(it->hi, depth);
    } else {
        depth_expr(it->array, depth);
    }
}

static void depth_gen(struct gen *g, int depth)
{
    depth_expr(g->elem, depth);
    depth_iter(&g->iter, depth);
    if (g->cond)
        depth_expr(g->cond, depth);
    for (struct gen *c = g->next; c; c = c->next)
        depth_iter(&c->iter, depth);
    if (g->key) {
        depth_expr(g->key, depth);
        depth_expr(g->nkeys, depth);
    }
}

/* An expression's depth counts the nodes from the statement down. */
static void depth_expr(struct node *n, int depth)
{
    if (!n)
        return;
    if (depth > MAX_NESTING)
        too_deep(n);
    switch (n->ekind) {
    case N_INT:
    case N_FLOAT:
    case N_STR:
    case N_BOOL:
    case N_NAME:
        return;
    case N_FSTRING:
        for (int i = 0; i < n->u.fstr.nparts; i++)
            if (n->u.fstr.parts[i].is_expr)
                depth_expr(n->u.fstr.parts[i].expr, depth + 1);
        return;
    case N_BINARY:
    case N_AND:
    case N_OR: {
        /* `a + b + c` parses as `(a + b) + c`: a flat chain is not nesting
         * to whoever wrote it, so a left operand of the same kind costs no
         * depth, only length (bounded on its own: later phases recurse down
         * the chain too). */
        struct node *left = n->u.bin.a;
        int chain = 1;
        while (left && left->kind == n->kind) {
            if (++chain > MAX_CHAIN)
                error_at(n->loc, "expression too long: more than %d operators in a row; split it "
                         "over several statements", MAX_CHAIN);
            depth_expr(left->u.bin.b, depth + 1);
            left = left->u.bin.a;
        }
        depth_expr(left, depth + 1);
        depth_expr(n->u.bin.b, depth + 1);
        return;
    }
    case N_UNARY:
    case N_NOT:
        depth_expr(n->u.bin.a, depth + 1);
        return;
    case N_COND:
        depth_expr(n->u.cond.then, depth + 1);
        depth_expr(n->u.cond.cond, depth + 1);
        depth_expr(n->u.cond.els, depth + 1);
        return;
    case N_CALL:
        depth_expr(n->u.call.callee, depth + 1);
        for (int i = 0; i < n->u.call.args.len; i++) {
            struct node *a = n->u.call.args.items[i];
            depth_expr(a->kind == N_ASSIGN ? a->u.assign.value : a, depth + 1); /* Seg(lo=...) */
        }
        if (n->u.call.gen)
            depth_gen(n->u.call.gen, depth + 1);
        return;
    case N_FIELD:
        depth_expr(n->u.field.base, depth + 1);
        return;
    case N_INDEX:
        depth_expr(n->u.index.base, depth + 1);
        depth_expr(n->u.index.index, depth + 1);
        return;
    case N_ARRAY:
    case N_TUPLE:
        for (int i = 0; i < n->u.array.len; i++)
            depth_expr(n->u.array.items[i], depth + 1);
        return;
    case N_LISTCOMP:
        depth_gen(n->u.listcomp.gen, depth + 1);
        return;
    case N_LAMBDA:
        depth_expr(n->u.lambda.body, depth + 1);
        return;
    case N_REDUCE:
        if (n->u.reduce.gen)
            depth_gen(n->u.reduce.gen, depth + 1);
        depth_expr(n->u.reduce.array, depth + 1);
        return;
    }
    internal_error("statement %s inside an expression", node_kind_name[n->kind]);
}

/* A statement's depth counts the blocks around it. */
static void depth_stmt(struct node *n, int depth)
{
    if (depth > MAX_NESTING)
        too_deep(n);
    switch (n->kind) {
    case N_LET:
    case N_CONST:
        depth_expr(n->u.let.init, 1);
        return;
    case N_ASSIGN:
        depth_expr(n->u.assign.target, 1);
        depth_expr(n->u.assign.value, 1);
        return;
    case N_IF:
        for (int i = 0; i < n->u.if_.conds.len; i++) {
            depth_expr(n->u.if_.conds.items[i], 1);
            depth_block(&n->u.if_.blocks[i], depth + 1);
        }
        depth_block(&n->u.if_.else_block, depth + 1);
        return;
    case N_WHILE:
        depth_expr(n->u.while_.cond, 1);
        depth_block(&n->u.while_.body, depth + 1);
        return;
    case N_FOR:
        depth_iter(&n->u.for_.iter, 1);
        depth_block(&n->u.for_.body, depth + 1);
        return;
    case N_RETURN:
        depth_expr(n->u.ret.value, 1);
        return;
    case N_EXPR_STMT:
        depth_expr(n->u.expr_stmt.expr, 1);
        return;
    case N_FN:
        depth_block(&n->u.fn.body, depth + 1);
        return;
    case N_BREAK:
    case N_CONTINUE:
    case N_PASS:
    case N_IMPORT:
        return;
    case N_INT: case N_FLOAT: case N_STR: case N_BOOL: case N_FSTRING: case N_NAME:
    case N_UNARY: case N_BINARY: case N_AND: case N_OR: case N_NOT: case N_COND:
    case N_CALL: case N_FIELD: case N_INDEX: case N_ARRAY: case N_LISTCOMP: case N_REDUCE:
    case N_TUPLE: case N_LAMBDA:
        internal_error("expression %s as a statement", node_kind_name[n->kind]);
    }
}

static void depth_block(struct nodes *b, int depth)
{
    for (int i = 0; i < b->len; i++)
        depth_stmt(b->items[i], depth);
}

void ast_check_depth(struct module *m)
{
    depth_block(&m->decls, 0);
}

/* ---- dump ------------------------------------------------------------------ */

static void dump_node(FILE *out, struct node *n, int ind);

static void newline_indent(FILE *out, int ind)
{
    fputc('\n', out);
    for (int i = 0; i < ind; i++)
        fputc(' ', out);
}

/* Text as a Rust-style quoted literal, so dumps stay one line per node. */
static void dump_quoted(FILE *out, const char *s, size_t len)
{
    fputc('"', out);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\t': fputs("\\t", out); break;
        case '\r': fputs("\\r", out); break;
        case '\0': fputs("\\0", out); break;
        default:
            if (c < 0x20 || c == 0x7f)
                fprintf(out, "\\u{%x}", c);
            else
                fputc(c, out);
        }
    }
    fputc('"', out);
}

static void dump_u128(FILE *out, unsigned __int128 v)
{
    char buf[48];
    int i = sizeof buf;
    buf[--i] = '\0';
    do {
        buf[--i] = (char)('0' + (int)(v % 10));
        v /= 10;
    } while (v);
    fputs(buf + i, out);
}

static void dump_type(FILE *out, struct type *t)
{
    if (t)
        fprintf(out, " : %s", type_name(t));
}

static void dump_block(FILE *out, const char *label, struct nodes *b, int ind)
{
    newline_indent(out, ind);
    fprintf(out, "(%s", label);
    for (int i = 0; i < b->len; i++) {
        newline_indent(out, ind + 2);
        dump_node(out, b->items[i], ind + 2);
    }
    fputc(')', out);
}

static void dump_child(FILE *out, struct node *n, int ind)
{
    newline_indent(out, ind);
    dump_node(out, n, ind);
}

static void dump_iter(FILE *out, struct iterable *it, int ind)
{
    newline_indent(out, ind);
    if (it->is_range) {
        fprintf(out, "(range%s", it->inclusive ? " inclusive" : "");
        dump_child(out, it->lo, ind + 2);
        dump_child(out, it->hi, ind + 2);
    } else {
        fputs("(in", out);
        dump_child(out, it->array, ind + 2);
    }
    fputc(')', out);
}

static void dump_gen(FILE *out, struct gen *g, int ind)
{
    newline_indent(out, ind);
    fprintf(out, "(gen %s", g->var);
    dump_child(out, g->elem, ind + 2);
    dump_iter(out, &g->iter, ind + 2);
    for (struct gen *c = g->next; c; c = c->next) {
        newline_indent(out, ind + 2);
        fprintf(out, "(for %s", c->var);
        dump_iter(out, &c->iter, ind + 4);
        fputc(')', out);
    }
    if (g->cond) {
        newline_indent(out, ind + 2);
        fputs("(filter", out);
        dump_child(out, g->cond, ind + 4);
        fputc(')', out);
    }
    if (g->key) {
        newline_indent(out, ind + 2);
        fputs("(by", out);
        dump_child(out, g->key, ind + 4);
        dump_child(out, g->nkeys, ind + 4);
        fputc(')', out);
    }
    fputc(')', out);
}

static void dump_node(FILE *out, struct node *n, int ind)
{
    switch (n->kind) {
    case N_INT:
        fputs("(int ", out);
        if (n->u.ilit.neg)
            fputc('-', out);
        dump_u128(out, n->u.ilit.value);
        if (n->u.ilit.too_big)
            fputs(" too-big", out);
        dump_type(out, n->type);
        break;
    case N_FLOAT:
        fprintf(out, "(float %.17g", n->u.flit.value);
        dump_type(out, n->type);
        break;
    case N_STR:
        fputs("(str ", out);
        dump_quoted(out, n->u.slit.s, n->u.slit.len);
        dump_type(out, n->type);
        break;
    case N_BOOL:
        fprintf(out, "(bool %s", n->u.blit ? "true" : "false");
        dump_type(out, n->type);
        break;
    case N_FSTRING:
        fputs("(fstring", out);
        dump_type(out, n->type);
        for (int i = 0; i < n->u.fstr.nparts; i++) {
            struct fpart *fp = &n->u.fstr.parts[i];
            newline_indent(out, ind + 2);
            if (!fp->is_expr) {
                dump_quoted(out, fp->text, fp->len);
                continue;
            }
            fputs("(hole", out);
            if (fp->spec) {
                fputs(" spec ", out);
                dump_quoted(out, fp->spec, strlen(fp->spec));
            }
            dump_child(out, fp->expr, ind + 4);
            fputc(')', out);
        }
        break;
    case N_NAME:
        fprintf(out, "(name %s", n->u.name.name);
        dump_type(out, n->type);
        break;
    case N_UNARY:
    case N_BINARY:
        fprintf(out, "(%s %s", n->kind == N_UNARY ? "unary" : "binary", op_spelling[n->u.bin.op]);
        dump_type(out, n->type);
        dump_child(out, n->u.bin.a, ind + 2);
        if (n->u.bin.b)
            dump_child(out, n->u.bin.b, ind + 2);
        break;
    case N_AND:
    case N_OR:
    case N_NOT:
        fputs(n->kind == N_AND ? "(and" : n->kind == N_OR ? "(or" : "(not", out);
        dump_type(out, n->type);
        dump_child(out, n->u.bin.a, ind + 2);
        if (n->u.bin.b)
            dump_child(out, n->u.bin.b, ind + 2);
        break;
    case N_COND:
        fputs("(cond", out);
        dump_type(out, n->type);
        dump_child(out, n->u.cond.then, ind + 2);
        dump_child(out, n->u.cond.cond, ind + 2);
        dump_child(out, n->u.cond.els, ind + 2);
        break;
    case N_CALL:
        fputs(n->u.call.par ? "(call par" : "(call", out);
        if (n->u.call.builtin != BI_NONE)
            fprintf(out, " builtin %s", builtin_name[n->u.call.builtin]);
        dump_type(out, n->type);
        dump_child(out, n->u.call.callee, ind + 2);
        if (n->u.call.recv) {
            newline_indent(out, ind + 2);
            fputs("(recv", out);
            dump_child(out, n->u.call.recv, ind + 4);
            fputc(')', out);
        }
        for (int i = 0; i < n->u.call.args.len; i++)
            dump_child(out, n->u.call.args.items[i], ind + 2);
        if (n->u.call.gen)
            dump_gen(out, n->u.call.gen, ind + 2);
        break;
    case N_FIELD:
        fprintf(out, "(field %s", n->u.field.name);
        dump_type(out, n->type);
        dump_child(out, n->u.field.base, ind + 2);
        break;
    case N_INDEX:
        fputs("(index", out);
        dump_type(out, n->type);
        dump_child(out, n->u.index.base, ind + 2);
        dump_child(out, n->u.index.index, ind + 2);
        break;
    case N_ARRAY:
    case N_TUPLE:
        fputs(n->kind == N_TUPLE ? "(tuple" : "(array", out);
        dump_type(out, n->type);
        for (int i = 0; i < n->u.array.len; i++)
            dump_child(out, n->u.array.items[i], ind + 2);
        break;
    case N_LAMBDA:
        fputs("(lambda", out);
        for (int i = 0; i < n->u.lambda.n; i++)
            fprintf(out, " %s", n->u.lambda.names[i]);
        dump_type(out, n->type);
        dump_child(out, n->u.lambda.body, ind + 2);
        break;
    case N_LISTCOMP:
        fputs(n->u.listcomp.par ? "(listcomp par" : "(listcomp", out);
        dump_type(out, n->type);
        dump_gen(out, n->u.listcomp.gen, ind + 2);
        break;
    case N_REDUCE:
        fprintf(out, "(reduce%s %s", n->u.reduce.par ? " par" : "", reducer_name[n->u.reduce.reducer]);
        dump_type(out, n->type);
        if (n->u.reduce.gen)
            dump_gen(out, n->u.reduce.gen, ind + 2);
        if (n->u.reduce.array)
            dump_child(out, n->u.reduce.array, ind + 2);
        break;
    case N_LET:
    case N_CONST:
        fprintf(out, "(%s %s", n->kind == N_CONST ? "const" : n->u.let.is_var ? "var" : "let",
                n->u.let.name);
        for (int i = 0; i < n->u.let.pat.len; i++)
            fprintf(out, "%s%s%s", i ? ", " : "(", n->u.let.pat.items[i]->u.name.name,
                    i == n->u.let.pat.len - 1 ? ")" : "");
        if (n->u.let.annot)
            fprintf(out, " %s", type_name(n->u.let.annot));
        dump_child(out, n->u.let.init, ind + 2);
        break;
    case N_ASSIGN:
        fprintf(out, "(assign %s%s", n->u.assign.op == OP_NONE ? "" : op_spelling[n->u.assign.op],
                "=");
        dump_child(out, n->u.assign.target, ind + 2);
        dump_child(out, n->u.assign.value, ind + 2);
        break;
    case N_IF:
        fputs("(if", out);
        for (int i = 0; i < n->u.if_.conds.len; i++) {
            dump_child(out, n->u.if_.conds.items[i], ind + 2);
            dump_block(out, "then", &n->u.if_.blocks[i], ind + 2);
        }
        if (n->u.if_.has_else)
            dump_block(out, "else", &n->u.if_.else_block, ind + 2);
        break;
    case N_WHILE:
        fputs("(while", out);
        dump_child(out, n->u.while_.cond, ind + 2);
        dump_block(out, "do", &n->u.while_.body, ind + 2);
        break;
    case N_FOR:
        fprintf(out, "(for %s", n->u.for_.var);
        dump_iter(out, &n->u.for_.iter, ind + 2);
        dump_block(out, "do", &n->u.for_.body, ind + 2);
        break;
    case N_BREAK:
        fputs("(break", out);
        break;
    case N_CONTINUE:
        fputs("(continue", out);
        break;
    case N_PASS:
        fputs("(pass", out);
        break;
    case N_RETURN:
        fputs("(return", out);
        if (n->u.ret.value)
            dump_child(out, n->u.ret.value, ind + 2);
        break;
    case N_EXPR_STMT:
        fputs("(expr", out);
        dump_child(out, n->u.expr_stmt.expr, ind + 2);
        break;
    case N_FN:
        fprintf(out, "(fn %s (", n->u.fn.name);
        for (int i = 0; i < n->u.fn.nparams; i++)
            fprintf(out, "%s%s %s", i ? " " : "", n->u.fn.param_names[i],
                    type_name(n->u.fn.param_types[i]));
        fprintf(out, ") %s", type_name(n->u.fn.ret));
        dump_block(out, "body", &n->u.fn.body, ind + 2);
        break;
    case N_IMPORT:
        fprintf(out, "(import %s", n->u.import.name);
        break;
    }
    fputc(')', out);
}

void dump_ast(FILE *out, struct module *m)
{
    fprintf(out, "(module %s %s", m->name, m->path);
    for (int i = 0; i < m->decls.len; i++)
        dump_child(out, m->decls.items[i], 2);
    fputs(")\n", out);
}
