#!/usr/bin/env python3
"""What a user would otherwise write: a Python line parser (split + float
conversion per row) over the same text file; MB/s (1e6 bytes)."""
import os, sys, time
path = sys.argv[1]
t0 = time.perf_counter()
rows = []
with open(path) as f:
    for line in f:
        parts = line.split()
        if len(parts) < 8 or not parts[0][0].isdigit():
            continue
        vals = []
        for p in parts[:8]:
            try:
                vals.append(float(p.rstrip("%msun").replace(",", "")))
            except ValueError:
                vals.append(p)
        rows.append((vals, " ".join(parts[8:])))
dt = time.perf_counter() - t0
print("%-34s %9.1f MB/s  (%d rows)" % ("python line parser", os.path.getsize(path) / 1e6 / dt, len(rows)))
