#!/bin/sh
# bench/scale.sh [BUILD] -- the scale and anchors section of `make bench`
# (issue 31, points 3 and 5).
#
# For each size of Kineto trace (bench/gen_kineto.py MB --seed 1, generated
# into a fresh temporary folder and deleted at the end: a 4 GB trace takes
# 4 GB of disk, its .gz about 0.5 GB more), measures side by side, in rounds
# (each command once per round, in turn, one process each, /usr/bin/time -v):
#   perflab parse FILE                   the full load, every table
#   perflab run top-kernels FILE         the question: kernels by total time
# and, on the same file, the anchors for the same question:
#   memchr      a newline count over the mapped file (the limit: read it once;
#               for a .gz, `gzip -dc` alone, inflating it once, and zlib's
#               inflate alone, bench/inflate_alone.c: perflab's inflater)
#   simdjson    bench/simdjson_top.cpp, simdjson On-Demand, built here with
#               c++ -O3 -march=native when libsimdjson-dev is installed
#               (a bench-only program, never a dependency of perflab)
#   duckdb      bench/duckdb_top.mjs, DuckDB with 2 threads (npm package
#               @duckdb/node-api, installed into DATA/duckdb)
#   python      bench/py_top.py, json.load then a dict of sums
# Prints per size: median wall and CPU time, peak RSS (max of the rounds) and
# RSS / file, MB/s, and each reader's ratio to perflab top-kernels; the
# anchors run on plain files up to PERFLAB_BENCH_ANCHOR_MB (their memory
# grows to several times the file: json.load of 1 GB takes ~10 GB).
#
# Environment:
#   PERFLAB_BENCH_SCALE_SIZES  sizes in MB, a "gz" suffix for the gzipped
#                              trace (default "100 1000 4000 4000gz"; a quick
#                              run: "100")
#   PERFLAB_BENCH_ANCHORS      subset of: memchr simdjson duckdb python
#                              (default all)
#   PERFLAB_BENCH_ANCHOR_MB    largest plain size the anchors but memchr run on
#                              (default 1000)
#   PERFLAB_BENCH_PYTHON_MB    largest size the Python anchor runs on (default
#                              the same as PERFLAB_BENCH_ANCHOR_MB)
#   PERFLAB_BENCH_DUCKDB_MB    largest size the DuckDB anchor runs on (default
#                              the same as PERFLAB_BENCH_ANCHOR_MB; at 1 GB it
#                              takes minutes a round)
#   PERFLAB_BENCH_RUNS         rounds (default 3; the median is printed)
#   PERFLAB_BENCH_SCALE_TMP    where the traces go (default: mktemp -d in
#                              ${TMPDIR:-/tmp}; removed at the end)
#   PERFLAB_BENCH_DATA         where DuckDB is installed (default BUILD/bench-data)
#   PERFLAB_BENCH_SCALE_KEEP   a folder where the traces are kept between runs
#                              (kineto_MBmb.json[.gz], generated there when
#                              absent, never deleted): generating 4 GB takes
#                              minutes, so a second run at idle reuses them
set -e
BUILD=${1:-build}
RUNS=${PERFLAB_BENCH_RUNS:-3}
SIZES=${PERFLAB_BENCH_SCALE_SIZES:-"100 1000 4000 4000gz"}
ANCHORS=${PERFLAB_BENCH_ANCHORS:-"memchr simdjson duckdb python"}
AMAX=${PERFLAB_BENCH_ANCHOR_MB:-1000}
PYMAX=${PERFLAB_BENCH_PYTHON_MB:-$AMAX}
DDMAX=${PERFLAB_BENCH_DUCKDB_MB:-$AMAX}
DATA=${PERFLAB_BENCH_DATA:-$BUILD/bench-data}
HERE=$(cd "$(dirname "$0")" && pwd)
PL=$(cd "$BUILD" && pwd)/perflab
ROOT=$(cd "$HERE/.." && pwd)
PY=${PERFLAB_BENCH_PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3
[ -x "$PL" ] || { echo "no $PL: build first (make build)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "scale bench: /usr/bin/time (package time) is needed" >&2; exit 2; }
anchor() { case " $ANCHORS " in *" $1 "*) return 0;; *) return 1;; esac; }
mkdir -p "$DATA"
DATA=$(cd "$DATA" && pwd)
if [ -n "$PERFLAB_BENCH_SCALE_TMP" ]; then mkdir -p "$PERFLAB_BENCH_SCALE_TMP"; TMP=$(mktemp -d "$PERFLAB_BENCH_SCALE_TMP/scale.XXXXXX")
else TMP=$(mktemp -d "${TMPDIR:-/tmp}/perflab-scale.XXXXXX"); fi
trap 'rm -rf "$TMP"' EXIT INT TERM

# the anchors' programs
MEMCHR="$TMP/memchr_lines"
cc -O2 -o "$MEMCHR" "$HERE/memchr_lines.c"
cc -O2 -o "$TMP/inflate_alone" "$HERE/inflate_alone.c" -lz
SJ=""
if anchor simdjson; then
  if [ -f /usr/include/simdjson.h ] && command -v c++ > /dev/null 2>&1 &&
     c++ -O3 -march=native -o "$TMP/simdjson_top" "$HERE/simdjson_top.cpp" -lsimdjson 2> "$TMP/cxx.log"; then
    SJ="$TMP/simdjson_top"
  else
    echo "simdjson anchor: skipped (apt-get install libsimdjson-dev g++)"
  fi
fi
DD=""
if anchor duckdb; then
  DDIR="$DATA/duckdb"
  if ! command -v npm > /dev/null 2>&1 || ! command -v node > /dev/null 2>&1; then
    echo "DuckDB anchor: skipped (npm or node not installed; apt-get install npm)"
  elif [ -d "$DDIR/node_modules/@duckdb/node-api" ] || { mkdir -p "$DDIR" && npm install --prefix "$DDIR" --no-audit --no-fund @duckdb/node-api > "$TMP/npm.log" 2>&1; }; then
    cp "$HERE/duckdb_top.mjs" "$DDIR/top.mjs"
    DD="$DDIR"
  else
    echo "DuckDB anchor: skipped (npm install @duckdb/node-api failed: $(tail -1 "$TMP/npm.log"))"
  fi
fi

# one run of CMD... as "wall cpu rss_kb status" (/usr/bin/time -v); stdout to $TMP/out
timed() {
  st=0
  /usr/bin/time -v -o "$TMP/time" "$@" > "$TMP/out" 2> "$TMP/err" || st=$?
  awk -v st="$st" '
    /Elapsed \(wall clock\)/ { n = split($NF, a, ":"); wall = (n == 3 ? a[1] * 3600 + a[2] * 60 + a[3] : a[1] * 60 + a[2]) }
    /User time/ { u = $NF } /System time/ { s = $NF } /Maximum resident set size/ { rss = $NF }
    END { printf "%.3f %.3f %d %d\n", wall, u + s, rss, st }' "$TMP/time"
}

gen() {  # MB FILE
  echo "   generating $2 ($1 MB)"
  nice python3 "$HERE/gen_kineto.py" "$1" "$2.part" --seed 1 && mv "$2.part" "$2"
}

echo "perflab scale and anchors benchmark: $(nproc) cores, $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)"
echo "load average at the start $(cut -d' ' -f1-3 /proc/loadavg); median of $RUNS rounds, /usr/bin/time -v; traces in $TMP"
SUMMARY="$TMP/summary"
: > "$SUMMARY"
for s in $SIZES; do
  mbv=${s%gz}
  gz=""; [ "$mbv" != "$s" ] && gz=1
  plain="$TMP/kineto_${mbv}mb.json"
  [ -n "$PERFLAB_BENCH_SCALE_KEEP" ] && { mkdir -p "$PERFLAB_BENCH_SCALE_KEEP"; plain="$PERFLAB_BENCH_SCALE_KEEP/kineto_${mbv}mb.json"; }
  need=$((mbv * 13 / 10))
  avail=$(df -Pm "$(dirname "$plain")" | awk 'NR == 2 { print $4 }')
  if [ ! -s "$plain" ] && [ "$avail" -lt "$need" ]; then
    echo "== $s MB: skipped (needs ~$need MB in $TMP, $avail MB free)"; continue
  fi
  [ -s "$plain" ] || gen "$mbv" "$plain"
  f=$plain
  if [ -n "$gz" ]; then
    f="$plain.gz"
    [ -s "$f" ] || { echo "   gzip -6 $plain"; nice gzip -6 -c "$plain" > "$f.part" && mv "$f.part" "$f"; }
  fi
  # a plain trace no later size uses is deleted once measured (disk)
  keep=""
  for t in $SIZES; do [ "$t" = "${mbv}gz" ] && [ "$t" != "$s" ] && keep=1; done
  bytes=$(wc -c < "$f"); ubytes=$(wc -c < "$plain")
  # the commands: label then argv, one a line in $TMP/cmds/N
  rm -rf "$TMP/cmds"; mkdir "$TMP/cmds"; n=0
  add() { n=$((n + 1)); printf '%s\n' "$@" > "$TMP/cmds/$n"; }
  if [ -n "$gz" ]; then
    anchor memchr && add "gzip -dc (inflate alone)" sh -c 'gzip -dc "$1" > /dev/null' sh "$f"
    anchor memchr && add "zlib inflate alone" "$TMP/inflate_alone" "$f" zlib
  else
    anchor memchr && add "memchr (read once)" "$MEMCHR" "$f"
  fi
  add "perflab parse" "$PL" parse "$f"
  add "perflab top-kernels" "$PL" run top-kernels "$f" --format json
  if [ -z "$gz" ] && [ "$mbv" -le "$AMAX" ]; then
    [ -n "$SJ" ] && add "simdjson On-Demand" "$SJ" "$f"
    [ -n "$DD" ] && [ "$mbv" -le "$DDMAX" ] && add "DuckDB (2 threads)" sh -c 'cd "$1" && exec node top.mjs "$2"' sh "$DD" "$f"
    anchor python && [ "$mbv" -le "$PYMAX" ] && add "Python json.load" "$PY" "$HERE/py_top.py" "$f"
  fi
  echo "== $s: $f ($((bytes / 1000000)) MB$([ -n "$gz" ] && echo ", $((ubytes / 1000000)) MB inflated"))"
  r=0
  while [ "$r" -lt "$RUNS" ]; do
    r=$((r + 1)); i=0
    while [ "$i" -lt "$n" ]; do
      i=$((i + 1))
      [ -f "$TMP/cmds/$i.failed" ] && continue
      set --; first=1
      while IFS= read -r a; do if [ -n "$first" ]; then first=""; else set -- "$@" "$a"; fi; done < "$TMP/cmds/$i"
      res=$(cd "$ROOT" && timed "$@")
      case "$res" in
        *" 0") echo "$res" >> "$TMP/cmds/$i.res" ;;
        *) echo "   $(head -1 "$TMP/cmds/$i"): failed ($res): $(head -3 "$TMP/err")"; touch "$TMP/cmds/$i.failed" ;;
      esac
    done
  done
  i=0
  while [ "$i" -lt "$n" ]; do
    i=$((i + 1))
    [ -s "$TMP/cmds/$i.res" ] && [ ! -f "$TMP/cmds/$i.failed" ] || continue
    w=$(sort -g -k1,1 "$TMP/cmds/$i.res" | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }')
    c=$(sort -g -k2,2 "$TMP/cmds/$i.res" | awk '{ a[NR] = $2 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }')
    rss=$(awk '$3 > m { m = $3 } END { print m }' "$TMP/cmds/$i.res")
    echo "$s|$bytes|$ubytes|$(head -1 "$TMP/cmds/$i")|$w $c $rss" >> "$SUMMARY"
  done
  awk -F'|' -v s="$s" '
    $1 == s { split($5, v, " "); n++; L[n] = $4; W[n] = v[1]; C[n] = v[2]; R[n] = v[3]; B = $2; U = $3
              if ($4 == "perflab top-kernels") { tw = v[1]; tc = v[2]; tr = v[3] } }
    END {
      printf "%-26s %8s %8s %9s %10s %8s %9s %9s %9s\n", "reader", "wall s", "CPU s", "MB/s CPU", "peak RSS", "x file", "wall / pl", "CPU / pl", "RSS / pl"
      for (i = 1; i <= n; i++)
        printf "%-26s %8.2f %8.2f %9.0f %7.0f MB %8.2f %9s %9s %9s\n", L[i], W[i], C[i], (C[i] > 0 ? U / 1e6 / C[i] : 0), R[i] / 1024, R[i] * 1024 / U,
               (tw > 0 ? sprintf("%.2f", W[i] / tw) : "-"), (tc > 0 ? sprintf("%.2f", C[i] / tc) : "-"), (tr > 0 ? sprintf("%.2f", R[i] / tr) : "-")
      print "(MB/s: of CPU time; MB/s and x file against the inflated size; x / pl: the reader against perflab top-kernels, same rounds)"
    }' "$SUMMARY"
  if [ -z "$PERFLAB_BENCH_SCALE_KEEP" ]; then
    [ -n "$keep" ] || rm -f "$plain"
    if [ -n "$gz" ]; then rm -f "$f" "$plain"; fi
  fi
  echo
done

# linear growth: perflab's rate at each size
echo "perflab by size (wall; MB/s of the inflated trace; RSS / file; targets: time linear, RSS <= 0.4 x the file, <= 2 GB at 4 GB):"
awk -F'|' '$4 ~ /^perflab/ { split($5, v, " ")
  printf "  %-7s %-20s %8.2f s %6.0f MB/s  RSS %6.0f MB = %.2f x\n", $1, $4, v[1], (v[1] > 0 ? $3 / 1e6 / v[1] : 0), v[3] / 1024, v[3] * 1024 / $3 }' "$SUMMARY"
echo "load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
