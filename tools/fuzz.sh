#!/bin/sh
# Builds the libFuzzer harnesses (clang, -fsanitize=fuzzer,address,undefined)
# into build-fuzz and runs each for SECONDS (default 30), seeded from the
# seeds and corpus copies in tests/data.  Fails on any crash, leak or sanitizer report;
# a crashing input is saved under tests/fuzz/regressions/FORMAT/ so that it
# becomes a regression test (tests/c/test_fuzz_regressions.c).
# usage: tools/fuzz.sh [SECONDS] [FORMAT...]
set -eu
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-30}
[ $# -gt 0 ] && shift
SHARED=${PERFLAB_DATA:-tests/data}
command -v clang >/dev/null || { echo "fuzz: clang is not installed (apt-get install clang libclang-rt-14-dev)" >&2; exit 1; }
cmake -S . -B build-fuzz -DPERFLAB_FUZZ=ON -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build-fuzz -j "$(nproc)" --target perflab_fuzzers >/dev/null
formats=${*:-$(cat build-fuzz/fuzz_formats.txt)}
status=0
for f in $formats writers; do
  bin=build-fuzz/fuzz_$(echo "$f" | tr - _)
  seeds=build-fuzz/fuzz-seeds/$f
  mkdir -p "$seeds" build-fuzz/fuzz-work/$f
  if [ "$f" != writers ]; then
    for s in "$SHARED"/seeds/* tests/fixtures/*/* ; do [ -f "$s" ] && cp "$s" "$seeds/" 2>/dev/null || true; done
    if [ -d "$SHARED/corpus" ]; then
      find "$SHARED/corpus" -type f ! -name '*.gz' ! -name MANIFEST.md -size -2M -exec cp {} "$seeds/" \; 2>/dev/null || true
    fi
  fi
  [ -d tests/fuzz/regressions/$f ] && cp tests/fuzz/regressions/$f/* "$seeds/" 2>/dev/null || true
  echo "fuzz: $f for ${SECONDS_EACH}s"
  if ! "$bin" -max_total_time="$SECONDS_EACH" -max_len=1048576 -rss_limit_mb=4096 -timeout=20 \
        -artifact_prefix=build-fuzz/fuzz-work/$f/ -print_final_stats=1 \
        build-fuzz/fuzz-work/$f "$seeds" > build-fuzz/fuzz-$f.log 2>&1; then
    echo "fuzz: $f FAILED (log: build-fuzz/fuzz-$f.log)" >&2
    tail -40 build-fuzz/fuzz-$f.log >&2
    mkdir -p tests/fuzz/regressions/$f
    cp build-fuzz/fuzz-work/$f/crash-* build-fuzz/fuzz-work/$f/leak-* build-fuzz/fuzz-work/$f/timeout-* tests/fuzz/regressions/$f/ 2>/dev/null || true
    status=1
  else
    grep -E 'stat::number_of_executed_units' build-fuzz/fuzz-$f.log | sed "s/^/fuzz: $f /"
  fi
done
exit $status
