#!/usr/bin/env python3
"""tests/editors/render_pane.py IN.txt OUT.png: a tmux pane as a picture.

IN.txt is `tmux capture-pane -p -e`: text with SGR escapes (16, 256 and 24-bit
colours, bold, reverse). Drawn cell by cell in DejaVu Sans Mono (Debian's
fonts-dejavu-core) with Python PIL (python3-pil).
"""
import re
import sys

from PIL import Image, ImageDraw, ImageFont

BASE16 = [(0, 0, 0), (205, 49, 49), (13, 188, 121), (229, 229, 16), (36, 114, 200), (188, 63, 188), (17, 168, 205),
          (229, 229, 229), (102, 102, 102), (241, 76, 76), (35, 209, 139), (245, 245, 67), (59, 142, 234),
          (214, 112, 214), (41, 184, 219), (255, 255, 255)]
FG, BG = (212, 212, 212), (30, 30, 30)


def xterm256(n):
    if n < 16:
        return BASE16[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return steps[n // 36], steps[(n // 6) % 6], steps[n % 6]
    v = 8 + (n - 232) * 10
    return v, v, v


def parse(text):
    rows = []
    for line in text.rstrip("\n").split("\n"):
        cells, fg, bg, bold, rev = [], FG, BG, False, False
        for part in re.split(r"(\x1b\[[0-9;]*m)", line):
            if part.startswith("\x1b["):
                codes = [int(c) if c else 0 for c in part[2:-1].split(";")]
                i = 0
                while i < len(codes):
                    c = codes[i]
                    if c == 0:
                        fg, bg, bold, rev = FG, BG, False, False
                    elif c == 1:
                        bold = True
                    elif c == 22:
                        bold = False
                    elif c == 7:
                        rev = True
                    elif c == 27:
                        rev = False
                    elif 30 <= c <= 37:
                        fg = BASE16[c - 30]
                    elif 90 <= c <= 97:
                        fg = BASE16[c - 90 + 8]
                    elif 40 <= c <= 47:
                        bg = BASE16[c - 40]
                    elif 100 <= c <= 107:
                        bg = BASE16[c - 100 + 8]
                    elif c == 39:
                        fg = FG
                    elif c == 49:
                        bg = BG
                    elif c in (38, 48) and i + 1 < len(codes):
                        if codes[i + 1] == 5 and i + 2 < len(codes):
                            col = xterm256(codes[i + 2])
                            i += 2
                        elif codes[i + 1] == 2 and i + 4 < len(codes):
                            col = tuple(codes[i + 2:i + 5])
                            i += 4
                        else:
                            col = FG
                        if c == 38:
                            fg = col
                        else:
                            bg = col
                    i += 1
            else:
                for ch in part:
                    cells.append((ch, bg if rev else fg, fg if rev else bg, bold))
        rows.append(cells)
    return rows


def main():
    rows = parse(open(sys.argv[1], encoding="utf-8", errors="replace").read())
    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf", 15)
    bold = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf", 15)
    cw, ch = 9, 19
    width = max(len(r) for r in rows)
    img = Image.new("RGB", (width * cw + 16, len(rows) * ch + 16), BG)
    draw = ImageDraw.Draw(img)
    for y, row in enumerate(rows):
        for x, (c, fg, bg, b) in enumerate(row):
            x0, y0 = 8 + x * cw, 8 + y * ch
            if bg != BG:
                draw.rectangle([x0, y0, x0 + cw - 1, y0 + ch - 1], fill=bg)
            if c != " ":
                draw.text((x0, y0 + 1), c, fill=fg, font=bold if b else font)
    img.save(sys.argv[2])


if __name__ == "__main__":
    main()
