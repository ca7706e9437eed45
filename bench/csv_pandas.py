#!/usr/bin/env python3
"""pandas.read_csv on the benchmark CSV: MB/s (1 MB = 1e6 bytes), best of N."""
import os, sys, time
try:
    import pandas as pd
except ImportError:
    print("pandas.read_csv: skipped (python3-pandas not installed)")
    sys.exit(0)
path = sys.argv[1]
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 1
mb = os.path.getsize(path) / 1e6
best = 1e30
for _ in range(runs):
    t0 = time.perf_counter()
    df = pd.read_csv(path)
    best = min(best, time.perf_counter() - t0)
print("%-34s %9.1f MB/s  (%d rows, pandas %s)" % ("pandas.read_csv", mb / best, len(df), pd.__version__))
