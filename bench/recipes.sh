#!/bin/sh
# bench/recipes.sh [BUILD] -- the recipes section of `make bench` (issue 17).
#
# For the Kineto trace of `bench/gen_kineto.py MB --seed 1` and the ncu
# details text of `bench/gen_text.py ncu-text`, runs `perflab parse FILE`
# and then every bundled recipe on the same file in the same run
# (`perflab run RECIPE FILE --format json`, report to /dev/null), one process
# each, timed by /usr/bin/time -v: wall, CPU (user + system) and peak RSS.
# Prints each recipe beside the parse with the ratios (wall, and CPU, which
# a loaded machine disturbs less) and the targets of
# issue 17 (wall <= 2 x the parse, peak RSS <= 1.5 x the file).  A recipe
# that does not apply to the input (exit 2: it needs tables the format
# lacks) is listed as such.  Then, on the small trace, "top kernels by total
# time": perflab's top-kernels against DuckDB reading the same JSON with 2
# threads (npm package @duckdb/node-api, installed into DATA/duckdb by npm;
# skipped with a note where npm or node is absent or the install fails).
#
# Environment (sizes in MB, multiplied by PERFLAB_BENCH_SCALE, default 1):
#   PERFLAB_BENCH_RECIPES_KINETO_MB (1000)  PERFLAB_BENCH_RECIPES_NCU_MB (500)
#   PERFLAB_BENCH_RECIPES_SMALL_MB (100: the DuckDB comparison)
#   PERFLAB_BENCH_RECIPES   space-separated recipes (default: every bundled one
#                           but diff and suspicion, which take two profiles)
#   PERFLAB_BENCH_RECIPE_INPUTS  subset of: kineto kineto-wild kineto-memory
#                           ncu-text duckdb
#                           (kineto-wild: a trace of gen_kineto.py
#                           --wild-shapes, nearly every launch a shape of its
#                           own, some that cannot run: the recipes' hard case;
#                           kineto-memory: the same trace written with
#                           gen_kineto.py --memory, paired allocations and
#                           frees; the memory recipe only)
#   PERFLAB_BENCH_RECIPES_WILD_MB (300)  the size of the kineto-wild trace
#   PERFLAB_BENCH_RUNS      runs of each command, the best kept (default 1)
#   PERFLAB_BENCH_DATA      where the inputs go (default BUILD/bench-data)
set -e
BUILD=${1:-build}
SCALE=${PERFLAB_BENCH_SCALE:-1}
RUNS=${PERFLAB_BENCH_RUNS:-1}
DATA=${PERFLAB_BENCH_DATA:-$BUILD/bench-data}
HERE=$(cd "$(dirname "$0")" && pwd)
PL=$(cd "$BUILD" && pwd)/perflab
INPUTS=${PERFLAB_BENCH_RECIPE_INPUTS:-"kineto kineto-wild kineto-memory ncu-text duckdb"}
mb() { awk -v a="$1" -v s="$SCALE" 'BEGIN { v = a * s; if (v < 1) v = 1; printf "%d", v }'; }
KI_MB=$(mb "${PERFLAB_BENCH_RECIPES_KINETO_MB:-1000}")
NT_MB=$(mb "${PERFLAB_BENCH_RECIPES_NCU_MB:-500}")
KS_MB=$(mb "${PERFLAB_BENCH_RECIPES_SMALL_MB:-100}")
KW_MB=$(mb "${PERFLAB_BENCH_RECIPES_WILD_MB:-300}")
want() { case " $INPUTS " in *" $1 "*) return 0;; *) return 1;; esac; }
[ -x "$PL" ] || { echo "no $PL: build first (make build)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "recipes bench: /usr/bin/time (package time) is needed" >&2; exit 2; }
RECIPES=${PERFLAB_BENCH_RECIPES:-$(cd "$HERE/.." && "$PL" recipes | tail -n +3 | awk '$1 != "diff" && $1 != "suspicion" { print $1 }')}
mkdir -p "$DATA"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

gen() {  # FILE CMD...: runs CMD (which names FILE) to write FILE unless it is
         # there; the generator writes FILE.part, renamed when complete
  f=$1; shift
  [ -s "$f" ] && return 0
  echo "   generating $f"
  for a; do shift; if [ "$a" = "$f" ]; then set -- "$@" "$f.part"; else set -- "$@" "$a"; fi; done
  "$@" && mv "$f.part" "$f" || { rm -f "$f.part"; echo "generator failed: $*" >&2; exit 1; }
}

# timed CMD...: best of RUNS (least wall) as "wall cpu rss_kb status"
timed() {
  best=""
  r=0
  while [ "$r" -lt "$RUNS" ]; do
    r=$((r + 1))
    st=0
    /usr/bin/time -v -o "$TMP/time" "$@" > /dev/null 2> "$TMP/err" || st=$?
    line=$(awk -v st="$st" '
      /Elapsed \(wall clock\)/ { n = split($NF, a, ":"); wall = (n == 3 ? a[1] * 3600 + a[2] * 60 + a[3] : a[1] * 60 + a[2]) }
      /User time/ { u = $NF } /System time/ { s = $NF } /Maximum resident set size/ { rss = $NF }
      END { printf "%.2f %.2f %d %d\n", wall, u + s, rss, st }' "$TMP/time")
    if [ -z "$best" ] || [ "$(echo "$line $best" | awk '{ print ($1 < $5) }')" = 1 ]; then best=$line; fi
  done
  echo "$best"
}

# variants RECIPE: the rows timed for RECIPE, "LABEL [OPTIONS]" each.
# critical-path: its first step and the whole trace (issue 27's two
# targets), with allow_missing_sync as the generated traces have no
# cuda_sync events (without it the recipe only says why it cannot run)
variants() {
  case $1 in
    critical-path)
      echo "crit-path:step --set allow_missing_sync=true"
      echo "crit-path:whole --set allow_missing_sync=true --set annotation="
      ;;
    *) echo "$1" ;;
  esac
}

# one_file KEY FILE: parse, then every recipe, then the table of ratios
one_file() {
  key=$1; f=$2
  bytes=$(wc -c < "$f")
  : > "$TMP/res"
  echo "== $key: $f ($((bytes / 1000000)) MB)"
  echo "parse $(timed "$PL" parse "$f")" >> "$TMP/res"
  for r in $RECIPES; do
    variants "$r" | while read -r label args; do
      # shellcheck disable=SC2086 # args: options split on purpose
      echo "$label $(cd "$HERE/.." && timed "$PL" run "$r" "$f" --format json $args)" >> "$TMP/res"
    done
  done
  awk -v bytes="$bytes" '
    NR == 1 { pw = $2; pc = $3; prss = $4 }
    { name[NR] = $1; w[NR] = $2; c[NR] = $3; rss[NR] = $4; st[NR] = $5 }
    END {
      printf "%-16s %8s %8s %10s %8s %8s %8s  %s\n", "command", "wall s", "CPU s", "peak RSS", "x parse", "x CPU", "x file", "targets (<= 2 x parse wall, <= 1.5 x file RSS)"
      for (i = 1; i <= NR; i++) {
        if (i > 1 && st[i] == 2) { printf "%-16s %8.2f %8.2f %7.0f MB  %s\n", name[i], w[i], c[i], rss[i] / 1024, "(does not apply to this input: exit 2)"; continue }
        xw = pw > 0 ? w[i] / pw : 0; xc = pc > 0 ? c[i] / pc : 0; xr = rss[i] * 1024 / bytes
        v = ""
        if (i > 1) v = (xw <= 2 ? "wall met" : "wall NOT MET") ", " (xr <= 1.5 ? "RSS met" : "RSS NOT MET")
        if (st[i] != 0 && st[i] != 1) v = v " (exit " st[i] ")"
        printf "%-16s %8.2f %8.2f %7.0f MB %8.2f %8.2f %8.2f  %s\n", (i == 1 ? "perflab parse" : name[i]), w[i], c[i], rss[i] / 1024, xw, xc, xr, v
      }
    }' "$TMP/res"
  echo
}

echo "perflab recipes benchmark: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); best of $RUNS run(s), /usr/bin/time -v"
if want kineto; then
  F="$DATA/kineto_${KI_MB}mb.json"
  gen "$F" python3 "$HERE/gen_kineto.py" "$KI_MB" "$F" --seed 1
  one_file kineto "$F"
fi
if want kineto-wild; then
  F="$DATA/kineto_${KW_MB}mb_wild.json"
  gen "$F" python3 "$HERE/gen_kineto.py" "$KW_MB" "$F" --seed 1 --wild-shapes
  one_file kineto-wild "$F"
fi
if want kineto-memory; then
  F="$DATA/kineto_${KI_MB}mb_memory.json"
  gen "$F" python3 "$HERE/gen_kineto.py" "$KI_MB" "$F" --seed 1 --memory
  ALL=$RECIPES; RECIPES=memory
  one_file kineto-memory "$F"
  RECIPES=$ALL
fi
if want ncu-text; then
  F="$DATA/ncu_text_${NT_MB}mb.txt"
  gen "$F" python3 "$HERE/gen_text.py" ncu-text "$F" "$NT_MB"
  one_file ncu-text "$F"
fi

# top kernels by total time on the small trace: perflab against DuckDB (2 threads)
if want duckdb; then
  F="$DATA/kineto_${KS_MB}mb.json"
  gen "$F" python3 "$HERE/gen_kineto.py" "$KS_MB" "$F" --seed 1
  echo "== top kernels by total time, $F ($(($(wc -c < "$F") / 1000000)) MB)"
  echo "perflab top-kernels  $(cd "$HERE/.." && timed "$PL" run top-kernels "$F" --format json)" | awk '{ printf "%-22s wall %6.2f s  CPU %6.2f s  peak RSS %6.0f MB\n", $1 " " $2, $3, $4, $5 / 1024 }'
  DDIR="$DATA/duckdb"
  if ! command -v npm > /dev/null 2>&1 || ! command -v node > /dev/null 2>&1; then
    echo "DuckDB: skipped (npm or node not installed; apt-get install npm)"
  elif ! { [ -d "$DDIR/node_modules/@duckdb/node-api" ] || { mkdir -p "$DDIR" && npm install --prefix "$DDIR" --no-audit --no-fund @duckdb/node-api > "$TMP/npm.log" 2>&1; }; }; then
    echo "DuckDB: skipped (npm install @duckdb/node-api failed: $(tail -1 "$TMP/npm.log"))"
  else
    cp "$HERE/duckdb_top.mjs" "$DDIR/top.mjs"
    res=$(cd "$DDIR" && timed node top.mjs "$F")
    echo "duckdb $res" | awk '{ if ($5 != 0) print "DuckDB: failed (exit " $5 ")"; else printf "%-22s wall %6.2f s  CPU %6.2f s  peak RSS %6.0f MB\n", "DuckDB (2 threads)", $2, $3, $4 / 1024 }'
    [ "$(echo "$res" | awk '{ print $4 }')" = 0 ] || sed -n 1,5p "$TMP/err"
  fi
fi
