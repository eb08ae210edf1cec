#!/bin/sh
# mem-estimate.sh: the planner's memory estimate against the measured peak RSS, for job 0
# of every spec in configs/ and configs/bench/ (reliability.md "Reliability"). Each job runs alone
# in its own process (`rocesweep sim --json`), so the peak RSS is that job's.
#   scripts/mem-estimate.sh [rocesweep binary] [spec...]   prints: spec  estimate  peak  error
set -eu
bin=${1:-rocesweep}
[ $# -gt 0 ] && shift
[ $# -eq 0 ] && set -- configs/*.yaml configs/bench/*.yaml
exec python3 - "$bin" "$@" <<'PY'
import json, subprocess, sys, tempfile, os
bin, specs = sys.argv[1], sys.argv[2:]
print("%-50s %12s %12s %8s" % ("spec", "estimate_MB", "peak_MB", "error"))
with tempfile.TemporaryDirectory() as tmp:
    for i, spec in enumerate(specs):
        plan = json.loads(subprocess.run([bin, "plan", spec, "--json"], check=True, capture_output=True, text=True).stdout)
        # job 0's axis values as --set flags: sim runs one job.
        sets = ["--set=%s=%s" % kv for kv in plan["jobs"][0]["params"].items()]
        r = subprocess.run([bin, "sim", spec, *sets, "--json", "-o", os.path.join(tmp, str(i))], capture_output=True, text=True)
        if r.returncode != 0:
            print("%-50s sim failed: %s" % (spec, r.stderr.strip().splitlines()[0]))
            continue
        j = json.loads(r.stdout)
        e, p = j["estimated_peak_bytes"], j["peak_rss_bytes"]
        print("%-50s %12.1f %12.1f %+7.0f%%" % (spec, e / 1e6, p / 1e6, 100.0 * (e - p) / p), flush=True)
PY
