#!/bin/sh
# Installs the Debian 12 packages perflab needs, when they are missing.
# As root it runs apt-get; otherwise it prints the one command to run and stops.
# tmux, python3-ipykernel, python3-jupyter-client and luarocks are for tests
# only (the REPL through a terminal, the Jupyter kernel, the rockspec); those
# tests skip when they are absent.  slurm-wlm and munge: the test that runs
# the distributed map step as a Slurm job array (tests/slurm/map_merge.sh).
PKGS="cmake make gcc pkg-config liblua5.4-dev lua-cjson lua-cjson-dev libcsv-dev lua-unit zlib1g-dev libedit-dev libsqlite3-dev
      tmux python3-ipykernel python3-jupyter-client luarocks
      libxml2-utils librsvg2-bin chromium slurm-wlm munge"
# libxml2-utils (xmllint) and librsvg2-bin (rsvg-convert) check every figure;
# chromium loads the HTML report in the browser test (tests/html/browser.py);
# slurm-wlm and munge run the one-node cluster of tests/slurm/map_merge.sh.
# `deps.sh ci` adds what .ci/run needs beyond `make test`: clang and its
# sanitizer runtime for the fuzzers, valgrind for the memcheck test.
[ "${1:-}" = ci ] && PKGS="$PKGS clang libclang-rt-14-dev valgrind"
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
