/*
 * outputs.c: the files brine reads and writes for the driver (main.c): the
 * source file checks, the output files of a build, and the release build's
 * temporary C file.
 *
 * Problems here are the user's (exit 2, one line "brine: ..."), never a
 * compile error: a program with errors leaves nothing behind, and a bad -o
 * is reported before any C compiler runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "driver.h"

/* The source file must exist, be a regular file and end in .br (the
 * default output name is the file without .br, so anything else could
 * overwrite the source). */
void require_source(const char *path)
{
    size_t n = strlen(path);
    if (n < 4 || strcmp(path + n - 3, ".br") != 0 || path[n - 4] == '/')
        command_line_error("expected a source file ending in .br, got '%s'", path);
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "brine: cannot read '%s': %s\n", path, strerror(errno));
        exit(EXIT_USAGE);
    }
    if (!S_ISREG(st.st_mode)) {
        fprintf(stderr, "brine: cannot read '%s': not a regular file\n", path);
        exit(EXIT_USAGE);
    }
    if (access(path, R_OK) != 0) {
        fprintf(stderr, "brine: cannot read '%s': %s\n", path, strerror(errno));
        exit(EXIT_USAGE);
    }
}

void write_file(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
        fprintf(stderr, "brine: cannot write '%s': %s\n", path, strerror(errno));
        exit(EXIT_USAGE);
    }
}

/* An output that exists and is the same file as a loaded source (by device
 * and inode: names can differ through links) would destroy the program. */
static void refuse_input(const struct program *prog, const char *out)
{
    struct stat o;
    if (!out || stat(out, &o) != 0)
        return;
    for (int i = 0; i < prog->modules.len; i++) {
        const struct module *m = prog->modules.items[i];
        struct stat in;
        if (stat(m->file_path, &in) == 0 && in.st_dev == o.st_dev && in.st_ino == o.st_ino) {
            fprintf(stderr, "brine: the output file '%s' would overwrite the input file '%s'\n", out,
                    m->path);
            exit(EXIT_USAGE);
        }
    }
}

void check_outputs(const struct program *prog, const struct build_outputs *outs)
{
    refuse_input(prog, outs->exe);
    refuse_input(prog, outs->c);
    refuse_input(prog, outs->cu);
}

/* Can we write the output at all? Asked after compiling, so that a program
 * with errors leaves nothing behind, and before the C compiler, so that a
 * bad -o is the user's error (exit 2) rather than the compiler's. Unlinks
 * first: an old copy of the program may be running (ETXTBSY). */
void prepare_output(const char *out)
{
    if (unlink(out) != 0 && errno != ENOENT) {
        fprintf(stderr, "brine: cannot replace '%s': %s\n", out, strerror(errno));
        exit(EXIT_USAGE);
    }
    int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0755);
    if (fd < 0) {
        fprintf(stderr, "brine: cannot write '%s': %s\n", out, strerror(errno));
        exit(EXIT_USAGE);
    }
    close(fd);
}

/* The release build's temporary C file; removed at exit, also when the C
 * compiler fails and backend.c exits from inside. */
static char *temp_c_path;
static void remove_temp_c(void)
{
    if (temp_c_path)
        unlink(temp_c_path);
}

const char *write_temp_c(const char *c_text, size_t len)
{
    const char *tmp = getenv("TMPDIR");
    char *tpl = arena_printf("%s/brine-XXXXXX.c", tmp && *tmp ? tmp : "/tmp");
    int fd = mkstemps(tpl, 2);
    if (fd < 0) {
        fprintf(stderr, "brine: cannot create a temporary file in %s: %s\n", tmp && *tmp ? tmp : "/tmp",
                strerror(errno));
        exit(EXIT_INTERNAL);
    }
    temp_c_path = tpl;
    atexit(remove_temp_c);
    FILE *f = fdopen(fd, "wb");
    bool ok = f && fwrite(c_text, 1, len, f) == len;
    if (!f || fclose(f) != 0 || !ok) {
        fprintf(stderr, "brine: cannot write '%s': %s\n", tpl, strerror(errno));
        exit(EXIT_INTERNAL);
    }
    return tpl;
}

/* Reads a whole file (source_add copies it and adds the lexer's padding). */
char *read_source(const char *path, size_t *len)
{
    char *text = read_file(path, len);
    if (!text) {
        fprintf(stderr, "brine: cannot read '%s': %s\n", path, strerror(errno));
        exit(EXIT_USAGE);
    }
    return text;
}

