/* Host codegen `c`: the packed host entries of a lowered module as self-contained C
 * (docs/lowering.md, "The packed C ABI"):
 *
 *   int32_t f(const TLValue *args, int32_t nargs, void *stream, char *err, size_t errcap);
 *
 * The entry checks every argument with make_packed_api's asserts, each printed as
 * `if (!(cond)) { snprintf(err, errcap, "message", ...); return -1; }` with the
 * message's placeholders ({dtype(i)}, {shape(i,d)}, ...) rendered from the arguments;
 * then binds the parameters it uses, the symbolic dims (LETs), and launches the
 * device kernels with the launch emitter that the module attribute
 * `tl.launch_convention` names. Emitters are a table, so another convention (CUDA's
 * `cuda_driver`) is a new entry, not a branch on the target. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <dlpack/dlpack.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/str.h"
#include "codegen/c_printer.h"
#include "codegen/codegen.h"
#include "codegen/host_emit.h"

/* ------------------------------------------------------------------ prelude */

static const char k_host_includes[] =
  "#include <stdbool.h>\n"
  "#include <stddef.h>\n"
  "#include <stdint.h>\n"
  "#include <stdio.h>\n";

static const char k_dltensor[] =
  "/* DLPack's tensor, unless dlpack.h was included first. */\n"
  "#ifndef DLPACK_DLPACK_H_\n"
  "typedef struct {\n"
  "  int32_t device_type; /* DLDeviceType: 1 = kDLCPU, 2 = kDLCUDA, ... */\n"
  "  int32_t device_id;\n"
  "} DLDevice;\n"
  "typedef struct {\n"
  "  uint8_t code; /* 0 int, 1 uint, 2 float, 3 handle, 4 bfloat, 6 bool */\n"
  "  uint8_t bits;\n"
  "  uint16_t lanes;\n"
  "} DLDataType;\n"
  "typedef struct {\n"
  "  void *data;\n"
  "  DLDevice device;\n"
  "  int32_t ndim;\n"
  "  DLDataType dtype;\n"
  "  int64_t *shape;\n"
  "  int64_t *strides; /* in elements; NULL: compact row-major */\n"
  "  uint64_t byte_offset;\n"
  "} DLTensor;\n"
  "#endif\n";

static const char k_tlvalue[] =
  "/* A packed argument, layout-identical to the library's tl_value. */\n"
  "typedef struct TLValue {\n"
  "  int32_t kind; /* 0 none, 1 int, 2 float, 3 bool, 4 str, 5 bytes, 6 ptr, 7 target, 8 module, 9 artifact, 10 tensor */\n"
  "  size_t size;\n"
  "  union {\n"
  "    int64_t i;\n"
  "    double f;\n"
  "    bool b;\n"
  "    const char *s;\n"
  "    const void *bytes;\n"
  "    void *ptr;\n"
  "    DLTensor *tensor;\n"
  "  } v;\n"
  "} TLValue;\n";

/* The argument builtins of docs/lowering.md and the words of the check messages
 * (the same as src/runtime/dl_names.c, so tl_kernel_table_bind_args and generated
 * entries report alike). */
static const char k_arg_helpers[] =
  "/* The argument's kind; a tensor value holding NULL counts as none. */\n"
  "static inline int32_t tl_arg_kind(const TLValue *a) { return a->kind == 10 && !a->v.tensor ? 0 : a->kind; }\n"
  "static inline int64_t tl_arg_int(const TLValue *a) { return a->kind == 3 ? (int64_t)a->v.b : a->v.i; }\n"
  "static inline double tl_arg_float(const TLValue *a) { return a->kind == 2 ? a->v.f : (double)tl_arg_int(a); }\n"
  "static inline int64_t tl_arg_stride(const DLTensor *t, int32_t d) {\n"
  "  int64_t s = 1;\n"
  "  if (t->strides) return t->strides[d];\n"
  "  for (int32_t k = d + 1; k < t->ndim; k++) s *= t->shape[k];\n"
  "  return s;\n"
  "}\n"
  "/* No strides, or row-major strides (those of extent-1 dimensions ignored). */\n"
  "static inline bool tl_arg_strides_compact(const DLTensor *t) {\n"
  "  int64_t expect = 1;\n"
  "  if (!t->strides) return true;\n"
  "  for (int32_t d = t->ndim - 1; d >= 0; d--) {\n"
  "    if (t->shape[d] != 1 && t->strides[d] != expect) return false;\n"
  "    expect *= t->shape[d];\n"
  "  }\n"
  "  return true;\n"
  "}\n"
  "static inline const char *tl_kind_words(int32_t kind) {\n"
  "  static const char *const words[] = {\"none\", \"an int\", \"a float\", \"a bool\", \"a string\", \"bytes\",\n"
  "                                      \"a pointer\", \"a target\", \"an IR module\", \"an artifact\", \"a tensor\"};\n"
  "  return kind >= 0 && kind <= 10 ? words[kind] : \"an unknown value\";\n"
  "}\n"
  "/* The TileLang name of a dtype (\"float16\", \"int8x4\", \"int4\"), or dtype(code=C, bits=B, lanes=L). */\n"
  "static inline const char *tl_dtype_str(DLDataType t, char *buf, size_t cap) {\n"
  "  static const char *const stems[7] = {\"int\", \"uint\", \"float\", \"handle\", \"bfloat\", NULL, \"bool\"};\n"
  "  char name[24];\n"
  "  if (t.code > 6 || !stems[t.code]) {\n"
  "    snprintf(buf, cap, \"dtype(code=%u, bits=%u, lanes=%u)\", (unsigned)t.code, (unsigned)t.bits, (unsigned)t.lanes);\n"
  "    return buf;\n"
  "  }\n"
  "  if ((t.code == 6 && t.bits == 8) || (t.code == 3 && t.bits == 64)) snprintf(name, sizeof name, \"%s\", stems[t.code]);\n"
  "  else snprintf(name, sizeof name, \"%s%u\", stems[t.code], (unsigned)t.bits);\n"
  "  if (t.lanes == 1) snprintf(buf, cap, \"%s\", name);\n"
  "  else snprintf(buf, cap, \"%sx%u\", name, (unsigned)t.lanes);\n"
  "  return buf;\n"
  "}\n";

/* The prelude with layout assertions holding the values of the library that
 * generated it, so code compiled against another layout does not build. */
static void append_prelude(tl__sb *sb) {
  tl__sb_append(sb, k_host_includes);
  tl__sb_append(sb, "\n#ifndef TL_HOST_PRELUDE\n#define TL_HOST_PRELUDE\n");
  tl__sb_append(sb, k_dltensor);
  tl__sb_append(sb, k_tlvalue);
  tl__sb_appendf(sb,
                 "_Static_assert(sizeof(TLValue) == %zu && offsetof(TLValue, size) == %zu && offsetof(TLValue, v) == %zu,\n"
                 "               \"TLValue must match tl_value\");\n",
                 sizeof(tl_value), offsetof(tl_value, size), offsetof(tl_value, v));
  tl__sb_appendf(sb,
                 "_Static_assert(sizeof(DLTensor) == %zu && offsetof(DLTensor, ndim) == %zu && offsetof(DLTensor, dtype) == %zu &&\n"
                 "               offsetof(DLTensor, shape) == %zu && offsetof(DLTensor, byte_offset) == %zu,\n"
                 "               \"DLTensor must match DLPack\");\n",
                 sizeof(DLTensor), offsetof(DLTensor, ndim), offsetof(DLTensor, dtype), offsetof(DLTensor, shape),
                 offsetof(DLTensor, byte_offset));
  tl__sb_append(sb, k_arg_helpers);
  tl__sb_append(sb, "#endif\n");
}

/* ---------------------------------------------------------- launch emitters */

const tl_ir_func *tl__host_find_kernel(const tl_ir_module *mod, const char *name) {
  const tl_ir_func *f = name ? tl_ir_module_find_func(mod, name) : NULL;
  return f && f->callconv == TL_CALLCONV_DEVICE_KERNEL ? f : NULL;
}

/* `call`: the device functions are in the same translation unit (device source
 * first); a kernel runs its whole grid itself, so the launch is a plain call. */
static void call_declare(tl__cgen *g, const tl_ir_module *mod) {
  for (size_t i = 0; i < tl_ir_module_num_funcs(mod); i++) {
    const tl_ir_func *f = tl_ir_module_func(mod, i);
    if (f->callconv != TL_CALLCONV_DEVICE_KERNEL) continue;
    tl__cgen_begin_func(g);
    tl__cgen_kernel_signature(g, f);
    tl__cgen_write(g, ";\n");
  }
}

static bool is_one(const tl_ir_expr *e) { return !e || (e->kind == TL_EXPR_INT && e->u.int_value == 1); }

static void call_launch(tl__cgen *g, tl__host_ctx *c, const tl_ir_stmt *s) {
  const char *name = s->u.launch.kernel;
  const tl_ir_func *k = tl__host_find_kernel(c->mod, name);
  if (!k) {
    tl__cgen_error(g, TL_EINVAL, "launch of '%s', which is not a device kernel of the module", name ? name : "(null)");
    return;
  }
  for (int d = 0; d < 3; d++)
    if (!is_one(s->u.launch.grid[d]) || !is_one(s->u.launch.block[d])) {
      tl__cgen_error(g, TL_EUNSUPPORTED,
                     "launch convention 'call' runs kernel '%s' once; its grid and block extents must be 1", name);
      return;
    }
  if (s->u.launch.nargs != k->nparams) {
    tl__cgen_error(g, TL_EINVAL, "launch of '%s' passes %u arguments for %u parameters", name, s->u.launch.nargs,
                   k->nparams);
    return;
  }
  tl__sb_indent(g->out, 2 * g->indent);
  tl__cgen_write(g, "%s(", name);
  for (uint32_t i = 0; i < s->u.launch.nargs; i++) {
    if (i) tl__cgen_write(g, ", ");
    tl__cgen_expr(g, s->u.launch.args[i], TL__PREC_TOP);
  }
  tl__cgen_write(g, ");\n");
}

static const tl__launch_emitter k_call_emitter = {"call", false, call_declare, call_launch, NULL};

/* The emitters, by convention name: a new convention is a new entry. */
static const tl__launch_emitter *const k_emitters[] = {&k_call_emitter, &tl__cuda_driver_emitter, NULL};

static tl_status find_emitter(const tl_ir_module *mod, const tl__launch_emitter **out) {
  const tl_ir_attr *a = tl_ir_module_attr(mod, "tl.launch_convention");
  tl__sb known = TL__SB_INIT;
  for (size_t i = 0; k_emitters[i]; i++) {
    const tl__launch_emitter *e = k_emitters[i];
    if (a && a->kind == TL_ATTR_STR && a->s && strcmp(a->s, e->convention) == 0) {
      tl__sb_free(&known);
      *out = e;
      return TL_OK;
    }
    tl__sb_appendf(&known, "%s%s", i ? ", " : "", e->convention);
  }
  tl_status s;
  if (!a || a->kind != TL_ATTR_STR)
    s = tl__error(TL_EINVAL, "host codegen 'c' needs the module attribute tl.launch_convention (one of: %s)",
                  tl__sb_str(&known));
  else
    s = tl__error(TL_EUNSUPPORTED, "host codegen 'c' has no launch emitter for convention '%s' (known: %s)", a->s,
                  tl__sb_str(&known));
  tl__sb_free(&known);
  return s;
}

/* -------------------------------------------------------- argument builtins */

static bool const_arg(tl__cgen *g, const tl_ir_expr *e, uint32_t k, int64_t *out) {
  const tl_ir_expr *a = k < e->u.call.nargs ? e->u.call.args[k] : NULL;
  if (!a || a->kind != TL_EXPR_INT || a->u.int_value < 0) {
    tl__cgen_error(g, TL_EINVAL, "%s takes constant non-negative integer arguments", tl_ir_op_name(e->u.call.op));
    return false;
  }
  *out = a->u.int_value;
  return true;
}

static bool host_call(tl__cgen *g, const tl_ir_expr *e, int prec) {
  tl_ir_op op = e->u.call.op;
  if (op < TL_OP_ARG_NUM || op > TL_OP_ARG_DATA_ALIGNED) return false;
  tl__host_ctx *c = g->ext;
  int64_t i = 0, d = 0;
  if (op != TL_OP_ARG_NUM && !const_arg(g, e, 0, &i)) return true;
  if ((op == TL_OP_ARG_SHAPE || op == TL_OP_ARG_STRIDE || op == TL_OP_ARG_DATA_ALIGNED) && !const_arg(g, e, 1, &d))
    return true;
  if (op != TL_OP_ARG_NUM && (uint64_t)i >= c->f->nparams) {
    tl__cgen_error(g, TL_EINVAL, "%s(%lld): the entry has %u parameters", tl_ir_op_name(op), (long long)i,
                   c->f->nparams);
    return true;
  }
  switch (op) {
  case TL_OP_ARG_NUM: tl__cgen_write(g, "nargs"); break;
  case TL_OP_ARG_KIND: tl__cgen_write(g, "tl_arg_kind(&args[%lld])", (long long)i); break;
  case TL_OP_ARG_DTYPE_CODE: tl__cgen_write(g, "args[%lld].v.tensor->dtype.code", (long long)i); break;
  case TL_OP_ARG_DTYPE_BITS: tl__cgen_write(g, "args[%lld].v.tensor->dtype.bits", (long long)i); break;
  case TL_OP_ARG_DTYPE_LANES: tl__cgen_write(g, "args[%lld].v.tensor->dtype.lanes", (long long)i); break;
  case TL_OP_ARG_NDIM: tl__cgen_write(g, "args[%lld].v.tensor->ndim", (long long)i); break;
  case TL_OP_ARG_SHAPE: tl__cgen_write(g, "args[%lld].v.tensor->shape[%lld]", (long long)i, (long long)d); break;
  case TL_OP_ARG_STRIDE:
    tl__cgen_write(g, "tl_arg_stride(args[%lld].v.tensor, %lld)", (long long)i, (long long)d);
    break;
  case TL_OP_ARG_STRIDES_COMPACT: tl__cgen_write(g, "tl_arg_strides_compact(args[%lld].v.tensor)", (long long)i); break;
  case TL_OP_ARG_DEVICE_TYPE: tl__cgen_write(g, "args[%lld].v.tensor->device.device_type", (long long)i); break;
  case TL_OP_ARG_DATA_IS_NULL:
    tl__cgen_write(g, prec > TL__PREC_EQ ? "(args[%lld].v.tensor->data == NULL)" : "args[%lld].v.tensor->data == NULL",
                   (long long)i);
    break;
  case TL_OP_ARG_INT: tl__cgen_write(g, "tl_arg_int(&args[%lld])", (long long)i); break;
  case TL_OP_ARG_FLOAT: tl__cgen_write(g, "tl_arg_float(&args[%lld])", (long long)i); break;
  case TL_OP_ARG_DATA_ALIGNED:
    /* data + byte_offset a multiple of d (GPU kernels with vector accesses) */
    tl__cgen_write(g, "(((uintptr_t)args[%lld].v.tensor->data + args[%lld].v.tensor->byte_offset) %% %lldu == 0)",
                   (long long)i, (long long)i, (long long)d);
    break;
  default: return false;
  }
  return true;
}

/* ------------------------------------------------------------------ asserts */

/* Appends s to a C string literal used as a printf format. */
static void append_format_text(tl__sb *sb, const char *s, size_t n) {
  for (size_t k = 0; k < n; k++) {
    unsigned char ch = (unsigned char)s[k];
    switch (ch) {
    case '"': tl__sb_append(sb, "\\\""); break;
    case '\\': tl__sb_append(sb, "\\\\"); break;
    case '%': tl__sb_append(sb, "%%"); break;
    case '\n': tl__sb_append(sb, "\\n"); break;
    case '\t': tl__sb_append(sb, "\\t"); break;
    case '?': tl__sb_append(sb, k > 0 && s[k - 1] == '?' ? "\\?" : "?"); break;
    default:
      if (ch < 0x20 || ch == 0x7f) tl__sb_appendf(sb, "\\%03o", ch);
      else tl__sb_putc(sb, (char)ch);
    }
  }
}

/* A placeholder: its name, and up to two integer arguments. */
typedef struct placeholder {
  char name[16];
  int nargs;
  long long a[2];
} placeholder;

/* Parses "{name(i,d)}" at s (pointing at '{'); returns its length or 0. */
static size_t parse_placeholder(const char *s, placeholder *p) {
  const char *q = s + 1;
  size_t n = 0;
  memset(p, 0, sizeof *p);
  while (((*q >= 'a' && *q <= 'z') || *q == '_') && n + 1 < sizeof p->name) p->name[n++] = *q++;
  if (n == 0) return 0;
  if (*q == '(') {
    q++;
    for (;;) {
      if (p->nargs == 2 || *q < '0' || *q > '9') return 0;
      long long v = 0;
      while (*q >= '0' && *q <= '9') v = v * 10 + (*q++ - '0');
      p->a[p->nargs++] = v;
      if (*q == ',') {
        q++;
        while (*q == ' ') q++;
        continue;
      }
      if (*q != ')') return 0;
      q++;
      break;
    }
  }
  if (*q != '}') return 0;
  return (size_t)(q - s) + 1;
}

/* Adds the printf conversion and argument of placeholder p; false if unknown. */
static bool render_placeholder(tl__cgen *g, tl__host_ctx *c, const placeholder *p, tl__sb *fmt, tl__sb *args, int *bufs) {
  static const struct {
    const char *name;
    int nargs;
  } known[] = {{"nargs", 0}, {"kind", 1}, {"dtype", 1}, {"ndim", 1}, {"shape", 2},
               {"stride", 2}, {"device", 1}, {"int", 1}};
  bool ok = false;
  for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
    if (strcmp(known[k].name, p->name) == 0 && known[k].nargs == p->nargs) ok = true;
  if (!ok || (p->nargs > 0 && (p->a[0] < 0 || (uint64_t)p->a[0] >= c->f->nparams))) {
    tl__cgen_error(g, TL_EINVAL, "unknown message placeholder {%s} (with %d arguments)", p->name, p->nargs);
    return false;
  }
  long long i = p->a[0], d = p->a[1];
  if (!strcmp(p->name, "nargs")) {
    tl__sb_append(fmt, "%d");
    tl__sb_append(args, ", (int)nargs");
  } else if (!strcmp(p->name, "kind")) {
    tl__sb_append(fmt, "%s");
    tl__sb_appendf(args, ", tl_kind_words(tl_arg_kind(&args[%lld]))", i);
  } else if (!strcmp(p->name, "dtype")) {
    tl__sb_append(fmt, "%s");
    tl__sb_appendf(args, ", tl_dtype_str(args[%lld].v.tensor->dtype, dtype%d, sizeof dtype%d)", i, *bufs, *bufs);
    (*bufs)++;
  } else if (!strcmp(p->name, "ndim")) {
    tl__sb_append(fmt, "%d");
    tl__sb_appendf(args, ", (int)args[%lld].v.tensor->ndim", i);
  } else if (!strcmp(p->name, "shape")) {
    tl__sb_append(fmt, "%lld");
    tl__sb_appendf(args, ", (long long)args[%lld].v.tensor->shape[%lld]", i, d);
  } else if (!strcmp(p->name, "stride")) {
    tl__sb_append(fmt, "%lld");
    tl__sb_appendf(args, ", (long long)tl_arg_stride(args[%lld].v.tensor, %lld)", i, d);
  } else if (!strcmp(p->name, "device")) {
    tl__sb_append(fmt, "%d");
    tl__sb_appendf(args, ", (int)args[%lld].v.tensor->device.device_type", i);
  } else {
    tl__sb_append(fmt, "%lld");
    tl__sb_appendf(args, ", (long long)tl_arg_int(&args[%lld])", i);
  }
  return true;
}

static void print_assert(tl__cgen *g, tl__host_ctx *c, const tl_ir_stmt *s) {
  const char *msg = s->u.assert_.message ? s->u.assert_.message : "argument check failed";
  tl__sb fmt = TL__SB_INIT, args = TL__SB_INIT;
  int bufs = 0;
  for (const char *p = msg; *p;) {
    if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) {
      tl__sb_putc(&fmt, p[0]);
      p += 2;
      continue;
    }
    if (*p == '{') {
      placeholder ph;
      size_t n = parse_placeholder(p, &ph);
      if (!n) {
        tl__cgen_error(g, TL_EINVAL, "malformed placeholder in argument check message \"%s\"", msg);
        break;
      }
      if (!render_placeholder(g, c, &ph, &fmt, &args, &bufs)) break;
      p += n;
      continue;
    }
    size_t run = strcspn(p, "{}");
    if (run == 0) run = 1; /* a lone '}' */
    append_format_text(&fmt, p, run);
    p += run;
  }
  tl__sb_indent(g->out, 2 * g->indent);
  tl__cgen_write(g, "if (!(");
  tl__cgen_expr(g, s->u.assert_.cond, TL__PREC_TOP);
  tl__cgen_write(g, ")) {\n");
  g->indent++;
  for (int k = 0; k < bufs; k++) tl__cgen_line(g, "char dtype%d[48];", k);
  tl__cgen_line(g, "snprintf(err, errcap, \"%s\"%s);", tl__sb_str(&fmt), tl__sb_str(&args));
  tl__cgen_line(g, "return -1;");
  g->indent--;
  tl__cgen_line(g, "}");
  if (tl__sb_status(&fmt) != TL_OK || tl__sb_status(&args) != TL_OK) tl__cgen_oom(g);
  tl__sb_free(&fmt);
  tl__sb_free(&args);
}

/* ------------------------------------------------------------ host entries */

static bool used(const tl__host_ctx *c, const tl_ir_var *v) {
  for (size_t i = 0; i < c->used.len; i++)
    if (TL__VEC_AT(&c->used, const tl_ir_var *, i) == v) return true;
  return false;
}

static bool collect_var(tl_ir_visitor *v, const tl_ir_expr *e) {
  tl__host_ctx *c = v->ctx;
  if (e->kind == TL_EXPR_VAR && !used(c, e->u.var) && tl__vec_push(&c->used, &e->u.var) != TL_OK)
    c->oom = true;
  return true;
}

/* After the asserts: the parameters the rest of the entry uses, as locals. */
static void bind_params(tl__cgen *g, tl__host_ctx *c) {
  if (c->params_bound) return;
  c->params_bound = true;
  for (uint32_t i = 0; i < c->f->nparams; i++) {
    const tl_ir_param *p = &c->f->params[i];
    if (!used(c, p->var)) continue;
    if (p->kind == TL_PARAM_BUFFER) {
      const char *type = tl__cgen_storage_type(g, p->buffer->dtype);
      const char *name = tl__cgen_declare(g, p->var);
      tl__cgen_line(g, "%s *%s = (%s *)((char *)args[%u].v.tensor->data + args[%u].v.tensor->byte_offset);", type, name,
                    type, i, i);
      continue;
    }
    tl_dtype t = p->var->dtype;
    const char *type = tl__cgen_type(g, t);
    const char *name = tl__cgen_declare(g, p->var);
    const tl__c_half_type *h = tl__cgen_half_type(g, t);
    if (t.code == TL_DTYPE_HANDLE) tl__cgen_line(g, "void *%s = args[%u].v.ptr;", name, i);
    else if (tl_dtype_is_bool(t)) tl__cgen_line(g, "const bool %s = tl_arg_int(&args[%u]) != 0;", name, i);
    else if (h) tl__cgen_line(g, "const %s %s = %s(tl_arg_float(&args[%u]));", type, name, h->round, i);
    else if (tl_dtype_is_float(t)) tl__cgen_line(g, "const %s %s = (%s)tl_arg_float(&args[%u]);", type, name, type, i);
    else tl__cgen_line(g, "const %s %s = (%s)tl_arg_int(&args[%u]);", type, name, type, i);
  }
}

static bool host_stmt(tl__cgen *g, const tl_ir_stmt *s) {
  tl__host_ctx *c = g->ext;
  switch (s->kind) {
  case TL_STMT_ASSERT:
    print_assert(g, c, s);
    return true;
  case TL_STMT_SEQ:
    return false;
  case TL_STMT_LAUNCH:
    bind_params(g, c);
    c->emitter->launch(g, c, s);
    c->launches++;
    return true;
  case TL_STMT_LET: {
    bind_params(g, c);
    /* A symbolic dim read from a shape: the checks before made it a size. */
    const tl_ir_expr *v = s->u.let.value;
    if (v->kind == TL_EXPR_CAST) v = v->u.cast.value;
    if (v->kind == TL_EXPR_CALL && v->u.call.op == TL_OP_ARG_SHAPE) tl__cgen_set_nonneg(g, s->u.let.var);
    return false;
  }
  default:
    tl__cgen_error(g, TL_EUNSUPPORTED, "a host entry holds only checks, lets and launches (docs/lowering.md)");
    return true;
  }
}

static void print_entry(tl__cgen *g, tl__host_ctx *c) {
  const tl_ir_func *f = c->f;
  tl__cgen_begin_func(g);
  if (!tl__c_is_identifier(f->name)) {
    tl__cgen_error(g, TL_EUNSUPPORTED, "host entry name '%s' is not a valid C identifier", f->name);
    return;
  }
  static const char *const k_reserved[] = {"args", "nargs", "stream", "err", "errcap", NULL};
  for (size_t i = 0; k_reserved[i]; i++) tl__cgen_reserve(g, k_reserved[i]);
  for (size_t i = 0; i < tl_ir_module_num_funcs(c->mod); i++) tl__cgen_reserve(g, tl_ir_module_func(c->mod, i)->name);
  tl__vec_init(&c->used, sizeof(const tl_ir_var *));
  c->params_bound = c->oom = false;
  c->launches = 0;
  tl_ir_visitor v = {collect_var, NULL, c};
  tl_ir_visit_stmt(&v, f->body);
  if (c->oom) tl__cgen_oom(g);
  tl__cgen_write(g, "int32_t %s(const TLValue *args, int32_t nargs, void *stream, char *err, size_t errcap) {\n", f->name);
  g->indent = 1;
  if (!c->emitter->uses_stream) tl__cgen_line(g, "(void)stream;");
  tl__cgen_stmt(g, f->body);
  if (c->emitter->finish) c->emitter->finish(g, c);
  tl__cgen_line(g, "return 0;");
  g->indent = 0;
  tl__cgen_write(g, "}\n");
  tl__vec_free(&c->used);
}

tl_status tl__c_host_source(const tl_ir_module *mod, char **out) {
  *out = NULL;
  if (!mod) return tl__error(TL_EINVAL, "host codegen: module must not be NULL");
  const tl__launch_emitter *emitter = NULL;
  TL__TRY(find_emitter(mod, &emitter));
  tl__cgen g;
  tl__cgen_init(&g, &tl__c_dialect_c);
  tl__host_ctx c = {mod, NULL, emitter, false, false, TL__VEC_INIT(const tl_ir_var *), 0};
  g.ext = &c;
  g.ext_call = host_call;
  g.ext_stmt = host_stmt;
  tl__sb decls = TL__SB_INIT;
  tl__sb *prev = tl__cgen_capture_begin(&g, &decls);
  emitter->declare(&g, mod);
  tl__cgen_capture_end(&g, prev);
  size_t nentries = 0;
  for (size_t i = 0; i < tl_ir_module_num_funcs(mod) && g.status == TL_OK; i++) {
    const tl_ir_func *f = tl_ir_module_func(mod, i);
    if (f->callconv != TL_CALLCONV_PACKED) continue;
    if (nentries++) tl__cgen_write(&g, "\n");
    c.f = f;
    print_entry(&g, &c);
    if (g.status != TL_OK) tl__error_context(g.status, "in host entry '%s': ", f->name);
  }
  tl_status s = tl__cgen_status(&g);
  if (s == TL_OK && nentries == 0) s = tl__error(TL_EINVAL, "host codegen: the module has no host entry (TL_CALLCONV_PACKED)");
  if (s == TL_OK) {
    tl__sb sb = TL__SB_INIT;
    tl__sb_append(&sb, "/* Host code generated by tilelang-backend: packed entries (docs/lowering.md). */\n");
    append_prelude(&sb);
    tl__sb_append(&sb, "\n");
    size_t before = sb.len;
    tl__cgen_emit_helpers(&g, &sb);
    if (sb.len != before) tl__sb_append(&sb, "\n");
    if (decls.len) {
      tl__sb_append(&sb, tl__sb_str(&decls));
      tl__sb_append(&sb, "\n");
    }
    tl__sb_append(&sb, tl__sb_str(&g.body));
    *out = tl__sb_finish(&sb);
    if (!*out) s = TL_ENOMEM;
  }
  tl__sb_free(&decls);
  tl__cgen_free(&g);
  return s;
}

tl_status tl__c_host_codegen(const tl_ir_module *mod, const tl_target *target_host, tl_artifact **out) {
  (void)target_host;
  *out = NULL;
  char *src;
  TL__TRY(tl__c_host_source(mod, &src));
  tl_status s = tl_artifact_create("c", src, out);
  tl__free(src);
  return s;
}
