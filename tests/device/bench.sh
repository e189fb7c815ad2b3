#!/bin/sh
# The cuda backend's benchmarks on the GPU machine. From the repository root, after
# `. tests/device/env.sh`:
#
#   tests/device/bench.sh             build into build-device (-j16) and run all
#   tests/device/bench.sh --dry-run   only what needs no GPU (compile times)
#
# Runs bench/device: bench_cuda_launch (host time per tl_kernel_call through nvrtc
# and nvcc against raw cuLaunchKernel), bench_launch_py.py (torch, CuPy, Triton),
# bench_cuda_bandwidth and bench_torch.py (copy, vector add, row sum: GB/s and % of
# torch), bench_cuda_compile (our part, NVRTC's, cold and warm), bench_cuda_gemm
# (float16 4096^3 against torch). Logs and results.txt go to $OUT (else
# build-device/bench); the last thing printed is a markdown table for
# docs/BENCHMARKS.md. About 2 minutes.
set -u
dry=
[ "${1:-}" = "--dry-run" ] && dry=1
root=$(pwd)
[ -f "$root/tests/device/bench.sh" ] || { echo "run from the repository root"; exit 2; }
logs=${OUT:-$root/build-device/bench}
mkdir -p "$logs"
bin=$root/build-device/bin
export TILELANG_CACHE_DIR="$root/build-device/cache"
results=$logs/results.txt
: >"$results"
status=0

{
  cmake -S "$root" -B "$root/build-device" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTL_DEVICE_TESTS=ON \
    -DTL_BUILD_FUZZ=OFF -DTL_BUILD_BENCH=OFF &&
    cmake --build "$root/build-device" -j "${JOBS:-16}" --target bench_cuda_launch bench_cuda_bandwidth \
      bench_cuda_compile bench_cuda_gemm
} >"$logs/build.log" 2>&1 || { echo "FAIL build (see $logs/build.log)"; tail -n 30 "$logs/build.log"; exit 1; }

run() { # name command...
  name=$1; shift
  echo "== $name"
  if "$@" >"$logs/$name.log" 2>&1; then :; else echo "FAIL $name (exit $?): see $logs/$name.log"; status=1; fi
  grep -v '^RESULT ' "$logs/$name.log"
  grep '^RESULT ' "$logs/$name.log" >>"$results"
}

run compile "$bin/bench_cuda_compile"
if [ -z "$dry" ]; then
  run launch "$bin/bench_cuda_launch"
  run launch_py python3 "$root/bench/device/bench_launch_py.py"
  run bandwidth "$bin/bench_cuda_bandwidth" 28
  run gemm "$bin/bench_cuda_gemm" 4096
  run torch python3 "$root/bench/device/bench_torch.py" 28 4096
fi

# ------------------------------------------------------------ the table
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)
python3 - "$results" "$(date -u +%Y-%m-%d)" "${gpu:-no GPU}" <<'EOF'
import sys
values = {}
for line in open(sys.argv[1]):
    _, key, value, unit = line.split()
    values[key] = (float(value), unit)
def v(key, fmt="{:.2f}"):
    return fmt.format(values[key][0]) if key in values else "not run"
def pct(a, b):
    return f"{100 * values[a][0] / values[b][0]:.0f}%" if a in values and b in values else "n/a"
print(f"\n### CUDA backend ({sys.argv[2]}, {sys.argv[3]}; tests/device/bench.sh)\n")
print("| launch overhead (host µs per call, median) | µs | vs raw cuLaunchKernel |")
print("| --- | --- | --- |")
print(f"| raw cuLaunchKernel, same function | {v('launch.raw_cuLaunchKernel', '{:.3f}')} | |")
for e in ("nvrtc", "nvcc"):
    k = f"launch.{e}"
    over = (f"{100 * (values[k][0] / values['launch.raw_cuLaunchKernel'][0] - 1):+.1f}%"
            if k in values and "launch.raw_cuLaunchKernel" in values else "n/a")
    print(f"| tl_kernel_call ({e}) | {v(k, '{:.3f}')} | {over} |")
for f in ("torch", "cupy", "triton"):
    print(f"| {f} trivial kernel (Python) | {v('launch_py.' + f, '{:.3f}')} | |")
print("\n| bandwidth (float32, 2^28 elements) | ours GB/s | torch GB/s | % of torch |")
print("| --- | --- | --- | --- |")
for op in ("copy", "vector_add", "row_sum"):
    print(f"| {op} | {v('bandwidth.' + op, '{:.0f}')} | {v('torch.bandwidth.' + op, '{:.0f}')} | "
          f"{pct('bandwidth.' + op, 'torch.bandwidth.' + op)} |")
print("\n| compile (examples/vector_add.py, sm_90a) | ms |")
print("| --- | --- |")
for k, label in (("compile.frontend", "parse + lower + CUDA codegen"), ("compile.nvrtc_only", "NVRTC alone"),
                 ("compile.cold_nvrtc", "tl_compile cold, nvrtc"), ("compile.cold_nvcc", "tl_compile cold, nvcc"),
                 ("compile.warm_memory", "tl_compile warm, memory cache"),
                 ("compile.warm_disk", "tl_compile warm, disk cache")):
    print(f"| {label} | {v(k, '{:.3f}')} |")
print("\n| GEMM float16 4096³ (float32 accumulation) | TFLOP/s | % of torch |")
print("| --- | --- | --- |")
print(f"| ours (SIMT, no tensor cores), nvrtc | {v('gemm.tflops')} | {pct('gemm.tflops', 'torch.gemm.tflops')} |")
print(f"| torch (cuBLAS, tensor cores) | {v('torch.gemm.tflops')} | |")
EOF
exit $status
