#!/usr/bin/env python3
"""py_top.py TRACE.json -- an anchor of `make bench` (bench/scale.sh): the
top-kernels question (which kernels take the most GPU time) in plain
Python: json.load, then the kernel events' dur summed by name; prints the
ten largest totals as "calls<TAB>total_us<TAB>name" and the number of
kernel launches."""
import json
import sys

with open(sys.argv[1], "rb") as f:
    trace = json.load(f)
sums = {}
n = 0
for e in trace["traceEvents"]:
    if e.get("cat") == "kernel" and "name" in e:
        s = sums.setdefault(e["name"], [0, 0.0])
        s[0] += 1
        s[1] += float(e.get("dur", 0))
        n += 1
for name, (calls, total) in sorted(sums.items(), key=lambda kv: -kv[1][1])[:10]:
    print("%d\t%.3f\t%s" % (calls, total, name))
print("launches\t%d" % n)
