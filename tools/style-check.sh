#!/bin/sh
# tools/style-check.sh [--fix]: the layout checks of .ci/run (make style).
#   C (src, tests, bench, examples, tools): clang-format with .clang-format,
#     which is how the code is written; --fix rewrites the files in place.
#   Lua (lua, recipes, tests, examples, bench, tools): at most 120 columns
#     (unless one string literal alone is longer: tools/wrap_lua_lines.py),
#     no tab, no trailing space; --fix wraps long lines, proving each file's
#     bytecode unchanged.  stylua.toml describes the rest of the Lua
#     layout for those who have StyLua; Debian 12 does not package it, so
#     CI checks only these three rules.
set -eu
cd "$(dirname "$0")/.."
fix=0
[ "${1:-}" = "--fix" ] && fix=1
CF=${CLANG_FORMAT:-clang-format}
status=0
cfiles=$(git ls-files '*.c' '*.h' | grep -v '^tests/data/' || true)
if command -v "$CF" >/dev/null 2>&1; then
  if [ $fix = 1 ]; then
    # shellcheck disable=SC2086
    "$CF" -i $cfiles
  else
    # shellcheck disable=SC2086
    if ! "$CF" --dry-run -Werror $cfiles 2>/tmp/style-check.$$; then
      head -40 /tmp/style-check.$$
      echo "style: C files differ from .clang-format (first lines above); 'make format' rewrites them"
      status=1
    fi
    rm -f /tmp/style-check.$$
  fi
else
  echo "style: $CF not found (apt-get install clang-format); C layout not checked"
  [ -n "${CI:-}" ] && status=1
fi
luafiles=$(git ls-files '*.lua' | grep -v '^tests/data/' || true)
if [ $fix = 1 ]; then
  # shellcheck disable=SC2086
  python3 tools/wrap_lua_lines.py $luafiles
fi
# shellcheck disable=SC2086
python3 tools/wrap_lua_lines.py --check $luafiles || status=1
# shellcheck disable=SC2086
bad=$(awk '/\t/ { printf "%s:%d: a tab\n", FILENAME, FNR }
           / +$/ { printf "%s:%d: trailing space\n", FILENAME, FNR }' $luafiles)
if [ -n "$bad" ]; then
  echo "$bad" | head -40
  echo "style: $(echo "$bad" | wc -l) Lua lines with a tab or a trailing space (first 40 above)"
  status=1
fi
[ $status = 0 ] && echo "style: C and Lua layout as .clang-format and tools/style-check.sh say"
exit $status
