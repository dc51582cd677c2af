/*
 * driver.h: the driver's pieces shared by main.c, backend.c and testrun.c.
 *
 *   main.c      the command line (SPEC section 10) and the pipeline as one
 *               list of calls, ending in the C back end
 *   paths.c     where the installation lives (runtime, header, stdlib)
 *   outputs.c   the files the driver checks, reads and writes
 *   backend.c   the C back ends: libtcc for dev builds (to a file or into
 *               memory for `brine run`), $CC for --release
 *   testrun.c   `brine test`: golden tests, run by spawning this binary
 * None of them calls back into main.c.
 *
 * Exit statuses of brine (SPEC section 7): 0 ok, 1 compile error, 2 usage
 * error or missing file, 70 internal error.
 */
#ifndef BRINE_DRIVER_H
#define BRINE_DRIVER_H
#include "brine.h"

enum {
    EXIT_COMPILE = 1,
    EXIT_USAGE = 2,
    EXIT_INTERNAL = 70,
};

/* Where the installation lives, found from realpath(/proc/self/exe):
 * <bindir>/../lib/brine. The build tree (build/bin, build/lib/brine)
 * mirrors the installed tree. */
struct brine_paths {
    const char *exe;     /* this binary, absolute */
    const char *libdir;  /* .../lib/brine */
    const char *incdir;  /* .../lib/brine/include (brine_rt.h) */
    const char *rtlib;   /* .../lib/brine/libbrine_rt.a */
    const char *stdlib;  /* .../lib/brine/stdlib */
};
const struct brine_paths *brine_paths(void); /* paths.c; computed once */
/* A broken installation (no runtime or header) is an internal error, 70. */
void require_runtime(void);

/* ---- outputs.c ----------------------------------------------------------- */

/* The source file must exist, be a regular file and end in .br (the
 * default output name is the file without .br). Else exit 2. */
void require_source(const char *path);
/* Reads a whole source file; exit 2 when it cannot. */
char *read_source(const char *path, size_t *len);
/* Writes a whole file; exit 2 when it cannot. */
void write_file(const char *path, const char *data, size_t len);
/* The files a build writes: the executable, and OUT.c (--emit-c) and
 * OUT.cu (--emit-cuda), NULL when not asked for. */
struct build_outputs {
    const char *exe, *c, *cu;
};
/* Refuses (exit 2, before anything is written) an output that is one of
 * the program's source files, the main one or any module it loaded: same
 * device and inode, so a symlink or a hard link is caught too. */
void check_outputs(const struct program *prog, const struct build_outputs *outs);
/* Makes sure the output can be written (exit 2 if not), before any C
 * compiler runs. */
void prepare_output(const char *out);
/* The C text in a private temporary file, removed at exit; its path. */
const char *write_temp_c(const char *c_text, size_t len);

/* ---- backend.c ----------------------------------------------------------- */

/* Dev build with libtcc: the C text (NUL-terminated) to an executable. */
void backend_dev_build(const char *c_text, const char *out_path);
/* Dev build into memory, then call its main(argc, argv); returns main's
 * result (the program may also exit by itself). */
int backend_dev_run(const char *c_text, int argc, char **argv);
/* Release build: c_path (a file holding the C) to an executable with $CC. */
void backend_release_build(const char *c_path, const char *out_path);

/* A C compiler refused the generated C: a bug in brine. Prints
 * "brine: internal error: the C compiler rejected the generated C" and the
 * compiler's messages, exits 70. */
_Noreturn void backend_rejected(const char *messages);

/* ---- testrun.c ----------------------------------------------------------- */

/* `brine test [PATH...] [options]`: args are the words after "test".
 * Returns the exit status (0 all passed, 1 some failed, 2 usage). */
int test_main(int argc, char **argv);

#endif
