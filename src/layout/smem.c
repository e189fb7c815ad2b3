/* Shared-memory layouts: constructors, choosers, the address map and its IR
 * expression, all from the one description in smem.h. */
#include "layout/smem.h"

#include "base/error.h"
#include "base/str.h"

const char *tl__smem_kind_name(tl__smem_kind k) {
  switch (k) {
  case TL__SMEM_LINEAR: return "linear";
  case TL__SMEM_PADDED: return "padded";
  case TL__SMEM_SWIZZLE_32B: return "swizzle 32B";
  case TL__SMEM_SWIZZLE_64B: return "swizzle 64B";
  case TL__SMEM_SWIZZLE_128B: return "swizzle 128B";
  }
  return "?";
}

static tl_status tile(int64_t rows, int64_t cols, int64_t eb, tl__smem_kind kind, tl__smem_layout *out) {
  if (rows < 1 || cols < 1 || (eb != 1 && eb != 2 && eb != 4 && eb != 8))
    return tl__error(TL_EINVAL, "a %s shared layout of %lld x %lld elements of %lld bytes", tl__smem_kind_name(kind),
                     (long long)rows, (long long)cols, (long long)eb);
  *out = (tl__smem_layout){kind, rows, cols, eb, cols, 16 / eb, 0};
  return TL_OK;
}

tl_status tl__smem_linear(int64_t rows, int64_t cols, int64_t elem_bytes, tl__smem_layout *out) {
  return tile(rows, cols, elem_bytes, TL__SMEM_LINEAR, out);
}

tl_status tl__smem_padded(int64_t rows, int64_t cols, int64_t elem_bytes, tl__smem_layout *out) {
  TL__TRY(tile(rows, cols, elem_bytes, TL__SMEM_PADDED, out));
  /* 16 bytes more a row when rows are whole multiples of 32 bytes, which is when
   * 8 consecutive rows would otherwise start in the same bank. */
  if ((cols * elem_bytes) % 32 == 0) out->pitch += 16 / elem_bytes;
  return TL_OK;
}

static int64_t chunks_of(tl__smem_kind k) {
  return k == TL__SMEM_SWIZZLE_32B ? 2 : k == TL__SMEM_SWIZZLE_64B ? 4 : k == TL__SMEM_SWIZZLE_128B ? 8 : 0;
}

tl_status tl__smem_swizzle(tl__smem_kind kind, int64_t rows, int64_t cols, int64_t elem_bytes, tl__smem_layout *out) {
  int64_t w = chunks_of(kind);
  if (!w) return tl__error(TL_EINVAL, "tl__smem_swizzle: %s is not a swizzle", tl__smem_kind_name(kind));
  TL__TRY(tile(rows, cols, elem_bytes, kind, out));
  if (rows % 8 || cols % (out->vec * w))
    return tl__error(TL_EINVAL,
                     "a %s shared layout needs rows in whole atoms of 8 and rows of whole %lld-byte atom rows: a %lld "
                     "x %lld tile of %lld-byte elements is not one",
                     tl__smem_kind_name(kind), (long long)(16 * w), (long long)rows, (long long)cols,
                     (long long)elem_bytes);
  out->atom_chunks = w;
  return TL_OK;
}

tl_status tl__smem_choose_mma(int64_t rows, int64_t cols, int64_t elem_bytes, bool k_inner, tl__smem_layout *out) {
  if (elem_bytes == 8 || (elem_bytes == 1 && !k_inner) || rows % 8) return tl__smem_padded(rows, cols, elem_bytes, out);
  const tl__smem_kind widest[2] = {TL__SMEM_SWIZZLE_128B, TL__SMEM_SWIZZLE_64B};
  for (int i = 0; i < 2; i++)
    if (elem_bytes > 0 && 16 % elem_bytes == 0 && cols % ((16 / elem_bytes) * chunks_of(widest[i])) == 0)
      return tl__smem_swizzle(widest[i], rows, cols, elem_bytes, out);
  return tl__smem_padded(rows, cols, elem_bytes, out);
}

tl_status tl__smem_choose_wgmma(int64_t rows, int64_t cols, int64_t elem_bytes, tl__smem_layout *out) {
  if (elem_bytes != 1 && elem_bytes != 2 && elem_bytes != 4)
    return tl__error(TL_EINVAL, "wgmma operands of %lld-byte elements do not exist", (long long)elem_bytes);
  int64_t vec = 16 / elem_bytes;
  const tl__smem_kind widest[3] = {TL__SMEM_SWIZZLE_128B, TL__SMEM_SWIZZLE_64B, TL__SMEM_SWIZZLE_32B};
  if (rows % 8 == 0)
    for (int i = 0; i < 3; i++)
      if (cols % (vec * chunks_of(widest[i])) == 0) return tl__smem_swizzle(widest[i], rows, cols, elem_bytes, out);
  if (cols % vec == 0) return tl__smem_linear(rows, cols, elem_bytes, out);
  return tl__error(TL_EINVAL,
                   "a %lld x %lld tile of %lld-byte elements has no shared layout wgmma and TMA can read: its rows are "
                   "not whole 16-byte chunks",
                   (long long)rows, (long long)cols, (long long)elem_bytes);
}

int64_t tl__smem_span(const tl__smem_layout *L) { return L->rows * (chunks_of(L->kind) ? L->cols : L->pitch); }

int64_t tl__smem_offset(const tl__smem_layout *L, int64_t row, int64_t col) {
  int64_t w = chunks_of(L->kind);
  if (!w) return row * L->pitch + col;
  int64_t s = row % 8, c = col / L->vec, v = col % L->vec;
  int64_t cc = (c % w) ^ (s / (8 / w));
  return ((c / w) * (L->rows / 8) + row / 8) * (8 * w * L->vec) + (s * w + cc) * L->vec + v;
}

bool tl__smem_swizzle_bits(const tl__smem_layout *L, int *b, int *m, int *s) {
  int64_t w = chunks_of(L->kind);
  if (!w) return false;
  *b = w == 2 ? 1 : w == 4 ? 2 : 3;
  *m = 4;
  *s = 3;
  return true;
}

bool tl__smem_equal(const tl__smem_layout *a, const tl__smem_layout *b) {
  return a->kind == b->kind && a->rows == b->rows && a->cols == b->cols && a->elem_bytes == b->elem_bytes &&
         (chunks_of(a->kind) ? a->atom_chunks == b->atom_chunks : a->pitch == b->pitch);
}

char *tl__smem_print(const tl__smem_layout *L) {
  tl__sb sb = TL__SB_INIT;
  tl__sb_appendf(&sb, "%s [%lld, %lld] x %lld bytes: ", tl__smem_kind_name(L->kind), (long long)L->rows,
                 (long long)L->cols, (long long)L->elem_bytes);
  int b, m, s;
  if (tl__smem_swizzle_bits(L, &b, &m, &s))
    tl__sb_appendf(&sb, "Swizzle<%d,%d,%d> on bytes, atoms 8 x %lld bytes, column-block-major", b, m, s,
                   (long long)(16 * L->atom_chunks));
  else
    tl__sb_appendf(&sb, "row*%lld + col", (long long)L->pitch);
  return tl__sb_finish(&sb);
}

static tl_ir_expr *c32(tl_ir_module *mod, int64_t v) { return tl_ir_i32(mod, v); }
static tl_ir_expr *bin(tl_ir_module *mod, tl_ir_binop op, tl_ir_expr *a, int64_t k) {
  return tl_ir_binary(mod, op, a, c32(mod, k));
}

tl_status tl__smem_offset_expr(tl_ir_module *mod, const tl__smem_layout *L, tl_ir_expr *row, tl_ir_expr *col,
                               tl_ir_expr **out) {
  if (!mod || !L || !row || !col || !out)
    return tl__error(TL_EINVAL, "tl__smem_offset_expr: a required argument is NULL");
  int64_t w = chunks_of(L->kind);
  tl_ir_expr *e;
  if (!w) {
    e = tl_ir_binary(mod, TL_BIN_ADD, bin(mod, TL_BIN_MUL, row, L->pitch), col);
  } else {
    tl_ir_expr *s = bin(mod, TL_BIN_FLOORMOD, row, 8), *c = bin(mod, TL_BIN_FLOORDIV, col, L->vec);
    tl_ir_expr *v = bin(mod, TL_BIN_FLOORMOD, col, L->vec);
    tl_ir_expr *key = 8 / w > 1 ? bin(mod, TL_BIN_FLOORDIV, s, 8 / w) : s;
    tl_ir_expr *cc = tl_ir_binary(mod, TL_BIN_BITXOR, bin(mod, TL_BIN_FLOORMOD, c, w), key);
    tl_ir_expr *atom = tl_ir_binary(mod, TL_BIN_ADD, bin(mod, TL_BIN_MUL, bin(mod, TL_BIN_FLOORDIV, c, w), L->rows / 8),
                                    bin(mod, TL_BIN_FLOORDIV, row, 8));
    tl_ir_expr *inner = tl_ir_binary(mod, TL_BIN_ADD, bin(mod, TL_BIN_MUL, s, w), cc);
    e = tl_ir_binary(
        mod, TL_BIN_ADD,
        tl_ir_binary(mod, TL_BIN_ADD, bin(mod, TL_BIN_MUL, atom, 8 * w * L->vec), bin(mod, TL_BIN_MUL, inner, L->vec)),
        v);
  }
  if (!e) return tl__oom();
  *out = e;
  return TL_OK;
}
