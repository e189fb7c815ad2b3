/* Buffers: the storage behind a data variable, a buffer's evaluated layout, element
 * addressing with bounds checks, and scoped allocations poisoned at birth. */
#include <inttypes.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/str.h"
#include "ir/interp/interp.h"
#include "ir/interp/simt.h"

tl_status tl__iframe_init(tl__iframe *fr, tl__interp *in, const tl_ir_func *f) {
  memset(fr, 0, sizeof *fr);
  fr->in = in;
  fr->func = f;
  size_t nv = in->nvars ? in->nvars : 1, nb = in->nbuffers ? in->nbuffers : 1;
  fr->vals = tl__calloc(nv, sizeof *fr->vals);
  fr->bound = tl__calloc(nv, 1);
  fr->layouts = tl__calloc(nb, sizeof *fr->layouts);
  if (!fr->vals || !fr->bound || !fr->layouts) {
    tl__iframe_free(fr);
    return tl__oom();
  }
  return TL_OK;
}

void tl__iframe_free(tl__iframe *fr) {
  tl__interp_free_to(fr, NULL);
  if (fr->layouts)
    for (uint32_t i = 0; i < fr->in->nbuffers; i++) tl__free(fr->layouts[i].dims);
  tl__free(fr->vals);
  tl__free(fr->bound);
  tl__free(fr->layouts);
  fr->vals = NULL;
  fr->bound = NULL;
  fr->layouts = NULL;
}

tl_status tl__interp_storage(tl__iframe *fr, const tl_ir_buffer *buf, tl_ir_span span, tl__istore **out) {
  const tl_ir_var *d = buf->data;
  if (!d || d->id >= fr->in->nvars || fr->bound[d->id] != TL__BOUND_STORAGE || !fr->vals[d->id].p)
    return tl__interp_error(TL_EINVAL, span, "buffer '%s' is used where it is not allocated", buf->name);
  *out = fr->vals[d->id].p;
  return TL_OK;
}

/* Appends "[a, b, c]" to sb. */
static void append_list(tl__sb *sb, const int64_t *v, uint32_t n) {
  tl__sb_putc(sb, '[');
  for (uint32_t i = 0; i < n; i++) tl__sb_appendf(sb, "%s%" PRId64, i ? ", " : "", v[i]);
  tl__sb_putc(sb, ']');
}

tl_status tl__interp_oob(tl_ir_span span, const tl_ir_buffer *buf, const int64_t *idx, uint32_t n,
                         const int64_t *dims) {
  tl__sb sb = TL__SB_INIT;
  tl__sb_appendf(&sb, "buffer '%s' index ", buf->name);
  append_list(&sb, idx, n);
  tl__sb_append(&sb, " out of bounds for shape ");
  append_list(&sb, dims, buf->ndim);
  if (tl__sb_status(&sb) != TL_OK) {
    tl__sb_free(&sb);
    return tl__oom();
  }
  tl_status s = tl__interp_error(TL_ERUNTIME, span, "%s", tl__sb_str(&sb));
  tl__sb_free(&sb);
  return s;
}

tl_status tl__interp_layout_eval(tl__iframe *fr, const tl_ir_buffer *buf, tl_ir_span span) {
  if (buf->id >= fr->in->nbuffers)
    return tl__interp_error(TL_EINVAL, span, "buffer '%s' does not belong to the module", buf->name);
  tl__ilayout *l = &fr->layouts[buf->id];
  if (!l->dims && buf->ndim) {
    l->dims = tl__calloc(2 * (size_t)buf->ndim, sizeof *l->dims);
    if (!l->dims) return tl__oom();
  }
  l->ready = false;
  if (buf->ndim && !buf->shape) return tl__interp_error(TL_EINVAL, span, "buffer '%s' has no shape", buf->name);
  int64_t *dims = l->dims, *strides = l->dims + buf->ndim;
  for (uint32_t i = 0; i < buf->ndim; i++) {
    TL__TRY(tl__interp_eval_int(fr, buf->shape[i], &dims[i]));
    if (dims[i] < 0)
      return tl__interp_error(TL_ERUNTIME, span, "buffer '%s' has a negative extent %" PRId64 " in dimension %u",
                              buf->name, dims[i], i);
  }
  if (buf->strides) {
    for (uint32_t i = 0; i < buf->ndim; i++) TL__TRY(tl__interp_eval_int(fr, buf->strides[i], &strides[i]));
  } else {
    int64_t st = 1;
    for (uint32_t i = buf->ndim; i-- > 0;) {
      strides[i] = st;
      st *= dims[i] > 0 ? dims[i] : 1;
    }
  }
  l->ready = true;
  return TL_OK;
}

tl_status tl__interp_layout(tl__iframe *fr, const tl_ir_buffer *buf, tl_ir_span span, const int64_t **dims,
                            const int64_t **strides) {
  if (buf->id >= fr->in->nbuffers || !fr->layouts[buf->id].ready) TL__TRY(tl__interp_layout_eval(fr, buf, span));
  const tl__ilayout *l = &fr->layouts[buf->id];
  *dims = l->dims;
  *strides = l->dims ? l->dims + buf->ndim : NULL;
  return TL_OK;
}

tl_status tl__interp_addr(tl__iframe *fr, const tl_ir_buffer *buf, const int64_t *idx, uint32_t n, tl_ir_span span,
                          char **out) {
  if (n != buf->ndim)
    return tl__interp_error(TL_EINVAL, span, "buffer '%s' has %u dimension%s but is indexed with %u", buf->name,
                            buf->ndim, buf->ndim == 1 ? "" : "s", n);
  tl__istore *st;
  TL__TRY(tl__interp_storage(fr, buf, span, &st));
  const int64_t *dims, *strides;
  TL__TRY(tl__interp_layout(fr, buf, span, &dims, &strides));
  int64_t off = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (idx[i] < 0 || idx[i] >= dims[i]) return tl__interp_oob(span, buf, idx, n, dims);
    off += idx[i] * strides[i];
  }
  size_t esz = tl_dtype_bytes(tl_dtype_scalar(buf->dtype));
  /* A view (a flattened or re-declared buffer) may claim more than its memory holds. */
  if (off < 0 || ((uint64_t)off + 1) * esz > st->nbytes) {
    tl__sb sb = TL__SB_INIT;
    append_list(&sb, idx, n);
    tl_status s = tl__sb_status(&sb) != TL_OK
                      ? tl__oom()
                      : tl__interp_error(TL_ERUNTIME, span,
                                         "buffer '%s' index %s is outside its memory (element %" PRId64 " of %zu)",
                                         buf->name, tl__sb_str(&sb), off, st->nbytes / (esz ? esz : 1));
    tl__sb_free(&sb);
    return s;
  }
  *out = st->data + (size_t)off * esz;
  return TL_OK;
}

/* The allocation record and its data in one block; the data follows the header at
 * an offset aligned for any scalar. */
typedef struct alloc_block {
  tl__istore store;
  tl__ival prev_val; /* the data variable's binding before this allocation */
  uint8_t prev_bound;
  _Alignas(16) char data[];
} alloc_block;

tl_status tl__interp_alloc_size(tl__iframe *fr, const tl_ir_buffer *buf, tl_ir_span span, size_t *nbytes) {
  char nb[32];
  if (buf->scope == TL_SCOPE_GLOBAL)
    return tl__interp_error(TL_EINVAL, span, "buffer '%s': global buffers are parameters, not allocations",
                            buf->name);
  tl_dtype t = tl_dtype_scalar(buf->dtype);
  if (!tl__iv_dtype_supported(t))
    return tl__interp_error(TL_EUNSUPPORTED, span, "buffer '%s': the interpreter does not support %s", buf->name,
                            tl__interp_dtype_name(t, nb));
  const tl_ir_var *d = buf->data;
  if (!d || d->id >= fr->in->nvars)
    return tl__interp_error(TL_EINVAL, span, "buffer '%s' has no data variable of the module", buf->name);
  TL__TRY(tl__interp_layout_eval(fr, buf, span));
  const int64_t *dims = fr->layouts[buf->id].dims;
  size_t esz = tl_dtype_bytes(t);
  uint64_t count = 1;
  for (uint32_t i = 0; i < buf->ndim; i++) {
    if (dims[i] != 0 && count > (UINT64_MAX / 2) / (uint64_t)dims[i] / esz)
      return tl__interp_error(TL_ERUNTIME, span, "buffer '%s' is too large to allocate", buf->name);
    count *= (uint64_t)dims[i];
  }
  if (count > (SIZE_MAX - sizeof(alloc_block)) / esz)
    return tl__interp_error(TL_ERUNTIME, span, "buffer '%s' is too large to allocate", buf->name);
  *nbytes = (size_t)count * esz;
  return TL_OK;
}

/* Pushes a record that restores buf's data variable when the scope ends; the
 * variable is then bound to target, or to the record's own data if NULL. */
static alloc_block *push_record(tl__iframe *fr, const tl_ir_buffer *buf, size_t nbytes, tl__istore *target) {
  alloc_block *b = tl__malloc(sizeof *b + nbytes);
  if (!b) return NULL;
  memset(b, 0, sizeof *b);
  const tl_ir_var *d = buf->data;
  b->store.data = target ? NULL : b->data;
  b->store.nbytes = target ? 0 : nbytes;
  b->store.owned = true;
  b->store.buffer = buf;
  b->store.next = fr->allocs;
  b->prev_val = fr->vals[d->id];
  b->prev_bound = fr->bound[d->id];
  fr->allocs = &b->store;
  tl__interp_bind_storage(fr, d, target ? target : &b->store);
  return b;
}

tl_status tl__interp_alloc(tl__iframe *fr, const tl_ir_buffer *buf, tl_ir_span span) {
  if (buf->view) { /* T.reshape / T.view: the storage its data variable is bound to */
    tl__istore *st;
    TL__TRY(tl__interp_storage(fr, buf, span, &st));
    return tl__interp_layout_eval(fr, buf, span);
  }
  if (fr->simt && (buf->scope == TL_SCOPE_SHARED || buf->scope == TL_SCOPE_SHARED_DYN))
    return tl__simt_alloc_shared(fr, buf, span); /* one instance for the whole block */
  size_t nbytes;
  TL__TRY(tl__interp_alloc_size(fr, buf, span, &nbytes));
  alloc_block *b = push_record(fr, buf, nbytes, NULL);
  if (!b) return tl__oom();
  tl_dtype t = tl_dtype_scalar(buf->dtype);
  tl__iv_poison(t, b->data, nbytes / tl_dtype_bytes(t));
  return TL_OK;
}

tl_status tl__interp_bind_scoped(tl__iframe *fr, const tl_ir_buffer *buf, tl__istore *st) {
  if (!buf->data || buf->data->id >= fr->in->nvars)
    return tl__error(TL_EINVAL, "buffer '%s' has no data variable of the module", buf->name);
  return push_record(fr, buf, 0, st) ? TL_OK : tl__oom();
}

void tl__interp_free_to(tl__iframe *fr, tl__istore *mark) {
  while (fr->allocs && fr->allocs != mark) {
    tl__istore *st = fr->allocs;
    alloc_block *b = (alloc_block *)st; /* store is the block's first member */
    fr->allocs = st->next;
    uint32_t id = st->buffer->data->id;
    fr->vals[id] = b->prev_val;
    fr->bound[id] = b->prev_bound;
    tl__free(b);
  }
}
