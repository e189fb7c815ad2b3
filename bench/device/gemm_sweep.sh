#!/bin/sh
# GEMM on the GPU machine beside torch, and a sweep of the tile configurations of
# bench/device/kernels/gemm.py (docs/BENCHMARKS.md). From the repository root after
# `. tests/device/env.sh` and a build-device build (tests/device/run.sh makes one).
#   sh bench/device/gemm_sweep.sh
B=build-device/bin
T='{"kind":"cuda","arch":"sm_90a"}'
$B/bench_cuda_gemm 4096 2>&1 | tail -2
$B/bench_cuda_gemm 8192 2>&1 | tail -2
python3 bench/device/bench_torch.py 20 4096 2>&1 | grep gemm
python3 bench/device/bench_torch.py 20 8192 2>&1 | grep gemm
for v in "policy=1" "dtype=\"bfloat16\"" "block_K=64" "num_stages=2" "num_stages=4" "threads=256 block_N=256" \
         "threads=256 block_M=256" "threads=256 block_M=256 block_K=64" "threads=256" "block_M=64"; do
  echo "== $v"
  # shellcheck disable=SC2046
  $B/tlc run bench/device/kernels/gemm.py $(for p in $v; do echo --param "$p"; done) --target "$T" --bench 20 2>&1 | tail -2
done
