#!/usr/bin/env bash
# slurm-selftest.sh: rocesweep on a real Slurm, on this machine alone.
#
# It installs Debian's Slurm and MUNGE packages when missing, starts a private single-node
# cluster (munged, slurmctld, slurmd; its own key, ports, state and logs under a temp
# dir, SLURM_CONF pointing at a generated slurm.conf), and then:
#   1. submits configs/ci.yaml as a 3-task array with `rocesweep slurm --submit`, waits
#      for it, and checks that the results hold every job of the plan exactly once;
#   2. submits scripts/testdata/slurm-selftest.yaml (jobs of a few seconds) as a 3-task
#      array, waits until one task has committed jobs and still runs, cancels that task
#      (scancel ARRAY_K), waits for the others, checks that jobs are missing, submits
#      again into the same directory (the tasks resume) and checks exactly-once again.
# "Exactly once" is checked twice: by `rocesweep status` (the journals) and by
# TestSlurmSelftestCheck (the plan expanded afresh against the Parquet jobs table).
# On exit it cancels its jobs, stops the daemons it started and removes the temp dir
# (KEEP=1 keeps it, with the logs).
#
# Needs root (slurmd starts the tasks; apt-get installs the packages), Go, bash.
# Exit status: 0 passed; 1 failed; 3 BLOCKED: Slurm cannot run on this machine for a
# reason outside rocesweep (no root, no packages, a daemon that does not start); the
# exact error is printed.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
export PATH=$PATH:/usr/sbin:/sbin
t0=$SECONDS
BLOCKED=3
tmp=""

say() { printf '[%3ds] %s\n' $((SECONDS - t0)) "$*"; }
indent() { sed 's/^/    /'; }

show_logs() {
  [ -n "$tmp" ] || return 0
  local f
  for f in "$tmp"/log/*.log "$tmp"/round*/slurm/*.log; do
    [ -f "$f" ] || continue
    echo "--- last lines of $f"
    tail -n 15 "$f"
  done
}

fail() {
  say "FAIL: $*" >&2
  show_logs >&2
  exit 1
}

blocked() {
  say "BLOCKED: $*" >&2
  exit "$BLOCKED"
}

# stop_pid PID: SIGTERM, up to 10 s to exit, then SIGKILL.
stop_pid() {
  local pid=$1
  kill -0 "$pid" 2>/dev/null || return 0
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 20); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.5
  done
  kill -9 "$pid" 2>/dev/null || true
}

cleanup() {
  local rc=$? pidfile p
  set +e
  trap - EXIT
  if [ -n "$tmp" ]; then
    if [ -f "$tmp/slurmctld.pid" ]; then
      # Every job of this private cluster (SLURM_CONF points at it, not at the system's).
      scancel --user="$(id -un)" 2>/dev/null
      for _ in $(seq 1 30); do
        [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
        sleep 1
      done
    fi
    for pidfile in "$tmp/slurmd.pid" "$tmp/slurmctld.pid" "$tmp/munge/munged.pid"; do
      [ -f "$pidfile" ] && stop_pid "$(cat "$pidfile")"
    done
    # A job step left behind by the stopped slurmd: only those of this cluster, known by
    # the SLURM_CONF in their environment.
    for p in /proc/[0-9]*; do
      if [ "$(cat "$p/comm" 2>/dev/null)" = slurmstepd ] &&
        tr '\0' '\n' <"$p/environ" 2>/dev/null | grep -qxF "SLURM_CONF=$tmp/slurm.conf"; then
        kill -9 "${p#/proc/}" 2>/dev/null
      fi
    done
    if [ "${KEEP:-0}" = 1 ]; then
      say "kept $tmp"
    else
      rm -rf "$tmp"
    fi
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- packages -----------------------------------------------------------------------
[ "$(id -u)" -eq 0 ] || blocked "must run as root: slurmd starts the tasks and apt-get installs Slurm (this user: $(id -un))"
missing=()
for pair in slurmctld:slurmctld slurmd:slurmd sbatch:slurm-client munged:munge; do
  command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}")
done
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]} (Debian packages)"
  out=$(apt-get update -qq 2>&1) || blocked "apt-get update: $out"
  out=$(DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" 2>&1) ||
    blocked "apt-get install ${missing[*]}: $(tail -n 5 <<<"$out")"
fi
say "$(slurmctld -V), $(munged -V 2>&1 | head -n 1)"

# --- a private single-node cluster ---------------------------------------------------
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rocesweep-slurm.XXXXXX")
chmod 755 "$tmp"
mkdir -p "$tmp/state" "$tmp/spool" "$tmp/log" "$tmp/bin"
mkdir -m 755 "$tmp/munge"
dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$tmp/munge/munge.key"
sock=$tmp/munge/munge.sock
munged --key-file="$tmp/munge/munge.key" --socket="$sock" --pid-file="$tmp/munge/munged.pid" \
  --log-file="$tmp/munge/munged.log" --seed-file="$tmp/munge/munged.seed" ||
  blocked "munged did not start: $(tail -n 5 "$tmp/munge/munged.log" 2>/dev/null)"
out=$(munge -n -S "$sock" | unmunge -S "$sock" 2>&1) || blocked "munge credential round trip: $out"

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
port=""
for _ in $(seq 1 50); do
  p=$((20000 + RANDOM % 40000))
  if port_free "$p" && port_free $((p + 1)); then
    port=$p
    break
  fi
done
[ -n "$port" ] || blocked "no two free TCP ports found for slurmctld and slurmd"

host=$(hostname -s)
cpus=$(nproc)
mem=$(awk '/^MemTotal:/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)
cat >"$tmp/slurm.conf" <<EOF
# A minimal single-node Slurm for scripts/slurm-selftest.sh: root runs everything, no
# cgroups, no accounting database; all state, spool and logs are under $tmp.
ClusterName=rocesweep-selftest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
KillWait=10
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=selftest Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$tmp/slurm.conf

slurmctld -f "$SLURM_CONF" || blocked "slurmctld did not start: $(tail -n 5 "$tmp/log/slurmctld.log" 2>/dev/null)"
slurmd -f "$SLURM_CONF" || blocked "slurmd did not start: $(tail -n 5 "$tmp/log/slurmd.log" 2>/dev/null)"
state=""
for _ in $(seq 1 60); do
  state=$(sinfo -h -N -o %t 2>/dev/null || true)
  [ "$state" = idle ] && break
  sleep 0.5
done
if [ "$state" != idle ]; then
  blocked "the node is not idle after 30 s (sinfo: '${state:-no answer}'); slurmctld: $(grep -i error "$tmp/log/slurmctld.log" | tail -n 3); slurmd: $(grep -i error "$tmp/log/slurmd.log" | grep -v pmix | tail -n 3)"
fi
say "single-node Slurm up: node $host idle, $cpus CPUs, ${mem} MB, ports $port/$((port + 1)), SLURM_CONF=$SLURM_CONF"

# --- rocesweep -----------------------------------------------------------------------
rs=$tmp/bin/rocesweep
go build -o "$rs" ./cmd/rocesweep || fail "go build ./cmd/rocesweep"
go test -c -o "$tmp/bin/rocesweep.test" ./cmd/rocesweep || fail "go test -c ./cmd/rocesweep"
say "built $rs and the check (TestSlurmSelftestCheck)"

# submit DIR SPEC [slurm flags...]: rocesweep slurm --submit; sets $array to the array id.
submit() {
  local dir=$1 spec=$2 out
  shift 2
  out=$("$rs" slurm "$spec" -o "$dir" --submit "$@" 2>&1) || fail "rocesweep slurm $spec -o $dir --submit $*: $out"
  indent <<<"$out"
  array=$(sed -n 's/^submitted job array \([0-9][0-9]*\).*/\1/p' <<<"$out")
  [ -n "$array" ] || fail "no array id in the output of rocesweep slurm"
}

# wait_array ID SECONDS: until squeue no longer lists any task of the array.
wait_array() {
  local id=$1 limit=$2 start=$SECONDS
  while [ -n "$(squeue -h -j "$id" -o %i 2>/dev/null || true)" ]; do
    [ $((SECONDS - start)) -lt "$limit" ] || fail "array $id still queued after ${limit}s: $(squeue -j "$id")"
    sleep 1
  done
  say "array $id done: $(scontrol -o show job "$id" | sed -n 's/.*ArrayTaskId=\([0-9]*\).*JobState=\([A-Z]*\).*ExitCode=\([0-9:]*\).*/task \1 \2 exit \3/p' | paste -sd, -)"
}

# check DIR SPEC complete|partial: the independent check against the Parquet files.
check() {
  local out
  out=$(cd cmd/rocesweep && ROCESWEEP_SELFTEST_DIR=$1 ROCESWEEP_SELFTEST_SPEC=$repo/$2 ROCESWEEP_SELFTEST_EXPECT=$3 \
    "$tmp/bin/rocesweep.test" -test.run '^TestSlurmSelftestCheck$' -test.count=1 -test.v 2>&1) ||
    fail "TestSlurmSelftestCheck ($3) on $1:
$out"
  say "independent check ($3): $(grep -o '[0-9]* of [0-9]* planned jobs in jobs.*' <<<"$out")"
}

# status_complete DIR: rocesweep status says every job is recorded once and ok.
status_complete() {
  local out
  out=$("$rs" status "$1") || fail "rocesweep status $1"
  indent <<<"$out"
  grep -q '^complete: all [0-9]* jobs ok$' <<<"$out" || fail "rocesweep status: not complete"
  ! grep -q 'more than one shard' <<<"$out" || fail "rocesweep status: jobs recorded twice"
}

# --- round 1: configs/ci.yaml as a 3-task array ---------------------------------------
say "round 1: configs/ci.yaml as a 3-task array"
r1=$tmp/round1
submit "$r1" configs/ci.yaml --array-size 3
wait_array "$array" 120
[ "$(scontrol -o show job "$array" | grep -c 'JobState=COMPLETED')" = 3 ] || fail "not every task of $array completed: $(scontrol -o show job "$array")"
status_complete "$r1"
check "$r1" configs/ci.yaml complete

# --- round 2: cancel one task mid-run, resubmit ----------------------------------------
spec2=scripts/testdata/slurm-selftest.yaml
say "round 2: $spec2 as a 3-task array; one task cancelled mid-run, then resubmitted"
r2=$tmp/round2
# Commits every second, not every 10 s (the default): the victim is chosen at its first
# commit, and at the default that came after most of a task's jobs had run, so the cancel
# could land when none was left to lose.
submit "$r2" "$spec2" --array-size 3 --commit-interval 1s
first=$array
victim=""
start=$SECONDS
while [ -z "$victim" ]; do
  for k in 1 2 3; do
    j=$r2/journal-${k}of3.jsonl
    if [ -f "$j" ] && grep -q '"jobs":' "$j" &&
      [ "$(squeue -h -j "${first}_$k" -o %T 2>/dev/null || true)" = RUNNING ]; then
      victim=$k
      break
    fi
  done
  [ -n "$victim" ] && break
  [ -n "$(squeue -h -j "$first" -o %i 2>/dev/null || true)" ] ||
    fail "every task ended before one had committed a job: the jobs of $spec2 are too short to cancel a task mid-run (raise its duration)"
  [ $((SECONDS - start)) -lt 120 ] || fail "no task committed a job within 120 s"
  sleep 0.5
done
say "task ${first}_$victim runs and has committed $(grep -c '"job_id"' "$r2/journal-${victim}of3.jsonl") jobs: scancel ${first}_$victim"
scancel "${first}_$victim"
wait_array "$first" 180
scontrol -o show job "${first}_$victim" | grep -q 'JobState=CANCELLED' || fail "task ${first}_$victim is not CANCELLED: $(scontrol -o show job "${first}_$victim")"
out=$("$rs" status "$r2") || fail "rocesweep status $r2"
indent <<<"$out"
lost=$(awk -v s="$victim/3" '$1 == s {print $7}' <<<"$out")
[ "${lost:-0}" -gt 0 ] || fail "the cancelled shard $victim/3 has no missing jobs"
check "$r2" "$spec2" partial

say "resubmitting into $r2 (no --array-size: the directory's 3 shards; the tasks resume)"
submit "$r2" "$spec2"
wait_array "$array" 180
[ "$(scontrol -o show job "$array" | grep -c 'JobState=COMPLETED')" = 3 ] || fail "not every task of $array completed: $(scontrol -o show job "$array")"
grep -h 'already done' "$r2"/slurm/"${array}"_*.log | indent || true
status_complete "$r2"
check "$r2" "$spec2" complete

say "PASS: both arrays hold every planned job exactly once ($((SECONDS - t0)) s)"
