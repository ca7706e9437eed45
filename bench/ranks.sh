#!/bin/sh
# bench/ranks.sh [BUILD] [RANKS] [MB] -- loading one job's rank traces on
# several threads: RANKS generated Kineto traces of MB each (default 8 x 125,
# tools/gen_rank_traces.py --size-mb, seed 1) parsed by perflab.load_many
# with jobs = 1, 2 and the core count, RUNS rounds (default 3) in turn;
# prints the median wall time of each and the ratio --jobs 2 / --jobs 1
# (issue 20's target: <= 0.6 on a 2-core machine).  Only the parse is
# timed (load_many, every table), not a recipe.
# Environment: PERFLAB_BENCH_DATA (default BUILD/bench-data), PERFLAB_BENCH_RUNS.
set -e
BUILD=${1:-build}
N=${2:-8}
MB=${3:-125}
RUNS=${PERFLAB_BENCH_RUNS:-3}
HERE=$(cd "$(dirname "$0")" && pwd)
DATA=${PERFLAB_BENCH_DATA:-$BUILD/bench-data}/ranks-$N-${MB}mb
PL="$BUILD/perflab"
if [ ! -s "$DATA/rank-$((N - 1)).json" ]; then
  echo "   generating $N rank traces of $MB MB in $DATA"
  python3 "$HERE/../tools/gen_rank_traces.py" "$DATA" --ranks "$N" --size-mb "$MB" --seed 1
fi
FILES=""
r=0
while [ "$r" -lt "$N" ]; do FILES="$FILES $DATA/rank-$r.json"; r=$((r + 1)); done
CORES=$("$PL" -e 'print(require("perflab.formats").cores())')
BYTES=$(cat $FILES | wc -c)
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT
for round in $(seq "$RUNS"); do
  for j in 1 2 "$CORES"; do
    "$PL" "$HERE/load_many.lua" "$j" $FILES >> "$OUT"
  done
done
echo "== load_many: $N rank traces, $(awk -v b="$BYTES" 'BEGIN { printf "%.0f", b / 1e6 }') MB in all, $CORES cores, median of $RUNS rounds"
awk -v bytes="$BYTES" '
  { n[$1]++; t[$1, n[$1]] = $2 }
  END {
    for (j in n) {
      m = n[j]; for (a = 1; a <= m; a++) v[a] = t[j, a]
      for (a = 1; a <= m; a++) for (b = a + 1; b <= m; b++) if (v[b] < v[a]) { x = v[a]; v[a] = v[b]; v[b] = x }
      med[j] = (m % 2) ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
      printf "  --jobs %-3s wall %7.2f s  %7.0f MB/s\n", j, med[j], bytes / 1e6 / med[j]
    }
    if ((1 in med) && (2 in med))
      printf "  --jobs 2 / --jobs 1 = %.2f   (target <= 0.6 on 2 cores)  %s\n", med[2] / med[1], (med[2] / med[1] <= 0.6 ? "met" : "NOT MET")
  }' "$OUT"
