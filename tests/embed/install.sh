#!/bin/sh
# tests/embed/install.sh BUILD_DIR -- `cmake --install` into a temporary
# prefix, then use the installed copy as a user would: the files are where
# README.md says; examples/embed.c compiles with
# `cc $(pkg-config --cflags --libs perflab)` (shared) and against
# libperflab.a (static) and runs on examples/kernel-table.txt; the installed
# binary runs a recipe; a stock lua5.4 loads the installed perflab.so.
set -u
BUILD=${1:?usage: install.sh BUILD_DIR}
SRC=$(pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fails=$((fails + 1)); }
expect() {  # expect DESCRIPTION FILE TEXT: FILE has a line containing TEXT
  if grep -F -q -- "$3" "$2"; then ok "$1"; else bad "$1: '$3' not in output"; sed 's/^/     | /' "$2"; fi
}

P=$TMP/prefix
if cmake --install "$BUILD" --prefix "$P" >"$TMP/install.log" 2>&1; then ok "cmake --install"
else bad "cmake --install"; cat "$TMP/install.log"; exit 1; fi

LIBDIR=$(dirname "$(find "$P" -name perflab.pc | head -1)")
LIBDIR=${LIBDIR%/pkgconfig}
for f in bin/perflab include/perflab.h share/perflab/lua/perflab/init.lua share/perflab/lua/perflab/repl.lua \
         share/perflab/recipes/top-kernels.lua share/perflab/jupyter/perflab_kernel.py; do
  if [ -f "$P/$f" ]; then ok "installed $f"; else bad "missing $f"; fi
done
for f in libperflab.a libperflab.so pkgconfig/perflab.pc lua/5.4/perflab.so; do
  if [ -e "$LIBDIR/$f" ]; then ok "installed ${LIBDIR#$P/}/$f"; else bad "missing ${LIBDIR#$P/}/$f"; fi
done

# the installed binary (top-kernels' total: 306573856 ns, awk sum of the latency column)
"$P/bin/perflab" run top-kernels examples/kernel-table.txt --format json > "$TMP/run.json" 2>&1
expect "installed binary runs a recipe" "$TMP/run.json" '"kernel_time_ns": 306573856'

export PKG_CONFIG_PATH="$LIBDIR/pkgconfig"
if ! command -v pkg-config >/dev/null 2>&1 || ! command -v cc >/dev/null 2>&1; then
  echo "SKIPPED (optional tools pkg-config, cc not installed): building examples/embed.c"; exit $fails
fi
CFLAGS=$(pkg-config --cflags perflab) && LIBS=$(pkg-config --libs perflab) || { bad "pkg-config perflab"; exit 1; }
# a sanitizer build of perflab (make asan): instrument the program too
[ "${PERFLAB_SANITIZE:-}" = 1 ] && CFLAGS="$CFLAGS -fsanitize=address,undefined"
case "$LIBS" in *"-L$LIBDIR"*) ok "pkg-config points at the prefix" ;; *) bad "pkg-config --libs: $LIBS" ;; esac

# shared
if cc "$SRC/examples/embed.c" -o "$TMP/embed" $CFLAGS $LIBS 2>"$TMP/cc.log"; then ok "embed.c compiles against libperflab.so"
else bad "embed.c compiles (shared)"; cat "$TMP/cc.log"; exit 1; fi
printf 'prof:table("kernels"):nrows()\nprint(#profiles, perflab.version)\nerror("oops")\n' |
  LD_LIBRARY_PATH="$LIBDIR" "$TMP/embed" examples/kernel-table.txt --repl > "$TMP/out.txt" 2> "$TMP/err.txt"
rc=$?
[ $rc -eq 0 ] && ok "embed exits 0" || bad "embed exit status $rc"
expect "report as Markdown" "$TMP/out.txt" "## top-kernels"
expect "option top=3 honoured" "$TMP/out.txt" "(top 3 shown)"
# 56058272 ns: elementwise_kernel's total (awk over examples/kernel-table.txt)
expect "the dominant kernel" "$TMP/out.txt" '| `elementwise_kernel`            |  3185 | 56058272 |'
# 1119 launches above 50000 ns: awk -F'|' 'NR>1 {split($2,a," "); if (a[1] > 50000) n++} END {print n}'
expect "eval with the program's own binding" "$TMP/out.txt" "launches slower than 50000 ns: 1119"
expect "an unknown recipe is PERFLAB_EINPUT" "$TMP/out.txt" "no-such-recipe: code 2 (PERFLAB_EINPUT is 2)"
expect "REPL on streams: a value" "$TMP/out.txt" "13065"
expect "REPL on streams: print goes to out" "$TMP/out.txt" "1	0.1.0"
expect "REPL on streams: an error goes to err" "$TMP/err.txt" "oops"
expect "REPL reports the failed chunk" "$TMP/out.txt" "repl: code 3"
if LD_LIBRARY_PATH="$LIBDIR" ldd "$TMP/embed" | grep -q "libperflab.so.0 => $LIBDIR"; then ok "linked to the installed libperflab.so.0"
else bad "not linked to the installed libperflab.so"; LD_LIBRARY_PATH="$LIBDIR" ldd "$TMP/embed"; fi
# no LD_LIBRARY_PATH: perflab.pc's rpath finds the library
if env -u LD_LIBRARY_PATH "$TMP/embed" examples/kernel-table.txt > "$TMP/rpath.txt" 2>&1; then ok "runs without LD_LIBRARY_PATH (rpath)"
else bad "without LD_LIBRARY_PATH"; cat "$TMP/rpath.txt"; fi

# static, as perflab.h says: pkg-config --static perflab-static
SANFLAGS=""
[ "${PERFLAB_SANITIZE:-}" = 1 ] && SANFLAGS="-fsanitize=address,undefined"   # the archive is instrumented too
if cc $SANFLAGS "$SRC/examples/embed.c" -o "$TMP/embed-pcstatic" $(pkg-config --cflags --static --libs perflab-static) 2>"$TMP/cc.log"; then
  ok "embed.c links with pkg-config --static --libs perflab-static"
  if ldd "$TMP/embed-pcstatic" | grep -q libperflab; then bad "perflab-static still needs libperflab.so"
  else ok "perflab-static needs no libperflab.so"; fi
  "$TMP/embed-pcstatic" examples/kernel-table.txt > "$TMP/pcstatic.txt" 2>&1
  expect "perflab-static build runs" "$TMP/pcstatic.txt" "launches slower than 50000 ns: 1119"
else bad "embed.c links (pkg-config --static perflab-static)"; cat "$TMP/cc.log"; fi

# static
if cc "$SRC/examples/embed.c" -o "$TMP/embed-static" $CFLAGS -Wl,--as-needed "$LIBDIR/libperflab.a" \
     $(pkg-config --static --libs perflab) 2>"$TMP/cc.log"; then ok "embed.c links against libperflab.a"
else bad "embed.c links (static)"; cat "$TMP/cc.log"; fi
if [ -x "$TMP/embed-static" ]; then
  if ldd "$TMP/embed-static" | grep -q libperflab; then bad "static build still needs libperflab.so"; else ok "static build needs no libperflab.so"; fi
  "$TMP/embed-static" examples/kernel-table.txt > "$TMP/static.txt" 2>&1
  expect "static build runs" "$TMP/static.txt" "launches slower than 50000 ns: 1119"
fi

# a stock lua5.4 with the installed perflab.so
if command -v lua5.4 >/dev/null 2>&1; then
  LD_PRELOAD=${PERFLAB_SAN_PRELOAD:-} LUA_CPATH="$LIBDIR/lua/5.4/?.so" lua5.4 -e '
    local perflab = require "perflab"
    local p = perflab.load("examples/kernel-table.txt")
    print("rows", p:table("kernels"):nrows())
    local r = perflab.run("top-kernels", p, { top = 1 })
    print("top", r.tables.top_kernels:row(1).kernel, r.tables.top_kernels:row(1).total_ns)' > "$TMP/lua.txt" 2>&1
  expect "lua5.4 require \"perflab\" (installed)" "$TMP/lua.txt" "rows	13065"
  expect "lua5.4 runs a recipe" "$TMP/lua.txt" "top	elementwise_kernel	56058272"
else
  echo "SKIPPED (optional tool lua5.4 not installed): require \"perflab\" from a stock lua5.4"
fi
echo "$fails failed"
[ "$fails" -eq 0 ]
