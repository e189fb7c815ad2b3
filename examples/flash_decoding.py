"""Flash decoding: attention of one query token per head over a long KV cache,
with the keys split across blocks (split-KV) and the splits merged after.

flashattn_split: each block owns one (batch, kv head, split): the heads // kv_heads
query heads that share the kv head (grouped-query attention; rows of the
block_H-row tile past them are computed and dropped; one warp holds the 16
rows of both gemms' tensor-core tiles) against the split's
ceildiv(seqlen_kv, num_split) keys. It walks them in tiles of block_N with the
online softmax of examples/flash_attention.py: S = Q K^T (T.gemm with
transpose_B), the running row maximum raised by the tile's (T.reduce_max with
clear=False), output and row sums rescaled by exp2((old max - new max) * scale),
P cast to float16 multiplied into the output (P @ V, operand A in registers). It
writes the split's normalized output and its log-sum-exp (base 2, in the scaled
units: log2(sum) + max * scale).

flashattn_combine: each block owns block_H heads of one batch: the largest
log-sum-exp of the splits (T.reduce_max), the total lse2 = max + log2(sum of
exp2(lse - max)), and O = sum over splits of exp2(lse - lse2) * O_split.

seqlen_kv defaults short of a multiple of the splits and the tiles: a split's
last tile reads past the split (into the next one, or zeros past the end: T.copy
clips) and those keys are masked to -inf. Every split must hold a key:
(num_split - 1) * ceildiv(seqlen_kv, num_split) < seqlen_kv.
"""
import tilelang
import tilelang.language as T

LOG2E = 1.44269504


def flashattn_split(batch=1, heads=4, kv_heads=2, seqlen_kv=100, dim=32, num_split=2, block_N=32, block_H=16,
                    num_stages=1, threads=32):
    scale = (1.0 / dim)**0.5 * LOG2E
    groups = heads // kv_heads
    split_len = T.ceildiv(seqlen_kv, num_split)
    dtype = "float16"
    accum_dtype = "float"

    @T.prim_func
    def split(Q: T.Tensor([batch, heads, dim], dtype), K: T.Tensor([batch, kv_heads, seqlen_kv, dim], dtype),
              V: T.Tensor([batch, kv_heads, seqlen_kv, dim], dtype),
              Output_partial: T.Tensor([batch, heads, num_split, dim], accum_dtype),
              Lse: T.Tensor([batch, heads, num_split], accum_dtype)):
        with T.Kernel(num_split, kv_heads, batch, threads=threads) as (bx, by, bz):
            Q_shared = T.alloc_shared([block_H, dim], dtype)
            K_shared = T.alloc_shared([block_N, dim], dtype)
            V_shared = T.alloc_shared([block_N, dim], dtype)
            acc_s = T.alloc_fragment([block_H, block_N], accum_dtype)
            acc_s_cast = T.alloc_fragment([block_H, block_N], dtype)
            acc_o = T.alloc_fragment([block_H, dim], accum_dtype)
            scores_max = T.alloc_fragment([block_H], accum_dtype)
            scores_max_prev = T.alloc_fragment([block_H], accum_dtype)
            scores_scale = T.alloc_fragment([block_H], accum_dtype)
            scores_sum = T.alloc_fragment([block_H], accum_dtype)
            logsum = T.alloc_fragment([block_H], accum_dtype)

            start = bx * split_len
            T.copy(Q[bz, by * groups:by * groups + block_H, :], Q_shared)
            T.fill(acc_o, 0)
            T.fill(logsum, 0)
            T.fill(scores_max, -T.infinity(accum_dtype))

            for k in T.Pipelined(T.ceildiv(split_len, block_N), num_stages=num_stages):
                # S = Q K^T, masked past the split and past the keys
                T.copy(K[bz, by, start + k * block_N:start + (k + 1) * block_N, :], K_shared)
                for i, j in T.Parallel(block_H, block_N):
                    in_split = k * block_N + j
                    acc_s[i, j] = T.if_then_else(in_split < split_len and start + in_split < seqlen_kv, 0,
                                                 -T.infinity(accum_dtype))
                T.gemm(Q_shared, K_shared, acc_s, transpose_B=True, policy=T.GemmWarpPolicy.FullRow)

                # online softmax
                T.copy(scores_max, scores_max_prev)
                T.fill(scores_max, -T.infinity(accum_dtype))
                T.reduce_max(acc_s, scores_max, dim=1, clear=False)
                for i in T.Parallel(block_H):
                    scores_max[i] = T.max(scores_max[i], scores_max_prev[i])
                for i in T.Parallel(block_H):
                    scores_scale[i] = T.exp2(scores_max_prev[i] * scale - scores_max[i] * scale)
                for i, j in T.Parallel(block_H, block_N):
                    acc_s[i, j] = T.exp2(acc_s[i, j] * scale - scores_max[i] * scale)
                T.reduce_sum(acc_s, scores_sum, dim=1)
                for i in T.Parallel(block_H):
                    logsum[i] = logsum[i] * scores_scale[i] + scores_sum[i]
                T.copy(acc_s, acc_s_cast)

                # rescale the output, then O += P V
                for i, j in T.Parallel(block_H, dim):
                    acc_o[i, j] *= scores_scale[i]
                T.copy(V[bz, by, start + k * block_N:start + (k + 1) * block_N, :], V_shared)
                T.gemm(acc_s_cast, V_shared, acc_o, policy=T.GemmWarpPolicy.FullRow)

            # the split's output and log-sum-exp, for the groups rows that are this kv head's
            for i, j in T.Parallel(block_H, dim):
                if i < groups:
                    Output_partial[bz, by * groups + i, bx, j] = acc_o[i, j] / logsum[i]
            for i in T.Parallel(block_H):
                if i < groups:
                    Lse[bz, by * groups + i, bx] = T.log2(logsum[i]) + scores_max[i] * scale

    return split


def flashattn_combine(batch=1, heads=4, dim=32, num_split=2, block_H=4, threads=128):
    dtype = "float16"
    accum_dtype = "float"

    @T.prim_func
    def combine(Output_partial: T.Tensor([batch, heads, num_split, dim], accum_dtype),
                Lse: T.Tensor([batch, heads, num_split], accum_dtype), Output: T.Tensor([batch, heads, dim], dtype)):
        with T.Kernel(T.ceildiv(heads, block_H), batch, threads=threads) as (bx, by):
            lse = T.alloc_fragment([block_H, num_split], accum_dtype)
            lse_exp = T.alloc_fragment([block_H, num_split], accum_dtype)
            lse_max = T.alloc_fragment([block_H], accum_dtype)
            lse_sum = T.alloc_fragment([block_H], accum_dtype)
            split_scale = T.alloc_shared([block_H, num_split], accum_dtype)
            o_split = T.alloc_fragment([block_H, dim], accum_dtype)
            acc_o = T.alloc_fragment([block_H, dim], accum_dtype)
            O_shared = T.alloc_shared([block_H, dim], dtype)

            # lse2 = max + log2(sum over splits of exp2(lse - max)); a split weighs exp2(lse - lse2)
            T.copy(Lse[by, bx * block_H:(bx + 1) * block_H, :], lse)
            T.reduce_max(lse, lse_max, dim=1)
            for i, s in T.Parallel(block_H, num_split):
                lse_exp[i, s] = T.exp2(lse[i, s] - lse_max[i])
            T.reduce_sum(lse_exp, lse_sum, dim=1)
            for i, s in T.Parallel(block_H, num_split):
                split_scale[i, s] = T.exp2(lse[i, s] - lse_max[i] - T.log2(lse_sum[i]))

            T.fill(acc_o, 0)
            for s in T.serial(num_split):
                T.copy(Output_partial[by, bx * block_H:(bx + 1) * block_H, s, :], o_split)
                for i, j in T.Parallel(block_H, dim):
                    acc_o[i, j] += o_split[i, j] * split_scale[i, s]
            T.copy(acc_o, O_shared)
            T.copy(O_shared, Output[by, bx * block_H:(bx + 1) * block_H, :])

    return combine


if __name__ == "__main__":
    import torch
    import torch.nn.functional as F

    batch, heads, kv_heads, seqlen_kv, dim, num_split = 1, 4, 2, 100, 32, 2
    split = tilelang.compile(flashattn_split(batch, heads, kv_heads, seqlen_kv, dim, num_split), out_idx=[3, 4])
    combine = tilelang.compile(flashattn_combine(batch, heads, dim, num_split), out_idx=[2])
    q = torch.randn(batch, heads, dim, device="cuda", dtype=torch.float16)
    k = torch.randn(batch, kv_heads, seqlen_kv, dim, device="cuda", dtype=torch.float16)
    v = torch.randn(batch, kv_heads, seqlen_kv, dim, device="cuda", dtype=torch.float16)
    o_partial, lse = split(q, k, v)
    out = combine(o_partial, lse)
    ref = F.scaled_dot_product_attention(q.unsqueeze(2), k, v, enable_gqa=True).squeeze(2)
    torch.testing.assert_close(out, ref, rtol=1e-2, atol=1e-2)
    print("flash_decoding: ok")
