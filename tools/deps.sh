#!/bin/sh
# Installs the Debian 12 packages perflab needs, when they are missing.
# As root it runs apt-get; otherwise it prints the one command to run and stops.
# `deps.sh` installs what building and running perflab need (make demo);
# `deps.sh test` adds the tools only the tests use (make test): tmux (the
# REPL through a terminal), python3-ipykernel and python3-jupyter-client
# (the Jupyter kernel), python3-nbconvert (a notebook exported to HTML),
# luarocks and lua5.4 (the rockspec, perflab loaded from stock lua5.4),
# libxml2-utils (xmllint) and
# librsvg2-bin (rsvg-convert) to check every figure, chromium to load the
# HTML report (tests/html/browser.py), slurm-wlm and munge for the one-node
# cluster of tests/slurm/map_merge.sh.  Tests that need one of these skip,
# saying so, where it is absent.
PKGS="cmake make gcc pkg-config liblua5.4-dev lua-cjson lua-cjson-dev libcsv-dev lua-unit zlib1g-dev libedit-dev libsqlite3-dev libmicrohttpd-dev libisal-dev"
TEST_PKGS="tmux python3-ipykernel python3-jupyter-client python3-nbconvert luarocks lua5.4
      libxml2-utils librsvg2-bin chromium slurm-wlm munge"
# `deps.sh ci` adds what .ci/run needs beyond `make test`: clang and its
# sanitizer runtime for the fuzzers, valgrind for the memcheck test,
# clang-format for make style.
case "${1:-}" in
  test) PKGS="$PKGS $TEST_PKGS" ;;
  ci) PKGS="$PKGS $TEST_PKGS clang libclang-rt-14-dev valgrind clang-format" ;;
esac
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
  echo "perflab: installing missing Debian packages:$missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing >/dev/null || {
    echo "perflab: apt-get install failed for:$missing" >&2; exit 1; }
else
  echo "perflab: missing Debian packages:$missing" >&2
  echo "run:  sudo apt-get install -y$missing" >&2
  exit 1
fi
