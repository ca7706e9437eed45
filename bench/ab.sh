#!/bin/bash
# bench/ab.sh ROUNDS FILE FORMAT LOAD_BENCH... -- A/B of load_bench binaries
# (e.g. a copy of build/load_bench before a change and one after) on one
# file: each binary loads FILE once per round, in turn, so a drift of the
# machine's speed falls on all of them alike; prints per binary the minimum
# and the median CPU seconds of the rounds.  FORMAT libcsv times bare libcsv.
#   cp build/load_bench /tmp/lb_old; ...change, build load_bench...
#   bench/ab.sh 9 build/bench-data/nvprof_gpu_trace_100mb.txt nvprof /tmp/lb_old build/load_bench
set -e
[ $# -ge 4 ] || { sed -n '2,9p' "$0" >&2; exit 2; }
R=$1; F=$2; FMT=$3; shift 3
for r in $(seq "$R"); do
  for b in "$@"; do
    if [ "$FMT" = libcsv ]; then out=$("$b" libcsv "$F" 1 2>/dev/null); else out=$("$b" load "$F" "$FMT" 1 2>/dev/null); fi
    echo "$b $(printf '%s\n' "$out" | awk '/^RESULT/ { print $7 }')"
  done
done | awk '{ n[$1]++; v[$1, n[$1]] = $2; if (!($1 in seen)) { seen[$1] = 1; order[++k] = $1 } }
  END {
    for (i = 1; i <= k; i++) {
      b = order[i]; m = n[b]
      for (x = 1; x <= m; x++) a[x] = v[b, x]
      for (x = 2; x <= m; x++) { t = a[x]; y = x - 1; while (y > 0 && a[y] > t) { a[y + 1] = a[y]; y-- } a[y + 1] = t }
      med = m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
      printf "%-28s min %.3f  median %.3f  CPU s (%d rounds)\n", b, a[1], med, m
    }
  }'
