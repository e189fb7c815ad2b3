"""T.copy of single elements, as upstream's kernels write it (a scalar moved
between global memory, shared memory and a fragment; upstream lowers it to a
store), with a conversion from float32 to float16 on the way."""
import tilelang.language as T


@T.prim_func
def element_copy(A: T.Tensor((8, 16), "float32"), B: T.Tensor((8,), "float16"), C: T.Tensor((8, 16), "float32")):
    with T.Kernel(8, threads=32) as bx:
        s = T.alloc_shared((16,), "float32")
        f = T.alloc_fragment((1,), "float16")
        T.copy(A[bx, 0:16], s)
        T.copy(A[bx, 3], f[0])
        T.copy(f[0], B[bx])
        T.copy(s[15], C[bx, 0])
        T.copy(A[bx, 1:16], C[bx, 1:16])

