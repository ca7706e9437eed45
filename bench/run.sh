#!/bin/sh
# bench/run.sh [BUILD] -- what `make bench` runs (not part of `make test`).
#
# Generates realistic large inputs from fixed seeds into BUILD/bench-data
# (kept between runs: a file already there is not written again) and, for
# each, measures side by side in the same run on the same file:
#   - perflab's full load (pl_load_file, every table) in MB/s and peak RSS,
#   - a memchr newline count in C (the machine's limit),
#   - what a user would otherwise run: a Python line parser (text formats),
#     pandas.read_csv and bare libcsv tokenising (CSV), json.load and
#     json.load + a pandas DataFrame of the events (Kineto).
# Every figure is the median of RUNS rounds -- each round runs every reader
# of a file once, in turn, one process per run -- timed inside the process
# (no interpreter or process start-up); MB = 1e6 bytes; peak RSS is ru_maxrss of
# the measuring process (the mapped file's pages included).  Then a table of
# the figures and the ratios against the targets of issue 4.
#
# Environment:
#   PERFLAB_BENCH_SCALE   multiplies every size (default 1; 0.1 = quick run)
#   PERFLAB_BENCH_RUNS    rounds per file (default 3)
#   PERFLAB_BENCH_DATA    where the inputs go (default BUILD/bench-data)
#   PERFLAB_BENCH_PYTHON  the Python with pandas (default /usr/bin/python3)
#   PERFLAB_BENCH_ONLY    space-separated subset of: kernel-table ncu-text nsys
#                         nvprof torch-table kineto kineto-small csv stats ranks nsys-sqlite
#                         recipes scale
#   scale: bench/scale.sh, parse and top-kernels on generated Kineto traces of
#   PERFLAB_BENCH_SCALE_SIZES (default "100 1000 4000 4000gz" MB, times
#   PERFLAB_BENCH_SCALE; a quick run: PERFLAB_BENCH_SCALE_SIZES=100),
#   written to a temporary folder and deleted after, beside the anchors
#   for the same question: memchr, simdjson On-Demand, DuckDB (2 threads),
#   Python json.load, with ratios
#   serve: bench/serve_load.py, 32 clients for 30 s on perflab serve (loopback),
#   a generated Kineto trace of PERFLAB_BENCH_SERVE_MB (1000) MB among the files
#   recipes: bench/recipes.sh, every bundled recipe beside `perflab parse` on
#   the Kineto trace and the ncu text, and top kernels against DuckDB
#   ranks: bench/ranks.sh, 8 rank traces of PERFLAB_BENCH_RANK_MB (125) MB
#   parsed by perflab.load_many on 1, 2 and all cores
#   sizes in MB (before scaling): PERFLAB_BENCH_KERNEL_TABLE_MB (1000),
#   PERFLAB_BENCH_NCU_TEXT_MB (500), PERFLAB_BENCH_KINETO_MB (1000),
#   PERFLAB_BENCH_KINETO_SMALL_MB (100), PERFLAB_BENCH_CSV_MB (1000),
#   PERFLAB_BENCH_TEXT_MB (100: the nsys, nvprof and torch-table text files)
#   PERFLAB_BENCH_NSYS_KERNELS (2000000: kernels, and as many launch calls, of
#   the generated Nsight Systems SQLite export; scaled like the sizes)
set -e
BUILD=${1:-build}
SCALE=${PERFLAB_BENCH_SCALE:-1}
RUNS=${PERFLAB_BENCH_RUNS:-3}
DATA=${PERFLAB_BENCH_DATA:-$BUILD/bench-data}
PY=${PERFLAB_BENCH_PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3
ONLY=${PERFLAB_BENCH_ONLY:-"kernel-table ncu-text nsys nvprof torch-table kineto kineto-small csv stats ranks nsys-sqlite recipes scale serve"}
HERE=$(cd "$(dirname "$0")" && pwd)

mb() { awk -v a="$1" -v s="$SCALE" 'BEGIN { v = a * s; if (v < 1) v = 1; printf "%d", v }'; }
KT_MB=$(mb "${PERFLAB_BENCH_KERNEL_TABLE_MB:-1000}")
NT_MB=$(mb "${PERFLAB_BENCH_NCU_TEXT_MB:-500}")
KI_MB=$(mb "${PERFLAB_BENCH_KINETO_MB:-1000}")
KS_MB=$(mb "${PERFLAB_BENCH_KINETO_SMALL_MB:-100}")
CSV_MB=$(mb "${PERFLAB_BENCH_CSV_MB:-1000}")
TX_MB=$(mb "${PERFLAB_BENCH_TEXT_MB:-100}")

want() { case " $ONLY " in *" $1 "*) return 0;; *) return 1;; esac; }

if [ -z "$PERFLAB_BENCH_NOBUILD" ]; then   # set by the CMake target, which builds them first
  echo "== building load_bench, gen_csv in $BUILD"
  cmake -S "$HERE/.." -B "$BUILD" >/dev/null      # picks up bench/*_bench.c
  cmake --build "$BUILD" --target load_bench gen_csv >/dev/null
fi
LB="$BUILD/load_bench"
mkdir -p "$DATA"
RES="$DATA/results.txt"
: > "$RES"

gen() {  # FILE CMD...: runs CMD (which names FILE) to write FILE unless it is there;
         # the generator writes FILE.part, renamed when complete
  f=$1; shift
  if [ -s "$f" ]; then return 0; fi
  echo "   generating $f"
  for a; do shift; if [ "$a" = "$f" ]; then set -- "$@" "$f.part"; else set -- "$@" "$a"; fi; done
  "$@" && mv "$f.part" "$f" || { rm -f "$f.part"; echo "generator failed: $*" >&2; exit 1; }
}

# The readers of one file are measured in rounds: each round runs every
# reader once (one run per process), in turn, and each figure is the median
# of its RUNS rounds.  So a drift of the machine's speed over the minutes a
# file takes falls on perflab and on what it is compared with alike, instead
# of on whichever ran during the slow minutes.
QDIR=$(mktemp -d)
trap 'rm -rf "$QDIR"' EXIT
NQ=0
# measure KEY LABEL CMD...: queues CMD (one run; it prints RESULT ...) for run_queue
measure() {
  NQ=$((NQ + 1))
  printf '%s\n' "$1" > "$QDIR/$NQ.key"
  printf '%s\n' "$2" > "$QDIR/$NQ.label"
  shift 2
  printf '%s\n' "$@" > "$QDIR/$NQ.cmd"
  : > "$QDIR/$NQ.out"
  rm -f "$QDIR/$NQ.failed"
}
median_of() {  # COLUMN FILE: the median of that column
  sort -g -k"$1","$1" "$2" | awk -v c="$1" '{ a[NR] = $c } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
# run_queue: RUNS rounds of the queued commands, then per command
# "KEY|LABEL|median_wall min_wall max_rss rows bytes median_cpu" appended to $RES
run_queue() {
  r=0
  while [ "$r" -lt "$RUNS" ]; do
    r=$((r + 1)); i=0
    while [ "$i" -lt "$NQ" ]; do
      i=$((i + 1))
      [ -f "$QDIR/$i.failed" ] && continue
      label=$(cat "$QDIR/$i.label")
      set --
      while IFS= read -r a; do set -- "$@" "$a"; done < "$QDIR/$i.cmd"
      out=$("$@") || { echo "   $label: FAILED ($*)" >&2; touch "$QDIR/$i.failed"; continue; }
      res=$(printf '%s\n' "$out" | sed -n 's/^RESULT //p')
      if [ -z "$res" ]; then
        echo "   $label: $(printf '%s\n' "$out" | head -1)" >&2
        touch "$QDIR/$i.failed"; continue
      fi
      printf '%s\n' "$res" >> "$QDIR/$i.out"
    done
  done
  i=0
  while [ "$i" -lt "$NQ" ]; do
    i=$((i + 1))
    [ -s "$QDIR/$i.out" ] && [ ! -f "$QDIR/$i.failed" ] || continue
    rest=$(awk 'NR == 1 || $2 < mn { mn = $2 } $3 > rss { rss = $3 } { rows = $4; bytes = $5 } END { print mn, rss, rows, bytes }' "$QDIR/$i.out")
    set -- $rest
    echo "$(cat "$QDIR/$i.key")|$(cat "$QDIR/$i.label")|$(median_of 1 "$QDIR/$i.out") $1 $2 $3 $4 $(median_of 6 "$QDIR/$i.out")" >> "$RES"
  done
  NQ=0
}

text_case() {  # KEY FILE FORMAT PYMODE
  measure "$1" "memchr newline count (C)" "$LB" memchr "$2" 1
  measure "$1" "perflab $3" "$LB" load "$2" "$3" 1
  measure "$1" "Python line parser" "$PY" "$HERE/py_bench.py" "$4" "$2" 1
  run_queue
}

if want kernel-table; then
  F="$DATA/kernel_table_${KT_MB}mb.txt"
  echo "== kernel table ($KT_MB MB)"
  gen "$F" python3 "$HERE/gen_text.py" kernel-table "$F" "$KT_MB"
  text_case kernel-table "$F" kernel-table kernel-table
fi
if want ncu-text; then
  F="$DATA/ncu_text_${NT_MB}mb.txt"
  echo "== ncu text ($NT_MB MB)"
  gen "$F" python3 "$HERE/gen_text.py" ncu-text "$F" "$NT_MB"
  # the default reading, and with the printed text of every number kept in
  # metrics.raw as well (--raw-text; shown, no target)
  measure ncu-text "memchr newline count (C)" "$LB" memchr "$F" 1
  measure ncu-text "perflab ncu-text" "$LB" load "$F" ncu-text 1
  measure ncu-text "perflab ncu-text --raw-text" env LB_RAW_TEXT=1 "$LB" load "$F" ncu-text 1
  measure ncu-text "Python line parser" "$PY" "$HERE/py_bench.py" ncu-text "$F" 1
  run_queue
fi
if want nsys; then
  F="$DATA/nsys_kern_sum_${TX_MB}mb.txt"
  echo "== nsys stats text ($TX_MB MB)"
  gen "$F" python3 "$HERE/gen_text.py" nsys "$F" "$TX_MB"
  text_case nsys "$F" nsys-stats columns
fi
if want nvprof; then
  F="$DATA/nvprof_gpu_trace_${TX_MB}mb.txt"
  echo "== nvprof --print-gpu-trace text ($TX_MB MB)"
  gen "$F" python3 "$HERE/gen_text.py" nvprof-trace "$F" "$TX_MB"
  # the default (every core) and one thread, side by side in the same rounds
  measure nvprof "memchr newline count (C)" "$LB" memchr "$F" 1
  measure nvprof "perflab nvprof" "$LB" load "$F" nvprof 1
  measure nvprof "perflab nvprof --jobs 1" env LB_JOBS=1 "$LB" load "$F" nvprof 1
  measure nvprof "Python line parser" "$PY" "$HERE/py_bench.py" columns "$F" 1
  run_queue
  F="$DATA/nvprof_gpu_trace_${TX_MB}mb.csv"
  echo "== nvprof --print-gpu-trace --csv ($TX_MB MB)"
  gen "$F" python3 "$HERE/gen_text.py" nvprof-trace-csv "$F" "$TX_MB"
  measure nvprof-csv "memchr newline count (C)" "$LB" memchr "$F" 1
  measure nvprof-csv "perflab nvprof" "$LB" load "$F" nvprof 1
  measure nvprof-csv "perflab nvprof --jobs 1" env LB_JOBS=1 "$LB" load "$F" nvprof 1
  run_queue
fi
if want torch-table; then
  F="$DATA/torch_table_${TX_MB}mb.txt"
  echo "== torch key_averages().table() text ($TX_MB MB)"
  gen "$F" python3 "$HERE/gen_text.py" torch-table "$F" "$TX_MB"
  text_case torch-table "$F" torch-table torch-table
fi
kineto_case() {  # KEY MB
  F="$DATA/kineto_${2}mb.json"
  echo "== Kineto trace ($2 MB)"
  gen "$F" python3 "$HERE/gen_kineto.py" "$2" "$F" --seed 1
  measure "$1" "memchr newline count (C)" "$LB" memchr "$F" 1
  measure "$1" "perflab kineto" "$LB" load "$F" kineto 1
  measure "$1" "perflab kineto --table kernels" "$LB" load "$F" kineto 1 kernels
  measure "$1" "Python json.load" "$PY" "$HERE/py_bench.py" json-load "$F" 1
  measure "$1" "json.load + pandas DataFrame" "$PY" "$HERE/py_bench.py" json-pandas "$F" 1
  run_queue
}
want kineto && kineto_case kineto "$KI_MB"
want kineto-small && kineto_case kineto-small "$KS_MB"
if want csv; then
  F="$DATA/ncu_raw_${CSV_MB}mb.csv"
  echo "== ncu raw CSV ($CSV_MB MB)"
  gen "$F" "$BUILD/gen_csv" "$F" "$CSV_MB"
  measure csv "memchr newline count (C)" "$LB" memchr "$F" 1
  measure csv "libcsv bare tokenising (C)" "$LB" libcsv "$F" 1
  measure csv "perflab csv" "$LB" load "$F" csv 1
  # what `perflab parse FILE` does with it: detected as ncu-csv (a raw page), a
  # long metrics table of every cell (not a target of the issue; shown so)
  measure csv "perflab ncu-csv (detected)" "$LB" load "$F" ncu-csv 1
  measure csv "perflab ncu-csv --table kernels" "$LB" load "$F" ncu-csv 1 kernels
  measure csv "pandas.read_csv" "$PY" "$HERE/py_bench.py" pandas-csv "$F" 1
  run_queue
fi

if want nsys-sqlite; then
  # an Nsight Systems SQLite export (bench/gen_nsys_sqlite.py: the corpus
  # schema, N kernels and N launch calls); perflab's load against the floor
  # (bench/nsys_sqlite_bench.c: a bare sqlite3_step loop over the same tables
  # and columns) and Python's sqlite3 fetching the same rows (targets of
  # issue 19: <= 1.5 x the floor, >= 5 x Python, on CPU time)
  NK=$(mb "${PERFLAB_BENCH_NSYS_KERNELS:-2000000}")
  F="$DATA/nsys_${NK}_kernels.sqlite"
  echo "== Nsight Systems SQLite export ($NK kernels)"
  if [ -z "$PERFLAB_BENCH_NOBUILD" ]; then cmake --build "$BUILD" --target nsys_sqlite_bench >/dev/null; fi
  gen "$F" "$PY" "$HERE/gen_nsys_sqlite.py" "$NK" "$F"
  measure nsys-sqlite "sqlite3_step floor (C)" "$BUILD/nsys_sqlite_bench" "$F" 1
  measure nsys-sqlite "perflab nsys-sqlite" "$LB" load "$F" nsys-sqlite 1
  measure nsys-sqlite "Python sqlite3, same columns" "$PY" "$HERE/nsys_sqlite_py.py" "$F" 1
  measure nsys-sqlite "Python sqlite3, SELECT *" "$PY" "$HERE/nsys_sqlite_py.py" --star "$F" 1
  run_queue
  awk -F'|' '$1 == "nsys-sqlite" { split($3, r, " "); c[$2] = r[6] }
    END { f = c["sqlite3_step floor (C)"]; p = c["perflab nsys-sqlite"]
      if (f > 0 && p > 0) printf "   perflab = %.2f x the sqlite3_step floor (target <= 1.5 x)  %s\n", p / f, (p / f <= 1.5 ? "met" : "NOT MET")
      split("Python sqlite3, same columns|Python sqlite3, SELECT *", ys, "|")
      for (i = 1; i <= 2; i++) { y = c[ys[i]]
        if (y > 0 && p > 0) printf "   perflab = %.1f x faster than %s (target >= 5 x)  %s\n", y / p, ys[i], (y / p >= 5 ? "met" : "NOT MET") }
      if (f > 0 && c[ys[1]] > 0) printf "   (the floor itself is %.1f x faster than Python on the same columns)\n", c[ys[1]] / f }' "$RES"
fi

[ -s "$RES" ] && {
echo
echo "perflab benchmark: $(uname -m), $(nproc) cores, $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "median of $RUNS rounds (each reader of a file once per round, in turn, one process per run), timed inside the process"
echo "(wall and the process's CPU time, user + system; ratios use CPU time);"
echo "MB = 1e6 bytes; peak RSS = ru_maxrss of the measuring process (the mapped file included)"
echo
awk -F'|' '
  { key = $1; label = $2; split($3, r, " "); wall = r[1]; rss = r[3]; rows = r[4]; bytes = r[5]; c = r[6]
    if (!(key in seen)) { seen[key] = 1; order[++nk] = key }
    n = ++cnt[key]; L[key, n] = label; W[key, n] = wall; T[key, n] = c; R[key, n] = rss; N[key, n] = rows; B[key] = bytes
    if (label ~ /^memchr/) mem[key] = c
    else if (label ~ /^libcsv/) lib[key] = c
    else if (label ~ /^perflab/ && !(key in pl)) { pl[key] = c; plrss[key] = rss }
    else if (label ~ /^perflab/) { pl2[key] = c; pl2rss[key] = rss; pl2l[key] = label; nx[key]++; XL[key, nx[key]] = label; XT[key, nx[key]] = c; XR[key, nx[key]] = rss }
    else if (label ~ /^Python line|^pandas.read_csv|^Python json.load/) base[key] = c
  }
  END {
    printf "%-13s %7s  %-31s %8s %8s %9s %10s %6s %10s\n", "input", "MB", "reader", "wall s", "CPU s", "MB/s CPU", "peak RSS", "x file", "rows"
    printf "%-13s %7s  %-31s %8s %8s %9s %10s %6s %10s\n", "-----", "--", "------", "------", "-----", "--------", "--------", "------", "----"
    for (k = 1; k <= nk; k++) {
      key = order[k]; mbs = B[key] / 1e6
      for (i = 1; i <= cnt[key]; i++)
        printf "%-13s %7.1f  %-31s %8.3f %8.3f %9.1f %7.1f MB %6.2f %10d\n", (i == 1 ? key : ""), mbs, L[key, i], W[key, i], T[key, i],
               (T[key, i] > 0 ? mbs / T[key, i] : 0), R[key, i] / 1024, R[key, i] * 1024 / B[key], N[key, i]
    }
    print ""
    print "targets (issue 4), on CPU time:"
    for (k = 1; k <= nk; k++) {
      key = order[k]
      if (!(key in pl)) continue
      if (key ~ /^kineto/) {
        if (key in base) { x = base[key] / pl[key]; printf "  %-13s perflab = %5.1f x json.load             (target >= 10 x)   %s\n", key, x, (x >= 10 ? "met" : "NOT MET") }
        y = plrss[key] * 1024 / B[key]
        printf "  %-13s peak RSS = %4.2f x the file            (target <= 1.5 x)  %s\n", key, y, (y <= 1.5 ? "met" : "NOT MET")
        if (key in pl2) printf "  %-13s peak RSS = %4.2f x the file with --table kernels\n", key, pl2rss[key] * 1024 / B[key]
        printf "  %-13s perflab = %4.0f MB/s, %4.1f %% of the memchr rate (aim 400 MB/s)\n", key, B[key] / 1e6 / pl[key], 100 * mem[key] / pl[key]
      } else if (key == "csv") {
        if (key in base) { x = base[key] / pl[key]; printf "  %-13s perflab = %5.1f x pandas.read_csv       (target >= 2 x)    %s\n", key, x, (x >= 2 ? "met" : "NOT MET") }
        if (key in lib) { y = pl[key] / lib[key]; printf "  %-13s perflab time = %4.2f x bare libcsv       (target <= 1.3 x)  %s\n", key, y, (y <= 1.3 ? "met" : "NOT MET") }
        for (i = 1; i <= nx[key]; i++) if (key in base)
          printf "  %-13s %s = %5.1f x pandas.read_csv, peak RSS %4.2f x the file (no target)\n", key, XL[key, i], base[key] / XT[key, i], XR[key, i] * 1024 / B[key]
      } else {
        if (key in base) { x = base[key] / pl[key]; printf "  %-13s perflab = %5.1f x the Python parser     (target >= 10 x)   %s\n", key, x, (x >= 10 ? "met" : "NOT MET") }
        if (key in mem) printf "  %-13s perflab = %4.1f %% of the memchr rate    (aim 25 %%)\n", key, 100 * mem[key] / pl[key]
      }
    }
  }' "$RES"
}

# the statistics benchmark (bench/stats_bench.c and bench/stats_numpy.py, from the stats work), when present
if want stats && [ -f "$HERE/stats_bench.c" ]; then
  echo
  echo "== statistics (bench/stats_bench.c; NumPy/SciPy by bench/stats_numpy.py on the same data)"
  if [ -z "$PERFLAB_BENCH_NOBUILD" ]; then cmake --build "$BUILD" --target stats_bench >/dev/null 2>&1 || true; fi
  if [ ! -x "$BUILD/stats_bench" ]; then
    echo "   stats_bench could not be built"
  elif [ -f "$HERE/stats_numpy.py" ] && "$PY" -c "import numpy, scipy" 2>/dev/null; then
    "$PY" "$HERE/stats_numpy.py" "$BUILD/stats_bench" "$DATA"
  else
    echo "   (NumPy/SciPy not installed for $PY: perflab's own times only)"
    "$BUILD/stats_bench" "$DATA"
  fi
fi

# several rank traces of one job parsed on 1, 2 and all cores (issue 20)
if want ranks; then
  echo
  PERFLAB_BENCH_DATA="$DATA" PERFLAB_BENCH_RUNS="$RUNS" sh "$HERE/ranks.sh" "$BUILD" 8 "$(mb "${PERFLAB_BENCH_RANK_MB:-125}")"
fi

# every bundled recipe beside the parse of the same file (issue 17)
if want recipes; then
  echo
  PERFLAB_BENCH_DATA="$DATA" sh "$HERE/recipes.sh" "$BUILD"
fi

# perflab at 100 MB, 1 GB, 4 GB and a 4 GB .gz, and the anchors (issue 31)
if want scale; then
  echo
  # the sizes scale with PERFLAB_BENCH_SCALE like the others (0.1: 10, 100, 400 MB)
  SZ=${PERFLAB_BENCH_SCALE_SIZES:-"$(mb 100) $(mb 1000) $(mb 4000) $(mb 4000)gz"}
  PERFLAB_BENCH_SCALE_SIZES="$SZ" PERFLAB_BENCH_DATA="$DATA" PERFLAB_BENCH_RUNS="$RUNS" sh "$HERE/scale.sh" "$BUILD"
fi

# perflab serve under load: 32 clients, 30 s, loopback only (issue 33)
if want serve; then
  echo
  "$PY" "$HERE/serve_load.py" "$BUILD/perflab" --big-mb "$(mb "${PERFLAB_BENCH_SERVE_MB:-1000}")" --data "$DATA"
fi
