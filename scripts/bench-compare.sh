#!/usr/bin/env bash
# bench-compare.sh: compare two outputs of scripts/bench.sh with benchstat and fail on a
# regression.
#
#   scripts/bench-compare.sh OLD.txt NEW.txt
#
# Prints benchstat's table, then exits 1 if any benchmark got worse beyond its threshold
# AND benchstat calls the change significant (Mann-Whitney U test, p < 0.05; bench.sh
# runs each benchmark 6 times). Two thresholds, because the two kinds of figure are not
# equally noisy on a shared 2-core machine:
#
#   BENCH_MEM_THRESHOLD (default 5%): memory and work per unit, which barely move between
#     runs of the same code (peak RSS within 3%; bytes and allocations per op, bytes per
#     packet or host, events per packet: exact): peak-RSS-B, B/op, allocs/op, B/packet,
#     B/host, events/pkt must not rise.
#   BENCH_THRESHOLD (default 35%): time and throughput (sec/op, packets/s, events/s,
#     rows/s, jobs/s). Two runs of identical code here differed significantly by up to
#     28.6% (the 1,024-host fat tree, memory-bound and the most sensitive to the VM's
#     neighbours), 25% (engine hold with 10^5 pending events) and 17% (leaf-spine); 35%
#     stays clear of that and still catches the losses that matter (the PCIe closed form
#     alone is worth 2-3x on every scenario). See docs/ci.md "Tracking performance in CI".
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: scripts/bench-compare.sh OLD NEW   (env: BENCH_THRESHOLD, BENCH_MEM_THRESHOLD)" >&2
  exit 2
fi
old=$1 new=$2
threshold=${BENCH_THRESHOLD:-35} memthreshold=${BENCH_MEM_THRESHOLD:-5}
benchstat=golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da

go run "$benchstat" "$old" "$new"
echo
go run "$benchstat" -format csv "$old" "$new" 2>/dev/null | awk -F, -v thr="$threshold" -v memthr="$memthreshold" '
  $3 == "CI" { unit = $2; next }                        # a table header: its unit
  $1 == "" || $1 == "geomean" || NF < 7 { next }
  $6 ~ /^[+-][0-9.]+%$/ {                                # significant change
    d = $6; sub(/%/, "", d); d += 0
    mem = (unit ~ /^(B\/op|allocs\/op|B\/packet|B\/host|B\/sim-ms|peak-RSS-B|events\/pkt)$/)
    lower = mem || unit == "sec/op"
    worse = lower ? d : -d
    limit = mem ? memthr : thr
    if (worse > limit) {
      printf "regression: %s %s %+.1f%% (threshold %s%%)\n", $1, unit, d, limit
      bad = 1
    }
  }
  END {
    if (bad) exit 1
    printf "no significant regression (thresholds: %s%% time and throughput, %s%% memory and work per unit)\n", thr, memthr
  }'
