#!/usr/bin/env python3
"""tools/wrap_lua_lines.py [--check] FILE...: wrap Lua lines longer than 120 columns.

--check lists them instead (tools/style-check.sh): a line may be longer only
when one string literal alone makes it so, and the text of long strings
(help texts) is not checked.

What `make format` does to Lua (StyLua is not packaged in Debian 12):
  - a comment line is re-flowed into comment lines of at most 120 columns;
  - a trailing comment that makes a line too long moves to its own line above;
  - code breaks after a comma, or before `..`, `and`, `or`, outside strings,
    at the rightmost such place that fits, the rest indented 4 more.
Only whitespace changes, and each file is proved unchanged in meaning: its
bytecode listing (luac5.4 -l -l, less line numbers) must be identical before and after, or
the file is left as it was.  Lines inside long strings, and strings too long
to fit, are left alone and listed.
"""
import os
import re
import subprocess
import sys
import tempfile

LIMIT = 120


def scan(line, in_long):
    """Yields (kind, start, end) over a line: kind is 'code', 'str', 'comment'.
    in_long: the level of a long bracket open at the line's start, or None.
    Returns (segments, in_long at the end of the line)."""
    segs = []
    i, n = 0, len(line)
    if in_long is not None:
        close = "]" + "=" * in_long + "]"
        j = line.find(close)
        if j < 0:
            return [("long", 0, n)], in_long
        segs.append(("long", 0, j + len(close)))
        i = j + len(close)
        in_long = None
    start = i
    while i < n:
        c = line[i]
        if c == "-" and line.startswith("--", i):
            if start < i:
                segs.append(("code", start, i))
            m = re.match(r"--\[(=*)\[", line[i:])
            if m:
                close = "]" + m.group(1) + "]"
                j = line.find(close, i + len(m.group(0)))
                if j < 0:
                    segs.append(("long", i, n))
                    return segs, len(m.group(1))
                segs.append(("long", i, j + len(close)))
                i = start = j + len(close)
                continue
            segs.append(("comment", i, n))
            return segs, None
        if c in "\"'":
            if start < i:
                segs.append(("code", start, i))
            j = i + 1
            while j < n and line[j] != c:
                j += 2 if line[j] == "\\" else 1
            segs.append(("str", i, min(j + 1, n)))
            i = start = min(j + 1, n)
            continue
        if c == "[":
            m = re.match(r"\[(=*)\[", line[i:])
            if m:
                if start < i:
                    segs.append(("code", start, i))
                close = "]" + m.group(1) + "]"
                j = line.find(close, i + len(m.group(0)))
                if j < 0:
                    segs.append(("long", i, n))
                    return segs, len(m.group(1))
                segs.append(("str", i, j + len(close)))
                i = start = j + len(close)
                continue
        i += 1
    if start < n:
        segs.append(("code", start, n))
    return segs, None


def breaks(line, segs):
    """Places where code may break: (index where the second line starts,
    bracket depth there), after a comma or before `..`, `and`, `or`."""
    out, depth, ranges = [], 0, []
    code = [False] * len(line)
    for kind, a, b in segs:
        if kind == "code":
            for k in range(a, b):
                code[k] = True
    depth_at = []
    for k, ch in enumerate(line):
        if code[k] and ch in "({[":
            depth += 1
        elif code[k] and ch in ")}]":
            depth -= 1
        depth_at.append(depth)
    for kind, a, b in segs:
        if kind != "code":
            continue
        for m in re.finditer(r",\s*|\s(?=\.\.\s)|\s(?=and\s)|\s(?=or\s)", line[a:b]):
            p = a + m.end()
            op = 0 if m.group(0).startswith(",") else 0.5   # a comma before an operator
            out.append((p, depth_at[a + m.start()] + op))
    return out


def wrap_comment(indent, prefix, text):
    words, lines, cur = text.split(), [], ""
    for w in words:
        cand = (cur + " " + w) if cur else w
        if cur and len(indent) + len(prefix) + 1 + len(cand) > LIMIT:
            lines.append(cur)
            cur = w
        else:
            cur = cand
    if cur:
        lines.append(cur)
    first = [indent + prefix + " " + lines[0]] if lines else [indent + prefix]
    cont = "--" if prefix.startswith("--") else prefix
    return first + [indent + cont + " " + l for l in lines[1:]]


def wrap_code(line, segs):
    indent = re.match(r"\s*", line).group(0)
    out, rest, first = [], line, True
    while len(rest) > LIMIT:
        segs_r, _ = scan(rest, None) if not first else (segs, None)
        lead = len(re.match(r"\s*", rest).group(0))
        cands = [(p, d) for p, d in breaks(rest, segs_r) if lead + 8 < p <= LIMIT and rest[p:].strip()]
        if not cands:
            break
        # the shallowest place in the right half of the line, else the rightmost
        half = [(p, d) for p, d in cands if p >= (lead + LIMIT) // 2]
        pool = half or cands
        dmin = min(d for _, d in pool)
        p = max(p for p, d in pool if d == dmin)
        out.append(rest[:p].rstrip())
        rest = indent + "    " + rest[p:].lstrip()
        first = False
    out.append(rest)
    return out


def wrap_file(path):
    src = open(path, encoding="utf-8").read()
    lines = src.split("\n")
    new, left, in_long = [], [], None
    for no, line in enumerate(lines, 1):
        segs, after = scan(line, in_long)
        was_long = in_long is not None
        in_long = after
        if len(line) <= LIMIT:
            new.append(line)
            continue
        if was_long or any(k == "long" for k, _, _ in segs):
            new.append(line)
            left.append((no, "inside a long string or comment"))
            continue
        kinds = [k for k, _, _ in segs]
        indent = re.match(r"\s*", line).group(0)
        if kinds == ["comment"] or (kinds and kinds[0] == "comment"):
            m = re.match(r"(\s*)(-{2,3})\s?(.*)$", line)
            new.extend(wrap_comment(m.group(1), m.group(2), m.group(3)))
            continue
        if kinds and kinds[-1] == "comment":
            a = segs[-1][1]
            code = line[:a].rstrip()
            m = re.match(r"(-{2,3})\s?(.*)$", line[a:])
            new.extend(wrap_comment(indent, m.group(1), m.group(2)))
            line = code
            segs, _ = scan(line, None)
            if len(line) <= LIMIT:
                new.append(line)
                continue
        got = wrap_code(line, segs)
        if len(got[-1]) > LIMIT:
            left.append((no, "no place to break (a long string?)"))
        new.extend(got)
    out = "\n".join(new)
    if out == src:
        return left, False
    if not same_bytecode(src, out):
        return [(0, "bytecode would change: left as it was")], False
    with open(path, "w", encoding="utf-8") as f:
        f.write(out)
    return left, True


def bytecode(text):
    """luac5.4's full listing less line numbers and addresses: what the code
    does, whatever lines it is written on"""
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "a.lua")
        open(p, "w", encoding="utf-8").write(text)
        r = subprocess.run(["luac5.4", "-p", "-l", "-l", p], capture_output=True, text=True)
        if r.returncode != 0:
            return None
        out = re.sub(r"<[^>]*:\d+,\d+>", "<>", r.stdout)
        out = re.sub(r"0x[0-9a-f]+", "0x", out)
        return re.sub(r"\t\[\d+\]\t", "\t", out)


def same_bytecode(a, b):
    x, y = bytecode(a), bytecode(b)
    return x is not None and x == y


def too_long(line, segs):
    """Over the limit, unless one string literal alone makes it so (a
    string is never broken: its text would change)"""
    if len(line) <= LIMIT:
        return False
    longest = max([b - a for k, a, b in segs if k in ("str", "long")] or [0])
    return len(line) - longest + 2 > LIMIT


def check(paths):
    bad = 0
    for p in paths:
        in_long = None
        for no, line in enumerate(open(p, encoding="utf-8").read().split("\n"), 1):
            segs, in_long2 = scan(line, in_long)
            if in_long is None and too_long(line, segs):
                print(f"{p}:{no}: {len(line)} columns (at most 120)")
                bad += 1
            in_long = in_long2
    return bad


def main(paths):
    if paths and paths[0] == "--check":
        bad = check(paths[1:])
        if bad:
            print(f"style: {bad} Lua lines over 120 columns; tools/wrap_lua_lines.py FILE... wraps them", file=sys.stderr)
        sys.exit(1 if bad else 0)
    changed = 0
    for p in paths:
        left, did = wrap_file(p)
        changed += did
        for no, why in left:
            print(f"{p}:{no}: {why}")
    print(f"wrap_lua_lines: {changed} of {len(paths)} files rewrapped", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
