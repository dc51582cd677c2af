#!/usr/bin/env python3
"""tests/lsp/test_lsp.py BRINE: the language server against the golden programs.

Every golden program is opened in one `brine lsp` session and its diagnostics
are compared with the golden's expected compile errors (each "error: MSG" and
its "--> FILE:LINE:COL" in the .err file must be published at that place with
that message; a program that compiles must get no error). On the programs that
compile, every feature is asked about the names the text shows:
  hover         on each `fn NAME` (its signature), each `let NAME` (its type),
                each struct field use, each builtin call (its doc)
  definition    each call of a function of the file leads to its `fn` line
  references    a function's references are its declaration and calls
  rename        a local renamed: the edits applied, the program still checks
  completion    in a function, the names in scope; after `s.` a struct's fields
                and after `xs.` the array methods; after `math.` the module's
  signature     inside a call of a function of the file: its parameters
  symbols       every `fn` and `struct` of the file
  formatting    the edits applied give what `brine fmt -` prints
  code actions  each "did you mean" error gets a quick fix that applies it
  par           hovering `par` tells the element type, SIMD lanes and GPU
Prints a count per feature; exits 1 on the first failure.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lspclient  # noqa: E402

BRINE = os.path.abspath(sys.argv[1])
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
counts = {}


def ok(feature):
    counts[feature] = counts.get(feature, 0) + 1


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def u16(line_text, byte_col):
    b = line_text.encode()[:byte_col]
    return len(b.decode("utf-8", errors="replace").encode("utf-16-le")) // 2


def expected_errors(br, text):
    """(kind, line0, col16, message) of each diagnostic in the golden's .err
    that is in this file; None when the program is not a compile error."""
    err = br[:-3] + ".err"
    m = re.search(r"^# exit: (\d+)", text, re.M)
    code = int(m.group(1)) if m else 0
    if not os.path.exists(err) or code != 1:
        return None
    lines = text.split("\n")
    out = []
    el = open(err, encoding="utf-8", errors="replace").read().split("\n")
    name = os.path.basename(br)
    for i, l in enumerate(el[:-1]):
        mm = re.match(r"^(error|warning): (.*)$", l)
        loc = re.match(r"^\s+--> (.*):(\d+):(\d+)$", el[i + 1])
        if not mm or not loc or os.path.basename(loc.group(1)) != name:
            continue
        ln, col = int(loc.group(2)) - 1, int(loc.group(3)) - 1
        out.append((mm.group(1), ln, u16(lines[ln] if ln < len(lines) else "", col), mm.group(2)))
    return out


def apply_edits(text, edits):
    lines = text.split("\n")
    offs = [0]
    for l in lines:
        offs.append(offs[-1] + len(l) + 1)

    def off(p):
        ln = p["line"]
        if ln >= len(lines):
            return len(text)
        return offs[ln] + len(lines[ln][:p["character"]].encode("utf-16-le")[:p["character"] * 2]
                              .decode("utf-16-le"))
    for e in sorted(edits, key=lambda e: (e["range"]["start"]["line"], e["range"]["start"]["character"]),
                    reverse=True):
        a, b = off(e["range"]["start"]), off(e["range"]["end"])
        text = text[:a] + e["newText"] + text[b:]
    return text


def hover_text(h):
    return h["contents"]["value"] if h and isinstance(h.get("contents"), dict) else ""


def check_program(c, br, text, uri):
    lines = text.split("\n")
    fns = {}
    for i, l in enumerate(lines):
        m = re.match(r"^fn (\w+)\(", l)
        if m:
            fns[m.group(1)] = i
    # hover and symbols on each fn
    syms = c.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    names = {s["name"] for s in syms}
    for f, ln in fns.items():
        if f not in names:
            fail("%s: document symbols lack fn %s: %s" % (br, f, sorted(names)))
        h = hover_text(c.request("textDocument/hover", c.pos(uri, ln, 4)))
        if "fn %s(" % f not in h:
            fail("%s:%d: hover on fn %s gave %r" % (br, ln + 1, f, h))
        ok("hover fn")
    ok("symbols")
    for m in re.finditer(r"^struct (\w+):", text, re.M):
        if m.group(1) not in names:
            fail("%s: document symbols lack struct %s" % (br, m.group(1)))
        ok("symbols struct")
    # let NAME: hover gives its type; the first 5 of a file
    n = 0
    for i, l in enumerate(lines):
        m = re.match(r"^(\s+)(let|var) (\w+)( *[:=])", l)
        if not m or n >= 5:
            continue
        n += 1
        col = len(m.group(1)) + len(m.group(2)) + 1
        h = hover_text(c.request("textDocument/hover", c.pos(uri, i, col)))
        if not re.search(r"%s %s: \S" % (m.group(2), re.escape(m.group(3))), h):
            fail("%s:%d: hover on %s %s gave %r" % (br, i + 1, m.group(2), m.group(3), h))
        ok("hover let")
    # calls of the file's functions: definition, signature help; references of one function
    n = 0
    for i, l in enumerate(lines):
        if l.lstrip().startswith("#") or l.startswith("fn "):
            continue
        for m in re.finditer(r"(?<![\w.\"])(\w+)\(", l):
            f = m.group(1)
            if f not in fns or n >= 6 or l.count('"') % 2 or '"' in l[:m.start()]:
                continue
            n += 1
            d = c.request("textDocument/definition", c.pos(uri, i, m.start(1)))
            if not d or d["range"]["start"]["line"] != fns[f]:
                fail("%s:%d: definition of %s gave %r, wanted line %d" % (br, i + 1, f, d, fns[f] + 1))
            ok("definition")
            s = c.request("textDocument/signatureHelp", c.pos(uri, i, m.end()))
            if not s or not s["signatures"][0]["label"].startswith("fn %s(" % f):
                fail("%s:%d: signature help in %s( gave %r" % (br, i + 1, f, s))
            ok("signature help")
            refs = c.request("textDocument/references", c.pos(uri, i, m.start(1), context={"includeDeclaration": True}))
            rl = {r["range"]["start"]["line"] for r in refs}
            if fns[f] not in rl or i not in rl:
                fail("%s:%d: references of %s miss its fn line or this call: %r" % (br, i + 1, f, sorted(rl)))
            ok("references")
    # builtins: hover shows the one-line doc
    for i, l in enumerate(lines):
        m = re.match(r"^\s+print\(", l)
        if m:
            h = hover_text(c.request("textDocument/hover", c.pos(uri, i, m.end() - 3)))
            if "print(a, b, ...)" not in h:
                fail("%s:%d: hover on print gave %r" % (br, i + 1, h))
            ok("hover builtin")
            break
    # par: element type, lanes, GPU
    for i, l in enumerate(lines):
        m = re.search(r"\bpar (sum|product|min|max)\(", l)
        if m and not l.lstrip().startswith("#"):
            h = hover_text(c.request("textDocument/hover", c.pos(uri, i, m.start() + 1)))
            if "**par %s** over `" % m.group(1) not in h or "SIMD lanes: " not in h or "GPU: " not in h \
                    or "not known" in h:
                fail("%s:%d: hover on par gave %r" % (br, i + 1, h))
            ok("par hint")
            break
    # completion at the start of main's last line: main's locals, the file's functions, keywords
    if "main" in fns:
        end = fns["main"] + 1
        while end < len(lines) and (lines[end].startswith(" ") or not lines[end].strip()):
            end += 1
        last = end - 1
        while last > fns["main"] and not lines[last].strip():
            last -= 1
        items = c.request("textDocument/completion", c.pos(uri, last, 4))["items"]
        labels = {it["label"] for it in items}
        for f in fns:
            if f not in labels:
                fail("%s:%d: completion lacks fn %s" % (br, last + 1, f))
        for kw in ("let", "for", "par", "print", "sqrt"):
            if kw not in labels:
                fail("%s: completion lacks %s" % (br, kw))
        for i in range(fns["main"] + 1, last):
            m = re.match(r"^    (let|var) (\w+) ", lines[i])
            if m and m.group(2) not in labels and m.group(2) != "_":
                fail("%s:%d: completion lacks the local %s" % (br, last + 1, m.group(2)))
        ok("completion")
    # formatting: the edits give brine fmt's text
    want = subprocess.run([BRINE, "fmt", "-"], input=text.encode(), capture_output=True)
    if want.returncode == 0:
        edits = c.request("textDocument/formatting", {"textDocument": {"uri": uri},
                                                       "options": {"tabSize": 4, "insertSpaces": True}})
        got = apply_edits(text, edits or [])
        if got != want.stdout.decode():
            fail("%s: formatting edits do not give brine fmt's text" % br)
        ok("formatting")


def check_rename(c, br, text, uri):
    """The first local of main renamed, then the first function but main: every
    use renamed (the renamed text has no error and no use of the old name)."""
    lines = text.split("\n")
    for i, l in enumerate(lines):
        m = re.match(r"^fn ([a-z]\w*)\(", l)
        if not m or m.group(1) == "main":
            continue
        name, new = m.group(1), m.group(1) + "_renamed"
        r = c.request("textDocument/rename", c.pos(uri, i, 3, newName=new))
        got = apply_edits(text, r["changes"][uri])
        ruri = uri + ".fn.br"
        errs = [x for x in c.open(ruri, got) if x["severity"] == 1]
        if errs or re.search(r"(?<![\w.])%s\(" % name, got):
            fail("%s: after renaming fn %s: %r" % (br, name, errs))
        c.notify("textDocument/didClose", {"textDocument": {"uri": ruri}})
        ok("rename fn")
        break
    for i, l in enumerate(lines):
        m = re.match(r"^    (let|var) ([a-z]\w*) ", l)
        if not m:
            continue
        name = m.group(2)
        new = name + "_renamed"
        r = c.request("textDocument/rename", c.pos(uri, i, 5 + len(m.group(1)), newName=new))
        if not r or "changes" not in r:
            fail("%s:%d: rename of %s gave %r" % (br, i + 1, name, r))
        edits = r["changes"][uri]
        got = apply_edits(text, edits)
        ruri = uri + ".renamed.br"
        d = c.open(ruri, got)
        errs = [x for x in d if x["severity"] == 1]
        if errs or len(edits) < 2 and re.search(r"\b%s\b" % name, "\n".join(lines[i + 1:])):
            fail("%s: after renaming %s: %r (%d edits)" % (br, name, errs, len(edits)))
        c.notify("textDocument/didClose", {"textDocument": {"uri": ruri}})
        ok("rename")
        return


def main():
    goldens = []
    # (a .br without .out or .err is a module the others import)
    for d, _, files in os.walk(os.path.join(ROOT, "tests", "golden")):
        for f in sorted(files):
            base = os.path.join(d, f[:-3])
            if f.endswith(".br") and (os.path.exists(base + ".out") or os.path.exists(base + ".err")):
                goldens.append(os.path.join(d, f))
    goldens.sort()
    c = lspclient.Client(BRINE)
    renamed = 0
    for br in goldens:
        text = open(br, encoding="utf-8", errors="replace").read()
        uri = "file://" + br
        diags = c.open(uri, text)
        want = expected_errors(br, text)
        got = {(("error" if d["severity"] == 1 else "warning"), d["range"]["start"]["line"],
                d["range"]["start"]["character"], d["message"].replace(os.path.dirname(br) + "/", ""))
               for d in diags}
        for d in diags:
            if "internal error" in d["message"]:
                fail("%s: %s" % (br, d["message"]))
        if want is not None:
            for w in want:
                if w not in got:
                    fail("%s: expected diagnostic %r, got %r" % (br, w, sorted(got)))
            if not want and not any(g[0] == "error" for g in got):
                fail("%s: a compile error expected, got none" % br)
            ok("diagnostics (errors)")
            for d in diags:
                if "did you mean '" in d["message"]:
                    r = d["range"]
                    acts = c.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": r,
                                                                 "context": {"diagnostics": [d]}})
                    sugg = re.search(r"did you mean '([^']*)'", d["message"]).group(1)
                    if not any(a["edit"]["changes"][uri][0]["newText"] == sugg for a in acts):
                        fail("%s: no quick fix for %r: %r" % (br, d["message"], acts))
                    ok("code action")
        else:
            errs = [d for d in diags if d["severity"] == 1]
            if errs:
                fail("%s: compiles, but the server says %r" % (br, errs))
            ok("diagnostics (clean)")
            check_program(c, br, text, uri)
            if renamed < 40 and "/generated/" not in br:
                check_rename(c, br, text, uri)
                renamed += 1
        c.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    check_members(c)
    if c.close() != 0:
        fail("brine lsp did not exit 0 after shutdown and exit")
    for k in sorted(counts):
        print("  %-22s %d" % (k, counts[k]))
    print("lsp client test: %d golden programs, all passed" % len(goldens))


def check_members(c):
    """Completion after a dot: struct fields, array methods, module members."""
    text = ("import math\n\nstruct Seg:\n    lo: int\n    hi: int\n\nfn main():\n"
            "    let s = Seg(lo=1, hi=2)\n    var xs: [int] = []\n    print(s.lo, len(xs), math.pi)\n")
    uri = "file://" + ROOT + "/tests/lsp/members.br"
    if [d for d in c.open(uri, text) if d["severity"] == 1]:
        fail("members.br does not check")
    # edit to a half-typed line: completion uses the last analysis that parsed
    half = text + "    s.\n"
    c.change(uri, half, 2)
    c.wait_diagnostics(uri, 2)
    lines = half.split("\n")

    def labels(line, col):
        return {it["label"] for it in c.request("textDocument/completion", c.pos(uri, line, col))["items"]}
    got = labels(10, 6)
    if got != {"lo", "hi"}:
        fail("completion after s. gave %r" % got)
    ok("completion fields")
    c.change(uri, text + "    xs.\n", 3)
    if not {"push", "pop", "sort", "contains"} <= labels(10, 7):
        fail("completion after xs. lacks the array methods")
    ok("completion methods")
    c.change(uri, text + "    math.\n", 4)
    got = labels(10, 9)
    if not {"pi", "isnan", "tau"} <= got:
        fail("completion after math. gave %r" % got)
    ok("completion module")
    h = hover_text(c.request("textDocument/hover", c.pos(uri, 9, 13)))
    if "Seg.lo: int" not in h:
        fail("hover on a field gave %r" % h)
    ok("hover field")
    h = hover_text(c.request("textDocument/hover", c.pos(uri, 7, 13)))
    if "struct Seg\n    lo: int\n    hi: int" not in h:
        fail("hover on a struct gave %r" % h)
    ok("hover struct")
    d = c.request("textDocument/definition", c.pos(uri, 9, 31))
    if not d or not d["uri"].endswith("/stdlib/math.br"):
        fail("definition of math.pi gave %r" % d)
    ok("definition module member")
    d = c.request("textDocument/definition", c.pos(uri, 0, 8))
    if not d or not d["uri"].endswith("/stdlib/math.br") or d["range"]["start"]["line"] != 0:
        fail("definition of the module math gave %r" % d)
    ok("definition module")
    r = c.request("textDocument/rename", c.pos(uri, 7, 8, newName="for"))
    if not (isinstance(r, dict) and "__error__" in r):
        fail("renaming to a keyword gave %r" % r)
    if c.request("textDocument/prepareRename", c.pos(uri, 9, 17)) is not None:
        fail("prepareRename on a builtin (len) was not refused")
    p = c.request("textDocument/prepareRename", c.pos(uri, 7, 8))
    if not p or p.get("placeholder") != "s":
        fail("prepareRename on a local gave %r" % p)
    ok("rename refusals")
    c.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    del lines


if __name__ == "__main__":
    main()
