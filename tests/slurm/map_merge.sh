#!/bin/sh
# tests/slurm/map_merge.sh PERFLAB -- the map step of `distributed` on a real
# one-node Slurm cluster, then the merge, compared byte for byte with the
# direct run.
#
# Starts munged, slurmctld and slurmd (Debian's munge and slurm-wlm) with a
# generated slurm.conf whose state, spool, logs, sockets and pid files all
# live in a temporary folder; submits the map step as a job array
# (sbatch --array=0-3 --wait, one task per rank of the committed 4-rank
# fixture); merges the four summary folders; compares the JSON report with
# `perflab run distributed FILE...`; stops the daemons it started (by the
# pids in its pid files) and removes the folder.
# Exit 0 pass, 1 fail, 77 skip: only when the packages are not installed
# (tools/deps.sh installs them as root).
set -u
PERFLAB=${1:?usage: map_merge.sh PERFLAB}
case $PERFLAB in /*) ;; *) PERFLAB=$(pwd)/$PERFLAB ;; esac
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
for b in munged mungekey slurmctld slurmd sbatch; do
  if ! command -v "$b" >/dev/null 2>&1 && ! [ -x "/usr/sbin/$b" ]; then
    echo "SKIP: $b not found: the Slurm test needs Debian's slurm-wlm and munge (tools/deps.sh installs them as root)"
    exit 77
  fi
done
PATH=$PATH:/usr/sbin
T=$(mktemp -d /tmp/perflab-slurm.XXXXXX)
chmod 755 "$T"
# the daemons run in the foreground as children of this script, so that
# stopping them also reaps them (no zombies left to the init process)
PIDS=""
cleanup() {
  for p in $PIDS; do kill "$p" 2>/dev/null; done
  for p in $PIDS; do
    i=0
    while kill -0 "$p" 2>/dev/null && [ $i -lt 20 ]; do sleep 0.25; i=$((i + 1)); done
    kill -9 "$p" 2>/dev/null
    wait "$p" 2>/dev/null
  done
  rm -rf "$T"
}
trap cleanup EXIT INT TERM
fail() {
  echo "FAIL: $*"
  for l in munged.log slurmctld.log slurmd.log; do [ -f "$T/$l" ] && { echo "--- $l"; tail -20 "$T/$l"; }; done
  exit 1
}

# munge: a fresh key, its own socket
mungekey -c -k "$T/munge.key" -f >/dev/null 2>&1 || fail "mungekey"
chmod 600 "$T/munge.key"
munged --foreground --key-file="$T/munge.key" --socket="$T/munge.sock" --pid-file="$T/munged.pid" \
  --log-file="$T/munged.log" --seed-file="$T/munge.seed" --force 2>>"$T/munged.log" &
PIDS="$! $PIDS"
i=0
until [ -S "$T/munge.sock" ]; do i=$((i + 1)); [ $i -gt 40 ] && fail "munged did not start"; sleep 0.25; done

# slurm: one node (this host), ports from the pid so parallel runs differ
HOST=$(hostname -s)
CPUS=$(nproc)
P=$((20000 + $$ % 20000))
mkdir -p "$T/state" "$T/spool"
cat > "$T/slurm.conf" <<EOF
ClusterName=perflabtest
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$P
SlurmdPort=$((P + 1))
AuthType=auth/munge
AuthInfo=socket=$T/munge.sock
CredType=cred/munge
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=$CPUS State=UNKNOWN
PartitionName=test Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$T/slurm.conf"
slurmctld -D -i -f "$T/slurm.conf" 2>>"$T/slurmctld.log" &
PIDS="$! $PIDS"
slurmd -D -f "$T/slurm.conf" 2>>"$T/slurmd.log" &
PIDS="$! $PIDS"
i=0
until sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; do
  i=$((i + 1)); [ $i -gt 60 ] && fail "the node did not come up: $(sinfo 2>&1)"
  sleep 0.5
done

# the map step as a job array, one task per rank
F="$ROOT/tests/fixtures/multirank/straggler"
cat > "$T/map.sh" <<EOF
#!/bin/sh
exec "$PERFLAB" run distributed --map "$F/rank-\$SLURM_ARRAY_TASK_ID.json.gz" --output "$T/map-\$SLURM_ARRAY_TASK_ID"
EOF
chmod +x "$T/map.sh"
cd "$ROOT" || fail "cd"
timeout 120 sbatch --array=0-3 --wait -o "$T/task-%a.out" -e "$T/task-%a.err" "$T/map.sh" >"$T/sbatch.out" 2>&1 ||
  fail "sbatch: $(cat "$T/sbatch.out") $(cat "$T"/task-*.err 2>/dev/null)"
for r in 0 1 2 3; do [ -f "$T/map-$r/manifest.json" ] || fail "task $r wrote no summary: $(cat "$T/task-$r.err" 2>/dev/null)"; done
"$PERFLAB" run distributed --merge "$T/map-0" "$T/map-1" "$T/map-2" "$T/map-3" --format json >"$T/merged.json" || fail "merge"
"$PERFLAB" run distributed "$F"/rank-0.json.gz "$F"/rank-1.json.gz "$F"/rank-2.json.gz "$F"/rank-3.json.gz --format json >"$T/direct.json" || fail "direct run"
cmp "$T/merged.json" "$T/direct.json" || fail "merged report differs from the direct run"
echo "PASS: 4 map tasks through Slurm ($(head -1 "$T/sbatch.out")), merged report equals the direct run"
exit 0
