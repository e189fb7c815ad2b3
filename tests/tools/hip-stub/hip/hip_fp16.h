/* Stub of hip_fp16.h for the device-code check (see hip_runtime.h). */
#pragma once
struct __half {
  unsigned short __x;
};
__device__ float __half2float(__half a);
__device__ __half __float2half_rn(float a);
