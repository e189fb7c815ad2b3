/* SIMT execution of GPU-lowered device code (docs/interpreter.md, "SIMT mode").
 *
 * A device kernel whose threads synchronise (barriers, warp shuffles) or share
 * memory (shared buffers, atomics) cannot run one thread after another. Such a
 * kernel runs each block with one OS thread per GPU thread: every thread has its
 * own frame (variables, loop indices, TL_SCOPE_LOCAL buffers), the block's
 * shared buffers are one instance visible to all its threads, global buffers are
 * the tensors. Blocks run one after another (bx fastest); the same OS threads
 * serve every block of a launch.
 *
 *   simt.c       scanning a body, choosing the mode, the launch (threads, blocks,
 *                errors), thread-bound loops, shared allocations
 *   simt_sync.c  barriers and warp shuffles: one block-wide state under one
 *                mutex; when no thread can run, the last one to stop decides
 *                (release, exchange, or report divergence), so nothing hangs
 *   simt_mem.c   memory access: shared memory through the race detector, global
 *                memory with relaxed atomics, atomic adds under striped locks
 *
 * Determinism: between two synchronisation points every thread runs on its own
 * until it waits or finishes, and decisions are taken only when no thread runs,
 * from the state of all of them. So for a race-free kernel the outcome, and the
 * error reported (the lowest thread index that failed, else the divergence), do
 * not depend on how the OS schedules the threads. */
#ifndef TL_IR_INTERP_SIMT_H
#define TL_IR_INTERP_SIMT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/vec.h"
#include "ir/interp/interp.h"

#define TL__SIMT_MAX_THREADS 1024 /* per block, as CUDA's limit */
#define TL__SIMT_STRIPES 64       /* locks for atomics and shared-memory accesses */

/* ------------------------------------------------------------- scanning */

/* What a kernel body holds, for running its threads (launches bind the tagged
 * variables) and for choosing between sequential and SIMT execution. */
typedef struct tl__body_scan {
  bool barrier;    /* a TL_STMT_BARRIER */
  bool shuffle;    /* a TL_OP_WARP_SHFL_XOR or TL_OP_MMA_M16N8K16 (warp-collective) */
  bool shared;     /* an allocation of a shared or shared.dyn buffer */
  bool atomic;     /* T.atomic_add or T.atomic_add_elem */
  bool threads;    /* thread indices are bound or used */
  unsigned looped; /* tags bound by TL_FOR_THREAD loops (bit per tag index) */
  tl__vec tagged;  /* const tl_ir_var *: variables carrying a blockIdx/threadIdx tag */
} tl__body_scan;

/* 0..2 for blockIdx.x/y/z, 3..5 for threadIdx.x/y/z, -1 otherwise. */
int tl__interp_tag_index(const char *tag);
/* Scans body; with skip_kernels the bodies of T.Kernel statements are not entered.
 * Free with tl__interp_scan_free (also after a failure). */
tl_status tl__interp_scan(const tl_ir_stmt *body, bool skip_kernels, tl__body_scan *out);
void tl__interp_scan_free(tl__body_scan *sc);

/* True when a body so scanned runs in SIMT mode: it has threads (binds thread
 * indices, or is launched with more than one thread per block: many_threads) and
 * synchronises or shares memory (barrier, shuffle, shared buffer, atomic), or the
 * module's int attribute "tl.interp.simt" is 1 (every kernel with threads). */
bool tl__simt_wanted(const tl_ir_module *mod, const tl__body_scan *sc, bool many_threads);

/* ------------------------------------------------------------- launching */

typedef struct tl__simt_plan {
  const tl_ir_stmt *body;            /* what every thread runs */
  tl__iframe *base;                  /* parameters and outer bindings, copied into every thread */
  const tl_ir_func *func;            /* its "target" attribute gives the warp size */
  tl_ir_span span;                   /* the launch or T.Kernel statement */
  int64_t grid[3], block[3];
  int64_t dyn_shared_bytes;          /* shared.dyn budget per block; -1: unlimited */
  const tl__body_scan *scan;             /* of body: the tagged variables to bind */
  tl_ir_var *const *block_vars;      /* T.Kernel's bx, by, bz (3 entries, may be NULL) */
  tl_ir_var *const *thread_vars;     /* T.Kernel's tx, ty, tz */
} tl__simt_plan;

/* Runs every block of the plan in SIMT mode and returns the first error (lowest
 * block, then lowest linear thread index), with its block and thread appended. */
tl_status tl__simt_run(const tl__simt_plan *plan);

/* ------------------------------------------ hooks used by the executor */

/* True when s is a TL_FOR_THREAD loop of one variable tagged blockIdx/threadIdx
 * and fr is a SIMT thread: the loop does not iterate, it binds the thread's index. */
bool tl__simt_binds_loop(const tl__iframe *fr, const tl_ir_stmt *s);
/* For such a loop with the given min and extent: *run is false in threads whose
 * index along the tag is >= extent; else *value = min + index. An extent larger
 * than the launch's is TL_ERUNTIME (those iterations would be lost). */
tl_status tl__simt_loop_index(tl__iframe *fr, const tl_ir_stmt *s, int64_t min, int64_t extent, bool *run,
                              int64_t *value);
/* TL_STMT_BARRIER in a SIMT thread: waits for the whole block. */
tl_status tl__simt_barrier(tl__iframe *fr, const tl_ir_stmt *s);
/* TL_OP_WARP_SHFL_XOR: exchanges with the other lanes of the warp (an error
 * outside SIMT execution). */
tl_status tl__simt_shfl_xor(tl__iframe *fr, const tl_ir_expr *e, uint32_t lane, tl__ival *out);
/* TL_OP_MMA_M16N8K16 in a SIMT thread: d, a, b are this lane's 4 float32
 * accumulators, 8 A and 4 B elements of dtype ab (float16 or bfloat16), in its
 * local memory; every lane of the warp must arrive (ir.h has the fragment maps).
 * An error outside SIMT execution. */
tl_status tl__simt_mma(tl__iframe *fr, const tl_ir_expr *e, tl_dtype ab, char *d, const char *a, const char *b);
/* TL_OP_LDMATRIX_X4 in a SIMT thread: row[0..7] are the 8 elements (dtype t) at
 * this lane's row address, read by the lane (through the race detector); dst its
 * 8 destination elements in local memory. Every lane of the warp must arrive. */
tl_status tl__simt_ldmatrix(tl__iframe *fr, const tl_ir_expr *e, tl_dtype t, const tl__ival *row, bool trans, char *dst);
/* TL_STMT_ALLOC of a shared or shared.dyn buffer in a SIMT thread: binds the
 * block's instance (made and poisoned by the first thread of the block to get here). */
tl_status tl__simt_alloc_shared(tl__iframe *fr, const tl_ir_buffer *buf, tl_ir_span span);
/* One element of buf at p (an address from tl__interp_addr) in a SIMT thread:
 * shared memory through the race detector, global memory atomically (relaxed),
 * local memory as is. v and *out are in buf's dtype. */
tl_status tl__simt_load(tl__iframe *fr, const tl_ir_buffer *buf, const char *p, tl_ir_span span, tl__ival *out);
tl_status tl__simt_store(tl__iframe *fr, const tl_ir_buffer *buf, char *p, tl_ir_span span, tl__ival v);
/* The race detector's record of a write of the element at p by this thread now,
 * without storing (an asynchronous copy claims its destination when issued). */
tl_status tl__simt_claim_write(tl__iframe *fr, const tl_ir_buffer *buf, const char *p, tl_ir_span span);
/* TL_OP_CP_ASYNC in a SIMT thread: `count` elements of buf (vals, read at issue)
 * to land at dst when a wait covers the thread's current group (simt_async.c). */
tl_status tl__simt_cp_async(tl__iframe *fr, const tl_ir_buffer *buf, char *dst, const tl__ival *vals, uint32_t count,
                            tl_ir_span span);
/* TL_OP_CP_ASYNC_COMMIT: closes the thread's current group. */
tl_status tl__simt_cp_async_commit(tl__iframe *fr);
/* TL_OP_CP_ASYNC_WAIT: lands the oldest groups until at most n are pending. */
tl_status tl__simt_cp_async_wait(tl__iframe *fr, int64_t n, tl_ir_span span);
/* At the end of a thread's block: copies never waited for are a lowering bug. */
tl_status tl__simt_cp_async_end(struct tl__simt_thread *t);
/* *p += v, atomically with respect to the launch's other threads. */
tl_status tl__simt_atomic_add(tl__iframe *fr, const tl_ir_buffer *buf, char *p, tl_ir_span span, tl__ival v);
/* *p = *p <comb> v (T.atomic_max: TL_BIN_MAX, ...), atomically likewise. */
tl_status tl__simt_atomic_update(tl__iframe *fr, const tl_ir_buffer *buf, char *p, tl_ir_span span, tl_ir_binop comb,
                                 tl__ival v);

/* ------------------------------------------------ internals of simt*.c */

enum { TL__SIMT_RUNNING, TL__SIMT_BARRIER, TL__SIMT_SHUFFLE, TL__SIMT_DONE };
/* Which warp-collective a lane at TL__SIMT_SHUFFLE waits at. */
enum { TL__SIMT_COLL_SHFL, TL__SIMT_COLL_MMA, TL__SIMT_COLL_LDMATRIX };

typedef struct tl__simt tl__simt;
typedef struct tl__simt_thread tl__simt_thread;

/* One GPU thread of the block being run. */
struct tl__simt_thread {
  tl__simt *sm;
  uint32_t tid;        /* linear index in the block: x + y*bdx + z*bdx*bdy */
  int64_t idx[3];      /* threadIdx */
  pthread_t handle;
  tl__iframe fr;
  uint64_t epoch;      /* the barrier interval it runs in (race detector); its own */
  /* Under sm->mu: */
  int state;           /* TL__SIMT_* */
  const void *site;    /* the barrier statement or shuffle expression it waits at */
  tl_ir_span site_span;
  int sh_kind;         /* the collective: TL__SIMT_COLL_* */
  tl__ival lm_row[8];  /* ldmatrix: the row this lane addressed, */
  bool lm_trans;       /*   transposed, */
  char *lm_dst;        /*   where its 8 elements go */
  char *mma_d;         /*   this lane's accumulators, */
  const char *mma_a, *mma_b; /* operands, */
  tl_dtype mma_ab;     /*   their dtype */
  tl__ival sh_value;   /* shuffle: what this lane offers, */
  int64_t sh_mask, sh_width;
  tl__ival sh_result;  /* what it gets, */
  int64_t sh_missing;  /* or -1 / the lane it read that the block does not have */
  tl__vec async;       /* tl__simt_async_copy: its cp.async copies not landed yet (simt_async.c) */
  uint32_t async_groups; /* its cp.async commits in this block */
  bool aborted;        /* released from a wait because the launch stops */
  tl_status status;    /* how its run of the current block ended */
  char *msg;           /* its message (NULL for TL_OK and TL_ENOMEM) */
};

/* A shared buffer's instance: one per launch, re-poisoned when a new block first
 * allocates it; a shadow entry per element for the race detector. */
typedef struct tl__simt_shadow {
  uint64_t epoch;              /* entries of older epochs are stale */
  int32_t writer;              /* plain writer in this epoch, or -1 */
  int32_t readers[2];          /* two distinct readers, or -1 */
  int32_t atomics[2];          /* two distinct atomic updaters, or -1 */
  tl_ir_span wspan, rspan[2], aspan[2];
} tl__simt_shadow;

struct tl__simt_shared {
  tl__istore store;            /* bound in every thread; store.shared points back here */
  const tl_ir_buffer *buf;
  uint64_t block_gen;          /* the block it was last poisoned for */
  int64_t dyn_end;             /* shared.dyn: bytes of dynamic shared memory in use up to it */
  size_t esz;
  tl__simt_shadow *shadow;
};

struct tl__simt {
  const tl__simt_plan *plan;
  uint32_t nthreads, warp_size;
  int64_t bdim[3];
  struct tl__simt_thread *threads;
  pthread_mutex_t mu;          /* the block's synchronisation state */
  pthread_cond_t start;        /* workers: a new block, or quit */
  pthread_cond_t wake;         /* waiting threads: released */
  pthread_cond_t done;         /* the coordinator: every thread finished the block */
  uint64_t block_gen;          /* blocks started */
  int64_t bidx[3];
  bool quit;
  uint32_t nrunning, ndone;
  uint64_t epoch;              /* barrier intervals so far (across blocks) */
  tl_status sync_status;       /* a divergence found by the resolver */
  char *sync_msg;
  pthread_mutex_t shmu;        /* shared instances */
  tl__vec shared;              /* struct tl__simt_shared * */
  int64_t dyn_used;            /* shared.dyn bytes allocated in this block */
  pthread_mutex_t stripes[TL__SIMT_STRIPES];
};

/* With sm->mu held and no thread running: releases a barrier or warp exchange,
 * or stops the block (a thread failed, or the threads diverged). */
void tl__simt_resolve(tl__simt *sm);
/* "file:line:col", or "<unknown location>". */
const char *tl__simt_span_str(tl_ir_span span, char *buf, size_t cap);
/* "(x, y, z)" of a thread's index in the block. */
const char *tl__simt_tid_str(const tl__simt *sm, uint32_t tid, char *buf, size_t cap);

#endif
