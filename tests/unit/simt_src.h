/* A kernel written as per-thread code (T.get_thread_binding, ir/parse/elab_simt.c),
 * shared by the tests that run it on every path: the interpreter against plain C
 * (test_simt_kernels), the CPU backend's runners, the GPU lowering through the
 * SIMT interpreter (test_gpu_pipeline) and the CUDA stand-in (cuda_cases.h).
 * 37 rows over blocks of 8 (the last block partial), 4 threads per row: each
 * thread sums its 4 columns in a local register, counts its positive elements in
 * a local.var, writes P itself; the partial sums meet in shared memory and a tree
 * over the 4 threads with a barrier per level gives S; the counts go through a
 * shared atomic into C; each thread adds its 2 elements of W into row tr of Q
 * with T.atomic_addx2 (threads of every block race there). Plain data. */
#ifndef TL_SIMT_SRC_H
#define TL_SIMT_SRC_H

#define SIMT_ROWS 37
#define SIMT_BLOCKS 5

#define SIMT_KERNEL_SRC \
  "import tilelang.language as T\n" \
  "@T.prim_func\n" \
  "def st(A: T.Tensor((37, 16), \"float32\"), S: T.Tensor((37,), \"float32\"), P: T.Tensor((37, 16), \"float32\"), C: T.Tensor((5,), \"int32\"),\n" \
  "       W: T.Tensor((37, 8), \"int32\"), Q: T.Tensor((8, 2), \"int32\")):\n" \
  "    with T.Kernel(5, threads=(4, 8)) as bx:\n" \
  "        tk = T.get_thread_binding(0)\n" \
  "        tr = T.get_thread_binding(1)\n" \
  "        b = T.get_block_binding(0)\n" \
  "        nk = T.get_thread_extent(0)\n" \
  "        acc = T.alloc_local((2,), \"float32\")\n" \
  "        cnt = T.alloc_var(\"int32\")\n" \
  "        part = T.alloc_shared((8, 4), \"float32\")\n" \
  "        total = T.alloc_shared((1,), \"int32\")\n" \
  "        T.clear(acc)\n" \
  "        T.clear(cnt)\n" \
  "        if tk == 0 and tr == 0:\n" \
  "            total[0] = 0\n" \
  "        row = b * 8 + tr\n" \
  "        for j in T.serial(16 // nk):\n" \
  "            col = tk * (16 // nk) + j\n" \
  "            if row < 37:\n" \
  "                v = A[row, col]\n" \
  "                acc[0] += v\n" \
  "                if v > 0.0:\n" \
  "                    cnt += 1\n" \
  "                P[row, col] = v * T.Cast(\"float32\", tk + 1)\n" \
  "        part[tr, tk] = acc[0]\n" \
  "        if row < 37:\n" \
  "            T.atomic_addx2(Q[tr, 0:2], W[row, 2 * tk:2 * tk + 2])\n" \
  "        T.sync_threads()\n" \
  "        T.atomic_add(total[0], cnt)\n" \
  "        for lvl in T.serial(2):\n" \
  "            h = 2 >> lvl\n" \
  "            if tk < h:\n" \
  "                part[tr, tk] += part[tr, tk + h]\n" \
  "            T.sync_threads()\n" \
  "        if tk == 0 and row < 37:\n" \
  "            S[row] = part[tr, 0]\n" \
  "        if tk == 0 and tr == 0:\n" \
  "            C[b] = total[0]\n"

#endif
