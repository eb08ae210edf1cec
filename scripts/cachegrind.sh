#!/usr/bin/env bash
# cachegrind.sh: instructions and cache misses per event of the fat tree's steady state,
# from valgrind's cache simulation (deterministic, unlike wall time on a shared machine;
# performance.md "Performance", the cache table).
#
#   scripts/cachegrind.sh                 # k = 8, 16, 24; level 2 of 1 MB and last level of 32 MB
#   KS="8 24" LLS="1048576" scripts/cachegrind.sh
#   TEST=/tmp/fabric.test scripts/cachegrind.sh   # a test binary built elsewhere (go test -c ./model/fabric)
#   OUT=/tmp/cg scripts/cachegrind.sh     # keep the profiles: callgrind_annotate /tmp/cg/cg.k24-256KB-1048576
#
# For each k it runs BenchmarkFatTree/k=K-256KB and its 128KB twin (the same fabric and
# flows, half the bytes) under valgrind's cache simulation, counting only the event loop
# (callgrind --toggle-collect on fabric.(*Fabric).Loop: building the fabric, whose cache
# misses vary from run to run, does not count), and prints the difference of the two runs
# over the difference of their events (the loop's start, the same in both, cancels).
# valgrind simulates two levels: a 32 KB level-1 instruction cache, a 48 KB level-1 data
# cache (D1) and one last level (LL) per run, here once at 1 MB (this processor's level 2)
# and once at 32 MB (its level 3). Hardware prefetchers are not simulated: a miss of a
# sequential stream (the engine's buckets) costs less than the figure says. Each run prints: k, LL size, instructions per event, D1 misses per
# event (reads + writes), LL misses per event (data), the events of the difference, and
# the same three figures per data packet (a change that removes events raises the
# per-event figures of the events that are left: per packet is the figure to compare).
#
# Environment: KS (default "8 16 24"), LLS (default "1048576 33554432"), TEST (a prebuilt
# test binary of ./model/fabric), OUT (directory for valgrind's files; default a
# temporary one, removed at exit).
set -euo pipefail
cd "$(dirname "$0")/.."
ks=${KS:-8 16 24}
lls=${LLS:-1048576 33554432}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=${OUT:-$tmp}
mkdir -p "$out"
test=${TEST:-}
if [ -z "$test" ]; then
  go test -c -o "$tmp/fabric.test" ./model/fabric
  test=$tmp/fabric.test
fi

# run K SIZE LL: one cachegrind run; prints "events packets Ir D1mr D1mw DLmr DLmw"
run() {
  local f="$out/cg.k$1-$2-$3"
  GOGC=off GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off valgrind --tool=callgrind --cache-sim=yes \
    --I1=32768,8,64 --D1=49152,12,64 --LL="$3",16,64 --callgrind-out-file="$f" \
    --toggle-collect='*fabric.(*Fabric).Loop' \
    "$test" -test.run '^$' -test.bench "FatTree/k=$1-$2\$" -test.benchtime 1x >"$f.log" 2>&1
  local events packets
  events=$(sed -n "s/.* \([0-9]*\) events\/op.*/\1/p" "$f.log" | head -n1)
  packets=$(sed -n "s/.* \([0-9]*\) pkts\/op.*/\1/p" "$f.log" | head -n1)
  # the summary line of the file: totals in the order of its "events:" line
  awk -v ev="$events" -v pk="$packets" '
    /^events:/ { for (i = 2; i <= NF; i++) col[$i] = i - 1 }
    /^summary:/ { print ev, pk, $(col["Ir"] + 1), $(col["D1mr"] + 1), $(col["D1mw"] + 1), $(col["DLmr"] + 1), $(col["DLmw"] + 1) }' "$f"
}

printf '%3s %9s %12s %12s %12s %10s %12s %12s %12s\n' k LL "instr/event" "D1 miss/ev" "LL miss/ev" events "instr/pkt" "D1 miss/pkt" "LL miss/pkt"
for k in $ks; do
  for ll in $lls; do
    read -r e1 p1 i1 r1 w1 lr1 lw1 < <(run "$k" 256KB "$ll")
    read -r e2 p2 i2 r2 w2 lr2 lw2 < <(run "$k" 128KB "$ll")
    awk -v k="$k" -v ll="$ll" -v e="$((e1 - e2))" -v p="$((p1 - p2))" -v i="$((i1 - i2))" -v d="$((r1 + w1 - r2 - w2))" -v l="$((lr1 + lw1 - lr2 - lw2))" 'BEGIN {
      printf "%3d %8.0fK %12.1f %12.2f %12.2f %10d %12.0f %12.1f %12.1f\n", k, ll / 1024, i / e, d / e, l / e, e, i / p, d / p, l / p }'
  done
done
