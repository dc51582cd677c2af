/*
 * lsp_query.c: the language server's answers, from the tables of a
 * document's last analysis that parsed (lsp.h): symbols and the places of
 * every name. A request names a place; the occurrence there gives the
 * symbol; the symbol gives its signature, its definition and its other
 * occurrences. Completion and signature help read the text before the
 * cursor instead (a half-typed line does not parse) and resolve what they
 * find against the tables. Builtins and methods answer from the table
 * below: one line each, as docs/stdlib.md says them.
 */
#include "lsp.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* ---- builtins: signature and one-line doc -------------------------------------- */

struct bdoc {
    const char *name; /* "print", "os.clock", or a method's name */
    char recv;        /* 0 a function; a on arrays, s on str, o on Option, i on integers */
    const char *sig, *doc;
};

static const struct bdoc bdocs[] = {
    {"print", 0, "print(a, b, ...)", "Writes the values separated by one space, then a newline, to stdout."},
    {"eprint", 0, "eprint(a, b, ...)", "The same line on stderr, written at once."},
    {"len", 0, "len(x) -> int", "The length of an array, or of a str in bytes."},
    {"str", 0, "str(x) -> str", "The value as print shows it."},
    {"int", 0, "int(x) -> int", "A conversion to int: from a float (truncated), another integer type or a str."},
    {"float", 0, "float(x) -> float", "A conversion to float: from an integer type or a str."},
    {"i128", 0, "i128(x) -> i128", "A conversion to the 128-bit integer type."},
    {"u64", 0, "u64(x) -> u64", "A conversion to the unsigned 64-bit type."},
    {"abs", 0, "abs(x)", "The absolute value, same type; abs(MIN) panics."},
    {"min", 0, "min(a, b) | min(gen)", "The smaller of two values (the first on a tie), or the least element of a generator."},
    {"max", 0, "max(a, b) | max(gen)", "The larger of two values (the first on a tie), or the greatest element of a generator."},
    {"sum", 0, "sum(gen)", "The sum of a generator's elements; `par sum(...)` in parallel, with the same bits."},
    {"product", 0, "product(gen)", "The product of a generator's elements."},
    {"any", 0, "any(gen) -> bool", "Some element is true."},
    {"all", 0, "all(gen) -> bool", "Every element is true."},
    {"sorted", 0, "sorted(xs) -> [T]", "A new array, sorted as xs.sort() sorts; xs is unchanged."},
    {"reversed", 0, "reversed(xs) -> [T]", "A new array in reverse order; xs is unchanged."},
    {"panic", 0, "panic(msg: str)", "A panic with that message at the call's place (exit 101)."},
    {"input", 0, "input() -> Option[str]", "The next line of stdin without its newline; None at the end."},
    {"read_stdin", 0, "read_stdin() -> str", "The rest of stdin."},
    {"Some", 0, "Some(x) -> Option[T]", "An Option holding x."},
    {"range", 0, "range(lo, hi, step)", "The integers from lo below hi by step (a for loop's or generator's iterable)."},
    {"enumerate", 0, "enumerate(xs)", "The pairs (i, xs[i]) (an iterable)."},
    {"zip", 0, "zip(xs, ys)", "The pairs (xs[i], ys[i]) up to the shorter length (an iterable)."},
    {"os.args", 0, "os.args() -> [str]", "The program's arguments after its name."},
    {"os.thread_count", 0, "os.thread_count() -> int", "The pool's size (BRINE_THREADS, default: the CPUs)."},
    {"os.clock", 0, "os.clock() -> float", "Seconds from a monotonic clock; only differences mean something."},
    {"os.exit", 0, "os.exit(code: int)", "Flushes stdout and ends the program with status code & 255."},
    {"os.getenv", 0, "os.getenv(name: str) -> str", "The variable's value, \"\" when it is unset."},
    {"os.read_file", 0, "os.read_file(path: str) -> str", "The whole file."},
    {"os.write_file", 0, "os.write_file(path: str, text: str)", "Creates or truncates the file and writes text."},
    {"os.append_file", 0, "os.append_file(path: str, text: str)", "Creates the file if needed and adds text at its end."},
    {"world.rank", 0, "world.rank() -> int", "This process's rank, 0 to world.size() - 1."},
    {"world.size", 0, "world.size() -> int", "How many ranks run the program."},
    {"world.barrier", 0, "world.barrier()", "Waits until every rank has reached it."},
    {"world.broadcast", 0, "world.broadcast(x, root: int)", "Rank root's x, on every rank."},
    {"world.gather", 0, "world.gather(x) -> [T]", "Every rank's x, in rank order."},
    {"world.sum", 0, "world.sum(x | gen)", "The sum over the ranks (a generator: spread over them)."},
    {"push", 'a', "xs.push(v)", "Adds v at the end."},
    {"pop", 'a', "xs.pop() -> T", "Removes and returns the last element; panics on an empty array."},
    {"insert", 'a', "xs.insert(i: int, v)", "Puts v at index i, moving the rest up."},
    {"remove", 'a', "xs.remove(i: int) -> T", "Removes and returns element i."},
    {"extend", 'a', "xs.extend(ys)", "Adds the elements of ys at the end."},
    {"reverse", 'a', "xs.reverse()", "Reverses in place."},
    {"sort", 'a', "xs.sort()", "Sorts in place, stable, ascending by <."},
    {"contains", 'a', "xs.contains(v) -> bool", "Some element == v."},
    {"index", 'a', "xs.index(v) -> Option[int]", "The first index i with xs[i] == v, None if there is none."},
    {"split", 's', "s.split(sep: str) -> [str]", "The pieces between occurrences of sep; without sep, the runs of non-whitespace."},
    {"strip", 's', "s.strip() -> str", "s without whitespace at either end."},
    {"lines", 's', "s.lines() -> [str]", "Split on newlines, each line without its newline."},
    {"startswith", 's', "s.startswith(p: str) -> bool", "s begins with p."},
    {"endswith", 's', "s.endswith(p: str) -> bool", "s ends with p."},
    {"replace", 's', "s.replace(a: str, b: str) -> str", "Every occurrence of a, left to right, replaced by b."},
    {"upper", 's', "s.upper() -> str", "ASCII letters in upper case."},
    {"lower", 's', "s.lower() -> str", "ASCII letters in lower case."},
    {"join", 's', "sep.join(xs: [str]) -> str", "xs joined with sep between."},
    {"contains", 's', "s.contains(sub: str) -> bool", "sub occurs in s."},
    {"find", 's', "s.find(sub: str) -> Option[int]", "The byte index where sub first occurs, None if it does not."},
    {"to_int", 's', "s.to_int() -> Option[int]", "Some of the value for exactly the text int(s) accepts, else None."},
    {"to_float", 's', "s.to_float() -> Option[float]", "Some of the value for the text float(s) accepts, else None."},
    {"is_some", 'o', "o.is_some() -> bool", "The Option holds a value."},
    {"is_none", 'o', "o.is_none() -> bool", "The Option is None."},
    {"unwrap", 'o', "o.unwrap() -> T", "The value; panics on None."},
    {"unwrap_or", 'o', "o.unwrap_or(default: T) -> T", "The value, or default for None."},
    {"wrapping_add", 'i', "x.wrapping_add(y) -> T", "x + y modulo 2^bits, never a panic."},
    {"wrapping_sub", 'i', "x.wrapping_sub(y) -> T", "x - y modulo 2^bits."},
    {"wrapping_mul", 'i', "x.wrapping_mul(y) -> T", "x * y modulo 2^bits."},
    {"wrapping_neg", 'i', "x.wrapping_neg() -> T", "-x modulo 2^bits."},
    {"rotate_left", 'i', "x.rotate_left(n: int) -> T", "The bits rotated left by n."},
    {"rotate_right", 'i', "x.rotate_right(n: int) -> T", "The bits rotated right by n."},
    {"count_ones", 'i', "x.count_ones() -> int", "How many bits are 1."},
    {"leading_zeros", 'i', "x.leading_zeros() -> int", "Zero bits above the highest 1."},
    {"trailing_zeros", 'i', "x.trailing_zeros() -> int", "Zero bits below the lowest 1."},
};
#define NBDOCS ((int)(sizeof bdocs / sizeof bdocs[0]))

static const char *const math_names[] = {
#define MNAME(P, name, arity, gpu) #name,
    BRT_MATH(MNAME, _)
#undef MNAME
};
static const int math_arity[] = {
#define MAR(P, name, arity, gpu) arity,
    BRT_MATH(MAR, _)
#undef MAR
};
/* the gpu column: brine's own function, the same bits everywhere (correctly
 * rounded, but gamma and lgamma: within 0.51 ulp) */
static const int math_own[] = {
#define MOWN(P, name, arity, gpu) gpu,
    BRT_MATH(MOWN, _)
#undef MOWN
};
#define NMATH ((int)(sizeof math_names / sizeof math_names[0]))

static const char *const keywords[] = {"fn", "let", "var", "if", "elif", "else", "while", "for", "in", "return",
                                       "break", "continue", "pass", "assert", "par", "and", "or", "not", "true",
                                       "false", "import", "struct", "lambda", "None", NULL};

/* The doc of a builtin or method (recv 0: any), signature and text. */
static bool builtin_doc(const char *name, char recv, const char **sig, const char **doc)
{
    for (int i = 0; i < NBDOCS; i++)
        if (strcmp(bdocs[i].name, name) == 0 && (!recv || bdocs[i].recv == recv || (recv == 'M' && bdocs[i].recv))) {
            *sig = bdocs[i].sig;
            *doc = bdocs[i].doc;
            return true;
        }
    for (int i = 0; i < NMATH; i++)
        if (strcmp(math_names[i], name) == 0) {
            *sig = math_arity[i] == 2 ? arena_printf("%s(x: float, y: float) -> float", name)
                                      : arena_printf("%s(x: float) -> float", name);
            *doc = !math_own[i] ? "A math function of the C library, on floats (docs/stdlib.md)."
                   : strstr(name, "gamma") ? "A math function on floats, within 0.51 ulp of the exact value: the same bits on every machine (docs/stdlib.md)."
                                           : "A math function on floats, correctly rounded: the same bits on every machine (docs/stdlib.md).";
            return true;
        }
    return false;
}

/* ---- the tables ----------------------------------------------------------------- */

static void range_of(const struct json *r, int *l, int *c, int *el, int *ec)
{
    *l = json_int(json_at(r, 0), 0), *c = json_int(json_at(r, 1), 0);
    *el = json_int(json_at(r, 2), *l), *ec = json_int(json_at(r, 3), *c);
}

void query_free(struct doc *d)
{
    free(d->syms), free(d->pars); /* occ is ast_occ's */
    d->syms = NULL, d->occ = NULL, d->pars = NULL;
    d->nsyms = d->nocc = d->npars = 0;
}

void query_load(struct doc *d)
{
    query_free(d);
    struct json *syms = json_get(d->ast_index, "syms"), *par = json_get(d->ast_index, "par");
    int ns = syms ? syms->n : 0, no = (int)(d->ast_occ.len / sizeof(struct locc)), np = par ? par->n : 0;
    d->syms = xmalloc(sizeof *d->syms * (size_t)(ns + 1));
    d->occ = (struct locc *)d->ast_occ.p; /* malloc'ed, so aligned for it */
    d->pars = xmalloc(sizeof *d->pars * (size_t)(np + 1));
    for (int i = 0; i < ns; i++) {
        struct json *s = syms->items[i];
        struct lsym *y = &d->syms[i];
        memset(y, 0, sizeof *y);
        y->name = json_str(json_at(s, 0), "");
        y->kind = json_str(json_at(s, 1), "v")[0];
        y->type = json_str(json_at(s, 2), "");
        y->detail = json_str(json_at(s, 3), y->name);
        y->doc = json_str(json_at(s, 4), NULL);
        y->uri = json_str(json_at(s, 5), NULL);
        y->l = json_int(json_at(s, 6), -1), y->c = json_int(json_at(s, 7), 0);
        y->el = json_int(json_at(s, 8), y->l), y->ec = json_int(json_at(s, 9), y->c);
        y->scope0 = json_int(json_at(s, 10), -1), y->scope1 = json_int(json_at(s, 11), -1);
        y->parent = json_int(json_at(s, 12), -1);
        y->module = json_str(json_at(s, 13), NULL);
        y->body1 = -1;
    }
    struct json *bodies = json_get(d->ast_index, "bodies");
    for (int i = 0; bodies && i < bodies->n; i++) {
        int k = json_int(json_at(bodies->items[i], 0), -1);
        if (k >= 0 && k < ns)
            d->syms[k].body1 = json_int(json_at(bodies->items[i], 2), -1);
    }
    d->nsyms = ns;
    for (int i = 0; i < no; i++)
        if (d->occ[i].sym >= ns)
            d->occ[i].sym = -1;
    d->nocc = no;
    for (int i = 0; i < np; i++) {
        struct json *p = par->items[i];
        range_of(p, &d->pars[i].l, &d->pars[i].c, &d->pars[i].el, &d->pars[i].ec);
        d->pars[i].elem = json_str(json_at(p, 4), "?");
        d->pars[i].reducer = json_str(json_at(p, 5), "?");
    }
    d->npars = np;
}

static int occ_at(struct doc *d, int line, int col)
{
    /* the narrowest occurrence around the cursor; one that ends at it (the
     * cursor just after a name) when none is */
    int best = -1, after = -1;
    for (int i = 0; i < d->nocc; i++) {
        struct locc *o = &d->occ[i];
        if (o->l != line || o->sym < 0 || col < o->c || col > o->ec)
            continue;
        if (col == o->ec)
            after = i;
        else if (best < 0 || o->ec - o->c < d->occ[best].ec - d->occ[best].c)
            best = i;
    }
    return best >= 0 ? best : after;
}

static bool is_ident(int c)
{
    return isalnum(c) || c == '_';
}

/* The identifier at or just before the byte offset off: [*a, *b). */
static bool word_at(struct doc *d, size_t off, size_t *a, size_t *b)
{
    size_t s = off, e = off;
    while (s > 0 && is_ident((unsigned char)d->text[s - 1]))
        s--;
    while (e < d->len && is_ident((unsigned char)d->text[e]))
        e++;
    *a = s, *b = e;
    return e > s;
}

static void put_location(struct buf *out, struct doc *d, const char *uri, int l, int c, int el, int ec)
{
    bputs(out, "{\"uri\":");
    json_put_str(out, uri && *uri ? uri : d->uri);
    bputs(out, ",\"range\":");
    put_range(out, l, c, el, ec);
    bputs(out, "}");
}

static void put_markdown(struct buf *out, const char *code, const char *doc)
{
    struct buf t = {0};
    bprintf(&t, "```brine\n%s\n```", code);
    if (doc && *doc)
        bprintf(&t, "\n\n%s", doc);
    bputs(out, "{\"kind\":\"markdown\",\"value\":");
    json_put_str(out, t.p);
    bputs(out, "}");
    free(t.p);
}

/* ---- hover ----------------------------------------------------------------------------- */

static void par_hover(struct doc *d, struct lpar *p, struct buf *out)
{
    const struct json *rep = lsp_par_info(d);
    const struct json *list = json_get(rep, "par");
    const char *lanes = "not known (the file does not compile)", *gpu = lanes;
    if (list && list->kind == J_ARR) {
        /* not among the reductions the par emitter saw: folded another way, on the CPU */
        lanes = "no: a scalar loop per leaf";
        gpu = "no: it stays on the CPU";
        for (int i = 0; i < list->n; i++) {
            const struct json *e = list->items[i];
            if (json_int(json_at(e, 0), -1) == p->l && json_int(json_at(e, 1), -1) == p->c) {
                lanes = json_int(json_at(e, 2), 0) ? "yes: the leaves are folded side by side in SIMD lanes"
                                                   : "no: a scalar loop per leaf";
                gpu = json_int(json_at(e, 3), 0) ? "eligible: a kernel is built (BRINE_GPU decides where it runs)"
                                                 : "no: it stays on the CPU";
            }
        }
        if (strcmp(p->reducer, "comprehension") == 0)
            lanes = gpu = "no: a comprehension runs on the CPU's threads";
    }
    struct buf t = {0};
    if (strcmp(p->reducer, "comprehension") == 0)
        bprintf(&t, "**par** comprehension of `%s` elements\n\n", p->elem);
    else
        bprintf(&t, "**par %s** over `%s` elements: the fixed tree, the same bits on any thread count\n\n",
                p->reducer, p->elem);
    bprintf(&t, "- SIMD lanes: %s\n- GPU: %s", lanes, gpu);
    bputs(out, "{\"contents\":{\"kind\":\"markdown\",\"value\":");
    json_put_str(out, t.p);
    bputs(out, "},\"range\":");
    put_range(out, p->l, p->c, p->l, p->c + 3);
    bputs(out, "}");
    free(t.p);
}

void q_hover(struct doc *d, int line, int col, struct buf *out)
{
    size_t off = doc_offset(d, line, col), a, b;
    if (word_at(d, off, &a, &b) && b - a == 3 && memcmp(d->text + a, "par", 3) == 0) {
        int pl, pc;
        doc_position(d, a, &pl, &pc);
        for (int i = 0; i < d->npars; i++)
            if (d->pars[i].l == pl && d->pars[i].c == pc) {
                par_hover(d, &d->pars[i], out);
                return;
            }
    }
    int k = occ_at(d, line, col);
    if (k < 0)
        return;
    struct locc *o = &d->occ[k];
    struct lsym *s = &d->syms[o->sym];
    bputs(out, "{\"contents\":");
    if (s->kind == 'b' || s->kind == 'M') {
        const char *sig = s->name, *doc = NULL;
        builtin_doc(s->name, s->kind == 'M' ? 'M' : 0, &sig, &doc);
        put_markdown(out, sig, doc);
    } else if (s->kind == 's') {
        struct buf t = {0};
        bprintf(&t, "struct %s", s->name);
        for (int i = 0; i < d->nsyms; i++)
            if (d->syms[i].kind == 'F' && d->syms[i].parent == o->sym)
                bprintf(&t, "\n    %s: %s", d->syms[i].name, d->syms[i].type);
        put_markdown(out, t.p, s->doc);
        free(t.p);
    } else {
        const char *code = s->detail;
        if (s->kind == 'p')
            code = arena_printf("(parameter) %s", s->detail);
        else if (s->module && s->kind == 'f')
            code = arena_printf("%s.%s", s->module, s->detail + 3), code = arena_printf("fn %s", code);
        put_markdown(out, code, s->doc);
    }
    bputs(out, ",\"range\":");
    put_range(out, o->l, o->c, o->l, o->ec);
    bputs(out, "}");
}

/* ---- definition, references, highlights, rename ------------------------------------------- */

void q_definition(struct doc *d, int line, int col, struct buf *out)
{
    int k = occ_at(d, line, col);
    if (k < 0)
        return;
    struct lsym *s = &d->syms[d->occ[k].sym];
    if (s->l < 0)
        return;
    put_location(out, d, s->uri, s->l, s->c, s->el, s->ec);
}

static bool is_decl(struct doc *d, struct locc *o)
{
    struct lsym *s = &d->syms[o->sym];
    return (!s->uri || !*s->uri) && s->l == o->l && s->c == o->c;
}

void q_references(struct doc *d, int line, int col, bool with_decl, struct buf *out)
{
    int k = occ_at(d, line, col);
    if (k < 0)
        return;
    int sym = d->occ[k].sym, n = 0;
    bputs(out, "[");
    for (int i = 0; i < d->nocc; i++) {
        struct locc *o = &d->occ[i];
        if (o->sym != sym || (!with_decl && is_decl(d, o)))
            continue;
        if (n++)
            bputs(out, ",");
        put_location(out, d, NULL, o->l, o->c, o->l, o->ec);
    }
    bputs(out, "]");
}

void q_highlight(struct doc *d, int line, int col, struct buf *out)
{
    int k = occ_at(d, line, col);
    if (k < 0)
        return;
    int sym = d->occ[k].sym, n = 0;
    bputs(out, "[");
    for (int i = 0; i < d->nocc; i++) {
        struct locc *o = &d->occ[i];
        if (o->sym != sym)
            continue;
        bputs(out, n++ ? ",{\"range\":" : "{\"range\":");
        put_range(out, o->l, o->c, o->l, o->ec);
        bprintf(out, ",\"kind\":%d}", is_decl(d, o) ? 3 : 2);
    }
    bputs(out, "]");
}

/* The symbol at the place may be renamed: a local, a parameter, a function
 * or a constant declared in this document; else why not. */
static const char *rename_refusal(struct doc *d, int k)
{
    if (k < 0)
        return "no name here to rename";
    struct lsym *s = &d->syms[d->occ[k].sym];
    if (!strchr("vpfcs", s->kind))
        return "only variables, parameters, functions, constants and structs can be renamed";
    if (s->uri && *s->uri)
        return arena_printf("'%s' is declared in another file", s->name);
    if (s->kind == 'f' && strcmp(s->name, "main") == 0)
        return "'main' is where the program starts: it keeps its name";
    return NULL;
}

void q_prepare_rename(struct doc *d, int line, int col, struct buf *out)
{
    int k = occ_at(d, line, col);
    if (rename_refusal(d, k))
        return;
    struct locc *o = &d->occ[k];
    bputs(out, "{\"range\":");
    put_range(out, o->l, o->c, o->l, o->ec);
    bputs(out, ",\"placeholder\":");
    json_put_str(out, d->syms[o->sym].name);
    bputs(out, "}");
}

void q_rename(struct doc *d, int line, int col, const char *new_name, struct buf *out, const char **error)
{
    int k = occ_at(d, line, col);
    if ((*error = rename_refusal(d, k)))
        return;
    bool ok = *new_name && !isdigit((unsigned char)*new_name);
    for (const char *p = new_name; *p; p++)
        ok &= is_ident((unsigned char)*p);
    for (int i = 0; keywords[i]; i++)
        ok &= strcmp(keywords[i], new_name) != 0;
    if (!ok) {
        *error = arena_printf("'%s' is not a name (letters, digits and _, not a keyword)", new_name);
        return;
    }
    int sym = d->occ[k].sym, n = 0;
    bputs(out, "{\"changes\":{");
    json_put_str(out, d->uri);
    bputs(out, ":[");
    for (int i = 0; i < d->nocc; i++) {
        struct locc *o = &d->occ[i];
        if (o->sym != sym)
            continue;
        bputs(out, n++ ? ",{\"range\":" : "{\"range\":");
        put_range(out, o->l, o->c, o->l, o->ec);
        bputs(out, ",\"newText\":");
        json_put_str(out, new_name);
        bputs(out, "}");
    }
    bputs(out, "]}}");
}

/* ---- document symbols ------------------------------------------------------------------- */

static int symbol_kind(char k)
{
    switch (k) {
    case 'f': return 12; /* Function */
    case 'c': return 14; /* Constant */
    case 's': return 23; /* Struct */
    case 'F': return 8;  /* Field */
    case 'm': return 2;  /* Module */
    case 'p': return 13; /* Variable */
    default: return 13;
    }
}

static void put_symbol(struct buf *out, struct doc *d, int i, bool children)
{
    struct lsym *s = &d->syms[i];
    bputs(out, "{\"name\":");
    json_put_str(out, s->name);
    bputs(out, ",\"detail\":");
    json_put_str(out, s->detail);
    bprintf(out, ",\"kind\":%d,\"range\":", symbol_kind(s->kind));
    /* a function's range: its scope of lines (its whole body) */
    int end = s->body1 >= 0 ? s->body1 : s->el;
    put_range(out, s->l, 0, end > s->el ? end : s->el, end > s->el ? 0 : s->ec);
    bputs(out, ",\"selectionRange\":");
    put_range(out, s->l, s->c, s->el, s->ec);
    if (children) {
        bputs(out, ",\"children\":[");
        int n = 0;
        for (int j = 0; j < d->nsyms; j++)
            if (d->syms[j].kind == 'F' && d->syms[j].parent == i && d->syms[j].l >= 0) {
                if (n++)
                    bputs(out, ",");
                put_symbol(out, d, j, false);
            }
        bputs(out, "]");
    }
    bputs(out, "}");
}

void q_symbols(struct doc *d, struct buf *out)
{
    bputs(out, "[");
    int n = 0;
    for (int i = 0; i < d->nsyms; i++) {
        struct lsym *s = &d->syms[i];
        if ((s->uri && *s->uri) || s->l < 0 || !strchr("fcs", s->kind) || s->scope0 >= 0)
            continue;
        if (n++)
            bputs(out, ",");
        put_symbol(out, d, i, s->kind == 's');
    }
    bputs(out, "]");
}

/* ---- completion ------------------------------------------------------------------------- */

static void put_item(struct buf *out, int *n, const char *label, int kind, const char *detail, const char *doc)
{
    bputs(out, (*n)++ ? ",{\"label\":" : "{\"label\":");
    json_put_str(out, label);
    bprintf(out, ",\"kind\":%d", kind);
    if (detail) {
        bputs(out, ",\"detail\":");
        json_put_str(out, detail);
    }
    if (doc && *doc) {
        bputs(out, ",\"documentation\":");
        json_put_str(out, doc);
    }
    bputs(out, "}");
}

static int item_kind(char k)
{
    switch (k) {
    case 'f': return 3;  /* Function */
    case 'c': return 21; /* Constant */
    case 's': return 22; /* Struct */
    case 'F': return 5;  /* Field */
    case 'm': return 9;  /* Module */
    default: return 6;   /* Variable */
    }
}

/* The symbol a name means at line: a local or parameter in scope declared
 * above, else a top-level one of this document. */
static int resolve(struct doc *d, const char *name, size_t len, int line)
{
    int global = -1, local = -1;
    for (int i = 0; i < d->nsyms; i++) {
        struct lsym *s = &d->syms[i];
        if (strlen(s->name) != len || memcmp(s->name, name, len) != 0 || s->kind == 'F' || s->kind == 'b' ||
            s->kind == 'M')
            continue;
        if (s->scope0 >= 0) {
            if (line >= s->scope0 && line <= s->scope1 && s->l <= line && (local < 0 || s->l >= d->syms[local].l))
                local = i;
        } else if (!s->module || s->kind == 'm') {
            global = i;
        }
    }
    return local >= 0 ? local : global;
}

/* After "EXPR.": the type of the chain of names and fields before the dot
 * (a.b.c), as a type name, or the module a name imports. */
static const char *type_before_dot(struct doc *d, size_t dot, int line, const char **module)
{
    *module = NULL;
    size_t end = dot;
    size_t a = end;
    while (a > 0 && (is_ident((unsigned char)d->text[a - 1]) || d->text[a - 1] == '.'))
        a--;
    if (a == end)
        return NULL;
    /* the first name, then each field */
    size_t p = a, q = a;
    while (q < end && d->text[q] != '.')
        q++;
    int s = resolve(d, d->text + p, q - p, line);
    if (s < 0) {
        /* a string literal before the dot */
        return NULL;
    }
    if (d->syms[s].kind == 'm') {
        *module = d->syms[s].name;
        return q == end ? NULL : NULL;
    }
    const char *t = d->syms[s].type;
    while (q < end) {
        p = q + 1;
        q = p;
        while (q < end && d->text[q] != '.')
            q++;
        int found = -1;
        for (int i = 0; i < d->nsyms; i++) {
            struct lsym *f = &d->syms[i];
            if (f->kind == 'F' && f->parent >= 0 && strcmp(d->syms[f->parent].name, t) == 0 &&
                strlen(f->name) == q - p && memcmp(f->name, d->text + p, q - p) == 0)
                found = i;
        }
        if (found < 0)
            return NULL;
        t = d->syms[found].type;
    }
    return t;
}

static void complete_members(struct doc *d, const char *t, const char *module, struct buf *out, int *n)
{
    if (module) {
        for (int i = 0; i < d->nsyms; i++) {
            struct lsym *s = &d->syms[i];
            if (s->module && strcmp(s->module, module) == 0 && (s->kind == 'f' || s->kind == 'c'))
                put_item(out, n, s->name, item_kind(s->kind), s->detail, s->doc);
        }
        const char *prefix = strcmp(module, "os") == 0 ? "os." : strcmp(module, "world") == 0 ? "world." : NULL;
        for (int i = 0; prefix && i < NBDOCS; i++)
            if (strncmp(bdocs[i].name, prefix, strlen(prefix)) == 0)
                put_item(out, n, bdocs[i].name + strlen(prefix), 3, bdocs[i].sig, bdocs[i].doc);
        return;
    }
    if (!t)
        return;
    char recv = t[0] == '[' ? 'a' : strcmp(t, "str") == 0 ? 's' : strncmp(t, "Option", 6) == 0 ? 'o'
              : strcmp(t, "int") == 0 || strcmp(t, "u64") == 0 || strcmp(t, "i128") == 0 ? 'i' : 0;
    for (int i = 0; recv && i < NBDOCS; i++)
        if (bdocs[i].recv == recv)
            put_item(out, n, bdocs[i].name, 2, bdocs[i].sig, bdocs[i].doc);
    for (int i = 0; i < d->nsyms; i++) {
        struct lsym *f = &d->syms[i];
        if (f->kind == 'F' && f->parent >= 0 && strcmp(d->syms[f->parent].name, t) == 0)
            put_item(out, n, f->name, 5, f->detail, NULL);
    }
}

void q_completion(struct doc *d, int line, int col, struct buf *out)
{
    size_t off = doc_offset(d, line, col);
    size_t a = off;
    while (a > 0 && is_ident((unsigned char)d->text[a - 1]))
        a--;
    int n = 0;
    bputs(out, "{\"isIncomplete\":false,\"items\":[");
    if (a > 0 && d->text[a - 1] == '.') {
        const char *module;
        size_t dot = a - 1;
        const char *t = type_before_dot(d, dot, line, &module);
        /* os and world are modules without symbols */
        size_t w = dot;
        while (w > 0 && is_ident((unsigned char)d->text[w - 1]))
            w--;
        if (!module && dot - w == 2 && memcmp(d->text + w, "os", 2) == 0)
            module = "os";
        if (!module && dot - w == 5 && memcmp(d->text + w, "world", 5) == 0)
            module = "world";
        complete_members(d, t, module, out, &n);
        bputs(out, "]}");
        return;
    }
    /* names in scope (a local hides a global of its name; the latest local wins), the builtins, the keywords */
    struct map best = {0};
    for (int i = 0; i < d->nsyms; i++) {
        struct lsym *s = &d->syms[i];
        if (s->kind == 'F' || s->kind == 'b' || s->kind == 'M' || (s->module && s->kind != 'm'))
            continue;
        if (s->scope0 >= 0 && !(line >= s->scope0 && line <= s->scope1 && s->l <= line))
            continue;
        int prev = (int)(intptr_t)map_get_str(&best, s->name) - 1;
        if (prev >= 0) {
            struct lsym *p = &d->syms[prev];
            bool better = s->scope0 >= 0 && (p->scope0 < 0 || s->l >= p->l);
            if (!better)
                continue;
        }
        map_put_str(&best, s->name, (void *)(intptr_t)(i + 1));
    }
    for (int i = 0; i < d->nsyms; i++) {
        struct lsym *s = &d->syms[i];
        if ((int)(intptr_t)map_get_str(&best, s->name) == i + 1)
            put_item(out, &n, s->name, item_kind(s->kind), s->detail, s->doc);
    }
    map_free(&best);
    for (int i = 0; i < NBDOCS; i++)
        if (!bdocs[i].recv && !strchr(bdocs[i].name, '.'))
            put_item(out, &n, bdocs[i].name, 3, bdocs[i].sig, bdocs[i].doc);
    for (int i = 0; i < NMATH; i++)
        put_item(out, &n, math_names[i], 3, math_arity[i] == 2 ? "(x: float, y: float) -> float" : "(x: float) -> float",
                 NULL);
    for (int i = 0; keywords[i]; i++)
        put_item(out, &n, keywords[i], 14, NULL, NULL);
    bputs(out, "]}");
}

/* ---- signature help ---------------------------------------------------------------------- */

void q_signature(struct doc *d, int line, int col, struct buf *out)
{
    size_t off = doc_offset(d, line, col);
    /* back to the innermost unclosed '(' on this logical line, counting commas */
    int depth = 0, commas = 0;
    size_t i = off;
    bool found = false;
    while (i > 0) {
        char c = d->text[--i];
        if (c == '\n' && depth == 0 && (i == 0 || d->text[i - 1] != '\\'))
            break;
        if (c == ')' || c == ']')
            depth++;
        else if (c == '(' || c == '[') {
            if (depth == 0) {
                found = c == '(';
                break;
            }
            depth--;
        } else if (c == ',' && depth == 0)
            commas++;
    }
    if (!found)
        return;
    size_t e = i, s = i;
    while (s > 0 && (is_ident((unsigned char)d->text[s - 1]) || d->text[s - 1] == '.'))
        s--;
    if (s == e)
        return;
    const char *name = arena_strndup(d->text + s, e - s);
    const char *label = NULL, *doc = NULL;
    const char *dot = strrchr(name, '.');
    const char *last = dot ? dot + 1 : name;
    int sym = -1;
    if (dot) {
        /* m.f: a module's function; os.f, world.f: builtins; x.m: a method */
        const char *mod = arena_strndup(name, (size_t)(dot - name));
        int ms = resolve(d, mod, strlen(mod), line);
        for (int k = 0; ms >= 0 && d->syms[ms].kind == 'm' && k < d->nsyms; k++)
            if (d->syms[k].kind == 'f' && d->syms[k].module && strcmp(d->syms[k].module, d->syms[ms].name) == 0 &&
                strcmp(d->syms[k].name, last) == 0)
                sym = k;
        if (sym < 0 && !builtin_doc(name, 0, &label, &doc))
            builtin_doc(last, 'M', &label, &doc);
    } else {
        sym = resolve(d, name, strlen(name), line);
        if (sym >= 0 && d->syms[sym].kind != 'f' && d->syms[sym].kind != 's')
            sym = -1;
        if (sym < 0)
            builtin_doc(name, 0, &label, &doc);
    }
    if (sym >= 0) {
        label = d->syms[sym].detail;
        doc = d->syms[sym].doc;
    }
    if (!label)
        return;
    /* the parameters: the label's text between its parentheses, split on commas */
    bputs(out, "{\"signatures\":[{\"label\":");
    json_put_str(out, label);
    if (doc && *doc) {
        bputs(out, ",\"documentation\":");
        json_put_str(out, doc);
    }
    bputs(out, ",\"parameters\":[");
    const char *p = strchr(label, '(');
    int np = 0;
    if (p && p[1] != ')') {
        int start = (int)(p - label) + 1, k = start, lvl = 0;
        for (;; k++) {
            char c = label[k];
            if (c == '[' || (c == '(' && k > start))
                lvl++;
            else if ((c == ']' || c == ')') && lvl > 0)
                lvl--;
            else if ((c == ',' && lvl == 0) || c == ')' || !c) {
                bprintf(out, "%s{\"label\":[%d,%d]}", np++ ? "," : "", start, k);
                if (c != ',')
                    break;
                start = k + 2;
            }
        }
    }
    bprintf(out, "]}],\"activeSignature\":0,\"activeParameter\":%d}", np && commas >= np ? np - 1 : commas);
}

/* ---- diagnostics and their fixes ------------------------------------------------------- */

void q_diagnostics(struct doc *d, struct buf *out)
{
    struct json *list = json_get(d->index, "diags");
    bputs(out, "[");
    for (int i = 0; list && i < list->n; i++) {
        struct json *g = list->items[i];
        int l, c, el, ec;
        range_of(json_get(g, "r"), &l, &c, &el, &ec);
        if (el == l && ec <= c)
            ec = c + 1;
        bputs(out, i ? ",{\"range\":" : "{\"range\":");
        put_range(out, l, c, el, ec);
        bprintf(out, ",\"severity\":%d,\"source\":\"brine\",\"message\":", json_get_int(g, "e", 1) ? 1 : 2);
        json_put_str(out, json_get_str(g, "m", ""));
        if (json_get(g, "n")) {
            int nl, nc, nel, nec;
            range_of(json_get(g, "nr"), &nl, &nc, &nel, &nec);
            bputs(out, ",\"relatedInformation\":[{\"location\":");
            put_location(out, d, NULL, nl, nc, nel, nec);
            bputs(out, ",\"message\":");
            json_put_str(out, json_get_str(g, "n", ""));
            bputs(out, "}]");
        }
        char *fix, *title;
        if (q_fix_of(d, g, &fix, &title)) {
            /* the fix travels with the diagnostic too, for clients that echo data */
            bputs(out, ",\"data\":{\"fix\":");
            json_put_str(out, fix);
            bputs(out, "}");
            free(fix), free(title);
        }
        bputs(out, "}");
    }
    bputs(out, "]");
}

/* The text between the first quote pair after key in msg. */
static char *quoted_after(const char *msg, const char *key, char open, char close)
{
    const char *p = strstr(msg, key);
    if (!p)
        return NULL;
    p += strlen(key);
    if (open) {
        if (*p != open)
            return NULL;
        p++;
    }
    const char *e = strchr(p, close);
    if (!e)
        return NULL;
    return strndup(p, (size_t)(e - p));
}

bool q_fix_of(struct doc *d, const struct json *g, char **new_text, char **title)
{
    const char *msg = json_get_str(g, "m", "");
    int l, c, el, ec;
    range_of(json_get(g, "r"), &l, &c, &el, &ec);
    size_t a = doc_offset(d, l, c), b = doc_offset(d, el, ec);
    if (b < a || b - a > 10000)
        return false;
    char *s;
    if ((s = quoted_after(msg, "did you mean ", '\'', '\''))) {
        *new_text = s;
        *title = strdup(arena_printf("Change to '%s'", s));
        return true;
    }
    if ((s = quoted_after(msg, "(write ", 0, ')'))) {
        *new_text = s;
        *title = strdup(arena_printf("Write %s", s));
        return true;
    }
    if (strstr(msg, "with float(...))")) {
        struct buf t = {0};
        bputs(&t, "float(");
        bputn(&t, d->text + a, b - a);
        bputs(&t, ")");
        *new_text = t.p;
        *title = strdup("Convert with float(...)");
        return true;
    }
    return false;
}

void q_code_actions(struct doc *d, const struct json *range, struct buf *out)
{
    int rl = json_get_int(json_get(range, "start"), "line", 0), rel = json_get_int(json_get(range, "end"), "line", rl);
    struct json *list = json_get(d->index, "diags");
    int n = 0;
    bputs(out, "[");
    for (int i = 0; list && i < list->n; i++) {
        struct json *g = list->items[i];
        int l, c, el, ec;
        range_of(json_get(g, "r"), &l, &c, &el, &ec);
        if (el < rl || l > rel)
            continue;
        char *fix, *title;
        if (!q_fix_of(d, g, &fix, &title))
            continue;
        bputs(out, n++ ? ",{\"title\":" : "{\"title\":");
        json_put_str(out, title);
        bputs(out, ",\"kind\":\"quickfix\",\"isPreferred\":true,\"diagnostics\":[{\"range\":");
        put_range(out, l, c, el, ec);
        bputs(out, ",\"message\":");
        json_put_str(out, json_get_str(g, "m", ""));
        bputs(out, "}],\"edit\":{\"changes\":{");
        json_put_str(out, d->uri);
        bputs(out, ":[{\"range\":");
        put_range(out, l, c, el, ec);
        bputs(out, ",\"newText\":");
        json_put_str(out, fix);
        bputs(out, "}]}}}");
        free(fix), free(title);
    }
    bputs(out, "]");
}
