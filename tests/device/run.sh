#!/bin/sh
# The cuda backend on the GPU machine. From the repository root, after
# `. tests/device/env.sh`:
#
#   tests/device/run.sh             build into build-device (-j16), then run every step
#   tests/device/run.sh --dry-run   the same without calling kernels (any machine)
#
# Steps (each PASS/FAIL/SKIP with its log under $OUT, else build-device/logs):
#   env        the GPU, driver, nvcc, NVRTC and compute-sanitizer seen
#   build      cmake -DTL_DEVICE_TESTS=ON, the CUDA programs and tests
#   unit       test_codegen_cuda (NVRTC compiles, resource golden) and test_cuda_backend
#   examples   every example and focused kernel through nvrtc and nvcc against the
#              interpreter; argument checks; a created stream; same-named kernels
#   export     tlc build --target cuda: a C program against the exported directory runs it
#   memcheck   compute-sanitizer --tool memcheck on every kernel (nvrtc, default sizes)
#   racecheck  compute-sanitizer --tool racecheck likewise
#   python     the Python package's tests (python/tests) with torch on the GPU: the
#              user API on CUDA tensors beside torch, and the CPU ones (SKIP without
#              torch or pytest)
# Prints a summary table; exits 1 if a step failed. About 4 to 6 minutes on a
# 16-core H200 machine (the kernel cache of the examples step serves the sanitizers).
set -u
dry=
[ "${1:-}" = "--dry-run" ] && dry=--dry-run
root=$(pwd)
[ -f "$root/tests/device/run.sh" ] || { echo "run from the repository root"; exit 2; }
logs=${OUT:-$root/build-device/logs}
mkdir -p "$logs"
jobs=${JOBS:-16}
bin=$root/build-device/bin
export TILELANG_CACHE_DIR="$root/build-device/cache"
export CMOCKA_MESSAGE_OUTPUT=STDOUT
summary=$logs/summary.txt
: >"$summary"
failed=0
start_all=$(date +%s)

# step NAME LOG: records the outcome of the command that just ran ($1 status)
record() { # name status log note
  name=$1 st=$2 log=$3 note=$4
  case $st in
    0) word=PASS ;;
    77) word=SKIP ;;
    *) word=FAIL; failed=1 ;;
  esac
  printf '%-10s %-4s %s  (%s)\n' "$name" "$word" "$note" "$(basename "$log")" | tee -a "$summary"
  if [ "$word" = FAIL ]; then
    echo "---- last lines of $log:"; tail -n 25 "$log"; echo "----"
  fi
}

# ---------------------------------------------------------------- env
{
  echo "date: $(date -u)"; uname -a
  command -v nvidia-smi >/dev/null && nvidia-smi -L && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  command -v nvcc >/dev/null && nvcc --version | tail -n 2
  ls /usr/local/cuda/lib64/libnvrtc.so* 2>/dev/null
  command -v compute-sanitizer && compute-sanitizer --version | head -n 2
  nproc
} >"$logs/env.log" 2>&1
gpu=$(nvidia-smi -L 2>/dev/null | head -n 1)
record env 0 "$logs/env.log" "${gpu:-no nvidia-smi}"

# -------------------------------------------------------------- build
t0=$(date +%s)
{
  cmake -S "$root" -B "$root/build-device" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTL_DEVICE_TESTS=ON \
    -DTL_BUILD_FUZZ=OFF -DTL_BUILD_BENCH=OFF &&
    cmake --build "$root/build-device" -j "$jobs" --target tlc test_cuda_examples test_codegen_cuda \
      test_cuda_backend bench_cuda_launch bench_cuda_bandwidth bench_cuda_compile bench_cuda_gemm tl_python_ext
} >"$logs/build.log" 2>&1
st=$?
record build $st "$logs/build.log" "$(( $(date +%s) - t0 )) s"
if [ $st -ne 0 ]; then
  echo "the build failed: nothing else can run"; exit 1
fi

# --------------------------------------------------------------- unit
t0=$(date +%s)
{ "$bin/test_codegen_cuda" && "$bin/test_cuda_backend"; } >"$logs/unit.log" 2>&1
st=$?
record unit $st "$logs/unit.log" "$(grep -c '\[       OK \]' "$logs/unit.log") cmocka tests ok, $(( $(date +%s) - t0 )) s"

# ----------------------------------------------------------- examples
t0=$(date +%s)
timeout 400 "$bin/test_cuda_examples" $dry >"$logs/examples.log" 2>&1
st=$?
record examples $st "$logs/examples.log" "$(tail -n 1 "$logs/examples.log"), $(( $(date +%s) - t0 )) s"

# ------------------------------------------------------------- export
t0=$(date +%s)
timeout 300 "$root/tests/e2e/tlc_cuda_export.sh" "$bin/tlc" "$root" "${CC:-cc}" >"$logs/export.log" 2>&1
st=$?
record export $st "$logs/export.log" "$(grep -m1 -e 'ran on the GPU' -e 'no GPU here' "$logs/export.log" | cut -c1-70), $(( $(date +%s) - t0 )) s"

# ---------------------------------------------------------- sanitizers
for tool in memcheck racecheck; do
  t0=$(date +%s)
  if [ -n "$dry" ]; then
    echo "dry run: compute-sanitizer needs a GPU" >"$logs/$tool.log"; st=77
  elif ! command -v compute-sanitizer >/dev/null; then
    echo "compute-sanitizer is not on PATH" >"$logs/$tool.log"; st=77
  else
    timeout 400 compute-sanitizer --tool "$tool" --error-exitcode 3 --print-limit 20 \
      "$bin/test_cuda_examples" --quick >"$logs/$tool.log" 2>&1
    st=$?
  fi
  note=$(grep -m1 -e 'ERROR SUMMARY' -e 'RACECHECK SUMMARY' "$logs/$tool.log")
  [ "$st" = 77 ] && note=$(head -n 1 "$logs/$tool.log")
  record "$tool" $st "$logs/$tool.log" "${note:-see the log}, $(( $(date +%s) - t0 )) s"
done

# ------------------------------------------------------------- python
t0=$(date +%s)
if [ -n "$dry" ] || ! python3 -c "import pytest, torch" >/dev/null 2>&1; then
  echo "skipped: a dry run, or no pytest and torch for python3" >"$logs/python.log"; st=77
else
  # one process per file, as ctest runs them: some files change the process's
  # registries for good (test_target_detectors.py replaces the detectors)
  st=0 nfiles=0 nbad=0
  : >"$logs/python.log"
  for f in "$root"/python/tests/test_*.py; do
    nfiles=$((nfiles + 1))
    echo "== $(basename "$f")" >>"$logs/python.log"
    PYTHONPATH="$root/build-device/python${PYTHONPATH:+:$PYTHONPATH}" timeout 300 \
      python3 -m pytest -q -p no:cacheprovider "$f" >>"$logs/python.log" 2>&1
    r=$?
    [ $r -ne 0 ] && [ $r -ne 5 ] && { st=1; nbad=$((nbad + 1)); }
  done
fi
record python $st "$logs/python.log" "${nfiles:-0} test files, ${nbad:-0} failing, $(( $(date +%s) - t0 )) s"

echo
echo "== tests/device/run.sh: $(( $(date +%s) - start_all )) s; logs in $logs =="
cat "$summary"
exit $failed
