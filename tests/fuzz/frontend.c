/*
 * tests/fuzz/frontend.c: the compiler's front end on one source text, in
 * process, for coverage-guided fuzzing (AFL++) and the smoke run of make check.
 *
 *   frontend FILE.br   load (lexer, parser, imports) -> check -> lower ->
 *                      ir_verify -> optimize -> emit_program (C text only,
 *                      no C compiler)
 *
 * The compiler's own exits are the verdicts: 0 the text compiled, 1 a
 * compile error (a diagnostic on stderr), 70 an internal error. A signal
 * (a crash, or an abort of ASan/UBSan) is a bug; so is 70, which the
 * harness turns into abort() so AFL++ records it as a crash too.
 *
 * Built with afl-clang-fast (make fuzz-frontend) the harness starts AFL++'s
 * fork server after the process is set up (__AFL_INIT), so every input runs
 * in a fresh fork: the arenas, the diagnostics and exit(1) need no reset.
 * Built with gcc and ASan/UBSan (make check-fuzz-smoke) it is an ordinary
 * program run once per corpus file. The stdlib directory is taken from
 * BRINE_FUZZ_STDLIB (default build/lib/brine/stdlib), so `import math`
 * reaches the real module.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "brine.h"

#ifndef __AFL_INIT
#define __AFL_INIT() \
    do {             \
    } while (0)
#endif

/* An internal error (exit 70) is a bug like a crash: make it one. */
static void internal_is_a_crash(int status, void *arg)
{
    (void)arg;
    if (status == 70)
        abort();
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s FILE.br\n", argv[0]);
        return 2;
    }
    const char *stdlib_dir = getenv("BRINE_FUZZ_STDLIB");
    if (!stdlib_dir || !*stdlib_dir)
        stdlib_dir = "build/lib/brine/stdlib";
    on_exit(internal_is_a_crash, NULL);
    __AFL_INIT();

    struct program *prog = load_program(argv[1], stdlib_dir);
    check_program(prog);
    struct ir_program *ir = lower_program(prog);
    ir_verify(ir);
    optimize(ir, NULL);
    struct emit_result made = emit_program(ir);
    return made.c && made.c_len ? 0 : 3;
}
