/* Stub of hip_bf16.h for the device-code check (see hip_runtime.h). */
#pragma once
struct __hip_bfloat16 {
  unsigned short data;
};
__device__ float __bfloat162float(__hip_bfloat16 a);
__device__ __hip_bfloat16 __float2bfloat16(float f);
