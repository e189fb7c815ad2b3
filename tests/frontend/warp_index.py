"""Warp and lane indices, as upstream's get_warp_info tests use them: every thread
of a 2-D block writes its lane, warp and warp-group index into a global tensor.
T.get_lane_idx, T.get_warp_idx, T.get_warp_idx_sync and T.get_warp_group_idx are
arithmetic on the block's linear thread index tx + threads_x * ty: with the
default sizes (warp_size 32, 4 warps per group) and with sizes given, positionally
and by keyword. 48 x 5 threads: warps straddle the rows and the last one is partial."""
import tilelang
import tilelang.language as T

# tlc-args: --func warp_info --param blocks=2 --param threads_x=48 --param threads_y=5 --param warp_size=20

@tilelang.jit(out_idx=[-1])
def warp_info(blocks=1, threads_x=64, threads_y=2, warp_size=None, warps_per_group=None):

    @T.prim_func
    def main(A: T.Tensor((blocks, threads_y, threads_x, 7), T.int32)):
        with T.Kernel(blocks, threads=(threads_x, threads_y)) as bx:
            tx = T.get_thread_binding(0)
            ty = T.get_thread_binding(1)
            A[bx, ty, tx, 0] = T.get_lane_idx()
            A[bx, ty, tx, 1] = T.get_warp_idx()
            A[bx, ty, tx, 2] = T.get_warp_group_idx()
            A[bx, ty, tx, 3] = T.get_lane_idx(warp_size)
            A[bx, ty, tx, 4] = T.get_warp_idx_sync(warp_size)
            A[bx, ty, tx, 5] = T.get_warp_group_idx(warp_size, warps_per_group)
            A[bx, ty, tx, 6] = T.get_warp_group_idx(warp_size=16, warps_per_group=3)

    return main
