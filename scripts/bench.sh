#!/usr/bin/env bash
# bench.sh: rocesweep's performance suite (issue 8), printed in Go benchmark format so
# that benchstat compares two runs:
#
#   scripts/bench.sh > new.txt             # COUNT=5 runs of everything (~5 minutes here)
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
#   (e) the sink alone (rows/s) and the runner's scaling from 1 to 2 workers.
#
# Environment: COUNT (runs of each, default 5), PARTS (default "a b c d e").
set -euo pipefail
cd "$(dirname "$0")/.."

count=${COUNT:-5}
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
  go build -o "$tmp/rocesweep" ./cmd/rocesweep
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
fi

if want e; then
  gobench ./sink 'SinkParquet|SinkArrow'
  gobench ./sweep 'Runner'
fi
