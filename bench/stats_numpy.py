#!/usr/bin/python3
"""Runs build/stats_bench (perflab, C) and times NumPy/SciPy on the same
data inside this process; prints both times and perflab/NumPy ratios.

    cmake --build build --target stats_bench
    /usr/bin/python3 bench/stats_numpy.py [build/stats_bench] [DIR]

Each figure is the best of 3 runs of the operation alone (data already in
memory; no interpreter or process start-up)."""
import subprocess
import sys
import time

import numpy as np
from scipy import stats

exe = sys.argv[1] if len(sys.argv) > 1 else "build/stats_bench"
d = sys.argv[2] if len(sys.argv) > 2 else "/tmp"
out = subprocess.run([exe, d], check=True, capture_output=True, text=True)
sys.stderr.write(out.stderr)
mine = {l.split()[0]: float(l.split()[1]) for l in out.stdout.splitlines() if l.strip()}

ld = lambda n, t: np.fromfile("%s/perflab_bench_%s.bin" % (d, n), dtype=t)
x, a, b = ld("x", np.float64), ld("a", np.float64), ld("b", np.float64)
s, e = ld("s", np.int64), ld("e", np.int64)


def describe(x):
    return dict(n=x.size, mean=x.mean(), sd=x.std(ddof=1), var=x.var(ddof=1), min=x.min(),
                max=x.max(), median=np.median(x), p=np.percentile(x, [25, 75, 90, 95, 99]),
                sum=x.sum())


def union(s, e):
    keep = e > s
    s, e = s[keep], e[keep]
    o = np.argsort(s, kind="stable")
    ss, ee = s[o], np.maximum.accumulate(e[o])
    brk = np.nonzero(ss[1:] > ee[:-1])[0]
    starts = np.concatenate(([ss[0]], ss[brk + 1]))
    ends = np.concatenate((ee[brk], [ee[-1]]))
    return starts, ends


ops = [
    ("describe_1e7", lambda: describe(x)),
    ("quantile99_1e7", lambda: np.quantile(x, 0.99)),
    ("welch_t_2x1e6", lambda: stats.ttest_ind(a, b, equal_var=False)),
    ("mann_whitney_u_2x1e6", lambda: stats.mannwhitneyu(a, b, alternative="two-sided")),
    ("union_1e7", lambda: union(s, e)),
]
print("numpy %s scipy %s" % (np.__version__, __import__("scipy").__version__))
print("%-22s %12s %12s %8s" % ("operation", "perflab s", "numpy s", "ratio"))
for name, f in ops:
    best = 1e9
    for _ in range(3):
        t0 = time.perf_counter()
        r = f()
        best = min(best, time.perf_counter() - t0)
    if name == "mann_whitney_u_2x1e6":
        sys.stderr.write("numpy check: mwu u %r p %r\n" % (r.statistic, r.pvalue))
    if name == "union_1e7":
        sys.stderr.write("numpy check: union n %d\n" % len(r[0]))
    if name == "quantile99_1e7":
        sys.stderr.write("numpy check: p99 %r\n" % r)
    if name == "welch_t_2x1e6":
        sys.stderr.write("numpy check: welch p %r\n" % r.pvalue)
    print("%-22s %12.4f %12.4f %8.2f" % (name, mine[name], best, mine[name] / best))
