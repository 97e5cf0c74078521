"""Fixture: single-head causal self-attention, step by step, with many values in one frame."""

import math

import torch

from tracer import text


def softmax_rows(scores):  # @inspect scores
    shifted = scores - scores.max(dim=-1, keepdim=True).values  # @inspect shifted
    weights = shifted.exp()  # @inspect weights
    weights = weights / weights.sum(dim=-1, keepdim=True)  # @inspect weights
    return weights


def main():
    text("# Attention, one head")
    text("A sequence of `T` tokens, each a `d`-dimensional vector.")
    torch.manual_seed(0)
    T = 8  # @inspect T
    d = 16  # @inspect d
    x = torch.randn(T, d)  # @inspect x
    text("## Projections")
    w_q = torch.randn(d, d) / math.sqrt(d)  # @inspect w_q
    w_k = torch.randn(d, d) / math.sqrt(d)  # @inspect w_k
    w_v = torch.randn(d, d) / math.sqrt(d)  # @inspect w_v
    q = x @ w_q  # @inspect q
    k = x @ w_k  # @inspect k
    v = x @ w_v  # @inspect v
    text("## Scores")
    scores = q @ k.transpose(-2, -1) / math.sqrt(d)  # @inspect scores
    mask = torch.tril(torch.ones(T, T, dtype=torch.bool))  # @inspect mask
    masked_scores_for_the_causal_attention_map = scores.masked_fill(~mask, float("-inf"))  # @inspect masked_scores_for_the_causal_attention_map
    text("## Softmax")
    attn = softmax_rows(masked_scores_for_the_causal_attention_map)  # @inspect attn
    row_sums = attn.sum(dim=-1)  # @inspect row_sums
    check = torch.allclose(attn, masked_scores_for_the_causal_attention_map.softmax(dim=-1))  # @inspect check
    text("## Output")
    out = attn @ v  # @inspect out
    reference_output = torch.nn.functional.scaled_dot_product_attention(q[None], k[None], v[None], is_causal=True)[0]
    same = torch.allclose(out, reference_output, atol=1e-6)  # @inspect same
    out_norm = out.norm(dim=-1)  # @inspect out_norm
    first_token_sees_only_itself = attn[0, 0].item()  # @inspect first_token_sees_only_itself
    last_token_weights = attn[-1]  # @inspect last_token_weights
    entropy = -(attn.clamp_min(1e-12).log() * attn).sum(dim=-1)  # @inspect entropy
    text("## Memory")
    n_heads = 12  # @inspect n_heads
    seq = 4096  # @inspect seq
    attn_bytes = n_heads * seq * seq * 4  # @inspect attn_bytes
    attn_gib = attn_bytes / 2**30  # @inspect attn_gib
    big = torch.tril(torch.ones(64, 64))  # @inspect big
    pooled = torch.eye(256)  # @inspect pooled
    text("""The attention map of a long sequence
costs memory quadratic in its length.""")
