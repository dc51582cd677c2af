#!/usr/bin/env python3
"""The lists in the user docs against the compiler's own tables, so a
keyword, builtin, method, math function, environment variable or exit status
added to brine cannot be missing from the docs (or stay there once removed).

The tables, read from the sources:
  keywords      parser.y's %token aliases that are words ("'fn'"), which must
                also be exactly lexer.re's keyword rules
  builtins      brine.h's BUILTINS rows of kind BK_FN and BK_ITER, and the
                math functions
  math          runtime/brine_math.h's BRT_MATH rows, by arity
  methods       BUILTINS rows of kind BK_METHOD
  os, world     BUILTINS rows of kind BK_OS, BK_WORLD
  environment   every getenv("BRINE_...") in compiler/, runtime/, runtime-gpu/
  exit statuses driver.h's EXIT_* values, the runtime's 101 (a panic) and 2
                (a bad environment variable)

A list in a page stands between `<!-- list: NAME -->` and `<!-- end list -->`:
its items are the words inside backticks (a backtick span may hold several,
separated by spaces). brine.1's ENVIRONMENT entries (.It Ev NAME) are checked
as a list, and its EXIT STATUS section must name every status.

    python3 tests/tools/check_doc_lists.py
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def read(rel):
    with open(os.path.join(ROOT, rel)) as f:
        return f.read()


def tables():
    t = {}
    parser = read("compiler/parser.y")
    decls, in_token = [], False
    for line in parser.split("\n"):
        in_token = line.startswith("%token") or (in_token and line[:1].isspace() and line.strip() != "")
        if in_token:
            decls.append(line)
    t["keywords"] = set(re.findall(r"\"'([A-Za-z]+)'\"", "\n".join(decls)))
    lexer = set(re.findall(r'^\s+"([A-Za-z]+)"\s+\{ set_token\(L, t, TK_', read("compiler/lexer.re"), re.M))
    t["lexer keywords"] = lexer
    math = re.findall(r"X\(P, (\w+), (\d), \d\)", read("runtime/brine_math.h"))
    t["math 1"] = {n for n, a in math if a == "1"}
    t["math 2"] = {n for n, a in math if a == "2"}
    rows = re.findall(r'X\((?:BI|M)_\w+, "([^"]+)", (BK_\w+),', read("compiler/brine.h"))
    kind = lambda *ks: {n for n, k in rows if k in ks}
    t["builtins"] = kind("BK_FN", "BK_ITER") | t["math 1"] | t["math 2"]
    t["methods"] = kind("BK_METHOD")
    t["os"] = kind("BK_OS")
    t["world"] = kind("BK_WORLD")
    env, program_env = set(), set()
    for d in ("compiler", "runtime", "runtime-gpu"):
        for f in sorted(os.listdir(os.path.join(ROOT, d))):
            if f.endswith((".c", ".h", ".re", ".y")):
                names = set(re.findall(r'getenv\("(BRINE_\w+)"\)', read(os.path.join(d, f))))
                env |= names
                if d != "compiler":
                    program_env |= names
    t["environment"] = env
    t["program environment"] = program_env
    t["brine exit statuses"] = {0} | {int(v) for v in re.findall(r"EXIT_\w+ = (\d+)", read("compiler/driver.h"))}
    t["exit statuses"] = t["brine exit statuses"] | {101, 2}
    return t


def marked_lists(rel):
    """{name: (line, set of items)} of one page's marked lists."""
    text = read(rel)
    out = {}
    for m in re.finditer(r"<!-- list: ([a-z][a-z0-9 ]*) -->(.*?)<!-- end list -->", text, re.S):
        items = set()
        for span in re.findall(r"`([^`]+)`", m.group(2)):
            shape = r"BRINE_\w+" if "environment" in m.group(1) or "hooks" in m.group(1) else r"[A-Za-z_][\w.]*"
            items |= {w for w in span.split() if re.fullmatch(shape, w)}
        out.setdefault(m.group(1), []).append((text[:m.start()].count("\n") + 1, items))
    return out


def main():
    t = tables()
    failed = checked = 0

    def compare(where, name, have, want):
        nonlocal failed, checked
        checked += 1
        if have != want:
            failed += 1
            print(f"FAIL {where}: list '{name}'"
                  + (f"; missing {' '.join(sorted(map(str, want - have)))}" if want - have else "")
                  + (f"; not in brine {' '.join(sorted(map(str, have - want)))}" if have - want else ""))
        else:
            print(f"ok   {where}: {name} ({len(want)})")

    compare("compiler/lexer.re", "keywords", t["lexer keywords"], t["keywords"])
    # which list each page must have; a page may hold a list more than once
    want_lists = {
        "docs/language.md": ["keywords", "math 1", "math 2", "methods", "program environment"],
        "docs/stdlib.md": ["builtins", "os", "world"],
        "docs/tutorial.md": [],
        "docs/testing.md": ["test hooks"],
    }
    hooks = set()
    for found in marked_lists("docs/testing.md").get("test hooks", []):
        hooks |= found[1]
    t["program environment"] -= hooks
    for rel, names in want_lists.items():
        lists = marked_lists(rel)
        for name in names:
            if name not in lists:
                failed += 1
                print(f"FAIL {rel}: no <!-- list: {name} --> section")
        for name, found in lists.items():
            for line, items in found:
                if name == "test hooks":
                    continue
                if name not in t:
                    failed += 1
                    print(f"FAIL {rel}:{line}: no table named '{name}'")
                    continue
                compare(f"{rel}:{line}", name, items, t[name])
    man = read("brine.1")
    envsec = man[man.index(".Sh ENVIRONMENT"):man.index(".Sh FILES")]
    man_env = set(re.findall(r"^\.It Ev (BRINE_\w+)", envsec, re.M))
    compare("brine.1 ENVIRONMENT", "environment (and testing.md's test hooks)", man_env | hooks,
            t["environment"])
    exitsec = man[man.index(".Sh EXIT STATUS"):man.index(".Sh EXAMPLES")]
    compare("brine.1 EXIT STATUS", "exit statuses",
            {int(n) for n in re.findall(r"\b(\d+)\b", exitsec)} & t["exit statuses"], t["exit statuses"])
    cli = read("docs/cli.md")
    table = cli[cli.index("## Exit statuses"):]
    cli = read("docs/cli.md")
    table = cli[cli.index("## Exit statuses"):]
    compare("docs/cli.md Exit statuses", "brine exit statuses",
            {int(n) for n in re.findall(r"^\| (\d+) \|", table, re.M)}, t["brine exit statuses"])
    print(f"{checked} lists checked, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
