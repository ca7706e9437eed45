#!/bin/sh
# recipe_outputs.sh PERFLAB OUTDIR [REPO]
# Runs every bundled recipe with --format json on every seed, corpus, fixture
# and example file of REPO (default .), one file per run, plus diff on pairs
# of files of one folder and suspicion with --baseline/--target on pairs, and
# writes OUTDIR/RECIPE/NAME.json (stdout, stderr and the exit status).  Run it
# (RECIPES="a b" limits the recipes; suspicion and the diff pairs run always)
# with a build before and after a change and `diff -r` the two folders: the
# reports must be byte-identical except for fixes named in the commit.
set -u
PL=$(realpath "$1"); OUT=$2; REPO=${3:-.}
mkdir -p "$OUT"
cd "$REPO" || exit 2
files=$(find tests/data/seeds tests/data/corpus tests/fixtures examples -type f \
  ! -name '*.md' ! -name '*.lua' ! -name '*.c' ! -name '*.ipynb' ! -name '*.py' ! -name '*.sh' | LC_ALL=C sort)
recipes=${RECIPES:-}
[ -n "$recipes" ] || recipes=$("$PL" recipes 2>/dev/null | tail -n +3 | awk '{print $1}')
one() {   # name args...
  name=$1; shift
  "$PL" "$@" --format json > "$OUT/$name.json" 2>&1
  echo "exit $?" >> "$OUT/$name.json"
}
for r in $recipes; do
  [ "$r" = suspicion ] && continue
  mkdir -p "$OUT/$r"
  for f in $files; do one "$r/$(echo "$f" | tr / _)" run "$r" "$f"; done
done
mkdir -p "$OUT/diff2" "$OUT/suspicion"
prev=""
for f in $files; do
  if [ -n "$prev" ] && [ "$(dirname "$prev")" = "$(dirname "$f")" ]; then
    n=$(echo "$prev+$f" | tr / _)
    one "diff2/$n" run diff "$prev" "$f"
    one "suspicion/$n" run suspicion --baseline "$prev" --target "$f"
  fi
  prev=$f
done
S=tests/fixtures/suspicion
one suspicion/fixture2x2 run suspicion --baseline $S/normal_1.pt.trace.json.gz $S/normal_2.pt.trace.json.gz --target $S/abnormal_1.pt.trace.json.gz $S/abnormal_2.pt.trace.json.gz
