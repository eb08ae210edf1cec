#!/usr/bin/env bash
# bitflip.sh: no reading command panics on a damaged part (reliability.md "Reliability"). It
# writes one results directory (configs/ci.yaml, 24 jobs in several commits), then N
# times flips one bit of one committed part file, chosen by a seeded generator (half of
# the flips in the part's last 4,000 bytes, its footer), runs every command that reads
# the directory, and puts the bit back:
#
#   rocesweep status DIR, status DIR --verify, status DIR --json, report DIR,
#   export DIR, ls DIR, compare REF DIR
#
# Each must end without a panic or a Go runtime crash, and status --verify must name the
# damaged part.
#
#   scripts/bitflip.sh [N]               # N flips (default 1000), a random seed
#   BITFLIP_SEED=7 scripts/bitflip.sh 10 # replay
#
# The results directory lives on a small tmpfs when root can mount one (else under
# TMPDIR); nothing is written outside it but the binary. Exit 0: no panic and every flip
# found; 1: a check failed (each is printed: flip, file, byte, bit, command, output).
set -euo pipefail
cd "$(dirname "$0")/.."

flips=${1:-1000}
seed=${BITFLIP_SEED:-$(( $(date +%s%N) % 1000000 ))}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bitflip.XXXXXX")
mnt=""
cleanup() {
  [ -n "$mnt" ] && { umount "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null || true; }
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 2' INT TERM HUP

CGO_ENABLED=0 go build -o "$tmp/rocesweep" ./cmd/rocesweep || exit 2
bin=$tmp/rocesweep
mkdir -p "$tmp/fs"
if mount -t tmpfs -o size=64m tmpfs "$tmp/fs" 2>/dev/null; then mnt=$tmp/fs; fi
ref=$tmp/fs/ref dir=$tmp/fs/res out=$tmp/fs/out
mkdir -p "$out"
for d in "$ref" "$dir"; do
  "$bin" run configs/ci.yaml --set replicates=4 -j 2 --commit-interval 20ms -o "$d" >/dev/null 2>&1 || { echo "bitflip: the run failed"; exit 2; }
done
mapfile -t parts < <(cd "$dir" && find . -path './*/part-*' -type f | sed 's|^\./||' | LC_ALL=C sort)
echo "bitflip: $dir: ${#parts[@]} committed parts, $(du -sk "$dir" | cut -f1) KB; seed $seed"

rng=$(( seed * 2654435761 + 1013904223 ))
rnd() { # R = a number in [0, $1)
  rng=$(( rng * 6364136223846793005 + 1442695040888963407 ))
  R=$(( ((rng >> 33) & 0x7fffffff) % $1 ))
}

runs=0 panics=0 unfound=0 footer=0
failures=()
for ((i = 1; i <= flips; i++)); do
  rnd "${#parts[@]}"; f=${parts[R]}
  size=$(stat -c %s "$dir/$f")
  rnd 2
  if [ "$R" = 0 ]; then rnd $((size < 4000 ? size : 4000)); pos=$((size - 1 - R)); footer=$((footer + 1))
  else rnd "$size"; pos=$R; fi
  rnd 8; bit=$R
  old=$(od -An -tu1 -j "$pos" -N1 "$dir/$f" | tr -d ' ')
  printf "$(printf '\\%03o' $((old ^ (1 << bit))))" | dd of="$dir/$f" bs=1 seek="$pos" conv=notrunc status=none
  for c in "status $dir" "status $dir --verify" "status $dir --json" "report $dir -o $out/report.html" "export $dir -o $out/csv" "ls $dir" "compare $ref $dir"; do
    # shellcheck disable=SC2086
    "$bin" $c >"$out/log" 2>&1 || true
    runs=$((runs + 1))
    if grep -qE '^panic:|^goroutine [0-9]+ \[|^fatal error:|^SIG[A-Z]+: ' "$out/log"; then
      panics=$((panics + 1))
      failures+=("flip $i: $f byte $pos bit $bit: rocesweep $c: $(grep -m1 -E 'panic:|fatal error:|^SIG' "$out/log")")
    fi
    if [ "$c" = "status $dir --verify" ] && ! grep -qF "damaged: $f: checksum" "$out/log"; then
      unfound=$((unfound + 1))
      failures+=("flip $i: $f byte $pos bit $bit: status --verify does not name it: $(grep -m1 -E '^(damaged|verify)' "$out/log" || true)")
    fi
  done
  printf "$(printf '\\%03o' "$old")" | dd of="$dir/$f" bs=1 seek="$pos" conv=notrunc status=none
  [ $((i % 100)) = 0 ] && echo "bitflip: $i flips, $runs commands, $panics panics, $unfound not found"
done
echo "bitflip: $flips single-bit flips of ${#parts[@]} parts ($footer in a part's last 4,000 bytes), $runs reading commands: panics $panics, flips status --verify did not find $unfound, checks failed ${#failures[@]}"
if [ "${#failures[@]}" -ne 0 ]; then
  printf '%s\n' "${failures[@]}" | head -50
  exit 1
fi
