#!/bin/sh
# bench/kineto.sh [BUILD] [SIZE_MB] -- Kineto JSON reading: perflab vs a memchr
# line count (machine limit) vs Python's json.load (and a pandas DataFrame of
# the events when python3-pandas is installed), on one generated trace.
# Prints wall time, CPU time (user+sys: fair on a shared machine), MB/s and
# peak RSS (from /usr/bin/time -v) for each.  Then the trace gzipped (gzip -6):
# perflab parse of the .gz (inflated on a thread while it is parsed) beside
# zcat > /dev/null and the inflaters alone (bench/inflate_alone.c: zlib, and
# libdeflate when libdeflate-dev is installed); MB/s and x file of the .gz
# rows are against the inflated size.
set -e
BUILD=${1:-build}
SIZE=${2:-100}
OUT=bench/out
mkdir -p "$OUT"
TRACE="$OUT/kineto_${SIZE}mb.json"
[ -f "$TRACE" ] || python3 bench/gen_kineto.py "$SIZE" "$TRACE" --seed 1
cc -O2 -o "$OUT/pl_load" bench/pl_load.c -Isrc/core "$BUILD/libperflab_core.a" -lz -lcsv -lm
cc -O2 -o "$OUT/memchr_lines" bench/memchr_lines.c
BYTES=$(wc -c < "$TRACE")
run() {  # NAME CMD...
  name=$1; shift
  /usr/bin/time -v "$@" > /dev/null 2> "$OUT/time.txt" || { cat "$OUT/time.txt"; exit 1; }
  awk -v name="$name" -v bytes="$BYTES" '
    /Elapsed \(wall clock\)/ { n = split($NF, a, ":"); wall = (n == 3 ? a[1] * 3600 + a[2] * 60 + a[3] : a[1] * 60 + a[2]) }
    /User time/ { u = $NF } /System time/ { s = $NF }
    /Maximum resident set size/ { rss = $NF }
    END { cpu = u + s; if (cpu <= 0) cpu = 0.001; if (wall <= 0) wall = 0.001;
          printf "%-34s wall %7.2f s  cpu %7.2f s  %8.1f MB/s (cpu)  peak RSS %7.1f MB = %.2f x file\n",
                 name, wall, cpu, bytes / 1e6 / cpu, rss / 1024, rss * 1024 / bytes }' "$OUT/time.txt"
}
echo "trace: $TRACE ($BYTES bytes)"
run "memchr line count" "$OUT/memchr_lines" "$TRACE"
run "perflab kineto (all tables)" "$OUT/pl_load" "$TRACE" --quiet
run "perflab kineto (--table kernels)" "$OUT/pl_load" "$TRACE" --quiet --table kernels
run "python3 json.load" python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$TRACE"
GZ="$TRACE.gz"
[ -f "$GZ" ] || gzip -6 -c "$TRACE" > "$GZ"
echo "gzipped: $GZ ($(wc -c < "$GZ") bytes)"
IA_FLAGS="" IA_LIBS="-lz"
[ -f /usr/include/libdeflate.h ] && IA_FLAGS="$IA_FLAGS -DHAVE_LIBDEFLATE" IA_LIBS="$IA_LIBS -ldeflate"
[ -f /usr/include/isa-l/igzip_lib.h ] && IA_FLAGS="$IA_FLAGS -DHAVE_ISAL" IA_LIBS="$IA_LIBS -lisal"
# shellcheck disable=SC2086
cc -O2 $IA_FLAGS -o "$OUT/inflate_alone" bench/inflate_alone.c $IA_LIBS
run "zcat > /dev/null" sh -c 'zcat "$1" > /dev/null' sh "$GZ"
run "zlib inflate alone (1 MiB buffer)" "$OUT/inflate_alone" "$GZ" zlib
[ -f /usr/include/isa-l/igzip_lib.h ] && run "ISA-L inflate alone (1 MiB buffer)" "$OUT/inflate_alone" "$GZ" isal
[ -f /usr/include/libdeflate.h ] && run "libdeflate alone (whole output)" "$OUT/inflate_alone" "$GZ" libdeflate
run "perflab parse .json.gz (streamed), --jobs 1" "$BUILD/perflab" parse "$GZ" --jobs 1
run "perflab parse .json.gz (streamed), --jobs 2" "$BUILD/perflab" parse "$GZ" --jobs 2
if python3 -c "import pandas" 2>/dev/null; then
  run "python3 json.load + DataFrame" python3 -c "import json,sys,pandas; pandas.DataFrame(json.load(open(sys.argv[1]))['traceEvents'])" "$TRACE"
else
  echo "python3-pandas not installed: DataFrame comparison skipped"
fi
