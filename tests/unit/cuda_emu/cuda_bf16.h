/* bfloat16 for the CPU stand-in of the CUDA runtime (cuda_emu.h). */
#ifndef TL_CUDA_EMU_BF16_H
#define TL_CUDA_EMU_BF16_H

#include "cuda_fp16.h"

struct __nv_bfloat16 {
  unsigned short x;
};
inline float __bfloat162float(__nv_bfloat16 h) { return (float)tl_emu_widen(h.x, 7, 8); }
inline __nv_bfloat16 __double2bfloat16(double d) { return __nv_bfloat16{tl_emu_narrow(d, 7, 8)}; }
inline __nv_bfloat16 __float2bfloat16_rn(float f) { return __double2bfloat16((double)f); }
inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 h) { return h.x; }
inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short u) { return __nv_bfloat16{u}; }

#endif
