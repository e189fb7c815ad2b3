/* Names of DLPack dtypes, devices and tl_value kinds in argument-check messages. The
 * generated host code (src/codegen/host_c.c) renders the same words at run time, so
 * tl_kernel_table_bind_args and a host entry report a bad argument identically
 * (docs/lowering.md, "The argument checks"). */
#ifndef TL_RUNTIME_DL_NAMES_H
#define TL_RUNTIME_DL_NAMES_H

#include <stddef.h>
#include <stdint.h>

/* The TileLang name of a dtype as tl_dtype_name gives it ("float16", "int8x4",
 * "int4"), or "dtype(code=C, bits=B, lanes=L)" for a type code TileLang does not
 * know; written into buf (at least 48 bytes) and returned. */
const char *tl__dl_dtype_name(uint8_t code, uint8_t bits, uint16_t lanes, char *buf, size_t cap);
/* "a tensor", "an int", ... for a tl_value_kind; "an unknown value" outside the enum. */
const char *tl__value_kind_words(int32_t kind);
/* How "expected ... but got device type N" names a device type: "a CPU tensor
 * (kDLCPU)", "a CUDA tensor (kDLCUDA)", ...; NULL for a type without words (the
 * message then says "expected device type T"). */
const char *tl__dl_device_words(int32_t device_type);

#endif
