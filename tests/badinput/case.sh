#!/bin/sh
# One bad-input case: runs the CLI under `timeout` and keeps its stdout,
# stderr and exit status (124 = hung, >= 128 = killed by a signal).
# usage: case.sh DIR ID SECONDS PERFLAB ARGS...
d=$1 id=$2 t=$3
shift 3
timeout -k 5 "$t" "$@" >"$d/$id.out" 2>"$d/$id.err" </dev/null
echo $? >"$d/$id.rc"
