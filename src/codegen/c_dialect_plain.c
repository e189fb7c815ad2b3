/* C-family dialects as plain data (plugin.h's tl_c_dialect): the conversion into the
 * printer's table (c_dialect.h), the portable helper sections a plain dialect may
 * leave out, and device code generation in any plain dialect. The in-tree GPU
 * dialects (hip, metal) are written in this form too, so a plugin's dialect and the
 * library's are one mechanism. */
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "codegen/c_dialect.h"
#include "codegen/c_helper_texts.h"
#include "codegen/codegen.h"
#include "tilelang/runtime.h"
#include "transform/kernel_table.h"

/* Sections a plugin dialect does not define itself get these (the shared texts, and
 * float // and % in $W, the dialect's wide type, so no double is needed where the
 * dialect has none). */
static const char k_fdiv[] =
  "$F $T tl_floordiv_$S($T a, $T b) { return ($T)floor(($W)a / ($W)b); }\n"
  "$F $T tl_floormod_$S($T a, $T b) { return ($T)(($W)a - floor(($W)a / ($W)b) * ($W)b); }\n";

static const tl__c_helper k_defaults[] = {
  {"intdiv", true, NULL, tl__c_text_intdiv},
  {"minmax", true, NULL, tl__c_text_minmax},
  {"abs", true, NULL, tl__c_text_abs},
  {"fminmax", true, NULL, tl__c_text_fminmax},
  {"fdiv", true, NULL, k_fdiv},
};
#define NDEFAULTS (sizeof k_defaults / sizeof k_defaults[0])

/* The size of the first version of tl_c_dialect (ABI 1.1). */
#define PLAIN_V1_SIZE (offsetof(tl_c_dialect, prelude) + sizeof(((tl_c_dialect *)0)->prelude))

static tl__c_half_type half_of(const tl_c_half_type *h) {
  tl__c_half_type r = {.storage = h->storage, .compute = h->compute, .widen = h->widen, .narrow = h->narrow,
                       .round = h->round, .helper = h->helper, .storage_helper = false};
  return r;
}

static const char *or_empty(const char *s) { return s ? s : ""; }

void tl__c_dialect_owned_free(tl__c_dialect_owned *d) {
  if (!d) return;
  tl__free(d->math);
  tl__free(d->helpers);
  tl__free(d->tags);
  tl__free(d->builtins);
  tl__free(d->vector_types);
  tl__free(d->atomics);
  tl__free(d->atomics_max);
  tl__free(d->atomics_min);
  memset(d, 0, sizeof *d);
}

static tl_status convert_math(const tl_c_dialect *p, tl__c_dialect_owned *o) {
  size_t n = 0;
  while (p->math && p->math[n].op) n++;
  o->math = tl__calloc(n + 1, sizeof *o->math);
  if (!o->math) return tl__oom();
  for (size_t i = 0; i < n; i++) {
    const tl_c_math *m = &p->math[i];
    tl_ir_op op;
    if (!tl_ir_op_parse(m->op, &op))
      return tl__error(TL_EINVAL, "dialect '%s': math entry '%s' names no IR op (\"T.exp\", ...)", or_empty(p->name),
                       m->op);
    if (!m->f32) return tl__error(TL_EINVAL, "dialect '%s': math entry '%s' has no float32 template", or_empty(p->name), m->op);
    o->math[i] = (tl__c_math){op, m->f32, m->f64, m->helper};
  }
  o->math[n] = (tl__c_math){TL_OP__COUNT, NULL, NULL, NULL};
  return TL_OK;
}

static tl_status convert_helpers(const tl_c_dialect *p, tl__c_dialect_owned *o) {
  size_t n = 0;
  while (p->helpers && p->helpers[n].name) n++;
  o->helpers = tl__calloc(n + NDEFAULTS + 1, sizeof *o->helpers);
  if (!o->helpers) return tl__oom();
  for (size_t i = 0; i < n; i++) {
    const tl_c_helper *h = &p->helpers[i];
    if (!h->text) return tl__error(TL_EINVAL, "dialect '%s': helper section '%s' has no text", or_empty(p->name), h->name);
    o->helpers[i] = (tl__c_helper){h->name, h->per_type, h->requires, h->text};
  }
  size_t k = n;
  for (size_t i = 0; i < NDEFAULTS; i++) {
    bool own = false;
    for (size_t j = 0; j < n && !own; j++) own = strcmp(p->helpers[j].name, k_defaults[i].name) == 0;
    if (!own) o->helpers[k++] = k_defaults[i];
  }
  o->helpers[k] = (tl__c_helper){NULL, false, NULL, NULL};
  return TL_OK;
}

static tl_status convert_tags(const tl_c_dialect *p, tl__c_dialect_owned *o) {
  if (!p->thread_tags) return TL_OK; /* no threads */
  size_t n = 0;
  while (p->thread_tags[n].key) n++;
  o->tags = tl__calloc(n + 1, sizeof *o->tags);
  if (!o->tags) return tl__oom();
  for (size_t i = 0; i < n; i++) {
    if (!p->thread_tags[i].text)
      return tl__error(TL_EINVAL, "dialect '%s': thread tag '%s' has no text", or_empty(p->name), p->thread_tags[i].key);
    o->tags[i] = (tl__c_thread_tag){p->thread_tags[i].key, p->thread_tags[i].text};
  }
  return TL_OK;
}

/* The named hardware-builtin fields of tl_c_dialect as rows of the dialect's builtin
 * table (the form every dialect's builtins take). */
static tl_status convert_builtins(const tl_c_dialect *p, tl__c_dialect_owned *o) {
  const struct {
    tl_ir_op op;
    const char *text;
  } named[] = {
    {TL_OP_WARP_SHFL_XOR, p->warp_shfl_xor},
  };
  size_t count = sizeof named / sizeof named[0], n = 0;
  o->builtins = tl__calloc(count + 1, sizeof *o->builtins);
  if (!o->builtins) return tl__oom();
  for (size_t i = 0; i < count; i++)
    if (named[i].text) o->builtins[n++] = (tl__c_builtin){named[i].op, named[i].text, NULL};
  o->builtins[n] = (tl__c_builtin){TL_OP__COUNT, NULL, NULL};
  return TL_OK;
}

/* vector_type with its bases and lanes as rows of vector types: one per base. */
static tl_status convert_vector_types(const tl_c_dialect *p, tl__c_dialect_owned *o) {
  if (!p->vector_type || p->vector_lanes == 0) return TL_OK; /* lane by lane */
  size_t n = 0;
  while (p->vector_bases[n].key) n++;
  o->vector_types = tl__calloc(n + 1, sizeof *o->vector_types);
  if (!o->vector_types) return tl__oom();
  for (size_t i = 0; i < n; i++)
    o->vector_types[i] = (tl__c_vector_type){p->vector_bases[i].key, p->vector_lanes, 0, p->vector_bases[i].text,
                                             p->vector_type};
  return TL_OK;
}

/* Atomic templates by element suffix (`what`: "atomic add", ...), each needing
 * the one helper section given. */
static tl_status convert_atomic_list(const tl_c_dialect *p, const tl_c_pair *in, const char *helper, const char *what,
                                     tl__c_atomic **out) {
  if (!in) return TL_OK; /* none */
  size_t n = 0;
  while (in[n].key) n++;
  *out = tl__calloc(n + 1, sizeof **out);
  if (!*out) return tl__oom();
  for (size_t i = 0; i < n; i++) {
    if (!in[i].text) return tl__error(TL_EINVAL, "dialect '%s': %s '%s' has no text", or_empty(p->name), what, in[i].key);
    (*out)[i] = (tl__c_atomic){in[i].key, in[i].text, helper};
  }
  return TL_OK;
}

/* Whether a plugin's struct (of struct_size bytes, 0: the current size) has `field`. */
#define PLAIN_HAS(p, field) \
  ((p)->struct_size == 0 || (p)->struct_size >= offsetof(tl_c_dialect, field) + sizeof((p)->field))

static tl_status convert_atomics(const tl_c_dialect *p, tl__c_dialect_owned *o) {
  TL__TRY(convert_atomic_list(p, p->atomic_add, p->atomic_helper, "atomic add", &o->atomics));
  if (!PLAIN_HAS(p, atomic_minmax_helper)) return TL_OK; /* an older plugin: no max/min */
  TL__TRY(convert_atomic_list(p, p->atomic_max, p->atomic_minmax_helper, "atomic max", &o->atomics_max));
  return convert_atomic_list(p, p->atomic_min, p->atomic_minmax_helper, "atomic min", &o->atomics_min);
}

tl_status tl__c_dialect_from_plain(const tl_c_dialect *p, tl__c_dialect_owned *out) {
  memset(out, 0, sizeof *out);
  if (!p) return tl__error(TL_EINVAL, "C dialect must not be NULL");
  if (p->struct_size != 0 && p->struct_size < PLAIN_V1_SIZE)
    return tl__error(TL_EINVAL, "C dialect has struct_size %zu, smaller than the first version's (%zu)",
                     p->struct_size, (size_t)PLAIN_V1_SIZE);
  if (!p->name || !*p->name) return tl__error(TL_EINVAL, "C dialect must have a name");
  if (!p->t_i32 || !p->t_f32)
    return tl__error(TL_EINVAL, "dialect '%s' must name at least the int32 and float32 types", p->name);
  if ((p->vector_type != NULL) != (p->vector_bases != NULL))
    return tl__error(TL_EINVAL, "dialect '%s': vector_type and vector_bases go together", p->name);
  tl_status s = convert_math(p, out);
  if (s == TL_OK) s = convert_helpers(p, out);
  if (s == TL_OK) s = convert_tags(p, out);
  if (s == TL_OK) s = convert_builtins(p, out);
  if (s == TL_OK) s = convert_vector_types(p, out);
  if (s == TL_OK) s = convert_atomics(p, out);
  if (s != TL_OK) {
    tl__c_dialect_owned_free(out);
    return s;
  }
  tl__c_dialect *d = &out->d;
  d->name = p->name;
  d->t_bool = p->t_bool, d->t_i8 = p->t_i8, d->t_i16 = p->t_i16, d->t_i32 = p->t_i32, d->t_i64 = p->t_i64;
  d->t_u8 = p->t_u8, d->t_u16 = p->t_u16, d->t_u32 = p->t_u32, d->t_u64 = p->t_u64;
  d->t_f32 = p->t_f32, d->t_f64 = p->t_f64, d->t_handle = p->t_handle;
  d->f16 = half_of(&p->f16);
  d->bf16 = half_of(&p->bf16);
  d->restrict_kw = or_empty(p->restrict_kw);
  d->global_space = or_empty(p->global_space);
  d->shared_space = or_empty(p->shared_space);
  d->kernel_prefix = or_empty(p->kernel_prefix);
  d->helper_prefix = or_empty(p->helper_prefix);
  d->thread_tags = out->tags;
  d->barrier = p->barrier;
  d->math = out->math;
  d->unroll_pragma = p->unroll_pragma;
  d->helpers = out->helpers;
  d->prelude = or_empty(p->prelude);
  d->t_wide = p->t_wide;
  d->wide_suffix = p->wide_suffix;
  d->t_bool_param = p->t_bool_param;
  d->wrap_signed_data = p->wrap_signed_data;
  d->reserved_words = p->reserved_words;
  d->int64_suffix = p->int64_suffix;
  d->uint64_suffix = p->uint64_suffix;
  d->local_space = p->local_space;
  d->buffer_param = p->buffer_param;
  d->scalar_param = p->scalar_param;
  d->extra_params = p->extra_params;
  d->shared_array = p->shared_array;
  d->local_array = p->local_array;
  d->builtins = out->builtins;
  d->vector_types = out->vector_types;
  d->vector_copy = p->vector_copy;
  d->atomic_add = out->atomics;
  d->atomic_max = out->atomics_max;
  d->atomic_min = out->atomics_min;
  d->parallel_for = p->parallel_for;
  d->parallel_threads = PLAIN_HAS(p, parallel_threads) ? p->parallel_threads : NULL;
  return TL_OK;
}

/* ------------------------------------------------------------ code generation */

tl_status tl__c_plain_device_source(const tl_c_dialect *plain, const tl_ir_module *mod, char **out) {
  *out = NULL;
  tl__c_dialect_owned d;
  TL__TRY(tl__c_dialect_from_plain(plain, &d));
  tl_status s = tl__c_device_source(&d.d, mod, out);
  tl__c_dialect_owned_free(&d);
  return s;
}

/* The module's host entry (its only TL_CALLCONV_PACKED function), or NULL. */
static const tl_ir_func *host_entry(const tl_ir_module *mod) {
  const tl_ir_func *found = NULL;
  for (size_t i = 0; i < tl_ir_module_num_funcs(mod); i++) {
    const tl_ir_func *f = tl_ir_module_func(mod, i);
    if (f->callconv != TL_CALLCONV_PACKED) continue;
    if (found) return NULL;
    found = f;
  }
  return found;
}

tl_status tl__c_module_kernel_table(const tl_ir_module *mod, tl_kernel_table **out) {
  *out = NULL;
  if (!mod) return tl__error(TL_EINVAL, "kernel table: module must not be NULL");
  const tl_ir_func *entry = host_entry(mod);
  if (!entry) return tl__error(TL_EINVAL, "kernel table: the module has no single host entry (a lowered module has one)");
  return tl__kernel_table_from_module(mod, entry->name, out);
}

tl_status tl__c_plain_device_artifact(const tl_c_dialect *plain, const tl_ir_module *mod, const char *format,
                                      tl_artifact **out) {
  *out = NULL;
  if (!format || !*format) return tl__error(TL_EINVAL, "device artifact: format must not be empty");
  if (!mod) return tl__error(TL_EINVAL, "device codegen: module must not be NULL");
  char *src = NULL;
  TL__TRY(tl__c_plain_device_source(plain, mod, &src));
  tl_kernel_table *table = NULL;
  tl_status s = host_entry(mod) ? tl__c_module_kernel_table(mod, &table) : TL_OK;
  if (s == TL_EUNSUPPORTED) { /* a dimension such as N * 2: no table, as for C */
    table = NULL;
    s = TL_OK;
    tl__error_clear();
  }
  tl_artifact *a = NULL;
  if (s == TL_OK) s = tl_artifact_create(format, src, &a);
  if (s == TL_OK && table) {
    s = tl_artifact_with_kernel_table(a, table, out);
    tl_artifact_release(a);
  } else if (s == TL_OK) {
    *out = a;
  }
  tl_kernel_table_free(table);
  tl__free(src);
  return s;
}
