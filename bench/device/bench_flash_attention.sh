#!/bin/sh
# FlashAttention forward (examples/flash_attention.py) against torch SDPA on the GPU
# machine, in one run. From the repository root, after `. tests/device/env.sh` and
# tests/device/run.sh (which builds build-device/bin/tlc):
#
#   bench/device/bench_flash_attention.sh [BATCH HEADS SEQ DIM]   (default 8 32 4096 128)
#
# Ours: `tlc run --target cuda --bench 5` (median per call, each until the device
# finished), upstream's tuned tiles (128 x 128, 256 threads, 2 stages), causal and
# not; torch: bench_sdpa.py (CUDA events). bench_fa_torch.py is the fuller one:
# the same kernel through the Python API, checked against SDPA and timed beside
# it in one process, over several tile configurations.
set -u
b=${1:-8} h=${2:-32} s=${3:-4096} d=${4:-128}
tlc=build-device/bin/tlc
export TILELANG_CACHE_DIR="${TILELANG_CACHE_DIR:-$PWD/build-device/cache}"
for causal in False True; do
  echo "== ours causal=$causal"
  timeout 240 "$tlc" run examples/flash_attention.py --target cuda --param batch="$b" --param heads="$h" \
    --param seq_q="$s" --param seq_kv="$s" --param dim="$d" --param is_causal="$causal" \
    --param block_M=128 --param block_N=128 --param threads=256 --param num_stages=2 --bench 5 2>&1 | tail -n 1
done
python3 bench/device/bench_sdpa.py "$b" "$h" "$s" "$d"
