#!/usr/bin/env python3
"""bench/gen_program.py LINES: prints a Brine program of about LINES lines.

The program is made of small functions in the style of real numerical code (loops, branches,
arrays, f-strings, sequential and par reductions) and a main that calls each one, so that every
phase of brine does representative work. Used by bench/compile.py.
"""
import sys

TEMPLATE = """fn work_{k}(n: int, xs: [float]) -> float:
    var acc = 0.0
    var count = 0
    for i in 0..n:
        let x = float(i) * {a}.5 + 1.0
        if i % {m} == 0:
            acc += x / {b}.0
        elif i % 2 == 1:
            acc -= sqrt(x) * 0.25
        else:
            count += 1
    let total = par sum(xs[j] * float(j + {k}) for j in 0..len(xs) if j % 3 != 1)
    var ys: [float] = []
    for j in 0..{m}:
        ys.push(float(j) * acc)
    let best = max(y for y in ys)
    if count > {k}:
        print(f"work {k}: {{acc:.3f}} {{total:.4e}} {{best:.2f}} {{count}}")
    return acc + total + best + float(count)

"""

def main():
    lines = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    per = TEMPLATE.count("\n")
    nfuncs = max(1, (lines - 10) // (per + 1))
    out = []
    for k in range(nfuncs):
        out.append(TEMPLATE.format(k=k, a=k % 7, b=k % 5 + 1, m=k % 11 + 2))
    out.append("fn main():\n    let xs = [0.5, 1.5, 2.5, 3.5]\n    var t = 0.0\n")
    for k in range(nfuncs):
        out.append(f"    t += work_{k}(20, xs)\n")
    out.append('    print(f"total {t}")\n')
    sys.stdout.write("".join(out))

if __name__ == "__main__":
    main()
