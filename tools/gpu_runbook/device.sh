#!/usr/bin/env bash
# On a lent GPU machine, from the repository root: the first call (9.6 min), throughput
#     bash tools/gpu_runbook/device.sh 2
# then the second, at once (4 min): the best batch where the first did not reach it, else
# exactness (benchmarks/README.md)
#     bash tools/gpu_runbook/device.sh 2 --time-limit 220      or      device.sh 1
# (one stage with its options: bash tools/gpu_runbook/device.sh 2 --time-limit 200)
# The device call must carry .gpurun and .whl (made by `python -m tools.gpu_runbook prepare`).
# Sets up the carried wheels and the precompiled kernel cache and runs each stage with its time
# limit. With $OUT set (a device call) the stages write straight into $OUT, so that what they
# wrote comes back even when the command is stopped at its limit; the records of earlier calls
# carried in .gpurun/results are copied there first, so that a stage resumes where it stopped.
set -uo pipefail
[ $# -ge 1 ] || { echo "usage: device.sh STAGE [STAGE...] | device.sh STAGE [stage options]"; exit 2; }
cd "$(dirname "$0")/../.."
if [ -n "${OUT:-}" ]; then results=$OUT; else results=.gpurun/results; fi
mkdir -p "$results"
if ls .whl/*.whl >/dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site .whl/*.whl 2>&1 | grep -v -i warning
fi
export PYTHONPATH=/tmp/site:$PWD/tools/device_site:$PWD
export CULE_PY_CACHE_DIR=$PWD/.gpurun/pcache
[ -f .gpurun/runtime_key ] && export CULE_PY_RUNTIME_KEY=$(cat .gpurun/runtime_key)
export PYTHONUNBUFFERED=1
# The exactness stage runs up to 32 games at once, each on its own stream: give them 32 hardware
# queues (the default 8 would serialise streams that share one). Read when the context is made.
export CUDA_DEVICE_MAX_CONNECTIONS=32

files_of() {       # what a stage writes (at most 8 files come back from a call: stages 1-3
                   # without PPO write 7, their log shared)
    case $1 in
        1) echo "preflight.json exactness_cuda.jsonl" ;;
        2) echo "preflight.json throughput.jsonl" ;;
        3) echo "preflight.json profile.jsonl profile_order.json ncu_metrics.csv training.jsonl ppo_pong.csv ppo_pong.png ppo_pong.log" ;;
        4) echo "cpu_scaling.jsonl" ;;
    esac
}

stages=()
options=()
for arg in "$@"; do
    case $arg in
        1|2|3|4) [ ${#options[@]} -eq 0 ] && stages+=("$arg") || options+=("$arg") ;;
        *) options+=("$arg") ;;
    esac
done
code=0
[ "$results" != .gpurun/results ] && [ -f .gpurun/results/runbook.log ] && \
    cp .gpurun/results/runbook.log "$results/"
for stage in "${stages[@]}"; do
    if [ "$results" != .gpurun/results ]; then
        for f in $(files_of "$stage"); do
            [ -f ".gpurun/results/$f" ] && cp ".gpurun/results/$f" "$results/"
        done
    fi
    python3 -m tools.gpu_runbook stage "$stage" --results "$results" "${options[@]}"
    code=$?
    # 2: a kernel is missing from the carried cache; later stages would compile it for minutes.
    [ $code -eq 2 ] && break
done
exit $code
