#!/usr/bin/env bash
# chaos.sh: checks the promise of reliability.md "Reliability" at scale. A sweep killed at any
# moment (SIGKILL or SIGTERM), its disk filled, its files tampered with or replaced by
# symbolic links, and then resumed with `run --resume`, ends with every job exactly once
# and the same rows as an uninterrupted run; DuckDB is the judge.
#
#   scripts/chaos.sh [N]                  # N trials (default 20), a fresh random seed
#   CHAOS_SEED=1234 scripts/chaos.sh 1    # replay trial seed 1234 (the seed a FAIL names)
#
# Knobs (environment):
#   CHAOS_SEED   seed of the first trial; trial i uses CHAOS_SEED+i-1 (default: random)
#   CHAOS_SPEC   the sweep (default configs/ci.yaml)
#   CHAOS_SET    --set overrides, space separated (default "replicates=16": 96 jobs of
#                under a second, so that kills land mid-run)
#   CHAOS_FLAGS  other run flags (default "-j 2 --commit-interval 50ms --spill-every-row":
#                several commits per run, so that there are commits to damage and kills
#                between them, and every job's rows through its spill file)
#   CHAOS_KEEP   a folder: each failed trial's directories are copied there
#
# What it does: builds rocesweep (no cgo) and scripts/duckdiff (cgo, DuckDB),
# runs the reference (the sweep uninterrupted), then per trial, into a fresh results
# directory on a tmpfs of its own, 2 to 4 rounds chosen by a seeded generator. A round is
# an optional edit of the directory, then a run (`run`, later `run --resume`):
#   edits: link   journal.jsonl, a lock file or a table folder replaced by a symbolic link
#                 to a decoy outside the directory: a run must refuse (non-zero, an error
#                 naming the link) and leave the decoy as it was; then the link is removed
#                 and the original put back;
#          tamper a byte of a committed part flipped, a digit of a job id in the journal
#                 changed, garbage or a duplicate line appended to the journal, a stray
#                 extra.parquet or part-2of2-000001.parquet dropped into a table folder:
#                 `status --verify` must report a problem; the runs that follow repair it;
#          footer a bit flipped in the last 4,000 bytes of a committed part (its footer):
#                 every reading command (status, status --verify, report, export, ls,
#                 compare) must name the damage and none may panic;
#          foreign a user's files dropped in: notes.txt, jobs/part-00000-my-spark-output.parquet,
#                 nd_stats/extra.parquet, a part numbered 2^63-2: every run must leave them
#                 byte for byte and status --verify must name each as foreign;
#   runs:  SIGKILL or SIGTERM (sometimes SIGTERM then SIGKILL, a grace period) at a random
#          moment; a full disk (the tmpfs shrunk to a little more than it holds, grown back
#          after); the machine's limits: the run under `ulimit -n 12` (EMFILE at a worker's
#          start), as another user under a low `ulimit -u` (EAGAIN: no process or thread),
#          as another user with the spill folder made unreadable mid-run (EACCES), a worker
#          killed with SIGKILL from outside; or uninterrupted. A run stopped by the
#          machine must name the limit and record no job failed (the machine is never a
#          job's failure: reliability.md "Reliability: how jobs run").
# Every trial also checks that a directory holding a user's journal.jsonl and notes.txt is
# refused, with and without --resume, and left as it was.
# Then `run --resume` until it exits 0. After every run that exits 0, `status --verify`
# must be clean and complete. Last, duckdiff compares every table's committed rows with
# the reference's (wall_sec, events_per_sec, time_utc excluded), both ways, and checks
# that every job id is in jobs exactly once. Kill times vary with the machine's load, so
# a seed replays the faults, the sizes and the delays, not the exact moment a kill lands.
#
# Needs root for the tmpfs (mount -t tmpfs) and for the runs as another user (setpriv to
# uid 65534: root ignores `ulimit -u` and file permissions); without it those faults are
# skipped and the summary says so. The real disk is never filled. Exit 0: every check held; 1: a
# check failed (each failure is printed: trial, seed, round, fault, what differed); 2: a
# build or the reference failed.
set -euo pipefail
cd "$(dirname "$0")/.."

trials=${1:-20}
seed0=${CHAOS_SEED:-$(( $(date +%s%N) % 1000000 ))}
spec=${CHAOS_SPEC:-configs/ci.yaml}
read -r -a sets <<<"${CHAOS_SET-replicates=16}"
read -r -a flags <<<"${CHAOS_FLAGS--j 2 --commit-interval 50ms --spill-every-row}"
keep=${CHAOS_KEEP:-}
run_args=("$spec" "${flags[@]}")
for s in "${sets[@]}"; do run_args+=(--set "$s"); done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/chaos.XXXXXX")
chmod 755 "$tmp" # the runs as another user execute the binary in it
cur_mnt=""   # the tmpfs mounted now
RUN_PID=""   # the run started in the background and not yet waited for
cleanup() {
  [ -n "$RUN_PID" ] && kill -KILL "$RUN_PID" 2>/dev/null
  [ -n "$cur_mnt" ] && { umount "$cur_mnt" 2>/dev/null || umount -l "$cur_mnt" 2>/dev/null; }
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 2' INT TERM HUP

echo "chaos: building rocesweep and duckdiff"
CGO_ENABLED=0 go build -o "$tmp/rocesweep" ./cmd/rocesweep || exit 2
CGO_ENABLED=1 go build -tags duckdb -o "$tmp/duckdiff" ./scripts/duckdiff || exit 2
bin=$tmp/rocesweep
diff=$tmp/duckdiff

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# --- the seeded generator: a 64-bit LCG in bash arithmetic, the same on any bash ---
rng=0
seed_rng() { rng=$(( $1 * 2654435761 + 1013904223 )); rnd 2; rnd 2; }
rnd() { # rnd N: R = a number in [0, N)
  rng=$(( rng * 6364136223846793005 + 1442695040888963407 ))
  R=$(( ((rng >> 33) & 0x7fffffff) % $1 ))
}
pick() { rnd $#; shift "$R"; P=$1; } # P = one of the arguments

# --- the reference ---
ref=$tmp/ref
t0=$(now_ms)
if ! "$bin" run "${run_args[@]}" -o "$ref" >"$tmp/ref.out" 2>&1; then
  echo "chaos: the reference run failed:"; tail -5 "$tmp/ref.out"; exit 2
fi
ref_ms=$(( $(now_ms) - t0 ))
t0=$(now_ms)
"$bin" run "${run_args[@]}" -o "$ref" --resume >/dev/null 2>&1 || { echo "chaos: resuming the complete reference failed"; exit 2; }
start_ms=$(( $(now_ms) - t0 ))   # what a run costs before its first job
plan=$(sed -n 's/.*"plan_size": *\([0-9]*\).*/\1/p' "$ref/manifest.json" | head -1)
ref_kb=$(du -sk "$ref" | cut -f1)
"$bin" status "$ref" --verify >"$tmp/ref.status" 2>&1 || true
ref_complete=$(grep -m1 '^complete: ' "$tmp/ref.status" || true)
if ! grep -q '^verify: every journal line' "$tmp/ref.status" || [ "$ref_complete" != "complete: all $plan jobs ok" ]; then
  echo "chaos: the reference is not complete and clean:"; cat "$tmp/ref.status"; exit 2
fi
"$diff" "$ref" "$ref" >"$tmp/ref.diff" || { echo "chaos: duckdiff of the reference with itself:"; cat "$tmp/ref.diff"; exit 2; }
echo "chaos: reference: $spec ${sets[*]} ${flags[*]}: $plan jobs, ${ref_ms} ms (${start_ms} ms before the first job), ${ref_kb} KB"

# --- can we mount a tmpfs? ---
tmpfs=1
mkdir -p "$tmp/probe"
if ! err=$(mount -t tmpfs -o size=1m tmpfs "$tmp/probe" 2>&1); then
  tmpfs=0
  echo "chaos: disk-full faults SKIPPED: mount -t tmpfs is not permitted here ($err)"
else
  umount "$tmp/probe"
fi

# --- can we run as another user? (uid 65534: its processes are limited by ulimit -u, its
# files by their permissions, which root ignores) ---
other=0
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups -- "$bin" version >/dev/null 2>&1; then
  other=1
else
  echo "chaos: EAGAIN and EACCES faults SKIPPED: runs as another user need root and setpriv"
fi
as_other=(setpriv --reuid=65534 --regid=65534 --clear-groups --)

# --- counters ---
n_sigkill=0 n_sigterm=0 n_grace=0 n_missed=0 n_full=0 n_full_fit=0
n_link=0 n_refused=0 n_decoy_ok=0 n_tamper=0 n_found=0 n_repaired=0
n_runs=0 rows_total=0 rows_lost=0 rows_extra=0
n_emfile=0 n_eagain=0 n_eacces=0 n_wkill=0 n_retried=0 n_machine_fit=0
n_footer=0 n_reader_runs=0 n_panics=0 n_foreign=0 n_foreign_intact=0 n_foreign_dirs=0
failures=()

# Per trial state: dir (the results directory), mnt (its tmpfs), started (a run began),
# pending (tampers not yet seen repaired), log (what happened, one word per step).
fail() { # fail WHAT: one failed check of the current trial
  failures+=("FAIL trial $trial (seed $seed) round $round $fault: $*")
  echo "  FAIL round $round $fault: $*"
  trial_ok=0
}

missing_jobs() { # M = jobs not yet committed (approximate: counts the journal's job lines)
  local done=0
  [ -f "$dir/journal.jsonl" ] && done=$(grep -c '"job_id"' "$dir/journal.jsonl" || true)
  M=$(( plan - done )); [ "$M" -lt 0 ] && M=0
  return 0
}

# start_run [PREFIX...]: the trial's run in the background (pid in RUN_PID, output in
# $out.*), started through PREFIX (a command that ends by exec'ing its arguments: setpriv,
# `bash -c 'ulimit ...; exec "$0" "$@"'`), so that RUN_PID is the runner's.
start_run() {
  local resume=()
  [ "$started" = 1 ] && resume=(--resume)
  started=1
  out=$tmp/t$trial/run$((++n_runs_trial))
  "$@" "$bin" run "${run_args[@]}" -o "$dir" "${resume[@]}" >"$out.out" 2>"$out.err" &
  RUN_PID=$!
}
wait_run() { # RC = the run's exit status
  RC=0
  wait "$RUN_PID" 2>/dev/null || RC=$?  # 2>/dev/null: not bash's "Killed" notice
  RUN_PID=""
  n_runs=$((n_runs + 1))
  # A runner that cannot start a thread under `ulimit -u` is stopped by the Go runtime,
  # which names the limit: a crash of the machine's, like a SIGKILL (nothing is lost).
  if grep -qE '^panic:|^goroutine [0-9]+ \[|fatal error:' "$out.err" && ! grep -q 'may need to increase max user processes (ulimit -u)' "$out.err"; then
    fail "the run crashed (exit $RC): $(grep -m1 -E 'panic:|fatal error:' "$out.err")"
  fi
}

# problems FILE: does the output of `status --verify` report a problem? A damaged or
# missing committed file is a "damaged:" line (status checks files); the journals and the
# table folders end with "verify: N problems; ...".
problems() { grep -qE '^damaged: |^verify: [0-9]+ problems?;' "$1"; }

# check_done: after a run that exited 0, the directory verifies clean and complete
# (DONE=1; 0 after a failed check).
check_done() {
  DONE=0
  local st=$tmp/t$trial/status$n_runs_trial
  "$bin" status "$dir" --verify >"$st" 2>&1 || true
  if problems "$st" || ! grep -q '^verify: every journal line' "$st"; then
    fail "a run exited 0 but status --verify is not clean: $(grep -m2 -E '^(verify|damaged):' "$st" | tr '\n' ' ')"
    return 0
  fi
  n_repaired=$((n_repaired + pending)); pending=0   # verify is clean: the tampers are repaired
  if ! grep -qxF "$ref_complete" "$st"; then
    [ "$incomplete_said" = 1 ] && return 0   # said once per trial
    incomplete_said=1
    fail "a run exited 0 but status says \"$(grep -m1 -E '^complete' "$st" || grep -m1 '^total' "$st")\", the reference \"$ref_complete\""
    return 0
  fi
  DONE=1
}

# A run: uninterrupted, killed, or on a full disk.
run_plain() {
  fault=resume
  start_run; wait_run
  if [ "$RC" -ne 0 ]; then
    fail "run --resume exited $RC: $(grep -v warning "$out.err" | tail -1)"
    return 1
  fi
  check_done; log+=" resume"
}

run_kill() { # run_kill KILL|TERM|TERM+KILL
  local sig=$1 d d2=0 t
  missing_jobs
  t=$(( start_ms + (ref_ms - start_ms) * M / plan * 9 / 10 + 20 ))   # the run's expected length
  d=$(( t * frac / 1000 ))
  fault="sig$sig@${d}ms"
  start_run
  sleep "$(printf '%d.%03d' $((d / 1000)) $((d % 1000)))"
  case $sig in
  KILL) kill -KILL "$RUN_PID" 2>/dev/null || true ;;
  TERM) kill -TERM "$RUN_PID" 2>/dev/null || true ;;
  TERM+KILL)
    d2=$(( 400 * frac2 / 1000 )); fault="sigTERM@${d}ms+KILL@${d2}ms"
    kill -TERM "$RUN_PID" 2>/dev/null || true
    sleep "0.$(printf '%03d' "$d2")"
    kill -KILL "$RUN_PID" 2>/dev/null || true ;;
  esac
  wait_run
  # Which signals reached a running process: a run that ended first exits 0.
  case "$sig:$RC" in
  KILL:137) n_sigkill=$((n_sigkill + 1)); log+=" $fault(killed)" ;;
  TERM+KILL:137) n_sigterm=$((n_sigterm + 1)); n_sigkill=$((n_sigkill + 1)); n_grace=$((n_grace + 1)); log+=" $fault(killed)" ;;
  TERM:130 | TERM:143 | TERM+KILL:130 | TERM+KILL:143) n_sigterm=$((n_sigterm + 1)); log+=" $fault(exit $RC)" ;;
  *:0) n_missed=$((n_missed + 1)); log+=" $fault(ended first)"; check_done ;;
  *) fail "the run exited $RC under SIG$sig: $(grep -v warning "$out.err" | tail -1)"; log+=" $fault(exit $RC)" ;;
  esac
}

failed_jobs() { # the job ids the journal records as failed, sorted
  [ -f "$dir/journal.jsonl" ] || return 0
  grep -o '"job_id":"[0-9a-f]*","status":"failed"' "$dir/journal.jsonl" | cut -d'"' -f4 | LC_ALL=C sort -u || true
}

run_full() {
  local used size rc
  missing_jobs
  used=$(df -k --output=used "$mnt" | tail -1 | tr -d ' ')
  size=$(( used + 4 + (ref_kb * M / plan * 3 / 4 + 8) * frac / 1000 ))
  fault="disk-full(${size}k, ${used}k used)"
  if ! mount -o remount,size="${size}k" "$mnt"; then
    fail "cannot shrink the tmpfs to ${size}k"; return 0
  fi
  local failed_before failed_after
  failed_before=$(failed_jobs)
  start_run; wait_run
  mount -o remount,size=256m "$mnt"
  failed_after=$(failed_jobs)
  if [ "$failed_after" != "$failed_before" ]; then
    fail "the full disk was recorded as the failure of jobs (status failed, which --resume does not run again): $(comm -13 <(echo "$failed_before") <(echo "$failed_after") | tr '\n' ' ')($(grep -m1 -o 'spill [^ ]*: write [^:]*: no space left on device\|[^:]*: no space left on device' "$out.err" | head -1))"
  fi
  if [ "$RC" -eq 0 ]; then
    n_full_fit=$((n_full_fit + 1)); log+=" $fault(fit)"; check_done
  elif grep -q 'no space left on device' "$out.err"; then
    n_full=$((n_full + 1)); log+=" $fault(ENOSPC, exit $RC)"
  else
    fail "the run on a full disk exited $RC without saying the disk is full: $(grep -v warning "$out.err" | tail -1)"
  fi
}

# run_machine emfile|eagain|eacces|wkill: a run that meets a limit or fault of the
# machine. It must end ok (the fault missed the run, or a killed worker's job ran again
# in a fresh one) or stop naming the cause, and record no job failed.
run_machine() {
  local what=$1 failed_before failed_after want d n
  missing_jobs
  d=$(( (start_ms + (ref_ms - start_ms) * M / plan * 9 / 10 + 20) * frac / 1000 ))
  failed_before=$(failed_jobs)
  case $what in
  emfile)
    fault="emfile(ulimit -n 12)"; want='too many open files'
    start_run bash -c 'ulimit -n 12; exec "$0" "$@"' ;;
  eagain)
    # A little above what uid 65534 runs now: the runner starts, its workers may not.
    n=$(ps -u 65534 -L --no-headers 2>/dev/null | wc -l || true) # ps fails when there are none
    n=$(( n + 8 + frac % 5 ))
    fault="eagain(ulimit -u $n)"; want='ulimit -u'
    chown -R 65534:65534 "$mnt"
    start_run "${as_other[@]}" bash -c "ulimit -u $n; exec \"\$0\" \"\$@\"" ;;
  eacces)
    fault="eacces(spill folder 000)"; want='permission denied'
    chown -R 65534:65534 "$mnt"
    start_run "${as_other[@]}"
    local spill=$dir/.spill-1of1 k
    for ((k = 0; k < 400; k++)); do # until the spill folder is there (10 ms steps, at most 4 s)
      [ -d "$spill" ] && break
      kill -0 "$RUN_PID" 2>/dev/null || break
      sleep 0.01
    done
    sleep "$(printf '%d.%03d' $((d / 4000)) $((d / 4 % 1000)))"
    chmod 000 "$spill" 2>/dev/null || true ;;
  wkill) # once a worker runs, a moment later: SIGKILL to one, as the OOM killer sends
    d=$(( d / 4 )); fault="wkill@+${d}ms"; want=''
    start_run
    local w="" k
    for ((k = 0; k < 400; k++)); do # until a worker process is there (10 ms steps, at most 4 s)
      w=$(pgrep -P "$RUN_PID" -f __worker | head -1 || true)
      [ -n "$w" ] && break
      kill -0 "$RUN_PID" 2>/dev/null || break
      sleep 0.01
    done
    sleep "$(printf '%d.%03d' $((d / 1000)) $((d % 1000)))"
    w=$(pgrep -P "$RUN_PID" -f __worker | head -1 || true)
    if [ -n "$w" ]; then kill -KILL "$w" 2>/dev/null || true; else fault+="(no worker)"; fi ;;
  esac
  wait_run
  if [ "$what" = eacces ]; then chmod 755 "$dir/.spill-1of1" 2>/dev/null || true; fi
  failed_after=$(failed_jobs)
  if [ "$failed_after" != "$failed_before" ]; then
    fail "the machine's fault was recorded as the failure of jobs: $(comm -13 <(echo "$failed_before") <(echo "$failed_after") | tr '\n' ' ')($(grep -v warning "$out.err" | tail -1))"
  fi
  case $what in emfile) n_emfile=$((n_emfile + 1)) ;; eagain) n_eagain=$((n_eagain + 1)) ;; eacces) n_eacces=$((n_eacces + 1)) ;; wkill) n_wkill=$((n_wkill + 1)) ;; esac
  grep -q 'trying it once more in a fresh worker' "$out.err" && n_retried=$((n_retried + 1))
  if [ "$RC" -eq 0 ]; then
    n_machine_fit=$((n_machine_fit + 1)); log+=" $fault(ok)"; check_done
  elif [ -n "$want" ] && grep -q "$want" "$out.err"; then
    log+=" $fault(stopped, exit $RC)"
  else
    fail "the run under $fault exited $RC without naming the cause${want:+ ($want)}: $(grep -v warning "$out.err" | tail -1)"
  fi
}

# readers: every reading command on the directory as it is; none may panic, and the
# damage (a flipped bit) must be named by status --verify (checked by the caller).
readers() {
  local c o rd=$tmp/t$trial/readers
  mkdir -p "$rd"
  for c in "status $dir" "status $dir --verify" "status $dir --json" "report $dir -o $rd/report.html" "export $dir -o $rd/csv" "ls $dir" "compare $ref $dir"; do
    # shellcheck disable=SC2086
    "$bin" $c >"$rd/out" 2>&1 || true
    n_reader_runs=$((n_reader_runs + 1))
    if grep -qE '^panic:|^goroutine [0-9]+ \[|fatal error:' "$rd/out"; then
      n_panics=$((n_panics + 1))
      fail "rocesweep $c panicked: $(grep -m1 -E 'panic:|fatal error:' "$rd/out")"
    fi
  done
}

# edit_foreign: a user's files in the results directory; they must stay as they are.
edit_foreign() {
  committed_files
  if [ "${#FILES[@]}" -eq 0 ]; then run_plain || return 0; committed_files; fi
  local f src
  pick "${FILES[@]}"; src=$dir/$P
  mkdir -p "$dir/jobs" "$dir/nd_stats"
  printf 'my notes\n' >"$dir/notes.txt"
  for f in notes.txt jobs/part-00000-my-spark-output.parquet nd_stats/extra.parquet jobs/part-1of1-9223372036854775806.parquet; do
    [ "$f" = notes.txt ] || cp "$src" "$dir/$f"
    if [[ " ${foreign[*]} " != *" $f "* ]]; then foreign+=("$f"); n_foreign=$((n_foreign + 1)); fi
  done
  foreign_sum=$(cd "$dir" && sha256sum "${foreign[@]}")
  fault="foreign(${#foreign[@]} files)"; log+=" $fault"
}

# check_foreign: the user's files are there byte for byte, and verify names each
# foreign (not notes.txt, outside the table folders).
check_foreign() {
  [ "${#foreign[@]}" -eq 0 ] && return 0
  local st=$tmp/t$trial/foreign.status f
  if [ "$(cd "$dir" && sha256sum "${foreign[@]}" 2>&1)" = "$foreign_sum" ]; then
    n_foreign_intact=$((n_foreign_intact + ${#foreign[@]}))
  else
    fail "a user's file was changed or removed: $(cd "$dir" && sha256sum -c <<<"$foreign_sum" 2>&1 | grep -v ': OK' | tr '\n' ' ')"
  fi
  "$bin" status "$dir" --verify >"$st" 2>&1 || true
  for f in "${foreign[@]}"; do
    [ "$f" = notes.txt ] && continue
    grep -qF "note: foreign $f:" "$st" || fail "status --verify does not name $f as foreign"
  done
}

# check_foreign_dir: a directory of a user's journal.jsonl and notes.txt is not
# rocesweep's: run refuses it, with and without --resume, and leaves it as it was.
check_foreign_dir() {
  local u=$tmp/t$trial/userdir before after r
  mkdir -p "$u"
  printf '{"my":"journal"}\n' >"$u/journal.jsonl"; printf 'my notes\n' >"$u/notes.txt"
  before=$(tree_sum "$u")
  for r in "" --resume; do
    # shellcheck disable=SC2086
    if "$bin" run "${run_args[@]}" -o "$u" $r >"$u.out" 2>&1; then
      fail "run $r -o DIR of a user's journal.jsonl and notes.txt exited 0"
    elif ! grep -q 'not rocesweep results' "$u.out"; then
      fail "run $r -o DIR of a user's journal.jsonl: $(tail -1 "$u.out")"
    fi
  done
  after=$(tree_sum "$u")
  if [ "$before" = "$after" ]; then n_foreign_dirs=$((n_foreign_dirs + 1)); else fail "a user's journal.jsonl or notes.txt changed"; fi
}

tree_sum() { # a checksum of a file or folder: names, types, sizes and contents
  { find "$1" -printf '%P %y %s\n' | LC_ALL=C sort
    find "$1" -type f -print0 | LC_ALL=C sort -z | xargs -0r sha256sum | sed "s|$1||"; } | sha256sum | cut -c1-16
}

edit_link() { # edit_link journal|lock|manifest-lock|table
  local what=$1 target name decoy aside before after
  case $what in
  journal) name=journal.jsonl ;;
  lock) name=.journal.jsonl.lock ;;
  manifest-lock) what=lock name=.manifest.lock ;;
  table)
    local tables=()
    for t in "$dir"/*/; do [ -d "$t" ] && [ ! -L "${t%/}" ] && tables+=("$(basename "$t")"); done
    if [ "${#tables[@]}" -eq 0 ]; then name=jobs; else pick "${tables[@]}"; name=$P; fi ;;
  esac
  fault="link-$what($name)"
  n_link=$((n_link + 1))
  mkdir -p "$dir" "$tmp/t$trial/decoy" "$tmp/t$trial/aside"
  target=$dir/$name
  decoy=$tmp/t$trial/decoy/$name.$round
  aside=$tmp/t$trial/aside/$name
  rm -rf "$aside"
  if [ -e "$target" ]; then cp -a "$target" "$decoy"; mv "$target" "$aside"
  elif [ "$what" = table ]; then mkdir "$decoy"; echo decoy >"$decoy/part-1of1-000001.parquet"
  else echo decoy >"$decoy"
  fi
  ln -s "$decoy" "$target"
  before=$(tree_sum "$decoy")
  start_run; wait_run
  after=$(tree_sum "$decoy")
  # Refused: a non-zero exit and an error naming the link (by its path, or, when the
  # directory has no manifest yet, as a file that is not rocesweep's: "... (jobs)").
  if [ "$RC" -ne 0 ] && { grep -qF "$target is a symbolic link" "$out.err" || grep -qF "($name)" "$out.err"; }; then
    n_refused=$((n_refused + 1))
  else
    fail "the run did not refuse the link $target (exit $RC): $(grep -v warning "$out.err" | tail -1)"
  fi
  if [ "$before" = "$after" ]; then n_decoy_ok=$((n_decoy_ok + 1))
  else fail "the decoy $decoy changed behind the link $target"
  fi
  rm "$target"
  [ -e "$aside" ] && mv "$aside" "$target"
  log+=" $fault"
}

committed_files() { # FILES = the directory's committed files, by DuckDB over the journal
  mapfile -t FILES < <("$diff" files "$dir" 2>/dev/null || true)
}

edit_tamper() { # edit_tamper flip|footer|jobid|garbage-text|garbage-json|garbage-binary|dupline|extra|stray
  local what=$1 f n line new pos old d st size b
  committed_files
  if [ "${#FILES[@]}" -eq 0 ]; then # nothing committed yet: let a run commit something
    run_plain || return 0
    committed_files
  fi
  local j=$dir/journal.jsonl
  case $what in
  flip)
    pick "${FILES[@]}"; f=$P; size=$(stat -c %s "$dir/$f")
    rnd "$size"; pos=$R; rnd 255; b=$((R + 1))
    old=$(od -An -tu1 -j "$pos" -N1 "$dir/$f" | tr -d ' ')
    printf "$(printf '\\%03o' $((old ^ b)))" | dd of="$dir/$f" bs=1 seek="$pos" conv=notrunc status=none
    fault="tamper-flip($f byte $pos)" ;;
  footer) # one bit of the last 4,000 bytes: a Parquet part's footer
    pick "${FILES[@]}"; f=$P; size=$(stat -c %s "$dir/$f")
    rnd $((size < 4000 ? size : 4000)); pos=$((size - 1 - R)); rnd 8; b=$((1 << R))
    old=$(od -An -tu1 -j "$pos" -N1 "$dir/$f" | tr -d ' ')
    printf "$(printf '\\%03o' $((old ^ b)))" | dd of="$dir/$f" bs=1 seek="$pos" conv=notrunc status=none
    n_footer=$((n_footer + 1))
    fault="tamper-footer($f byte $pos bit $b)" ;;
  jobid)
    mapfile -t lines < <(grep -n '"job_id":"' "$j" | cut -d: -f1)
    pick "${lines[@]}"; n=$P; line=$(sed -n "${n}p" "$j")
    local id=${line#*\"job_id\":\"}; id=${id:0:16}
    local digits=() k
    for ((k = 0; k < 16; k++)); do [[ ${id:k:1} == [0-9] ]] && digits+=("$k"); done
    [ "${#digits[@]}" -eq 0 ] && digits=(0)
    pick "${digits[@]}"; pos=$P; rnd 9; d=$(( (${id:pos:1} + 1 + R) % 10 ))
    new=${line/\"job_id\":\"$id\"/\"job_id\":\"${id:0:pos}$d${id:pos+1}\"}
    { head -n $((n - 1)) "$j"; printf '%s\n' "$new"; tail -n +$((n + 1)) "$j"; } >"$j.chaos" && cat "$j.chaos" >"$j" && rm "$j.chaos"
    fault="tamper-jobid(line $n: $id -> ${id:0:pos}$d${id:pos+1})" ;;
  garbage-*)
    case ${what#garbage-} in
    text) printf 'garbage appended by chaos.sh\n' >>"$j" ;;
    json) printf '{"job_id":"00000000deadbeef","status":"ok","commit":1}\n' >>"$j" ;;
    binary) local k s=""; for ((k = 0; k < 24; k++)); do rnd 255; s+=$(printf '\\%03o' $((R == 9 ? 11 : R + 1))); done
      printf "$s\n" >>"$j" ;;
    esac
    fault="tamper-$what" ;;
  dupline)
    mapfile -t lines < <(grep -n -E '"job_id":"|"files":' "$j" | cut -d: -f1)
    pick "${lines[@]}"; n=$P; line=$(sed -n "${n}p" "$j")
    printf '%s\n' "$line" >>"$j"
    if [[ $line == *'"files":'* ]]; then fault="tamper-dupline(closing line $n)"; else fault="tamper-dupline(job line $n)"; fi ;;
  extra) # a file of no shard: foreign, left as it is and named by verify (check_foreign)
    pick "${FILES[@]}"; f=$P; new=$(dirname "$f")/extra.parquet
    cp "$dir/$f" "$dir/$new"
    if [[ " ${foreign[*]} " != *" $new "* ]]; then foreign+=("$new"); n_foreign=$((n_foreign + 1)); fi
    foreign_sum=$(cd "$dir" && sha256sum "${foreign[@]}")
    fault="tamper-extra($new)"; log+=" $fault(foreign)"
    return 0 ;;
  stray) # a part of this shard that no commit names: removed by --resume
    pick "${FILES[@]}"; f=$P; new=$(dirname "$f")/part-1of1-000777.parquet
    cp "$dir/$f" "$dir/$new"
    fault="tamper-$what($new)" ;;
  esac
  case $what in flip | footer) readers ;; esac
  n_tamper=$((n_tamper + 1))
  st=$tmp/t$trial/tamper$round
  "$bin" status "$dir" --verify >"$st" 2>&1 || true
  if problems "$st"; then
    n_found=$((n_found + 1)); pending=$((pending + 1)); log+=" $fault(found)"
  else
    fail "status --verify reported no problem: $(grep -m1 '^verify:' "$st")"; log+=" $fault(NOT FOUND)"
  fi
}

# --- the trials ---
t_all=$(now_ms)
for ((trial = 1; trial <= trials; trial++)); do
  seed=$((seed0 + trial - 1))
  seed_rng "$seed"
  mkdir -p "$tmp/t$trial"
  mnt=$tmp/t$trial/mnt; mkdir -p "$mnt"
  if [ "$tmpfs" = 1 ]; then mount -t tmpfs -o size=256m tmpfs "$mnt"; cur_mnt=$mnt; fi
  dir=$mnt/res
  started=0 pending=0 trial_ok=1 n_runs_trial=0 log="" incomplete_said=0 foreign=() foreign_sum=""
  # The trial's plan, drawn before anything runs, so that a seed replays it whatever
  # happens: per round an edit (or none), a run, and two fractions (per mille) that place
  # a kill within the expected run time or size a full disk.
  rnd 3; rounds=$((R + 2))
  edits=() runs=() fracs=() fracs2=()
  for ((round = 1; round <= rounds; round++)); do
    P=none
    if [ "$round" -gt 1 ]; then
      rnd 4
      case $R in
      0) pick journal lock manifest-lock table; P=link:$P ;;
      1) pick flip footer footer jobid garbage-text garbage-json garbage-binary dupline extra stray; P=tamper:$P ;;
      2) P=foreign ;;
      esac
    fi
    edits+=("$P")
    kinds=(kill kill term grace emfile wkill wkill)   # the first round's run is always interrupted
    [ "$tmpfs" = 1 ] && kinds+=(full full)
    [ "$other" = 1 ] && kinds+=(eagain eacces)
    [ "$round" -gt 1 ] && kinds+=(plain)
    pick "${kinds[@]}"; runs+=("$P")
    rnd 1000; fracs+=("$R"); rnd 1000; fracs2+=("$R")
  done
  seed_rng $((seed * 7919 + 1))   # the choices that depend on the directory (files, lines, bytes)
  for ((round = 1; round <= rounds; round++)); do
    e=${edits[round - 1]} frac=${fracs[round - 1]} frac2=${fracs2[round - 1]}
    case $e in link:*) edit_link "${e#link:}" ;; tamper:*) edit_tamper "${e#tamper:}" ;; foreign) edit_foreign ;; esac
    case ${runs[round - 1]} in
    kill) run_kill KILL ;; term) run_kill TERM ;; grace) run_kill TERM+KILL ;;
    full) run_full ;; plain) run_plain || true ;;
    emfile | eagain | eacces | wkill) run_machine "${runs[round - 1]}" ;;
    esac
  done
  round=final
  for attempt in 1 2 3; do # the run after the last fault; a failure is retried to see if it converges
    fault="resume"
    start_run; wait_run
    [ "$RC" -eq 0 ] && break
    fail "the final run --resume (attempt $attempt) exited $RC: $(grep -v warning "$out.err" | tail -1)"
  done
  log+=" resume"
  [ "$RC" -eq 0 ] && check_done
  if [ "$RC" -eq 0 ]; then # compare even when a check failed: the rows say what it cost
    fault=compare
    if "$diff" "$ref" "$dir" >"$tmp/t$trial/diff" 2>&1; then :; else
      fail "DuckDB finds other rows than the reference's: $(tail -1 "$tmp/t$trial/diff")"
      head -n 40 "$tmp/t$trial/diff" | sed 's/^/    /' | cut -c1-400
    fi
    last=$(tail -1 "$tmp/t$trial/diff")
    [[ $last =~ rows=([0-9]+)\ lost=([0-9]+)\ extra=([0-9]+) ]] &&
      { rows_total=$((rows_total + BASH_REMATCH[1])); rows_lost=$((rows_lost + BASH_REMATCH[2])); rows_extra=$((rows_extra + BASH_REMATCH[3])); }
    [ "$pending" -ne 0 ] && fail "$pending tampers not repaired"
    check_foreign
  fi
  check_foreign_dir
  verdict=ok; [ "$trial_ok" = 1 ] || verdict=FAILED
  echo "trial $trial/$trials seed $seed:$log -> ${last:-no comparison} [$verdict]"
  if [ "$trial_ok" = 0 ] && [ -n "$keep" ]; then
    mkdir -p "$keep"; cp -a "$tmp/t$trial" "$keep/trial$trial-seed$seed"; echo "  kept in $keep/trial$trial-seed$seed"
  fi
  if [ "$tmpfs" = 1 ]; then umount "$mnt"; cur_mnt=""; fi
  rm -rf "$tmp/t$trial"
  last=""
done
secs=$(( ($(now_ms) - t_all) / 1000 ))

full_note="disk-full faults $n_full (and $n_full_fit runs that fit)"
[ "$tmpfs" = 0 ] && full_note="disk-full faults SKIPPED (no tmpfs)"
machine_note="machine faults $((n_emfile + n_eagain + n_eacces + n_wkill)) (EMFILE $n_emfile, EAGAIN $n_eagain, EACCES $n_eacces, worker SIGKILL $n_wkill; $n_retried jobs tried again in a fresh worker; $n_machine_fit runs ended ok)"
[ "$other" = 0 ] && machine_note+=" (EAGAIN and EACCES SKIPPED)"
echo
echo "chaos: $trials trials (seeds $seed0..$((seed0 + trials - 1)), ${secs} s): kills $((n_sigkill + n_sigterm - n_grace)) (SIGKILL $n_sigkill, SIGTERM $n_sigterm, $n_grace of them SIGTERM then SIGKILL; $n_missed more landed after the run had ended), $full_note, link faults $n_link ($n_refused refused, $n_decoy_ok decoys intact), tamper faults $n_tamper ($n_found found by verify, $n_repaired repaired; $n_footer footer bit flips), $machine_note, foreign files $n_foreign ($n_foreign_intact intact), foreign directories refused $n_foreign_dirs, reader commands on damaged parts $n_reader_runs (panics $n_panics), runs $n_runs, rows compared $rows_total, rows lost $rows_lost, rows extra $rows_extra, checks failed ${#failures[@]}"
if [ "${#failures[@]}" -ne 0 ]; then
  printf '%s\n' "${failures[@]}"
  exit 1
fi
