/* Checked integer arithmetic at the type limits (SPEC 4), i128 against
 * gcc's __int128, conversions (SPEC 3), and that overflow paths panic with
 * the right message and status 101 (SPEC 7). */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <math.h>
#include <string.h>

#include "brine_rt.h"
#include "run_child.h"

static const brt_loc L = { "ov.br", 8, 11 };

typedef __int128 i128;
static brt_i128 W(i128 v) { return brt_i128_make((uint64_t)v, (uint64_t)((unsigned __int128)v >> 64)); }
static i128 V(brt_i128 v) { return (i128)(((unsigned __int128)v.hi << 64) | v.lo); }
#define I128_MAX ((i128)(~(unsigned __int128)0 >> 1))
#define I128_MIN (-I128_MAX - 1)

Test(arith, i64_limits_ok)
{
    cr_expect_eq(brt_add_i64(INT64_MAX - 1, 1, &L), INT64_MAX);
    cr_expect_eq(brt_add_i64(INT64_MIN, INT64_MAX, &L), -1);
    cr_expect_eq(brt_sub_i64(INT64_MIN + 1, 1, &L), INT64_MIN);
    cr_expect_eq(brt_sub_i64(-1, INT64_MAX, &L), INT64_MIN);
    cr_expect_eq(brt_mul_i64(INT64_MIN, 1, &L), INT64_MIN);
    cr_expect_eq(brt_mul_i64(-1, INT64_MAX, &L), -INT64_MAX);
    cr_expect_eq(brt_mul_i64_slow(3037000499, 3037000499, &L), 9223372030926249001);
    cr_expect_eq(brt_mul_i64_slow(INT64_MIN, 1, &L), INT64_MIN);
    cr_expect_eq(brt_div_i64(INT64_MIN, 1, &L), INT64_MIN);
    cr_expect_eq(brt_div_i64(-7, 2, &L), -3);
    cr_expect_eq(brt_mod_i64(-7, 2, &L), -1);
    cr_expect_eq(brt_mod_i64(7, -2, &L), 1);
    cr_expect_eq(brt_mod_i64(INT64_MIN, -1, &L), 0);
    cr_expect_eq(brt_neg_i64(INT64_MAX, &L), -INT64_MAX);
    cr_expect_eq(brt_abs_i64(INT64_MIN + 1, &L), INT64_MAX);
    cr_expect_eq(brt_shl_i64(1, 63, &L), INT64_MIN);
    cr_expect_eq(brt_shr_i64(INT64_MIN, 63, &L), -1);
    cr_expect_eq(brt_wrapping_add_i64(INT64_MAX, 1), INT64_MIN);
    cr_expect_eq(brt_wrapping_neg_i64(INT64_MIN), INT64_MIN);
}

Test(arith, u64_limits_ok)
{
    cr_expect_eq(brt_add_u64(UINT64_MAX - 1, 1, &L), UINT64_MAX);
    cr_expect_eq(brt_sub_u64(5, 5, &L), 0);
    cr_expect_eq(brt_mul_u64(UINT64_MAX, 1, &L), UINT64_MAX);
    cr_expect_eq(brt_mul_u64_slow(4294967296ull, 4294967295ull, &L), 18446744069414584320ull);
    cr_expect_eq(brt_div_u64(UINT64_MAX, 2, &L), UINT64_MAX / 2);
    cr_expect_eq(brt_mod_u64(UINT64_MAX, 10, &L), 5);
    cr_expect_eq(brt_neg_u64(0, &L), 0);
    cr_expect_eq(brt_shr_u64(UINT64_MAX, 63, &L), 1);
    cr_expect_eq(brt_rotl_u64(0x8000000000000001ull, 1), 3);
    cr_expect_eq(brt_rotr_u64(3, 65), 0x8000000000000001ull);
    cr_expect_eq(brt_count_ones_u64(UINT64_MAX), 64);
    cr_expect_eq(brt_leading_zeros_u64(0), 64);
    cr_expect_eq(brt_leading_zeros_u64(1), 63);
    cr_expect_eq(brt_trailing_zeros_u64(0), 64);
    cr_expect_eq(brt_trailing_zeros_u64(8), 3);
}

Test(arith, i128_ops)
{
    cr_expect(V(brt_add_i128(W(I128_MAX - 1), W(1), &L)) == I128_MAX);
    cr_expect(V(brt_sub_i128(W(I128_MIN + 1), W(1), &L)) == I128_MIN);
    cr_expect(V(brt_mul_i128(W((i128)1 << 100), W(-4), &L)) == -((i128)1 << 102));
    cr_expect(V(brt_mul_i128(W(I128_MIN), W(1), &L)) == I128_MIN);
    cr_expect(V(brt_div_i128(W(-7), W(2), &L)) == -3);
    cr_expect(V(brt_mod_i128(W(-7), W(2), &L)) == -1);
    cr_expect(V(brt_mod_i128(W(I128_MIN), W(-1), &L)) == 0);
    cr_expect(V(brt_neg_i128(W(I128_MAX), &L)) == -I128_MAX);
    cr_expect(V(brt_abs_i128(W(-5), &L)) == 5);
    cr_expect(V(brt_shl_i128(W(1), 127, &L)) == I128_MIN);
    cr_expect(V(brt_shr_i128(W(I128_MIN), 127, &L)) == -1);
    cr_expect(V(brt_shr_i128(W(I128_MIN), 64, &L)) == -((i128)1 << 63));
    cr_expect(V(brt_and_i128(W(-1), W(12345))) == 12345);
    cr_expect(V(brt_or_i128(W((i128)1 << 70), W(1))) == (((i128)1 << 70) | 1));
    cr_expect(V(brt_xor_i128(W(-1), W(0))) == -1);
    cr_expect(V(brt_not_i128(W(0))) == -1);
    cr_expect_eq(brt_cmp_i128(W(I128_MIN), W(I128_MAX)), -1);
    cr_expect_eq(brt_cmp_i128(W(-1), W(-1)), 0);
    cr_expect_eq(brt_cmp_i128(W((i128)1 << 64), W(UINT64_MAX)), 1);
    cr_expect(V(brt_wrapping_add_i128(W(I128_MAX), W(1))) == I128_MIN);
    cr_expect(V(brt_wrapping_sub_i128(W(I128_MIN), W(1))) == I128_MAX);
    cr_expect(V(brt_wrapping_mul_i128(W(I128_MAX), W(2))) == -2);
    cr_expect(V(brt_wrapping_neg_i128(W(I128_MIN))) == I128_MIN);
    cr_expect(V(brt_rotl_i128(W(I128_MIN), 1)) == 1);
    cr_expect(V(brt_rotr_i128(W(1), 129)) == I128_MIN);
    cr_expect_eq(brt_count_ones_i128(W(-1)), 128);
    cr_expect_eq(brt_leading_zeros_i128(W(0)), 128);
    cr_expect_eq(brt_leading_zeros_i128(W(1)), 127);
    cr_expect_eq(brt_trailing_zeros_i128(W(0)), 128);
    cr_expect_eq(brt_trailing_zeros_i128(W((i128)1 << 100)), 100);
    cr_expect(V(brt_i128_from_i64(INT64_MIN)) == INT64_MIN);
    cr_expect(V(brt_i128_from_u64(UINT64_MAX)) == (i128)UINT64_MAX);
}

Test(arith, conversions_ok)
{
    cr_expect_eq(brt_f2i(-2.9, &L), -2);
    cr_expect_eq(brt_f2i(-0x1p63, &L), INT64_MIN);
    cr_expect_eq(brt_f2i(0x1p63 - 1024, &L), INT64_MAX - 1023);
    cr_expect_eq(brt_f2u64(-0.5, &L), 0);
    cr_expect_eq(brt_f2u64(0x1p64 - 2048, &L), UINT64_MAX - 2047);
    cr_expect(V(brt_f2i128(-0x1p127, &L)) == I128_MIN);
    cr_expect(V(brt_f2i128(1e30, &L)) == (i128)1000000000000000019884624838656.0);
    cr_expect_eq(brt_u64_to_f(UINT64_MAX), 0x1p64);
    cr_expect_eq(brt_u64_to_f((1ull << 53) + 1), 0x1p53); /* ties to even */
    cr_expect_eq(brt_i128_to_f(W(I128_MIN)), -0x1p127);
    cr_expect_eq(brt_i128_to_f(W(((i128)1 << 80) + ((i128)1 << 27) + 1)), 0x1p80 + 0x1p28);
    cr_expect_eq(brt_i64_to_u64(INT64_MAX, &L), (uint64_t)INT64_MAX);
    cr_expect_eq(brt_u64_to_i64((uint64_t)INT64_MAX, &L), INT64_MAX);
    cr_expect_eq(brt_i128_to_i64(W(INT64_MIN), &L), INT64_MIN);
    cr_expect_eq(brt_i128_to_u64(W(UINT64_MAX), &L), UINT64_MAX);
}

Test(arith, math_wrappers)
{
    cr_expect_eq(brt_round(2.5), 3.0);
    cr_expect_eq(brt_round(-2.5), -3.0);
    cr_expect_eq(brt_round(0.49999999999999994), 0.0);
    cr_expect_eq(brt_floor(-1.5), -2.0);
    cr_expect_eq(brt_ceil(-1.5), -1.0);
    cr_expect_eq(brt_trunc(-1.5), -1.0);
    cr_expect_eq(brt_sqrt(2.0), sqrt(2.0));
    cr_expect_eq(brt_hypot(3, 4), 5.0);
    cr_expect(fabs(brt_cbrt(27.0) - 3.0) < 1e-15);
    cr_expect_eq(brt_cbrt(-8.0), -2.0);
    cr_expect_eq(brt_pow(2.0, 10.0), 1024.0);
    cr_expect_eq(brt_atan2(0.0, -1.0), M_PI);
    cr_expect_eq(brt_log2(8.0), 3.0);
    cr_expect_eq(brt_log10(1000.0), 3.0);
}

/* ---- panics: each case runs in a child, checked byte for byte ---- */

enum op {
    ADD_I64, SUB_I64, MUL_I64, MULSLOW_I64, DIV_I64, DIVZ_I64, MODZ_I64, NEG_I64, ABS_I64, SHL_I64,
    SHR_NEG_I64, ADD_U64, SUB_U64, MUL_U64, MULSLOW_U64, NEG_U64, SHL_U64, DIVZ_U64, ADD_I128,
    SUB_I128, MUL_I128, DIV_I128, DIVZ_I128, MODZ_I128, NEG_I128, ABS_I128, SHL_I128, F2I_NAN,
    F2I_BIG, F2I_INF, F2I_EDGE, F2U_NEG, F2U_BIG, F2I128_BIG, I2U, U2I, W2I, W2U, IDX, IDX_NEG,
};

static void do_op(void *arg)
{
    volatile int64_t big = INT64_MAX, small = INT64_MIN, zero = 0;
    volatile uint64_t ubig = UINT64_MAX;
    switch (*(enum op *)arg) {
    case ADD_I64: brt_add_i64(big, 1, &L); break;
    case SUB_I64: brt_sub_i64(small, 1, &L); break;
    case MUL_I64: brt_mul_i64(small, -1, &L); break;
    case MULSLOW_I64: brt_mul_i64_slow(3037000500, 3037000500, &L); break;
    case DIV_I64: brt_div_i64(small, -1, &L); break;
    case DIVZ_I64: brt_div_i64(1, zero, &L); break;
    case MODZ_I64: brt_mod_i64(1, zero, &L); break;
    case NEG_I64: brt_neg_i64(small, &L); break;
    case ABS_I64: brt_abs_i64(small, &L); break;
    case SHL_I64: brt_shl_i64(1, 64, &L); break;
    case SHR_NEG_I64: brt_shr_i64(1, -1, &L); break;
    case ADD_U64: brt_add_u64(ubig, 1, &L); break;
    case SUB_U64: brt_sub_u64(0, 1, &L); break;
    case MUL_U64: brt_mul_u64(ubig, 2, &L); break;
    case MULSLOW_U64: brt_mul_u64_slow(4294967296ull, 4294967296ull, &L); break;
    case NEG_U64: brt_neg_u64(1, &L); break;
    case SHL_U64: brt_shl_u64(1, 100, &L); break;
    case DIVZ_U64: brt_mod_u64(1, 0, &L); break;
    case ADD_I128: brt_add_i128(W(I128_MAX), W(1), &L); break;
    case SUB_I128: brt_sub_i128(W(I128_MIN), W(1), &L); break;
    case MUL_I128: brt_mul_i128(W((i128)1 << 64), W((i128)1 << 63), &L); break;
    case DIV_I128: brt_div_i128(W(I128_MIN), W(-1), &L); break;
    case DIVZ_I128: brt_div_i128(W(5), W(0), &L); break;
    case MODZ_I128: brt_mod_i128(W(5), W(0), &L); break;
    case NEG_I128: brt_neg_i128(W(I128_MIN), &L); break;
    case ABS_I128: brt_abs_i128(W(I128_MIN), &L); break;
    case SHL_I128: brt_shl_i128(W(1), 128, &L); break;
    case F2I_NAN: brt_f2i(NAN, &L); break;
    case F2I_BIG: brt_f2i(1e300, &L); break;
    case F2I_INF: brt_f2i(-INFINITY, &L); break;
    case F2I_EDGE: brt_f2i(0x1p63, &L); break;
    case F2U_NEG: brt_f2u64(-1.0, &L); break;
    case F2U_BIG: brt_f2u64(0x1p64, &L); break;
    case F2I128_BIG: brt_f2i128(1e39, &L); break;
    case I2U: brt_i64_to_u64(-1, &L); break;
    case U2I: brt_u64_to_i64(ubig, &L); break;
    case W2I: brt_i128_to_i64(W((i128)INT64_MAX + 1), &L); break;
    case W2U: brt_i128_to_u64(W(-1), &L); break;
    case IDX: { int64_t xs[3] = {1, 2, 3}; brt_arr *a = brt_arr_from(&brt_t_int, 3, xs); brt_idx(a, 5, &L); break; }
    case IDX_NEG: { brt_arr *a = brt_arr_new(&brt_t_int, 3); brt_idx(a, -1, &L); break; }
    }
}

Test(arith, overflow_panics)
{
    struct { enum op op; const char *msg; } cases[] = {
        {ADD_I64, "integer overflow in addition"}, {SUB_I64, "integer overflow in subtraction"},
        {MUL_I64, "integer overflow in multiplication"}, {MULSLOW_I64, "integer overflow in multiplication"},
        {DIV_I64, "integer overflow in division"}, {DIVZ_I64, "division by zero"},
        {MODZ_I64, "division by zero"}, {NEG_I64, "integer overflow in negation"},
        {ABS_I64, "integer overflow in negation"}, {SHL_I64, "shift amount out of range"},
        {SHR_NEG_I64, "shift amount out of range"}, {ADD_U64, "integer overflow in addition"},
        {SUB_U64, "integer overflow in subtraction"}, {MUL_U64, "integer overflow in multiplication"},
        {MULSLOW_U64, "integer overflow in multiplication"}, {NEG_U64, "integer overflow in negation"},
        {SHL_U64, "shift amount out of range"}, {DIVZ_U64, "division by zero"},
        {ADD_I128, "integer overflow in addition"}, {SUB_I128, "integer overflow in subtraction"},
        {MUL_I128, "integer overflow in multiplication"}, {DIV_I128, "integer overflow in division"},
        {DIVZ_I128, "division by zero"}, {MODZ_I128, "division by zero"},
        {NEG_I128, "integer overflow in negation"}, {ABS_I128, "integer overflow in negation"},
        {SHL_I128, "shift amount out of range"}, {F2I_NAN, "cannot convert nan to int"},
        {F2I_BIG, "cannot convert 1e+300 to int"}, {F2I_INF, "cannot convert -inf to int"},
        {F2I_EDGE, "cannot convert 9.223372036854776e+18 to int"},
        {F2U_NEG, "cannot convert -1.0 to u64"}, {F2U_BIG, "cannot convert 1.8446744073709552e+19 to u64"},
        {F2I128_BIG, "cannot convert 1e+39 to i128"}, {I2U, "integer overflow in conversion"},
        {U2I, "integer overflow in conversion"}, {W2I, "integer overflow in conversion"},
        {W2U, "integer overflow in conversion"},
        {IDX, "index out of bounds: the len is 3 but the index is 5"},
        {IDX_NEG, "index out of bounds: the len is 3 but the index is -1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct child_result r = run_child(do_op, &cases[i].op);
        char want[256];
        snprintf(want, sizeof want, "panic: %s\n  --> ov.br:8:11\n", cases[i].msg);
        cr_expect_eq(r.status, 101, "case %zu", i);
        cr_expect_str_eq(r.err, want, "case %zu", i);
    }
}

/* The Criterion way too: the whole test process must exit with 101. */
Test(arith, add_overflow_exits_101, .exit_code = 101, .init = cr_redirect_stderr)
{
    volatile int64_t big = INT64_MAX;
    brt_add_i64(big, 1, &L);
}

/* stdout written before a panic comes out first, whole. */
static void print_then_panic(void *unused)
{
    brt_print_int(7);
    brt_print_end();
    brt_panic(&L, BRT_OV_ADD);
}

Test(arith, panic_flushes_stdout)
{
    struct child_result r = run_child(print_then_panic, NULL);
    cr_expect_eq(r.status, 101);
    cr_expect_str_eq(r.out, "7\n");
    cr_expect_str_eq(r.err, "panic: integer overflow in addition\n  --> ov.br:8:11\n");
}

/* The runtime's own 128-bit division and conversions (it must not call
 * libgcc, which tcc does not link) against gcc's, on random operands of
 * every size. */
static uint64_t rs = 0x9E3779B97F4A7C15ull;
static uint64_t rnd64(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return rs;
}

static i128 rnd128(void)
{
    unsigned __int128 u = ((unsigned __int128)rnd64() << 64) | rnd64();
    return (i128)(u >> (rnd64() % 128)); /* all magnitudes */
}

Test(arith, i128_division_and_conversions_random)
{
    for (int i = 0; i < 200000; i++) {
        i128 x = rnd128(), y = rnd128();
        if (rnd64() & 1) x = -x;
        if (rnd64() & 1) y = -y;
        if (y == 0 || (x == I128_MIN && y == -1))
            continue;
        cr_assert(V(brt_div_i128(W(x), W(y), &L)) == x / y, "div %d", i);
        cr_assert(V(brt_mod_i128(W(x), W(y), &L)) == x % y, "mod %d", i);
        cr_assert_eq(brt_i128_to_f(W(x)), (double)x, "i128 -> float %d", i);
        double f = (double)x;
        if (f > -0x1p127 && f < 0x1p127)
            cr_assert(V(brt_f2i128(f, &L)) == (i128)f, "float -> i128 %d", i);
        cr_assert_eq(brt_count_ones_i128(W(x)), __builtin_popcountll((uint64_t)x) + __builtin_popcountll((uint64_t)((unsigned __int128)x >> 64)));
    }
    /* ties to even beyond 64 bits: 2^80 + 2^27 is exactly halfway */
    cr_assert_eq(brt_i128_to_f(W(((i128)1 << 80) + ((i128)1 << 27))), 0x1p80);
    cr_assert_eq(brt_i128_to_f(W(((i128)1 << 80) + ((i128)3 << 27))), 0x1p80 + 0x1p29);
}

/* ---- a constant operand: the overflow test reads the result alone ----
 * brt_add_i64 and brt_sub_i64 take another path when an operand is a
 * compile-time constant; each constant here meets the inputs at its edges,
 * against gcc's __builtin_*_overflow: the same sum where there is one, a
 * panic where there is not. */
static volatile int64_t k_input;

#define K_CONSTANTS(X) X(p1, 1) X(p2, 2) X(p7, 7) X(p2e32, 4294967296LL) X(pmax, INT64_MAX) \
    X(m1, -1) X(m7, -7) X(mmin1, INT64_MIN + 1) X(mmin, INT64_MIN)
#define K_CHILDREN(name, K) \
    static void add_r_##name(void *u) { (void)u; brt_add_i64(k_input, K, &L); } \
    static void add_l_##name(void *u) { (void)u; brt_add_i64(K, k_input, &L); } \
    static void sub_r_##name(void *u) { (void)u; brt_sub_i64(k_input, K, &L); }
K_CONSTANTS(K_CHILDREN)

static int k_edges(int64_t k, int64_t *a)
{
    const uint64_t mx = INT64_MAX, mn = (uint64_t)INT64_MIN, uk = (uint64_t)k;
    const uint64_t centres[] = {mn, mx, 0, mx - uk, mn - uk, mx + uk, mn + uk};
    int n = 0;
    for (size_t c = 0; c < sizeof centres / sizeof centres[0]; c++)
        for (int d = -2; d <= 2; d++)
            a[n++] = (int64_t)(centres[c] + (uint64_t)(int64_t)d);
    return n;
}

static void k_expect(int64_t got_or_panic, bool ovf, int64_t want, void (*child)(void *),
                     const char *msg, const char *what, int64_t a)
{
    if (!ovf) {
        cr_expect_eq(got_or_panic, want, "%s with a = %lld", what, (long long)a);
        return;
    }
    k_input = a;
    struct child_result r = run_child(child, NULL);
    char exp[128];
    snprintf(exp, sizeof exp, "panic: %s\n  --> ov.br:8:11\n", msg);
    cr_expect_eq(r.status, 101, "%s with a = %lld", what, (long long)a);
    cr_expect_str_eq(r.err, exp, "%s with a = %lld", what, (long long)a);
}

#define K_CHECK(name, K) \
    do { \
        int64_t as[40]; \
        int n = k_edges(K, as); \
        for (int i = 0; i < n; i++) { \
            k_input = as[i]; \
            int64_t a = k_input, want; \
            bool ovf = __builtin_add_overflow(a, (int64_t)(K), &want); \
            k_expect(ovf ? 0 : brt_add_i64(k_input, K, &L), ovf, want, add_r_##name, \
                     "integer overflow in addition", "a + " #K, a); \
            k_expect(ovf ? 0 : brt_add_i64(K, k_input, &L), ovf, want, add_l_##name, \
                     "integer overflow in addition", #K " + a", a); \
            ovf = __builtin_sub_overflow(a, (int64_t)(K), &want); \
            k_expect(ovf ? 0 : brt_sub_i64(k_input, K, &L), ovf, want, sub_r_##name, \
                     "integer overflow in subtraction", "a - " #K, a); \
        } \
    } while (0);

Test(arith, constant_operand_edges)
{
    K_CONSTANTS(K_CHECK)
}
