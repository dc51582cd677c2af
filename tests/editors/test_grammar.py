#!/usr/bin/env python3
"""tests/editors/test_grammar.py BRINE: the editors' grammar against the compiler.

1. The keywords of editors/grammar.py and of the language server's completion
   (compiler/lsp_query.c) are exactly the lexer's (compiler/lexer.re).
2. The generated grammars are up to date (editors/grammar.py --check).
3. VS Code's package.json and language configuration and Helix's
   languages.toml read as JSON and TOML, and say what they should.
4. The TextMate grammar, run by a small TextMate tokenizer of our own (the
   rules' match, begin/end, captures, include of the repository and $self,
   applied line by line as VS Code does, with Python's re for the regexes),
   agrees with `brine --dump=tokens` on the golden programs: every keyword
   token is scoped keyword.* (true, false, None constant.language), every
   name is not, every number is constant.numeric, every string literal
   string.*, every name after `fn` entity.name.function, the inside of an
   f-string's {} is code again, and each comment (what the lexer skipped,
   starting with '#') is comment.*.
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "editors"))
import grammar  # noqa: E402


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def lexer_keywords():
    text = open(os.path.join(ROOT, "compiler", "lexer.re")).read()
    return set(re.findall(r'^\s*"([a-zA-Z_]+)"\s*\{\s*set_token\(L, t, TK_', text, re.M))


class TextMate:
    """Enough of TextMate's tokenizer for one grammar: begin/end rules nest on
    a stack; a line is matched from left to right, the earliest match of the
    current rule's patterns winning (the first listed on a tie)."""

    def __init__(self, g):
        self.g = g
        self.cache = {}

    def resolve(self, pats, seen=None):
        out = []
        for p in pats:
            if "include" in p:
                inc = p["include"]
                r = self.g["patterns"] if inc == "$self" else [self.g["repository"][inc[1:]]]
                out += self.resolve(r)
            elif "patterns" in p and "match" not in p and "begin" not in p:
                out += self.resolve(p["patterns"])
            else:
                out.append(p)
        return out

    def rx(self, s):
        if s not in self.cache:
            self.cache[s] = re.compile(s)
        return self.cache[s]

    def tokenize(self, text):
        """Scopes per (line, col): a list of lists of scope names."""
        stack = []  # (rule, end regex)
        result = []
        for line in text.split("\n"):
            scopes = [None] * (len(line) + 1)
            pos = 0
            while pos <= len(line):
                rule = stack[-1][0] if stack else None
                pats = self.resolve(rule.get("patterns", [])) if rule else self.resolve(self.g["patterns"])
                best = None
                if rule:
                    m = self.rx(rule["end"]).search(line, pos)
                    if m:
                        best = (m.start(), -1, m, None)
                for i, p in enumerate(pats):
                    m = self.rx(p["match"] if "match" in p else p["begin"]).search(line, pos)
                    if m and (best is None or m.start() < best[0]):
                        best = (m.start(), i, m, p)
                outer = [r.get("name") for r, _ in stack if r.get("name")]
                if best is None:
                    for k in range(pos, len(line)):
                        scopes[k] = list(outer)
                    break
                start, _, m, p = best
                for k in range(pos, start):
                    scopes[k] = list(outer)
                if p is None:  # the rule's end
                    for k in range(m.start(), m.end()):
                        scopes[k] = list(outer)
                    stack.pop()
                else:
                    here = outer + ([p["name"]] if p.get("name") else [])
                    for k in range(m.start(), m.end()):
                        scopes[k] = list(here)
                    for gi, cap in (p.get("captures") or p.get("beginCaptures") or {}).items():
                        gi = int(gi)
                        if m.group(gi) is not None:
                            for k in range(m.start(gi), m.end(gi)):
                                scopes[k] = here + [cap["name"]]
                    if "begin" in p:
                        stack.append((p, None))
                if m.end() == m.start() and p is not None and "begin" not in p:
                    pos = m.end() + 1
                else:
                    pos = max(m.end(), pos if m.end() > start else pos + 1)
            result.append(scopes)
            # a begin/end rule of one line (strings) that is still open ends with the line
            while stack and stack[-1][0].get("name", "").startswith("string"):
                stack.pop()
        return result


def has(scopes, prefix):
    return scopes is not None and any(s.startswith(prefix) for s in scopes)


def check_file(tm, brine, path, counts):
    text = open(path, encoding="utf-8").read()
    if not text.isascii():
        return  # columns: the lexer counts bytes, this tokenizer characters
    r = subprocess.run([brine, "--dump=tokens", path], capture_output=True, text=True)
    if r.returncode != 0:
        return
    sc = tm.tokenize(text)
    lines = text.split("\n")
    covered = {}
    prev = None
    for row in r.stdout.splitlines():
        m = re.match(r"^(\d+):(\d+) (\S+)(?: (.*))?$", row)
        if not m or m.group(4) is None:
            continue
        ln, col, kind, tok = int(m.group(1)) - 1, int(m.group(2)) - 1, m.group(3), m.group(4)
        covered.setdefault(ln, []).append((col, col + len(tok)))
        s = sc[ln][col] if ln < len(sc) and col < len(sc[ln]) else None
        where = "%s:%d:%d %s %r" % (path, ln + 1, col + 1, kind, tok)
        if tok in grammar.KEYWORDS and kind == tok.upper():
            if not (has(s, "keyword") or has(s, "constant.language")):
                fail("%s: a keyword, scoped %r" % (where, s))
            counts["keyword"] = counts.get("keyword", 0) + 1
        elif tok == "None":
            if not has(s, "constant.language"):
                fail("%s: scoped %r" % (where, s))
        elif kind == "NAME":
            if has(s, "keyword") or (has(s, "string") and not has(s, "meta.interpolation")) or has(s, "comment"):
                fail("%s: a name, scoped %r" % (where, s))
            if prev == "FN" and not has(s, "entity.name.function"):
                fail("%s: a function's name, scoped %r" % (where, s))
            counts["name"] = counts.get("name", 0) + 1
        elif kind in ("INT", "FLOAT"):
            if not has(s, "constant.numeric"):
                fail("%s: a number, scoped %r" % (where, s))
            counts["number"] = counts.get("number", 0) + 1
        elif kind in ("STRING", "FSTART", "FTEXT", "FEND"):
            if not has(s, "string"):
                fail("%s: a string, scoped %r" % (where, s))
            counts["string"] = counts.get("string", 0) + 1
        prev = kind
    for ln, l in enumerate(lines):
        spans = covered.get(ln, [])
        for k, ch in enumerate(l):
            if ch == "#" and not any(a <= k < b for a, b in spans):
                if not has(sc[ln][k], "comment"):
                    fail("%s:%d:%d: a comment, scoped %r" % (path, ln + 1, k + 1, sc[ln][k]))
                counts["comment"] = counts.get("comment", 0) + 1
                break


def main():
    brine = os.path.abspath(sys.argv[1])
    lex = lexer_keywords()
    ours = set(grammar.KEYWORDS) | {"None"}
    if lex != ours:
        fail("editors/grammar.py's keywords differ from the lexer's: only the lexer has %s, only the grammar %s"
             % (sorted(lex - ours), sorted(ours - lex)))
    q = open(os.path.join(ROOT, "compiler", "lsp_query.c")).read()
    m = re.search(r"keywords\[\] = \{(.*?)NULL\}", q, re.S)
    completion = set(re.findall(r'"(\w+)"', m.group(1))) if m else set()
    if completion != lex:
        fail("the language server's completion keywords (lsp_query.c) differ from the lexer's: %s"
             % sorted(completion ^ lex))
    print("keywords: the grammar's %d and the language server's are the lexer's" % len(lex))
    if subprocess.run([sys.executable, os.path.join(ROOT, "editors", "grammar.py"), "--check"]).returncode != 0:
        fail("the generated grammars are out of date")
    # the editor packages' own files read as what they claim to be
    vs = os.path.join(ROOT, "editors", "vscode")
    pkg = json.load(open(os.path.join(vs, "package.json")))
    for g in pkg["contributes"]["grammars"]:
        if not os.path.exists(os.path.join(vs, g["path"])):
            fail("package.json names a grammar that is not there: %s" % g["path"])
    conf = json.load(open(os.path.join(vs, "language-configuration.json")))
    for k, v in conf["indentationRules"].items():
        re.compile(v)
    if not re.match(conf["indentationRules"]["increaseIndentPattern"], "    for i in 0..n:  # each"):
        fail("language-configuration: no indent after a block header")
    try:
        import tomllib
        helix = tomllib.load(open(os.path.join(ROOT, "editors", "helix", "languages.toml"), "rb"))
        if helix["language-server"]["brine-lsp"]["args"] != ["lsp"]:
            fail("helix: the server is not brine lsp")
    except ImportError:
        print("editors: no tomllib in this Python, languages.toml not read")
    tm = TextMate(json.load(open(os.path.join(ROOT, "editors", "vscode", "syntaxes", "brine.tmLanguage.json"))))
    counts = {}
    files = []
    for d, _, fs in os.walk(os.path.join(ROOT, "tests", "golden")):
        files += [os.path.join(d, f) for f in fs if f.endswith(".br")]
    for f in sorted(files):
        check_file(tm, brine, f, counts)
    # the f-string's inside is code
    sc = tm.tokenize('    print(f"n={len(xs)} {{lit}}")')[0]
    if not has(sc[15], "support.function.builtin") or not has(sc[24], "constant.character.escape"):
        fail("f-string interpolation: %r %r" % (sc[15], sc[24]))
    print("TextMate grammar: %d golden programs, %s tokens agree with the lexer" %
          (len(files), ", ".join("%d %s" % (v, k) for k, v in sorted(counts.items()))))


if __name__ == "__main__":
    main()
