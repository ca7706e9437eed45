#!/bin/sh
# crash_sweep.sh PERFLAB [REPO] [JOBS]
# A user's crash sweep: every recipe on every file under tests/data (corpus,
# seeds), tests/fixtures and examples, in every output format, plus `parse`
# of each file and `run all` in each format.  Per (recipe, file):
#   run RECIPE FILE --output DIR   (report.txt, .md, .json, .html, tables as CSV)
#   run RECIPE FILE --format csv   (the stdout CSV renderer)
# per file: parse FILE; run all FILE --format text|markdown|json|csv|html;
# the same with all the files of each multi-rank folder (and the nsys pair).
# A run passes when it exits 0, 1 or 2 within 120 s, prints no Lua
# traceback, no "attempt to", no sanitizer report, and an exit 2 says why on
# a line starting "perflab: ".  Prints one line per failure and a count;
# exit 0 when none (ASan/UBSan builds work too: their reports fail a run).
# JOBS parallel runs (default 2).  Outputs go to a temporary folder.
set -u
PL=$(realpath "$1"); REPO=${2:-.}; JOBS=${3:-2}
cd "$REPO" || exit 2
TMP=$(mktemp -d /tmp/perflab-sweep.XXXXXX)
files=$(find tests/data/seeds tests/data/corpus tests/fixtures examples -type f \
  ! -name '*.md' ! -name '*.lua' ! -name '*.c' ! -name '*.ipynb' ! -name '*.py' ! -name '*.sh' \
  ! -name 'README*' ! -name 'MANIFEST*' | LC_ALL=C sort)
# SWEEP_FILES="F..." sweeps those files instead (the multi-file sets still run)
[ -n "${SWEEP_FILES:-}" ] && files=$SWEEP_FILES
recipes=$("$PL" recipes 2>/dev/null | tail -n +3 | awk '{print $1}')
# one command per line: ID<TAB>args (word-split; no file name has spaces)
{
  i=0
  for f in $files; do
    i=$((i + 1))
    printf 'p%d\tparse %s\n' "$i" "$f"
    for fmt in text markdown json csv html; do printf 'a%d.%s\trun all %s --format %s\n' "$i" "$fmt" "$f" "$fmt"; done
    for r in $recipes; do
      printf 'r%d.%s\trun %s %s --output %s/or%d.%s\n' "$i" "$r" "$r" "$f" "$TMP" "$i" "$r"
      printf 'c%d.%s\trun %s %s --format csv\n' "$i" "$r" "$r" "$f"
    done
  done
  # multi-file runs: each folder of one job's ranks, and the nsys export pair
  # (two processes each), on two threads
  j=0
  for d in $(find tests/data/corpus/kineto_multirank tests/fixtures/multirank -type d | LC_ALL=C sort) nsys; do
    if [ "$d" = nsys ]; then set -- tests/data/corpus/nsys_sqlite/nsysai_h100x2_*_mfu_2gpu_*.sqlite
    else set -- $(find "$d" -maxdepth 1 -type f -name '*.json*' | LC_ALL=C sort); fi
    [ $# -ge 2 ] || continue
    j=$((j + 1))
    for fmt in text markdown json csv html; do printf 's%d.%s\trun all %s --jobs 2 --format %s\n' "$j" "$fmt" "$*" "$fmt"; done
    for r in $recipes; do
      printf 's%d.%s\trun %s %s --jobs 2 --output %s/os%d.%s\n' "$j" "$r" "$r" "$*" "$TMP" "$j" "$r"
      printf 't%d.%s\trun %s %s --jobs 2 --format csv\n' "$j" "$r" "$r" "$*"
    done
  done
} > "$TMP/cmds"
check() {   # ID ARGS...: runs one, prints FAIL lines
  id=$1; shift
  out=$TMP/$id.err
  timeout 120 "$PL" "$@" > /dev/null 2> "$out"
  rc=$?
  why=""
  case $rc in 0|1|2) ;; 124) why="timeout" ;; *) why="exit $rc" ;; esac
  if grep -q -e 'stack traceback' -e 'attempt to ' -e 'ERROR: AddressSanitizer' -e 'runtime error:' \
      -e 'LeakSanitizer' -e 'PANIC' "$out"; then why="$why traceback/sanitizer"; fi
  if [ $rc = 2 ] && ! grep -q '^perflab: ' "$out"; then why="$why exit 2 without a 'perflab: ' line"; fi
  echo "$rc" >> "$TMP/rc.$$"
  [ $rc = 2 ] && printf '%s\t%s\n' "$*" "$(grep -m1 '^perflab: ' "$out")" >> "$TMP/exit2.$$"
  if [ -n "$why" ]; then
    printf 'FAIL %s: perflab %s\n  %s\n' "$why" "$*" "$(head -c 400 "$out" | tr '\n' ' ')"
  fi
  rm -f "$out"
  rm -rf "$TMP/o$id" 2>/dev/null
}
export PL TMP
n=$(wc -l < "$TMP/cmds")
# sh has no export -f: each worker is a small sh -c with check inlined
CHECK=$(sed -n '/^check() {/,/^}/p' "$0")
export CHECK
tr '\t' ' ' < "$TMP/cmds" | xargs -P "$JOBS" -L 1 sh -c 'eval "$CHECK"; check "$@"' sh > "$TMP/fails"
bad=$(grep -c '^FAIL' "$TMP/fails")
cat "$TMP/fails"
# SWEEP_EXIT2=FILE keeps every exit-2 run with its message (to read them)
[ -n "${SWEEP_EXIT2:-}" ] && cat "$TMP"/exit2.* 2>/dev/null | LC_ALL=C sort > "$SWEEP_EXIT2"
echo "exit statuses: $(cat "$TMP"/rc.* | sort | uniq -c | awk '{printf "%s%s x %s", (NR > 1 ? ", " : ""), $2, $1}')"
echo "crash sweep: $n runs on $(echo "$files" | wc -l) files, $bad failure(s)"
rm -rf "$TMP"
[ "$bad" = 0 ]
