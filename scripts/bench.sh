#!/usr/bin/env bash
# bench.sh: rocesweep's performance suite (issue 8), printed in Go benchmark format so
# that benchstat compares two runs:
#
#   scripts/bench.sh > new.txt                 # COUNT=6 runs of everything (~3 minutes here)
#   scripts/bench-compare.sh old.txt new.txt   # benchstat table; exit 1 on a regression
#
# Parts:
#   (a) engine hold model and timer restart          go test -bench in model/sim
#   (b) one switch forwarding at line rate           model/switchdev (0 allocs/op)
#   (c) a NIC pair streaming at line rate            model/nic (0 allocs/op)
#       + the packet pool: bytes per in-flight packet model/pkt
#   (d) htsim's four reference scenarios, whole processes: `rocesweep sim --json` on
#       configs/bench/{incast-8to1-1MiB,incast-8to1-100MiB,leaf-spine-128-permutation-1MiB,
#       fat-tree-1024-permutation-2MB}.yaml. Each line gives the process's wall time
#       (ns/op), simulated data packets per wall second of the process (pkts/s) and of
#       the simulation alone (sim-pkts/s: build + event loop + rows, without start-up and
#       writing), events per second of the simulation, and the process's peak RSS.
#       Plus BenchmarkSweep/incast-8to1-1MiB-x100-j1: the small incast as a study of 100
#       replicates in one `rocesweep run -j 1` process, where start-up and file commits
#       are shared, as they are in a real sweep (pkts/s of the whole process).
#   (e) the sink alone (rows/s) and the runner's scaling from 1 to 2 workers.
#
# Environment: COUNT (runs of each, default 6: benchstat gives a 95% interval from 6), PARTS (default "a b c d e").
set -euo pipefail
cd "$(dirname "$0")/.."

count=${COUNT:-6}
parts=${PARTS:-a b c d e}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

want() { [[ " $parts " == *" $1 "* ]]; }
gobench() { # package, benchmark regexp, extra flags...
  local pkg=$1 re=$2
  shift 2
  go test -run '^$' -bench "$re" -benchmem -count "$count" "$@" "$pkg" | grep -E '^(Benchmark|goos|goarch|pkg|cpu)'
}

want a && gobench ./model/sim 'Hold|TimerRestart'
want b && gobench ./model/switchdev 'Forward32'
want c && { gobench ./model/nic 'PairLineRate'; gobench ./model/pkt 'PoolInFlight'; }

if want d; then
  CGO_ENABLED=0 go build -o "$tmp/rocesweep" ./cmd/rocesweep # the static binary of the README
  echo "pkg: github.com/rocesweep/rocesweep/cmd/rocesweep"
  # json value of key $2 in file $1 (sim --json prints one key per line).
  val() { sed -n "s/^ *\"$2\": \([-0-9.e+]*\),*$/\1/p" "$1" | head -n1; }
  for name in incast-8to1-1MiB incast-8to1-100MiB leaf-spine-128-permutation-1MiB fat-tree-1024-permutation-2MB; do
    for ((i = 0; i < count; i++)); do
      rm -rf "$tmp/out"
      start=$(date +%s%N)
      "$tmp/rocesweep" sim "configs/bench/$name.yaml" -o "$tmp/out" --json >"$tmp/sim.json"
      end=$(date +%s%N)
      ns=$((end - start))
      pkts=$(val "$tmp/sim.json" data_packets)
      wall=$(val "$tmp/sim.json" wall_sec)
      evs=$(val "$tmp/sim.json" events_per_sec)
      rss=$(val "$tmp/sim.json" peak_rss_bytes)
      awk -v n="$name" -v ns="$ns" -v p="$pkts" -v w="$wall" -v e="$evs" -v r="$rss" 'BEGIN {
        printf "BenchmarkSim/%s \t1\t%.0f ns/op\t%.0f pkts/s\t%.0f sim-pkts/s\t%.0f events/s\t%.0f peak-RSS-B\n", n, ns, p / (ns / 1e9), p / w, e, r
      }'
    done
  done
  # The same small incast, 100 replicates in one process. Every replicate of a drained
  # lossless incast sends the same data packets, counted once with sim --json.
  rm -rf "$tmp/out"
  "$tmp/rocesweep" sim configs/bench/incast-8to1-1MiB.yaml -o "$tmp/out" --json >"$tmp/sim.json"
  per=$(val "$tmp/sim.json" data_packets)
  for ((i = 0; i < count; i++)); do
    rm -rf "$tmp/out"
    start=$(date +%s%N)
    "$tmp/rocesweep" run configs/bench/incast-8to1-1MiB.yaml --set replicates=100 -j 1 -o "$tmp/out" >/dev/null 2>&1
    end=$(date +%s%N)
    awk -v ns="$((end - start))" -v p="$((per * 100))" 'BEGIN {
      printf "BenchmarkSweep/incast-8to1-1MiB-x100-j1 \t1\t%.0f ns/op\t%.0f pkts/s\n", ns, p / (ns / 1e9)
    }'
  done
fi

if want e; then
  gobench ./sink 'SinkParquet|SinkArrow'
  gobench ./sweep 'Runner'
fi
