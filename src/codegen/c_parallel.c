/* Whether a block loop pays for a thread team.
 *
 * Forking and joining an OpenMP team costs microseconds on an idle machine and
 * can cost milliseconds on a loaded one (the workers wait for a core), so a
 * launch runs on a team only when its work is large enough to hide that: the
 * number of blocks times a static estimate of the work of one block reaches
 * TL_PARALLEL_MIN_WORK. A block's work counts each store and tile-op statement
 * once per iteration of the loops around it (loops of non-constant extent count
 * as TL_UNKNOWN_TRIPS iterations; both branches of an `if` count), and a
 * T.gemm_strided as its multiply-adds. With constant block counts the decision is
 * made here; otherwise the directive's `if` clause compares the block count with
 * the smallest count that pays.
 *
 * How many threads: no more than blocks, nor than one per TL_PARALLEL_MIN_WORK
 * of the launch's work (a 2^17-statement launch gets 2 threads however many cores
 * there are), nor than the pass config tl.cpu.num_threads, nor (at run time)
 * than OpenMP's own count, omp_get_max_threads(), which follows OMP_NUM_THREADS.
 * tl.cpu.num_threads = 1 opens no team at all. */
#include "codegen/c_parallel.h"

#include <errno.h>
#include <stdlib.h>

#include "base/error.h"
#include "transform/session.h"

#define TL_PARALLEL_MIN_WORK ((int64_t)1 << 16)
#define TL_UNKNOWN_TRIPS 16
#define TL_WORK_CAP ((int64_t)1 << 40)

static int64_t capped_mul(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_mul_overflow(a, b, &r) || r > TL_WORK_CAP ? TL_WORK_CAP : r;
}
static int64_t capped_add(int64_t a, int64_t b) { return a + b > TL_WORK_CAP ? TL_WORK_CAP : a + b; }

static int64_t stmt_work(const tl_ir_stmt *s) {
  if (!s) return 0;
  switch (s->kind) {
  case TL_STMT_SEQ: {
    int64_t w = 0;
    for (uint32_t i = 0; i < s->u.seq.n; i++) w = capped_add(w, stmt_work(s->u.seq.stmts[i]));
    return w;
  }
  case TL_STMT_FOR: {
    int64_t w = stmt_work(s->u.loop.body);
    for (uint32_t k = 0; k < s->u.loop.n; k++) {
      const tl_ir_expr *e = s->u.loop.extents[k];
      w = capped_mul(w, e && e->kind == TL_EXPR_INT ? (e->u.int_value > 0 ? e->u.int_value : 0) : TL_UNKNOWN_TRIPS);
    }
    return w;
  }
  case TL_STMT_IF: return capped_add(1, capped_add(stmt_work(s->u.if_.then_), stmt_work(s->u.if_.else_)));
  case TL_STMT_LET: return capped_add(1, stmt_work(s->u.let.body));
  case TL_STMT_ALLOC: return 0;
  case TL_STMT_EVAL: {
    const tl_ir_expr *e = s->u.eval.expr;
    if (e && e->kind == TL_EXPR_CALL && e->u.call.op == TL_OP_GEMM_STRIDED && e->u.call.nargs == 13) {
      int64_t w = 1;
      for (int i = 3; i < 6; i++)
        if (e->u.call.args[i]->kind == TL_EXPR_INT) w = capped_mul(w, e->u.call.args[i]->u.int_value);
      return w;
    }
    return 1;
  }
  default: return 1;
  }
}

int64_t tl__cgen_block_work(const tl_ir_stmt *loop, int depth) {
  const tl_ir_stmt *body = loop;
  for (int d = 0; d < depth && body && body->kind == TL_STMT_FOR;) {
    d += (int)body->u.loop.n;
    body = body->u.loop.body;
  }
  int64_t w = stmt_work(body);
  return w < 1 ? 1 : w;
}

int64_t tl__cgen_min_parallel_blocks(int64_t block_work) {
  int64_t n = (TL_PARALLEL_MIN_WORK + block_work - 1) / block_work;
  return n < 2 ? 2 : n;
}

int64_t tl__cgen_team_size(int64_t blocks, int64_t block_work, int64_t limit) {
  if (blocks < 0) return limit > 0 ? limit : 0;
  int64_t n = capped_mul(blocks, block_work < 1 ? 1 : block_work) / TL_PARALLEL_MIN_WORK;
  if (n > blocks) n = blocks;
  if (n < 2) n = 2;
  return limit > 0 && n > limit ? limit : n;
}

tl_status tl__cgen_thread_limit(int64_t *limit) {
  *limit = 0;
  const char *v = tl__session_config("tl.cpu.num_threads");
  if (!v) return TL_OK;
  char *end = NULL;
  errno = 0;
  long long n = strtoll(v, &end, 10);
  if (end == v || *end || errno || n < 1 || n > 65536)
    return tl__error(TL_EINVAL, "pass config tl.cpu.num_threads: '%s' is not a thread count (an integer from 1 to 65536)",
                     v);
  *limit = n;
  return TL_OK;
}
