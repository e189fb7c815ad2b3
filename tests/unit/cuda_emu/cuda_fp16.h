/* float16 for the CPU stand-in of the CUDA runtime (cuda_emu.h): __half with the
 * conversions the cuda dialect uses, rounding to nearest even like the device's. */
#ifndef TL_CUDA_EMU_FP16_H
#define TL_CUDA_EMU_FP16_H

#include <cstdint>
#include <cstring>

/* double -> IEEE binary16 or bfloat16 bits, one rounding to nearest even
 * (mbits mantissa bits, ebits exponent bits); overflow to infinity, subnormals
 * kept, NaN quieted. */
static inline uint16_t tl_emu_narrow(double x, int mbits, int ebits) {
  uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  uint16_t sign = (uint16_t)((u >> 48) & 0x8000u);
  int e = (int)((u >> 52) & 0x7ff);
  uint64_t m = u & 0xfffffffffffffull;
  int bias = (1 << (ebits - 1)) - 1, emax = (1 << ebits) - 1;
  uint16_t inf = (uint16_t)(emax << mbits);
  if (e == 0x7ff) return (uint16_t)(sign | inf | (m ? (1u << (mbits - 1)) | (uint16_t)(m >> (52 - mbits)) : 0u));
  if (e == 0) return sign;
  int E = e - 1023 + bias, shift = 52 - mbits;
  if (E >= emax) return (uint16_t)(sign | inf);
  if (E < 1) shift += 1 - E;
  if (shift > 53) return sign;
  uint64_t sig = m | (1ull << 52), q = sig >> shift, rem = sig & ((1ull << shift) - 1), half = 1ull << (shift - 1);
  if (rem > half || (rem == half && (q & 1))) q++;
  if (E < 1) return (uint16_t)(sign | q);
  return (uint16_t)(sign | ((((uint64_t)(E - 1)) << mbits) + q));
}

static inline double tl_emu_widen(uint16_t h, int mbits, int ebits) {
  int bias = (1 << (ebits - 1)) - 1, emax = (1 << ebits) - 1;
  int e = (h >> mbits) & emax;
  double m = h & ((1u << mbits) - 1);
  double v = e == 0 ? std::ldexp(m, 1 - bias - mbits)
             : e == emax ? (m ? NAN : INFINITY)
                         : std::ldexp(m + (double)(1u << mbits), e - bias - mbits);
  return (h & 0x8000u) ? -v : v;
}

struct __half {
  unsigned short x;
};
inline float __half2float(__half h) { return (float)tl_emu_widen(h.x, 10, 5); }
inline __half __double2half(double d) { return __half{tl_emu_narrow(d, 10, 5)}; }
inline __half __float2half_rn(float f) { return __double2half((double)f); }
inline unsigned short __half_as_ushort(__half h) { return h.x; }
inline __half __ushort_as_half(unsigned short u) { return __half{u}; }

#endif
