"""T.clear and T.fill of a T.alloc_var scalar assign it, as upstream's kernels
(the MLA decode example) use them."""
import tilelang.language as T


@T.prim_func
def clear_var(A: T.Tensor((8, 16), "float32"), S: T.Tensor((8,), "float32")):
    with T.Kernel(8, threads=1) as bx:
        acc = T.alloc_var("float32")
        T.fill(acc, 5.0)
        T.clear(acc)
        for i in T.serial(16):
            acc += A[bx, i]
        S[bx] = acc
