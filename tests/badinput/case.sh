#!/bin/sh
# One bad-input case: runs the CLI under `timeout` and keeps its stdout,
# stderr and exit status (124 = hung, >= 128 = killed by a signal).
# usage: case.sh DIR ID SECONDS PERFLAB ARGS...
d=$1 id=$2 t=$3
shift 3
# the driver runs inside perflab, whose address-space limit children inherit:
# lift it (a sanitizer build needs the room; the CLI sets its own)
ulimit -v unlimited 2>/dev/null || true
timeout -k 5 "$t" "$@" >"$d/$id.out" 2>"$d/$id.err" </dev/null
echo $? >"$d/$id.rc"
