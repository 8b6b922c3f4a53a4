#!/usr/bin/env bash
# The GPU check of the transformers backend (docs/decisions.md; BENCHMARKS.md "transformers backend at 7 B"), for a lent
# CUDA machine, under 9 minutes in all (issue 34: shared-prefix decoding, its CUDA-graph step):
#   1. the issue's GPU tests first: tests/inference/test_hf_cuda.py -k "graph or shared or fused" (the
#      CUDA-graph step equal to the eager shared prefix in float32 on 7 classes and in bfloat16, the
#      shared prefix equal to per-row copies, the fused prefix kernels);                  <= 120 s
#   2. bench_backend_hf.py --scale 7b: a random 7 B LLaVA-NeXT with a CLIP-L/336 tower in bfloat16,
#      2 images: shared-prefix decoding at batch 300 and 128, with its decoding step replayed as a CUDA
#      graph (shared+graph) and without, beside the static cache at batch 128,
#      each with its compute and bandwidth bounds; rates appended to throughput_7b.csv as they are
#      measured (BANDWIDTH: 4.8e12 B/s for an H200, 3.35e12 for an H100 SXM).             <= 300 s
#   3. the rest of tests/inference/test_hf_cuda.py (score mode, batched, static and compiled decoding
#      equal to the CPU / per-prompt answers, the bfloat16 answer-distribution tests).      <= 120 s
# Everything goes to "$OUT/" (default ./gpu_check_out): environment.txt, pytest_cuda_issue34.log,
# pytest_cuda.log, bench_7b.log,
# bench_7b.md, throughput_7b.csv, gpu_check.log (one line per step with its exit status). A step that
# fails or runs out of time is logged and the next one runs.
#
# Assumes python3 with torch (CUDA) and transformers, and the project's other dependencies importable
# (PYTHONPATH). Usage, from anywhere:  OUT=/some/dir bash benchmarks/gpu_check.sh
# WHEELS=DIR first installs DIR/*.whl (no index, no dependencies) into SITE (default /tmp/site), so
# the last carried wheels and the check share one device call: put SITE on PYTHONPATH.
set -u

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${OUT:-$ROOT/gpu_check_out}"
PY="${PYTHON:-python3}"
mkdir -p "$OUT"
cd "$ROOT" || exit 1
export PYTHONPATH="$ROOT/engine:$ROOT${PYTHONPATH:+:$PYTHONPATH}"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false

step() {  # step NAME SECONDS LOGFILE COMMAND...: run with a time limit, log its exit status
    local name="$1" limit="$2" log="$3"
    shift 3
    local t0=$SECONDS
    timeout -k 10 "$limit" "$@" >"$OUT/$log" 2>&1
    local rc=$?
    local verdict="ok"
    [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && verdict="TIMED OUT after ${limit} s"
    [ "$rc" -ne 0 ] && [ "$verdict" = "ok" ] && verdict="FAILED"
    echo "$(date -u +%FT%TZ) $name: rc=$rc $verdict ($((SECONDS - t0)) s; log $log)" | tee -a "$OUT/gpu_check.log"
}

if [ -n "${WHEELS:-}" ]; then
    step "pip install $WHEELS/*.whl into ${SITE:-/tmp/site}" 120 install.log \
        "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target "${SITE:-/tmp/site}" "$WHEELS"/*.whl
fi

{
    date -u
    nvidia-smi || echo "nvidia-smi: not found"
    "$PY" -c "import torch, transformers, sys; print(sys.version); print('torch', torch.__version__, 'cuda', \
torch.version.cuda, torch.cuda.is_available(), torch.cuda.get_device_name(0) if torch.cuda.is_available() else '-'); \
print('transformers', transformers.__version__)"
    git -C "$ROOT" log --oneline -1 2>/dev/null || true
} >"$OUT/environment.txt" 2>&1 || echo "environment: incomplete (see environment.txt)" | tee -a "$OUT/gpu_check.log"

BANDWIDTH="${BANDWIDTH:-4.8e12}"

step "pytest test_hf_cuda.py -k 'graph or shared or fused'" 120 pytest_cuda_issue34.log \
    "$PY" -m pytest -q -p no:cacheprovider --durations=10 -k "graph or shared or fused" tests/inference/test_hf_cuda.py

step "bench_backend_hf.py --scale 7b (CUDA-graph step, shared prefix, static cache)" 300 bench_7b.log \
    "$PY" benchmarks/bench_backend_hf.py --scale 7b --dtype bfloat16 --images 2 --size 512 \
    --variants shared+graph,shared,static,score --shared-batches 300,128 --batches 128 --compile-batches "" \
    --bandwidth "$BANDWIDTH" --flops 989e12 \
    --csv "$OUT/throughput_7b.csv" --markdown-out "$OUT/bench_7b.md"

step "pytest test_hf_cuda.py (the rest)" 120 pytest_cuda.log \
    "$PY" -m pytest -q -p no:cacheprovider --durations=10 -k "not (graph or shared or fused)" \
    tests/inference/test_hf_cuda.py

tail -n 3 "$OUT/pytest_cuda_issue34.log" "$OUT/pytest_cuda.log" 2>/dev/null | tee -a "$OUT/gpu_check.log"
exit 0
