#!/bin/sh
# tests/repl/tmux.sh PERFLAB -- the interactive REPL through a real
# pseudo-terminal, as a person uses it: perflab repl runs in a detached tmux
# session (own server socket, own HOME and XDG_STATE_HOME), keys are typed
# with send-keys and the screen is read back with capture-pane.
# Checks: an expression, a multi-line chunk, Tab completion (globals, module
# fields, methods, column names), Ctrl-C interrupting `while true do end`,
# Ctrl-C dropping a half-typed line, Ctrl-D leaving, and history recalled with
# the Up arrow after a restart.  Without tmux (an optional tool) it says so
# and exits 77, which ctest reports as skipped.
set -u
BIN=${1:?usage: tmux.sh PERFLAB}
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
if ! command -v tmux >/dev/null 2>&1; then echo "SKIPPED (optional tool tmux not installed): the REPL test"; exit 77; fi

TMP=$(mktemp -d)
SOCK="perflab-test-$$"
S=repl1
cleanup() { tmux -L "$SOCK" kill-server >/dev/null 2>&1; rm -rf "$TMP"; }
trap cleanup EXIT
fails=0

start() {   # a new session each time (killing the last one would stop the server)
  tmux -L "$SOCK" -f /dev/null new-session -d -s $S -x 132 -y 60 \
    "env HOME=$TMP/home XDG_STATE_HOME=$TMP/state TERM=xterm COLUMNS= '$BIN' repl examples/kernel-table.txt; echo \"[exit \$?]\"; sleep 60"
}
screen() { tmux -L "$SOCK" capture-pane -t $S -p -S -200; }
type_() { tmux -L "$SOCK" send-keys -t $S -l "$1"; }
key() { tmux -L "$SOCK" send-keys -t $S "$@"; }
# wait_for TEXT [SECONDS]: until a screen line contains TEXT (fixed string)
wait_for() {
  i=0; n=$(( ${2:-10} * 10 ))
  while [ $i -lt "$n" ]; do
    if screen | grep -F -q -- "$1"; then return 0; fi
    sleep 0.1; i=$((i + 1))
  done
  return 1
}
# wait_prompt: until the last line on the screen is an empty prompt, so what
# is typed next reaches the line editor and not a chunk still running
wait_prompt() {
  i=0
  while [ $i -lt 200 ]; do
    if [ "$(screen | grep -v '^$' | tail -1)" = "perflab>" ]; then return 0; fi
    sleep 0.1; i=$((i + 1))
  done
  echo "FAIL no prompt"; fails=$((fails + 1)); screen | grep -v '^$' | sed 's/^/     | /'
}
# count TEXT: how many screen lines contain TEXT
count() { screen | grep -F -c -- "$1"; }
check() {  # check DESCRIPTION TEXT [SECONDS]
  if wait_for "$2" "${3:-10}"; then echo "ok   $1"
  else echo "FAIL $1: '$2' not on the screen"; fails=$((fails + 1)); screen | grep -v '^$' | sed 's/^/     | /'; fi
}
absent() {  # absent DESCRIPTION TEXT
  if screen | grep -F -q -- "$2"; then echo "FAIL $1: '$2' on the screen"; fails=$((fails + 1))
  else echo "ok   $1"; fi
}

start
check "banner" "Ctrl-D to leave"
check "preloaded profile" "p1 = examples/kernel-table.txt (kernel-table)"

# an expression prints its value
wait_prompt
type_ '6*7'; key Enter
check "expression" "42"
wait_prompt

# a multi-line chunk: continuation prompt, runs as one chunk
type_ 'for i = 1, 3 do'; key Enter
check "continuation prompt" "      >>"
type_ 'print(i .. ";" .. i * i)'; key Enter
type_ 'end'; key Enter
check "multi-line chunk ran" "3;9"
wait_prompt

# completion: a module field, a method, a column name (then run it)
type_ 'perflab.lo'; key Tab
check "perflab.lo<Tab> -> perflab.load" "perflab> perflab.load"
key C-u
wait_prompt
# a module not loaded yet (perflab.stats is a C module nothing has touched)
type_ 'perflab.sta'; key Tab
check "perflab.sta<Tab> -> perflab.stats" "perflab> perflab.stats"
key C-u
wait_prompt
# help on a function prints its documentation (docs/api.md), not its address
type_ 'help(perflab.units.ns)'; key Enter
check "help(fn) prints the api.md entry" '- `perflab.units.ns` Duration in nanoseconds -> "1.234 ms".'
wait_prompt
type_ 't = p1:table("kern'; key Tab
check "p1:table(\"kern<Tab> -> kernels" 'perflab> t = p1:table("kernels'
type_ '")'; key Enter
wait_prompt
type_ 't:nr'; key Tab
check "t:nr<Tab> -> t:nrows" "perflab> t:nrows"
type_ '()'; key Enter
check "t:nrows() (13065 launches, counted with grep -c '|')" "13065"
wait_prompt
# sum of the latency column, computed independently with
#   awk -F'|' 'NR>1 {split($2,a," "); s+=a[1]} END {print s}' examples/kernel-table.txt
type_ 't:col("dur'; key Tab
check "t:col(\"dur<Tab> -> duration_ns" 'perflab> t:col("duration_ns'
type_ '"):sum()'; key Enter
check "column sum" "306573856.0"
wait_prompt

# Ctrl-C interrupts a running chunk and the session goes on
type_ 'while true do end'; key Enter
sleep 1
key C-c
check "Ctrl-C interrupts the chunk" "interrupted"
type_ '1000+1'; key Enter
check "session goes on after the interrupt" "1001"
wait_prompt

# Ctrl-C at the prompt drops the half-typed line
type_ 'this is not lua'
check "typed" "perflab> this is not lua"
key C-c
wait_prompt
type_ '"history-" .. 5*5'; key Enter
check "Ctrl-C drops the line; next line runs" '"history-25"'
absent "the dropped line was never run" "unexpected symbol"
wait_prompt

# Ctrl-D leaves
key C-d
check "Ctrl-D leaves with status 0" "[exit 0]"
if [ -s "$TMP/state/perflab/history" ]; then echo "ok   history file in \$XDG_STATE_HOME/perflab/history"
else echo "FAIL no history file at $TMP/state/perflab/history"; fails=$((fails + 1)); fi
# libedit writes an entry with vis(3) escapes: the chunk is one entry, "\012" between lines
if grep -F -q 'do\012print(' "$TMP/state/perflab/history"; then echo "ok   the multi-line chunk is one history entry"
else echo "FAIL the multi-line chunk is not one history entry"; fails=$((fails + 1)); cat "$TMP/state/perflab/history"; fi

# restart: the Up arrow recalls the last line of the previous session
S=repl2
start
check "restarted" "Ctrl-D to leave"
wait_prompt
before=$(count '"history-25"')
key Up
check "Up recalls the last line" 'perflab> "history-" .. 5*5'
key Enter
i=0
while [ "$(count '"history-25"')" -le "$before" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
if [ "$(count '"history-25"')" -gt "$before" ]; then echo "ok   recalled line runs"
else echo "FAIL recalled line did not run"; fails=$((fails + 1)); screen | sed 's/^/     | /'; fi
key C-d
check "second session leaves" "[exit 0]"

echo "$fails failed"
[ "$fails" -eq 0 ]
