/*
 * ctext.h: C text helpers shared by the two emitters (emit_c.c and its
 * rooms, emit_cuda.c): literals, escapes, names of the integer forms, and
 * the line printer. Both emitters write C that gcc, tcc and NVRTC read, so
 * a literal or an escape is written one way for all of them.
 */
#ifndef BRINE_CTEXT_H
#define BRINE_CTEXT_H
#include "ir.h"

#include <stdarg.h>

/* A C string literal of the bytes s[0..len): "..." with every byte that is
 * not printable ASCII (and '?', against trigraphs) as an octal escape. */
void c_string(struct buf *b, const char *s, size_t len);
/* The same for a NUL-terminated text, one C literal per source line
 * (indented by four spaces), so an embedded kernel stays readable. */
void c_string_lines(struct buf *b, const char *s);

/* An integer literal of type t from its two's complement bits: int64_t and
 * uint64_t literals, INT64_MIN spelled without overflow, i128 as
 * brt_i128_make(lo, hi) (the C emitter only). */
const char *int_lit(struct type *t, unsigned __int128 v);
/* A float literal from its bits: fn(0x...ULL), where fn turns bits into a
 * double (bp_f64 in C, brk_f64 on the GPU): every compiler reads it exactly. */
const char *float_bits_lit(const char *fn, double d);

/* The suffix of the runtime's and the GPU prelude's integer and float
 * forms: i64, u64, i128, f64 (NULL for other types). */
const char *num_suffix(struct type *t);

/* Appends one line to b: ind levels of four spaces, the printf text, '\n'. */
void bvline(struct buf *b, int ind, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));

#endif
