/*
 * load.c: the program and its imports.
 *
 * load_program reads the main file, parses it, then follows `import NAME`
 * depth first: `os` is built in; otherwise NAME.br beside the importing file,
 * else stdlib_dir/NAME.br. Each module is loaded once (by name), so cycles
 * are fine. program->modules lists a module after everything it imports
 * (except along a cycle), main last, which is the order the checker and the
 * code generator want for top-level constants.
 *
 * Display names: the main file as given on the command line, a beside-file
 * module as dirname(importer)/NAME.br, a stdlib module as "stdlib/NAME.br",
 * so messages and panics never print an absolute path of the installation.
 */
#include "brine.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct loader {
    struct program *prog;
    const char *stdlib_dir;
    struct map loaded; /* name -> every module loaded or being loaded */
};

static bool file_exists(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    fclose(f);
    return true;
}

/* The directory part of path with a trailing '/', or "" for a bare name. */
static const char *dir_prefix(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return "";
    return arena_strndup(path, (size_t)(slash - path) + 1);
}

/* The module in text (the file's contents, or NULL: read real_path). */
static struct module *load_module(struct loader *ld, const char *real_path, const char *display,
                                  const char *name, struct node *importer, const char *given, size_t given_len)
{
    size_t len = given_len;
    char *text = given ? NULL : read_file(real_path, &len);
    if (!text && !given) {
        if (importer)
            error_at(importer->loc, "cannot read '%s': %s", display, strerror(errno));
        usage_error("cannot read '%s': %s", display, strerror(errno));
    }
    int file = source_add(display, given ? given : text, len);
    free(text);
    struct module *m = parse_file(file, name);
    m->file_path = real_path;
    map_put_str(&ld->loaded, name, m);

    const char *dir = dir_prefix(real_path);
    const char *display_dir = dir_prefix(display);
    for (int i = 0; i < m->decls.len; i++) {
        struct node *d = m->decls.items[i];
        if (d->kind != N_IMPORT)
            continue;
        const char *iname = d->u.import.name;
        if (strcmp(iname, "os") == 0)
            continue; /* built in: import.module stays NULL */
        struct module *dep = map_get_str(&ld->loaded, iname);
        if (!dep) {
            const char *beside = arena_printf("%s%s.br", dir, iname);
            const char *in_stdlib = ld->stdlib_dir ? arena_printf("%s/%s.br", ld->stdlib_dir, iname) : NULL;
            if (file_exists(beside))
                dep = load_module(ld, beside, arena_printf("%s%s.br", display_dir, iname), iname, d, NULL, 0);
            else if (in_stdlib && file_exists(in_stdlib)) {
                dep = load_module(ld, in_stdlib, arena_printf("stdlib/%s.br", iname), iname, d, NULL, 0);
                dep->in_stdlib = true;
            }
            else
                error_at(d->loc, "no module named '%s'", iname);
        }
        d->u.import.module = dep;
    }
    vec_push(&ld->prog->modules, m);
    return m;
}

struct program *load_program(const char *path, const char *stdlib_dir)
{
    struct loader ld = {0};
    ld.prog = arena_alloc(sizeof *ld.prog);
    ld.stdlib_dir = stdlib_dir;
    ld.prog->main = load_module(&ld, path, path, "main", NULL, NULL, 0);
    return ld.prog;
}

/* The main module from memory (`brine run -`): named display, its imports
 * beside the working directory. */
struct program *load_program_text(const char *display, const char *text, size_t len, const char *stdlib_dir)
{
    struct loader ld = {0};
    ld.prog = arena_alloc(sizeof *ld.prog);
    ld.stdlib_dir = stdlib_dir;
    ld.prog->main = load_module(&ld, display, display, "main", NULL, text, len);
    return ld.prog;
}
