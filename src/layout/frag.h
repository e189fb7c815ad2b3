/* Fragment layouts as data (docs/layouts.md).
 *
 * A fragment of shape (d0, ..., dn-1) is spread over the `threads` threads of a
 * block, each holding `slots` values in a per-thread array. The layout is a
 * mixed-radix digit map, in the spirit of Triton's linear layouts but over any
 * radix (tiles of 96 or thread counts of 192 are ordinary here):
 *
 *   - the dims are grouped into axes: runs of consecutive dims whose row-major
 *     flat index u_a is what the digits split (usually one dim per axis;
 *     tl__frag_canonical splits every axis it can);
 *   - every digit has an extent x, a place p in its axis and a stride q in the
 *     thread index or the slot index: its value is (u_a / p) % x, and it adds
 *     value * q to the thread (or slot) that owns the element;
 *   - the digits of one axis, ordered by place, form a mixed radix starting at
 *     place 1, and so do the thread digits and the slot digits ordered by stride
 *     (their extents multiply to `threads` and `slots`);
 *   - a replication digit (axis -1) is a thread digit tied to no index: the
 *     threads that differ only in it hold copies of the same elements;
 *   - an axis whose digits multiply to more than its extent has holes: the
 *     (thread, slot) pairs whose u_a reaches past the extent hold nothing
 *     (today's SIMT layouts where the thread grid overhangs the tile).
 *
 * So, for element x with axis indices u_a and a replica r (a mixed-radix number
 * over the replication digits):
 *   thread(x, r) = sum over thread digits of ((u_axis / place) % extent) * stride
 *                  + sum over replication digits of r_digit * stride
 *   slot(x)      = sum over slot digits of ((u_axis / place) % extent) * stride
 * and the inverse reads the digits back out of (thread, slot) by div/mod. Both
 * directions, the IR expressions for them, equality, projection, repetition and
 * the printer are derived from the one digit list: there is no hand-written
 * inverse anywhere.
 *
 * Values of this type are plain structs (no allocation); functions that can be
 * given an impossible request return TL_EINVAL with a message naming it. */
#ifndef TL_LAYOUT_FRAG_H
#define TL_LAYOUT_FRAG_H

#include <stdbool.h>
#include <stdint.h>

#include "tilelang/base.h"
#include "tilelang/ir.h"

#define TL__FRAG_MAX_DIMS 16
#define TL__FRAG_MAX_DIGITS 64
/* The most threads, slots or elements a layout has: larger ones are not
 * fragments a block can hold, and the bound keeps every product of extents,
 * places and strides far from overflow. */
#define TL__FRAG_MAX_COUNT ((int64_t)1 << 31)

typedef enum tl__frag_space {
  TL__FRAG_THREAD = 0, /* a digit of the thread index */
  TL__FRAG_SLOT = 1    /* a digit of the per-thread slot index */
} tl__frag_space;

typedef struct tl__frag_digit {
  int64_t extent; /* >= 1 (canonical form: >= 2) */
  int64_t place;  /* weight in its axis's flat index; 0 for a replication digit */
  int64_t stride; /* weight in the thread or slot index */
  int32_t axis;   /* the axis it is a digit of; -1: a replication digit */
  int32_t space;  /* tl__frag_space (replication digits: TL__FRAG_THREAD) */
} tl__frag_digit;

typedef struct tl__frag {
  uint32_t ndim;
  int64_t shape[TL__FRAG_MAX_DIMS];
  uint32_t naxes;
  uint32_t axis_dims[TL__FRAG_MAX_DIMS + 1]; /* axis a: dims [axis_dims[a], axis_dims[a+1]); [naxes] = ndim */
  int64_t threads, slots;
  uint32_t ndigits;
  tl__frag_digit d[TL__FRAG_MAX_DIGITS];
} tl__frag;

/* ------------------------------------------------------------- the map */

/* TL_OK if L is well formed (the mixed-radix rules above); else TL_EINVAL naming
 * the first rule it breaks. Every constructor's result passes. */
tl_status tl__frag_check(const tl__frag *L);
/* How many threads hold each element (the replication digits' extents multiplied). */
int64_t tl__frag_replicas(const tl__frag *L);
/* The fragment's element count (its shape multiplied). */
int64_t tl__frag_elements(const tl__frag *L);
/* The owner of element idx[0..ndim) in replica r (0 <= r < tl__frag_replicas). */
void tl__frag_owner(const tl__frag *L, const int64_t *idx, int64_t replica, int64_t *thread, int64_t *slot);
/* True if `thread` holds element idx (in some replica). */
bool tl__frag_holds(const tl__frag *L, int64_t thread, const int64_t *idx);
/* The element (thread, slot) holds, into idx[0..ndim); false for a hole or a pair
 * out of range. */
bool tl__frag_element(const tl__frag *L, int64_t thread, int64_t slot, int64_t *idx);
/* True if some (thread, slot) pair holds nothing. */
bool tl__frag_has_holes(const tl__frag *L);

/* ------------------------------------------------------- structure */

/* The canonical form of the same map: every axis split into single dims where the
 * digits allow, digits of extent 1 dropped, adjacent digits merged where they are
 * contiguous in both their axis and their space, digits sorted (axis, place;
 * replication digits last, by stride). Equal maps have equal canonical forms. */
void tl__frag_canonical(const tl__frag *in, tl__frag *out);
/* Same shape, thread count, slot count and map (canonical forms compared). */
bool tl__frag_equal(const tl__frag *a, const tl__frag *b);
/* The layout as stable text, one line per axis and one for the copies:
 *   fragment [16, 8] over 32 threads x 4 slots
 *     i0 = 8*((s/2)%2) + (t/4)%8
 *     i1 = 2*(t%4) + s%2
 * (t: the thread, s: the slot; an axis of several dims prints as [i0, i1], its
 * row-major flat index; "(only where < E)" marks an axis with holes). A fresh
 * string (tl__free); NULL on out of memory (message set). */
char *tl__frag_print(const tl__frag *L);

/* ------------------------------------------------------ constructors */

/* Every thread holds every element: slot = the row-major flat index, and one
 * replication digit of extent `threads`. */
tl_status tl__frag_replicated(int64_t threads, const int64_t *shape, uint32_t ndim, tl__frag *out);

/* The grid layout of gpu.h's tl__gpu_layout with its parameters given: columns
 * in blocks of V, rows in blocks of mr, TC threads across (T / TC down); element
 * (r, c) at thread ((r/mr)%TR)*TC + (c/V)%TC, slot ((rr*RC + rc)*mr + r%mr)*V + c%V.
 * V = 2, mr = 2, TC = 4 is the accumulator of mma.sync.m16n8k16. */
tl_status tl__frag_grid(int64_t threads, const int64_t *shape, uint32_t ndim, int64_t V, int64_t mr, int64_t TC,
                        tl__frag *out);

/* Today's SIMT layout (src/transform/gpu/layout.c, tl__gpu_layout_choose) as
 * data: the buffer viewed as R rows (its leading dims) by C columns (its last
 * dim); V, TC, TR and mr chosen exactly as that chooser does (gpu.h has the
 * formula), and element (r, c) at thread ((r/mr)%TR)*TC + (c/V)%TC, slot
 * ((rr*RC + rc)*mr + r%mr)*V + c%V. */
tl_status tl__frag_simt(int64_t threads, const int64_t *shape, uint32_t ndim, int64_t elem_bytes, int64_t vector_bytes,
                        bool gemm, tl__frag *out);

/* The instruction maps of mma.sync m16n8k16 with f16/bf16 operands (PTX ISA,
 * "Matrix Fragments for mma.m16n8k16"), over one warp (32 threads), with
 * g = lane/4 and q = lane%4:
 *   accumulator C/D [16 m, 8 n], 4 slots:  row g + 8*(s/2),      col 2q + s%2
 *   operand A [16 m, 16 k], 8 slots:       row g + 8*((s/2)%2),  col 2q + s%2 + 8*(s/4)
 *   operand B [16 k, 8 n], 4 slots:        row 2q + s%2 + 8*(s/2), col g */
void tl__frag_mma_c_atom(tl__frag *out);
void tl__frag_mma_a_atom(tl__frag *out);
void tl__frag_mma_b_atom(tl__frag *out);

/* Block-level mma.sync layouts as upstream TileLang builds them for a block of
 * m_warp x n_warp warps (warp w = wm + m_warp*wn, each owning a warp_m x warp_n
 * tile, warp_m = block_m/m_warp, warp_n = block_n/n_warp):
 *   C [block_m, block_n]: the C atom repeated over the warp's atoms on slots
 *     (atom (ai, aj) at slot base 4*(ai*(warp_n/8) + aj)), then over the warps;
 *   A [block_m, block_k] (transposed: [block_k, block_m]): the A atom repeated
 *     over (m atoms, k atoms) on slots m-fastest, over the m warps, and
 *     replicated over the n warps;
 *   B [block_k, block_n] (transposed: [block_n, block_k]): the B atom repeated
 *     over (k atoms, n atoms) on slots n-fastest, replicated over the m warps,
 *     and repeated over the n warps.
 * TL_EINVAL when a warp's tile is not a whole number of atoms. */
tl_status tl__frag_mma_c(int64_t block_m, int64_t block_n, int64_t m_warp, int64_t n_warp, tl__frag *out);
tl_status tl__frag_mma_a(int64_t block_m, int64_t block_k, int64_t m_warp, int64_t n_warp, bool transposed,
                         tl__frag *out);
tl_status tl__frag_mma_b(int64_t block_k, int64_t block_n, int64_t m_warp, int64_t n_warp, bool transposed,
                         tl__frag *out);

/* The wgmma m64nNk16 accumulator (PTX ISA, "Matrix fragments for wgmma ... D"):
 * warp w of a warpgroup owns rows 16w..16w+15 of each 64-row instruction tile,
 * and within its warp the m16n8 C atom repeats over N/8 columns on slots
 * (slot = 4*(col/8) + C-atom slot). Over a block of m_warp x n_warp warps
 * (m_warp a multiple of 4) as upstream's makeGemmFragmentCHopper: the warps'
 * 16-row tiles stacked (warp w = wm + m_warp*wn), then repeated on slots over
 * block_m / (16*m_warp) row tiles. */
tl_status tl__frag_wgmma_c(int64_t block_m, int64_t block_n, int64_t m_warp, int64_t n_warp, tl__frag *out);

/* ------------------------------------------------------- operations */

/* Upstream's Fragment::Repeat: shape[d] *= reps[d]; the copy of the layout for
 * repeat (k0, .., kn-1) is offset by `base * index` in `space`, base being the
 * input's thread (or slot) count and index the repeat's mixed-radix number,
 * last dim fastest or first dim fastest. Each repeated dim must be an axis of
 * its own without holes. */
tl_status tl__frag_repeat(const tl__frag *in, const int64_t *reps, tl__frag_space space, bool last_dim_fastest,
                          tl__frag *out);
/* Upstream's Fragment::Replicate: `k` copies on higher thread indices. */
tl_status tl__frag_replicate(const tl__frag *in, int64_t k, tl__frag *out);
/* Keeps dims keep[0..nkeep) (increasing), dropping the others: their slot digits
 * vanish (the remaining slots renumbered in order), their thread digits become
 * replication digits (a row vector of a 2-D fragment, replicated over the
 * threads that share a row). Each dropped dim must be an axis of its own. */
tl_status tl__frag_project(const tl__frag *in, const uint32_t *keep, uint32_t nkeep, tl__frag *out);
/* Dim k of the result is dim perm[k] of the input (a transpose). */
tl_status tl__frag_permute(const tl__frag *in, const uint32_t *perm, tl__frag *out);

/* The same threads and slots viewed with another shape of as many elements
 * (row-major order kept: upstream's Fragment::Reshape), i.e. L composed with
 * the reshape. TL_EINVAL when the counts differ, or when an axis other than the
 * first has holes (its holes would land inside the merged index). */
tl_status tl__frag_reshape(const tl__frag *in, const int64_t *shape, uint32_t ndim, tl__frag *out);

/* What moving a fragment from layout `from` to layout `to` (same shape and
 * thread count) costs: the composition to^-1 . from, element by element. */
typedef enum tl__frag_conv {
  TL__FRAG_CONV_SAME,      /* the same map: no data moves */
  TL__FRAG_CONV_IN_THREAD, /* every thread already holds what it needs (slots move) */
  TL__FRAG_CONV_IN_WARP,   /* each value comes from a thread of the same warp (shuffles) */
  TL__FRAG_CONV_SHARED     /* some value crosses warps (through shared memory) */
} tl__frag_conv;
tl_status tl__frag_conversion(const tl__frag *from, const tl__frag *to, int64_t warp_size, tl__frag_conv *out);
const char *tl__frag_conv_name(tl__frag_conv c);

/* How a reduction over dim `dim` runs on layout L (the destination's layout is
 * tl__frag_project(L, the other dims)): the dim's slot digits fold inside each
 * thread, the parts of its thread digits below the warp boundary (a digit
 * straddling it split there) are a butterfly of xor shuffles, and the rest
 * cross warps. */
typedef struct tl__frag_reduce_plan {
  int64_t in_thread;    /* values of the dim each thread folds (its slot digits' extents multiplied) */
  uint32_t nshuffles;   /* xor shuffle steps, in order */
  int64_t xor_mask[32]; /* lane masks: stride, 2*stride, ... of each lane digit */
  int64_t cross_warp;   /* threads of other warps holding parts of one result (> 1: shared memory) */
  bool holes;           /* some pairs hold nothing: fold them as the reduction's identity */
} tl__frag_reduce_plan;
/* TL_EINVAL when dim shares its digits with other dims. warp_size <= 1: no
 * shuffles (every thread digit crosses "warps"). */
tl_status tl__frag_reduce_plan_of(const tl__frag *L, uint32_t dim, int64_t warp_size, tl__frag_reduce_plan *out);

/* ------------------------------------------------------ IR expressions */

/* The element (thread, slot) holds, as int32 expressions idx[0..ndim) of
 * `thread` and `slot`; *valid is NULL when the layout has no holes, else the
 * condition that the pair holds an element. TL_EINVAL for NULL inputs,
 * TL_ENOMEM when a node cannot be built. */
tl_status tl__frag_element_exprs(tl_ir_module *mod, const tl__frag *L, tl_ir_expr *thread, tl_ir_expr *slot,
                                 tl_ir_expr **idx, tl_ir_expr **valid);
/* The owner of element idx[0..ndim) in replica 0 (thread and slot expressions). */
tl_status tl__frag_owner_exprs(tl_ir_module *mod, const tl__frag *L, tl_ir_expr *const *idx, tl_ir_expr **thread,
                               tl_ir_expr **slot);

#endif
