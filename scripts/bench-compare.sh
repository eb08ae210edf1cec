#!/usr/bin/env bash
# bench-compare.sh: compare two outputs of scripts/bench.sh with benchstat and fail on a
# regression.
#
#   scripts/bench-compare.sh OLD.txt NEW.txt [THRESHOLD_PERCENT]
#
# Prints benchstat's table, then exits 1 if any benchmark got worse by more than the
# threshold (default 10%, or $BENCH_THRESHOLD) AND benchstat calls the change significant
# (Mann-Whitney U test, p < 0.05; scripts/bench.sh runs each benchmark 6 times). "Worse" follows the unit:
# time, bytes, allocations, peak RSS and events per packet should fall; packets/s,
# events/s, rows/s and jobs/s should rise. Why 10%: see the README ("Tracking
# performance in CI") for the run-to-run spread measured on the 2-core CI machine.
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: scripts/bench-compare.sh OLD NEW [THRESHOLD_PERCENT]" >&2
  exit 2
fi
old=$1 new=$2 threshold=${3:-${BENCH_THRESHOLD:-10}}
benchstat=golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da

go run "$benchstat" "$old" "$new"
echo
go run "$benchstat" -format csv "$old" "$new" 2>/dev/null | awk -F, -v thr="$threshold" '
  $3 == "CI" { unit = $2; next }                        # a table header: its unit
  $1 == "" || $1 == "geomean" || NF < 7 { next }
  $6 ~ /^[+-][0-9.]+%$/ {                                # significant change
    d = $6; sub(/%/, "", d); d += 0
    lower = (unit ~ /(sec\/op|B\/op|allocs\/op|B\/packet|B\/host|peak-RSS-B|events\/pkt)$/)
    worse = lower ? d : -d
    if (worse > thr) {
      printf "regression: %s %s %+.1f%% (threshold %s%%)\n", $1, unit, d, thr
      bad = 1
    }
  }
  END {
    if (bad) exit 1
    printf "no significant regression beyond %s%%\n", thr
  }'
