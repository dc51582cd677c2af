/*
 * lsp.c: `brine lsp`, a Language Server Protocol 3.17 server on stdin and
 * stdout (docs/editors.md). lsp.h describes the parts and why each analysis
 * runs in a child.
 *
 * The loop: messages are read as they come ("Content-Length: N" headers,
 * then N bytes of JSON-RPC 2.0); a change marks its document dirty, and a
 * dirty document is analysed once no message has come for the debounce
 * time (30 ms; initializationOptions.debounceMs sets it), or at once when
 * it is saved or a request about it arrives, so an answer always reflects
 * the text it is about. Diagnostics are published after each analysis.
 * A child that crashes or fails is reported as one diagnostic on line 1;
 * the previous symbols stay. Nothing but LSP messages is ever written to
 * stdout: a child's stdout is /dev/null (its stderr is the server's, the editor's log).
 */
#include "lsp.h"
#include "cli.h"
#include "driver.h"

#include <errno.h>
#include <malloc.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHILD_TIMEOUT_MS 20000 /* an analysis that takes longer is killed */

static struct doc **docs;
static int ndocs, cap_docs;
static int debounce_ms = 30;
static bool shutting_down;
static FILE *trace; /* BRINE_LSP_LOG=FILE: timings of each analysis, for the tests and the docs */

static double child_cpu_ms; /* the last child's user + system time */
static size_t child_out_len; /* and how much it wrote */

static double tv_ms(struct timeval tv)
{
    return (double)tv.tv_sec * 1000.0 + (double)tv.tv_usec / 1000.0;
}

static double self_cpu_ms(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return tv_ms(ru.ru_utime) + tv_ms(ru.ru_stime);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

/* ---- the wire ------------------------------------------------------------- */

static void send_message(struct buf *body)
{
    char head[64];
    int hl = snprintf(head, sizeof head, "Content-Length: %zu\r\n\r\n", body->len);
    fwrite(head, 1, (size_t)hl, stdout);
    fwrite(body->p, 1, body->len, stdout);
    if (fflush(stdout) != 0)
        exit(1); /* the client is gone */
}

static void respond(const struct json *id, const char *result)
{
    struct buf b = {0};
    bputs(&b, "{\"jsonrpc\":\"2.0\",\"id\":");
    json_write(&b, id);
    bprintf(&b, ",\"result\":%s}", result);
    send_message(&b);
    free(b.p);
}

static void respond_error(const struct json *id, int code, const char *msg)
{
    struct buf b = {0};
    bputs(&b, "{\"jsonrpc\":\"2.0\",\"id\":");
    json_write(&b, id);
    bprintf(&b, ",\"error\":{\"code\":%d,\"message\":", code);
    json_put_str(&b, msg);
    bputs(&b, "}}");
    send_message(&b);
    free(b.p);
}

static void notify(const char *method, const char *params)
{
    struct buf b = {0};
    bprintf(&b, "{\"jsonrpc\":\"2.0\",\"method\":\"%s\",\"params\":%s}", method, params);
    send_message(&b);
    free(b.p);
}

static struct buf inbuf;

/* The next whole message in inbuf (malloc'ed body, *len its length), or NULL. */
static char *take_message(size_t *len)
{
    char *hdr_end = inbuf.p ? strstr(inbuf.p, "\r\n\r\n") : NULL;
    if (!hdr_end)
        return NULL;
    size_t hlen = (size_t)(hdr_end - inbuf.p) + 4;
    long n = -1;
    for (char *p = inbuf.p; p < hdr_end; p++)
        if ((p == inbuf.p || p[-1] == '\n') && strncasecmp(p, "Content-Length:", 15) == 0)
            n = strtol(p + 15, NULL, 10);
    if (n < 0 || n > (1L << 30)) { /* a header without a length: drop it */
        memmove(inbuf.p, inbuf.p + hlen, inbuf.len - hlen + 1);
        inbuf.len -= hlen;
        *len = 0;
        return xmalloc(1);
    }
    if (inbuf.len < hlen + (size_t)n)
        return NULL;
    char *body = xmalloc((size_t)n + 1);
    memcpy(body, inbuf.p + hlen, (size_t)n);
    body[n] = 0;
    memmove(inbuf.p, inbuf.p + hlen + n, inbuf.len - hlen - (size_t)n + 1);
    inbuf.len -= hlen + (size_t)n;
    *len = (size_t)n;
    return body;
}

/* ---- documents ------------------------------------------------------------- */

static char *uri_to_path(const char *uri)
{
    const char *p = strncmp(uri, "file://", 7) == 0 ? uri + 7 : uri;
    struct buf b = {0};
    bputs(&b, "");
    for (; *p; p++) {
        if (*p == '%' && p[1] && p[2]) {
            char hex[3] = {p[1], p[2], 0};
            char c = (char)strtol(hex, NULL, 16);
            bputn(&b, &c, 1);
            p += 2;
        } else {
            bputn(&b, p, 1);
        }
    }
    return b.p;
}

static struct doc *find_doc(const char *uri)
{
    for (int i = 0; uri && i < ndocs; i++)
        if (strcmp(docs[i]->uri, uri) == 0)
            return docs[i];
    return NULL;
}

size_t doc_offset(const struct doc *d, int line, int col)
{
    size_t off = 0;
    for (int l = 0; l < line && off < d->len; off++)
        if (d->text[off] == '\n')
            l++;
    for (int c = 0; c < col && off < d->len && d->text[off] != '\n';) {
        unsigned char ch = (unsigned char)d->text[off];
        int n = ch < 0x80 ? 1 : ch >= 0xf0 ? 4 : ch >= 0xe0 ? 3 : ch >= 0xc0 ? 2 : 1;
        c += n == 4 ? 2 : 1;
        off += (size_t)n;
    }
    return off > d->len ? d->len : off;
}

void doc_position(const struct doc *d, size_t off, int *line, int *col)
{
    int l = 0, c = 0;
    for (size_t i = 0; i < off && i < d->len; i++) {
        unsigned char ch = (unsigned char)d->text[i];
        if (ch == '\n')
            l++, c = 0;
        else if ((ch & 0xc0) != 0x80)
            c += ch >= 0xf0 ? 2 : 1;
    }
    *line = l;
    *col = c;
}

void put_range(struct buf *b, int l, int c, int el, int ec)
{
    bprintf(b, "{\"start\":{\"line\":%d,\"character\":%d},\"end\":{\"line\":%d,\"character\":%d}}", l, c, el, ec);
}

/* ---- children --------------------------------------------------------------- */

typedef void (*child_job)(const char *path, const char *text, size_t len, int fd);

/* Runs job on d's text in a child; its JSON, or NULL with *why set. What
 * the child wrote after a NUL byte goes to tail (when not NULL). */
static struct json *run_child(struct doc *d, child_job job, const char **why, struct buf *tail)
{
    int p[2];
    if (pipe(p) != 0) {
        *why = "cannot make a pipe";
        return NULL;
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        close(p[0]), close(p[1]);
        *why = "cannot fork";
        return NULL;
    }
    if (pid == 0) {
        close(p[0]);
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, 0), dup2(null, 1); /* stderr stays: an internal error reaches the editor's log */
            if (null > 2)
                close(null);
        }
        /* The heap's free blocks are the server's pages, shared since the
         * fork: writing one copies it. The child's big buffers take fresh
         * mappings instead (zeroed pages, grown by mremap). */
        mallopt(M_MMAP_THRESHOLD, 64 << 10);
        job(d->path, d->text, d->len, p[1]);
        _exit(0);
    }
    close(p[1]);
    static struct buf out; /* kept from one child to the next: its pages are already there */
    out.len = 0;
    bputs(&out, "");
    double deadline = now_ms() + CHILD_TIMEOUT_MS;
    bool timed_out = false;
    for (;;) {
        int left = (int)(deadline - now_ms());
        if (left <= 0) {
            timed_out = true;
            kill(pid, SIGKILL);
            break;
        }
        struct pollfd pf = {p[0], POLLIN, 0};
        int r = poll(&pf, 1, left);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            continue;
        char chunk[65536];
        ssize_t n = read(p[0], chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        bputn(&out, chunk, (size_t)n);
    }
    close(p[0]);
    int st = 0;
    struct rusage ru = {0};
    while (wait4(pid, &st, 0, &ru) < 0 && errno == EINTR) {}
    child_cpu_ms = tv_ms(ru.ru_utime) + tv_ms(ru.ru_stime);
    struct json *j = NULL;
    if (timed_out)
        *why = "the analysis took too long and was stopped";
    else if (WIFSIGNALED(st))
        *why = arena_printf("the analysis crashed (signal %d)", WTERMSIG(st));
    else if (WEXITSTATUS(st) != 0)
        *why = arena_printf("the analysis failed (exit %d)", WEXITSTATUS(st));
    else {
        child_out_len = out.len;
        size_t jlen = strlen(out.p); /* the JSON ends at the first NUL */
        if (!(j = json_parse(out.p, jlen)))
            *why = "the analysis wrote no result";
        else if (tail && jlen < out.len)
            bputn(tail, out.p + jlen + 1, out.len - jlen - 1);
    }
    return j;
}

static void publish(struct doc *d)
{
    struct buf b = {0};
    bputs(&b, "{\"uri\":");
    json_put_str(&b, d->uri);
    bprintf(&b, ",\"version\":%d,\"diagnostics\":", d->version);
    q_diagnostics(d, &b);
    bputs(&b, "}");
    notify("textDocument/publishDiagnostics", b.p);
    free(b.p);
}

static void analyze(struct doc *d)
{
    double t0 = now_ms(), c0 = self_cpu_ms();
    const char *why = NULL;
    struct buf occ = {0};
    struct json *j = run_child(d, lsp_analyze, &why, &occ);
    if (!j) {
        struct buf b = {0};
        bputs(&b, "{\"diags\":[{\"e\":1,\"r\":[0,0,0,0],\"m\":");
        json_put_str(&b, arena_printf("brine: internal error: %s; please report it with this file", why));
        bputs(&b, "}],\"ast\":false}");
        j = json_parse(b.p, b.len);
        free(b.p);
    }
    struct json *old = d->index, *old_ast = d->ast_index;
    d->index = j;
    if (json_bool(json_get(j, "ast"), false)) {
        d->ast_index = j;
        free(d->ast_occ.p);
        d->ast_occ = occ;
        occ = (struct buf){0};
        query_load(d); /* the tables point into ast_index: rebuilt before the old one goes */
    }
    if (old && old != old_ast)
        json_free(old);
    if (old_ast && old_ast != d->ast_index)
        json_free(old_ast);
    free(occ.p);
    d->dirty = false;
    publish(d);
    double t1 = now_ms(), c1 = self_cpu_ms();
    if (trace) {
        /* wall time, and the CPU time of the child and of the server (load-independent) */
        fprintf(trace, "analysis %s v%d: %.1f ms wall, %.1f ms cpu (child %.1f, server %.1f), %zu bytes, index %zu bytes%s\n",
                d->uri, d->version, t1 - t0, child_cpu_ms + c1 - c0, child_cpu_ms, c1 - c0, d->len, child_out_len,
                why ? " failed" : "");
        fflush(trace);
    }
}

/* The index and ast_index may be one tree: free each once. */
static void drop_index(struct doc *d)
{
    if (d->index != d->ast_index)
        json_free(d->index);
    json_free(d->ast_index);
    d->index = d->ast_index = NULL;
}

static void set_text(struct doc *d, const char *text, size_t len)
{
    free(d->text);
    d->text = xmalloc(len + 1);
    memcpy(d->text, text, len);
    d->text[len] = 0;
    d->len = len;
    d->dirty = true;
    d->changed_at = now_ms();
}

const struct json *lsp_par_info(struct doc *d)
{
    if (d->par_report && d->par_version == d->version)
        return d->par_report;
    json_free(d->par_report);
    const char *why;
    d->par_report = run_child(d, lsp_par_report, &why, NULL);
    d->par_version = d->version;
    return d->par_report;
}

static void fresh(struct doc *d)
{
    if (d && d->dirty)
        analyze(d);
}

/* ---- formatting: the formatter's text as line edits ---------------------------- */

struct lines { const char **p; size_t *n; int len; };

static struct lines split_lines(const char *t, size_t len)
{
    struct lines L = {0};
    int cap = 0;
    size_t i = 0;
    while (i < len) {
        size_t j = i;
        while (j < len && t[j] != '\n')
            j++;
        if (j < len)
            j++;
        if (L.len == cap) {
            cap = cap ? cap * 2 : 64;
            L.p = xrealloc(L.p, sizeof *L.p * (size_t)cap);
            L.n = xrealloc(L.n, sizeof *L.n * (size_t)cap);
        }
        L.p[L.len] = t + i;
        L.n[L.len++] = j - i;
        i = j;
    }
    return L;
}

static bool same_line(struct lines *a, int i, struct lines *b, int j)
{
    return a->n[i] == b->n[j] && memcmp(a->p[i], b->p[j], a->n[i]) == 0;
}

static int edits;

/* Old lines [a0, a1) become new lines [b0, b1): one TextEdit, when it
 * touches lines first..last of the old text (all: first < 0). */
static void put_edit(struct buf *out, struct lines *A, int a0, int a1, struct lines *B, int b0, int b1, int first,
                     int last)
{
    if (a0 == a1 && b0 == b1)
        return;
    if (first >= 0 && (a1 <= first && !(a0 == a1 && a0 == first)) )
        return;
    if (first >= 0 && a0 > last)
        return;
    bputs(out, edits++ ? ",{\"range\":" : "{\"range\":");
    put_range(out, a0, 0, a1, 0);
    bputs(out, ",\"newText\":");
    struct buf t = {0};
    bputs(&t, "");
    for (int j = b0; j < b1; j++)
        bputn(&t, B->p[j], B->n[j]);
    json_put_strn(out, t.p, t.len);
    free(t.p);
    bputs(out, "}");
}

static void format_edits(struct doc *d, const char *text, size_t len, int first, int last, struct buf *out)
{
    struct lines A = split_lines(d->text, d->len), B = split_lines(text, len);
    /* a text without a final newline: the last line as it is */
    int p = 0;
    while (p < A.len && p < B.len && same_line(&A, p, &B, p))
        p++;
    int sa = A.len, sb = B.len;
    while (sa > p && sb > p && same_line(&A, sa - 1, &B, sb - 1))
        sa--, sb--;
    edits = 0;
    bputs(out, "[");
    int n = sa - p, m = sb - p;
    if ((long)n * m > 4000000 || n == 0 || m == 0) {
        put_edit(out, &A, p, sa, &B, p, sb, first, last);
    } else {
        /* the longest common subsequence of the middle lines, then its gaps */
        unsigned short *L = xmalloc(sizeof *L * (size_t)(n + 1) * (size_t)(m + 1));
#define LCS(i, j) L[(size_t)(i) * (size_t)(m + 1) + (size_t)(j)]
        for (int i = n; i >= 0; i--)
            for (int j = m; j >= 0; j--)
                LCS(i, j) = i == n || j == m ? 0
                            : same_line(&A, p + i, &B, p + j) ? (unsigned short)(LCS(i + 1, j + 1) + 1)
                            : LCS(i + 1, j) > LCS(i, j + 1) ? LCS(i + 1, j) : LCS(i, j + 1);
        int i = 0, j = 0, gi = 0, gj = 0;
        while (i < n || j < m) {
            if (i < n && j < m && same_line(&A, p + i, &B, p + j)) {
                put_edit(out, &A, p + gi, p + i, &B, p + gj, p + j, first, last);
                i++, j++;
                gi = i, gj = j;
            } else if (j < m && (i == n || LCS(i, j + 1) >= LCS(i + 1, j))) {
                j++;
            } else {
                i++;
            }
        }
        put_edit(out, &A, p + gi, p + n, &B, p + gj, p + m, first, last);
#undef LCS
        free(L);
    }
    bputs(out, "]");
    free(A.p), free(A.n), free(B.p), free(B.n);
}

static void do_format(struct doc *d, const struct json *id, const struct json *range)
{
    const char *why;
    struct json *j = run_child(d, lsp_format, &why, NULL);
    const char *text = json_get_str(j, "text", NULL);
    if (!text) {
        /* a file that does not parse is left as it is */
        respond(id, "null");
        json_free(j);
        return;
    }
    int first = -1, last = -1;
    if (range) {
        first = json_get_int(json_get(range, "start"), "line", 0);
        last = json_get_int(json_get(range, "end"), "line", 0);
    }
    struct buf out = {0};
    format_edits(d, text, json_get(j, "text")->len, first, last, &out);
    respond(id, out.p);
    free(out.p);
    json_free(j);
}

/* ---- dispatch ----------------------------------------------------------------- */

static const char capabilities[] =
    "{\"capabilities\":{"
    "\"positionEncoding\":\"utf-16\","
    "\"textDocumentSync\":{\"openClose\":true,\"change\":1,\"save\":{\"includeText\":false}},"
    "\"hoverProvider\":true,\"definitionProvider\":true,\"referencesProvider\":true,"
    "\"documentHighlightProvider\":true,"
    "\"renameProvider\":{\"prepareProvider\":true},"
    "\"completionProvider\":{\"triggerCharacters\":[\".\"]},"
    "\"signatureHelpProvider\":{\"triggerCharacters\":[\"(\",\",\"]},"
    "\"documentSymbolProvider\":true,"
    "\"documentFormattingProvider\":true,\"documentRangeFormattingProvider\":true,"
    "\"codeActionProvider\":{\"codeActionKinds\":[\"quickfix\"]}"
    "},\"serverInfo\":{\"name\":\"brine\",\"version\":\"" BRINE_VERSION "\"}}";

static void handle(struct json *msg)
{
    const char *method = json_get_str(msg, "method", NULL);
    struct json *id = json_get(msg, "id");
    struct json *params = json_get(msg, "params");
    if (!method)
        return; /* a response to something we never asked */
    struct json *td = json_get(params, "textDocument");
    const char *uri = json_get_str(td, "uri", NULL);
    struct json *pos = json_get(params, "position");
    int line = json_get_int(pos, "line", 0), col = json_get_int(pos, "character", 0);

    if (strcmp(method, "initialize") == 0) {
        struct json *opts = json_get(params, "initializationOptions");
        int ms = json_get_int(opts, "debounceMs", -1);
        if (ms >= 0 && ms <= 10000)
            debounce_ms = ms;
        respond(id, capabilities);
        return;
    }
    if (strcmp(method, "shutdown") == 0) {
        shutting_down = true;
        respond(id, "null");
        return;
    }
    if (strcmp(method, "exit") == 0)
        exit(shutting_down ? 0 : 1);
    if (strcmp(method, "textDocument/didOpen") == 0) {
        struct json *t = json_get(td, "text");
        if (!uri || !t || t->kind != J_STR)
            return;
        struct doc *d = find_doc(uri);
        if (!d) {
            d = xmalloc(sizeof *d);
            memset(d, 0, sizeof *d);
            d->uri = strdup(uri);
            d->path = uri_to_path(uri);
            VEC_GROW(docs, ndocs, cap_docs);
            docs[ndocs++] = d;
        }
        d->version = json_get_int(td, "version", 0);
        set_text(d, t->str, t->len);
        analyze(d); /* at once: the user just opened it */
        return;
    }
    if (strcmp(method, "textDocument/didChange") == 0) {
        struct doc *d = find_doc(uri);
        struct json *changes = json_get(params, "contentChanges");
        if (!d || !changes)
            return;
        for (int i = 0; i < changes->n; i++) {
            struct json *c = changes->items[i], *t = json_get(c, "text"), *r = json_get(c, "range");
            if (!t || t->kind != J_STR)
                continue;
            if (!r) {
                set_text(d, t->str, t->len);
                continue;
            }
            struct json *s = json_get(r, "start"), *e = json_get(r, "end");
            size_t a = doc_offset(d, json_get_int(s, "line", 0), json_get_int(s, "character", 0));
            size_t b = doc_offset(d, json_get_int(e, "line", 0), json_get_int(e, "character", 0));
            if (b < a)
                b = a;
            struct buf nt = {0};
            bputn(&nt, d->text, a);
            bputn(&nt, t->str, t->len);
            bputn(&nt, d->text + b, d->len - b);
            set_text(d, nt.p, nt.len);
            free(nt.p);
        }
        d->version = json_get_int(td, "version", d->version + 1);
        return;
    }
    if (strcmp(method, "textDocument/didSave") == 0) {
        struct doc *d = find_doc(uri);
        if (d)
            analyze(d);
        return;
    }
    if (strcmp(method, "textDocument/didClose") == 0) {
        struct doc *d = find_doc(uri);
        if (!d)
            return;
        struct buf b = {0};
        bputs(&b, "{\"uri\":");
        json_put_str(&b, uri);
        bputs(&b, ",\"diagnostics\":[]}");
        notify("textDocument/publishDiagnostics", b.p);
        free(b.p);
        for (int i = 0; i < ndocs; i++)
            if (docs[i] == d)
                docs[i] = docs[--ndocs];
        query_free(d);
        drop_index(d);
        free(d->ast_occ.p);
        json_free(d->par_report);
        free(d->uri), free(d->path), free(d->text), free(d);
        return;
    }
    if (!id)
        return; /* a notification we do not need ($/cancelRequest, initialized, ...) */

    struct doc *d = find_doc(uri);
    bool needs_doc = strncmp(method, "textDocument/", 13) == 0;
    if (needs_doc && !d) {
        respond(id, "null");
        return;
    }
    fresh(d);
    struct buf out = {0};
    const char *error = NULL;
    if (strcmp(method, "textDocument/hover") == 0)
        q_hover(d, line, col, &out);
    else if (strcmp(method, "textDocument/definition") == 0)
        q_definition(d, line, col, &out);
    else if (strcmp(method, "textDocument/references") == 0)
        q_references(d, line, col, json_bool(json_get(json_get(params, "context"), "includeDeclaration"), true),
                     &out);
    else if (strcmp(method, "textDocument/documentHighlight") == 0)
        q_highlight(d, line, col, &out);
    else if (strcmp(method, "textDocument/prepareRename") == 0)
        q_prepare_rename(d, line, col, &out);
    else if (strcmp(method, "textDocument/rename") == 0)
        q_rename(d, line, col, json_get_str(params, "newName", ""), &out, &error);
    else if (strcmp(method, "textDocument/completion") == 0)
        q_completion(d, line, col, &out);
    else if (strcmp(method, "textDocument/signatureHelp") == 0)
        q_signature(d, line, col, &out);
    else if (strcmp(method, "textDocument/documentSymbol") == 0)
        q_symbols(d, &out);
    else if (strcmp(method, "textDocument/codeAction") == 0)
        q_code_actions(d, json_get(params, "range"), &out);
    else if (strcmp(method, "textDocument/formatting") == 0) {
        do_format(d, id, NULL);
        return;
    } else if (strcmp(method, "textDocument/rangeFormatting") == 0) {
        do_format(d, id, json_get(params, "range"));
        return;
    } else {
        respond_error(id, -32601, arena_printf("brine lsp does not handle '%s'", method));
        return;
    }
    if (error)
        respond_error(id, -32602, error);
    else
        respond(id, out.len ? out.p : "null");
    free(out.p);
}

int lsp_main(int argc, char **argv)
{
    struct cli_args args = cli_start("lsp", argc, argv);
    const char *v;
    for (enum cli_id id; (id = cli_next(&args, &v)) != CLI_DONE;) {
        if (id == CLI_HELP) {
            cli_print_help(args.cmd, stdout);
            return 0;
        }
        if (id == CLI_OPERAND)
            command_line_error("lsp takes no arguments, got '%s'", v);
    }
    const char *log = getenv("BRINE_LSP_LOG");
    if (log && *log && !(trace = fopen(log, "a"))) {
        fprintf(stderr, "brine: BRINE_LSP_LOG: cannot open '%s': %s\n", log, strerror(errno));
        return EXIT_USAGE;
    }
    signal(SIGPIPE, SIG_IGN);
    /* big blocks (a document, an index) stay in the heap when freed, so the
     * next analysis reuses their pages instead of faulting fresh ones in */
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
    bputs(&inbuf, "");
    for (;;) {
        size_t len;
        char *body;
        while ((body = take_message(&len))) {
            struct json *msg = json_parse(body, len);
            if (msg)
                handle(msg);
            else if (len)
                notify("window/logMessage", "{\"type\":1,\"message\":\"brine lsp: a message that is not JSON\"}");
            json_free(msg);
            free(body);
        }
        /* the debounce: wait for input, or until the oldest change is due */
        int wait = -1;
        double t = now_ms();
        for (int i = 0; i < ndocs; i++) {
            if (!docs[i]->dirty)
                continue;
            int left = (int)(docs[i]->changed_at + debounce_ms - t);
            if (left < 0)
                left = 0;
            if (wait < 0 || left < wait)
                wait = left;
        }
        struct pollfd pf = {0, POLLIN, 0};
        int r = poll(&pf, 1, wait);
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0) {
            t = now_ms();
            for (int i = 0; i < ndocs; i++)
                if (docs[i]->dirty && docs[i]->changed_at + debounce_ms <= t + 0.5)
                    analyze(docs[i]);
            continue;
        }
        char chunk[65536];
        ssize_t n = read(0, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return shutting_down ? 0 : 1; /* stdin closed */
        bputn(&inbuf, chunk, (size_t)n);
    }
}
