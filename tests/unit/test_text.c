/* str methods and slices (SPEC 14, runtime/text.c): UTF-8 boundaries of
 * slices, split and split() edge cases, strip, lines, replace, join, and
 * the panics' messages byte for byte. */
#include <criterion/criterion.h>
#include <string.h>

#include "brine_rt.h"
#include "run_child.h"

static brt_str *S(const char *s) { return brt_str_new(s, (int64_t)strlen(s)); }

/* The pieces of a [str], joined with '|' for comparison. */
static char *pieces(brt_arr *a)
{
    static char buf[256];
    buf[0] = 0;
    for (int64_t i = 0; i < a->len; i++) {
        if (i)
            strcat(buf, "|");
        strcat(buf, BRT_AT(brt_str *, a, i)->data);
    }
    return buf;
}

static void expect_split(const char *s, const char *sep, int64_t n, const char *want)
{
    brt_str *x = S(s), *p = S(sep);
    brt_arr *a = brt_str_split(x, p, NULL);
    cr_assert_eq(a->len, n, "'%s'.split('%s') has %lld pieces", s, sep, (long long)a->len);
    cr_assert_str_eq(pieces(a), want);
    brt_arr_release(a);
    brt_str_release(x);
    brt_str_release(p);
}

Test(text, split_edges)
{
    expect_split("", ",", 1, "");
    expect_split(",", ",", 2, "|");
    expect_split("a,,b", ",", 3, "a||b");
    expect_split("aaa", "aa", 2, "|a");
    expect_split("abab", "ab", 3, "||");
    expect_split("xé,y", "é", 2, "x|,y");
}

Test(text, split_whitespace)
{
    const char *cases[][2] = {
        {"", ""}, {" \t\n\v\f\r", ""}, {"a", "a"}, {"  a  b ", "a|b"}, {"a\u00a0b", "a\u00a0b"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        brt_str *x = S(cases[i][0]);
        brt_arr *a = brt_str_split_ws(x);
        cr_assert_str_eq(pieces(a), cases[i][1], "case %zu", i);
        for (int64_t j = 0; j < a->len; j++)
            cr_assert_gt(BRT_AT(brt_str *, a, j)->len, 0, "no empty pieces");
        brt_arr_release(a);
        brt_str_release(x);
    }
}

Test(text, strip_and_lines)
{
    const char *strip[][2] = {{"", ""}, {"   ", ""}, {" a b ", "a b"}, {"\r\na\t", "a"}, {"x", "x"}};
    for (size_t i = 0; i < sizeof strip / sizeof *strip; i++) {
        brt_str *x = S(strip[i][0]), *r = brt_str_strip(x);
        cr_assert_str_eq(r->data, strip[i][1]);
        cr_assert_eq(r->len, (int64_t)strlen(strip[i][1]));
        brt_str_release(r);
        brt_str_release(x);
    }
    brt_str *x = S("keep");
    brt_str *r = brt_str_strip(x);
    cr_assert_eq(r, x, "nothing to strip: the same str, shared");
    brt_str_release(r);
    brt_str_release(x);

    const char *lines[][2] = {{"", ""}, {"a", "a"}, {"a\n", "a"}, {"a\r\nb", "a|b"}, {"\n\n", "|"}, {"a\rb", "a\rb"}};
    int64_t counts[] = {0, 1, 1, 2, 2, 1};
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
        brt_str *s = S(lines[i][0]);
        brt_arr *a = brt_str_lines(s);
        cr_assert_eq(a->len, counts[i], "lines case %zu", i);
        cr_assert_str_eq(pieces(a), lines[i][1]);
        brt_arr_release(a);
        brt_str_release(s);
    }
}

Test(text, replace_join_case)
{
    brt_str *s = S("aéa"), *a = S("a"), *e = S(""), *d = S("-");
    brt_str *r = brt_str_replace(s, a, d);
    cr_assert_str_eq(r->data, "-é-");
    brt_str_release(r);
    r = brt_str_replace(s, e, d);
    cr_assert_str_eq(r->data, "-a-é-a-", "an empty pattern: between characters, not bytes");
    brt_str_release(r);
    brt_str *parts[] = {S("x"), S(""), S("y")};
    brt_arr *xs = brt_arr_from(&brt_t_str, 3, parts);
    r = brt_str_join(d, xs);
    cr_assert_str_eq(r->data, "x--y");
    brt_str_release(r);
    brt_arr_release(xs);
    r = brt_str_upper(s);
    cr_assert_str_eq(r->data, "AéA");
    brt_str_release(r);
    brt_str_release(s);
    brt_str_release(a);
    brt_str_release(e);
    brt_str_release(d);
}

Test(text, utf8_slices)
{
    /* "aé€𝄞": 1 + 2 + 3 + 4 bytes; boundaries at 0 1 3 6 10 */
    brt_str *s = S("a\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e");
    cr_assert_eq(s->len, 10);
    bool boundary[11] = {[0] = true, [1] = true, [3] = true, [6] = true, [10] = true};
    for (int lo = 0; lo <= 10; lo++)
        for (int hi = lo; hi <= 10; hi++) {
            if (!boundary[lo] || !boundary[hi])
                continue;
            brt_str *t = brt_str_slice(s, lo, hi, NULL);
            cr_assert_eq(t->len, hi - lo);
            cr_assert(memcmp(t->data, s->data + lo, (size_t)(hi - lo)) == 0);
            cr_assert_eq(t->data[t->len], 0, "NUL-terminated");
            brt_str_release(t);
        }
    brt_str_release(s);
}

struct slice_case {
    const char *s;
    int64_t lo, hi;
};

static void do_slice(void *arg)
{
    struct slice_case *c = arg;
    static const brt_loc L = {"t.br", 2, 7};
    brt_str_slice(S(c->s), c->lo, c->hi, &L);
}

Test(text, slice_panics)
{
    struct {
        struct slice_case c;
        const char *msg;
    } cases[] = {
        {{"h\xc3\xa9llo", 0, 2}, "panic: byte index 2 is not a char boundary\n  --> t.br:2:7\n"},
        {{"h\xc3\xa9llo", 2, 3}, "panic: byte index 2 is not a char boundary\n  --> t.br:2:7\n"},
        {{"abc", 2, 5}, "panic: slice out of bounds: the len is 3 but the slice is 2..5\n  --> t.br:2:7\n"},
        {{"abc", -1, 2}, "panic: slice out of bounds: the len is 3 but the slice is -1..2\n  --> t.br:2:7\n"},
        {{"abc", 2, 1}, "panic: slice out of bounds: the len is 3 but the slice is 2..1\n  --> t.br:2:7\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct child_result r = run_child(do_slice, &cases[i].c);
        cr_assert_eq(r.status, 101);
        cr_assert_str_eq(r.err, cases[i].msg);
    }
}

static void do_split_empty(void *arg)
{
    static const brt_loc L = {"t.br", 1, 1};
    brt_str_split(S("abc"), S(""), &L);
}

Test(text, split_empty_separator_panics)
{
    struct child_result r = run_child(do_split_empty, NULL);
    cr_assert_eq(r.status, 101);
    cr_assert_str_eq(r.err, "panic: split: empty separator\n  --> t.br:1:1\n");
}
