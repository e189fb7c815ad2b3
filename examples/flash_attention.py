"""FlashAttention forward (multi-head, bhsd layout): O = softmax(Q K^T / sqrt(d)) V.

Each block owns block_M query rows of one (batch, head). It walks the keys in
tiles of block_N: S = Q K^T for the tile (T.gemm with transpose_B), then the
online softmax: the running row maximum is raised by the tile's (T.reduce_max
with clear=False), the accumulated output and row sums are rescaled by
exp2((old max - new max) * log2(e) / sqrt(d)), and P = exp2(S * scale - max *
scale), cast to float16, is multiplied into the output (P @ V, operand A in
registers). After the last tile the output is divided by the row sums.

With is_causal, query row q (counted from the end of the keys: keys past
q + seq_kv - seq_q are masked) sees only the keys before it, the masked scores
start at -inf and the key loop stops at the diagonal. The defaults leave both
sequences short of a multiple of the tiles: the edge tiles read zeros past the
end (T.copy clips), masked to -inf by the key bound.
"""
import tilelang
import tilelang.language as T

LOG2E = 1.44269504


def flashattn(batch=1, heads=2, seq_q=80, seq_kv=80, dim=32, is_causal=False, block_M=32, block_N=32,
              num_stages=1, threads=128):
    scale = (1.0 / dim)**0.5 * LOG2E
    q_shape = [batch, heads, seq_q, dim]
    kv_shape = [batch, heads, seq_kv, dim]
    dtype = "float16"
    accum_dtype = "float"
    past_len = seq_kv - seq_q

    @T.prim_func
    def main(Q: T.Tensor(q_shape, dtype), K: T.Tensor(kv_shape, dtype), V: T.Tensor(kv_shape, dtype),
             Output: T.Tensor(q_shape, dtype)):
        with T.Kernel(T.ceildiv(seq_q, block_M), heads, batch, threads=threads) as (bx, by, bz):
            Q_shared = T.alloc_shared([block_M, dim], dtype)
            K_shared = T.alloc_shared([block_N, dim], dtype)
            V_shared = T.alloc_shared([block_N, dim], dtype)
            O_shared = T.alloc_shared([block_M, dim], dtype)
            acc_s = T.alloc_fragment([block_M, block_N], accum_dtype)
            acc_s_cast = T.alloc_fragment([block_M, block_N], dtype)
            acc_o = T.alloc_fragment([block_M, dim], accum_dtype)
            scores_max = T.alloc_fragment([block_M], accum_dtype)
            scores_max_prev = T.alloc_fragment([block_M], accum_dtype)
            scores_scale = T.alloc_fragment([block_M], accum_dtype)
            scores_sum = T.alloc_fragment([block_M], accum_dtype)
            logsum = T.alloc_fragment([block_M], accum_dtype)

            T.copy(Q[bz, by, bx * block_M:(bx + 1) * block_M, :], Q_shared)
            T.fill(acc_o, 0)
            T.fill(logsum, 0)
            T.fill(scores_max, -T.infinity(accum_dtype))

            loop_range = (
                T.min(T.ceildiv(seq_kv, block_N), T.ceildiv((bx + 1) * block_M + past_len, block_N))
                if is_causal else T.ceildiv(seq_kv, block_N))

            for k in T.Pipelined(loop_range, num_stages=num_stages):
                # S = Q K^T, masked past the keys (and above the diagonal when causal)
                T.copy(K[bz, by, k * block_N:(k + 1) * block_N, :], K_shared)
                for i, j in T.Parallel(block_M, block_N):
                    q_idx = bx * block_M + i + past_len
                    k_idx = k * block_N + j
                    if is_causal:
                        acc_s[i, j] = T.if_then_else(q_idx >= k_idx and k_idx < seq_kv, 0, -T.infinity(accum_dtype))
                    else:
                        acc_s[i, j] = T.if_then_else(k_idx < seq_kv, 0, -T.infinity(accum_dtype))
                T.gemm(Q_shared, K_shared, acc_s, transpose_B=True, policy=T.GemmWarpPolicy.FullRow)

                # online softmax
                T.copy(scores_max, scores_max_prev)
                T.fill(scores_max, -T.infinity(accum_dtype))
                T.reduce_max(acc_s, scores_max, dim=1, clear=False)
                for i in T.Parallel(block_M):
                    scores_max[i] = T.max(scores_max[i], scores_max_prev[i])
                for i in T.Parallel(block_M):
                    scores_scale[i] = T.exp2(scores_max_prev[i] * scale - scores_max[i] * scale)
                for i, j in T.Parallel(block_M, block_N):
                    acc_s[i, j] = T.exp2(acc_s[i, j] * scale - scores_max[i] * scale)
                T.reduce_sum(acc_s, scores_sum, dim=1)
                for i in T.Parallel(block_M):
                    logsum[i] = logsum[i] * scores_scale[i] + scores_sum[i]
                T.copy(acc_s, acc_s_cast)

                # rescale the output, then O += P V
                for i, j in T.Parallel(block_M, dim):
                    acc_o[i, j] *= scores_scale[i]
                T.copy(V[bz, by, k * block_N:(k + 1) * block_N, :], V_shared)
                T.gemm(acc_s_cast, V_shared, acc_o, policy=T.GemmWarpPolicy.FullRow)
            for i, j in T.Parallel(block_M, dim):
                acc_o[i, j] /= logsum[i]
            T.copy(acc_o, O_shared)
            T.copy(O_shared, Output[bz, by, bx * block_M:(bx + 1) * block_M, :])

    return main


if __name__ == "__main__":
    import torch
    import torch.nn.functional as F

    for causal in (False, True):
        kernel = tilelang.compile(flashattn(is_causal=causal), out_idx=[3])
        q = torch.randn(1, 2, 80, 32, device="cuda", dtype=torch.float16)
        k = torch.randn(1, 2, 80, 32, device="cuda", dtype=torch.float16)
        v = torch.randn(1, 2, 80, 32, device="cuda", dtype=torch.float16)
        ref = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        torch.testing.assert_close(kernel(q, k, v), ref, rtol=1e-2, atol=1e-2)
    print("flash_attention: ok")
