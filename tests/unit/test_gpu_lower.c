/* The shared GPU lowering, structurally: what the passes produce (thread binding,
 * layouts, vector accesses, shuffles by warp size, dynamic shared memory, launch
 * sizes, kernel attributes), the host entry's device and alignment checks, the
 * kernel table of lowered kernels, the refusals (each a clear error at the
 * construct), the parameters read from targets, and golden printed IR of two
 * lowered examples (tests/golden/gpu_lowered/; TL_REGEN_GOLDEN=1 rewrites them,
 * scripts/regen-golden.sh gpu_lowered). */
#include <stdio.h>

#include <stdlib.h>

#include "base/alloc.h"
#include "codegen/codegen.h"
#include "gpu_test.h"
#include "transform/gpu/gpu.h"
#include "transform/kernel_table.h"
#include "transform/pass.h"
#include "transform/util.h"

#define HDR "import tilelang.language as T\n"
#define CUDA "{\"kind\":\"cuda\",\"arch\":\"sm_90\"}"
#define CUDA_HOST "{\"kind\":\"cuda\",\"arch\":\"sm_90\",\"target_device_type\":1}"
#define HIP_HOST "{\"kind\":\"hip\",\"mcpu\":\"gfx90a\",\"target_device_type\":1}"
#define OPENCL_HOST "{\"kind\":\"opencl\",\"target_device_type\":1}"

static tl_ir_module *parse_ok(const char *src) {
  tl_ir_module *m = NULL;
  if (tl_ir_parse(src, "k.py", NULL, &m) != TL_OK) fail_msg("parse: %s", tl_last_error());
  return m;
}

static tl_ir_module *example(const char *file, const tl_ir_const_binding *consts, size_t n) {
  char path[1024];
  snprintf(path, sizeof path, "%s/examples/%s", TL_SOURCE_DIR, file);
  tl_ir_parse_options opts = {sizeof opts, consts, n, NULL, false};
  tl_ir_module *m = NULL;
  if (tl_ir_parse_file(path, &opts, &m) != TL_OK) fail_msg("%s: %s", file, tl_last_error());
  return m;
}

/* The printed module (tl_free it). */
static char *printed(const tl_ir_module *m) {
  char *s = tl_ir_print_module(m);
  assert_non_null(s);
  return s;
}

static int count(const char *text, const char *needle) {
  int n = 0;
  for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle)) n++;
  return n;
}

static const tl_ir_func *kernel_of(const tl_ir_module *m) {
  for (size_t i = 0; i < tl_ir_module_num_funcs(m); i++)
    if (tl_ir_module_func(m, i)->callconv == TL_CALLCONV_DEVICE_KERNEL) return tl_ir_module_func(m, i);
  fail_msg("no device kernel");
  return NULL;
}

static const tl_ir_stmt *launch_of(const tl_ir_module *m, const char *entry) {
  const tl_ir_stmt *b = tl_ir_module_find_func(m, entry)->body;
  while (b->kind == TL_STMT_SEQ) b = b->u.seq.stmts[b->u.seq.n - 1];
  while (b->kind == TL_STMT_LET) b = b->u.let.body;
  assert_int_equal(b->kind, TL_STMT_LAUNCH);
  return b;
}

/* ------------------------------------------------------------- structure */

/* Thread binding: blockIdx/threadIdx-tagged variables, grid and block in the
 * launch, and the convention and target attributes. */
static void test_thread_binding(void **state) {
  (void)state;
  tl_ir_module *m = parse_ok(HDR "N = T.symbolic(\"N\")\n"
                                 "@T.prim_func\n"
                                 "def k(A: T.Tensor((N, 64), \"float32\")):\n"
                                 "    with T.Kernel(T.ceildiv(N, 8), 2, threads=(16, 4)) as (bx, by):\n"
                                 "        for i, j in T.Parallel(8, 32):\n"
                                 "            if bx * 8 + i < N:\n"
                                 "                A[bx * 8 + i, by * 32 + j] = A[bx * 8 + i, by * 32 + j] + 1.0\n");
  TL_ASSERT_OK(gpu_lower(m, CUDA));
  const tl_ir_stmt *l = launch_of(m, "k");
  char *grid0 = tl_ir_print_expr(l->u.launch.grid[0]);
  assert_string_equal(grid0, "T.ceildiv(N, 8)");
  tl_free(grid0);
  assert_true(tl__is_int(l->u.launch.grid[1], 2));
  assert_true(tl__is_int(l->u.launch.block[0], 16) && tl__is_int(l->u.launch.block[1], 4) &&
              tl__is_int(l->u.launch.block[2], 1));
  assert_null(l->u.launch.dyn_shared_bytes);
  char *text = printed(m);
  /* tid = tx + ty * 16, the tagged variables, no barrier or shuffle needed */
  assert_non_null(strstr(text, "tid = ty * 16 + tx"));
  assert_int_equal(count(text, "T.sync_threads()"), 0);
  tl_free(text);
  const tl_ir_func *k = kernel_of(m);
  int tags = 0;
  tl__vec vars = TL__VEC_INIT(const tl_ir_var *);
  TL_ASSERT_OK(tl__collect_stmt(k->body, &vars, NULL));
  for (size_t i = 0; i < vars.len; i++) {
    const tl_ir_var *v = TL__VEC_AT(&vars, const tl_ir_var *, i);
    if (v->thread_tag) {
      tags++;
      assert_true(strcmp(v->thread_tag, "blockIdx.x") == 0 || strcmp(v->thread_tag, "blockIdx.y") == 0 ||
                  strcmp(v->thread_tag, "threadIdx.x") == 0 || strcmp(v->thread_tag, "threadIdx.y") == 0);
    }
  }
  tl__vec_free(&vars);
  assert_int_equal(tags, 4);
  const tl_ir_attr *conv = tl_ir_module_attr(m, "tl.launch_convention");
  assert_non_null(conv);
  assert_string_equal(conv->s, "cuda_driver");
  const tl_ir_attr *tgt = tl_ir_func_attr(k, "target");
  assert_non_null(tgt);
  assert_non_null(strstr(tgt->s, "\"thread_warp_size\":32"));
  tl_ir_module_free(m);
}

/* A hip target without thread_warp_size gets the wavefront it was lowered for. */
static void test_kernel_target_attr(void **state) {
  (void)state;
  tl_ir_module *m = example("softmax.py", NULL, 0);
  TL_ASSERT_OK(gpu_lower(m, HIP_HOST));
  const tl_ir_attr *tgt = tl_ir_func_attr(kernel_of(m), "target");
  assert_non_null(tgt);
  assert_non_null(strstr(tgt->s, "\"kind\":\"hip\""));
  assert_non_null(strstr(tgt->s, "\"thread_warp_size\":64"));
  tl_target *t;
  TL_ASSERT_OK(tl_target_parse(tgt->s, &t)); /* a valid target */
  tl_target_release(t);
  tl_ir_module_free(m);
}

/* Reductions use warp shuffles up to the warp size, and none at warp size 1. */
static void test_shuffles_by_warp(void **state) {
  (void)state;
  static const tl_ir_const_binding big[] = {{"M", "4"}, {"N", "256"}, {"block_M", "2"}};
  static const struct {
    const char *spec;
    int shuffles;
    const char *width;
  } want[] = {{CUDA_HOST, 5, "T.int32(32)"}, {HIP_HOST, 6, "T.int32(64)"}, {OPENCL_HOST, 0, NULL}};
  for (size_t i = 0; i < 3; i++) {
    /* rows of 256 floats over 128 threads: 64 threads per row */
    tl_ir_module *m = example("softmax.py", big, 3);
    TL_ASSERT_OK(gpu_lower(m, want[i].spec));
    char *text = printed(m);
    /* two reductions, log2(W) shuffles each */
    assert_int_equal(count(text, "T.warp_shfl_xor("), 2 * want[i].shuffles);
    if (want[i].width) assert_non_null(strstr(text, want[i].width));
    tl_free(text);
    tl_ir_module_free(m);
  }
}

/* 16-byte vector accesses where the sizes allow, scalar code where they do not. */
static void test_vectorization(void **state) {
  (void)state;
  static const tl_ir_const_binding even[] = {{"M", "64"}, {"N", "64"}};
  static const tl_ir_const_binding odd[] = {{"M", "64"}, {"N", "66"}};
  tl_ir_module *m = example("elementwise_add.py", even, 2);
  TL_ASSERT_OK(gpu_lower(m, CUDA));
  char *text = printed(m);
  /* A and B into shared, shared into... C out: float32x4 everywhere */
  assert_non_null(strstr(text, "A[T.Ramp("));
  assert_non_null(strstr(text, "B[T.Ramp("));
  assert_non_null(strstr(text, "C[T.Ramp("));
  assert_non_null(strstr(text, "T.arg_data_aligned(0, 16)"));
  assert_non_null(strstr(text, "T.arg_data_aligned(2, 16)"));
  tl_free(text);
  tl_ir_module_free(m);
  /* a row of 66 floats: element (r, c) is 66 r + c, not a multiple of 4 */
  m = example("elementwise_add.py", odd, 2);
  TL_ASSERT_OK(gpu_lower(m, CUDA));
  text = printed(m);
  assert_null(strstr(text, "A[T.Ramp("));
  assert_null(strstr(text, "C[T.Ramp("));
  assert_null(strstr(text, "T.arg_data_aligned"));
  tl_free(text);
  tl_ir_module_free(m);
  /* a symbolic row length: nothing to prove alignment with */
  m = parse_ok(HDR "N = T.symbolic(\"N\")\n"
                   "@T.prim_func\n"
                   "def k(A: T.Tensor((8, N), \"float32\"), B: T.Tensor((8, N), \"float32\")):\n"
                   "    with T.Kernel(T.ceildiv(N, 32), threads=64) as bx:\n"
                   "        s = T.alloc_shared((8, 32), \"float32\")\n"
                   "        T.copy(A[0, bx * 32], s)\n"
                   "        T.copy(s, B[0, bx * 32])\n");
  TL_ASSERT_OK(gpu_lower(m, CUDA));
  text = printed(m);
  assert_null(strstr(text, "A[T.Ramp("));
  assert_null(strstr(text, "B[T.Ramp("));
  assert_non_null(strstr(text, "T.unroll"));
  tl_free(text);
  tl_ir_module_free(m);
}

/* Above 48 KB the shared buffers become dynamic and the launch says how much;
 * above the arch's limit (or on a small target) the kernel is refused. */
static const char *k_big_shared = HDR "@T.prim_func\n"
                                      "def big(A: T.Tensor((128, 64), \"float32\"), B: T.Tensor((128, 64), \"float32\")):\n"
                                      "    with T.Kernel(1, threads=128) as bx:\n"
                                      "        s = T.alloc_shared((128, 64), \"float32\")\n"
                                      "        t = T.alloc_shared((128, 64), \"float32\")\n"
                                      "        T.copy(A, s)\n"
                                      "        for i, j in T.Parallel(128, 64):\n"
                                      "            t[i, j] = s[127 - i, j] * 2.0\n"
                                      "        T.copy(t, B)\n";

static void test_dynamic_shared_memory(void **state) {
  (void)state;
  tl_ir_module *m = parse_ok(k_big_shared);
  gpu_differential(m, "big", NULL, 0, 3, &k_gpu_targets[0], 0, "64 KB of shared memory");
  tl_ir_module *low;
  TL_ASSERT_OK(tl_ir_module_clone(m, &low));
  TL_ASSERT_OK(gpu_lower(low, CUDA));
  const tl_ir_stmt *l = launch_of(low, "big");
  assert_non_null(l->u.launch.dyn_shared_bytes);
  assert_true(tl__is_int(l->u.launch.dyn_shared_bytes, 65536));
  char *text = printed(low);
  assert_int_equal(count(text, "scope=\"shared.dyn\""), 2);
  tl_free(text);
  tl_kernel_table *t = NULL;
  TL_ASSERT_OK(tl__kernel_table_from_module(low, "big", &t));
  assert_int_equal(t->launches[0].dyn_shared_bytes.n, 1);
  assert_int_equal(t->launches[0].dyn_shared_bytes.code[0].value, 65536);
  tl_kernel_table_free(t);
  tl_ir_module_free(low);
  /* sm_75 allows 64 KB: fits exactly; an unknown arch stays at 48 KB */
  TL_ASSERT_OK(tl_ir_module_clone(m, &low));
  TL_ASSERT_OK(gpu_lower(low, "{\"kind\":\"cuda\",\"arch\":\"sm_75\"}"));
  tl_ir_module_free(low);
  TL_ASSERT_OK(tl_ir_module_clone(m, &low));
  TL_ASSERT_ERR(gpu_lower(low, "cuda"), TL_EINVAL, NULL);
  TL_ASSERT_MSG("pass 'gpu_plan_shared_memory': k.py:4:5: T.Kernel needs 65536 bytes of shared memory ('s' 32768, "
                "'t' 32768); the target allows at most 49152 per block: use smaller tiles");
  tl_ir_module_free(low);
  TL_ASSERT_OK(tl_ir_module_clone(m, &low));
  TL_ASSERT_ERR(gpu_lower(low, OPENCL_HOST), TL_EINVAL, "the target allows at most 16384 per block");
  tl_ir_module_free(low);
  tl_ir_module_free(m);
  /* 256 KB is too much even for sm_90 */
  m = parse_ok(HDR "@T.prim_func\n"
                   "def huge(A: T.Tensor((256, 256), \"float32\")):\n"
                   "    with T.Kernel(1, threads=128) as bx:\n"
                   "        s = T.alloc_shared((256, 256), \"float32\")\n"
                   "        T.copy(A, s)\n"
                   "        T.copy(s, A)\n");
  TL_ASSERT_ERR(gpu_lower(m, CUDA), TL_EINVAL, "needs 262144 bytes of shared memory ('s' 262144); the target allows at most 232448");
  tl_ir_module_free(m);
  /* static below 48 KB */
  m = example("gemm.py", NULL, 0);
  TL_ASSERT_OK(gpu_lower(m, CUDA));
  assert_null(launch_of(m, "matmul")->u.launch.dyn_shared_bytes);
  tl_ir_module_free(m);
}

/* Barriers: before a read of what other threads wrote, before overwriting what
 * they read (also across iterations of the K loop), never more. */
static void test_barrier_placement(void **state) {
  (void)state;
  tl_ir_module *m = example("gemm.py", NULL, 0);
  TL_ASSERT_OK(gpu_lower(m, "{\"kind\":\"cuda\",\"arch\":\"sm_75\"}"));
  char *text = printed(m);
  /* Synchronous copies (no cp.async before sm_80): one at the top of the K loop
   * (the previous iteration's T.gemm read the tiles), one before T.gemm reads them */
  assert_int_equal(count(text, "T.sync_threads()"), 2);
  assert_non_null(strstr(text, "for k in T.serial(3):\n        T.sync_threads()\n        A_shared["));
  tl_free(text);
  tl_ir_module_free(m);
  /* The software pipeline (sm_80 on): one in the loop, after the wait for this
   * iteration's stage (the stage's copies for k + 2 need none), and one before
   * the prologue (gpu_software_pipeline). */
  m = example("gemm.py", NULL, 0);
  TL_ASSERT_OK(gpu_lower(m, CUDA));
  text = printed(m);
  assert_int_equal(count(text, "T.sync_threads()"), 2);
  assert_non_null(strstr(text, "for k in T.serial(3):\n        T.cp_async_wait(1)\n        T.sync_threads()\n"));
  tl_free(text);
  tl_ir_module_free(m);
  m = example("transpose.py", NULL, 0);
  TL_ASSERT_OK(gpu_lower(m, CUDA));
  text = printed(m);
  assert_int_equal(count(text, "T.sync_threads()"), 2);
  tl_free(text);
  tl_ir_module_free(m);
  m = example("vector_add.py", NULL, 0);
  TL_ASSERT_OK(gpu_lower(m, CUDA));
  text = printed(m);
  assert_int_equal(count(text, "T.sync_threads()"), 0);
  tl_free(text);
  tl_ir_module_free(m);
}

/* ------------------------------------------------------------ host checks */

static void test_host_checks(void **state) {
  (void)state;
  tl_ir_module *m = example("elementwise_add.py", (tl_ir_const_binding[]){{"M", "64"}, {"N", "64"}}, 2);
  tl_ir_module *real;
  TL_ASSERT_OK(tl_ir_module_clone(m, &real));
  TL_ASSERT_OK(gpu_lower(real, CUDA));
  TL_ASSERT_OK(gpu_lower(m, CUDA_HOST));
  pt_args a = pt_args_make(tl_ir_module_find_func(m, "elementwise_add"), NULL, 0, 1);
  /* the real target wants CUDA tensors */
  TL_ASSERT_ERR(tl_ir_interpret(real, "elementwise_add", a.values, (int)a.n), TL_EINVAL,
                "argument 'A': expected a CUDA tensor (kDLCUDA) but got device type 1");
  TL_ASSERT_OK(tl_ir_interpret(m, "elementwise_add", a.values, (int)a.n));
  /* vector accesses need aligned data: data + byte_offset */
  char *raw = malloc(a.nbytes[1] + 64);
  char *aligned = raw + (16 - (uintptr_t)raw % 16) % 16;
  void *orig = a.tensors[1].data;
  memcpy(aligned + 4, orig, a.nbytes[1]);
  a.tensors[1].data = aligned + 4;
  TL_ASSERT_ERR(tl_ir_interpret(m, "elementwise_add", a.values, (int)a.n), TL_EINVAL,
                "argument 'B': the tensor's data must be aligned to 16 bytes (the kernel uses vector accesses)");
  memcpy(aligned + 16, orig, a.nbytes[1]);
  a.tensors[1].byte_offset = 12;
  TL_ASSERT_OK(tl_ir_interpret(m, "elementwise_add", a.values, (int)a.n));
  /* The kernel table carries the same requirement, for runtimes without host code. */
  tl_kernel_table *t = NULL;
  TL_ASSERT_OK(tl__kernel_table_from_module(m, "elementwise_add", &t));
  assert_int_equal(t->params[1].data_alignment, 16);
  int64_t syms[8];
  TL_ASSERT_OK(tl_kernel_table_bind_args(t, a.values, (int)a.n, 1, syms));
  a.tensors[1].byte_offset = 8;
  TL_ASSERT_ERR(tl_kernel_table_bind_args(t, a.values, (int)a.n, 1, syms), TL_EINVAL,
                "argument 'B': the tensor's data must be aligned to 16 bytes (the kernel uses vector accesses)");
  char *json = tl_kernel_table_to_json(t);
  assert_non_null(strstr(json, "\"align\":16"));
  tl_kernel_table *back = NULL;
  TL_ASSERT_OK(tl_kernel_table_from_json(json, &back));
  assert_int_equal(back->params[1].data_alignment, 16);
  tl_free(json);
  tl_kernel_table_free(back);
  tl_kernel_table_free(t);
  a.tensors[1].data = orig;
  a.tensors[1].byte_offset = 0;
  free(raw);
  pt_args_free(&a);
  tl_ir_module_free(real);
  tl_ir_module_free(m);
}

/* The C host code generator prints T.arg_data_aligned; the entry compiles (the
 * launch through the `call` emitter here: the cuda_driver one is the cuda
 * backend's). */
static void test_host_c_alignment_check(void **state) {
  (void)state;
  tl_ir_module *m = example("elementwise_add.py", (tl_ir_const_binding[]){{"M", "64"}, {"N", "64"}}, 2);
  TL_ASSERT_OK(gpu_lower(m, CUDA));
  TL_ASSERT_OK(tl_ir_module_set_attr_str(m, "tl.launch_convention", "call"));
  tl_ir_stmt *l = (tl_ir_stmt *)launch_of(m, "elementwise_add"); /* `call` runs one block */
  for (int i = 0; i < 3; i++) l->u.launch.grid[i] = l->u.launch.block[i] = tl_ir_i32(m, 1);
  char *src = NULL;
  TL_ASSERT_OK(tl__c_host_source(m, &src));
  assert_non_null(strstr(src, "(((uintptr_t)args[1].v.tensor->data + args[1].v.tensor->byte_offset) % 16u == 0)"));
  assert_non_null(strstr(src, "must be aligned to 16 bytes (the kernel uses vector accesses)"));
  char dir[] = "/tmp/tl-gpu-host-XXXXXX";
  if (mkdtemp(dir) && system("cc --version >/dev/null 2>&1") == 0) {
    char path[256], cmd[1024];
    snprintf(path, sizeof path, "%s/host.c", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(src, f);
    /* the kernel the `call` emitter declares (its body is device code) */
    fputs("static void elementwise_add_kernel(const float *restrict A, const float *restrict B, float *restrict C) {\n"
          "  (void)A, (void)B, (void)C;\n}\n",
          f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "cc -std=c11 -Wall -Werror -c %s -o %s/host.o", path, dir);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
  }
  tl__free(src);
  tl_ir_module_free(m);
}

/* The kernel table of a GPU-lowered symbolic kernel: grid from N, the block. */
static void test_kernel_table(void **state) {
  (void)state;
  tl_ir_module *m = example("vector_add.py", NULL, 0);
  TL_ASSERT_OK(gpu_lower(m, CUDA));
  tl_kernel_table *t = NULL;
  TL_ASSERT_OK(tl__kernel_table_from_module(m, "vector_add", &t));
  assert_int_equal(t->nlaunches, 1);
  const tl_kernel_launch *l = &t->launches[0];
  assert_string_equal(l->symbol, "vector_add_kernel");
  int64_t syms[1] = {1000}, v = 0;
  assert_true(tl_launch_expr_eval(&l->grid[0], syms, 1, &v));
  assert_int_equal(v, 4);
  assert_true(tl_launch_expr_eval(&l->block[0], syms, 1, &v));
  assert_int_equal(v, 256);
  assert_true(tl_launch_expr_eval(&l->dyn_shared_bytes, syms, 1, &v));
  assert_int_equal(v, 0);
  tl_kernel_table_free(t);
  tl_ir_module_free(m);
}

/* -------------------------------------------------------------- refusals */

typedef struct refusal {
  const char *src;
  const char *spec;
  tl_status status;
  const char *msg;
} refusal;

static const refusal k_refusals[] = {
    /* x is pinned (a reduction's source), so the loop keeps x's layout; it may
     * gather into replicated y only if it does not also read y */
    {HDR "@T.prim_func\n"
         "def k(A: T.Tensor((8, 16), \"float32\"), R: T.Tensor((8,), \"float32\"), B: T.Tensor((8, 16), \"float32\")):\n"
         "    with T.Kernel(1, threads=32) as bx:\n"
         "        x = T.alloc_fragment((8, 16), \"float32\")\n"
         "        y = T.alloc_fragment((8, 16), \"float32\")\n"
         "        r = T.alloc_fragment((8,), \"float32\")\n"
         "        T.copy(A, x)\n"
         "        T.fill(y, 1.0)\n"
         "        T.reduce_sum(x, r, dim=1)\n"
         "        for i, j in T.Parallel(8, 16):\n"
         "            y[i, j] = y[i, j] + x[i, j]\n"
         "        B[0, 0] = y[0, 1]\n"
         "        T.copy(r, R)\n",
     CUDA, TL_EINVAL,
     "k.py:12:13: fragment 'y' is written at [i, j] inside T.Parallel, whose iterations are distributed over the "
     "block's threads (as fragment 'x'); but 'y' is replicated in every thread, because it is read outside any "
     "T.Parallel loop"},
    {HDR "@T.prim_func\n"
         "def k(A: T.Tensor((8, 16), \"float32\"), R: T.Tensor((8,), \"float32\")):\n"
         "    with T.Kernel(1, threads=32) as bx:\n"
         "        x = T.alloc_fragment((8, 16), \"float32\")\n"
         "        r = T.alloc_fragment((8,), \"float32\")\n"
         "        T.copy(A, x)\n"
         "        T.reduce_sum(x, r, dim=1)\n"
         "        for i, j in T.Parallel(8, 16):\n"
         "            x[i, j] = x[i, j] + 1.0\n"
         "            r[i] = x[i, j]\n"
         "        T.copy(r, R)\n",
     CUDA, TL_EINVAL,
     "pass 'gpu_lower_simt': k.py:11:13: fragment 'r' is written at [i] inside T.Parallel, not at the loop's own "
     "element [i, j], while the loop's iterations are distributed over the block's threads (as fragment 'x'): an "
     "iteration may only write the element it owns. Write 'r' at [i, j], or in a loop of its own"},
    {HDR "@T.prim_func\n"
         "def k(A: T.Tensor((8, 16), \"float32\"), B: T.Tensor((8, 16), \"float32\")):\n"
         "    with T.Kernel(1, threads=32) as bx:\n"
         "        x = T.alloc_fragment((8, 16), \"float32\")\n"
         "        for i, j in T.Parallel(8, 16):\n"
         "            x[i, j % 4] = A[i, j]\n"
         "            T.atomic_add(B[i, j], A[i, j])\n",
     CUDA, TL_EINVAL,
     "k.py:7:13: fragment 'x' is written at [i, j % 4] inside T.Parallel, not at the loop's own element [i, j], while "
     "the loop's iterations are distributed over the block's threads (it writes global buffer 'B'): an iteration may "
     "only write the element it owns. Write 'x' at [i, j], or in a loop of its own"},
    {HDR "@T.prim_func\n"
         "def k(A: T.Tensor((16,), \"float32\"), B: T.Tensor((16,), \"float32\")):\n"
         "    with T.Kernel(1, threads=16) as bx:\n"
         "        acc = T.alloc_var(\"float32\", 0.0)\n"
         "        for i in T.Parallel(16):\n"
         "            acc = acc + A[i]\n"
         "            B[i] = acc\n",
     CUDA, TL_EINVAL,
     "k.py:7:13: local.var 'acc' is assigned inside T.Parallel, whose iterations are distributed over the block's "
     "threads (it writes global buffer 'B'); each thread would see only its own iterations. Use a fragment and a "
     "reduction instead"},
    {HDR "@T.prim_func\n"
         "def k(A: T.Tensor((16, 16), \"float32\")):\n"
         "    with T.Kernel(1, threads=16) as bx:\n"
         "        a = T.alloc_shared((16, 16), \"float32\")\n"
         "        c = T.alloc_fragment((16, 16), \"float32\")\n"
         "        for i in T.Parallel(2):\n"
         "            T.gemm(a, a, c)\n",
     CUDA, TL_EUNSUPPORTED, "k.py:8:13: T.gemm inside T.Parallel is not supported on GPU targets: move it out of the loop"},
    {HDR "@T.prim_func\n"
         "def k(A: T.Tensor((16,), \"float32\"), n: T.int32):\n"
         "    with T.Kernel(1, threads=n) as bx:\n"
         "        A[0] = 1.0\n",
     CUDA, TL_EUNSUPPORTED, "T.Kernel threads must be positive integer constants on GPU targets"},
    {HDR "@T.prim_func\n"
         "def k(A: T.Tensor((16,), \"float32\")):\n"
         "    with T.Kernel(1, threads=2048) as bx:\n"
         "        A[0] = 1.0\n",
     CUDA, TL_EINVAL, "k.py:4:5: T.Kernel asks for 2048 threads per block; the target allows at most 1024"},
    {HDR "@T.prim_func\n"
         "def k(A: T.Tensor((16,), \"float32\")):\n"
         "    with T.Kernel(1, threads=512) as bx:\n"
         "        A[0] = 1.0\n",
     OPENCL_HOST, TL_EINVAL, "T.Kernel asks for 512 threads per block; the target allows at most 256"},
    {HDR "@T.prim_func\n"
         "def k(A: T.Tensor((16,), \"float32\")):\n"
         "    with T.Kernel(1, threads=16) as bx:\n"
         "        for i in T.Parallel(16):\n"
         "            A[i] = 1.0\n"
         "            T.sync_threads()\n",
     CUDA, TL_EUNSUPPORTED,
     "pass 'gpu_insert_barriers': k.py:7:13: T.sync_threads inside T.Parallel: the loop's iterations are spread over "
     "the threads, which would wait at different places; put it between loops"},
    {HDR "N = T.symbolic(\"N\")\n"
         "@T.prim_func\n"
         "def k(A: T.Tensor((N,), \"float32\")):\n"
         "    with T.Kernel(1, threads=16) as bx:\n"
         "        f = T.alloc_fragment((N,), \"float32\")\n"
         "        T.copy(A, f)\n"
         "        T.copy(f, A)\n",
     CUDA, TL_EUNSUPPORTED, "fragment 'f' needs a constant shape on GPU targets (its registers are allocated per thread)"},
    {HDR "N = T.symbolic(\"N\")\n"
         "@T.prim_func\n"
         "def k(A: T.Tensor((N,), \"float32\")):\n"
         "    with T.Kernel(1, threads=16) as bx:\n"
         "        s = T.alloc_shared((N,), \"float32\")\n"
         "        T.copy(A, s)\n"
         "        T.copy(s, A)\n",
     CUDA, TL_EUNSUPPORTED, "shared buffer 's' needs a constant shape on GPU targets"},
    /* Beyond TL__GPU_MAX_RANK (16) dimensions: an error, not a truncated index list. */
    {HDR "@T.prim_func\n"
         "def k(A: T.Tensor((1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1), \"float32\")):\n"
         "    with T.Kernel(1, threads=16) as bx:\n"
         "        A[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] = 1.0\n",
     CUDA, TL_EUNSUPPORTED, "k.py:5:9: buffer 'A' has 17 dimensions; GPU targets support at most 16"},
    {HDR "@T.prim_func\n"
         "def k(A: T.Tensor((16,), \"float32\")):\n"
         "    with T.Kernel(1, threads=16) as bx:\n"
         "        for a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q in T.Parallel(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1):\n"
         "            A[0] = 1.0\n",
     CUDA, TL_EUNSUPPORTED, "loop over 'a' has 17 dimensions; GPU targets support at most 16"},
    {HDR "@T.prim_func\n"
         "def k(A: T.Tensor((16,), \"float32\")):\n"
         "    with T.Kernel(1, threads=16) as bx:\n"
         "        s = T.alloc_shared((1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1), \"float32\")\n"
         "        A[0] = s[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]\n",
     CUDA, TL_EUNSUPPORTED, "buffer 's' has 17 dimensions; GPU targets support at most 16"},
};

static void test_refusals(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof k_refusals / sizeof k_refusals[0]; i++) {
    tl_ir_module *m = parse_ok(k_refusals[i].src);
    tl_status s = gpu_lower(m, k_refusals[i].spec);
    if (s != k_refusals[i].status)
      fail_msg("case %zu: status %d (%s), expected %d", i, (int)s, s ? tl_last_error() : "", (int)k_refusals[i].status);
    if (!strstr(tl_last_error(), k_refusals[i].msg))
      fail_msg("case %zu: message\n  %s\ndoes not contain\n  %s", i, tl_last_error(), k_refusals[i].msg);
    tl_ir_module_free(m);
  }
}

/* gpu_check_sync refuses a barrier or a shuffle some threads would not reach. */
static void test_divergent_sync(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_builder_set_loc(m, (tl_ir_span){"h.py", 3, 5});
  tl_ir_expr *n16 = tl_ir_i32(m, 16);
  tl_ir_buffer *a = tl_ir_buffer_new(m, "A", TL_DT_FLOAT32, 1, &n16, NULL, TL_SCOPE_GLOBAL);
  tl_ir_var *bx = tl_ir_var_new(m, "bx", TL_DT_INT32), *tx = tl_ir_var_new(m, "tx", TL_DT_INT32);
  tl_ir_expr *itx = tl_ir_var_ref(m, tx);
  tl_ir_builder_set_loc(m, (tl_ir_span){"h.py", 7, 9});
  tl_ir_stmt *bar = tl_ir_barrier(m);
  tl_ir_stmt *body = tl_ir_if(m, tl_ir_binary(m, TL_BIN_LT, itx, tl_ir_i32(m, 8)), bar, NULL);
  tl_ir_expr *grid[1] = {tl_ir_i32(m, 1)}, *thr[1] = {tl_ir_i32(m, 16)};
  tl_ir_stmt *k = tl_ir_kernel(m, 1, grid, 1, thr, &bx, body);
  k->u.kernel.thread_vars[0] = tx;
  tl_ir_func *f;
  TL_ASSERT_OK(tl_ir_func_new(m, "f", &f));
  TL_ASSERT_OK(tl_ir_func_add_buffer_param(m, f, a, false));
  f->body = k;
  TL_ASSERT_OK(tl_ir_verify_module(m));
  TL_ASSERT_ERR(tl__pass_gpu_check_sync(m, NULL), TL_EINTERNAL,
                "h.py:7:9: a barrier under a condition that differs between threads: they would not all reach it");
  /* a shuffle in a loop whose trip count depends on the thread */
  tl_ir_var *i = tl_ir_var_new(m, "i", TL_DT_INT32);
  tl_ir_expr *sh = tl_ir_call(m, TL_OP_WARP_SHFL_XOR, TL_DT_INT32, 3,
                              (tl_ir_expr *[]){tl_ir_var_ref(m, i), tl_ir_i32(m, 1), tl_ir_i32(m, 2)});
  tl_ir_buffer *l = tl_ir_buffer_new(m, "l", TL_DT_INT32, 1, &n16, NULL, TL_SCOPE_LOCAL);
  tl_ir_stmt *st = tl_ir_store(m, l, 1, (tl_ir_expr *[]){tl_ir_var_ref(m, i)}, sh);
  tl_ir_stmt *loop = tl_ir_for(m, TL_FOR_SERIAL, 1, &i, NULL, &itx, st);
  k->u.kernel.body = tl_ir_seq(m, 2, (tl_ir_stmt *[]){tl_ir_alloc(m, l), loop});
  TL_ASSERT_OK(tl_ir_verify_module(m));
  TL_ASSERT_ERR(tl__pass_gpu_check_sync(m, NULL), TL_EINTERNAL,
                "h.py:7:9: T.warp_shfl_xor inside a loop whose trip count differs between threads");
  /* a loop over a uniform bound is fine, and so is a barrier at block level */
  tl_ir_expr *four = tl_ir_i32(m, 4);
  k->u.kernel.body = tl_ir_seq(m, 3, (tl_ir_stmt *[]){tl_ir_alloc(m, l), tl_ir_for(m, TL_FOR_SERIAL, 1, &i, NULL, &four, st),
                                                       tl_ir_barrier(m)});
  TL_ASSERT_OK(tl__pass_gpu_check_sync(m, NULL));
  /* two barriers in a row: one is enough */
  tl_ir_stmt *k2 = f->body;
  k2->u.kernel.body = tl_ir_seq(m, 3, (tl_ir_stmt *[]){tl_ir_barrier(m), tl_ir_barrier(m), st});
  k2->u.kernel.body = tl_ir_seq(m, 2, (tl_ir_stmt *[]){tl_ir_alloc(m, l), tl_ir_let(m, i, tl_ir_i32(m, 1), k2->u.kernel.body)});
  TL_ASSERT_OK(tl_ir_verify_module(m));
  TL_ASSERT_OK(tl__pass_gpu_check_sync(m, NULL));
  char *text = tl_ir_print_func(f);
  assert_int_equal(count(text, "T.sync_threads()"), 1);
  tl_free(text);
  tl_ir_module_free(m);
}

/* ------------------------------------------------------------- parameters */

static void test_params(void **state) {
  (void)state;
  assert_int_equal(tl__cuda_max_shared_bytes("sm_90a"), 232448);
  assert_int_equal(tl__cuda_max_shared_bytes("sm_80"), 166912);
  assert_int_equal(tl__cuda_max_shared_bytes("sm_86"), 101376);
  assert_int_equal(tl__cuda_max_shared_bytes("sm_75"), 65536);
  assert_int_equal(tl__cuda_max_shared_bytes(NULL), 49152);
  assert_int_equal(tl__cuda_max_shared_bytes("compute_90"), 49152);
  tl_target *t;
  tl__gpu_params p;
  TL_ASSERT_OK(tl_target_parse("{\"kind\":\"cuda\",\"arch\":\"sm_80\",\"thread_warp_size\":16,\"max_threads_per_block\":512}", &t));
  tl__cuda_gpu_params(t, &p);
  assert_int_equal(p.warp_size, 16);
  assert_int_equal(p.max_threads, 512);
  assert_int_equal(p.max_shared_bytes, 166912);
  assert_int_equal(p.static_shared_bytes, 49152);
  assert_int_equal(p.vector_bytes, 16);
  assert_string_equal(p.launch_convention, "cuda_driver");
  tl_target_release(t);
  /* a tag records the static 48 KB: the arch's opt-in maximum still applies */
  TL_ASSERT_OK(tl_target_parse("nvidia/nvidia-h100", &t));
  tl__cuda_gpu_params(t, &p);
  assert_int_equal(p.warp_size, 32);
  assert_true(p.max_shared_bytes >= 227 * 1024);
  tl_target_release(t);
  /* generic defaults from a target alone: opencl's warp 1 */
  TL_ASSERT_OK(tl_target_parse("opencl", &t));
  tl__gpu_params_from_target(t, NULL, &p);
  assert_int_equal(p.warp_size, 1);
  assert_int_equal(p.max_threads, 256);
  tl_target_release(t);
  /* the pass list is one list */
  assert_true(tl__gpu_num_passes > 8);
  assert_string_equal(tl__gpu_passes[0].name, "simplify");
}

/* --------------------------------------------------------- out of memory */

typedef struct oom_ctx {
  const tl_ir_module *src;
  const char *spec;
} oom_ctx;

static tl_status lower_clone(void *arg) {
  oom_ctx *c = arg;
  tl_ir_module *m = NULL;
  tl_target *t = NULL;
  tl_status s = tl_ir_module_clone(c->src, &m);
  if (s == TL_OK) s = tl_target_parse(c->spec, &t);
  if (s == TL_OK) {
    tl__gpu_params p;
    gpu_test_params(t, &p);
    s = tl__gpu_lower(m, t, &p);
  }
  if (s == TL_OK) s = tl_ir_verify_module(m);
  tl_target_release(t);
  tl_ir_module_free(m);
  return s;
}

/* Every allocation failure during GPU lowering is reported as TL_ENOMEM. */
static void test_oom(void **state) {
  (void)state;
  static const char *const files[] = {"softmax.py", "gemm.py", "row_max.py", "cumsum.py", "vector_add.py"};
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    tl_ir_module *m = example(files[i], NULL, 0);
    oom_ctx c = {m, i % 2 ? CUDA : HIP_HOST};
    long sites = tl_oom_sweep(lower_clone, NULL, &c);
    assert_true(sites > 10);
    tl_ir_module_free(m);
  }
  tl_ir_module *m = parse_ok(k_big_shared);
  oom_ctx c = {m, CUDA};
  assert_true(tl_oom_sweep(lower_clone, NULL, &c) > 10);
  tl_ir_module_free(m);
}

/* ---------------------------------------------------------------- golden */

static void golden(const char *file, const char *name) {
  tl_ir_module *m = example(file, NULL, 0);
  TL_ASSERT_OK(gpu_lower(m, CUDA));
  char *text = printed(m);
  char path[1024];
  snprintf(path, sizeof path, "%s/tests/golden/gpu_lowered/%s.txt", TL_SOURCE_DIR, name);
  if (getenv("TL_REGEN_GOLDEN")) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
  } else {
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("missing %s (run scripts/regen-golden.sh gpu_lowered)", path);
    char *want = calloc(1, 1 << 20);
    size_t n = fread(want, 1, (1 << 20) - 1, f);
    fclose(f);
    want[n] = '\0';
    if (strcmp(want, text) != 0) {
      fprintf(stderr, "---- got:\n%s---- expected (%s):\n%s----\n", text, path, want);
      free(want);
      fail_msg("lowered %s differs from %s", file, path);
    }
    free(want);
  }
  tl_free(text);
  tl_ir_module_free(m);
}

static const tl_ir_stmt *find_kernel(const tl_ir_stmt *s) {
  if (!s) return NULL;
  if (s->kind == TL_STMT_KERNEL) return s;
  if (s->kind == TL_STMT_LET) return find_kernel(s->u.let.body);
  if (s->kind == TL_STMT_SEQ)
    for (uint32_t i = 0; i < s->u.seq.n; i++) {
      const tl_ir_stmt *k = find_kernel(s->u.seq.stmts[i]);
      if (k) return k;
    }
  return NULL;
}

/* What layout inference decides for an example's kernel (after the passes that
 * run before gpu_lower_simt), printed: tests/golden/gpu_lowered/<name>.layouts.txt. */
static void layouts_golden(const char *file, const tl_ir_const_binding *consts, size_t n, const char *name) {
  tl_ir_module *m = example(file, consts, n);
  tl_target *t = NULL;
  TL_ASSERT_OK(tl_target_parse(CUDA, &t));
  TL_ASSERT_OK(tl__pass_simplify(m, t));
  TL_ASSERT_OK(tl__pass_lower_elementwise_tile_ops(m, t));
  tl__gpu_params p;
  tl__gpu_params_get(t, &p);
  const tl_ir_stmt *k = find_kernel(tl_ir_module_func(m, 0)->body);
  assert_non_null(k);
  tl__gpu_kernel_info info;
  TL_ASSERT_OK(tl__gpu_infer_layouts(k, &p, &info));
  char *text = tl__gpu_layouts_text(&info);
  assert_non_null(text);
  char path[1024];
  snprintf(path, sizeof path, "%s/tests/golden/gpu_lowered/%s.layouts.txt", TL_SOURCE_DIR, name);
  if (getenv("TL_REGEN_GOLDEN")) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
  } else {
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("missing %s (run scripts/regen-golden.sh gpu_lowered)", path);
    char *want = calloc(1, 1 << 20);
    size_t got = fread(want, 1, (1 << 20) - 1, f);
    fclose(f);
    want[got] = '\0';
    if (strcmp(want, text) != 0) {
      fprintf(stderr, "---- got:\n%s---- expected (%s):\n%s----\n", text, path, want);
      free(want);
      fail_msg("layouts of %s differ from %s", file, path);
    }
    free(want);
  }
  tl__free(text);
  tl__gpu_kernel_info_free(&info);
  tl_target_release(t);
  tl_ir_module_free(m);
}

static void test_golden(void **state) {
  (void)state;
  golden("gemm.py", "gemm");
  golden("softmax.py", "softmax");
  golden("flash_attention.py", "flash_attention");
  layouts_golden("softmax.py", NULL, 0, "softmax");
  layouts_golden("gemm.py", NULL, 0, "gemm");
  layouts_golden("flash_attention.py", NULL, 0, "flash_attention");
  static const tl_ir_const_binding causal[] = {{"is_causal", "True"}};
  layouts_golden("flash_attention.py", causal, 1, "flash_attention_causal");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_thread_binding),     cmocka_unit_test(test_kernel_target_attr),
      cmocka_unit_test(test_shuffles_by_warp),   cmocka_unit_test(test_vectorization),
      cmocka_unit_test(test_dynamic_shared_memory), cmocka_unit_test(test_barrier_placement),
      cmocka_unit_test(test_host_checks),        cmocka_unit_test(test_host_c_alignment_check),
      cmocka_unit_test(test_kernel_table),
      cmocka_unit_test(test_refusals),           cmocka_unit_test(test_divergent_sync),
      cmocka_unit_test(test_params),             cmocka_unit_test(test_oom),
      cmocka_unit_test(test_golden),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
