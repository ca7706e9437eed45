#!/usr/bin/env python3
"""What a user would otherwise run, timed inside the interpreter (the
operation only, not start-up), RUNS times; prints one machine-readable line

    RESULT median_wall_s min_wall_s peak_rss_kb rows bytes median_cpu_s

and a human line on stderr (the same shape as bench/load_bench.c).

    py_bench.py MODE FILE [RUNS=3]

MODE:
  kernel-table   a Python line parser of the kernel latency table
                 (split at '|', float() the three numbers)
  ncu-text       a Python line parser of ncu details text (kernel header
                 lines, 'Section:' lines, metric rows split into name, unit
                 and value with thousands separators removed)
  columns        a Python line parser of column text (nsys stats, nvprof):
                 split(), float() of the leading numeric cells
  torch-table    a Python line parser of key_averages().table() text: the
                 name column's width from the dashes line, split() of the
                 rest, float() of every cell with its '%' or time unit
                 (us, ms, s) applied, int() of the calls
  pandas-csv     pandas.read_csv(FILE)
  json-load      json.load(open(FILE))
  json-pandas    json.load + pandas.DataFrame(trace["traceEvents"])
Peak RSS is resource.getrusage's ru_maxrss of this process (the interpreter
and, for the pandas modes, pandas itself included).
"""
import os
import resource
import sys
import time


def kernel_table(path):
    rows = []
    with open(path) as f:
        next(f)                                  # header
        for line in f:
            name, _, rest = line.partition("|")
            if not rest:
                continue
            lat, ten, dram = rest.split()
            rows.append((name.strip(), float(lat), float(ten), float(dram)))
    return len(rows)


def ncu_text(path):
    rows = []
    kernel = section = None
    with open(path) as f:
        for line in f:
            s = line.strip()
            if not s or s[0] == "-":
                continue
            if line.startswith("  ") and not line.startswith("    "):
                kernel = s                       # "name (grid)x(block), Context 1, ..., CC 8.0"
                continue
            if s.startswith("Section: "):
                section = s[9:]
                continue
            if s.startswith("Metric Name") or s.startswith(("OPT", "INF", "WRN")) or line.startswith("          "):
                continue
            parts = s.rsplit(None, 2)
            try:
                value = float(parts[-1].replace(",", ""))
            except ValueError:
                value = parts[-1]
            if len(parts) == 3:
                rows.append((kernel, section, parts[0], parts[1], value))
            else:
                rows.append((kernel, section, parts[0], "", value))
    return len(rows)


def columns(path):
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
    return len(rows)


def torch_table(path):
    rows = []
    units = {"us": 1e3, "ms": 1e6, "ns": 1.0}

    def t(tok):                                  # a time with its unit -> ns
        u = tok[-2:]
        if u in units:
            return float(tok[:-2]) * units[u]
        return float(tok[:-1]) * 1e9
    with open(path) as f:
        seps, w = 0, 0                           # dashes lines seen in this table: 1 header next, 2 body
        for line in f:
            if line.startswith("--"):
                if seps == 0:
                    w, seps = line.index(" "), 1
                elif seps == 1:
                    seps = 2
                else:
                    seps = 0
                continue
            if seps != 2:
                continue                         # header, footer totals, program output
            parts = line[w:].split()
            if len(parts) != 10:
                continue
            scp, sc, ctp, ct, cavg, scu, scup, cut, cuavg, calls = parts
            rows.append((line[:w].strip(), float(scp[:-1]), t(sc), float(ctp[:-1]), t(ct), t(cavg),
                         t(scu), float(scup[:-1]), t(cut), t(cuavg), int(calls)))
    return len(rows)


def pandas_csv(path):
    import pandas as pd
    return len(pd.read_csv(path))


def json_load(path):
    import json
    with open(path) as f:
        t = json.load(f)
    return len(t["traceEvents"])


def json_pandas(path):
    import json
    import pandas as pd
    with open(path) as f:
        t = json.load(f)
    df = pd.DataFrame(t["traceEvents"])
    return len(df)


MODES = {"kernel-table": kernel_table, "ncu-text": ncu_text, "columns": columns, "torch-table": torch_table,
         "pandas-csv": pandas_csv, "json-load": json_load, "json-pandas": json_pandas}


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in MODES:
        sys.exit(__doc__)
    mode, path = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    if mode.startswith(("pandas", "json-pandas")):
        try:
            import pandas  # noqa: F401  (imported before timing: not part of the operation)
        except ImportError:
            print("SKIP python3-pandas is not installed")
            return
    fn = MODES[mode]
    times, cpus, rows = [], [], 0
    for _ in range(max(1, runs)):
        t0, c0 = time.perf_counter(), time.process_time()
        rows = fn(path)
        cpus.append(time.process_time() - c0)
        times.append(time.perf_counter() - t0)

    def median(v):
        v = sorted(v)
        n = len(v)
        return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2
    med, medc = median(times), median(cpus)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    size = os.path.getsize(path)
    print("RESULT %.6f %.6f %d %d %d %.6f" % (med, min(times), rss, rows, size, medc))
    sys.stderr.write("  %s %s: median %.3f s wall, %.3f s CPU (%.1f MB/s CPU), %d rows, peak RSS %.1f MB\n"
                     % (mode, path, med, medc, size / 1e6 / medc, rows, rss / 1024.0))


if __name__ == "__main__":
    main()
