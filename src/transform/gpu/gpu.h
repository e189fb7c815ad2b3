/* The shared GPU lowering: from tile-level kernels (T.Kernel, T.Parallel,
 * fragments, tile ops) to SIMT device kernels (docs/lowering.md, "GPU-lowered
 * device kernels", "GPU layouts", "GPU pipeline").
 *
 * One concern per file:
 *   params.c         the parameters a GPU pipeline lowers with, from its target
 *   layout.c         fragment layouts and how each T.Parallel loop is distributed
 *   lower_simt.c     the pass gpu_lower_simt: thread binding, T.Parallel loops,
 *                    fragments as per-thread buffers, block-level statements
 *   gemm.c           T.gemm over a distributed accumulator (register micro-tiles)
 *   gemm_mma.c       T.gemm on the tensor cores (ldmatrix, mma.sync)
 *   pad_shared.c     the pass gpu_pad_shared (conflict-free rows for ldmatrix)
 *   software_pipeline.c  the pass gpu_software_pipeline (T.Pipelined's stages)
 *   async_copy.c     the pass gpu_async_copy (cp.async for the stages' copies)
 *   reduce.c         T.reduce_* (per-thread partials, warp shuffles, shared memory)
 *   scan.c           T.cumsum (one thread per line)
 *   shared_memory.c  the pass gpu_plan_shared_memory (hoisting, static or dynamic)
 *   uniform.c        which values and statements are the same in every thread
 *   barriers.c       the pass gpu_insert_barriers
 *   vectorize.c      the pass gpu_vectorize (vector loads and stores, alignment)
 *   walk.c           walking a module's functions and rebuilding kernels
 *
 * The passes have the ordinary pass signature; the parameters reach them through
 * tl__gpu_params_current(), set by tl__gpu_lower (src/backends/gpu_pipeline.c)
 * around the pass list (a thread-local, like the compilation session). */
#ifndef TL_TRANSFORM_GPU_GPU_H
#define TL_TRANSFORM_GPU_GPU_H

#include <stdbool.h>
#include <stdint.h>

#include "base/vec.h"
#include "layout/frag.h"
#include "tilelang/ir.h"
#include "tilelang/target.h"

/* The most dimensions a buffer, region, index list or T.Parallel nest may have
 * on GPU targets: the lowering builds index lists in arrays of this size.
 * tl__gpu_check_ranks rejects more before any of them is filled. */
#define TL__GPU_MAX_RANK 16

/* ------------------------------------------------------------------ walk */

/* TL_EUNSUPPORTED, at the node, if something in kernel k has more than
 * TL__GPU_MAX_RANK dimensions (a buffer, region, load, store or loop nest). */
tl_status tl__gpu_check_ranks(const tl_ir_stmt *k);

/* Kernel k (TL_STMT_KERNEL) with `body` (k itself when body is k's): extents, block
 * and thread variables and source span kept. NULL on failure (status set). */
tl_ir_stmt *tl__gpu_kernel_with_body(tl_ir_module *mod, const tl_ir_stmt *k, tl_ir_stmt *body);
/* Runs mu over the body of every function with the default calling convention (the
 * ones holding kernels), replacing each; mu's status on failure. */
tl_status tl__gpu_mutate_functions(tl_ir_module *mod, tl_ir_mutator *mu);

/* ---------------------------------------------------------------- params */

typedef struct tl__gpu_params {
  int64_t warp_size;           /* lanes exchanging with T.warp_shfl_xor; <= 1: no shuffles (shared memory only) */
  int64_t max_threads;         /* threads per block */
  int64_t max_shared_bytes;    /* shared memory per block, static and dynamic together */
  int64_t static_shared_bytes; /* a kernel needing more uses dynamic shared memory (CUDA: 48 KB) */
  int64_t vector_bytes;        /* the widest vector access (16) */
  const char *launch_convention; /* module attribute tl.launch_convention ("cuda_driver") */
  /* Warp-collective tensor-core instructions the target has (bits of
   * TL__GPU_MMA_*): T.gemm uses them where its operands fit (gemm_mma.c). */
  unsigned mma;
  /* Asynchronous global -> shared copies (cp.async, NVIDIA sm_80 and later):
   * T.Pipelined loops with num_stages >= 2 get multi-buffered, prefetched
   * stages (software_pipeline.c, async_copy.c). */
  bool cp_async;
} tl__gpu_params;

/* mma.sync.m16n8k16 with float16 or bfloat16 operands and float32 accumulators
 * (NVIDIA sm_80 and later). */
#define TL__GPU_MMA_M16N8K16 1u

/* The parameters of the running GPU pipeline (tl__gpu_params_enter), or NULL. */
const tl__gpu_params *tl__gpu_params_current(void);
/* Makes p current on this thread; returns the previous one for tl__gpu_params_exit. */
const tl__gpu_params *tl__gpu_params_enter(const tl__gpu_params *p);
void tl__gpu_params_exit(const tl__gpu_params *previous);
/* The current parameters, or (a pass run on its own) ones read from the target with
 * tl__gpu_params_from_target's generic defaults. */
void tl__gpu_params_get(const tl_target *target, tl__gpu_params *out);
/* Fills *out: `defaults` overridden by the target's attributes thread_warp_size,
 * max_threads_per_block and max_shared_memory_per_block (a larger default wins for
 * the shared memory: tags record the static 48 KB); defaults may be NULL (warp 1,
 * 1024 threads, 48 KB, vectors of 16 bytes). */
void tl__gpu_params_from_target(const tl_target *target, const tl__gpu_params *defaults, tl__gpu_params *out);
/* The target's JSON with thread_warp_size set to `warp` (the "target" attribute of
 * device kernels, so the interpreter and code generators see the warp size the
 * lowering assumed). A fresh string (tl_free), NULL on failure (message set). */
char *tl__gpu_target_json(const tl_target *target, int64_t warp);

/* ---------------------------------------------------------------- layouts */

/* How a fragment (or a T.Parallel loop's iteration space) is spread over the T
 * threads of a block. The buffer is viewed as R rows (its leading dimensions,
 * row-major) of C columns (its last dimension). Columns go in blocks of V
 * contiguous elements, rows in blocks of mr; a TR x TC grid of threads (thread
 * t = tr * TC + tc) owns one row block x column block tile per repeat, and the
 * grid repeats RR times down the rows and RC times across the columns:
 *
 *   element (r, c) belongs to thread (tr, tc) = ((r / mr) % TR, (c / V) % TC)
 *   at slot ((rr * RC + rc) * mr + r % mr) * V + c % V,
 *   where rr = (r / mr) / TR and rc = (c / V) / TC;
 *
 * so each thread holds RR * RC micro-tiles of mr x V elements, V contiguous for
 * vector accesses. `replicated`: every thread holds every element instead. */
typedef struct tl__gpu_layout {
  bool replicated;
  int64_t T;             /* threads of the block */
  uint32_t ndim;
  int64_t shape[16];     /* the fragment's (or loop's) extents */
  int64_t R, C, V, mr, TC, TR;
  int64_t CB, RB, RC, RR; /* C / V column blocks, ceil(R / mr) row blocks, repeats */
  int64_t slots;         /* per thread: RR * RC * mr * V (replicated: R * C) */
  int64_t elem_bytes, vector_bytes; /* the chooser's inputs (for tl__gpu_layout_frag) */
  bool gemm;
  /* The accumulator layout of mma.sync.m16n8k16 (tl__gpu_layout_choose_mma), upstream
   * TileLang's: the block's warps form a WM x WN grid (warp w = wm + WM*wn, as
   * upstream numbers them), warp (wm, wn) owning the R/WM x C/WN tile at (wm*R/WM,
   * wn*C/WN), made of RR x RC instruction tiles of 16 x 8. Lane g*4 + q holds, of
   * tile (rr, rc), rows wm*R/WM + rr*16 + g + 8*mi (mi = 0, 1: the instruction's rows
   * g and g + 8) and columns wn*C/WN + rc*8 + 2q + v, at slot ((rr*RC + rc)*2 + mi)*2
   * + v: 4 consecutive slots c0..c3 per tile. V = mr = 2; TR = 8*WM and TC = 4*WN
   * count the thread coordinates tr = wm*8 + g and tc = wn*4 + q (tid is not tr*TC
   * + tc here: tl__gpu_slots has the expressions). Equal, element for element, to
   * tl__frag_mma_c (test_gpu_layout). */
  bool mma;
  int64_t WM, WN;
  /* A row projection (tl__gpu_layout_project): the fragment holds one value per row
   * of a distributed parent layout, whose fields above it keeps (shape and ndim are
   * the fragment's own: the parent's leading dims, its row-major flat index the
   * parent's row r). A thread holds the rows it holds in the parent, row (rr, mi)
   * at slot rr*mr + mi, and every thread that shares a row in the parent (its
   * column threads: the mma layout's lanes q and warps wn) holds a copy: the row
   * statistics of FlashAttention's online softmax beside the scores' accumulator.
   * slots = RR * mr. */
  bool proj;
} tl__gpu_layout;

/* The row projection of distributed 2-D-viewed layout `parent` onto a fragment of
 * shape[0..ndim) (the parent's leading dims: their product is parent->R). */
void tl__gpu_layout_project(const tl__gpu_layout *parent, const int64_t *shape, uint32_t ndim, tl__gpu_layout *out);
/* Whether distributed layouts a and b (either a projection) give every row to the
 * same threads at the same row slot (rr, mi): a loop distributed as one may read a
 * projection of the other at the row of its own element. */
bool tl__gpu_layout_rows_equal(const tl__gpu_layout *a, const tl__gpu_layout *b);

/* How many consecutive lanes of a warp share a row of layout L (reductions fold
 * them with shuffles): TC for a grid, the 4 lanes q of a row for the mma layout. */
int64_t tl__gpu_layout_row_lanes(const tl__gpu_layout *L);

/* Chooses a distributed layout for `shape` over T threads: V the widest power of
 * two with V * elem_bytes <= vector_bytes that divides C and still leaves work for
 * every thread, TC the largest divisor of T not above C / V, and for a gemm
 * accumulator (gemm) rows in blocks of up to 8 so each thread owns a micro-tile. */
void tl__gpu_layout_choose(tl__gpu_layout *L, int64_t T, const int64_t *shape, uint32_t ndim, int64_t elem_bytes,
                           int64_t vector_bytes, bool gemm);

/* The m16n8 accumulator layout for T threads (a multiple of 32) over an M x N
 * fragment on a WM x WN warp grid (M a multiple of 16 * WM, N of 8 * WN;
 * tl__gpu_gemm_mma_fits chooses the grid). */
void tl__gpu_layout_choose_mma(tl__gpu_layout *L, int64_t T, const int64_t *shape, uint32_t ndim, int64_t elem_bytes,
                               int64_t vector_bytes, int64_t WM, int64_t WN);

/* The per-thread loops over a distributed layout's slots:
 *   for rr in range(RR): for rc in range(RC): [if col_ok:] for mi in range(mr):
 *     [if row_ok:] for v in T.vectorized(V): <inner>
 * (loops are built by the caller in any order it needs). Expressions are built from
 * the variables and the thread's (tr, tc). */
typedef struct tl__gpu_slots {
  tl_ir_var *rr, *rc, *mi, *v;
  tl_ir_expr *tr, *tc;   /* the thread's coordinates: tid // TC, tid % TC (mma: gpu_layout) */
  tl_ir_expr *r, *c;     /* the element's row and column */
  tl_ir_expr *slot;      /* its slot */
  tl_ir_expr *row_slot;  /* rr * mr + mi: the row's slot in a row projection */
  tl_ir_expr *first_col; /* true in one of the threads sharing a row (tc == 0) */
  tl_ir_expr *row_ok;    /* r < R, or NULL when every row block exists */
  tl_ir_expr *col_ok;    /* rc * TC + tc < CB, or NULL likewise */
} tl__gpu_slots;

tl_status tl__gpu_slots_make(tl_ir_module *mod, const tl__gpu_layout *L, tl_ir_expr *tid, tl__gpu_slots *out);
/* Wraps `inner` (which uses the slot variables) in the loops and guards, in the
 * order rr, rc, [col_ok], mi, [row_ok], v; v is T.vectorized when V > 1, the
 * others unrolled when the layout has at most TL__GPU_UNROLL_SLOTS slots. */
#define TL__GPU_UNROLL_SLOTS 256
tl_ir_stmt *tl__gpu_slots_loops(tl_ir_module *mod, const tl__gpu_layout *L, const tl__gpu_slots *s, tl_ir_stmt *inner);
/* Index k of the element at row r (over shape[0..ndim-1)) and column c. */
tl_ir_expr *tl__gpu_unravel_row(tl_ir_module *mod, const tl__gpu_layout *L, tl_ir_expr *r, uint32_t k);
/* The indices of the element the slot loops are at (ndim of them, as int32):
 * the row unravelled and the column, or for a projection its row unravelled over
 * all of the fragment's dims. */
void tl__gpu_slot_indices(tl_ir_module *mod, const tl__gpu_layout *L, const tl__gpu_slots *s, tl_ir_expr **idx);

/* The same layout as data (src/layout/frag.h): tl__frag_simt with the chooser's
 * inputs, or tl__frag_replicated; equal element for element (test_layout_frag). */
tl_status tl__gpu_layout_frag(const tl__gpu_layout *L, tl__frag *out);

/* What layout inference decided for one kernel (layout.c). */
typedef enum tl__gpu_loop_mode {
  TL__GPU_LOOP_REPLICATED, /* every thread runs every iteration */
  TL__GPU_LOOP_LAYOUT,     /* distributed as `layout` (a fragment's, or its own) */
  TL__GPU_LOOP_LINEAR      /* symbolic extents: iteration e runs in thread e % T */
} tl__gpu_loop_mode;

typedef struct tl__gpu_frag {
  const tl_ir_buffer *buf;
  tl__gpu_layout layout;   /* replicated or distributed */
  int group;               /* fragments sharing a layout (union-find root) */
  bool gemm_c;             /* a T.gemm accumulator (layout hint) */
  bool mma_fit, mma_unfit; /* of the T.gemm calls accumulating into it, some / some do
                            * not run on the tensor cores (tl__gpu_gemm_mma_fits; two
                            * that would split the warps differently: unfit) */
  int64_t mma_wm, mma_wn;  /* the warp grid of those that fit */
  int rows_of;             /* a row projection: the reduction source it projects (group root), else -1 */
  bool pinned;             /* a T.gemm accumulator or a reduction's source: kept distributed
                            * where a loop could replicate it (layout.c, spread_replication) */
  const char *why;         /* why it is replicated (NULL: distributed) */
  tl_ir_span why_span;
  tl_ir_buffer *local;     /* its per-thread buffer (lower_simt.c) */
} tl__gpu_frag;

/* The most replicated fragments one distributed loop may write (gathers). */
#define TL__GPU_MAX_GATHERS 8

typedef struct tl__gpu_loop {
  const tl_ir_stmt *loop;  /* an outermost T.Parallel loop of the kernel */
  tl__gpu_loop_mode mode;
  tl__gpu_layout layout;   /* TL__GPU_LOOP_LAYOUT */
  int frag;                /* the fragment whose layout it follows, or -1 */
  /* It writes shared or global memory: distributed as a row projection, only the
   * first of the threads sharing a row does (the others hold copies). */
  bool writes_memory;
  /* Replicated fragments this distributed loop writes at its own element (and
   * does not read): each iteration stores into a shared buffer of the
   * fragment's shape, and after the loop every thread copies all of it into its
   * copy (a conversion from the loop's layout to the replicated one through
   * shared memory: T.copy(acc_s, acc_s_cast) when acc_s_cast is an operand A). */
  int gathers[TL__GPU_MAX_GATHERS];
  uint32_t ngathers;
} tl__gpu_loop;

typedef struct tl__gpu_kernel_info {
  int64_t T;     /* threads per block */
  tl__vec frags; /* tl__gpu_frag */
  tl__vec loops; /* tl__gpu_loop */
  tl__vec texts; /* char *: owned strings the records point to (reasons) */
} tl__gpu_kernel_info;

/* Decides the layout of every fragment allocated in kernel statement k and the
 * distribution of each outermost T.Parallel loop in it, or fails with TL_EINVAL
 * at the construct that cannot be made consistent. Free with
 * tl__gpu_kernel_info_free (also after a failure). */
tl_status tl__gpu_infer_layouts(const tl_ir_stmt *k, const tl__gpu_params *p, tl__gpu_kernel_info *out);
void tl__gpu_kernel_info_free(tl__gpu_kernel_info *info);
/* What inference decided, as stable text (goldens): every fragment with its
 * layout (tl__frag_print) or why it is replicated, and every outermost T.Parallel
 * loop with its distribution and gathers. A fresh string (tl__free); NULL on out
 * of memory (message set). */
char *tl__gpu_layouts_text(const tl__gpu_kernel_info *info);
tl__gpu_frag *tl__gpu_find_frag(const tl__gpu_kernel_info *info, const tl_ir_buffer *b);
const tl__gpu_loop *tl__gpu_find_loop(const tl__gpu_kernel_info *info, const tl_ir_stmt *loop);

/* ------------------------------------------------------ tile ops in SIMT form */

/* What the tile-op lowerings need from lower_simt.c. */
typedef struct tl__gpu_ctx {
  tl_ir_module *mod;
  const tl__gpu_params *p;
  tl__gpu_kernel_info *info;
  tl_ir_expr *tid;         /* the linear thread index */
  int64_t T;
  int loop_depth;          /* block-level loops around the statement being lowered */
} tl__gpu_ctx;

/* Whether T.gemm `call` runs on the tensor cores (gemm_mma.c): the target has
 * the instruction, A and B are shared tiles of float16 (or both bfloat16), C a
 * float32 fragment used whole, and the call's warp policy splits the warps into a
 * WM x WN grid (src/layout/warp_policy.c, upstream's rules) whose warps' tiles are
 * whole 16 x 8 instruction tiles, K a multiple of 16. When not, *why (cap bytes)
 * says which condition failed; when so, *wm and *wn (if not NULL) get the grid. */
bool tl__gpu_gemm_mma_fits(const tl_ir_expr *call, int64_t T, const tl__gpu_params *p, char *why, size_t cap,
                           int64_t *wm, int64_t *wn);
/* Whether an RS gemm's A of distributed layout A feeds the instruction from its
 * registers as they are over accumulator layout C: the accumulator layout of its
 * own M x K on C's warp rows and one warp column (two 8-column C tiles are one A
 * tile). Otherwise the lowering stages A through a shared tile (gemm_mma.c). */
bool tl__gpu_rs_operand_direct(const tl__gpu_layout *A, const tl__gpu_layout *C);
/* T.gemm on the tensor cores over an accumulator of the mma layout (gemm_mma.c). */
tl_status tl__gpu_lower_gemm_mma(tl__gpu_ctx *c, const tl_ir_expr *call, tl_ir_stmt **out);
/* T.gemm whose C is a distributed fragment (gemm.c). */
tl_status tl__gpu_lower_gemm(tl__gpu_ctx *c, const tl_ir_expr *call, tl_ir_stmt **out);
/* T.reduce_* (reduce.c). */
tl_status tl__gpu_lower_reduce(tl__gpu_ctx *c, const tl_ir_expr *call, tl_ir_stmt **out);
/* T.cumsum (scan.c). */
tl_status tl__gpu_lower_cumsum(tl__gpu_ctx *c, const tl_ir_expr *call, tl_ir_stmt **out);

/* Helpers shared by them (lower_simt.c). */
/* Replaces the fragment buffers in s (loads and stores of replicated fragments,
 * regions of any) by their per-thread buffers; distributed fragments may only
 * appear in regions there. */
tl_status tl__gpu_swap_fragments(tl__gpu_ctx *c, tl_ir_stmt *s, tl_ir_stmt **out);
/* `if tid == 0: s` (a block-level store done once). */
tl_ir_stmt *tl__gpu_one_thread(tl__gpu_ctx *c, tl_ir_stmt *s);
/* True if region e covers its whole buffer (zero starts, extents = its shape). */
bool tl__gpu_region_is_whole(const tl_ir_expr *e);
/* The element count of a buffer with constant shape; false otherwise. */
bool tl__gpu_const_count(const tl_ir_buffer *b, int64_t *count);

/* ----------------------------------------------------------- uniformity */

/* Which variables and per-thread buffers may differ between the threads of a
 * block (uniform.c): thread indices, variables bound from them, local buffers
 * written where the thread matters. */
typedef struct tl__gpu_uniform {
  tl__vec vars; /* const tl_ir_var *: thread-dependent */
  tl__vec bufs; /* const tl_ir_buffer *: per-thread contents differ */
} tl__gpu_uniform;

/* Analyses a kernel body whose thread indices are `thread_vars` (n of them) or,
 * with n = 0, the variables tagged threadIdx.*. */
tl_status tl__gpu_uniform_analyze(const tl_ir_stmt *body, tl_ir_var *const *thread_vars, uint32_t n,
                                  tl__gpu_uniform *out);
void tl__gpu_uniform_free(tl__gpu_uniform *u);
bool tl__gpu_expr_varies(const tl__gpu_uniform *u, const tl_ir_expr *e);

/* Bytes a shared buffer takes: its constant size rounded up to 16; -1 if not constant. */
int64_t tl__gpu_shared_bytes(const tl_ir_buffer *b);
/* The dynamic shared memory a kernel body allocates (its shared.dyn buffers, each
 * rounded up to 16 bytes, in order); -1 if one has no constant size. */
int64_t tl__gpu_dyn_shared_bytes(const tl_ir_stmt *body);

/* The indices of element (row, col) of a matrix region (the last two of its
 * dimensions; leading ones at their starts): both gemm lowerings' operands. */
void tl__gpu_matrix_index(tl_ir_module *mod, const tl_ir_expr *region, tl_ir_expr *row, tl_ir_expr *col,
                          tl_ir_expr **idx);
/* A loop of one variable v from 0 to n. */
tl_ir_stmt *tl__gpu_loop1(tl_ir_module *mod, tl_ir_for_kind kind, tl_ir_var *v, tl_ir_expr *n, tl_ir_stmt *body);

/* Whether items[i] of a sequence is one of a software pipeline stage's copies
 * (software_pipeline.c): a T.cp_async_commit follows it in the sequence with no
 * barrier, commit or wait between. */
bool tl__gpu_in_stage_copies(tl_ir_stmt *const *items, uint32_t n, uint32_t i);

/* ----------------------------------------------------------------- passes */

/* Padded row pitches for shared operands of tensor-core gemms (pad_shared.c). */
tl_status tl__pass_gpu_pad_shared(tl_ir_module *mod, const tl_target *target);
/* T.Pipelined's stages: multi-buffered shared tiles filled num_stages - 1
 * iterations ahead (software_pipeline.c). */
tl_status tl__pass_gpu_software_pipeline(tl_ir_module *mod, const tl_target *target);
/* The stages' copies as cp.async, where they are vectors of 4, 8 or 16 bytes (async_copy.c). */
tl_status tl__pass_gpu_async_copy(tl_ir_module *mod, const tl_target *target);
/* Thread binding, T.Parallel distribution, fragments, tile ops (lower_simt.c). */
tl_status tl__pass_gpu_lower_simt(tl_ir_module *mod, const tl_target *target);
/* Shared memory: hoisting, static or dynamic, limits (shared_memory.c). */
tl_status tl__pass_gpu_plan_shared_memory(tl_ir_module *mod, const tl_target *target);
/* Barriers where threads exchange data through memory (barriers.c). */
tl_status tl__pass_gpu_insert_barriers(tl_ir_module *mod, const tl_target *target);
/* Barriers and warp shuffles only where all threads arrive (uniform.c). */
tl_status tl__pass_gpu_check_sync(tl_ir_module *mod, const tl_target *target);
/* Vector loads and stores in device kernels (vectorize.c). */
tl_status tl__pass_gpu_vectorize(tl_ir_module *mod, const tl_target *target);
/* Device kernels get the "target" attribute (tl__gpu_target_json) (params.c). */
tl_status tl__pass_gpu_annotate_kernels(tl_ir_module *mod, const tl_target *target);

#endif
