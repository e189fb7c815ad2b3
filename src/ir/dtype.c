/* Names of data types, buffer scopes and ops: the spellings TileLang uses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tilelang/ir.h"

typedef struct dtype_name {
  const char *name;
  uint8_t code, bits;
} dtype_name;

/* Every scalar type the IR has, with its TileLang name. */
static const dtype_name k_dtypes[] = {
    {"bool", TL_DTYPE_BOOL, 8},      {"int8", TL_DTYPE_INT, 8},       {"int16", TL_DTYPE_INT, 16},
    {"int32", TL_DTYPE_INT, 32},     {"int64", TL_DTYPE_INT, 64},     {"uint8", TL_DTYPE_UINT, 8},
    {"uint16", TL_DTYPE_UINT, 16},   {"uint32", TL_DTYPE_UINT, 32},   {"uint64", TL_DTYPE_UINT, 64},
    {"float16", TL_DTYPE_FLOAT, 16}, {"float32", TL_DTYPE_FLOAT, 32}, {"float64", TL_DTYPE_FLOAT, 64},
    {"bfloat16", TL_DTYPE_BFLOAT, 16}, {"handle", TL_DTYPE_HANDLE, 64},
};

static const char *scalar_name(uint8_t code, uint8_t bits) {
  for (size_t i = 0; i < sizeof k_dtypes / sizeof k_dtypes[0]; i++)
    if (k_dtypes[i].code == code && k_dtypes[i].bits == bits) return k_dtypes[i].name;
  return NULL;
}

/* The stem of a type outside the table ("int4", "float8"), for messages. */
static const char *code_stem(uint8_t code) {
  switch (code) {
  case TL_DTYPE_INT: return "int";
  case TL_DTYPE_UINT: return "uint";
  case TL_DTYPE_FLOAT: return "float";
  case TL_DTYPE_BFLOAT: return "bfloat";
  case TL_DTYPE_BOOL: return "bool";
  case TL_DTYPE_HANDLE: return "handle";
  default: return NULL;
  }
}

const char *tl_dtype_name(tl_dtype t, char *buf, size_t cap) {
  const char *s = scalar_name(t.code, t.bits);
  if (s && t.lanes == 1) return s;
  if (!buf || cap == 0) return "<invalid dtype>";
  const char *stem = code_stem(t.code);
  char scalar[32];
  if (s)
    snprintf(scalar, sizeof scalar, "%s", s);
  else if (stem)
    snprintf(scalar, sizeof scalar, "%s%u", stem, (unsigned)t.bits);
  else
    snprintf(scalar, sizeof scalar, "dtype%u_%u", (unsigned)t.code, (unsigned)t.bits);
  if (t.lanes == 1)
    snprintf(buf, cap, "%s", scalar);
  else
    snprintf(buf, cap, "%sx%u", scalar, (unsigned)t.lanes);
  return buf;
}

bool tl_dtype_parse(const char *name, tl_dtype *out) {
  if (!name) return false;
  for (size_t i = 0; i < sizeof k_dtypes / sizeof k_dtypes[0]; i++) {
    size_t n = strlen(k_dtypes[i].name);
    if (strncmp(name, k_dtypes[i].name, n) != 0) continue;
    const char *rest = name + n;
    unsigned long lanes = 1;
    if (*rest == 'x') {
      /* Vector: decimal lanes, 2..65535, no sign, no leading zero. */
      const char *digits = rest + 1;
      if (*digits < '1' || *digits > '9') continue;
      char *end;
      lanes = strtoul(digits, &end, 10);
      if (*end != '\0' || lanes < 2 || lanes > UINT16_MAX) continue;
    } else if (*rest != '\0') {
      continue; /* a longer name ("int32" when matching "int3...") */
    }
    if (out) *out = (tl_dtype){k_dtypes[i].code, k_dtypes[i].bits, (uint16_t)lanes};
    return true;
  }
  return false;
}

static const char *const k_scopes[] = {
    [TL_SCOPE_GLOBAL] = "global",
    [TL_SCOPE_SHARED] = "shared",
    [TL_SCOPE_SHARED_DYN] = "shared.dyn",
    [TL_SCOPE_LOCAL] = "local",
    [TL_SCOPE_LOCAL_FRAGMENT] = "local.fragment",
    [TL_SCOPE_LOCAL_VAR] = "local.var",
};
#define NSCOPES (sizeof k_scopes / sizeof k_scopes[0])

const char *tl_ir_scope_name(tl_ir_scope s) { return (unsigned)s < NSCOPES ? k_scopes[s] : "<invalid scope>"; }

bool tl_ir_scope_parse(const char *name, tl_ir_scope *out) {
  for (size_t i = 0; name && i < NSCOPES; i++) {
    if (strcmp(name, k_scopes[i]) == 0) {
      if (out) *out = (tl_ir_scope)i;
      return true;
    }
  }
  return false;
}

