/*
 * parser.y: tokens -> AST (SPEC section 2). Processed by Bison 3.8.
 *
 * A pure LALR(1) parser with locations (YYLTYPE is struct loc, a rule's
 * location spans its first to its last symbol) and LAC, so the expected-token
 * lists in messages are exact. Precedence is spelled out as one nonterminal
 * per level of SPEC section 2's table, which keeps %expect 0 honest and gives
 * comparisons no chaining by construction (a dedicated rule catches
 * `a < b < c` and explains it).
 *
 * Errors: yyreport_syntax_error builds a message from the expected set and
 * a little context ("expected ':' after the 'if' condition, found newline").
 * Grammar actions never exit: a semantic error (bad assignment target,
 * unknown type name) is recorded in the parser and the action YYABORTs;
 * parse_file then prints it. The lexer reports its own errors.
 */

%code requires {
#include "brine.h"

/* One token. text/len: its raw source slice. INT: ival (magnitude) and
 * too_big; FLOAT: fval; STRING, FTEXT: str/str_len, escapes decoded. */
struct token {
    int kind;
    struct loc loc;
    const char *text;
    size_t len;
    unsigned __int128 ival;
    bool too_big;
    double fval;
    const char *str;
    size_t str_len;
};

/* The lexer's whole state (lexer.re). */
struct lexer {
    int file;
    const unsigned char *src, *end;      /* the text; *end is the first NUL of the padding */
    const unsigned char *cur, *tok, *marker;
    const unsigned char *line_start;
    int line;
    int indents[MAX_NESTING + 1];        /* the indent stack; indents[0] = 0 */
    int nindents;
    struct loc brackets[MAX_NESTING];    /* open ( and [, for messages */
    char bracket_ch[MAX_NESTING];
    int depth;
    int pending_dedents;
    bool at_line_start;                  /* indentation still to be measured */
    bool line_has_tokens;                /* a NEWLINE is owed at the end of this line */
    int mode;                            /* code, f-string text, f-string expression, after a spec */
    int fexpr_depth;                     /* bracket depth where the current {expr} began */
    const unsigned char *str_open;       /* the opening quote of the current string */
    char *buf;                           /* decoded string text */
    size_t buflen, bufcap;
};

void lexer_init(struct lexer *L, int file);
void lexer_next(struct lexer *L, struct token *t);
const char *token_kind_name(int kind);

/* Lists the grammar builds before they become node fields. */
struct param_list { struct vec params; };
struct param { const char *name; struct loc loc; struct type *type; };
struct fpart_list { struct fpart *items; int len, cap; };
struct if_parts { struct loc loc; struct nodes conds; struct vec blocks; struct nodes else_block; bool has_else; };

struct parser {
    struct lexer lx;
    struct module *mod;
    struct token cur, prev, prev2; /* the lookahead and the two tokens before it */
    int line_head;                 /* the first token of the current logical line */
    const char *err_msg;           /* a semantic error found by an action */
    struct loc err_loc;
};
}

%code provides {
int yyparse(struct parser *p);
}

%code {
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static int yylex(YYSTYPE *lval, YYLTYPE *lloc, struct parser *p);
static void yyerror(YYLTYPE *loc, struct parser *p, const char *msg);
void ast_check_depth(struct module *m); /* ast.c */

/* A semantic error in an action: record it and stop the parse. */
#define FAIL(loc, ...)                              \
    do {                                            \
        p->err_loc = (loc);                         \
        p->err_msg = arena_printf(__VA_ARGS__);     \
        YYABORT;                                    \
    } while (0)

static struct node *binary(int kind, enum op op, struct node *a, struct node *b, struct loc loc)
{
    struct node *n = node_new(kind, loc);
    n->u.bin.op = op;
    n->u.bin.a = a;
    n->u.bin.b = b;
    n->u.bin.chain = a && a->kind == kind ? a->u.bin.chain + 1 : 1;
    return n;
}

/* $$ = a OP b in a left-leaning chain (a + b + c ...): past MAX_CHAIN the
 * parse stops at once, so a 10 MB line of additions costs no more memory
 * than 2,000 of them (ast_check_depth says the same for chains made
 * otherwise). */
#define CHAIN(out, kind, op, a, b, loc)                                                          \
    do {                                                                                        \
        struct node *chain_ = binary(kind, op, a, b, loc);                                      \
        if (chain_->u.bin.chain > MAX_CHAIN)                                                    \
            FAIL(loc, "expression too long: more than %d operators in a row; split it over "   \
                      "several statements", MAX_CHAIN);                                         \
        out = chain_;                                                                           \
    } while (0)

/* A call of a builtin form the parser makes (assert, slices): the callee's
 * name is one no program can write, so only these nodes reach it. */
static struct node *syntax_call(const char *name, struct loc name_loc, struct loc loc)
{
    struct node *callee = node_new(N_NAME, name_loc);
    callee->u.name.name = name;
    struct node *n = node_new(N_CALL, loc);
    n->u.call.callee = callee;
    return n;
}

static struct node *syntax_call_stmt(const char *name, struct loc kw, struct loc loc, struct node *a,
                                     struct node *b)
{
    struct node *call = syntax_call(name, kw, loc);
    nodes_push(&call->u.call.args, a);
    if (b)
        nodes_push(&call->u.call.args, b);
    struct node *s = node_new(N_EXPR_STMT, loc);
    s->u.expr_stmt.expr = call;
    return s;
}

/* x[lo:hi]: (x, lo[, hi]); a missing lo is 0, a missing hi len(x) */
static struct node *slice(struct node *x, struct node *lo, struct node *hi, struct loc loc)
{
    struct node *n = syntax_call("[:]", loc, loc);
    if (!lo) {
        lo = node_new(N_INT, loc);
        lo->u.ilit.value = 0;
    }
    nodes_push(&n->u.call.args, x);
    nodes_push(&n->u.call.args, lo);
    if (hi)
        nodes_push(&n->u.call.args, hi);
    return n;
}

static struct node *if_node(struct if_parts *ip)
{
    struct node *n = node_new(N_IF, ip->loc);
    n->u.if_.conds = ip->conds;
    n->u.if_.blocks = arena_alloc(sizeof(struct nodes) * (size_t)ip->blocks.len);
    for (int i = 0; i < ip->blocks.len; i++)
        n->u.if_.blocks[i] = *(struct nodes *)ip->blocks.items[i];
    n->u.if_.else_block = ip->else_block;
    n->u.if_.has_else = ip->has_else;
    return n;
}

static struct nodes *new_list(void)
{
    return arena_alloc(sizeof(struct nodes));
}

/* lambda params: body; params NULL for `lambda: body` */
static struct node *lambda_node(struct nodes *params, struct node *body, struct loc loc)
{
    struct node *n = node_new(N_LAMBDA, loc);
    int k = params ? params->len : 0;
    n->u.lambda.n = k;
    n->u.lambda.names = arena_alloc(sizeof(const char *) * (size_t)(k + 1));
    n->u.lambda.locs = arena_alloc(sizeof(struct loc) * (size_t)(k + 1));
    for (int i = 0; i < k; i++) {
        n->u.lambda.names[i] = params->items[i]->u.name.name;
        n->u.lambda.locs[i] = params->items[i]->loc;
    }
    n->u.lambda.body = body;
    return n;
}

static struct type *named_type(const char *name)
{
    static const struct { const char *name; struct type **type; } types[] = {
        {"int", &ty_int}, {"i128", &ty_i128}, {"u64", &ty_u64},
        {"float", &ty_float}, {"bool", &ty_bool}, {"str", &ty_str},
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(types[i].name, name) == 0)
            return *types[i].type;
    return NULL;
}

static const char *describe_target(struct node *n)
{
    switch (n->kind) {
    case N_CALL: return "a function call";
    case N_FIELD: return "a field";
    case N_INT: case N_FLOAT: case N_STR: case N_BOOL: case N_FSTRING: return "a literal";
    default: return "this expression";
    }
}
}

%define api.pure full
%define api.token.prefix {TK_}
%define api.location.type {struct loc}
%define parse.error custom
%define parse.lac full
%locations
%expect 0
%param {struct parser *p}

%code requires {
/* A rule's location spans its first to its last symbol; an empty rule sits
 * at the end of the symbol before it. */
#define YYLLOC_DEFAULT(Cur, Rhs, N)                                        \
    do {                                                                   \
        if (N) {                                                           \
            (Cur) = loc_span(YYRHSLOC(Rhs, 1), YYRHSLOC(Rhs, N));          \
        } else {                                                           \
            (Cur).file = YYRHSLOC(Rhs, 0).file;                            \
            (Cur).line = (Cur).end_line = YYRHSLOC(Rhs, 0).end_line;       \
            (Cur).col = (Cur).end_col = YYRHSLOC(Rhs, 0).end_col;          \
        }                                                                  \
    } while (0)
}

%union {
    struct node *node;
    struct type *type;
    struct nodes *list;
    struct gen *gen;
    struct iterable *iter;
    const char *name;
    struct fpart *fpart;
    struct fpart_list *fparts;
    struct param_list *params;
    struct param *param;
    struct if_parts *ifp;
    struct vec *tlist;
    int op;
}

%token <name> NAME "name"
%token <node> INT "integer literal" FLOAT "float literal" STRING "string literal"
%token FSTART "f-string"
%token <fpart> FTEXT "f-string text"
%token FLBRACE "'{'"
%token <name> FSPEC "format spec"
%token FRBRACE "'}'" FEND "end of the f-string"
%token FN "'fn'" LET "'let'" VAR "'var'" IF "'if'" ELIF "'elif'" ELSE "'else'"
       WHILE "'while'" FOR "'for'" IN "'in'" RETURN "'return'" BREAK "'break'"
       CONTINUE "'continue'" PASS "'pass'" PAR "'par'" AND "'and'" OR "'or'" NOT "'not'"
       TRUE "'true'" FALSE "'false'" IMPORT "'import'" ASSERT "'assert'"
%token STRUCT "'struct'" LAMBDA "'lambda'"
%token NONE "'None'"
%token ARROW "'->'" DOTDOT "'..'" DOTDOTEQ "'..='" EQ "'=='" NE "'!='" LE "'<='" GE "'>='"
       SHL "'<<'" SHR "'>>'"
%token PLUSEQ "'+='" MINUSEQ "'-='" STAREQ "'*='" SLASHEQ "'/='" PERCENTEQ "'%='"
       AMPEQ "'&='" PIPEEQ "'|='" CARETEQ "'^='" SHLEQ "'<<='" SHREQ "'>>='"
%token NEWLINE "newline" INDENT "indentation" DEDENT "end of block"

%type <node> top import fn_decl const_decl stmt simple_stmt compound_stmt
%type <node> expr or_expr and_expr not_expr cmp_expr bor_expr bxor_expr band_expr
%type <node> shift_expr add_expr mul_expr unary_expr postfix primary fstring
%type <list> block stmts args arg_list pat_names call_args call_arg_list lambda_params
%type <node> call_arg
%type <type> struct_decl
%type <tlist> struct_fields
%type <tlist> type_list
%type <gen> gen gen_clauses gen_clause
%type <iter> for_iter gen_iter
%type <type> type ret_opt annot_opt
%type <params> params param_list
%type <param> param
%type <fparts> fparts
%type <ifp> if_head
%type <op> cmpop augop
%type <node> opt_filter

%%

/* program := { import | fn_decl | const_decl } */
program:
    %empty
  | program top { nodes_push(&p->mod->decls, $2); }
  | program struct_decl
  ;

/* struct_decl := "struct" NAME ":" NEWLINE INDENT field {field} DEDENT
 * field := NAME ":" type NEWLINE. The struct's type (made on its first use,
 * perhaps earlier in the file) gets its fields here; no node is kept. */
struct_decl:
    STRUCT NAME ':' NEWLINE INDENT struct_fields DEDENT {
        struct type *t = type_struct($2, @2);
        if (t->sdefined)
            FAIL(@2, "struct '%s' is already defined (line %d)", $2, t->sloc.line);
        int n = $6->len / 2;
        t->nfields = n;
        t->fields = arena_alloc(sizeof *t->fields * (size_t)n);
        t->fnames = arena_alloc(sizeof *t->fnames * (size_t)n);
        for (int i = 0; i < n; i++) {
            struct param *f = $6->items[2 * i];
            for (int j = 0; j < i; j++)
                if (strcmp(t->fnames[j], f->name) == 0)
                    FAIL(f->loc, "field '%s' appears twice in struct '%s'", f->name, $2);
            t->fnames[i] = f->name;
            t->fields[i] = f->type;
        }
        t->sloc = @2;
        t->sdefined = true;
        $$ = t;
    }
  ;

/* pairs: a struct param (name, loc, type) and a spare slot per field */
struct_fields:
    param NEWLINE               { $$ = arena_alloc(sizeof *$$); vec_push($$, $1); vec_push($$, NULL); }
  | struct_fields param NEWLINE { $$ = $1; vec_push($$, $2); vec_push($$, NULL); }
  ;

top: import | fn_decl | const_decl ;

/* import := "import" NAME NEWLINE */
import:
    IMPORT NAME NEWLINE {
        $$ = node_new(N_IMPORT, loc_span(@1, @2));
        $$->u.import.name = $2;
    }
  ;

/* const_decl := "let" NAME [":" type] "=" expr NEWLINE */
const_decl:
    LET NAME annot_opt '=' expr NEWLINE {
        $$ = node_new(N_CONST, loc_span(@1, @5));
        $$->u.let.name = $2;
        $$->u.let.name_loc = @2;
        $$->u.let.annot = $3;
        $$->u.let.init = $5;
    }
  ;

annot_opt:
    %empty   { $$ = NULL; }
  | ':' type { $$ = $2; }
  ;

/* fn_decl := "fn" NAME "(" [param {"," param}] ")" ["->" type] ":" block */
fn_decl:
    FN NAME '(' params ')' ret_opt ':' block {
        $$ = node_new(N_FN, loc_span(@1, @6));
        $$->u.fn.name = $2;
        $$->u.fn.name_loc = @2;
        int n = $4->params.len;
        $$->u.fn.nparams = n;
        $$->u.fn.param_names = arena_alloc(sizeof(char *) * (size_t)(n + 1));
        $$->u.fn.param_locs = arena_alloc(sizeof(struct loc) * (size_t)(n + 1));
        $$->u.fn.param_types = arena_alloc(sizeof(struct type *) * (size_t)(n + 1));
        for (int i = 0; i < n; i++) {
            struct param *pa = $4->params.items[i];
            $$->u.fn.param_names[i] = pa->name;
            $$->u.fn.param_locs[i] = pa->loc;
            $$->u.fn.param_types[i] = pa->type;
        }
        $$->u.fn.ret = $6;
        $$->u.fn.body = *$8;
    }
  ;

params:
    %empty                 { $$ = arena_alloc(sizeof *$$); }
  | param_list
  | param_list ','
  ;

param_list:
    param                  { $$ = arena_alloc(sizeof *$$); vec_push(&$$->params, $1); }
  | param_list ',' param   { $$ = $1; vec_push(&$$->params, $3); }
  ;

param:
    NAME ':' type {
        $$ = arena_alloc(sizeof *$$);
        $$->name = $1;
        $$->loc = @1;
        $$->type = $3;
    }
  ;

ret_opt:
    %empty      { $$ = ty_void; }
  | ARROW type  { $$ = $2; }
  ;

/* type := "int" | "i128" | "u64" | "float" | "bool" | "str" | "[" type "]" | NAME
 *       | "Option" "[" type "]" | "(" type "," type {"," type} ")"
 *       | "fn" "(" [type {"," type}] ")" ["->" type] */
type:
    NAME {
        $$ = named_type($1);
        if (!$$) /* a struct, perhaps declared later; the checker reports it if never */
            $$ = type_struct($1, @1);
    }
  | '[' type ']' { $$ = type_array($2); }
  | FN '(' ')' ret_opt { $$ = type_fn(NULL, 0, $4); }
  | FN '(' type_list ')' ret_opt { $$ = type_fn((struct type **)$3->items, $3->len, $5); }
  | NAME '[' type ']' {
        if (strcmp($1, "Option") != 0)
            FAIL(@1, "unknown generic type '%s'; the one type with a parameter is Option[T]", $1);
        $$ = type_option($3);
    }
  | '(' type ',' type_list ')' {
        vec_push($4, NULL);
        memmove($4->items + 1, $4->items, sizeof *$4->items * (size_t)($4->len - 1));
        $4->items[0] = $2;
        $$ = type_tuple((struct type **)$4->items, $4->len);
    }
  ;

type_list:
    type               { $$ = arena_alloc(sizeof *$$); vec_push($$, $1); }
  | type_list ',' type { $$ = $1; vec_push($$, $3); }
  ;

/* The names of a destructuring pattern: let (x, y) = e */
pat_names:
    NAME {
        $$ = new_list();
        struct node *n = node_new(N_NAME, @1);
        n->u.name.name = $1;
        nodes_push($$, n);
    }
  | pat_names ',' NAME {
        $$ = $1;
        struct node *n = node_new(N_NAME, @3);
        n->u.name.name = $3;
        nodes_push($$, n);
    }
  ;

/* block := NEWLINE INDENT stmt {stmt} DEDENT */
block:
    NEWLINE INDENT stmts DEDENT { $$ = $3; }
  ;

stmts:
    stmt        { $$ = new_list(); nodes_push($$, $1); }
  | stmts stmt  { $$ = $1; nodes_push($$, $2); }
  ;

stmt:
    simple_stmt NEWLINE { $$ = $1; }
  | compound_stmt
  ;

simple_stmt:
    LET NAME annot_opt '=' expr {
        $$ = node_new(N_LET, loc_span(@1, @5));
        $$->u.let.name = $2;
        $$->u.let.name_loc = @2;
        $$->u.let.annot = $3;
        $$->u.let.init = $5;
    }
  | LET '(' pat_names ')' '=' expr {
        if ($3->len < 2)
            FAIL(@3, "a destructuring pattern needs two or more names: let (x, y) = ...");
        $$ = node_new(N_LET, loc_span(@1, @6));
        $$->u.let.name = "";
        $$->u.let.name_loc = @3;
        $$->u.let.pat = *$3;
        $$->u.let.init = $6;
    }
  | VAR '(' pat_names ')' '=' expr {
        if ($3->len < 2)
            FAIL(@3, "a destructuring pattern needs two or more names: var (x, y) = ...");
        $$ = node_new(N_LET, loc_span(@1, @6));
        $$->u.let.is_var = true;
        $$->u.let.name = "";
        $$->u.let.name_loc = @3;
        $$->u.let.pat = *$3;
        $$->u.let.init = $6;
    }
  | VAR NAME annot_opt '=' expr {
        $$ = node_new(N_LET, loc_span(@1, @5));
        $$->u.let.is_var = true;
        $$->u.let.name = $2;
        $$->u.let.name_loc = @2;
        $$->u.let.annot = $3;
        $$->u.let.init = $5;
    }
  | expr '=' expr {
        if ($1->kind != N_NAME && $1->kind != N_INDEX && $1->kind != N_TUPLE && $1->kind != N_FIELD)
            FAIL(@1, "cannot assign to %s; the target must be a name, an element xs[i] or a field s.f", describe_target($1));
        $$ = node_new(N_ASSIGN, @$);
        $$->u.assign.op = OP_NONE;
        $$->u.assign.target = $1;
        $$->u.assign.value = $3;
    }
  | expr augop expr {
        if ($1->kind != N_NAME && $1->kind != N_INDEX && $1->kind != N_FIELD)
            FAIL(@1, "cannot assign to %s; the target must be a name, an element xs[i] or a field s.f", describe_target($1));
        $$ = node_new(N_ASSIGN, @$);
        $$->u.assign.op = $2;
        $$->u.assign.target = $1;
        $$->u.assign.value = $3;
    }
  | BREAK        { $$ = node_new(N_BREAK, @1); }
  | CONTINUE     { $$ = node_new(N_CONTINUE, @1); }
  | PASS         { $$ = node_new(N_PASS, @1); }
  | RETURN       { $$ = node_new(N_RETURN, @1); }
  | RETURN expr  { $$ = node_new(N_RETURN, @$); $$->u.ret.value = $2; }
    /* assert cond [, msg]: a call of the builtin form "assert" (no program
     * can name it: assert is a keyword); the checker adds the default message */
  | ASSERT expr  { $$ = syntax_call_stmt("assert", @1, @$, $2, NULL); }
  | ASSERT expr ',' expr { $$ = syntax_call_stmt("assert", @1, @$, $2, $4); }
  | expr         { $$ = node_new(N_EXPR_STMT, @1); $$->u.expr_stmt.expr = $1; }
  ;

augop:
    PLUSEQ { $$ = OP_ADD; } | MINUSEQ { $$ = OP_SUB; } | STAREQ { $$ = OP_MUL; }
  | SLASHEQ { $$ = OP_DIV; } | PERCENTEQ { $$ = OP_MOD; } | AMPEQ { $$ = OP_BAND; }
  | PIPEEQ { $$ = OP_BOR; } | CARETEQ { $$ = OP_BXOR; } | SHLEQ { $$ = OP_SHL; }
  | SHREQ { $$ = OP_SHR; }
  ;

compound_stmt:
    if_head { $$ = if_node($1); }
  | if_head ELSE ':' block {
        $1->has_else = true;
        $1->else_block = *$4;
        $$ = if_node($1);
    }
  | WHILE expr ':' block {
        $$ = node_new(N_WHILE, loc_span(@1, @2));
        $$->u.while_.cond = $2;
        $$->u.while_.body = *$4;
    }
  | FOR NAME IN for_iter ':' block {
        $$ = node_new(N_FOR, loc_span(@1, @4));
        $$->u.for_.var = $2;
        $$->u.for_.var_loc = @2;
        $$->u.for_.iter = *$4;
        $$->u.for_.body = *$6;
    }
  | FOR '(' pat_names ')' IN for_iter ':' block {
        if ($3->len < 2)
            FAIL(@3, "a loop pattern needs two or more names: for (i, x) in enumerate(xs)");
        $$ = node_new(N_FOR, loc_span(@1, @6));
        $$->u.for_.var = "";
        $$->u.for_.var_loc = loc_span(@2, @4);
        $$->u.for_.pat = *$3;
        $$->u.for_.iter = *$6;
        $$->u.for_.body = *$8;
    }
  ;

/* "if" expr ":" block {"elif" expr ":" block} ["else" ":" block]; elif
 * chains are flattened into conds/blocks. */
if_head:
    IF expr ':' block {
        $$ = arena_alloc(sizeof *$$);
        $$->loc = loc_span(@1, @2);
        nodes_push(&$$->conds, $2);
        vec_push(&$$->blocks, $4);
    }
  | if_head ELIF expr ':' block {
        $$ = $1;
        nodes_push(&$$->conds, $3);
        vec_push(&$$->blocks, $5);
    }
  ;

/* iterable := expr (".." | "..=") expr | expr */
for_iter:
    or_expr DOTDOT or_expr {
        $$ = arena_alloc(sizeof *$$);
        $$->is_range = true;
        $$->lo = $1;
        $$->hi = $3;
    }
  | or_expr DOTDOTEQ or_expr {
        $$ = arena_alloc(sizeof *$$);
        $$->is_range = true;
        $$->inclusive = true;
        $$->lo = $1;
        $$->hi = $3;
    }
  | expr {
        $$ = arena_alloc(sizeof *$$);
        $$->array = $1;
    }
  ;

/* In a generator the iterable and filter are or-level, as in Python, so
 * the filter's 'if' is never a conditional expression's. */
gen_iter:
    or_expr DOTDOT or_expr {
        $$ = arena_alloc(sizeof *$$);
        $$->is_range = true;
        $$->lo = $1;
        $$->hi = $3;
    }
  | or_expr DOTDOTEQ or_expr {
        $$ = arena_alloc(sizeof *$$);
        $$->is_range = true;
        $$->inclusive = true;
        $$->lo = $1;
        $$->hi = $3;
    }
  | or_expr {
        $$ = arena_alloc(sizeof *$$);
        $$->array = $1;
    }
  ;

/* gen    := expr clause {clause} ["if" expr]
 * clause := "for" (NAME | "(" NAME {"," NAME} ")") "in" iterable ["if" expr]
 * The first clause is the gen itself; later ones hang from next, outermost
 * first. A filter after a clause other than the last is kept (cond of that
 * clause) for the checker's message. */
gen:
    expr gen_clauses {
        $$ = $2;
        $$->elem = $1;
        struct gen *last = $$;
        while (last->next) last = last->next;
        if (last != $$) {
            for (struct gen *c = $$; c != last; c = c->next)
                if (c->cond) c->early = c->cond, c->cond = NULL;
            $$->cond = last->cond;
            last->cond = NULL;
        }
    }
  ;

gen_clauses:
    gen_clause
  | gen_clauses gen_clause {
        $$ = $1;
        struct gen *g = $1;
        while (g->next) g = g->next;
        g->next = $2;
    }
  ;

gen_clause:
    FOR NAME IN gen_iter opt_filter {
        $$ = arena_alloc(sizeof *$$);
        $$->var = $2;
        $$->var_loc = @2;
        $$->iter = *$4;
        $$->cond = $5;
    }
  | FOR '(' pat_names ')' IN gen_iter opt_filter {
        if ($3->len < 2)
            FAIL(@3, "a loop pattern needs two or more names: for (x, y) in zip(xs, ys)");
        $$ = arena_alloc(sizeof *$$);
        $$->var = "";
        $$->var_loc = loc_span(@2, @4);
        $$->pat = *$3;
        $$->iter = *$6;
        $$->cond = $7;
    }
  ;

opt_filter:
    %empty      { $$ = NULL; }
  | IF or_expr  { $$ = $2; }
  ;

/* ---- expressions, loosest first (SPEC section 2's table) ---- */

expr:
    or_expr
  | or_expr IF or_expr ELSE expr {
        $$ = node_new(N_COND, @$);
        $$->u.cond.then = $1;
        $$->u.cond.cond = $3;
        $$->u.cond.els = $5;
    }
  | LAMBDA ':' expr { $$ = lambda_node(NULL, $3, @$); }
  | LAMBDA lambda_params ':' expr { $$ = lambda_node($2, $4, @$); }
  ;

/* lambda x, y: body (N_NAME nodes, for their places) */
lambda_params:
    NAME {
        $$ = new_list();
        struct node *n = node_new(N_NAME, @1);
        n->u.name.name = $1;
        nodes_push($$, n);
    }
  | lambda_params ',' NAME {
        $$ = $1;
        struct node *n = node_new(N_NAME, @3);
        n->u.name.name = $3;
        nodes_push($$, n);
    }
  ;

or_expr:
    and_expr
  | or_expr OR and_expr { CHAIN($$, N_OR, OP_NONE, $1, $3, @$); }
  ;

and_expr:
    not_expr
  | and_expr AND not_expr { CHAIN($$, N_AND, OP_NONE, $1, $3, @$); }
  ;

not_expr:
    cmp_expr
  | NOT not_expr { $$ = binary(N_NOT, OP_NONE, $2, NULL, @$); }
  ;

/* No chaining: a second comparison operator is an error that says so. */
cmp_expr:
    bor_expr
  | bor_expr cmpop bor_expr { CHAIN($$, N_BINARY, $2, $1, $3, @$); }
  | bor_expr cmpop bor_expr cmpop bor_expr {
        FAIL(@$, "comparisons cannot be chained; write 'a %s b and b %s c'",
             op_spelling[$2], op_spelling[$4]);
    }
  ;

cmpop:
    EQ { $$ = OP_EQ; } | NE { $$ = OP_NE; } | '<' { $$ = OP_LT; } | LE { $$ = OP_LE; }
  | '>' { $$ = OP_GT; } | GE { $$ = OP_GE; }
  ;

bor_expr:
    bxor_expr
  | bor_expr '|' bxor_expr { CHAIN($$, N_BINARY, OP_BOR, $1, $3, @$); }
  ;

bxor_expr:
    band_expr
  | bxor_expr '^' band_expr { CHAIN($$, N_BINARY, OP_BXOR, $1, $3, @$); }
  ;

band_expr:
    shift_expr
  | band_expr '&' shift_expr { CHAIN($$, N_BINARY, OP_BAND, $1, $3, @$); }
  ;

shift_expr:
    add_expr
  | shift_expr SHL add_expr { CHAIN($$, N_BINARY, OP_SHL, $1, $3, @$); }
  | shift_expr SHR add_expr { CHAIN($$, N_BINARY, OP_SHR, $1, $3, @$); }
  ;

add_expr:
    mul_expr
  | add_expr '+' mul_expr { CHAIN($$, N_BINARY, OP_ADD, $1, $3, @$); }
  | add_expr '-' mul_expr { CHAIN($$, N_BINARY, OP_SUB, $1, $3, @$); }
  ;

mul_expr:
    unary_expr
  | mul_expr '*' unary_expr { CHAIN($$, N_BINARY, OP_MUL, $1, $3, @$); }
  | mul_expr '/' unary_expr { CHAIN($$, N_BINARY, OP_DIV, $1, $3, @$); }
  | mul_expr '%' unary_expr { CHAIN($$, N_BINARY, OP_MOD, $1, $3, @$); }
  ;

/* A minus sign before a bare integer literal belongs to the literal (SPEC
 * section 4): `-9223372036854775808` is one N_INT. A parenthesized literal
 * keeps its parentheses' meaning: -(5) is a negation. The literal is bare
 * when its node's location is the operand's whole location. */
unary_expr:
    postfix
  | '-' unary_expr {
        if ($2->kind == N_INT && !$2->u.ilit.neg && $2->loc.col == @2.col && $2->loc.line == @2.line
            && $2->loc.end_col == @2.end_col && $2->loc.end_line == @2.end_line) {
            $$ = $2;
            $$->u.ilit.neg = true;
            $$->loc = @$;
        } else {
            $$ = binary(N_UNARY, OP_NEG, $2, NULL, @$);
        }
    }
  | '~' unary_expr { $$ = binary(N_UNARY, OP_BNOT, $2, NULL, @$); }
  ;

postfix:
    primary
  | postfix '(' call_args ')' {
        $$ = node_new(N_CALL, @$);
        $$->u.call.callee = $1;
        $$->u.call.args = *$3;
    }
  | postfix '(' gen ')' {
        $$ = node_new(N_CALL, @$);
        $$->u.call.callee = $1;
        $$->u.call.gen = $3;
    }
  | postfix '[' expr ']' {
        $$ = node_new(N_INDEX, @$);
        $$->u.index.base = $1;
        $$->u.index.index = $3;
    }
    /* slices x[a:b], x[:b], x[a:], x[:]: the builtin form "[:]" of (x, a[, b]) */
  | postfix '[' expr ':' expr ']' { $$ = slice($1, $3, $5, @$); }
  | postfix '[' ':' expr ']'      { $$ = slice($1, NULL, $4, @$); }
  | postfix '[' expr ':' ']'      { $$ = slice($1, $3, NULL, @$); }
  | postfix '[' ':' ']'           { $$ = slice($1, NULL, NULL, @$); }
  | postfix '.' NAME {
        $$ = node_new(N_FIELD, @$);
        $$->u.field.base = $1;
        $$->u.field.name = $3;
        $$->u.field.name_loc = @3;
        $$->u.field.index = -1;
    }
  | postfix '.' FLOAT {
        /* t.1.0 lexes as t . 1.0: two fields */
        const struct source *src = source_get(@3.file);
        const char *s = src->text + src->line_starts[@3.line - 1] + @3.col - 1;
        int len = @3.end_col - @3.col, dot = -1;
        for (int i = 0; i < len; i++)
            if (s[i] == '.') dot = i;
            else if (s[i] < '0' || s[i] > '9') FAIL(@3, "expected a field number after '.', found '%.*s'", len, s);
        if (dot <= 0 || dot == len - 1)
            FAIL(@3, "expected a field number after '.', found '%.*s'", len, s);
        struct loc l1 = @3, l2 = @3;
        l1.end_col = @3.col + dot;
        l2.col = @3.col + dot + 1;
        struct node *inner = node_new(N_FIELD, loc_span(@1, l1));
        inner->u.field.base = $1;
        inner->u.field.name = arena_printf("%d", dot > 6 ? 1000000 : atoi(s));
        inner->u.field.name_loc = l1;
        inner->u.field.index = -1;
        $$ = node_new(N_FIELD, @$);
        $$->u.field.base = inner;
        $$->u.field.name = arena_printf("%d", len - dot - 1 > 6 ? 1000000 : atoi(s + dot + 1));
        $$->u.field.name_loc = l2;
        $$->u.field.index = -1;
    }
  | postfix '.' INT {
        $$ = node_new(N_FIELD, @$);
        $$->u.field.base = $1;
        $$->u.field.name = arena_printf("%d", $3->u.ilit.too_big || $3->u.ilit.value > 1000000 ? 1000000 : (int)$3->u.ilit.value);
        $$->u.field.name_loc = @3;
        $$->u.field.index = -1;
    }
  ;

/* Arguments; a trailing comma is allowed. */
args:
    %empty          { $$ = new_list(); }
  | arg_list
  | arg_list ','
  ;

arg_list:
    expr              { $$ = new_list(); nodes_push($$, $1); }
  | arg_list ',' expr { $$ = $1; nodes_push($$, $3); }
  ;

/* A call's arguments may name a struct's fields: Seg(lo=0.0, hi=1.0). A
 * named argument is an N_ASSIGN (target: the field's N_NAME); only a struct
 * constructor accepts one (check.c). */
call_args:
    %empty               { $$ = new_list(); }
  | call_arg_list
  | call_arg_list ','
  ;

call_arg_list:
    call_arg                   { $$ = new_list(); nodes_push($$, $1); }
  | call_arg_list ',' call_arg { $$ = $1; nodes_push($$, $3); }
  ;

call_arg:
    expr
  | NAME '=' expr {
        struct node *f = node_new(N_NAME, @1);
        f->u.name.name = $1;
        $$ = node_new(N_ASSIGN, @$);
        $$->u.assign.op = OP_NONE;
        $$->u.assign.target = f;
        $$->u.assign.value = $3;
    }
  ;

primary:
    INT
  | FLOAT
  | STRING
  | TRUE   { $$ = node_new(N_BOOL, @1); $$->u.blit = true; }
  | FALSE  { $$ = node_new(N_BOOL, @1); $$->u.blit = false; }
  | fstring
  | NAME   { $$ = node_new(N_NAME, @1); $$->u.name.name = $1; }
  | NONE {
        /* a call of the parser's builtin "None", typed by its context */
        struct node *callee = node_new(N_NAME, @1);
        callee->u.name.name = "None";
        $$ = node_new(N_CALL, @1);
        $$->u.call.callee = callee;
    }
  | '(' expr ')' { $$ = $2; }
  | '(' expr ',' args ')' {
        $$ = node_new(N_TUPLE, @$);
        nodes_push(&$$->u.array, $2);
        for (int i = 0; i < $4->len; i++)
            nodes_push(&$$->u.array, $4->items[i]);
        if ($$->u.array.len < 2)
            FAIL(@$, "a tuple needs two or more elements: (a, b)");
    }
  | '[' args ']' {
        $$ = node_new(N_ARRAY, @$);
        $$->u.array = *$2;
    }
  | '[' gen ']' {
        $$ = node_new(N_LISTCOMP, @$);
        $$->u.listcomp.gen = $2;
    }
  | PAR '[' gen ']' {
        $$ = node_new(N_LISTCOMP, @$);
        $$->u.listcomp.par = true;
        $$->u.listcomp.gen = $3;
    }
  | PAR NAME '(' args ')' {
        struct node *callee = node_new(N_NAME, @2);
        callee->u.name.name = $2;
        $$ = node_new(N_CALL, @$);
        $$->u.call.callee = callee;
        $$->u.call.args = *$4;
        $$->u.call.par = true;
    }
  | PAR NAME '(' gen ')' {
        struct node *callee = node_new(N_NAME, @2);
        callee->u.name.name = $2;
        $$ = node_new(N_CALL, @$);
        $$->u.call.callee = callee;
        $$->u.call.gen = $4;
        $$->u.call.par = true;
    }
  ;

fstring:
    FSTART fparts FEND {
        $$ = node_new(N_FSTRING, @$);
        $$->u.fstr.parts = $2->items;
        $$->u.fstr.nparts = $2->len;
    }
  ;

fparts:
    %empty { $$ = arena_alloc(sizeof *$$); }
  | fparts FTEXT {
        $$ = $1;
        ARENA_GROW($$->items, $$->len, $$->cap);
        $$->items[$$->len++] = *$2;
    }
  | fparts FLBRACE expr FRBRACE {
        $$ = $1;
        ARENA_GROW($$->items, $$->len, $$->cap);
        struct fpart *fp = &$$->items[$$->len++];
        memset(fp, 0, sizeof *fp);
        fp->is_expr = true;
        fp->expr = $3;
    }
  | fparts FLBRACE expr FSPEC FRBRACE {
        $$ = $1;
        ARENA_GROW($$->items, $$->len, $$->cap);
        struct fpart *fp = &$$->items[$$->len++];
        memset(fp, 0, sizeof *fp);
        fp->is_expr = true;
        fp->expr = $3;
        fp->spec = $4[0] ? $4 : NULL;
        fp->spec_loc = @4;
    }
  ;

%%

static int yylex(YYSTYPE *lval, YYLTYPE *lloc, struct parser *p)
{
    p->prev2 = p->prev;
    p->prev = p->cur;
    lexer_next(&p->lx, &p->cur);
    struct token *t = &p->cur;
    *lloc = t->loc;
    int k = p->prev.kind;
    if (k == TK_NEWLINE || k == TK_INDENT || k == TK_DEDENT)
        p->line_head = t->kind;
    switch (t->kind) {
    case TK_NAME:
        lval->name = arena_strndup(t->text, t->len);
        break;
    case TK_FSPEC:
        lval->name = arena_strndup(t->text, t->len);
        break;
    case TK_INT:
        lval->node = node_new(N_INT, t->loc);
        lval->node->u.ilit.value = t->ival;
        lval->node->u.ilit.too_big = t->too_big;
        break;
    case TK_FLOAT:
        lval->node = node_new(N_FLOAT, t->loc);
        lval->node->u.flit.value = t->fval;
        break;
    case TK_STRING:
        lval->node = node_new(N_STR, t->loc);
        lval->node->u.slit.s = t->str;
        lval->node->u.slit.len = t->str_len;
        break;
    case TK_FTEXT:
        lval->fpart = arena_alloc(sizeof *lval->fpart);
        lval->fpart->text = t->str;
        lval->fpart->len = t->str_len;
        break;
    }
    return t->kind;
}

/* ---- syntax error messages ------------------------------------------------ */

/* How the token just seen is named in a message: "newline", "'if'", "'foo'". */
static const char *found_text(struct parser *p, yysymbol_kind_t sym)
{
    struct token *t = &p->cur;
    switch (sym) {
    case YYSYMBOL_YYEOF: return "end of file";
    case YYSYMBOL_NEWLINE: return "newline";
    case YYSYMBOL_INDENT: return "indentation";
    case YYSYMBOL_DEDENT: return "the end of the block";
    case YYSYMBOL_STRING: return "a string literal";
    case YYSYMBOL_FSTART: return "an f-string";
    case YYSYMBOL_FTEXT: return "f-string text";
    case YYSYMBOL_FEND: return "the end of the f-string";
    case YYSYMBOL_FSPEC: return "a format spec";
    default:
        break;
    }
    if (t->len > 0 && t->len <= 40)
        return arena_printf("'%.*s'", (int)t->len, t->text);
    return yysymbol_name(sym);
}

static bool sym_is(yysymbol_kind_t s, const char *name)
{
    return strcmp(yysymbol_name(s), name) == 0;
}

static bool starts_expr(yysymbol_kind_t s)
{
    switch (s) {
    case YYSYMBOL_INT: case YYSYMBOL_FLOAT: case YYSYMBOL_STRING:
    case YYSYMBOL_FSTART: case YYSYMBOL_TRUE: case YYSYMBOL_FALSE: case YYSYMBOL_PAR:
    case YYSYMBOL_NOT:
        return true;
    default:
        return false;
    }
}

/* Operators that may continue a complete expression: listed only when
 * nothing else was expected, as "an operator". */
static bool continues_expr(yysymbol_kind_t s)
{
    const char *n = yysymbol_name(s);
    static const char *const ops[] = {
        "'.'", "'+'", "'-'", "'*'", "'/'", "'%'", "'&'", "'|'", "'^'", "'<'", "'>'",
        "'<<'", "'>>'", "'=='", "'!='", "'<='", "'>='", "'and'", "'or'", "'if'", "'for'",
        "'='", "'+='", "'-='", "'*='", "'/='", "'%='", "'&='", "'|='", "'^='", "'<<='", "'>>='",
        "'..'", "'..='",
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(n, ops[i]) == 0)
            return true;
    return false;
}

static const char *head_context(int head)
{
    switch (head) {
    case TK_IF: return "after the 'if' condition";
    case TK_ELIF: return "after the 'elif' condition";
    case TK_WHILE: return "after the 'while' condition";
    case TK_FOR: return "after the 'for' header";
    default: return NULL;
    }
}

/* A syntax error; inside a bracket opened on an earlier line, with a note
 * that shows where it was opened (newlines inside brackets do not end a
 * line, so a forgotten ']' surfaces lines later, where the parse fails). */
static _Noreturn void syntax_error(struct parser *p, struct loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static _Noreturn void syntax_error(struct parser *p, struct loc loc, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const struct lexer *L = &p->lx;
    if (L->depth > 0 && L->brackets[L->depth - 1].line < loc.line)
        error_note_at(loc, L->brackets[L->depth - 1],
                      arena_printf("the '%c' opened here is not closed", L->bracket_ch[L->depth - 1]), "%s", msg);
    error_at(loc, "%s", msg);
}

static bool is_word_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int yyreport_syntax_error(const yypcontext_t *ctx, struct parser *p)
{
    yysymbol_kind_t la = yypcontext_token(ctx);
    struct loc loc = *yypcontext_location(ctx);
    const char *found = found_text(p, la);
    yysymbol_kind_t exp[64];
    int n = yypcontext_expected_tokens(ctx, exp, 64);
    if (n < 0)
        n = 0;

    bool want_expr = false, want_colon = false, want_newline = false, top_level = false;
    int nother = 0;
    const char *other[64];
    bool has_ops = false, after_expr = false;
    for (int i = 0; i < n; i++) {
        if (sym_is(exp[i], "'+'"))
            after_expr = true; /* a complete expression could continue here */
        if (exp[i] == YYSYMBOL_INT)
            want_expr = true;
        if (exp[i] == YYSYMBOL_FN)
            top_level = true;
        if (exp[i] == YYSYMBOL_NEWLINE)
            want_newline = true;
        if (sym_is(exp[i], "':'"))
            want_colon = true;
    }
    for (int i = 0; i < n; i++) {
        if (exp[i] == YYSYMBOL_NAME && want_expr)
            continue;
        if (exp[i] == YYSYMBOL_NAME) {
            other[nother++] = "a name";
            continue;
        }
        if (exp[i] == YYSYMBOL_FSPEC)
            continue;
        if (starts_expr(exp[i]) || (want_expr && (sym_is(exp[i], "'('") || sym_is(exp[i], "'['")
                                                 || sym_is(exp[i], "'-'") || sym_is(exp[i], "'~'"))))
            continue;
        if (continues_expr(exp[i]) || (after_expr && (sym_is(exp[i], "'('") || sym_is(exp[i], "'['")))) {
            has_ops = true;
            continue;
        }
        other[nother++] = yysymbol_name(exp[i]);
    }

    /* Habits from other languages, each with its Brine spelling. Two
     * tokens written together (no space between) are one slip. */
    bool glued = p->prev.loc.line == p->cur.loc.line && p->prev.loc.end_col == p->cur.loc.col;
    if (sym_is(la, "'/'") && (p->cur.text[1] == '/' || (p->prev.kind == '/' && glued))) {
        struct loc both = p->cur.text[1] == '/' ? loc : loc_span(p->prev.loc, loc);
        both.end_line = both.line;
        both.end_col = both.col + 2;
        if (p->prev.kind == '/' && glued) /* a value before it: Python's floor division */
            syntax_error(p, both, "'//' is not an operator in Brine: integer division is '/' on ints (7 / 2 is 3, "
                                  "rounding toward zero); and '//' is not a comment either (comments start with '#')");
        syntax_error(p, both, "'//' is not a comment in Brine: comments start with '#' (and '/' alone divides)");
    }
    if ((sym_is(la, "'&'") && p->prev.kind == '&' && glued) || (sym_is(la, "'|'") && p->prev.kind == '|' && glued))
        syntax_error(p, loc_span(p->prev.loc, loc), "unexpected '%s': Brine writes '%s'", p->prev.kind == '&' ? "&&" : "||",
                 p->prev.kind == '&' ? "and" : "or");
    if (la == YYSYMBOL_IF && p->prev.kind == TK_ELSE)
        syntax_error(p, loc_span(p->prev.loc, loc), "expected ':' after 'else', found 'if': write 'elif' for 'else if'");
    if (sym_is(la, "'='") && want_colon && head_context(p->line_head))
        syntax_error(p, loc, "expected ':' %s, found '=': to compare, write '=='", head_context(p->line_head));

    if (la == YYSYMBOL_INDENT)
        syntax_error(p, loc, "unexpected indentation");
    if (top_level && la != YYSYMBOL_STRUCT)
        syntax_error(p, loc, "expected 'fn', 'struct', 'let' or 'import' at the top level, found %s%s", found,
                     la == YYSYMBOL_NAME || la == YYSYMBOL_FOR || la == YYSYMBOL_IF || la == YYSYMBOL_WHILE
                             || la == YYSYMBOL_VAR || la == YYSYMBOL_RETURN
                         ? "; statements run inside a function: put them in the body of 'fn main():'"
                         : "");
    /* a keyword where a new name belongs: let lambda = 1, fn f(fn: int) */
    bool names_here = p->prev.kind == TK_LET || p->prev.kind == TK_VAR || p->prev.kind == TK_FOR
                      || p->prev.kind == TK_FN || p->prev.kind == TK_STRUCT
                      || (p->line_head == TK_FN && (p->prev.kind == '(' || p->prev.kind == ','));
    if (names_here && la != YYSYMBOL_NAME && p->cur.len > 0 && is_word_start(p->cur.text[0]))
        syntax_error(p, loc, "'%.*s' is a keyword, so it cannot be a name; choose another (%.*s_, say)",
                     (int)p->cur.len, p->cur.text, (int)p->cur.len, p->cur.text);
    if (p->prev.kind == TK_PAR || (p->prev2.kind == TK_PAR && p->prev.kind == TK_NAME && !sym_is(la, "'('")))
        syntax_error(p, loc, "'par' must be followed by a reduction such as sum(...) or a list comprehension");
    if (want_colon && p->prev.kind == ')' && p->line_head == TK_FN)
        syntax_error(p, loc, "expected ':' after the function signature, found %s", found);
    if (want_colon && p->prev.kind == TK_NAME && p->line_head == TK_FN
        && (p->prev2.kind == '(' || p->prev2.kind == ','))
        syntax_error(p, loc, "expected ':' and a type after parameter '%.*s', found %s", (int)p->prev.len,
                 p->prev.text, found);
    if ((la == YYSYMBOL_ELIF || la == YYSYMBOL_ELSE) && p->line_head == p->cur.kind)
        syntax_error(p, loc, "'%s' without a matching 'if' before it (or after the 'else')",
                 la == YYSYMBOL_ELIF ? "elif" : "else");
    if (la == YYSYMBOL_FOR && p->lx.depth > 0 && p->lx.bracket_ch[p->lx.depth - 1] == '[')
        syntax_error(p, loc, "unexpected 'for' after an array element: a comprehension's generator is the only "
                             "thing inside its [ ], as in [x * y for x in xs for y in ys]; an array literal's "
                             "elements are values separated by ','");
    if (la == YYSYMBOL_FOR && p->lx.depth > 0 && p->lx.bracket_ch[p->lx.depth - 1] == '(')
        syntax_error(p, loc, "unexpected 'for': a generator is the single argument of a reduction such as "
                             "sum(x for x in xs), or stands alone inside [ ] as a comprehension; here it is "
                             "inside ( ) where a single value belongs");
    if (la == YYSYMBOL_FOR)
        syntax_error(p, loc, "unexpected 'for': a generator stands only inside [ ] (a comprehension) or as the "
                             "single argument of a reduction such as sum(...)");
    if (nother == 1 && strcmp(other[0], "'else'") == 0)
        syntax_error(p, loc, "expected 'else' to complete the conditional expression 'a if cond else b', found %s", found);
    if (la == YYSYMBOL_FN)
        syntax_error(p, loc, "unexpected 'fn': functions are declared only at the top level, not indented");
    if (want_colon && p->prev.kind == TK_ELSE)
        syntax_error(p, loc, "expected ':' after 'else', found %s", found);
    if (want_colon && !want_expr && head_context(p->line_head) && !want_newline)
        syntax_error(p, loc, "expected ':' %s, found %s", head_context(p->line_head), found);
    if (nother == 1 && strcmp(other[0], "newline") == 0 && p->prev.kind == ':')
        syntax_error(p, loc, "expected a newline and an indented block after ':', found %s", found);
    if (n == 1 && exp[0] == YYSYMBOL_INDENT)
        syntax_error(p, loc, "expected an indented block, found %s", found);
    if (la == YYSYMBOL_DEDENT && want_newline)
        syntax_error(p, loc, "unexpected end of block");

    if (!want_expr && nother == 2 && strcmp(other[0], "a name") == 0 && strcmp(other[1], "'['") == 0) {
        other[0] = "a type";
        nother = 1;
    }

    /* "expected A, B or C, found X" */
    const char *items[8];
    int k = 0;
    if (want_expr)
        items[k++] = "expression";
    for (int i = 0; i < nother && k < 8; i++)
        items[k++] = other[i];
    if (k == 0 && has_ops)
        items[k++] = "an operator";
    if (k == 0 || k > 6 || nother > 7)
        syntax_error(p, loc, "unexpected %s", found);
    char buf[512];
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < k; i++) {
        const char *sep = i == 0 ? "" : (i == k - 1 ? " or " : ", ");
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", sep, items[i]);
        if (len >= sizeof buf)
            break;
    }
    syntax_error(p, loc, "expected %s, found %s", buf, found);
}

static void yyerror(YYLTYPE *loc, struct parser *p, const char *msg)
{
    /* Bison's only other message: its stack is exhausted, which takes
     * nesting far deeper than the language allows. */
    if (strstr(msg, "exhausted"))
        error_at(*loc, "nesting deeper than %d levels", MAX_NESTING);
    error_at(*loc, "%s", msg);
}

struct module *parse_file(int file, const char *module_name)
{
    struct parser *p = xmalloc(sizeof *p);
    memset(p, 0, sizeof *p);
    lexer_init(&p->lx, file);
    p->cur.kind = TK_NEWLINE; /* so the first token is a line head */
    p->mod = arena_alloc(sizeof *p->mod);
    p->mod->name = module_name;
    p->mod->path = source_get(file)->name;
    p->mod->file = file;
    int r = yyparse(p);
    if (p->err_msg)
        error_at(p->err_loc, "%s", p->err_msg);
    if (r != 0)
        internal_error("the parser stopped without a message");
    struct module *m = p->mod;
    free(p->lx.buf);
    free(p);
    ast_check_depth(m);
    return m;
}
