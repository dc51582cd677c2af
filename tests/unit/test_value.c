/* Strings and arrays (SPEC 3): refcounts, copy-on-write, push, repeat,
 * concat, deep equality, zero elements of brt_arr_new, and that a loop
 * building and dropping arrays leaks nothing (run this binary under
 * valgrind: it must report no leaks). */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <malloc.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "brine_rt.h"

static const brt_type T_arr_int = { BRT_ARR, &brt_t_int };
static const brt_type T_arr_str = { BRT_ARR, &brt_t_str };
static const brt_type T_arr_float = { BRT_ARR, &brt_t_float };
static const brt_type T_arr_arr_int = { BRT_ARR, &T_arr_int };

static brt_str *S(const char *s) { return brt_str_new(s, (int64_t)strlen(s)); }

Test(value, str_ops)
{
    static brt_str lit = BRT_STR_LIT("lit", 3);
    brt_retain(&lit);
    brt_str_release(&lit);
    brt_str_release(&lit);
    cr_assert_eq(lit.rc, -1, "immortal strings ignore counts");

    brt_str *a = S("ab"), *b = S("cd");
    brt_str *c = brt_str_concat(a, b);
    cr_assert_str_eq(c->data, "abcd");
    cr_assert_eq(c->len, 4);
    brt_str *e = S("");
    brt_str *c2 = brt_str_concat(e, a);
    cr_assert_eq(c2, a, "concat with \"\" shares the other side");
    cr_assert_eq(a->rc, 2);
    brt_str *r = brt_str_repeat(a, 3, NULL);
    cr_assert_str_eq(r->data, "ababab");
    brt_str *r0 = brt_str_repeat(a, -2, NULL);
    cr_assert_eq(r0->len, 0);
    cr_assert_str_eq(r0->data, "");
    cr_assert(brt_str_eq(c, r) == false);
    brt_str *c3 = S("abcd");
    cr_assert(brt_str_eq(c, c3));
    cr_assert_eq(brt_str_cmp(a, c), -1);
    cr_assert_eq(brt_str_cmp(c, a), 1);
    cr_assert_eq(brt_str_cmp(c, c3), 0);
    brt_str *hi = brt_str_new("\xff", 1), *lo = S("a");
    cr_assert_eq(brt_str_cmp(hi, lo), 1, "bytewise, unsigned");
    brt_str *nul = brt_str_new("a\0b", 3);
    cr_assert_eq(nul->len, 3);
    cr_assert(!brt_str_eq(nul, a));
    brt_str *all[] = {a, b, c, e, c2, r, r0, c3, hi, lo, nul};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        brt_str_release(all[i]);
}

Test(value, arr_new_zero_elements)
{
    brt_arr *a = brt_arr_new(&brt_t_float, 5);
    cr_assert_eq(a->len, 5);
    for (int i = 0; i < 5; i++)
        cr_assert_eq(BRT_AT(double, a, i), 0.0);
    brt_arr *s = brt_arr_new(&brt_t_str, 3);
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(BRT_AT(brt_str *, s, i)->len, 0);
        cr_assert_str_eq(BRT_AT(brt_str *, s, i)->data, "");
    }
    brt_arr *n = brt_arr_new(&T_arr_int, 2);
    cr_assert_eq(BRT_AT(brt_arr *, n, 1)->len, 0);
    cr_assert_eq(BRT_AT(brt_arr *, n, 1)->elem, &brt_t_int);
    brt_arr *b = brt_arr_new(&brt_t_bool, 9);
    cr_assert_eq(BRT_AT(bool, b, 8), false);
    brt_arr *w = brt_arr_new(&brt_t_i128, 2);
    cr_assert_eq(BRT_AT(brt_i128, w, 1).hi, 0);
    cr_assert_eq(brt_type_size(&brt_t_i128), 16);
    cr_assert_eq(brt_type_size(&brt_t_bool), 1);
    brt_arr_release(a);
    brt_arr_release(s);
    brt_arr_release(n);
    brt_arr_release(b);
    brt_arr_release(w);
}

Test(value, copy_on_write)
{
    int64_t xs[] = {1, 2, 3};
    brt_arr *a = brt_arr_from(&brt_t_int, 3, xs);
    brt_arr *b = a; /* let b = a */
    brt_retain(b);
    cr_assert_eq(a->rc, 2);
    b = brt_arr_unique(b); /* b[0] = 10 */
    BRT_AT(int64_t, b, 0) = 10;
    cr_assert_neq(a, b);
    cr_assert_eq(a->rc, 1);
    cr_assert_eq(BRT_AT(int64_t, a, 0), 1, "the original is untouched");
    cr_assert_eq(BRT_AT(int64_t, b, 0), 10);
    brt_arr *same = brt_arr_unique(b);
    cr_assert_eq(same, b, "a sole owner writes in place");
    brt_arr_release(a);
    brt_arr_release(b);
}

/* unique b[*] (opt_unique.c): every row made unique, a row shared with a
 * let or with another row copied (the other holder keeps its values), a
 * sole row kept in place, BRT_UNIQUE writing its slot only on a copy. */
Test(value, unique_rows)
{
    int64_t r0[] = {1, 2}, r2[] = {5, 6};
    brt_arr *row0 = brt_arr_from(&brt_t_int, 2, r0), *row2 = brt_arr_from(&brt_t_int, 2, r2);
    brt_arr *rows[] = {row0, row0, row2}; /* b[1] = b[0] */
    brt_retain(row0);
    brt_arr *b = brt_arr_from(&T_arr_int, 3, rows); /* takes the three references */
    brt_arr *kept = row2;                           /* let kept = b[2] */
    brt_retain(kept);
    brt_arr_unique_rows(b);
    brt_arr **d = (brt_arr **)b->data;
    cr_assert_neq(d[0], d[1], "rows shared within b are split");
    cr_assert(d[1] == row0 || d[0] == row0, "one of them keeps the original");
    cr_assert_neq(d[2], kept, "a row shared with a let is copied");
    for (int i = 0; i < 3; i++) cr_assert_eq(d[i]->rc, 1);
    BRT_AT(int64_t, d[2], 0) = 50;
    cr_assert_eq(BRT_AT(int64_t, kept, 0), 5, "the let keeps its values");
    brt_arr *before = d[0];
    brt_arr_unique_rows(b);
    cr_assert_eq(d[0], before, "a sole row stays in place");
    brt_arr *slot = d[1];
    brt_retain(slot);
    BRT_UNIQUE(d[1]);
    cr_assert_neq(d[1], slot, "a shared row in its slot is copied");
    before = d[1];
    BRT_UNIQUE(d[1]);
    cr_assert_eq(d[1], before);
    brt_arr_release(slot);
    brt_arr_release(kept);
    brt_arr_release(b);
}

Test(value, push_grows_and_shares)
{
    brt_arr *a = brt_arr_new(&brt_t_int, 0);
    for (int64_t i = 0; i < 10000; i++)
        a = brt_arr_push(a, &i);
    cr_assert_eq(a->len, 10000);
    cr_assert_geq(a->cap, 10000);
    cr_assert_lt(a->cap, 20000 + 4);
    for (int64_t i = 0; i < 10000; i++)
        cr_assert_eq(BRT_AT(int64_t, a, i), i);
    brt_arr *keep = a;
    brt_retain(keep);
    int64_t v = -1;
    a = brt_arr_push(a, &v);
    cr_assert_eq(keep->len, 10000, "push on a shared array copies");
    cr_assert_eq(a->len, 10001);
    brt_arr_release(keep);
    brt_arr_release(a);

    brt_arr *s = brt_arr_new(&brt_t_str, 0);
    brt_str *x = S("x");
    brt_retain(x);
    s = brt_arr_push(s, &x);
    cr_assert_eq(x->rc, 2);
    brt_arr_release(s);
    cr_assert_eq(x->rc, 1, "releasing the array releases its elements");
    brt_str_release(x);
}

Test(value, repeat_and_concat)
{
    int64_t one = 7;
    brt_arr *a = brt_arr_from(&brt_t_int, 1, &one);
    brt_arr *r = brt_arr_repeat(a, 5, NULL);
    cr_assert_eq(r->len, 5);
    cr_assert_eq(BRT_AT(int64_t, r, 4), 7);
    brt_arr *z = brt_arr_repeat(a, -3, NULL);
    cr_assert_eq(z->len, 0);
    brt_arr *c = brt_arr_concat(r, a);
    cr_assert_eq(c->len, 6);
    brt_str *strs[] = {S("p"), S("q")};
    brt_arr *s = brt_arr_from(&brt_t_str, 2, strs);
    brt_arr *s3 = brt_arr_repeat(s, 3, NULL);
    cr_assert_eq(s3->len, 6);
    cr_assert_str_eq(BRT_AT(brt_str *, s3, 5)->data, "q");
    cr_assert_eq(strs[0]->rc, 4);
    brt_arr *sc = brt_arr_concat(s, s3);
    cr_assert_eq(strs[1]->rc, 8);
    brt_arr *nest = brt_arr_from(&T_arr_int, 1, &a);
    brt_retain(a);
    brt_arr *nr = brt_arr_repeat(nest, 4, NULL);
    cr_assert_eq(a->rc, 6, "nested elements are shared, copy-on-write keeps them values");
    brt_arr *all[] = {a, r, z, c, s, s3, sc, nest, nr};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        brt_arr_release(all[i]);
}

Test(value, repeat_fills_every_element)
{
    /* zero bits (calloc'd when large), one byte of other bits, and a chunk
     * of 3 elements doubled: every element is the repeated one */
    bool f = false, t = true;
    int64_t three[] = {5, 0, -1};
    brt_arr *fa = brt_arr_from(&brt_t_bool, 1, &f), *ta = brt_arr_from(&brt_t_bool, 1, &t);
    brt_arr *ia = brt_arr_from(&brt_t_int, 3, three);
    brt_arr *fr = brt_arr_repeat(fa, 1 << 20, NULL), *tr = brt_arr_repeat(ta, (1 << 20) + 3, NULL);
    brt_arr *ir = brt_arr_repeat(ia, 100001, NULL), *small = brt_arr_repeat(fa, 5, NULL);
    cr_assert_eq(fr->len, 1 << 20);
    cr_assert_eq(tr->len, (1 << 20) + 3);
    cr_assert_eq(ir->len, 300003);
    for (int64_t i = 0; i < fr->len; i++)
        cr_assert(!BRT_AT(bool, fr, i));
    for (int64_t i = 0; i < tr->len; i++)
        cr_assert(BRT_AT(bool, tr, i));
    for (int64_t i = 0; i < ir->len; i++)
        cr_assert_eq(BRT_AT(int64_t, ir, i), three[i % 3]);
    for (int64_t i = 0; i < small->len; i++)
        cr_assert(!BRT_AT(bool, small, i));
    brt_arr *all[] = {fa, ta, ia, fr, tr, ir, small};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        brt_arr_release(all[i]);
}

Test(value, deep_equality)
{
    int64_t x1[] = {1, 2}, x2[] = {1, 2}, x3[] = {1, 3};
    brt_arr *a = brt_arr_from(&brt_t_int, 2, x1), *b = brt_arr_from(&brt_t_int, 2, x2),
            *c = brt_arr_from(&brt_t_int, 2, x3);
    cr_assert(brt_eq(&T_arr_int, &a, &b));
    cr_assert(!brt_eq(&T_arr_int, &a, &c));
    brt_arr *na[] = {a, b}, *nb[] = {b, a}, *nc[] = {a, c};
    brt_retain(a); brt_retain(b); brt_retain(a); brt_retain(b); brt_retain(a); brt_retain(c);
    brt_arr *A = brt_arr_from(&T_arr_int, 2, na), *B = brt_arr_from(&T_arr_int, 2, nb),
            *C = brt_arr_from(&T_arr_int, 2, nc);
    cr_assert(brt_eq(&T_arr_arr_int, &A, &B));
    cr_assert(!brt_eq(&T_arr_arr_int, &A, &C));
    double fn[] = {NAN};
    brt_arr *f = brt_arr_from(&brt_t_float, 1, fn);
    cr_assert(!brt_eq(&T_arr_float, &f, &f), "nan != nan, even in the same array");
    double z1[] = {0.0}, z2[] = {-0.0};
    brt_arr *p = brt_arr_from(&brt_t_float, 1, z1), *q = brt_arr_from(&brt_t_float, 1, z2);
    cr_assert(brt_eq(&T_arr_float, &p, &q));
    brt_str *s1[] = {S("a"), S("b")}, *s2[] = {S("a"), S("b")};
    brt_arr *ss1 = brt_arr_from(&brt_t_str, 2, s1), *ss2 = brt_arr_from(&brt_t_str, 2, s2);
    cr_assert(brt_eq(&T_arr_str, &ss1, &ss2));
    brt_i128 w1 = brt_i128_make(1, 2), w2 = brt_i128_make(1, 3);
    cr_assert(!brt_eq(&brt_t_i128, &w1, &w2));
    bool t = true, u = true;
    cr_assert(brt_eq(&brt_t_bool, &t, &u));
    brt_arr *all[] = {a, b, c, A, B, C, f, p, q, ss1, ss2};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        brt_release_val(&T_arr_int, &all[i]);
}

/* A loop that builds and drops arrays keeps memory flat: under valgrind
 * this must end with no bytes lost; without it, a leak would show as
 * growth of mallinfo's in-use bytes. */
Test(value, build_and_drop_loop)
{
    for (int round = 0; round < 2000; round++) {
        brt_arr *a = brt_arr_new(&T_arr_int, 0);
        for (int64_t i = 0; i < 20; i++) {
            brt_arr *inner = brt_arr_new(&brt_t_int, (int64_t)i);
            a = brt_arr_push(a, &inner);
        }
        brt_arr *b = a;
        brt_retain(b);
        b = brt_arr_unique(b);
        brt_arr *c = brt_arr_concat(a, b);
        brt_str *s = brt_to_str(&T_arr_arr_int, &c);
        cr_assert_gt(s->len, 0);
        brt_str_release(s);
        brt_arr_release(c);
        brt_arr_release(b);
        brt_arr_release(a);
    }
}

/* s = s + b for a variable s: in place only for the only reference. */
Test(value, str_append)
{
    brt_str *s = brt_str_append_bytes(S(""), "a", 1); /* from the immortal "": a new block with room */
    cr_assert(s->cap > s->len);
    brt_str_release(s);
    s = S("ab");
    brt_str *b = S("cd");
    s = brt_str_append(s, b);           /* a plain string of ours: realloc'd to the length */
    cr_assert_str_eq(s->data, "abcd");
    cr_assert_eq(s->cap, 4);
    s = brt_str_append_bytes(s, "c", 1); /* full: grown by half */
    cr_assert_str_eq(s->data, "abcdc");
    cr_assert(s->cap >= 7);
    const char *where = s->data;
    s = brt_str_append_bytes(s, "d", 1); /* room left: in place */
    cr_assert_eq(s->data, where);
    cr_assert_str_eq(s->data, "abcdcd");
    brt_retain(s);                      /* shared: the other holder keeps its bytes */
    brt_str *other = s;
    brt_str *t = brt_str_append(s, b);
    cr_assert_neq(t, other);
    cr_assert_str_eq(other->data, "abcdcd");
    cr_assert_str_eq(t->data, "abcdcdcd");
    t = brt_str_append(t, t);           /* s + s: the operand is the variable */
    cr_assert_str_eq(t->data, "abcdcdcdabcdcdcd");
    t = brt_str_append(t, S(""));
    cr_assert_eq(t->len, 16);
    for (int i = 0; i < 1000; i++) t = brt_str_append(t, b); /* amortised growth */
    cr_assert_eq(t->len, 2016);
    cr_assert_eq(t->data[2016], 0);
    brt_str_release(t);
    brt_str_release(other);
    brt_str_release(b);
}

/* Freed data of a middle size (64 < bytes <= 64 KiB) goes onto the thread's
 * cache and is handed to the next array of exactly that many bytes; a new
 * array from it still starts as its constructor says (brt_arr_new: zeros),
 * a push past its room reallocates it, and a size with no entry free is
 * freed as before. Needs brt_start: the cache is the thread's. */
Test(value, middle_data_reused)
{
    setenv("BRINE_THREADS", "1", 1);
    brt_start(0, NULL);
    brt_arr *a = brt_arr_new(&brt_t_float, 500); /* 4000 bytes */
    for (int64_t i = 0; i < 500; i++) ((double *)a->data)[i] = 1.5;
    void *d = a->data;
    brt_arr_release(a);
    void *other = malloc(4000); /* malloc's own next 4000 bytes: never the cached ones */
    cr_assert_neq(other, d);
    brt_arr *b = brt_arr_new(&brt_t_float, 500);
    cr_assert_eq(b->data, d, "a freed 4000-byte buffer is the next one of 4000 bytes");
    free(other);
    for (int64_t i = 0; i < 500; i++) cr_assert_eq(((double *)b->data)[i], 0.0);
    brt_arr_release(b); /* d cached again, for 4000 bytes */
    /* (asked while d is cached: after a push realloc'ed it, d may be
     * malloc's again, and malloc may hand it to any size) */
    brt_arr *c = brt_arr_new(&brt_t_float, 499);
    cr_assert_neq(c->data, d, "no buffer of another size");
    brt_arr_release(c);
    b = brt_arr_new(&brt_t_float, 500);
    cr_assert_eq(b->data, d);
    double v = 2.5;
    b = brt_arr_push(b, &v); /* past its room: realloc'ed, a new size */
    cr_assert_eq(b->len, 501);
    cr_assert_eq(((double *)b->data)[500], 2.5);
    brt_arr_release(b);
    /* five sizes at once: the four entries take four, the fifth is freed */
    brt_arr *s[5];
    for (int k = 0; k < 5; k++) s[k] = brt_arr_new(&brt_t_int, 100 + k);
    for (int k = 0; k < 5; k++) brt_arr_release(s[k]);
    for (int k = 0; k < 5; k++) {
        brt_arr *t = brt_arr_new(&brt_t_int, 100 + k);
        cr_assert_eq(t->len, 100 + k);
        for (int64_t i = 0; i < t->len; i++) cr_assert_eq(((int64_t *)t->data)[i], 0);
        brt_arr_release(t);
    }
    /* a big one is not on these lists (big_data_reused below) */
    brt_arr *big = brt_arr_new(&brt_t_float, 20000);
    brt_arr_release(big);
}

/* A grid of rows dropped and built again with the same shape gets row i's
 * buffer back as its row i (the rows are dropped last first onto the
 * thread's last-in-first-out cache), so a pool that splits the rows the
 * same way each sweep writes each row on the core that wrote it before. */
Test(value, grid_rows_come_back_in_place)
{
    setenv("BRINE_THREADS", "1", 1);
    brt_start(0, NULL);
    enum { ROWS = 8 };
    brt_arr *g = brt_arr_room(&T_arr_float, ROWS);
    for (int i = 0; i < ROWS; i++) BRT_COLLECT(brt_arr *, g, brt_arr_new(&brt_t_float, 500));
    void *was[ROWS];
    for (int i = 0; i < ROWS; i++) was[i] = ((brt_arr **)g->data)[i]->data;
    brt_arr_release(g);
    brt_arr *h = brt_arr_room(&T_arr_float, ROWS);
    for (int i = 0; i < ROWS; i++) BRT_COLLECT(brt_arr *, h, brt_arr_new(&brt_t_float, 500));
    for (int i = 0; i < ROWS; i++)
        cr_assert_eq(((brt_arr **)h->data)[i]->data, was[i], "row %d's buffer is the old row %d's", i, i);
    brt_arr_release(h);
}

/* The cache's lists of freed middle-sized data keep their links out of the
 * buffers (brt_tcache.dstack): releasing a row writes none of its bytes
 * (its first line stays wherever the core that last wrote it has it), and
 * taking one back reads none. 1,000 rows of one size (past the stacks'
 * first room, 256) come back in place, every byte as the program left it
 * until a constructor writes it. */
Test(value, freed_rows_keep_their_bytes)
{
    setenv("BRINE_THREADS", "1", 1);
    brt_start(0, NULL);
    enum { ROWS = 1000 };
    brt_arr *g = brt_arr_room(&T_arr_float, ROWS);
    for (int i = 0; i < ROWS; i++) {
        brt_arr *r = brt_arr_new(&brt_t_float, 500);
        for (int j = 0; j < 500; j++) ((double *)r->data)[j] = i + j * 0.5;
        BRT_COLLECT(brt_arr *, g, r);
    }
    void *was[ROWS];
    for (int i = 0; i < ROWS; i++) was[i] = ((brt_arr **)g->data)[i]->data;
    brt_arr_release(g);
    for (int i = 0; i < ROWS; i++)
        cr_assert_eq(((double *)was[i])[0], (double)i, "row %d's first element, after the release", i);
    brt_arr *h = brt_arr_room(&T_arr_float, ROWS);
    for (int i = 0; i < ROWS; i++) BRT_COLLECT(brt_arr *, h, brt_arr_unset(&brt_t_float, 500, NULL));
    for (int i = 0; i < ROWS; i++) {
        brt_arr *r = ((brt_arr **)h->data)[i];
        cr_assert_eq(r->data, was[i], "row %d's buffer is the old row %d's", i, i);
        cr_assert_eq(((double *)r->data)[0], (double)i);
        cr_assert_eq(((double *)r->data)[499], i + 499 * 0.5);
    }
    brt_arr_release(h);
}

/* Freed big data (more than 64 KiB, at most 64 MiB): the thread keeps the
 * last buffer freed, and the next array with room for at least half of it
 * takes it (its cap as it asked, its elements as its constructor says);
 * the one kept before is freed. */
Test(value, big_data_reused)
{
    setenv("BRINE_THREADS", "1", 1);
    brt_start(0, NULL);
    brt_arr *a = brt_arr_room(&brt_t_float, 100000); /* 800,000 bytes */
    for (int64_t i = 0; i < 100000; i++) BRT_COLLECT(double, a, 1.5);
    void *d = a->data;
    brt_arr_release(a);
    void *other = malloc(800000);
    cr_assert_neq(other, d);
    brt_arr *z = brt_arr_new(&brt_t_float, 100000);
    cr_assert_eq(z->data, d, "the freed 800,000-byte buffer is the next one of that size");
    for (int64_t i = 0; i < 100000; i++) cr_assert_eq(((double *)z->data)[i], 0.0, "zeros as brt_arr_new says");
    brt_arr_release(z);
    brt_arr *b = brt_arr_room(&brt_t_float, 100000);
    cr_assert_eq(b->data, d);
    cr_assert_eq(b->cap, 100000);
    brt_arr_release(b);
    brt_arr *h = brt_arr_room(&brt_t_float, 50000); /* half: takes it, cap as asked */
    cr_assert_eq(h->data, d);
    cr_assert_eq(h->cap, 50000);
    for (int64_t i = 0; i < 50001; i++) BRT_COLLECT(double, h, (double)i); /* past its cap: realloc */
    cr_assert_eq(h->len, 50001);
    cr_assert_eq(((double *)h->data)[50000], 50000.0);
    brt_arr_release(h);
    void *hd = NULL;
    brt_arr *q = brt_arr_room(&brt_t_float, 30000); /* under half of what is kept: its own */
    hd = q->data;
    brt_arr *r = brt_arr_room(&brt_t_float, 100000);
    cr_assert_neq(r->data, hd);
    brt_arr_release(q); /* kept */
    void *rd = r->data;
    brt_arr_release(r); /* kept; q's freed */
    /* the thread's cache holds r's buffer alone (q's went back to malloc,
     * which may well hand the same address out again: the heap keeps freed
     * memory, os.c) */
    cr_assert_eq(brt_tcache_here()->big, rd, "only the newest is kept");
    cr_assert_eq(brt_tcache_here()->bigbytes, 100000 * (int64_t)sizeof(double));
    brt_arr *q2 = brt_arr_room(&brt_t_float, 30000); /* under half of it: not taken */
    cr_assert_neq(q2->data, rd);
    cr_assert_eq(brt_tcache_here()->big, rd);
    brt_arr_release(q2);
    free(other);
}

/* A comprehension's room past BRT_ROOM_BYTES (its length known: the buffer
 * holds them all) takes the kept buffer whatever its size above what it
 * asks (up to 8 times), and its cap covers the whole buffer; a push past
 * its data does not take it (its final size is unknown: the buffer stays
 * for the next array of its size). */
Test(value, big_data_grown_into)
{
    setenv("BRINE_THREADS", "1", 1);
    brt_start(0, NULL);
    brt_arr *a = brt_arr_unset(&brt_t_float, 100000, NULL); /* 800,000 bytes, kept when released */
    void *d = a->data;
    brt_arr_release(a);
    brt_arr *b = brt_arr_room(&brt_t_float, 20000); /* under half of it: its own */
    cr_assert_neq(b->data, d);
    for (int64_t i = 0; i < 20001; i++) BRT_COLLECT(double, b, (double)i * 0.5); /* grows: not into it */
    cr_assert_neq(b->data, d, "a push past its data leaves the kept buffer");
    cr_assert_eq(brt_tcache_here()->big, d);
    cr_assert_eq(b->len, 20001);
    for (int64_t i = 0; i < 20001; i++) cr_assert_eq(((double *)b->data)[i], (double)i * 0.5);
    brt_arr_release(b);
    /* a comprehension of 6 * 10^6 floats (48 MB) after one of 7 * 10^6: its
     * 16 MiB room is under half of the kept 56 MB, but it takes it whole */
    int64_t n = 6000000;
    brt_arr *big = brt_arr_unset(&brt_t_float, 7000000, NULL);
    void *bd = big->data;
    brt_arr_release(big);
    cr_assert_eq(brt_tcache_here()->big, bd);
    brt_arr *c = brt_arr_room(&brt_t_float, n);
    cr_assert_eq(c->data, bd, "the comprehension's room is the kept buffer");
    cr_assert_eq(c->cap, 7000000);
    for (int64_t i = 0; i < n; i++) BRT_COLLECT(double, c, (double)i);
    cr_assert_eq(c->data, bd, "no realloc");
    cr_assert_eq(((double *)c->data)[n - 1], (double)(n - 1));
    brt_arr_release(c);
    /* one of 10^6 floats past the room? no: within it, its own */
    brt_arr *e = brt_arr_room(&brt_t_float, 1000000);
    cr_assert_neq(e->data, bd);
    brt_arr_release(e);
}

/* Array data of more than 64 bytes starts on a 64-byte line: made, grown
 * past its room (realloc), made zero ([0.0] * n), and taken from the cache. */
static void assert_line(const brt_arr *a)
{
    cr_assert_eq((uintptr_t)a->data % 64, 0, "%lld elements: data at %p", (long long)a->len, a->data);
}

Test(value, data_on_a_line)
{
    setenv("BRINE_THREADS", "1", 1);
    brt_start(0, NULL);
    for (int64_t n = 9; n < 40000; n = n * 3 + 1) {
        brt_arr *a = brt_arr_unset(&brt_t_float, n, NULL);
        assert_line(a);
        for (int64_t i = 0; i < n; i++) ((double *)a->data)[i] = (double)i;
        for (int64_t k = 0; k < n; k++) { /* doubles its room a few times */
            double v = (double)(n + k);
            a = brt_arr_push(a, &v);
        }
        assert_line(a);
        for (int64_t i = 0; i < 2 * n; i++) cr_assert_eq(((double *)a->data)[i], (double)i, "kept by realloc");
        brt_arr_release(a);
        brt_arr *one = brt_arr_new(&brt_t_float, 1);
        brt_arr *z = brt_arr_repeat(one, n, NULL);
        assert_line(z);
        for (int64_t i = 0; i < n; i++) cr_assert_eq(((double *)z->data)[i], 0.0);
        brt_arr_release(z);
        brt_arr_release(one);
    }
}

/* A zero array ([0.0] * n: arr_alloc_zero) takes a freed buffer of its size
 * as any other array does, cleared: the rows of a grid of zeros rebuilt each
 * step come from the cache, not from calloc while the cache holds the last
 * grid's rows unused. */
Test(value, zero_data_reused)
{
    setenv("BRINE_THREADS", "1", 1);
    brt_start(0, NULL);
    brt_arr *a = brt_arr_unset(&brt_t_float, 998, NULL);
    for (int64_t i = 0; i < 998; i++) ((double *)a->data)[i] = 1.5;
    void *d = a->data;
    brt_arr_release(a);
    brt_arr *one = brt_arr_new(&brt_t_float, 1);
    brt_arr *z = brt_arr_repeat(one, 998, NULL);
    cr_assert_eq(z->data, d, "the freed 7984-byte buffer is the next [0.0] * 998");
    for (int64_t i = 0; i < 998; i++) cr_assert_eq(((double *)z->data)[i], 0.0, "cleared");
    brt_arr_release(z);
    brt_arr_release(one);
}

/* A grid rebuilt each step while the last one is alive (g = step(g)), with
 * more rows than the thread's cache holds (998 rows of 7984 bytes, 8 MB):
 * the rows the cache has no room for go back to malloc, which serves the
 * next grid's rows from them, so the heap stops growing once two grids and
 * the cache fit in it (aligned_alloc'ed rows could not be served from the
 * freed ones: the heap grew for five more steps, a page fault per 4 KiB). */
static brt_arr *grid(int64_t rows, int64_t cols, double v)
{
    brt_arr *g = brt_arr_room(&T_arr_float, rows);
    for (int64_t i = 0; i < rows; i++) {
        brt_arr *r = brt_arr_unset(&brt_t_float, cols, NULL);
        for (int64_t j = 0; j < cols; j++) ((double *)r->data)[j] = v;
        BRT_COLLECT(brt_arr *, g, r);
    }
    return g;
}

Test(value, rebuilt_grid_heap_settles)
{
    setenv("BRINE_THREADS", "1", 1);
    brt_start(0, NULL);
    brt_arr *g = grid(998, 998, 0.0);
    size_t settled = 0;
    for (int step = 1; step <= 8; step++) {
        brt_arr *h = grid(998, 998, (double)step);
        brt_arr_release(g);
        g = h;
        if (step == 2)
            settled = mallinfo2().arena;
    }
    cr_assert_eq(mallinfo2().arena, settled, "the heap grew after step 2: %zu -> %zu bytes", settled, mallinfo2().arena);
    cr_assert_eq(((double *)BRT_AT(brt_arr *, g, 997)->data)[997], 8.0);
    brt_arr_release(g);
}

/* brt_arr_grow_unset (fill's growing push loops): grown in place by n
 * slots, one reserve; a shared array is copied first and the other holder
 * keeps its elements; rows are null (a release passes over them); n <= 0
 * changes nothing. */
Test(value, grow_unset)
{
    brt_arr *a = brt_arr_new(&brt_t_int, 3);
    for (int64_t i = 0; i < 3; i++) ((int64_t *)a->data)[i] = i + 1;
    brt_arr *shared = a;
    brt_retain(shared);
    brt_arr_grow_unset(&a, 1000);
    cr_assert_neq(a, shared, "a shared array is copied before it grows");
    cr_assert_eq(shared->len, 3);
    cr_assert_eq(a->len, 1003);
    cr_assert_geq(a->cap, 1003);
    for (int64_t i = 0; i < 3; i++) cr_assert_eq(((int64_t *)a->data)[i], i + 1);
    for (int64_t i = 3; i < 1003; i++) ((int64_t *)a->data)[i] = 7 * i;
    void *d = a->data;
    int64_t cap = a->cap;
    brt_arr_grow_unset(&a, 0);
    brt_arr_grow_unset(&a, -5);
    cr_assert(a->len == 1003 && a->data == d && a->cap == cap, "n <= 0: nothing");
    cr_assert_eq(((int64_t *)a->data)[1002], 7 * 1002);
    brt_arr_release(shared);
    brt_arr_release(a);

    brt_arr *rows = brt_arr_room(&T_arr_int, 1);
    BRT_COLLECT(brt_arr *, rows, brt_arr_new(&brt_t_int, 2));
    brt_arr_grow_unset(&rows, 5);
    cr_assert_eq(rows->len, 6);
    for (int64_t i = 1; i < 6; i++) cr_assert_null(((brt_arr **)rows->data)[i], "row %lld null", (long long)i);
    ((brt_arr **)rows->data)[3] = brt_arr_new(&brt_t_int, 4);
    brt_arr_release(rows); /* releases rows 0 and 3, passes over the nulls */
}
