#!/bin/sh
# tests/embed/luarocks.sh -- `luarocks make --lua-version 5.4` builds and
# installs perflab.so from perflab-dev-1.rockspec (in a copy of the sources
# and a private rocks tree), and a stock lua5.4 requires it from that tree.
# Without luarocks or lua5.4 (optional tools) it says so and exits 77,
# which ctest reports as skipped.
set -u
for t in luarocks lua5.4; do
  command -v $t >/dev/null 2>&1 || { echo "SKIPPED (optional tool $t not installed): the luarocks build"; exit 77; }
done
SRC=$(pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir "$TMP/src"
cp -r CMakeLists.txt perflab-dev-1.rockspec src lua recipes jupyter tools "$TMP/src/"
cd "$TMP/src" || exit 1
if ! luarocks make --lua-version 5.4 --tree "$TMP/tree" perflab-dev-1.rockspec > "$TMP/log" 2>&1; then
  echo "FAIL luarocks make"; cat "$TMP/log"; exit 1
fi
echo "ok   luarocks make --lua-version 5.4"
MOD=$(find "$TMP/tree" -name perflab.so -path '*lib/lua/5.4/*' | head -1)
[ -n "$MOD" ] && echo "ok   installed $MOD" || { echo "FAIL no perflab.so in the tree"; find "$TMP/tree"; exit 1; }
cd "$SRC" || exit 1
eval "$(luarocks path --lua-version 5.4 --tree "$TMP/tree")"
out=$(lua5.4 -e 'local perflab = require "perflab"
  io.write(package.searchpath("perflab", package.cpath), " ", perflab.load("examples/kernel-table.txt"):table("kernels"):nrows())' 2>&1)
case "$out" in
  "$MOD 13065") echo "ok   lua5.4 requires the rock's perflab.so (13065 rows)" ;;
  *) echo "FAIL lua5.4 with the rock: $out"; exit 1 ;;
esac
echo "0 failed"
