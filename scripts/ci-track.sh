#!/usr/bin/env bash
# ci-track.sh: run the CI sweep (configs/ci.yaml), compare it with a baseline results
# directory if one is given, and print Go benchmark lines that benchstat can track.
#
#   scripts/ci-track.sh [-b BASELINE_DIR] [-o OUT_DIR] [-j N]
#
# Exit status, one cause each (the last line on stderr says which):
#   0  same answers (or no baseline; or the model changed and nothing moved)
#   1  answers moved beyond tolerance, same model version: a regression to look at (the
#      compare table on stderr names job and metric)
#   2  the sweep itself failed to run (this run's results are incomplete)
#   3  no pairing: compare could not pair this run with the baseline (not a results
#      directory, another study, or a broken artifact); the sweep ran fine
#   4  the model changed (the two runs record different model_version): compare paired
#      the jobs by swept values and replicate and answers moved, as an intended model
#      change (a model.Version bump) moves them; review the table, and merging makes this
#      run the next baseline
#
# Outputs in OUT_DIR (default ci-results/): the results directory (run/), the HTML report
# (report.html), the compare table (compare.txt) and the benchmark lines (bench.txt):
#   benchstat old/bench.txt ci-results/bench.txt
# A CI pipeline keeps OUT_DIR/run as an artifact and passes the previous one as -b (see
# ci.md "Tracking answers in CI").
set -euo pipefail

baseline=""
out="ci-results"
jobs=""
while getopts "b:o:j:h" opt; do
	case "$opt" in
	b) baseline="$OPTARG" ;;
	o) out="$OPTARG" ;;
	j) jobs="$OPTARG" ;;
	*) sed -n '2,27p' "$0"; exit 2 ;;
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
	--metric events_per_sec --metric wall_sec --metric fct_p99_usec_lossless --metric drops_total \
	--metric pfc_paused_usec --metric goodput_gbps | tee "$out/bench.txt"

if [[ -z "$baseline" ]]; then
	echo "ci-track: no baseline (-b); nothing to compare" >&2
	exit 0
fi
# model_version DIR: the model version DIR's manifest records ("" when none).
model_version() {
	[[ -f "$1/manifest.json" ]] || return 0
	{ grep -o '"model_version": *"[^"]*"' "$1/manifest.json" || true; } | head -n 1 | sed 's/.*: *"\(.*\)"$/\1/'
}
base_model=$(model_version "$baseline")
new_model=$(model_version "$out/run")
status=0
"$bin" compare "$baseline" "$out/run" > "$out/compare.txt" || status=$?
cat "$out/compare.txt" >&2
changed=""
if [[ -n "$base_model" && -n "$new_model" && "$base_model" != "$new_model" ]]; then
	changed="the model changed ($base_model -> $new_model)"
fi
case $status in
0)
	if [[ -n "$changed" ]]; then
		echo "ci-track: $changed; compared by swept values and replicate, no answer moved" >&2
	fi
	exit 0 ;;
1)
	if [[ -n "$changed" ]]; then
		echo "ci-track: $changed: answers compared by swept values and replicate moved (see above); expected after an intended model change, and merging makes this run the baseline" >&2
		exit 4
	fi
	echo "ci-track: answers changed against $baseline (see above)" >&2
	exit 1 ;;
*)
	echo "ci-track: no pairing: compare could not pair this run with the baseline $baseline (exit $status, see above); the sweep itself ran" >&2
	exit 3 ;;
esac
