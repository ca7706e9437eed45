#!/bin/sh
# valgrind memcheck of the CLI over the corpus and seeds: `perflab parse FILE`
# for every file, and `perflab run top-kernels FILE` for the first file of
# each directory; each must give no memcheck error and no definite leak
# (exit 2 for a file the recipe cannot use is fine).  Files up to 200 KB
# (a copy in tests/fixtures of a corpus file counts once), plus the smallest
# larger one, keep it to a few minutes.  Exit 77 (skipped, said on stdout)
# without valgrind, an optional tool; missing test data fails (exit 1).
# usage: tests/valgrind/run.sh PERFLAB_BINARY      env: PERFLAB_DATA, VALGRIND_JOBS (2)
set -u
bin=${1:?usage: run.sh PERFLAB}
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
shared=${PERFLAB_DATA:-tests/data}
command -v valgrind >/dev/null 2>&1 || { echo "SKIPPED (optional tool valgrind not installed): the memcheck run"; exit 77; }
for d in "$shared/corpus" "$shared/seeds" tests/fixtures examples; do
  [ -d "$d" ] || { echo "FAIL: test data missing: folder $d"; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
{
  find "$shared/corpus" "$shared/seeds" tests/fixtures examples -type f ! -name '*.md' ! -name '*.lua' -size -200k 2>/dev/null
  find "$shared/corpus" "$shared/seeds" -type f -size +200k 2>/dev/null | xargs -r ls -S 2>/dev/null | tail -1
} | awk -F/ '!seen[$NF]++' > "$tmp/files"
n=$(wc -l < "$tmp/files")
[ "$n" -gt 0 ] || { echo "FAIL: test data missing: no input files under $shared, tests/fixtures, examples"; exit 1; }
i=0
while IFS= read -r f; do
  i=$((i + 1))
  echo "$i parse $f"
  d=$(dirname "$f")
  grep -qxF "$d" "$tmp/dirs" 2>/dev/null || { echo "$d" >> "$tmp/dirs"; echo "$i run $f"; }
done < "$tmp/files" > "$tmp/jobs"
runs=$(wc -l < "$tmp/jobs")
cat > "$tmp/one.sh" <<'EOS'
#!/bin/sh
# one.sh TMP BIN ID KIND FILE
tmp=$1 bin=$2 id=$3 kind=$4 f=$5
ulimit -v unlimited 2>/dev/null || true
if [ "$kind" = parse ]; then set -- parse "$f"; else set -- run top-kernels "$f"; fi
valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite \
  --errors-for-leak-kinds=definite --log-file="$tmp/$id.$kind.vg" "$bin" "$@" >/dev/null 2>"$tmp/$id.$kind.err"
rc=$?
if [ $rc -eq 99 ] || [ $rc -ge 128 ] || [ -s "$tmp/$id.$kind.vg" ]; then
  echo "FAIL ($rc) perflab $* " >> "$tmp/failures"
  sed 's/^/    /' "$tmp/$id.$kind.vg" | head -40 >> "$tmp/failures"
fi
EOS
start=$(date +%s)
xargs -P "${VALGRIND_JOBS:-2}" -L 1 sh "$tmp/one.sh" "$tmp" "$bin" < "$tmp/jobs"
end=$(date +%s)
echo "valgrind memcheck: $n files, $runs runs in $((end - start)) s"
if [ -s "$tmp/failures" ]; then cat "$tmp/failures"; exit 1; fi
echo "no memcheck errors, no definite leaks"
