/* A CPU stand-in for the CUDA device runtime, so the CUDA C++ the cuda dialect
 * generates can run without a GPU (tests/unit/test_cuda_emulated.c). Compiled as
 * C++17, force-included before the generated source: every GPU thread of a block
 * is an OS thread, blocks run one after another; __syncthreads is a barrier of the
 * block's threads; __shfl_xor_sync exchanges through a block-wide buffer between
 * two barriers (the lowering guarantees every thread of the block reaches a
 * shuffle together); atomics take one lock; __shared__ arrays are static (one
 * instance, reused by the next block, as shared memory is). Not a model of
 * timing or of the memory model: it checks what the generated code computes. */
#ifndef TL_CUDA_EMU_H
#define TL_CUDA_EMU_H

#include <pthread.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "cuda_bf16.h" /* this directory's stand-ins (cuda_bf16.h includes cuda_fp16.h) */

struct tl_emu_dim3 {
  unsigned x, y, z;
};
static thread_local tl_emu_dim3 threadIdx, blockIdx;
static tl_emu_dim3 blockDim, gridDim;
static pthread_barrier_t tl_emu_barrier;
static unsigned long long tl_emu_exchange[1024];
static std::mutex tl_emu_atomic_lock;
__attribute__((aligned(16))) static unsigned char tl_emu_dyn_smem[256 * 1024];

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(n)
#define __restrict__ __restrict
#define __align__(n) __attribute__((aligned(n)))
#define __shared__ static

inline void __syncthreads() { pthread_barrier_wait(&tl_emu_barrier); }

static inline unsigned tl_emu_linear_tid() {
  return threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y;
}

template <typename T>
inline T __shfl_xor_sync(unsigned mask, T v, int lane_mask, int width = 32) {
  (void)mask;
  static_assert(sizeof(T) <= sizeof(unsigned long long), "shuffled values are at most 8 bytes");
  unsigned t = tl_emu_linear_tid(), lane = t % 32u;
  unsigned partner = t - lane + ((lane ^ (unsigned)lane_mask) % 32u);
  (void)width; /* lane_mask < width: the partner is in the same segment */
  std::memcpy(&tl_emu_exchange[t], &v, sizeof v);
  __syncthreads();
  T r;
  std::memcpy(&r, &tl_emu_exchange[partner], sizeof r);
  __syncthreads();
  return r;
}

/* mma.sync.m16n8k16 as the interpreter defines it (TL_OP_MMA_M16N8K16 in ir.h):
 * every lane publishes its fragments, the warp's tiles are assembled through the
 * PTX fragment maps, each lane computes its 4 accumulators (k ascending, float32),
 * and a second barrier keeps the exchange area until every lane has read it.
 * The lowering issues it in every thread of the block together (as shuffles). */
#define TL_HELPER_MMA_F16
#define TL_HELPER_MMA_BF16
static float tl_emu_mma_a[1024][8], tl_emu_mma_b[1024][4], tl_emu_mma_c[1024][4];

template <typename H, typename Widen>
inline void tl_emu_mma(float *d, const H *a, const H *b, Widen widen) {
  unsigned t = tl_emu_linear_tid(), w0 = t - t % 32u;
  for (int i = 0; i < 8; i++) tl_emu_mma_a[t][i] = widen(a[i]);
  for (int i = 0; i < 4; i++) tl_emu_mma_b[t][i] = widen(b[i]);
  for (int i = 0; i < 4; i++) tl_emu_mma_c[t][i] = d[i];
  __syncthreads();
  float A[16][16], B[16][8];
  for (unsigned l = 0; l < 32; l++) {
    unsigned g = l / 4, q = l % 4;
    for (unsigned i = 0; i < 8; i++) A[g + 8 * ((i / 2) % 2)][2 * q + i % 2 + 8 * (i / 4)] = tl_emu_mma_a[w0 + l][i];
    for (unsigned i = 0; i < 4; i++) B[2 * q + i % 2 + 8 * (i / 2)][g] = tl_emu_mma_b[w0 + l][i];
  }
  unsigned lane = t % 32u, g = lane / 4, q = lane % 4;
  float out[4];
  for (unsigned i = 0; i < 4; i++) {
    unsigned r = g + 8 * (i / 2), n = 2 * q + i % 2;
    float acc = tl_emu_mma_c[t][i];
    for (unsigned k = 0; k < 16; k++) acc = acc + A[r][k] * B[k][n];
    out[i] = acc;
  }
  __syncthreads();
  for (int i = 0; i < 4; i++) d[i] = out[i];
}
inline void tl_mma_m16n8k16_f16(float *d, const __half *a, const __half *b) {
  tl_emu_mma(d, a, b, [](__half h) { return __half2float(h); });
}
inline void tl_mma_m16n8k16_bf16(float *d, const __nv_bfloat16 *a, const __nv_bfloat16 *b) {
  tl_emu_mma(d, a, b, [](__nv_bfloat16 h) { return __bfloat162float(h); });
}

/* ldmatrix.x4 as the interpreter defines it (TL_OP_LDMATRIX_X4 in ir.h): lanes
 * publish their row addresses, each lane gathers its elements of the 4 matrices. */
#define TL_HELPER_LDMATRIX_F16
#define TL_HELPER_LDMATRIX_BF16
static const void *tl_emu_lm_rows[1024];

template <typename H>
inline void tl_emu_ldmatrix(H *d, const H *s, int trans) {
  unsigned t = tl_emu_linear_tid(), w0 = t - t % 32u, l = t % 32u;
  tl_emu_lm_rows[t] = s;
  __syncthreads();
  H out[8];
  for (unsigned m = 0; m < 4; m++)
    for (unsigned h = 0; h < 2; h++) {
      unsigned r = trans ? 2 * (l % 4) + h : l / 4, c = trans ? l / 4 : 2 * (l % 4) + h;
      out[2 * m + h] = static_cast<const H *>(tl_emu_lm_rows[w0 + 8 * m + r])[c];
    }
  __syncthreads();
  for (int i = 0; i < 8; i++) d[i] = out[i];
}
inline void tl_ldmatrix_x4_f16(__half *d, const __half *s, int trans) { tl_emu_ldmatrix(d, s, trans); }
inline void tl_ldmatrix_x4_bf16(__nv_bfloat16 *d, const __nv_bfloat16 *s, int trans) { tl_emu_ldmatrix(d, s, trans); }

/* cp.async as the interpreter defines it (TL_OP_CP_ASYNC in ir.h): the source is
 * read at issue (zeros when not valid), the bytes land at the destination only
 * when this thread's tl_cp_async_wait covers the copy's group, so generated code
 * that reads a stage before its wait (and barrier) computes with stale data. */
#define TL_HELPER_CP_ASYNC
struct tl_emu_async_copy {
  void *dst;
  unsigned char bytes[16];
  int n;
  unsigned group;
};
static thread_local std::vector<tl_emu_async_copy> tl_emu_async;
static thread_local unsigned tl_emu_async_groups;

inline void tl_emu_cp_async(void *dst, const void *src, bool valid, int n) {
  tl_emu_async_copy c{dst, {0}, n, tl_emu_async_groups};
  if (valid) std::memcpy(c.bytes, src, (size_t)n);
  tl_emu_async.push_back(c);
}
inline void tl_cp_async_16(void *dst, const void *src, bool valid) { tl_emu_cp_async(dst, src, valid, 16); }
inline void tl_cp_async_8(void *dst, const void *src, bool valid) { tl_emu_cp_async(dst, src, valid, 8); }
inline void tl_cp_async_4(void *dst, const void *src, bool valid) { tl_emu_cp_async(dst, src, valid, 4); }
inline void tl_cp_async_commit() { tl_emu_async_groups++; }
template <int N>
inline void tl_cp_async_wait() {
  unsigned limit = tl_emu_async_groups > (unsigned)N ? tl_emu_async_groups - (unsigned)N : 0u;
  std::vector<tl_emu_async_copy> keep;
  for (const tl_emu_async_copy &c : tl_emu_async) {
    if (c.group < limit) std::memcpy(c.dst, c.bytes, (size_t)c.n);
    else keep.push_back(c);
  }
  tl_emu_async.swap(keep);
}

template <typename T>
inline T tl_emu_atomic_add(T *a, T v) {
  std::lock_guard<std::mutex> g(tl_emu_atomic_lock);
  T old = *a;
  *a = old + v;
  return old;
}
inline int atomicAdd(int *a, int v) { return (int)tl_emu_atomic_add((unsigned *)a, (unsigned)v); }
inline unsigned atomicAdd(unsigned *a, unsigned v) { return tl_emu_atomic_add(a, v); }
inline unsigned long long atomicAdd(unsigned long long *a, unsigned long long v) { return tl_emu_atomic_add(a, v); }
inline float atomicAdd(float *a, float v) { return tl_emu_atomic_add(a, v); }
inline double atomicAdd(double *a, double v) { return tl_emu_atomic_add(a, v); }
template <typename T>
inline T tl_emu_atomic_cas(T *a, T compare, T value) {
  std::lock_guard<std::mutex> g(tl_emu_atomic_lock);
  T old = *a;
  if (old == compare) *a = value;
  return old;
}
inline unsigned atomicCAS(unsigned *a, unsigned c, unsigned v) { return tl_emu_atomic_cas(a, c, v); }
inline unsigned long long atomicCAS(unsigned long long *a, unsigned long long c, unsigned long long v) {
  return tl_emu_atomic_cas(a, c, v);
}
template <typename T>
inline T tl_emu_atomic_minmax(T *a, T v, bool max) {
  std::lock_guard<std::mutex> g(tl_emu_atomic_lock);
  T old = *a;
  if (max ? v > old : v < old) *a = v;
  return old;
}
inline int atomicMax(int *a, int v) { return tl_emu_atomic_minmax(a, v, true); }
inline unsigned atomicMax(unsigned *a, unsigned v) { return tl_emu_atomic_minmax(a, v, true); }
inline long long atomicMax(long long *a, long long v) { return tl_emu_atomic_minmax(a, v, true); }
inline unsigned long long atomicMax(unsigned long long *a, unsigned long long v) { return tl_emu_atomic_minmax(a, v, true); }
inline int atomicMin(int *a, int v) { return tl_emu_atomic_minmax(a, v, false); }
inline unsigned atomicMin(unsigned *a, unsigned v) { return tl_emu_atomic_minmax(a, v, false); }
inline long long atomicMin(long long *a, long long v) { return tl_emu_atomic_minmax(a, v, false); }
inline unsigned long long atomicMin(unsigned long long *a, unsigned long long v) { return tl_emu_atomic_minmax(a, v, false); }
inline unsigned __float_as_uint(float f) {
  unsigned x;
  std::memcpy(&x, &f, sizeof x);
  return x;
}
inline float __uint_as_float(unsigned x) {
  float f;
  std::memcpy(&f, &x, sizeof f);
  return f;
}
inline long long __double_as_longlong(double d) {
  long long x;
  std::memcpy(&x, &d, sizeof x);
  return x;
}
inline double __longlong_as_double(long long x) {
  double d;
  std::memcpy(&d, &x, sizeof d);
  return d;
}

struct alignas(8) float2 {
  float x, y;
};
struct alignas(16) float4 {
  float x, y, z, w;
};
struct alignas(8) uint2 {
  unsigned x, y;
};
struct alignas(16) uint4 {
  unsigned x, y, z, w;
};

/* Calls f with the parameters the void* array points at, converted to f's own
 * parameter types (what cuLaunchKernel does with kernelParams). */
template <typename... A, std::size_t... I>
inline void tl_emu_apply(void (*f)(A...), void **p, std::index_sequence<I...>) {
  f(*reinterpret_cast<A *>(p[I])...);
}
template <typename... A>
inline void tl_emu_call(void (*f)(A...), void **p) {
  tl_emu_apply(f, p, std::index_sequence_for<A...>{});
}

/* Runs a grid: blocks in order, each with one OS thread per GPU thread. */
static inline void tl_emu_run(void (*body)(void **), void **p, const long long *g, const long long *b) {
  gridDim = {(unsigned)g[0], (unsigned)g[1], (unsigned)g[2]};
  blockDim = {(unsigned)b[0], (unsigned)b[1], (unsigned)b[2]};
  unsigned n = blockDim.x * blockDim.y * blockDim.z;
  for (unsigned bz = 0; bz < gridDim.z; bz++)
    for (unsigned by = 0; by < gridDim.y; by++)
      for (unsigned bx = 0; bx < gridDim.x; bx++) {
        pthread_barrier_init(&tl_emu_barrier, nullptr, n);
        std::vector<std::thread> threads;
        for (unsigned t = 0; t < n; t++)
          threads.emplace_back([=] {
            threadIdx = {t % blockDim.x, t / blockDim.x % blockDim.y, t / (blockDim.x * blockDim.y)};
            blockIdx = {bx, by, bz};
            body(p);
          });
        for (auto &th : threads) th.join();
        pthread_barrier_destroy(&tl_emu_barrier);
      }
}

#endif
