/* Packing a kernel table into one allocation (see kernel_table.h): measure
 * every array and string, allocate once, copy. */
#include <stdalign.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "kernel_table/kernel_table.h"

/* A cursor over the block: with `base` NULL it only measures. */
typedef struct packer {
  char *base;
  size_t off;
} packer;

static void *take(packer *p, size_t n, size_t align) {
  p->off = (p->off + align - 1) / align * align;
  void *r = p->base ? p->base + p->off : NULL;
  p->off += n;
  return r;
}

static const char *put_str(packer *p, const char *s) {
  if (!s) s = "";
  size_t n = strlen(s) + 1;
  char *d = take(p, n, 1);
  if (d) memcpy(d, s, n);
  return d;
}

static void *put_array(packer *p, const void *src, size_t count, size_t elem, size_t align) {
  if (count == 0) return NULL;
  void *d = take(p, count * elem, align);
  if (d) memcpy(d, src, count * elem);
  return d;
}

static tl_launch_expr put_lexpr(packer *p, tl_launch_expr e) {
  tl_launch_expr r = {e.n, put_array(p, e.code, e.n, sizeof *e.code, alignof(tl_lexpr_insn))};
  return r;
}

/* One pass of packing: measures (p->base NULL) or copies into the block. */
static tl_kernel_table *pack(packer *p, const tl_kernel_table *s) {
  tl_kernel_table *t = take(p, sizeof *t, alignof(tl_kernel_table));
  tl_host_param *params = put_array(p, s->params, s->nparams, sizeof *params, alignof(tl_host_param));
  tl_host_sym *syms = put_array(p, s->syms, s->nsyms, sizeof *syms, alignof(tl_host_sym));
  tl_kernel_launch *launches = put_array(p, s->launches, s->nlaunches, sizeof *launches, alignof(tl_kernel_launch));
  const char *entry = put_str(p, s->entry);
  for (uint32_t i = 0; i < s->nparams; i++) {
    const tl_host_param *sp = &s->params[i];
    const char *name = put_str(p, sp->name);
    const tl_host_dim *dims = put_array(p, sp->dims, sp->ndim, sizeof *sp->dims, alignof(tl_host_dim));
    if (params) {
      params[i].name = name;
      params[i].dims = dims;
    }
  }
  for (uint32_t i = 0; i < s->nsyms; i++) {
    const char *name = put_str(p, s->syms[i].name);
    if (syms) syms[i].name = name;
  }
  for (uint32_t i = 0; i < s->nlaunches; i++) {
    const tl_kernel_launch *sl = &s->launches[i];
    const char *symbol = put_str(p, sl->symbol);
    const tl_kernel_arg *args = put_array(p, sl->args, sl->nargs, sizeof *sl->args, alignof(tl_kernel_arg));
    tl_launch_expr grid[3], block[3];
    for (int d = 0; d < 3; d++) {
      grid[d] = put_lexpr(p, sl->grid[d]);
      block[d] = put_lexpr(p, sl->block[d]);
    }
    tl_launch_expr smem = put_lexpr(p, sl->dyn_shared_bytes);
    if (launches) {
      launches[i].symbol = symbol;
      launches[i].args = args;
      memcpy(launches[i].grid, grid, sizeof grid);
      memcpy(launches[i].block, block, sizeof block);
      launches[i].dyn_shared_bytes = smem;
    }
  }
  if (t) {
    *t = *s;
    t->entry = entry;
    t->params = params;
    t->syms = syms;
    t->launches = launches;
  }
  return t;
}

static tl_status check_lexpr(tl_launch_expr e, uint32_t launch, const char *what) {
  if (e.n && !e.code) return tl__error(TL_EINVAL, "kernel table: launch %u: %s has %u instructions but no code", launch, what, e.n);
  return TL_OK;
}

/* Arrays with a count must be there. */
static tl_status check(const tl_kernel_table *s) {
  if (s->nparams && !s->params) return tl__error(TL_EINVAL, "kernel table: %u parameters but no array", s->nparams);
  if (s->nsyms && !s->syms) return tl__error(TL_EINVAL, "kernel table: %u symbolic dims but no array", s->nsyms);
  if (s->nlaunches && !s->launches) return tl__error(TL_EINVAL, "kernel table: %u launches but no array", s->nlaunches);
  for (uint32_t i = 0; i < s->nparams; i++)
    if (s->params[i].ndim && !s->params[i].dims)
      return tl__error(TL_EINVAL, "kernel table: parameter %u has %u dims but no array", i, s->params[i].ndim);
  for (uint32_t i = 0; i < s->nlaunches; i++) {
    const tl_kernel_launch *l = &s->launches[i];
    if (l->nargs && !l->args) return tl__error(TL_EINVAL, "kernel table: launch %u has %u arguments but no array", i, l->nargs);
    for (int d = 0; d < 3; d++) {
      TL__TRY(check_lexpr(l->grid[d], i, "a grid extent"));
      TL__TRY(check_lexpr(l->block[d], i, "a block extent"));
    }
    TL__TRY(check_lexpr(l->dyn_shared_bytes, i, "the dynamic shared memory size"));
  }
  return TL_OK;
}

tl_status tl__kernel_table_pack(const tl_kernel_table *src, tl_kernel_table **out) {
  *out = NULL;
  if (!src) return tl__error(TL_EINVAL, "kernel table: NULL table");
  TL__TRY(check(src));
  packer m = {NULL, 0};
  pack(&m, src);
  packer p = {tl__malloc(m.off), 0};
  if (!p.base) return tl__oom();
  *out = pack(&p, src);
  return TL_OK;
}
