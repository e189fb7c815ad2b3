/* Stub of <math.h> for the device-code check: HIP declares the C math library as
 * device functions (see hip/hip_runtime.h). */
#pragma once
#define INFINITY __builtin_inff()
#define NAN __builtin_nanf("")
#define __TL_MATH1(F) __device__ float F##f(float); __device__ double F(double);
#define __TL_MATH2(F) __device__ float F##f(float, float); __device__ double F(double, double);
__TL_MATH1(exp) __TL_MATH1(exp2) __TL_MATH1(log) __TL_MATH1(log2) __TL_MATH1(sqrt) __TL_MATH1(tanh)
__TL_MATH1(floor) __TL_MATH1(ceil) __TL_MATH1(round) __TL_MATH1(trunc) __TL_MATH1(sin) __TL_MATH1(cos)
__TL_MATH1(fabs) __TL_MATH2(pow)
__device__ float fmaf(float, float, float);
__device__ double fma(double, double, double);
#undef __TL_MATH1
#undef __TL_MATH2
