/* Text of values (SPEC 6): format specs against CPython's format() (the
 * generated spec_table.h), spec validation, str()/print of every type,
 * Rust-Debug escaping inside arrays, and int(s)/float(s). */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "brine_rt.h"
#include "run_child.h"
#include "spec_table.h"

static __int128 parse_i128(const char *s)
{
    bool neg = *s == '-';
    if (neg)
        s++;
    unsigned __int128 v = 0;
    for (; *s; s++)
        v = v * 10 + (unsigned)(*s - '0');
    return neg ? (__int128)(0 - v) : (__int128)v;
}

/* Formats one table row with brt_sb_val; returns a malloc'ed string. */
static char *format_row(brt_kind kind, const char *value, const char *spec)
{
    brt_sb sb;
    brt_sb_init(&sb);
    switch (kind) {
    case BRT_INT: {
        int64_t v = (int64_t)parse_i128(value);
        brt_sb_val(&sb, &brt_t_int, &v, spec);
        break;
    }
    case BRT_U64: {
        uint64_t v = (uint64_t)parse_i128(value);
        brt_sb_val(&sb, &brt_t_u64, &v, spec);
        break;
    }
    case BRT_I128: {
        __int128 w = parse_i128(value);
        brt_i128 v = brt_i128_make((uint64_t)w, (uint64_t)((unsigned __int128)w >> 64));
        brt_sb_val(&sb, &brt_t_i128, &v, spec);
        break;
    }
    case BRT_FLOAT: {
        unsigned long long b = strtoull(value, NULL, 16);
        double x;
        memcpy(&x, &b, sizeof x);
        brt_sb_val(&sb, &brt_t_float, &x, spec);
        break;
    }
    case BRT_BOOL: {
        bool v = strcmp(value, "true") == 0;
        brt_sb_val(&sb, &brt_t_bool, &v, spec);
        break;
    }
    case BRT_STR: {
        brt_str *s = brt_str_new(value, (int64_t)strlen(value));
        brt_sb_val(&sb, &brt_t_str, &s, spec);
        brt_str_release(s);
        break;
    }
    case BRT_ARR:
        break;
    }
    brt_str *r = brt_sb_finish(&sb);
    char *out = strdup(r->data);
    brt_str_release(r);
    return out;
}

Test(format, python_table)
{
    size_t n = sizeof spec_table / sizeof spec_table[0], bad = 0;
    cr_assert_gt(n, 1500);
    for (size_t i = 0; i < n; i++) {
        const char *why = brt_spec_check(spec_table[i].kind, spec_table[i].spec);
        char *got = format_row(spec_table[i].kind, spec_table[i].value, spec_table[i].spec);
        if (why || strcmp(got, spec_table[i].want) != 0) {
            if (bad++ < 25)
                cr_log_error("kind %d value %s spec '%s': got '%s' want '%s' (%s)", spec_table[i].kind,
                             spec_table[i].value, spec_table[i].spec, got, spec_table[i].want,
                             why ? why : "spec accepted");
        }
        free(got);
    }
    cr_assert_eq(bad, 0, "%zu of %zu rows differ from Python's format()", bad, n);
}

Test(format, spec_check_rejects)
{
    struct { brt_kind k; const char *spec; } bad[] = {
        {BRT_INT, ".2"}, {BRT_INT, "f"}, {BRT_INT, ",x"}, {BRT_INT, ",b"}, {BRT_INT, "=5"},
        {BRT_INT, "#x"}, {BRT_INT, "_"}, {BRT_INT, "s"}, {BRT_INT, "q"}, {BRT_INT, "5dd"},
        {BRT_U64, ".1"}, {BRT_I128, "e"}, {BRT_FLOAT, "d"}, {BRT_FLOAT, "x"}, {BRT_FLOAT, "s"},
        {BRT_FLOAT, "n"}, {BRT_FLOAT, "."}, {BRT_FLOAT, ".2fx"}, {BRT_FLOAT, "z.2f"},
        {BRT_STR, "f"}, {BRT_STR, "d"}, {BRT_STR, "+"}, {BRT_STR, ","}, {BRT_STR, "=10"},
        {BRT_BOOL, "d"}, {BRT_BOOL, "+5"}, {BRT_ARR, "5"}, {BRT_INT, "99999999999"},
        {BRT_FLOAT, ".9999999999"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *why = brt_spec_check(bad[i].k, bad[i].spec);
        cr_expect_not_null(why, "spec '%s' for kind %d should be rejected", bad[i].spec, bad[i].k);
        if (why) /* lower-case, no final period */
            cr_expect(why[0] >= 'a' && why[0] <= 'z' && why[strlen(why) - 1] != '.', "%s", why);
    }
    cr_expect_null(brt_spec_check(BRT_ARR, ""));
    cr_expect_null(brt_spec_check(BRT_ARR, NULL));
    cr_expect_str_eq(brt_spec_check(BRT_FLOAT, "q"),
                     "format spec 'q' is not valid for float: format type 'q' is not one of f F e E g G %");
}

static char *to_str_text(const brt_type *t, const void *v)
{
    brt_str *s = brt_to_str(t, v);
    char *r = strdup(s->data);
    brt_str_release(s);
    return r;
}

static const brt_type T_arr_int = { BRT_ARR, &brt_t_int };
static const brt_type T_arr_float = { BRT_ARR, &brt_t_float };
static const brt_type T_arr_str = { BRT_ARR, &brt_t_str };
static const brt_type T_arr_bool = { BRT_ARR, &brt_t_bool };
static const brt_type T_arr_arr_int = { BRT_ARR, &T_arr_int };

Test(format, to_str_all_types)
{
    int64_t i = -42;
    uint64_t u = UINT64_MAX;
    brt_i128 w = brt_i128_make(0, 0x8000000000000000ull);
    double f = 0.5;
    bool b = true;
    char *t;
    cr_expect_str_eq(t = to_str_text(&brt_t_int, &i), "-42"); free(t);
    cr_expect_str_eq(t = to_str_text(&brt_t_u64, &u), "18446744073709551615"); free(t);
    cr_expect_str_eq(t = to_str_text(&brt_t_i128, &w), "-170141183460469231731687303715884105728"); free(t);
    cr_expect_str_eq(t = to_str_text(&brt_t_float, &f), "0.5"); free(t);
    cr_expect_str_eq(t = to_str_text(&brt_t_bool, &b), "true"); free(t);

    int64_t xs[] = {1, 2, 3};
    brt_arr *a = brt_arr_from(&brt_t_int, 3, xs);
    cr_expect_str_eq(t = to_str_text(&T_arr_int, &a), "[1, 2, 3]"); free(t);
    double fs[] = {0.5, 1.0};
    brt_arr *af = brt_arr_from(&brt_t_float, 2, fs);
    cr_expect_str_eq(t = to_str_text(&T_arr_float, &af), "[0.5, 1.0]"); free(t);
    bool bs[] = {true, false};
    brt_arr *ab = brt_arr_from(&brt_t_bool, 2, bs);
    cr_expect_str_eq(t = to_str_text(&T_arr_bool, &ab), "[true, false]"); free(t);
    brt_str *ss[] = {brt_str_new("a\"b\n", 4), brt_str_new("x\\y\t\x01\x7f", 6),
                     brt_str_new("h\xc3\xa9", 3), brt_str_new("'\r\0", 3)};
    brt_arr *as = brt_arr_from(&brt_t_str, 4, ss);
    cr_expect_str_eq(t = to_str_text(&T_arr_str, &as),
                     "[\"a\\\"b\\n\", \"x\\\\y\\t\\u{1}\\u{7f}\", \"h\xc3\xa9\", \"'\\r\\0\"]");
    free(t);
    brt_arr *inner[] = {a, brt_arr_new(&brt_t_int, 0)};
    brt_retain(a);
    brt_arr *nested = brt_arr_from(&T_arr_int, 2, inner);
    cr_expect_str_eq(t = to_str_text(&T_arr_arr_int, &nested), "[[1, 2, 3], []]"); free(t);
    brt_arr_release(nested);
    brt_arr_release(a);
    brt_arr_release(af);
    brt_arr_release(ab);
    brt_arr_release(as);
}

static void print_all(void *unused)
{
    int64_t xs[] = {1, -2};
    brt_arr *a = brt_arr_from(&brt_t_int, 2, xs);
    brt_print_int(INT64_MIN);
    brt_print_sep();
    brt_print_u64(UINT64_MAX);
    brt_print_sep();
    brt_print_i128(brt_i128_make(UINT64_MAX, INT64_MAX));
    brt_print_sep();
    brt_print_float(1e16);
    brt_print_sep();
    brt_print_bool(false);
    brt_print_sep();
    brt_str *s = brt_str_new("hi", 2);
    brt_print_str(s);
    brt_print_sep();
    brt_print_val(&T_arr_int, &a);
    brt_print_end();
    brt_print_end();
    brt_str_release(s);
    brt_arr_release(a);
}

Test(format, print_line)
{
    struct child_result r = run_child(print_all, NULL);
    cr_assert_eq(r.status, 0);
    cr_assert_str_eq(r.out, "-9223372036854775808 18446744073709551615 "
                            "170141183460469231731687303715884105727 1e+16 false hi [1, -2]\n\n");
    cr_assert_str_eq(r.err, "");
}

/* A large output goes through the buffer in order and completely. */
static void print_many(void *unused)
{
    for (int i = 0; i < 1000; i++) {
        brt_print_int(i);
        brt_print_end();
    }
}

Test(format, print_buffer_order)
{
    struct child_result r = run_child(print_many, NULL);
    cr_assert_eq(r.status, 0);
    cr_assert_eq(strncmp(r.out, "0\n1\n2\n", 6), 0);
    cr_assert_eq(strlen(r.out), 3890, "all 1000 lines, in order");
}

Test(format, i128_text)
{
    char buf[48];
    struct { __int128 v; const char *want; } cases[] = {
        {0, "0"}, {-1, "-1"}, {(__int128)1 << 64, "18446744073709551616"},
        {(__int128)INT64_MIN, "-9223372036854775808"},
        {(__int128)((unsigned __int128)1 << 127), "-170141183460469231731687303715884105728"},
        {(__int128)10000000000000000000ull, "10000000000000000000"},
        {(__int128)10000000000000000000ull * 10000000000000000000ull, "100000000000000000000000000000000000000"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        brt_i128 v = brt_i128_make((uint64_t)cases[i].v, (uint64_t)((unsigned __int128)cases[i].v >> 64));
        int n = brt_format_i128(v, buf);
        cr_expect_str_eq(buf, cases[i].want);
        cr_expect_eq(n, (int)strlen(cases[i].want));
    }
}

/* ---- int(s), float(s) ---- */

static int64_t parse_int_text(const char *s)
{
    brt_str *str = brt_str_new(s, (int64_t)strlen(s));
    int64_t v = brt_parse_int(str, NULL);
    brt_str_release(str);
    return v;
}

static double parse_float_text(const char *s)
{
    brt_str *str = brt_str_new(s, (int64_t)strlen(s));
    double v = brt_parse_float(str, NULL);
    brt_str_release(str);
    return v;
}

Test(parse, good_ints)
{
    cr_expect_eq(parse_int_text("0"), 0);
    cr_expect_eq(parse_int_text("-17"), -17);
    cr_expect_eq(parse_int_text("+17"), 17);
    cr_expect_eq(parse_int_text("007"), 7);
    cr_expect_eq(parse_int_text("1_000_000"), 1000000);
    cr_expect_eq(parse_int_text("9223372036854775807"), INT64_MAX);
    cr_expect_eq(parse_int_text("-9223372036854775808"), INT64_MIN);
}

Test(parse, good_floats)
{
    cr_expect_eq(parse_float_text("1.5"), 1.5);
    cr_expect_eq(parse_float_text("-2"), -2.0);
    cr_expect_eq(parse_float_text("1."), 1.0);
    cr_expect_eq(parse_float_text(".5"), 0.5);
    cr_expect_eq(parse_float_text("1e-3"), 1e-3);
    cr_expect_eq(parse_float_text("2.5E+10"), 2.5e10);
    cr_expect_eq(parse_float_text("1_000.000_5"), 1000.0005);
    cr_expect_eq(parse_float_text("1e400"), INFINITY);
    cr_expect_eq(parse_float_text("-Infinity"), -INFINITY);
    cr_expect_eq(parse_float_text("inf"), INFINITY);
    cr_expect(isnan(parse_float_text("NaN")));
    cr_expect_eq(parse_float_text("0.1"), 0.1);
}

struct bad_parse { const char *text; bool is_float; };

static void do_bad_parse(void *arg)
{
    const struct bad_parse *b = arg;
    static const brt_loc loc = { "conv.br", 4, 13 };
    brt_str *s = brt_str_new(b->text, (int64_t)strlen(b->text));
    if (b->is_float)
        brt_parse_float(s, &loc);
    else
        brt_parse_int(s, &loc);
}

Test(parse, bad_text_panics)
{
    struct { struct bad_parse in; const char *want; } cases[] = {
        {{"12x", false}, "panic: cannot convert \"12x\" to int\n  --> conv.br:4:13\n"},
        {{" 1", false}, "panic: cannot convert \" 1\" to int\n  --> conv.br:4:13\n"},
        {{"", false}, "panic: cannot convert \"\" to int\n  --> conv.br:4:13\n"},
        {{"1__0", false}, "panic: cannot convert \"1__0\" to int\n  --> conv.br:4:13\n"},
        {{"_1", false}, "panic: cannot convert \"_1\" to int\n  --> conv.br:4:13\n"},
        {{"1_", false}, "panic: cannot convert \"1_\" to int\n  --> conv.br:4:13\n"},
        {{"-", false}, "panic: cannot convert \"-\" to int\n  --> conv.br:4:13\n"},
        {{"1.5", false}, "panic: cannot convert \"1.5\" to int\n  --> conv.br:4:13\n"},
        {{"a\"b\n", false}, "panic: cannot convert \"a\\\"b\\n\" to int\n  --> conv.br:4:13\n"},
        {{"9223372036854775808", false}, "panic: cannot convert \"9223372036854775808\" to int\n  --> conv.br:4:13\n"},
        {{"x", true}, "panic: cannot convert \"x\" to float\n  --> conv.br:4:13\n"},
        {{"1.5 ", true}, "panic: cannot convert \"1.5 \" to float\n  --> conv.br:4:13\n"},
        {{".", true}, "panic: cannot convert \".\" to float\n  --> conv.br:4:13\n"},
        {{"1e", true}, "panic: cannot convert \"1e\" to float\n  --> conv.br:4:13\n"},
        {{"0x10", true}, "panic: cannot convert \"0x10\" to float\n  --> conv.br:4:13\n"},
        {{"1_.5", true}, "panic: cannot convert \"1_.5\" to float\n  --> conv.br:4:13\n"},
        {{"infinit", true}, "panic: cannot convert \"infinit\" to float\n  --> conv.br:4:13\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct child_result r = run_child(do_bad_parse, &cases[i].in);
        cr_expect_eq(r.status, 101, "%s", cases[i].in.text);
        cr_expect_str_eq(r.err, cases[i].want);
    }
}
