#!/usr/bin/env bash
# On a lent GPU machine, from the repository root, one command per stage:
#     bash tools/gpu_runbook/device.sh 1      (2, 3)
# The device call must carry .gpurun and .whl (made by `python tools/gpu_runbook prepare`).
# Sets up the carried wheels and the precompiled kernel cache, runs the stage with its time
# limit, and copies the stage's files to $OUT (at most 8 files come back from a call).
set -uo pipefail
stage=${1:?usage: device.sh STAGE [stage options]}
shift
cd "$(dirname "$0")/../.."
results=.gpurun/results
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
python3 tools/gpu_runbook stage "$stage" --results "$results" "$@"
code=$?
if [ -n "${OUT:-}" ]; then
    case $stage in
        1) files="preflight.json exactness_cuda.jsonl stage1.log" ;;
        2) files="throughput.jsonl stage2.log" ;;
        3) files="profile.jsonl profile_order.json ncu_metrics.csv training.jsonl ppo_pong.csv ppo_pong.png ppo_pong.log stage3.log" ;;
    esac
    for f in $files; do [ -f "$results/$f" ] && cp "$results/$f" "$OUT/"; done
fi
exit $code
