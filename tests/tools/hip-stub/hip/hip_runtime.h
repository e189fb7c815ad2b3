/* A stub of the HIP runtime header for checking generated HIP device code with
 * clang's HIP front end and AMDGPU back end (tests/tools/check_hip.sh). It declares
 * only what tilelang-backend's HIP dialect uses, with ROCm's names and signatures;
 * it is not ROCm's header, and the object it lets clang build is never linked. */
#pragma once

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define __host__ __attribute__((host))

/* blockIdx / threadIdx as HIP spells them (clang's property idiom). */
struct __tl_block_idx {
  __declspec(property(get = __get_x)) unsigned int x;
  __declspec(property(get = __get_y)) unsigned int y;
  __declspec(property(get = __get_z)) unsigned int z;
  static __device__ unsigned int __get_x() { return __builtin_amdgcn_workgroup_id_x(); }
  static __device__ unsigned int __get_y() { return __builtin_amdgcn_workgroup_id_y(); }
  static __device__ unsigned int __get_z() { return __builtin_amdgcn_workgroup_id_z(); }
};
struct __tl_thread_idx {
  __declspec(property(get = __get_x)) unsigned int x;
  __declspec(property(get = __get_y)) unsigned int y;
  __declspec(property(get = __get_z)) unsigned int z;
  static __device__ unsigned int __get_x() { return __builtin_amdgcn_workitem_id_x(); }
  static __device__ unsigned int __get_y() { return __builtin_amdgcn_workitem_id_y(); }
  static __device__ unsigned int __get_z() { return __builtin_amdgcn_workitem_id_z(); }
};
extern const __device__ __tl_block_idx blockIdx;
extern const __device__ __tl_thread_idx threadIdx;

__device__ void __syncthreads(void);

__device__ int __shfl_xor(int var, int lane_mask, int width);
__device__ unsigned int __shfl_xor(unsigned int var, int lane_mask, int width);
__device__ long long __shfl_xor(long long var, int lane_mask, int width);
__device__ unsigned long long __shfl_xor(unsigned long long var, int lane_mask, int width);
__device__ float __shfl_xor(float var, int lane_mask, int width);
__device__ double __shfl_xor(double var, int lane_mask, int width);

__device__ int atomicAdd(int *address, int val);
__device__ unsigned int atomicAdd(unsigned int *address, unsigned int val);
__device__ unsigned long long atomicAdd(unsigned long long *address, unsigned long long val);
__device__ float atomicAdd(float *address, float val);
__device__ double atomicAdd(double *address, double val);

/* hip_vector_type.h's names (16-byte alignment as HIP's). */
#define __TL_VEC(T, NAME)                                             \
  typedef T NAME##2 __attribute__((ext_vector_type(2)));            \
  typedef T NAME##4 __attribute__((ext_vector_type(4)));
__TL_VEC(char, char)
__TL_VEC(unsigned char, uchar)
__TL_VEC(short, short)
__TL_VEC(unsigned short, ushort)
__TL_VEC(int, int)
__TL_VEC(unsigned int, uint)
__TL_VEC(long long, longlong)
__TL_VEC(unsigned long long, ulonglong)
__TL_VEC(float, float)
__TL_VEC(double, double)
#undef __TL_VEC
