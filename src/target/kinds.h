/* Target kinds as data: name, DLPack device type, default keys, attribute schema
 * (declaration order, types, defaults) and an optional canonicalizer, as TVM's
 * TVM_REGISTER_TARGET_KIND declares them (shared/ref/TARGETS.md section 3). */
#ifndef TL_TARGET_KINDS_H
#define TL_TARGET_KINDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "value.h"

typedef enum tl__opt_type {
  TL__OPT_INT,       /* int64; accepts bool (true -> 1) */
  TL__OPT_BOOL,      /* bool; accepts int (nonzero -> true) */
  TL__OPT_STR,       /* string only */
  TL__OPT_STR_ARRAY, /* Array<str>: an array whose elements are all strings */
  TL__OPT_TARGET     /* the "host" option: built separately, never validated */
} tl__opt_type;

typedef struct tl__target_option {
  const char *name;
  tl__opt_type type;
  bool has_default;
  int64_t dflt;          /* the default of an int or bool option */
  const char *dflt_json; /* the default as JSON text, NULL if none */
} tl__target_option;

/* Rewrites the resolved configuration of one target in place (values in arena a).
 * Fails with TVM's message (the caller adds the ". Target creation ..." suffix). */
typedef tl_status (*tl__target_canonicalizer)(tl__tmap *cfg, tl__arena *a);

typedef struct tl__target_kind {
  const char *name;
  int device_type;                       /* DLPack DLDeviceType */
  const char *const *default_keys;       /* NULL-terminated */
  const tl__target_option *options;      /* the kind's own options, {NULL}-terminated */
  tl__target_canonicalizer canonicalize; /* NULL: none */
} tl__target_kind;

/* The options every kind declares first, {NULL}-terminated, at these positions. */
enum {
  TL__OPT_KIND,
  TL__OPT_KEYS,
  TL__OPT_TAG,
  TL__OPT_DEVICE,
  TL__OPT_MODEL,
  TL__OPT_LIBS,
  TL__OPT_HOST,
  TL__OPT_FROM_DEVICE,
  TL__OPT_TARGET_DEVICE_TYPE,
  TL__NUM_COMMON_OPTIONS
};
extern const tl__target_option tl__target_common_options[];
/* The most options a kind has, common ones included. */
#define TL__MAX_KIND_OPTIONS 64

size_t tl__target_kind_count(void);
const tl__target_kind *tl__target_kind_at(size_t i);
const tl__target_kind *tl__target_kind_find(const char *name);
/* A kind's option (common or its own) by name, NULL if undeclared. */
const tl__target_option *tl__target_option_find(const tl__target_kind *k, const char *name);
/* TVM's type string of an option type ("int", "Array<str>"). */
const char *tl__target_opt_type_name(tl__opt_type t);

/* Canonicalizers (canon.c). */
tl_status tl__canon_cuda(tl__tmap *cfg, tl__arena *a);
tl_status tl__canon_nvptx(tl__tmap *cfg, tl__arena *a);
tl_status tl__canon_rocm(tl__tmap *cfg, tl__arena *a);
tl_status tl__canon_webgpu(tl__tmap *cfg, tl__arena *a);
tl_status tl__canon_llvm(tl__tmap *cfg, tl__arena *a);
/* The triple the llvm canonicalizer gives an llvm target without mtriple and mcpu:
 * LLVM's default target triple for the machine the library was built for
 * ("x86_64-unknown-linux-gnu"), "" where unknown. */
const char *tl__target_default_triple(void);

#endif
