#!/usr/bin/env bash
# slurm-array.sh: run one sweep as a Slurm job array. Task K of N runs the deterministic
# shard K/N of the plan (jobs whose plan index mod N = K-1) into one shared results
# directory; the parts sit side by side (file names and journals carry the shard) and
# DuckDB/pandas read them as one dataset:
#   duckdb -c "select count(*) from 'DIR/jobs/*.parquet'"
#
# Usage:
#   sbatch --array=1-8 --cpus-per-task=32 scripts/slurm-array.sh SPEC DIR [run flags...]
# A requeued or failed task resumes where it stopped: --resume runs only the jobs of its
# shard that are missing from its journal (journal-KofN.jsonl). Check the plan first with
#   rocesweep validate SPEC
#
#SBATCH --job-name=rocesweep
#SBATCH --output=rocesweep-%A_%a.log
#SBATCH --requeue
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "usage: sbatch --array=1-N scripts/slurm-array.sh SPEC DIR [run flags...]" >&2
  exit 2
fi
spec=$1 dir=$2
shift 2
: "${SLURM_ARRAY_TASK_ID:?run this under sbatch --array=1-N}"
k=$SLURM_ARRAY_TASK_ID
n=${SLURM_ARRAY_TASK_COUNT:-$(( SLURM_ARRAY_TASK_MAX - SLURM_ARRAY_TASK_MIN + 1 ))}
if [ "${SLURM_ARRAY_TASK_MIN:-1}" != 1 ]; then
  echo "slurm-array.sh: the array must be numbered 1..N (got min ${SLURM_ARRAY_TASK_MIN})" >&2
  exit 2
fi
jobs=${SLURM_CPUS_PER_TASK:-$(nproc)}
rocesweep=${ROCESWEEP:-rocesweep}

# --resume is harmless on a first start (nothing in the journal) and makes a requeue or
# a rerun of the array continue instead of refusing the directory.
exec "$rocesweep" run "$spec" -o "$dir" --shard "$k/$n" -j "$jobs" --resume "$@"
