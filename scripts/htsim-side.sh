#!/usr/bin/env bash
# htsim-side.sh: rocesweep side by side with htsim on the four reference jobs of
# configs/bench/ (performance.md "Performance"), as interleaved whole-process runs on one
# machine. It does not fetch or build htsim: give it an htsim_roce you built yourself
# (github.com/Broadcom/csg-htsim, sim/ then sim/datacenter/, `make`).
#
#   scripts/htsim-side.sh /path/to/htsim_roce                 # 5 runs a job (3 for the fat tree)
#   RUNS=3 JOBS="inc100 ls128" scripts/htsim-side.sh /path/to/htsim_roce
#   RUNS=3 JOBS="ft8 ft12 ft16 ft20" scripts/htsim-side.sh /path/to/htsim_roce  # scaling
#
#   STUDY=1 scripts/htsim-side.sh /path/to/htsim_roce         # whole studies on both cores
#   BASE=/path/to/old/rocesweep scripts/htsim-side.sh /path/to/htsim_roce   # before/after
#   CPU=1 scripts/htsim-side.sh /path/to/htsim_roce          # CPU seconds, not wall
#
# CPU=1 times each command by the user + system CPU seconds of its processes (and theirs)
# instead of its wall time: on a machine whose other load comes and goes, the figure a
# run's neighbours move least (they still share its caches). A study's CPU is both cores'
# together; a single job's leaves out its waits (fsync).
#
# BASE adds another rocesweep binary (say, built at the commit a change started from),
# run after this tree's in each round with the same arguments: its median and ratios are
# printed after this tree's, so that a change is measured against htsim and against what
# it changed in one sitting.
#
# STUDY=1 times a study instead of one job: the job N times (inc1 100, inc100 10, ls128
# 20, fat trees 4), htsim as N processes two at a time (both cores), rocesweep as one
# `rocesweep run --set replicates=N -j 2` (replicates differ in seed, htsim's runs do
# not; a seed moves no job's size). This is the comparison for a parameter study, where
# rocesweep's start-up and file commits are paid once per process, not per job.
#
# ftK is the fat tree job at k = K (K^3/4 hosts; ft16 is ft1024): every host writes 2 MB
# to another. The scaling rows end with the exponent of a least-squares fit of
# log(wall) on log(hosts) for each simulator: how wall time grows with the fabric.
#
# Per job it runs, in turn, htsim with its default queues (15 packets, 135 KB), htsim
# with -q 1000 (9 MB, closer to our shared buffer; htsim's queue size decides how often
# it pauses, and so its speed) and `rocesweep sim configs/bench/JOB.yaml`, and prints
# the median wall time of each and the ratios htsim / rocesweep (above 1: the same
# bytes take rocesweep less time). htsim options: 400 Gbps, 9,000 B MTU,
# lossless_input queues, ECMP on one path. The connection matrices come from htsim's own
# generators beside the binary (connection_matrices/gen_incast.py, gen_permutation.py,
# seed 1: docs/performance.md's table), or, without them, are written here in htsim's format:
# 8 senders to host 0 of 16 (htsim's smallest fat tree), the permutations as random
# derangements (seed 1), as rocesweep's own workloads are.
set -euo pipefail
htsim=${1:?usage: htsim-side.sh /path/to/htsim_roce}
[ -x "$htsim" ] || { echo "htsim-side: $htsim is not an executable" >&2; exit 2; }
htsim=$(cd "$(dirname "$htsim")" && pwd)/$(basename "$htsim")
base=${BASE:-}
if [ -n "$base" ]; then
  [ -x "$base" ] || { echo "htsim-side: BASE $base is not an executable" >&2; exit 2; }
  base=$(cd "$(dirname "$base")" && pwd)/$(basename "$base")
fi
cd "$(dirname "$0")/.."
gen=$(dirname "$htsim")/connection_matrices # htsim's own matrix generators, if there
runs=${RUNS:-5}
jobs=${JOBS:-inc1 inc100 ls128 ft1024}
usage="inc1 inc100 ls128 ft1024, or ftK for an even K from 4 to 32"
for job in $jobs; do
  case $job in
  inc1 | inc100 | ls128 | ft1024) ;;
  ft[0-9] | ft[0-9][0-9]) k=${job#ft}; ((k >= 4 && k <= 32 && k % 2 == 0)) || { echo "htsim-side: unknown job $job ($usage)" >&2; exit 2; } ;;
  *) echo "htsim-side: unknown job $job ($usage)" >&2; exit 2 ;;
  esac
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/rocesweep" ./cmd/rocesweep

incast() { # file hosts senders bytes: senders 1..n write to host 0
  { echo "Nodes $2"; echo "Connections $3"
    for i in $(seq 1 "$3"); do echo "$i->0 id $i start 0 size $4"; done; } >"$1"
}
permutation() { # file hosts bytes: a random derangement, seed 1
  awk -v n="$2" -v size="$3" 'BEGIN {
    srand(1)
    do { for (i = 0; i < n; i++) p[i] = i
         for (i = n - 1; i > 0; i--) { j = int(rand() * (i + 1)); t = p[i]; p[i] = p[j]; p[j] = t }
         fixed = 0; for (i = 0; i < n; i++) if (p[i] == i) fixed = 1 } while (fixed)
    print "Nodes " n; print "Connections " n
    for (i = 0; i < n; i++) print i "->" p[i] " id " i + 1 " start 0 size " size }' >"$1"
}
if [ -f "$gen/gen_incast.py" ] && [ -f "$gen/gen_permutation.py" ]; then
  # the matrices of docs/performance.md's table: htsim's generators, seed 1, no start spread
  python3 "$gen/gen_incast.py" "$tmp/inc1.cm" 16 8 1048576 0 1 >/dev/null
  python3 "$gen/gen_incast.py" "$tmp/inc100.cm" 16 8 104857600 0 1 >/dev/null
  python3 "$gen/gen_permutation.py" "$tmp/ls128.cm" 128 128 1048576 0 1 >/dev/null
  python3 "$gen/gen_permutation.py" "$tmp/ft1024.cm" 1024 1024 2000000 0 1 >/dev/null
  for job in $jobs; do
    case $job in ft1024) ;; ft*) k=${job#ft}; n=$((k * k * k / 4)); python3 "$gen/gen_permutation.py" "$tmp/$job.cm" $n $n 2000000 0 1 >/dev/null ;; esac
  done
else
  echo "htsim-side: no $gen/gen_*.py: writing the matrices here (other senders than docs/performance.md's)" >&2
  incast "$tmp/inc1.cm" 16 8 1048576
  incast "$tmp/inc100.cm" 16 8 104857600
  permutation "$tmp/ls128.cm" 128 1048576
  permutation "$tmp/ft1024.cm" 1024 2000000
  for job in $jobs; do
    case $job in ft1024) ;; ft*) k=${job#ft}; permutation "$tmp/$job.cm" $((k * k * k / 4)) 2000000 ;; esac
  done
fi

# wall seconds of one command, its output discarded; the loop runs in $tmp, where htsim
# writes its log files
wall() {
  local t0=$EPOCHREALTIME
  times >"$tmp/times0" # in this shell: a command substitution's subshell has no children
  "$@" >/dev/null 2>&1 || { echo "htsim-side: failed: $*" >&2; exit 2; }
  if [ "$cpu" = 1 ]; then
    times >"$tmp/times1"
    # the second line of bash's times: user and system time of the waited-for children
    awk 'FNR == 2 { s = 0; for (i = 1; i <= 2; i++) { split($i, t, "m"); s += t[1] * 60 + t[2] }; v[++n] = s }
         END { printf "%.6f\n", v[2] - v[1] }' "$tmp/times0" "$tmp/times1"
  else
    awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN {printf "%.6f\n", b - a}'
  fi
}
cpu=${CPU:-0}
median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

spec_dir=$PWD/configs/bench
cd "$tmp"
hs="-linkspeed 400000 -mtu 9000 -queue_type lossless_input -strat ecmp_host -paths 1 -end 100000 -o htsim.log"
study=${STUDY:-0}
# htsim_study N CMD...: CMD N times, two at a time, each in a folder of its own (htsim
# writes its logs into the working directory)
htsim_study() {
  local n=$1 i running=0
  shift
  for ((i = 0; i < n; i++)); do
    mkdir -p "$tmp/s$i"
    (cd "$tmp/s$i" && "$@" >/dev/null 2>&1 || touch "$tmp/failed") &
    running=$((running + 1))
    if ((running == 2)); then wait -n || true; running=1; fi
  done
  wait
  [ ! -e "$tmp/failed" ]
}
if [ "$study" = 1 ]; then
  echo "whole studies: each job N times on both cores (N after the job's name)"
fi
if [ -n "$base" ]; then
  printf '%-8s %14s %14s %14s %16s %14s %16s\n' job "htsim (s)" "htsim -q1000" "rocesweep" "ratio" "BASE" "ratio BASE"
else
  printf '%-8s %14s %14s %14s %16s\n' job "htsim (s)" "htsim -q1000" "rocesweep" "ratio"
fi
: >"$tmp/fit"
for job in $jobs; do
  set=()
  case $job in
  inc1) args="-nodes 16"; spec=incast-8to1-1MiB ;;
  inc100) args="-nodes 16"; spec=incast-8to1-100MiB ;;
  ls128) args="-nodes 128 -tiers 2"; spec=leaf-spine-128-permutation-1MiB ;;
  ft1024) args="-nodes 1024"; spec=fat-tree-1024-permutation-2MB ;;
  ft*) k=${job#ft}; args="-nodes $((k * k * k / 4))"; spec=fat-tree-1024-permutation-2MB; set=(--set "topology.k=$k") ;;
  esac
  n=$runs
  case $job in ft1024 | ft1[6-9] | ft[2-9]?) n=$((runs < 3 ? runs : 3)) ;; esac
  : >"$tmp/a"; : >"$tmp/b"; : >"$tmp/c"; : >"$tmp/d"
  label=$job
  if [ "$study" = 1 ]; then
    case $job in inc1) jobs_n=100 ;; inc100) jobs_n=10 ;; ls128) jobs_n=20 ;; *) jobs_n=4 ;; esac
    label="$job x$jobs_n"
  fi
  for _ in $(seq "$n"); do
    if [ "$study" = 1 ]; then
      # shellcheck disable=SC2086 # word splitting of the option lists is wanted
      wall htsim_study "$jobs_n" "$htsim" -tm "$tmp/$job.cm" $args $hs >>"$tmp/a"
      # shellcheck disable=SC2086
      wall htsim_study "$jobs_n" "$htsim" -tm "$tmp/$job.cm" $args $hs -q 1000 >>"$tmp/b"
      wall "$tmp/rocesweep" run "$spec_dir/$spec.yaml" "${set[@]}" --set "replicates=$jobs_n" -j 2 -o "$tmp/out" >>"$tmp/c"
      rm -rf "$tmp/out"
      [ -z "$base" ] || wall "$base" run "$spec_dir/$spec.yaml" "${set[@]}" --set "replicates=$jobs_n" -j 2 -o "$tmp/out" >>"$tmp/d"
    else
      # shellcheck disable=SC2086
      wall "$htsim" -tm "$tmp/$job.cm" $args $hs >>"$tmp/a"
      # shellcheck disable=SC2086
      wall "$htsim" -tm "$tmp/$job.cm" $args $hs -q 1000 >>"$tmp/b"
      wall "$tmp/rocesweep" sim "$spec_dir/$spec.yaml" "${set[@]}" -o "$tmp/out" >>"$tmp/c"
      rm -rf "$tmp/out"
      [ -z "$base" ] || wall "$base" sim "$spec_dir/$spec.yaml" "${set[@]}" -o "$tmp/out" >>"$tmp/d"
    fi
    rm -rf "$tmp/out"
  done
  a=$(median <"$tmp/a"); b=$(median <"$tmp/b"); c=$(median <"$tmp/c")
  if [ -n "$base" ]; then
    d=$(median <"$tmp/d")
    awk -v j="$label" -v a="$a" -v b="$b" -v c="$c" -v d="$d" 'BEGIN {printf "%-8s %14.4f %14.4f %14.4f %7.2f / %-6.2f %14.4f %7.2f / %-6.2f\n", j, a, b, c, a / c, b / c, d, a / d, b / d}'
  else
    awk -v j="$label" -v a="$a" -v b="$b" -v c="$c" 'BEGIN {printf "%-8s %14.4f %14.4f %14.4f %7.2f / %-6.2f\n", j, a, b, c, a / c, b / c}'
  fi
  case $job in ft*) [ "$study" = 1 ] || echo "${args#-nodes } $a $b $c" >>"$tmp/fit" ;; esac
done
if [ "$(wc -l <"$tmp/fit")" -ge 2 ]; then
  # wall ~ hosts^e: the least-squares slope of log(wall) on log(hosts), per simulator
  awk '{x = log($1); n++; sx += x; sxx += x * x
        for (i = 2; i <= 4; i++) { y = log($i); sy[i] += y; sxy[i] += x * y } }
       END { d = n * sxx - sx * sx
             printf "wall ~ hosts^e: htsim %.2f, htsim -q1000 %.2f, rocesweep %.2f\n",
               (n * sxy[2] - sx * sy[2]) / d, (n * sxy[3] - sx * sy[3]) / d, (n * sxy[4] - sx * sy[4]) / d }' "$tmp/fit"
fi
