/* Kernels in upstream's style for the operations added with the op table's
 * later rows, shared by the tests that run them on every path: the lowering
 * tests (c and GPU pipelines against the interpreter, the SIMT interpreter's race
 * detection), the CPU backend's runners, and the CUDA cases (NVRTC for sm_90a;
 * the GPU machine against the interpreter). Plain data. */
#ifndef TL_MORE_OPS_SRC_H
#define TL_MORE_OPS_SRC_H

/* One kernel that uses tvm.tir's operators by name and the math intrinsics added
 * with them (T.floordiv ... T.fmod), shared by the interpreter's test against
 * plain C (test_interp_tir_ops), the CPU backend and the GPU lowering (both
 * against the interpreter on random inputs). Divisors are made 1..15 and shifted
 * values non-negative inside the kernel, so that random inputs never divide by
 * zero or shift a negative value left. */
#define TIR_OPS_INT_COLS 12
#define TIR_OPS_FLOAT_COLS 9

#define TIR_OPS_SRC \
  "import tilelang.language as T\n" \
  "N = T.symbolic(\"N\")\n" \
  "@T.prim_func\n" \
  "def ops(I: T.Tensor((N,), \"int32\"), J: T.Tensor((N,), \"int32\"), X: T.Tensor((N,), \"float32\"),\n" \
  "        Y: T.Tensor((N,), \"float32\"), O: T.Tensor((N, 12), \"int32\"), F: T.Tensor((N, 9), \"float32\")):\n" \
  "    with T.Kernel(T.ceildiv(N, 32), threads=32) as bx:\n" \
  "        for t in T.Parallel(32):\n" \
  "            i = bx * 32 + t\n" \
  "            if i < N:\n" \
  "                d = T.bitwise_or(T.bitwise_and(J[i], 15), 1)\n" \
  "                O[i, 0] = T.floordiv(I[i], -d)\n" \
  "                O[i, 1] = T.floormod(I[i], -d)\n" \
  "                O[i, 2] = T.truncdiv(I[i], -d)\n" \
  "                O[i, 3] = T.truncmod(I[i], -d)\n" \
  "                O[i, 4] = T.shift_left(T.bitwise_and(I[i], 0xffff), T.bitwise_and(J[i], 7))\n" \
  "                O[i, 5] = T.shift_right(I[i], T.bitwise_and(J[i], 7))\n" \
  "                O[i, 6] = T.bitwise_or(I[i], J[i])\n" \
  "                O[i, 7] = T.bitwise_xor(I[i], J[i])\n" \
  "                O[i, 8] = T.bitwise_not(I[i])\n" \
  "                O[i, 9] = T.max(I[i], J[i], -7)\n" \
  "                O[i, 10] = T.min(I[i], J[i], 7)\n" \
  "                O[i, 11] = T.clamp(I[i], -50, 50)\n" \
  "                F[i, 0] = T.erf(X[i])\n" \
  "                F[i, 1] = T.log10(T.abs(X[i]) + 1.0)\n" \
  "                F[i, 2] = T.log1p(T.abs(Y[i]))\n" \
  "                F[i, 3] = T.expm1(T.clamp(X[i], min_val=-4.0, max_val=4.0))\n" \
  "                F[i, 4] = T.tan(T.clamp(X[i], -1.0, 1.0))\n" \
  "                F[i, 5] = T.fmod(X[i], T.abs(Y[i]) + 0.5)\n" \
  "                F[i, 6] = T.Select(X[i] > Y[i], X[i], Y[i] * 2.0)\n" \
  "                F[i, 7] = T.clamp(X[i], max_val=0.25)\n" \
  "                F[i, 8] = T.max(X[i], Y[i], T.min_value(\"float32\"))\n"

/* A T.cummax kernel in upstream's style, shared by the lowering tests (c and
 * GPU pipelines against the interpreter) and the CPU backend's runs: fragments
 * (int16 into int32, both directions, in place), shared memory with its lines
 * spread over the threads, and from one shared buffer into another. */
#define CUMMAX_SRC \
  "import tilelang.language as T\n" \
  "@T.prim_func\n" \
  "def cm(A: T.Tensor((6, 9), \"int16\"), B: T.Tensor((6, 9), \"int32\"), C: T.Tensor((6, 9), \"int32\"),\n" \
  "       X: T.Tensor((10, 7), \"float32\"), Y: T.Tensor((10, 7), \"float32\"), Z: T.Tensor((10, 7), \"float32\")):\n" \
  "    with T.Kernel(1, threads=4) as bx:\n" \
  "        a = T.alloc_fragment((6, 9), \"int16\")\n" \
  "        b = T.alloc_fragment((6, 9), \"int32\")\n" \
  "        s = T.alloc_shared((10, 7), \"float32\")\n" \
  "        t = T.alloc_shared((10, 7), \"float32\")\n" \
  "        T.copy(A, a)\n" \
  "        T.cummax(a, b, dim=1)\n" \
  "        T.copy(b, B)\n" \
  "        T.cummax(a, b, dim=0, reverse=True)\n" \
  "        T.cummax(b, dim=1, reverse=True)\n" \
  "        T.copy(b, C)\n" \
  "        T.copy(X, s)\n" \
  "        T.cummax(s, t, dim=0)\n" \
  "        T.cummax(s, dim=1, reverse=True)\n" \
  "        T.copy(s, Y)\n" \
  "        T.copy(t, Z)\n"

/* T.reduce_bitand / T.reduce_bitor: rows of a fragment (and-folded into its
 * old values), columns of a shared buffer, the last block partly past the end
 * (T.copy pads with zeros). Three columns, so that random inputs leave bits set. */
#define BITANDOR_SRC \
  "import tilelang.language as T\n" \
  "N = T.symbolic(\"N\")\n" \
  "@T.prim_func\n" \
  "def x(E: T.Tensor((N, 3), \"int32\"), F: T.Tensor((N,), \"int32\"), G: T.Tensor((N,), \"int32\"),\n" \
  "      B: T.Tensor((N, 12), \"uint8\"), C: T.Tensor((N, 12), \"uint8\"), D: T.Tensor((N, 12), \"uint8\")):\n" \
  "    with T.Kernel(T.ceildiv(N, 8), threads=32) as bx:\n" \
  "        e = T.alloc_fragment((8, 3), \"int32\")\n" \
  "        f = T.alloc_fragment((8,), \"int32\")\n" \
  "        g = T.alloc_fragment((8,), \"int32\")\n" \
  "        b = T.alloc_shared((2, 12), \"uint8\")\n" \
  "        c = T.alloc_fragment((12,), \"uint8\")\n" \
  "        d = T.alloc_fragment((12,), \"uint8\")\n" \
  "        T.copy(E[bx * 8, 0], e)\n" \
  "        T.copy(F[bx * 8], f)\n" \
  "        T.reduce_bitand(e, f, dim=1, clear=False)\n" \
  "        T.reduce_bitor(e, g)\n" \
  "        T.copy(f, F[bx * 8])\n" \
  "        T.copy(g, G[bx * 8])\n" \
  "        T.copy(B[bx * 2, 0], b)\n" \
  "        T.reduce_bitand(b, c, dim=0)\n" \
  "        T.reduce_bitor(b, d, dim=0)\n" \
  "        T.copy(c, C[bx, 0])\n" \
  "        T.copy(d, D[bx, 0])\n"

/* Tensor-core gemms (mma.sync) of every operand form: shared by the emulated and
 * device tests (cuda cases) and the interpreter differential (test_gpu_pipeline).
 * c on the default Square warp grid (2 x 2 warps), d (bfloat16) FullRow (4 x 1). */
#define CUDA_MMA_SRC \
  "import tilelang.language as T\n" \
  "@T.prim_func\n" \
  "def mma(A: T.Tensor((64, 32), \"float16\"), At: T.Tensor((32, 64), \"float16\"), Bt: T.Tensor((32, 32), \"float16\"),\n" \
  "        X: T.Tensor((64, 32), \"bfloat16\"), Y: T.Tensor((32, 32), \"bfloat16\"), C: T.Tensor((64, 32), \"float32\"),\n" \
  "        D: T.Tensor((64, 32), \"float32\")):\n" \
  "    with T.Kernel(1, threads=128) as bx:\n" \
  "        a = T.alloc_shared((64, 32), \"float16\")\n" \
  "        at = T.alloc_shared((32, 64), \"float16\")\n" \
  "        bt = T.alloc_shared((32, 32), \"float16\")\n" \
  "        x = T.alloc_shared((64, 32), \"bfloat16\")\n" \
  "        y = T.alloc_shared((32, 32), \"bfloat16\")\n" \
  "        c = T.alloc_fragment((64, 32), \"float32\")\n" \
  "        d = T.alloc_fragment((64, 32), \"float32\")\n" \
  "        T.copy(A, a)\n" \
  "        T.copy(At, at)\n" \
  "        T.copy(Bt, bt)\n" \
  "        T.copy(X, x)\n" \
  "        T.copy(Y, y)\n" \
  "        T.clear(c)\n" \
  "        T.gemm(a, bt, c, transpose_B=True)\n" \
  "        T.gemm(at, bt, c, transpose_A=True, transpose_B=True)\n" \
  "        T.gemm(x, y, d, clear_accum=True, policy=T.GemmWarpPolicy.FullRow)\n" \
  "        T.gemm(x, y, d, transpose_B=True, policy=T.GemmWarpPolicy.FullRow)\n" \
  "        T.copy(c, C)\n" \
  "        T.copy(d, D)\n"

/* Warp grids meeting other operations: the row max of c (Square, 2 x 2 warps over
 * 64 x 64) crosses warps through shared memory and feeds a T.Parallel over e (1 x 4
 * warps, FullCol); an element store to c outside T.Parallel goes to its owner. */
#define CUDA_MMA_GRIDS_SRC \
  "import tilelang.language as T\n" \
  "@T.prim_func\n" \
  "def grids(A: T.Tensor((64, 32), \"float16\"), B: T.Tensor((64, 32), \"float16\"), C: T.Tensor((64, 64), \"float32\"),\n" \
  "          E: T.Tensor((64, 64), \"float32\"), R: T.Tensor((64,), \"float32\")):\n" \
  "    with T.Kernel(1, threads=128) as bx:\n" \
  "        a = T.alloc_shared((64, 32), \"float16\")\n" \
  "        b = T.alloc_shared((64, 32), \"float16\")\n" \
  "        c = T.alloc_fragment((64, 64), \"float32\")\n" \
  "        e = T.alloc_fragment((64, 64), \"float32\")\n" \
  "        r = T.alloc_fragment((64,), \"float32\")\n" \
  "        T.copy(A, a)\n" \
  "        T.copy(B, b)\n" \
  "        T.gemm(a, b, c, transpose_B=True, clear_accum=True)\n" \
  "        T.gemm(a, b, e, transpose_B=True, clear_accum=True, policy=T.GemmWarpPolicy.FullCol)\n" \
  "        c[37, 45] = 1000.0\n" \
  "        T.reduce_max(c, r, dim=1)\n" \
  "        for i, j in T.Parallel(64, 64):\n" \
  "            e[i, j] = e[i, j] - r[i]\n" \
  "        T.copy(c, C)\n" \
  "        T.copy(e, E)\n" \
  "        T.copy(r, R)\n"

/* Row statistics as projections of the accumulators' layouts, and P @ V with P in
 * registers (FlashAttention's shape), over two warps: a row sum on a FullCol grid
 * (1 x 2: the two warp columns meet in shared memory) into a fragment first filled, then
 * stored by its row's threads, subtracted beside its rows; a row max and sum on a
 * FullRow grid (within each warp), exp2 of the scores cast into the float16 A
 * operand of a tensor-core gemm (RS), the output divided by the sums; a 1-D loop
 * over the row statistics that writes global memory (once per row). */
#define CUDA_ROWS_SRC \
  "import tilelang.language as T\n" \
  "@T.prim_func\n" \
  "def rows(A: T.Tensor((32, 32), \"float16\"), B: T.Tensor((32, 32), \"float16\"), V: T.Tensor((32, 32), \"float16\"),\n" \
  "         C: T.Tensor((32, 32), \"float32\"), O: T.Tensor((32, 32), \"float32\"), R: T.Tensor((32,), \"float32\"),\n" \
  "         M: T.Tensor((32,), \"float32\")):\n" \
  "    with T.Kernel(1, threads=64) as bx:\n" \
  "        a = T.alloc_shared((32, 32), \"float16\")\n" \
  "        b = T.alloc_shared((32, 32), \"float16\")\n" \
  "        v = T.alloc_shared((32, 32), \"float16\")\n" \
  "        c = T.alloc_fragment((32, 32), \"float32\")\n" \
  "        s = T.alloc_fragment((32, 32), \"float32\")\n" \
  "        p = T.alloc_fragment((32, 32), \"float16\")\n" \
  "        o = T.alloc_fragment((32, 32), \"float32\")\n" \
  "        r = T.alloc_fragment((32,), \"float32\")\n" \
  "        m = T.alloc_fragment((32,), \"float32\")\n" \
  "        l = T.alloc_fragment((32,), \"float32\")\n" \
  "        T.copy(A, a)\n" \
  "        T.copy(B, b)\n" \
  "        T.copy(V, v)\n" \
  "        T.gemm(a, b, c, transpose_B=True, clear_accum=True, policy=T.GemmWarpPolicy.FullCol)\n" \
  "        T.gemm(a, b, s, transpose_B=True, clear_accum=True, policy=T.GemmWarpPolicy.FullRow)\n" \
  "        T.fill(r, 0.5)\n" \
  "        r[21] = -3.0\n" \
  "        T.reduce_sum(c, r, dim=1, clear=False)\n" \
  "        for i, j in T.Parallel(32, 32):\n" \
  "            c[i, j] = c[i, j] - r[i]\n" \
  "        T.reduce_max(s, m, dim=1)\n" \
  "        for i, j in T.Parallel(32, 32):\n" \
  "            s[i, j] = T.exp2(s[i, j] - m[i])\n" \
  "        T.reduce_sum(s, l, dim=1)\n" \
  "        T.copy(s, p)\n" \
  "        T.gemm(p, v, o, clear_accum=True, policy=T.GemmWarpPolicy.FullRow)\n" \
  "        for i, j in T.Parallel(32, 32):\n" \
  "            o[i, j] = o[i, j] / l[i]\n" \
  "        T.copy(c, C)\n" \
  "        T.copy(o, O)\n" \
  "        for i in T.Parallel(32):\n" \
  "            R[i] = r[i]\n" \
  "        T.copy(m, M)\n"

/* P @ V with P a fragment whose layout is not the mma A operand map (its gemm's
 * warps split the columns: FullCol on two warps): staged through a shared tile
 * per use, inside a loop with no other shared write (only the staging's own
 * barrier keeps the next round's stores from the slower warps' reads). */
#define CUDA_RS_STAGED_SRC \
  "import tilelang.language as T\n" \
  "@T.prim_func\n" \
  "def staged(A: T.Tensor((32, 32), \"float16\"), B: T.Tensor((32, 32), \"float16\"), V: T.Tensor((32, 32), \"float16\"),\n" \
  "           O: T.Tensor((32, 32), \"float32\")):\n" \
  "    with T.Kernel(1, threads=64) as bx:\n" \
  "        a = T.alloc_shared((32, 32), \"float16\")\n" \
  "        b = T.alloc_shared((32, 32), \"float16\")\n" \
  "        v = T.alloc_shared((32, 32), \"float16\")\n" \
  "        s = T.alloc_fragment((32, 32), \"float32\")\n" \
  "        p = T.alloc_fragment((32, 32), \"float16\")\n" \
  "        o = T.alloc_fragment((32, 32), \"float32\")\n" \
  "        T.copy(A, a)\n" \
  "        T.copy(B, b)\n" \
  "        T.copy(V, v)\n" \
  "        T.clear(o)\n" \
  "        for t in T.serial(2):\n" \
  "            T.gemm(a, b, s, transpose_B=True, clear_accum=True, policy=T.GemmWarpPolicy.FullCol)\n" \
  "            for i, j in T.Parallel(32, 32):\n" \
  "                p[i, j] = s[i, j] * 0.125 + t\n" \
  "            T.gemm(p, v, o, policy=T.GemmWarpPolicy.FullCol)\n" \
  "        T.copy(o, O)\n"

/* T.atomic_max / T.atomic_min in upstream's style: elementwise inside T.Parallel
 * from several blocks into the same global elements (float32, int32, uint32,
 * float64, int64), with memory_order=, on a fragment (a plain max), and a tile
 * (a fragment into a global region named by its corner). The last block is
 * partly past the end (guarded; T.copy pads with zeros). */
#define ATOMIC_MINMAX_SRC \
  "import tilelang.language as T\n" \
  "@T.prim_func\n" \
  "def amm(A: T.Tensor((37, 16), \"float32\"), Mx: T.Tensor((16,), \"float32\"), Mn: T.Tensor((16,), \"float32\"),\n" \
  "        W: T.Tensor((40, 16), \"float32\"), I: T.Tensor((37, 16), \"int32\"), IMx: T.Tensor((16,), \"int32\"),\n" \
  "        U: T.Tensor((37,), \"uint32\"), UMn: T.Tensor((4,), \"uint32\"), D: T.Tensor((37, 16), \"float64\"),\n" \
  "        DMx: T.Tensor((37, 16), \"float64\"), L: T.Tensor((37,), \"int64\"), LMn: T.Tensor((1,), \"int64\")):\n" \
  "    with T.Kernel(T.ceildiv(37, 8), threads=32) as bx:\n" \
  "        f = T.alloc_fragment((8, 16), \"float32\")\n" \
  "        T.copy(A[bx * 8, 0], f)\n" \
  "        T.atomic_max(f, 0.5)\n" \
  "        T.atomic_min(W[bx * 8, 0], f)\n" \
  "        for i, j in T.Parallel(8, 16):\n" \
  "            if bx * 8 + i < 37:\n" \
  "                T.atomic_max(Mx[j], f[i, j])\n" \
  "                T.atomic_min(Mn[j], A[bx * 8 + i, j], memory_order=\"relaxed\")\n" \
  "                T.atomic_max(IMx[j], I[bx * 8 + i, j])\n" \
  "                T.atomic_max(DMx[bx * 8 + i, j], D[bx * 8 + i, j] * 0.5)\n" \
  "        for i in T.Parallel(8):\n" \
  "            if bx * 8 + i < 37:\n" \
  "                T.atomic_min(UMn[i % 4], U[bx * 8 + i])\n" \
  "                T.atomic_min(LMn[0], L[bx * 8 + i])\n"

/* T.any_of / T.all_of (a bool row, a whole shared buffer, a slice, as an if
 * condition) and T.atomic_addx2 / T.atomic_addx4 (elements and slices, inside
 * T.Parallel from several blocks into the same rows; float16 at block level). */
#define ANYALL_ADDX_SRC \
  "import tilelang.language as T\n" \
  "@T.prim_func\n" \
  "def aax(I: T.Tensor((8, 5), \"int32\"), M: T.Tensor((8, 4), \"bool\"), O: T.Tensor((8, 4), \"int32\"),\n" \
  "        A: T.Tensor((8, 12), \"float32\"), B: T.Tensor((4, 12), \"float32\"), H: T.Tensor((8, 4), \"float16\"),\n" \
  "        HB: T.Tensor((2, 4), \"float16\")):\n" \
  "    with T.Kernel(8, threads=32) as bx:\n" \
  "        s = T.alloc_shared((5,), \"int32\")\n" \
  "        T.copy(I[bx, 0:5], s)\n" \
  "        for j in T.Parallel(5):\n" \
  "            s[j] = T.Select(s[j] % 3 != 0, 1, 0)\n" \
  "        O[bx, 0] = T.any_of(M[bx, :])\n" \
  "        O[bx, 1] = T.all_of(M[bx, 0:4])\n" \
  "        O[bx, 2] = T.all_of(s)\n" \
  "        if T.any_of(s[1:3]):\n" \
  "            O[bx, 3] = 7\n" \
  "        else:\n" \
  "            O[bx, 3] = -7\n" \
  "        for j in T.Parallel(3):\n" \
  "            T.atomic_addx2(B[bx % 4, j * 2], A[bx, j * 2])\n" \
  "        for j in T.Parallel(2):\n" \
  "            T.atomic_addx4(B[(bx + j) % 4, 6 + j * 2:6 + j * 2 + 4], A[bx, 6 + j * 2:6 + j * 2 + 4])\n" \
  "        T.atomic_addx2(HB[bx % 2, 1], H[bx, 2:4], return_prev=True)\n"

#endif
