"""Per-thread code: T.get_thread_binding (and T.thread_binding) give threadIdx; every thread of the block
runs the statements, T.sync_threads separates the phases, T.assume states a fact
(upstream's gemv and split-k gemv style). A split-k gemv: each (tn, tk) thread accumulates a slice of
a row in a local register, the partial sums meet in shared memory, and a tree
reduction over tk with barriers between its levels gives the row's sum."""
import tilelang.language as T

# tlc-args: --func splitk_gemv --param N=40 --param K=96 --param BLOCK_N=8 --param RT=4

def splitk_gemv(N, K, BLOCK_N, RT):
    TILE_K = T.ceildiv(K, RT)

    @T.prim_func
    def main(A: T.Tensor((K,), "float16"), B: T.Tensor((N, K), "float16"), C: T.Tensor((N,), "float32")):
        with T.Kernel(T.ceildiv(N, BLOCK_N), threads=(BLOCK_N, RT)) as bn:
            tn = T.get_thread_binding(0)
            tk = T.thread_binding(0, RT, thread="threadIdx.y")
            acc = T.alloc_local((1,), "float32")
            part = T.alloc_shared((BLOCK_N, RT), "float32")
            T.clear(acc)
            row = bn * BLOCK_N + tn
            T.assume(tk < RT)
            for k in T.Pipelined(TILE_K, num_stages=2):
                kk = tk * TILE_K + k
                if row < N and kk < K:
                    acc[0] += A[kk].astype("float32") * B[row, kk].astype("float32")
            part[tn, tk] = acc[0]
            T.sync_threads()
            for lvl in T.serial(2):
                half = RT // (2 << lvl)
                if tk < half:
                    part[tn, tk] = part[tn, tk] + part[tn, tk + half]
                T.sync_threads()
            if tk == 0 and row < N:
                C[row] = part[tn, 0]

    return main
