/* tl_export: ahead-of-time compilation into a directory a C program links against:
 * the execution backend's shared library, a header declaring the packed entry and a
 * typed wrapper, the generated sources and the kernel table (docs/engine.md). */
#include <ctype.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/files.h"
#include "base/str.h"
#include "engine/engine_internal.h"

/* The C parameter type of a scalar of dtype t in the typed wrapper, and the TLValue
 * member and kind it travels in. */
static bool scalar_c_type(tl_dtype t, const char **ctype, const char **member, int *kind) {
  static const struct {
    uint8_t code, bits;
    const char *ctype;
  } ints[] = {
      {TL_DTYPE_INT, 8, "int8_t"},     {TL_DTYPE_INT, 16, "int16_t"},   {TL_DTYPE_INT, 32, "int32_t"},
      {TL_DTYPE_INT, 64, "int64_t"},   {TL_DTYPE_UINT, 8, "uint8_t"},   {TL_DTYPE_UINT, 16, "uint16_t"},
      {TL_DTYPE_UINT, 32, "uint32_t"}, {TL_DTYPE_UINT, 64, "uint64_t"},
  };
  if (t.lanes != 1) return false;
  if (t.code == TL_DTYPE_BOOL) return *ctype = "bool", *member = "b", *kind = TL_VALUE_BOOL, true;
  if (t.code == TL_DTYPE_FLOAT || t.code == TL_DTYPE_BFLOAT) {
    *ctype = t.code == TL_DTYPE_FLOAT && t.bits == 32 ? "float" : "double";
    *member = "f";
    *kind = TL_VALUE_FLOAT;
    return true;
  }
  for (size_t i = 0; i < sizeof ints / sizeof *ints; i++)
    if (ints[i].code == t.code && ints[i].bits == t.bits)
      return *ctype = ints[i].ctype, *member = "i", *kind = TL_VALUE_INT, true;
  return false;
}

/* Where the tensors live, for the header's comment. */
static const char *memory_words(const tl_target *target) {
  switch (tl_target_device_type(target)) {
  case 1: return "host memory";
  case 2: return "CUDA device memory (kDLCUDA), all on one device";
  default: return "the target device's memory";
  }
}

/* The header: the packed entry, its value type, and a typed wrapper `<entry>_call`. */
static tl_status make_header(const tl_kernel_table *t, const tl_target *target, const char *lib, char **out) {
  *out = NULL;
  tl__sb sb = TL__SB_INIT;
  /* TL_EXPORT_<ENTRY>_H, the whole entry name (a truncated one could collide). */
  char *guard = tl__format("TL_EXPORT_%s_H", t->entry);
  if (!guard) return tl__oom();
  for (char *p = guard + strlen("TL_EXPORT_"); *p; p++)
    *p = isalnum((unsigned char)*p) ? (char)toupper((unsigned char)*p) : '_';
  tl__sb_appendf(&sb,
                 "/* %s.h - ahead-of-time export of TileLang kernel '%s' (tilelang-c %s).\n"
                 " * Target: %s\n"
                 " * Link with %s. Tensors are DLPack DLTensors (dlpack/dlpack.h) in %s,\n"
                 " * compact, with the dtypes and shapes below. Both functions return 0 on success;\n"
                 " * otherwise they write a message naming the offending argument into err.%s */\n"
                 "#ifndef %s\n#define %s\n\n#include <stdbool.h>\n#include <stddef.h>\n#include <stdint.h>\n\n"
                 "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
                 "/* DLPack's tensor, unless dlpack/dlpack.h was included first (include it before\n"
                 " * this header if you use it). The same definitions as the generated code's. */\n"
                 "#ifndef DLPACK_DLPACK_H_\n"
                 "#ifndef TL_DLPACK_COMPAT_DEFINED\n#define TL_DLPACK_COMPAT_DEFINED\n"
                 "typedef struct {\n  int32_t device_type; /* 1 = kDLCPU */\n  int32_t device_id;\n} DLDevice;\n"
                 "typedef struct {\n  uint8_t code; /* 0 int, 1 uint, 2 float, 4 bfloat, 6 bool */\n"
                 "  uint8_t bits;\n  uint16_t lanes;\n} DLDataType;\n"
                 "typedef struct {\n  void *data;\n  DLDevice device;\n  int32_t ndim;\n  DLDataType dtype;\n"
                 "  int64_t *shape;\n  int64_t *strides; /* in elements; NULL: compact row-major */\n"
                 "  uint64_t byte_offset;\n} DLTensor;\n#endif\n#endif\n\n"
                 "#ifndef TL_PACKED_VALUE_DEFINED\n#define TL_PACKED_VALUE_DEFINED\n"
                 "/* A packed argument: layout-identical to tilelang's tl_value. */\n"
                 "typedef struct TLValue {\n"
                 "  int32_t kind; /* 1 integer, 2 float, 3 bool, 10 tensor */\n"
                 "  size_t size;\n"
                 "  union {\n    int64_t i;\n    double f;\n    bool b;\n    const char *s;\n"
                 "    const void *bytes;\n    void *ptr;\n    DLTensor *tensor;\n  } v;\n"
                 "} TLValue;\n#endif\n\n",
                 t->entry, t->entry, tl_version(), tl_target_str(target), lib, memory_words(target),
                 tl_target_device_type(target) == 2 ? "\n * The typed wrapper launches on the default stream; the packed entry on the\n"
                                                      " * stream it is given (a CUstream, NULL: the default one)."
                                                    : "",
                 guard, guard);
  tl__sb_appendf(&sb, "/* The packed entry: args in the order of the parameters below. */\n"
                      "int32_t %s(const TLValue *args, int32_t nargs, void *stream, char *err, size_t errcap);\n\n",
                 t->entry);
  /* The typed wrapper, with each parameter documented. */
  tl__sb_append(&sb, "/* Parameters:\n");
  for (uint32_t i = 0; i < t->nparams; i++) {
    const tl_host_param *p = &t->params[i];
    char dtbuf[32];
    const char *dt = tl_dtype_name(p->dtype, dtbuf, sizeof dtbuf);
    tl__sb_appendf(&sb, " *   %s: %s %s", p->name, p->is_tensor ? "tensor" : "scalar", dt);
    if (p->is_tensor) {
      tl__sb_append(&sb, " [");
      for (uint32_t d = 0; d < p->ndim; d++) {
        if (d) tl__sb_append(&sb, ", ");
        if (p->dims[d].sym >= 0) tl__sb_append(&sb, t->syms[p->dims[d].sym].name);
        else tl__sb_appendf(&sb, "%lld", (long long)p->dims[d].value);
      }
      tl__sb_append(&sb, "]");
    }
    tl__sb_append(&sb, p->is_output ? " (output)\n" : "\n");
  }
  tl__sb_appendf(&sb, " */\nstatic inline int32_t %s_call(", t->entry);
  for (uint32_t i = 0; i < t->nparams; i++) {
    const tl_host_param *p = &t->params[i];
    const char *ctype = "DLTensor *", *member, *sep = i ? ", " : "";
    int kind;
    if (!p->is_tensor && !scalar_c_type(p->dtype, &ctype, &member, &kind)) {
      tl__sb_free(&sb);
      tl__free(guard);
      char dtbuf[32];
      return tl__error(TL_EUNSUPPORTED, "cannot export scalar parameter '%s' of dtype %s", p->name,
                       tl_dtype_name(p->dtype, dtbuf, sizeof dtbuf));
    }
    tl__sb_appendf(&sb, "%s%s%s%s", sep, ctype, p->is_tensor ? "" : " ", p->name);
  }
  tl__sb_appendf(&sb, "%schar *err, size_t errcap) {\n", t->nparams ? ", " : "");
  tl__sb_appendf(&sb, "  TLValue args[%u];\n", t->nparams ? t->nparams : 1u);
  for (uint32_t i = 0; i < t->nparams; i++) {
    const tl_host_param *p = &t->params[i];
    const char *ctype, *member = "tensor";
    int kind = TL_VALUE_TENSOR;
    if (!p->is_tensor) scalar_c_type(p->dtype, &ctype, &member, &kind);
    tl__sb_appendf(&sb, "  args[%u].kind = %d;\n  args[%u].size = 0;\n  args[%u].v.%s = %s%s;\n", i, kind, i, i,
                   member, strcmp(member, "i") == 0 ? "(int64_t)" : "", p->name);
  }
  tl__sb_appendf(&sb, "  return %s(args, %u, NULL, err, errcap);\n}\n\n", t->entry, t->nparams);
  tl__sb_appendf(&sb, "#ifdef __cplusplus\n}\n#endif\n\n#endif /* %s */\n", guard);
  tl__free(guard);
  *out = tl__sb_finish(&sb);
  return *out ? TL_OK : tl__oom();
}

/* Writes `text` to dir/name (replacing it), mode 0644. */
static tl_status put(const char *dir, const char *name, const char *text, size_t len) {
  char *p = tl__path_join(dir, name);
  if (!p) return tl__oom();
  tl_status s = tl__file_replace(p, text, len, 0644);
  tl__free(p);
  return s;
}

/* "<entry>_<role>.<format>" with the format reduced to a file extension. The
 * source of a compiled GPU binary (cubin, fatbin) and of format "cuda" is CUDA: .cu. */
static char *source_name(const char *entry, const char *role, const char *format) {
  char ext[32];
  size_t n = 0;
  if (!strcmp(format, "cuda") || !strcmp(format, "cubin") || !strcmp(format, "fatbin")) format = "cu";
  for (const char *p = format; *p && n + 1 < sizeof ext; p++)
    if (isalnum((unsigned char)*p)) ext[n++] = (char)tolower((unsigned char)*p);
  ext[n] = '\0';
  return tl__format("%s_%s.%s", entry, role, n ? ext : "txt");
}

/* The implementation's file that is a shared library, or NULL. */
static const char *shared_library(const tl__exec_impl *impl) {
  for (size_t i = 0; impl->files[i]; i++)
    if (tl__str_ends_with(impl->files[i], ".so") || tl__str_ends_with(impl->files[i], ".dylib") ||
        tl__str_ends_with(impl->files[i], ".dll"))
      return impl->files[i];
  return NULL;
}

/* Builds in scratch, then copies the library and writes the rest into dir. */
static tl_status export_built(const tl__lowered *l, const tl__exec_impl *impl, const tl_target *target,
                              const char *const *pass_configs, const char *dir) {
  const char *libfile = shared_library(impl); /* checked by tl_export */
  const char *entry = l->table->entry;
  const char *ext = strrchr(libfile, '.');
  char *libname = tl__format("lib%s%s", entry, ext);
  if (!libname) return tl__oom();
  char *scratch = NULL, *built = NULL, *bytes = NULL, *header = NULL, *json = NULL, *dname = NULL, *hname = NULL;
  size_t nbytes = 0;
  tl__build_request req = {entry, target, l->device, l->host, l->table, pass_configs};
  tl_status s = tl__mkdirs_private(dir);
  if (s == TL_OK) s = tl__make_scratch_dir("tilelang-export-", &scratch);
  if (s == TL_OK) s = impl->build(&req, scratch);
  if (s == TL_OK && !(built = tl__path_join(scratch, libfile))) s = tl__oom();
  if (s == TL_OK) s = tl__file_read_no_link(built, true, &bytes, &nbytes);
  if (s == TL_OK) {
    char *p = tl__path_join(dir, libname);
    s = p ? tl__file_replace(p, bytes, nbytes, 0755) : tl__oom();
    tl__free(p);
  }
  if (s == TL_OK) s = make_header(l->table, target, libname, &header);
  if (s == TL_OK && !(hname = tl__format("%s.h", entry))) s = tl__oom();
  if (s == TL_OK) s = put(dir, hname, header, strlen(header));
  if (s == TL_OK && l->device) {
    if (!(dname = source_name(entry, "device", tl_artifact_format(l->device)))) s = tl__oom();
    else s = put(dir, dname, tl_artifact_source(l->device), strlen(tl_artifact_source(l->device)));
    tl__free(dname);
    dname = NULL;
    /* A compiled binary (a cubin the library embeds) is exported beside it. */
    size_t size = 0;
    const void *bin = tl_artifact_binary(l->device, &size);
    if (s == TL_OK && bin && size) {
      if (!(dname = tl__format("%s.%s", entry, tl_artifact_format(l->device)))) s = tl__oom();
      else s = put(dir, dname, bin, size);
      tl__free(dname);
      dname = NULL;
    }
  }
  if (s == TL_OK && l->host) {
    if (!(dname = source_name(entry, "host", tl_artifact_format(l->host)))) s = tl__oom();
    else s = put(dir, dname, tl_artifact_source(l->host), strlen(tl_artifact_source(l->host)));
  }
  if (s == TL_OK && !(json = tl_kernel_table_to_json(l->table))) s = tl__oom();
  if (s == TL_OK) {
    char *jname = tl__format("%s.kernel_table.json", entry);
    s = jname ? put(dir, jname, json, strlen(json)) : tl__oom();
    tl__free(jname);
  }
  if (scratch) (void)tl__remove_tree(scratch);
  tl__free(scratch);
  tl__free(built);
  tl__free(bytes);
  tl__free(header);
  tl_free(json);
  tl__free(dname);
  tl__free(hname);
  tl__free(libname);
  return s;
}

tl_status tl_export(const tl_ir_module *mod, const char *func_name, const tl_compile_options *opts, const char *dir) {
  if (!mod || !dir || !*dir) return tl__error(TL_EINVAL, "tl_export: the module and the directory must be given");
  tl_compile_options o;
  TL__TRY(tl__compile_options_normalize(opts, &o));
  const tl_ir_func *func;
  TL__TRY(tl__engine_pick_func(mod, func_name, &func));
  tl_backend_context *ctx = NULL;
  TL__TRY(tl__engine_context(&o, &ctx));
  const tl__exec_impl *impl = NULL;
  tl__lowered l;
  tl_status s = tl__engine_exec_impl(ctx, &impl);
  if (s == TL_OK && !shared_library(impl))
    s = tl__error(TL_EUNSUPPORTED,
                  "execution backend '%s' does not produce a shared library to export; use one that does (native)",
                  impl->name);
  if (s == TL_OK) s = tl__engine_lower(mod, func, &o, ctx, true, &l);
  if (s == TL_OK) {
    s = export_built(&l, impl, tl_backend_context_target(ctx), o.pass_configs, dir);
    tl__lowered_free(&l);
  }
  tl_backend_context_release(ctx);
  return s;
}
