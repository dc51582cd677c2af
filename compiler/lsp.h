/*
 * lsp.h: the language server's parts (docs/editors.md):
 *
 *   lsp.c        the protocol: JSON-RPC 2.0 over stdio (Content-Length
 *                framing), the open documents, the debounce, dispatch
 *   lsp_index.c  one analysis, in a forked child: the loader and the
 *                checker run in process on the editor's text, and what
 *                they found (diagnostics, symbols, every name's place) is
 *                written back as JSON; also formatting and the par report
 *   lsp_query.c  the answers (hover, definition, references, rename,
 *                completion, signature help, symbols, code actions) from
 *                the last analysis of a document
 *   json.c       the JSON reader and writer
 *
 * Why a child per analysis: the front end keeps its state in globals and
 * one arena for the process, and ends a file with a syntax error by
 * exiting. A fork gives every analysis a fresh copy of the server's
 * memory, which the kernel takes back whole when the child exits (so
 * re-checking per change grows nothing), and a checker bug (a crash or an
 * internal error) costs one answer, never the server.
 *
 * Positions: lines 0-based, columns in UTF-16 code units (LSP's default),
 * converted from the compiler's 1-based byte columns in the child.
 */
#ifndef BRINE_LSP_H
#define BRINE_LSP_H
#include "json.h"

/* ---- lsp_index.c (runs in the child) ------------------------------------ */

/* Analyses text as the file path (imports are found beside it) and writes
 * the index as one JSON object to fd:
 *   {"diags": [{"e": 1 error | 0 warning, "r": RANGE, "m": MSG,
 *               "n": NOTE, "nr": RANGE}],
 *    "ast": true when the file parsed (else syms and occ are empty),
 *    "syms": [[NAME, KIND, TYPE, DETAIL, DOC, URI ("" this document; null:
 *              no place), LINE, COL, END_LINE, END_COL, SCOPE0, SCOPE1 (a
 *              local's function's lines, else -1), PARENT (a field's
 *              struct), MODULE]...],
 *    "par": [[LINE, COL, END_LINE, END_COL, ELEM, REDUCER]...],
 *    "bodies": [[SYM, LINE0, LINE1]...] (a function's lines)}
 * then a NUL byte and the occurrences of names, as struct locc records
 * (this process's own layout: the reader is its parent). RANGE is [LINE,
 * COL, END_LINE, END_COL]. KIND: f function, v variable,
 * p parameter, c constant, s struct, F field, m module, b builtin,
 * M method. */
void lsp_analyze(const char *path, const char *text, size_t len, int fd);
/* The text formatted as brine fmt would (JSON {"text": ...}), or
 * {"error": MSG} when it does not parse. */
void lsp_format(const char *path, const char *text, size_t len, int fd);
/* The par reductions' ways, from the whole pipeline:
 * {"par": [[LINE, COL, LANES, GPU]...]} ({"par": null} when it does not
 * compile). */
void lsp_par_report(const char *path, const char *text, size_t len, int fd);

/* ---- lsp_query.c (the server) ------------------------------------------- */

struct lsym {
    const char *name, *type, *detail, *doc, *uri, *module;
    char kind;
    int l, c, el, ec;
    int scope0, scope1; /* -1: no scope (global) */
    int body1;          /* a function of this document: its last line; else -1 */
    int parent;
};
struct locc { int l, c, ec, sym; };
struct lpar { int l, c, el, ec; const char *elem, *reducer; };

struct doc {
    char *uri, *path;
    char *text;
    size_t len;
    int version;
    bool dirty;           /* changed since the last analysis */
    double changed_at;    /* when (ms), for the debounce */
    struct json *index;   /* the last analysis (diagnostics are current) */
    struct json *ast_index; /* the last analysis whose file parsed: symbols survive a half-typed line */
    struct buf ast_occ;     /* ... and its occurrences (struct locc records) */
    struct lsym *syms;
    int nsyms;
    struct locc *occ;
    int nocc;
    struct lpar *pars;
    int npars;
    struct json *par_report; /* lsp_par_report's, for version par_version */
    int par_version;
};

/* Rebuilds d's tables from d->ast_index. */
void query_load(struct doc *d);
void query_free(struct doc *d);
/* Each appends the "result" value of its request to out. */
void q_hover(struct doc *d, int line, int col, struct buf *out);
void q_definition(struct doc *d, int line, int col, struct buf *out);
void q_references(struct doc *d, int line, int col, bool with_decl, struct buf *out);
void q_rename(struct doc *d, int line, int col, const char *new_name, struct buf *out, const char **error);
void q_prepare_rename(struct doc *d, int line, int col, struct buf *out);
void q_highlight(struct doc *d, int line, int col, struct buf *out);
void q_completion(struct doc *d, int line, int col, struct buf *out);
void q_signature(struct doc *d, int line, int col, struct buf *out);
void q_symbols(struct doc *d, struct buf *out);
void q_code_actions(struct doc *d, const struct json *range, struct buf *out);
/* The diagnostics of d->index as LSP Diagnostic objects (a JSON array). */
void q_diagnostics(struct doc *d, struct buf *out);
/* The fix a diagnostic's message carries, as a replacement of its range
 * (a malloc'ed text and a title), or false. */
bool q_fix_of(struct doc *d, const struct json *diag, char **new_text, char **title);

/* ---- lsp.c: services for the queries ------------------------------------ */

/* The par report of d (run when first asked for each version). */
const struct json *lsp_par_info(struct doc *d);
/* Byte offset of (line, UTF-16 col) in d->text, clamped to the text. */
size_t doc_offset(const struct doc *d, int line, int col);
/* (line, UTF-16 col) of a byte offset. */
void doc_position(const struct doc *d, size_t off, int *line, int *col);
void put_range(struct buf *b, int l, int c, int el, int ec);

int lsp_main(int argc, char **argv);
int completions_main(int argc, char **argv);

#endif
