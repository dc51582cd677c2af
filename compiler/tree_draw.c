/*
 * tree_draw.c: `brine tree N [--carry L] [--svg]`, a picture of the one
 * tree a par reduction of N elements combines in (docs/parallel.md).
 *
 * The tree is the runtime's (runtime/reduce.c), restated here only by its
 * positions: leaves of 16 elements; node (k, j) covers leaves
 * [j*2^k, (j+1)*2^k) clipped to the leaf count; at level k >= 1 it
 * combines its two children, or, when the right child does not exist,
 * takes its left child up unchanged. Nothing here reads a value.
 *
 * The text picture puts each leaf in a column of one width and each node
 * at the middle of the leaves it covers, with `\` and `/` from the two
 * children of a combine and `|` above a node that moves up; the SVG draws
 * the same layout with boxes and lines. --carry L marks the nodes whose
 * values a par scan folds into leaf L's carry (L in binary, highest bit
 * first: for L = 11 the nodes over leaves 0-7, 8-9 and 10), in brackets in
 * the text and filled in the SVG. tests/tools/tree_ref.py draws the same
 * text from its own model of the tree; tests/tree/ holds the goldens.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "driver.h"

#define TREE_LEAF 16
#define TREE_MAX_ELEMENTS (TREE_LEAF * 4096L) /* 4,096 columns of text at most */

struct tree {
    long n;       /* elements */
    int leaves;   /* ceil(n / 16) */
    int levels;   /* the smallest h with 2^h >= leaves */
    int carry;    /* the leaf whose carry is marked, or -1 */
};

static int node_first(int k, int j) { return j << k; }

static int node_last(const struct tree *t, int k, int j)
{
    long last = ((long)(j + 1) << k) - 1;
    return last < t->leaves ? (int)last : t->leaves - 1;
}

static bool node_exists(const struct tree *t, int k, int j) { return ((long)j << k) < t->leaves; }

static int nodes_at(const struct tree *t, int k) { return (int)((t->leaves + (1L << k) - 1) >> k); }

/* A combine at level k >= 1 has a right child; otherwise the left one moves up. */
static bool node_combines(const struct tree *t, int k, int j) { return node_exists(t, k - 1, 2 * j + 1); }

/* One of the nodes whose values make leaf carry's carry. */
static bool node_in_carry(const struct tree *t, int k, int j)
{
    if (t->carry < 0)
        return false;
    int at = 0;
    for (int bit = 30; bit >= 0; bit--) {
        if (!(t->carry >> bit & 1))
            continue;
        if (bit == k && at == node_first(k, j))
            return true;
        at += 1 << bit;
    }
    return false;
}

/* "L4" for one leaf, "L0-3" for the leaves a node covers */
static char *plain_label(const struct tree *t, int k, int j)
{
    int a = node_first(k, j), b = node_last(t, k, j);
    return a == b ? arena_printf("L%d", a) : arena_printf("L%d-%d", a, b);
}

/* The text's label: in brackets for a carry node, in parentheses for the carry's leaf. */
static char *node_label(const struct tree *t, int k, int j)
{
    char *plain = plain_label(t, k, j);
    if (node_in_carry(t, k, j))
        return arena_printf("[%s]", plain);
    if (k == 0 && j == t->carry)
        return arena_printf("(%s)", plain);
    return plain;
}

static char *leaf_elements(const struct tree *t, int i)
{
    long last = (long)(i + 1) * TREE_LEAF - 1;
    if (last >= t->n)
        last = t->n - 1;
    return arena_printf("%ld..%ld", (long)i * TREE_LEAF, last);
}

/* ---- text ---------------------------------------------------------------- */

struct layout {
    int prefix; /* the width of the row names */
    int width;  /* of a leaf's column */
};

static struct layout text_layout(const struct tree *t)
{
    struct layout lay = {(int)strlen("elements") + 3, 0};
    int name = (int)strlen(arena_printf("level %d", t->levels)) + 3;
    if (name > lay.prefix)
        lay.prefix = name;
    for (int i = 0; i < t->leaves; i++) {
        int w = (int)strlen(leaf_elements(t, i));
        if (w > lay.width)
            lay.width = w;
    }
    for (int k = 0; k <= t->levels; k++)
        for (int j = 0; j < nodes_at(t, k); j++) {
            int w = (int)strlen(node_label(t, k, j));
            if (w > lay.width)
                lay.width = w;
        }
    lay.width += 2;
    return lay;
}

static int leaf_center(const struct layout *lay, int i) { return lay->prefix + i * lay->width + lay->width / 2; }

static int node_center(const struct tree *t, const struct layout *lay, int k, int j)
{
    return (leaf_center(lay, node_first(k, j)) + leaf_center(lay, node_last(t, k, j))) / 2;
}

/* A row of text being laid out: spaces, written into at columns. */
struct row {
    char *p;
    int len;
};

static void row_put(struct row *r, int col, const char *s)
{
    int n = (int)strlen(s);
    if (col < 0)
        col = 0;
    if (col + n > r->len) {
        r->p = xrealloc(r->p, (size_t)(col + n) + 1);
        memset(r->p + r->len, ' ', (size_t)(col + n - r->len));
        r->len = col + n;
        r->p[r->len] = '\0';
    }
    memcpy(r->p + col, s, (size_t)n);
}

static void row_centered(struct row *r, int center, const char *s) { row_put(r, center - (int)strlen(s) / 2, s); }

/* Writes the row without trailing spaces, then starts an empty one. */
static void row_end(struct row *r, struct buf *out)
{
    int n = r->len;
    while (n > 0 && r->p[n - 1] == ' ')
        n--;
    bputn(out, r->p, (size_t)n);
    bputs(out, "\n");
    r->len = 0;
    r->p[0] = '\0';
}

static void draw_text(const struct tree *t, struct buf *out)
{
    bprintf(out, "par reduction of %ld element%s: ", t->n, t->n == 1 ? "" : "s");
    if (t->leaves == 0) {
        bputs(out, "no leaves; the result is the start value (0 for sum, 1 for product; min and max panic)\n");
        return;
    }
    bprintf(out, "%d lea%s of up to %d, %d level%s\n\n", t->leaves, t->leaves == 1 ? "f" : "ves",
            TREE_LEAF, t->levels, t->levels == 1 ? "" : "s");
    struct layout lay = text_layout(t);
    int notes = lay.prefix + t->leaves * lay.width + 1;
    struct row r = {xmalloc(1), 0};
    r.p[0] = '\0';

    row_put(&r, 0, "elements");
    for (int i = 0; i < t->leaves; i++)
        row_centered(&r, leaf_center(&lay, i), leaf_elements(t, i));
    row_end(&r, out);
    for (int i = 0; i < t->leaves; i++)
        row_put(&r, leaf_center(&lay, i), "|");
    row_end(&r, out);
    row_put(&r, 0, "leaves");
    for (int i = 0; i < t->leaves; i++)
        row_centered(&r, leaf_center(&lay, i), node_label(t, 0, i));
    row_put(&r, notes, t->levels == 0 ? "folded left to right: the result" : "each folded left to right");
    row_end(&r, out);

    for (int k = 1; k <= t->levels; k++) {
        int moved = -1;
        for (int j = 0; j < nodes_at(t, k); j++) {
            if (node_combines(t, k, j)) {
                row_put(&r, node_center(t, &lay, k - 1, 2 * j) + 1, "\\");
                row_put(&r, node_center(t, &lay, k - 1, 2 * j + 1) - 1, "/");
            } else {
                row_put(&r, node_center(t, &lay, k, j), "|");
                moved = j;
            }
        }
        row_end(&r, out);
        row_put(&r, 0, arena_printf("level %d", k));
        for (int j = 0; j < nodes_at(t, k); j++)
            row_centered(&r, node_center(t, &lay, k, j), node_label(t, k, j));
        if (k == t->levels)
            row_put(&r, notes, "the result");
        else if (moved >= 0)
            row_put(&r, notes, arena_printf("%s has no partner: moves up", plain_label(t, k, moved)));
        row_end(&r, out);
    }
    free(r.p);
    if (t->carry >= 0) {
        /* highest level first: the carry's nodes in the order they fold */
        bprintf(out, "\nthe carry of leaf %d:", t->carry);
        const char *sep = " ";
        for (int k = t->levels; k >= 0; k--)
            for (int j = 0; j < nodes_at(t, k); j++)
                if (node_in_carry(t, k, j)) {
                    bprintf(out, "%s%s", sep, node_label(t, k, j));
                    sep = " + ";
                }
        bputs(out, t->carry == 0 ? " nothing: leaf 0 starts from the start value\n" : ", folded left to right\n");
    }
}

/* ---- SVG ----------------------------------------------------------------- */

enum { SVG_COL = 76, SVG_ROW = 64, SVG_BOX_H = 26, SVG_LEFT = 84, SVG_TOP = 56 };

static int svg_leaf_x(int i) { return SVG_LEFT + i * SVG_COL + SVG_COL / 2; }

static int svg_node_x(const struct tree *t, int k, int j)
{
    return (svg_leaf_x(node_first(k, j)) + svg_leaf_x(node_last(t, k, j))) / 2;
}

static int svg_level_y(int k) { return SVG_TOP + 30 + k * SVG_ROW; }

static void draw_svg(const struct tree *t, struct buf *out)
{
    int width = SVG_LEFT + (t->leaves > 0 ? t->leaves : 1) * SVG_COL + 20;
    int height = svg_level_y(t->levels) + SVG_BOX_H + (t->carry >= 0 ? 44 : 24);
    bprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                 "font-family=\"DejaVu Sans Mono, monospace\" font-size=\"13\">\n",
            width, height, width, height);
    bprintf(out, "<title>the tree of a par reduction of %ld elements</title>\n", t->n);
    bputs(out, "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n");
    bprintf(out, "<text x=\"10\" y=\"22\" font-size=\"15\">par reduction of %ld elements: %d lea%s of up to %d, %d level%s</text>\n",
            t->n, t->leaves, t->leaves == 1 ? "f" : "ves", TREE_LEAF, t->levels, t->levels == 1 ? "" : "s");
    bprintf(out, "<text x=\"10\" y=\"%d\" fill=\"#555555\">elements</text>\n", SVG_TOP + 4);
    for (int k = 0; k <= t->levels && t->leaves > 0; k++)
        bprintf(out, "<text x=\"10\" y=\"%d\" fill=\"#555555\">%s</text>\n", svg_level_y(k) + SVG_BOX_H / 2 + 4,
                k == 0 ? "leaves" : arena_printf("level %d", k));
    for (int i = 0; i < t->leaves; i++)
        bprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#555555\" font-size=\"11\">%s</text>\n",
                svg_leaf_x(i), SVG_TOP + 4, leaf_elements(t, i));
    /* edges first, under the boxes */
    for (int k = 1; k <= t->levels; k++)
        for (int j = 0; j < nodes_at(t, k); j++) {
            int x = svg_node_x(t, k, j), y = svg_level_y(k);
            int kids = node_combines(t, k, j) ? 2 : 1;
            for (int c = 0; c < kids; c++)
                bprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#666666\"%s/>\n",
                        svg_node_x(t, k - 1, 2 * j + c), svg_level_y(k - 1) + SVG_BOX_H, x, y,
                        kids == 1 ? " stroke-dasharray=\"4 3\"" : "");
        }
    for (int k = 0; k <= t->levels && t->leaves > 0; k++)
        for (int j = 0; j < nodes_at(t, k); j++) {
            const char *fill = node_in_carry(t, k, j) ? "#f4a261" : k == 0 && j == t->carry ? "#8fd0c4" : "#e8f0f8";
            const char *label = plain_label(t, k, j);
            int w = (int)strlen(label) * 8 + 14;
            int x = svg_node_x(t, k, j), y = svg_level_y(k);
            bprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"5\" fill=\"%s\" stroke=\"#335577\"/>\n",
                    x - w / 2, y, w, SVG_BOX_H, fill);
            bprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", x, y + SVG_BOX_H / 2 + 5, label);
        }
    int note_y = svg_level_y(t->levels) + SVG_BOX_H + 20;
    if (t->leaves == 0)
        bprintf(out, "<text x=\"10\" y=\"%d\">no leaves: the result is the start value</text>\n", SVG_TOP + 30);
    else if (t->carry >= 0)
        bprintf(out, "<text x=\"10\" y=\"%d\">filled: the nodes folded into the carry of leaf %d (L%d)</text>\n",
                note_y, t->carry, t->carry);
    else
        bprintf(out, "<text x=\"10\" y=\"%d\">dashed: a node without a partner moves up unchanged</text>\n", note_y);
    bputs(out, "</svg>\n");
}

/* ---- the command ----------------------------------------------------------- */

static long whole_number(const char *s, long max, const char *what)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (s[0] < '0' || s[0] > '9' || *end || errno || v > max)
        command_line_error("%s must be a whole number from 0 to %ld, got '%s'", what, max, s);
    return v;
}

int tree_main(int argc, char **argv)
{
    const char *count = NULL, *carry = NULL, *v;
    bool svg = false;
    struct cli_args args = cli_start("tree", argc, argv);
    for (enum cli_id id; (id = cli_next(&args, &v)) != CLI_DONE;) {
        if (id == CLI_HELP) {
            cli_print_help(args.cmd, stdout);
            return 0;
        } else if (id == OPT_SVG) {
            svg = true;
        } else if (id == OPT_CARRY) {
            carry = v;
        } else if (id == CLI_OPERAND && !count) {
            count = v;
        } else if (id == CLI_OPERAND) {
            command_line_error("brine tree takes one element count, got '%s' too", v);
        } else {
            internal_error("brine tree: option %d not handled", (int)id);
        }
    }
    if (!count)
        command_line_error("brine tree needs an element count: brine tree N");
    struct tree t = {.carry = -1};
    t.n = whole_number(count, TREE_MAX_ELEMENTS, "the element count");
    t.leaves = (int)((t.n + TREE_LEAF - 1) / TREE_LEAF);
    while ((1L << t.levels) < t.leaves)
        t.levels++;
    if (carry) {
        if (t.leaves == 0)
            command_line_error("--carry needs at least one leaf; %ld elements have none", t.n);
        t.carry = (int)whole_number(carry, t.leaves - 1, "the leaf of --carry");
    }
    struct buf out = {0};
    bputs(&out, "");
    if (svg)
        draw_svg(&t, &out);
    else
        draw_text(&t, &out);
    if (fwrite(out.p, 1, out.len, stdout) != out.len || fflush(stdout) != 0) {
        fprintf(stderr, "brine: cannot write the tree: %s\n", strerror(errno));
        return EXIT_USAGE;
    }
    free(out.p);
    return 0;
}
