#!/bin/sh
# The block_K=64 GEMM configurations beside torch, in one lease, then the warp
# stall reasons of two of them (Nsight Compute). From the repository root after
# `. tests/device/env.sh` and a build-device build of tlc (docs/BENCHMARKS.md).
#   sh bench/device/gemm_sweep2.sh
B=build-device/bin
T='{"kind":"cuda","arch":"sm_90a"}'
python3 bench/device/bench_torch.py 20 4096 2>&1 | grep gemm
for v in "block_K=64" "block_K=64 threads=256" "block_K=64 threads=256 num_stages=4" "block_K=64 threads=256 block_N=256" \
         "block_K=64 threads=256 block_M=256" "block_K=32 threads=256 num_stages=4" "block_K=64 threads=256 dtype=\"bfloat16\"" \
         "block_K=64 threads=256 M=8192 N=8192 K=8192" "block_K=64 M=8192 N=8192 K=8192"; do
  echo "== $v"
  # shellcheck disable=SC2046
  $B/tlc run bench/device/kernels/gemm.py $(for p in $v; do echo --param "$p"; done) --target "$T" --bench 20 2>&1 | tail -1
done
python3 bench/device/bench_torch.py 20 8192 2>&1 | grep gemm
for v in "block_K=64" "block_K=64 threads=256"; do
  echo "== ncu $v"
  # shellcheck disable=SC2046
  timeout 120 /usr/local/cuda/bin/ncu --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active' \
    -k regex:matmul -c 1 $B/tlc run bench/device/kernels/gemm.py $(for p in $v; do echo --param "$p"; done) --target "$T" --bench 1 2>&1 |
    grep -E "ratio|pct" | awk '$NF+0 >= 0.05'
done
