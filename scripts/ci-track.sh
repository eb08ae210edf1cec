#!/usr/bin/env bash
# ci-track.sh: run the CI sweep (configs/ci.yaml), compare it with a baseline results
# directory if one is given, and print Go benchmark lines that benchstat can track.
#
#   scripts/ci-track.sh [-b BASELINE_DIR] [-o OUT_DIR] [-j N]
#
# Exit status: 0 same answers (or no baseline), 1 answers moved beyond tolerance (the
# compare table on stderr names job and metric), 2 the sweep itself failed to run.
#
# Outputs in OUT_DIR (default ci-results/): the results directory (run/), the HTML report
# (report.html), the compare table (compare.txt) and the benchmark lines (bench.txt):
#   benchstat old/bench.txt ci-results/bench.txt
# A CI pipeline keeps OUT_DIR/run as an artifact and passes the previous one as -b (see
# README "Tracking answers in CI").
set -euo pipefail

baseline=""
out="ci-results"
jobs=""
while getopts "b:o:j:h" opt; do
	case "$opt" in
	b) baseline="$OPTARG" ;;
	o) out="$OPTARG" ;;
	j) jobs="$OPTARG" ;;
	*) sed -n '2,17p' "$0"; exit 2 ;;
	esac
done

root="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$out"
out="$(cd "$out" && pwd)" # absolute: the build below runs in $root
bin="${ROCESWEEP:-}"
if [[ -z "$bin" ]]; then
	bin="$out/rocesweep"
	(cd "$root" && go build -o "$bin" ./cmd/rocesweep)
fi

rm -rf "$out/run"
run_args=(run "$root/configs/ci.yaml" -o "$out/run")
[[ -n "$jobs" ]] && run_args+=(-j "$jobs")
start=$(date +%s)
if ! "$bin" "${run_args[@]}"; then
	echo "ci-track: the CI sweep failed to run" >&2
	exit 2
fi
echo "ci-track: sweep took $(( $(date +%s) - start ))s" >&2

"$bin" report "$out/run" -o "$out/report.html" >&2

# Benchmark lines of this run (wall-clock metrics included here: benchstat shows them as
# the simulator's speed; compare leaves them out of the pass/fail check).
"$bin" compare "$out/run" --bench \
	--metric events_per_sec --metric wall_sec --metric fct_p99_usec --metric drops_total \
	--metric pfc_paused_usec --metric goodput_gbps | tee "$out/bench.txt"

if [[ -z "$baseline" ]]; then
	echo "ci-track: no baseline (-b); nothing to compare" >&2
	exit 0
fi
status=0
"$bin" compare "$baseline" "$out/run" > "$out/compare.txt" || status=$?
cat "$out/compare.txt" >&2
if [[ $status -eq 1 ]]; then
	echo "ci-track: answers changed against $baseline (see above)" >&2
fi
exit $status
