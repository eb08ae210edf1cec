#!/usr/bin/env bash
# rowscheck.sh: the "rows identical" gate of a performance change. It runs every
# study of configs/*.yaml and every job of configs/bench/*.yaml with two binaries and
# requires every table of every results directory to hold the same rows
# (scripts/rowsdiff: the columns that measure the machine or the simulator,
# wall_sec, events and events_per_sec, are ignored).
#
#   scripts/rowscheck.sh BASE_REV            # e.g. main, or a commit: builds it in a worktree
#   BASE_DIR=/tmp/base scripts/rowscheck.sh BASE_REV   # keep/reuse the base results there
#   SKIP="fat-tree-1024-permutation-2MB" scripts/rowscheck.sh main   # leave out slow specs
#
# Exit 0: every table identical; 1: a difference (printed); 2: a run failed.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:?usage: rowscheck.sh BASE_REV}
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/src" 2>/dev/null || true; rm -rf "$tmp"' EXIT
out=${BASE_DIR:-$tmp/base}
skip=" ${SKIP:-} "

CGO_ENABLED=0 go build -o "$tmp/new" ./cmd/rocesweep
if [ ! -f "$out/.done" ]; then
  git worktree add --detach -q "$tmp/src" "$base"
  (cd "$tmp/src" && CGO_ENABLED=0 go build -o "$tmp/old" ./cmd/rocesweep)
fi

specs=(configs/*.yaml configs/bench/*.yaml)
run() { # binary dir spec
  local name
  name=$(basename "$3" .yaml)
  case "$3" in
  configs/bench/*) "$1" sim "$3" -o "$2/$name" >/dev/null ;;
  *) "$1" run "$3" -o "$2/$name" -j 2 >/dev/null 2>&1 ;;
  esac
}
rc=0
for s in "${specs[@]}"; do
  name=$(basename "$s" .yaml)
  [[ "$skip" == *" $name "* ]] && continue
  if [ ! -f "$out/.done" ]; then
    run "$tmp/old" "$out" "$s" || { echo "rowscheck: base run of $s failed" >&2; exit 2; }
  fi
  run "$tmp/new" "$tmp/new-out" "$s" || { echo "rowscheck: run of $s failed" >&2; exit 2; }
  if go run ./scripts/rowsdiff "$out/$name" "$tmp/new-out/$name"; then
    echo "rowscheck: $s identical"
  else
    echo "rowscheck: $s DIFFERS" >&2
    rc=1
  fi
done
[ -n "${BASE_DIR:-}" ] && touch "$out/.done"
exit $rc
