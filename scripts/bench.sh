#!/usr/bin/env bash
# bench.sh: rocesweep's performance suite, printed in Go benchmark format so
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
#   (f) scaling with hosts: the fat tree permutation of 2 MB at k = 8, 12, 16, 20 (128 to
#       2,000 hosts), whole processes as in (d), plus peak RSS per host (B/host).
#   (g) simulated time: the 8->1 incast at 10, 100 and 400 MiB each (1 to 70 ms simulated),
#       whole processes as in (d), plus peak RSS per simulated ms (B/sim-ms). A job's
#       memory should not grow with simulated time: peak-RSS-B of the three should match.
#
# After the benchmark lines, stderr gets a summary of the figures docs/performance.md
# names (medians over COUNT runs): data packets per wall second of the whole process for
# each reference job, the 1 MiB incast's wall ms, and peak RSS of the 10 vs 400 MiB incast.
#
# Environment: COUNT (runs of each, default 6: benchstat gives a 95% interval from 6),
# PARTS (default "a b c d e f g"; CI runs PARTS=d).
set -euo pipefail
cd "$(dirname "$0")/.."

count=${COUNT:-6}
parts=${PARTS:-a b c d e f g}
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

# json value of key $2 in file $1 (sim --json prints one key per line).
val() { sed -n "s/^ *\"$2\": \([-0-9.e+]*\),*$/\1/p" "$1" | head -n1; }
built=
build() {
  [ -n "$built" ] && return
  CGO_ENABLED=0 go build -o "$tmp/rocesweep" ./cmd/rocesweep # the static binary of the README's install
  echo "pkg: github.com/rocesweep/rocesweep/cmd/rocesweep"
  built=1
}
# simbench NAME HOSTS SPEC [--set ...]: COUNT whole `rocesweep sim` processes, one
# BenchmarkSim line each: wall (ns/op), data packets per wall second of the process and
# of the simulation alone, events/s, peak RSS, RSS per host and per simulated ms. Each
# line is also kept in $tmp/lines for the summary.
simbench() {
  local name=$1 hosts=$2 spec=$3
  shift 3
  for ((i = 0; i < count; i++)); do
    rm -rf "$tmp/out"
    start=$(date +%s%N)
    "$tmp/rocesweep" sim "$spec" "$@" -o "$tmp/out" --json >"$tmp/sim.json"
    end=$(date +%s%N)
    awk -v n="$name" -v ns="$((end - start))" -v p="$(val "$tmp/sim.json" data_packets)" -v w="$(val "$tmp/sim.json" wall_sec)" \
      -v e="$(val "$tmp/sim.json" events_per_sec)" -v r="$(val "$tmp/sim.json" peak_rss_bytes)" -v h="$hosts" \
      -v t="$(val "$tmp/sim.json" sim_time_sec)" 'BEGIN {
      printf "BenchmarkSim/%s \t1\t%.0f ns/op\t%.0f pkts/s\t%.0f sim-pkts/s\t%.0f events/s\t%.0f peak-RSS-B\t%.0f B/host\t%.0f B/sim-ms\n", n, ns, p / (ns / 1e9), p / w, e, r, r / h, r / (t * 1e3)
    }' | tee -a "$tmp/lines"
  done
}

if want d; then
  build
  simbench incast-8to1-1MiB 9 configs/bench/incast-8to1-1MiB.yaml
  simbench incast-8to1-100MiB 9 configs/bench/incast-8to1-100MiB.yaml
  simbench leaf-spine-128-permutation-1MiB 128 configs/bench/leaf-spine-128-permutation-1MiB.yaml
  simbench fat-tree-1024-permutation-2MB 1024 configs/bench/fat-tree-1024-permutation-2MB.yaml
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

if want f; then
  build
  for k in 8 12 16 20; do
    simbench "fat-tree-k$k-permutation-2MB" $((k * k * k / 4)) configs/bench/fat-tree-1024-permutation-2MB.yaml --set topology.k=$k
  done
fi

if want g; then
  build
  for mib in 10 100 400; do
    simbench "incast-8to1-${mib}MiB-simtime" 9 configs/bench/incast-8to1-100MiB.yaml --set workload.message_size=${mib}MiB --set duration=1s
  done
fi

if want e; then
  gobench ./sink 'SinkParquet|SinkArrow'
  gobench ./sweep/launch 'Runner'
fi

# docs/performance.md's headline figures, medians over the runs above, on stderr (benchstat
# reads stdout only).
if [ -s "$tmp/lines" ]; then
  awk '
    function median(key,   n, i, j, t, a) {
      n = cnt[key]
      for (i = 1; i <= n; i++) a[i] = v[key, i]
      for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    { name = $1; sub(/^BenchmarkSim\//, "", name)
      for (f = 3; f < NF; f += 2) { k = name SUBSEP $(f + 1); v[k, ++cnt[k]] = $f }
      seen[name] = 1 }
    END {
      print "== headline figures (medians; whole process; see docs/performance.md)"
      split("incast-8to1-1MiB incast-8to1-100MiB leaf-spine-128-permutation-1MiB fat-tree-1024-permutation-2MB", ref, " ")
      for (i = 1; i <= 4; i++) if (seen[ref[i]])
        printf "  %-34s %12.0f data packets per wall second, wall %8.1f ms, peak RSS %6.1f MiB\n", ref[i], median(ref[i] SUBSEP "pkts/s"), median(ref[i] SUBSEP "ns/op") / 1e6, median(ref[i] SUBSEP "peak-RSS-B") / 1048576
      for (k = 8; k <= 20; k += 4) if (seen[name = "fat-tree-k" k "-permutation-2MB"])
        printf "  %-34s %12.0f data packets per wall second, wall %8.1f ms, %8.0f B of peak RSS per host\n", name, median(name SUBSEP "pkts/s"), median(name SUBSEP "ns/op") / 1e6, median(name SUBSEP "B/host")
      split("10 100 400", mibs, " ")
      for (i = 1; i <= 3; i++) if (seen[name = "incast-8to1-" mibs[i] "MiB-simtime"])
        printf "  %-34s peak RSS %6.1f MiB, %10.0f B per simulated ms\n", name, median(name SUBSEP "peak-RSS-B") / 1048576, median(name SUBSEP "B/sim-ms")
      a = "incast-8to1-10MiB-simtime"; b = "incast-8to1-400MiB-simtime"
      if (seen[a] && seen[b])
        printf "  peak RSS, 400 MiB incast / 10 MiB incast: %.3f (acceptance: <= 1.10)\n", median(b SUBSEP "peak-RSS-B") / median(a SUBSEP "peak-RSS-B")
    }' "$tmp/lines" >&2
fi
