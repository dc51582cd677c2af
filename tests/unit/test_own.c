/* Ownership by type (own.c): a copy of a nested aggregate holding strings
 * retains every reference at any depth, through the array methods that copy
 * (slice, extend, concat, repeat, copy on write), and a reverse swaps
 * elements wider than any fixed buffer. */
#include <criterion/criterion.h>
#include <stddef.h>
#include <string.h>

#include "brine_rt.h"

/* ((int, str), Option[str], [int]) as the generated C lays it out */
typedef struct inner { int64_t n; brt_str *s; } inner;
typedef struct opt_str { bool some; brt_str *v; } opt_str;
typedef struct outer { inner a; opt_str o; brt_arr *xs; } outer;

static const brt_type T_arr_int = { BRT_ARR, &brt_t_int, 0, 0, NULL, NULL, false, NULL, NULL, false };
static const brt_type *const inner_f[] = { &brt_t_int, &brt_t_str };
static const size_t inner_o[] = { offsetof(inner, n), offsetof(inner, s) };
static const brt_type T_inner = { BRT_TUPLE, NULL, sizeof(inner), 2, inner_f, inner_o, true, NULL, NULL, false };
static const brt_type *const opt_f[] = { &brt_t_bool, &brt_t_str };
static const size_t opt_o[] = { offsetof(opt_str, some), offsetof(opt_str, v) };
static const brt_type T_opt = { BRT_TUPLE, NULL, sizeof(opt_str), 2, opt_f, opt_o, true, NULL, NULL, true };
static const brt_type *const outer_f[] = { &T_inner, &T_opt, &T_arr_int };
static const size_t outer_o[] = { offsetof(outer, a), offsetof(outer, o), offsetof(outer, xs) };
static const brt_type T_outer = { BRT_TUPLE, NULL, sizeof(outer), 3, outer_f, outer_o, true, NULL, NULL, false };

static brt_str *S(const char *s) { return brt_str_new(s, (int64_t)strlen(s)); }

static outer mk(int64_t i, bool some)
{
    outer v;
    memset(&v, 0, sizeof v);
    v.a.n = i;
    v.a.s = S("inner");
    v.o.some = some;
    v.o.v = some ? S("opt") : NULL;
    v.xs = brt_arr_new(&brt_t_int, 2);
    return v;
}

Test(own, type_owns)
{
    cr_assert(brt_type_owns(&T_outer));
    cr_assert(brt_type_owns(&brt_t_str) && brt_type_owns(&T_arr_int) && brt_type_owns(&brt_t_fn));
    cr_assert(!brt_type_owns(&brt_t_int) && !brt_type_owns(&brt_t_i128));
}

Test(own, copies_retain_every_level)
{
    outer e[3] = { mk(0, true), mk(1, false), mk(2, true) };
    brt_arr *a = brt_arr_from(&T_outer, 3, e);
    brt_arr *s = brt_arr_slice(a, 1, 3, NULL);
    cr_assert_eq(e[2].a.s->rc, 2, "a slice retains the nested str");
    cr_assert_eq(e[2].o.v->rc, 2, "and the Option's value");
    cr_assert_eq(e[2].xs->rc, 2, "and the array field");
    brt_arr *c = brt_arr_concat(a, s);
    cr_assert_eq(e[2].a.s->rc, 4);
    brt_arr_extend(&c, a);
    cr_assert_eq(e[1].a.s->rc, 5);
    brt_arr *r = brt_arr_repeat(s, 2, NULL);
    cr_assert_eq(e[1].xs->rc, 7);
    brt_arr_release(c);
    brt_arr_release(r);
    cr_assert_eq(e[1].a.s->rc, 2);
    brt_retain(s);
    brt_arr *u = brt_arr_unique(s); /* shared: a copy */
    cr_assert_neq(u, s);
    cr_assert_eq(e[2].o.v->rc, 3);
    brt_arr_release(u);
    brt_arr_release(s);
    brt_arr_release(s);
    cr_assert_eq(e[2].o.v->rc, 1);
    brt_arr_release(a);
}

Test(own, reverse_wide_elements)
{
    typedef struct wide { brt_i128 v[5]; int64_t k; } wide; /* 96 bytes */
    static const brt_type T_wide = { BRT_TUPLE, NULL, sizeof(wide), 0, NULL, NULL, false, NULL, NULL, false };
    wide w[5];
    memset(w, 0, sizeof w);
    for (int i = 0; i < 5; i++) {
        w[i].k = i;
        w[i].v[4].lo = (uint64_t)(10 + i);
    }
    brt_arr *a = brt_arr_from(&T_wide, 5, w);
    brt_arr *r = brt_arr_reversed(a);
    for (int i = 0; i < 5; i++) {
        const wide *x = (const wide *)r->data + i;
        cr_assert_eq(x->k, 4 - i);
        cr_assert_eq(x->v[4].lo, (uint64_t)(14 - i));
    }
    brt_arr_release(r);
    brt_arr_release(a);
}
