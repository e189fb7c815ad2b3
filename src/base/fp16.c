/* float16 and bfloat16 conversions. Both formats are IEEE-style binary formats that
 * differ only in their field widths (float16: 5 exponent, 10 mantissa bits;
 * bfloat16: 8 and 7), so one narrowing and one widening routine serve both. */
#include "base/fp16.h"

#include <string.h>

/* Rounds a double to a 16-bit binary format with `ebits` exponent and `mbits`
 * mantissa bits, to nearest with ties to even, straight from the double's bits. */
static uint16_t narrow(double x, int ebits, int mbits) {
  uint64_t b;
  memcpy(&b, &x, sizeof b);
  uint16_t sign = (uint16_t)((b >> 63) << (ebits + mbits));
  uint16_t expmask = (uint16_t)(((1u << ebits) - 1u) << mbits);
  int dexp = (int)((b >> 52) & 0x7ff);
  uint64_t dman = b & ((1ull << 52) - 1);
  if (dexp == 0x7ff) {
    if (dman == 0) return (uint16_t)(sign | expmask); /* infinity */
    /* NaN: quiet it, keep the sign and the payload's leading bits. */
    uint16_t payload = (uint16_t)(dman >> (52 - mbits));
    return (uint16_t)(sign | expmask | (1u << (mbits - 1)) | payload);
  }
  /* Zero, and double subnormals (below 2^-1022, far under half the smallest
   * subnormal of either format), become signed zero. */
  if (dexp == 0) return sign;
  int bias = (1 << (ebits - 1)) - 1;
  int emin = 1 - bias; /* exponent of the smallest normal */
  int e = dexp - 1023;
  uint64_t sig = dman | (1ull << 52); /* 53 significant bits */
  int shift = 52 - mbits;
  if (e < emin) shift += emin - e; /* subnormal result: fewer bits survive */
  if (shift > 63) return sign;     /* below a quarter of the smallest subnormal */
  uint64_t q = sig >> shift;
  uint64_t rem = sig & ((1ull << shift) - 1);
  uint64_t half = 1ull << (shift - 1);
  if (rem > half || (rem == half && (q & 1))) q++;
  if (e < emin) return (uint16_t)(sign | q); /* q == 2^mbits is the smallest normal */
  int E = e + bias;
  if (E >= (1 << ebits) - 1) return (uint16_t)(sign | expmask); /* overflow */
  /* q holds the implicit bit (2^mbits <= q <= 2^(mbits+1)); adding it to the
   * exponent field minus one lets a rounding carry bump the exponent, up to
   * infinity. */
  uint32_t r = ((uint32_t)(E - 1) << mbits) + (uint32_t)q;
  return (uint16_t)(sign | r);
}

/* The exact double value of a 16-bit binary format's bits, built from bits (every
 * value of both formats is a normal double). */
static double widen(uint16_t h, int ebits, int mbits) {
  uint64_t sign = (uint64_t)((h >> (ebits + mbits)) & 1) << 63;
  int E = (h >> mbits) & ((1 << ebits) - 1);
  uint64_t m = h & ((1u << mbits) - 1u);
  int bias = (1 << (ebits - 1)) - 1;
  uint64_t b;
  if (E == (1 << ebits) - 1) {
    /* Infinity, or NaN with its payload (quieted). */
    b = sign | (0x7ffull << 52) | (m ? (1ull << 51) | (m << (52 - mbits)) : 0);
  } else if (E == 0) {
    if (m == 0) {
      b = sign;
    } else {
      /* Subnormal: normalise m so that its leading one becomes the implicit bit. */
      int shift = 0;
      while (!(m & (1ull << mbits))) {
        m <<= 1;
        shift++;
      }
      b = sign | ((uint64_t)(1 - bias - shift + 1023) << 52) | ((m & ((1ull << mbits) - 1)) << (52 - mbits));
    }
  } else {
    b = sign | ((uint64_t)(E - bias + 1023) << 52) | (m << (52 - mbits));
  }
  double d;
  memcpy(&d, &b, sizeof d);
  return d;
}

uint16_t tl__f64_to_f16(double x) { return narrow(x, 5, 10); }
uint16_t tl__f32_to_f16(float x) { return narrow((double)x, 5, 10); }
double tl__f16_to_f64(uint16_t h) { return widen(h, 5, 10); }
float tl__f16_to_f32(uint16_t h) { return (float)widen(h, 5, 10); }

uint16_t tl__f64_to_bf16(double x) { return narrow(x, 8, 7); }
uint16_t tl__f32_to_bf16(float x) { return narrow((double)x, 8, 7); }
double tl__bf16_to_f64(uint16_t h) { return widen(h, 8, 7); }
float tl__bf16_to_f32(uint16_t h) { return (float)widen(h, 8, 7); }

double tl__round_f16(double x) { return widen(narrow(x, 5, 10), 5, 10); }
double tl__round_bf16(double x) { return widen(narrow(x, 8, 7), 8, 7); }
