"""Lecture 2: PyTorch and resource accounting.

How much memory a tensor takes and how much compute an operation costs, built up from single
tensors to a small training loop. Every number the lecture states is checked by an ``assert``, so a
wrong claim fails the trace. Runs on a CPU; sections about GPUs run for real when CUDA is present.
"""

import math
import random
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from einops import einsum, rearrange, reduce, repeat
from jaxtyping import Float

import _accounting
from _accounting import count_flops, get_memory_usage, promised_flop_per_s, time_fn
from tracer import image, link, note, plot, text


@dataclass
class Paper:
    title: str
    url: str
    authors: str
    date: str
    notes: str | None = None  # shown in the citation's panel


MIXED_PRECISION_PAPER = Paper(
    title="Mixed Precision Training",
    url="https://arxiv.org/abs/1710.03740",
    authors="Micikevicius, Narang, Alben, Diamos, Elsen, Garcia, Ginsburg, Houston, Kuchaiev, Venkatesh, Wu",
    date="2017-10",
)
FP8_PAPER = Paper(
    title="FP8 Formats for Deep Learning",
    url="https://arxiv.org/abs/2209.05433",
    authors="Micikevicius, Stosic, Burgess, Cornea, Dubey, Grisenthwaite, Ha, Heinecke, Judd, Kamalu, Mellempudi, Oberman, Shoeybi, Siu, Wu",
    date="2022-09",
)
ADAM_PAPER = Paper(
    title="Adam: A Method for Stochastic Optimization",
    url="https://arxiv.org/abs/1412.6980",
    authors="Kingma, Ba",
    date="2014-12",
)
SCALING_LAWS_PAPER = Paper(
    title="Scaling Laws for Neural Language Models",
    url="https://arxiv.org/abs/2001.08361",
    authors="Kaplan, McCandlish, Henighan, Brown, Chess, Child, Gray, Radford, Wu, Amodei",
    date="2020-01",
    notes="Estimates about 2N FLOPs per token for the forward pass and twice that for the backward pass.",
)
XAVIER_INIT_PAPER = Paper(
    title="Understanding the difficulty of training deep feedforward neural networks",
    url="https://proceedings.mlr.press/v9/glorot10a.html",
    authors="Glorot, Bengio",
    date="2010",
    notes="AISTATS 2010. Scales initial weights by the layer sizes so that activations and gradients keep their variance from layer to layer.",
)


def get_device() -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"


def main():
    text("# PyTorch and resource accounting")
    text("Training a language model is an exercise in budgeting two resources: **memory** (bytes) and **compute** (FLOPs).")
    text("This lecture builds the habit of counting both, starting from a single tensor and ending with a training loop.")
    memory_accounting()
    tensors_on_gpus()
    tensor_storage()
    einops_and_jaxtyping()
    compute_accounting()
    gradients()
    models()
    training()
    summary()


# ---------------------------------------------------------------------------------------------
# 1. Memory accounting
# ---------------------------------------------------------------------------------------------


def memory_accounting():
    text("## Memory accounting")
    text("Everything a model holds is a tensor: parameters, gradients, optimizer state, data and activations.")
    link(title="PyTorch tensor documentation", url="https://pytorch.org/docs/stable/tensors.html")
    creating_tensors()
    tensor_memory()
    float_formats()
    why_mixed_precision()


def creating_tensors():
    text("### Creating tensors")
    x = torch.tensor([[1.0, 2, 3], [4, 5, 6]])  # @inspect x
    x = torch.zeros(4, 8)  # @inspect x
    x = torch.ones(4, 8)  # @inspect x
    x = torch.randn(4, 8)  # @inspect x
    text("`torch.empty` only reserves memory; the values are whatever bytes were there. Fill it yourself:")
    x = torch.empty(4, 8)
    nn.init.trunc_normal_(x, mean=0.0, std=1.0, a=-2.0, b=2.0)  # @inspect x
    assert x.abs().max().item() <= 2.0


def tensor_memory():
    text("### How many bytes?")
    text("A tensor's memory is its number of elements times the size of one element.")
    x = torch.zeros(4, 8)  # @inspect x
    assert x.dtype == torch.float32  # the default dtype
    num_elements = x.numel()  # @inspect num_elements
    assert num_elements == 4 * 8
    element_nbytes = x.element_size()  # @inspect element_nbytes
    assert element_nbytes == 4  # 32 bits = 4 bytes
    nbytes = get_memory_usage(x)  # @inspect nbytes
    assert nbytes == 4 * 8 * 4 == 128
    link(get_memory_usage)


def float_formats():
    text("### Floating-point formats")
    text("A float is stored as a sign bit, an exponent (the range) and a mantissa, also called fraction (the precision).")

    text("**float32** (single precision) is the default: 1 sign, 8 exponent and 23 mantissa bits.")
    image("images/float32.svg", width=560, alt="float32 bit layout: 1 sign bit, 8 exponent bits, 23 mantissa bits")
    x = torch.zeros(4, 8, dtype=torch.float32)
    assert x.element_size() == 4

    text("**float16** (half precision) halves the memory: 1 sign, 5 exponent and 10 mantissa bits.")
    image("images/float16.svg", width=380, alt="float16 bit layout: 1 sign bit, 5 exponent bits, 10 mantissa bits")
    x = torch.zeros(4, 8, dtype=torch.float16)  # @inspect x
    assert x.element_size() == 2
    text("Five exponent bits give a small range. A value as small as $10^{-8}$ underflows to zero:")
    x = torch.tensor([1e-8], dtype=torch.float16)  # @inspect x
    assert x.item() == 0.0
    text("Underflowing gradients and overflowing activations make float16 training unstable.")

    text("**bfloat16** (brain float, from Google Brain in 2018) keeps float32's 8 exponent bits and drops mantissa bits: 1 + 8 + 7.")
    image("images/bfloat16.svg", width=380, alt="bfloat16 bit layout: 1 sign bit, 8 exponent bits, 7 mantissa bits")
    x = torch.tensor([1e-8], dtype=torch.bfloat16)  # @inspect x
    assert x.item() != 0.0
    assert abs(x.item() - 1e-8) / 1e-8 < 0.01  # stored as about 1.0012e-08
    text("Same memory as float16, the dynamic range of float32, and coarser resolution, which deep learning tolerates well.")

    text("The three side by side (`torch.finfo`):")
    float32_info = torch.finfo(torch.float32)  # @inspect float32_info
    float16_info = torch.finfo(torch.float16)  # @inspect float16_info
    bfloat16_info = torch.finfo(torch.bfloat16)  # @inspect bfloat16_info
    assert float16_info.max == 65504.0
    assert float32_info.eps == 2**-23 and float16_info.eps == 2**-10 and bfloat16_info.eps == 2**-7
    assert bfloat16_info.smallest_normal == float32_info.smallest_normal == 2**-126
    assert abs(bfloat16_info.max - float32_info.max) / float32_info.max < 0.01  # about 3.4e38 both
    text("bfloat16's max (3.39e38) is within 1% of float32's (3.40e38); float16 stops at 65504.")

    text("**fp8** (2022) comes in two flavours, supported by H100s:")
    text("- E4M3: 1 sign, 4 exponent, 3 mantissa bits; range [-448, 448]. More precision.")
    image("images/fp8_e4m3.svg", width=260, alt="fp8 E4M3 bit layout: 1 sign bit, 4 exponent bits, 3 mantissa bits")
    text("- E5M2: 1 sign, 5 exponent, 2 mantissa bits; range [-57344, 57344]. More range.")
    image("images/fp8_e5m2.svg", width=260, alt="fp8 E5M2 bit layout: 1 sign bit, 5 exponent bits, 2 mantissa bits")
    e4m3_info = torch.finfo(torch.float8_e4m3fn)  # @inspect e4m3_info
    e5m2_info = torch.finfo(torch.float8_e5m2)  # @inspect e5m2_info
    assert e4m3_info.max == 448 and e5m2_info.max == 57344
    x = torch.tensor([0.1, 1.0, 300.0]).to(torch.float8_e4m3fn)  # @inspect x
    assert x.element_size() == 1
    link(FP8_PAPER)
    link(title="NVIDIA Transformer Engine: FP8 primer", url="https://docs.nvidia.com/deeplearning/transformer-engine/user-guide/examples/fp8_primer.html")

    text("**float64** (double precision) is rarely worth its 8 bytes in deep learning:")
    x = torch.zeros(4, 8, dtype=torch.float64)  # @inspect x
    assert x.element_size() == 8
    element_nbytes = {str(dtype): torch.zeros(1, dtype=dtype).element_size() for dtype in (torch.float64, torch.float32, torch.float16, torch.bfloat16, torch.float8_e4m3fn)}  # @inspect element_nbytes
    assert list(element_nbytes.values()) == [8, 4, 2, 2, 1]


def why_mixed_precision():
    text("### Why it matters: one GPT-3 matrix")
    text("A feed-forward matrix of GPT-3 maps the model dimension 12288 to 4 × 12288. In float32:")
    d_model = 12288
    gpt3_ffn_nbytes = d_model * (4 * d_model) * 4  # @inspect gpt3_ffn_nbytes
    assert gpt3_ffn_nbytes == 2_415_919_104
    assert round(gpt3_ffn_nbytes / 1e9, 1) == 2.4  # 2.4 GB
    assert round(gpt3_ffn_nbytes / 2**30, 2) == 2.25  # 2.25 GiB
    text("That is 2.4 GB (2.25 GiB) for one matrix, before gradients and optimizer state.")
    text("### Mixed precision")
    text("Higher precision is more stable but costs memory and compute; lower precision is the reverse.")
    text("The usual compromise: keep parameters, gradients and optimizer state in float32, and run the forward pass (activations) in bfloat16 or fp8.")
    note("Operations that accumulate over many values (sums, softmax, losses) stay in float32 even inside a bfloat16 region; the **Training** section shows this with `torch.autocast`.")
    link(MIXED_PRECISION_PAPER)


# ---------------------------------------------------------------------------------------------
# 2. Tensors on GPUs
# ---------------------------------------------------------------------------------------------


def tensors_on_gpus():
    text("## Tensors on GPUs")
    text("Tensors live in CPU memory by default. To use a GPU's parallelism they must be copied into GPU memory.")
    x = torch.zeros(32, 32)  # @inspect x
    assert x.device == torch.device("cpu")
    num_gpus = torch.cuda.device_count()  # @inspect num_gpus
    if not torch.cuda.is_available():
        text("This run has no GPU, so the GPU steps below are skipped.")
        text("On a GPU, copying `x` with `x.to('cuda')` and creating `torch.zeros(32, 32, device='cuda')` raise `torch.cuda.memory_allocated()` by exactly 2 × 4096 = 8192 bytes.")
        assert 2 * get_memory_usage(x) == 2 * 4096 == 8192
        text("The copy itself travels over PCIe (or NVLink-C2C) at tens of GB/s, far slower than the GPU's own memory.")
        return
    gpu_memory_accounting(x)
    gpu_properties()
    host_to_device_copy()


def gpu_memory_accounting(x: torch.Tensor):
    text("### Moving and creating tensors on the GPU")
    memory_before = torch.cuda.memory_allocated()  # @inspect memory_before
    y = x.to("cuda")  # @inspect y
    z = torch.zeros(32, 32, device="cuda")  # @inspect z
    memory_after = torch.cuda.memory_allocated()  # @inspect memory_after
    allocated_nbytes = memory_after - memory_before  # @inspect allocated_nbytes
    assert allocated_nbytes == get_memory_usage(y) + get_memory_usage(z) == 8192
    note("The caching allocator rounds every block up to a multiple of 512 bytes; 32 × 32 float32 is 4096 bytes, already a multiple, so the count is exact.")


def gpu_properties():
    text("### What GPU is this?")
    properties = torch.cuda.get_device_properties(0)  # @inspect properties
    gpu_name = properties.name  # @inspect gpu_name
    total_memory_gib = properties.total_memory / 2**30  # @inspect total_memory_gib
    num_multiprocessors = properties.multi_processor_count  # @inspect num_multiprocessors
    assert total_memory_gib > 1 and num_multiprocessors > 0


def host_to_device_copy():
    text("### The cost of a host-to-device copy")
    x = torch.ones(64, 1024, 1024)  # 256 MiB of float32
    nbytes = get_memory_usage(x)  # @inspect nbytes
    assert nbytes == 2**28
    seconds = time_fn(lambda: x.to("cuda"), "cuda")  # @stepover @inspect seconds
    copy_gb_per_s = nbytes / seconds / 1e9  # @inspect copy_gb_per_s
    assert copy_gb_per_s > 0
    h100_memory_gb_per_s = 3350  # HBM3 bandwidth of an H100 SXM  @inspect h100_memory_gb_per_s
    assert copy_gb_per_s < h100_memory_gb_per_s / 10
    text("The GPU's own memory is about 3350 GB/s on an H100, over ten times faster than this copy: move data to the GPU once and keep it there.")


# ---------------------------------------------------------------------------------------------
# 3. Tensor storage
# ---------------------------------------------------------------------------------------------


def tensor_storage():
    text("## Tensor storage")
    text("A PyTorch tensor is a pointer into a flat block of memory plus metadata (shape, strides, offset) that says how to find each element.")
    link(title="torch.Tensor.stride", url="https://pytorch.org/docs/stable/generated/torch.Tensor.stride.html")
    strides_and_indexing()
    views()
    non_contiguous()
    elementwise_and_matmul()


def strides_and_indexing():
    text("### Strides")
    x = torch.arange(15).reshape(3, 5)  # @inspect x
    text("To move to the next row (dim 0) skip 5 elements of storage; to the next column (dim 1) skip 1.")
    assert x.stride() == (5, 1)
    row, col = 1, 3
    index = row * x.stride(0) + col * x.stride(1)  # @inspect index
    assert index == 8
    assert x.flatten()[index] == x[row, col] == 8
    text("The same formula works in any number of dimensions: the index is the sum of coordinate × stride.")
    y = torch.arange(24).reshape(2, 3, 4)  # @inspect y
    assert y.stride() == (12, 4, 1)
    i, j, k = 1, 2, 3
    index = i * y.stride(0) + j * y.stride(1) + k * y.stride(2)  # @inspect index
    assert index == 23 and y[i, j, k] == 23


def same_storage(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def views():
    text("### Views share storage")
    text("Indexing, `view` and `transpose` make new tensor objects over the *same* memory: no copy.")
    x = torch.tensor([[1.0, 2, 3], [4, 5, 6]])  # @inspect x
    row = x[0]  # @inspect row
    assert torch.equal(row, torch.tensor([1.0, 2, 3])) and same_storage(row, x)
    column = x[:, 1]  # @inspect column
    assert torch.equal(column, torch.tensor([2.0, 5])) and same_storage(column, x)
    assert column.stride() == (3,)
    reshaped = x.view(3, 2)  # @inspect reshaped
    assert same_storage(reshaped, x)
    transposed = x.transpose(1, 0)  # @inspect transposed
    assert torch.equal(transposed, torch.tensor([[1.0, 4], [2, 5], [3, 6]])) and same_storage(transposed, x)
    assert transposed.stride() == (1, 3)
    link(same_storage)
    text("Because the memory is shared, writing through one tensor changes the others:")
    x[0][0] = 100  # @inspect x, @inspect row, @inspect transposed
    assert row[0] == 100 and transposed[0][0] == 100


def non_contiguous():
    text("### Contiguous or not")
    text("A tensor is contiguous when walking it in row-major order walks its storage in order. A transpose is not:")
    x = torch.tensor([[1.0, 2, 3], [4, 5, 6]])  # @inspect x
    y = x.transpose(1, 0)  # @inspect y
    assert not y.is_contiguous()
    text("`view` only reinterprets metadata, so it refuses shapes that would need the data moved:")
    try:
        y.view(2, 3)
        view_error = None
    except RuntimeError as error:
        view_error = str(error)  # @inspect view_error
    assert view_error is not None and "view size is not compatible" in view_error
    text("`contiguous()` copies the data into a fresh, row-major storage; after that `view` works.")
    z = y.contiguous()  # @inspect z
    assert z.is_contiguous() and not same_storage(z, x)
    w = z.view(2, 3)  # @inspect w
    assert same_storage(w, z)
    note("`reshape` does this for you: it returns a view when it can and a copy when it must.")


def elementwise_and_matmul():
    text("### Elementwise operations")
    text("These produce a new tensor with the operation applied to each element.")
    x = torch.tensor([1.0, 4, 9])  # @inspect x
    squared = x.pow(2)  # @inspect squared
    assert torch.equal(squared, torch.tensor([1.0, 16, 81]))
    roots = x.sqrt()  # @inspect roots
    assert torch.equal(roots, torch.tensor([1.0, 2, 3]))
    inverse_roots = x.rsqrt()  # @inspect inverse_roots
    assert torch.allclose(inverse_roots, torch.tensor([1.0, 1 / 2, 1 / 3]))
    assert torch.equal(x + x, x * 2) and torch.equal(x * 2, x / 0.5)

    text("`triu` keeps the upper triangle of a matrix. Above the diagonal it marks the *future* positions that a causal language model must not attend to:")
    future = torch.ones(4, 4, dtype=torch.bool).triu(diagonal=1)  # @inspect future
    scores = torch.zeros(4, 4).masked_fill(future, float("-inf"))  # @inspect scores
    attention = scores.softmax(dim=-1)  # @inspect attention
    assert torch.allclose(attention[1], torch.tensor([0.5, 0.5, 0.0, 0.0]))

    text("### Matrix multiplication")
    x = torch.ones(16, 32)
    w = torch.ones(32, 2)
    y = x @ w  # @inspect y
    assert y.shape == (16, 2) and y[0, 0] == 32
    text("With leading batch dimensions, `@` multiplies the last two dimensions for every batch index:")
    x = torch.ones(4, 8, 16, 32)  # @inspect x
    y = x @ w  # @inspect y
    assert y.shape == (4, 8, 16, 2)


# ---------------------------------------------------------------------------------------------
# 4. einops and jaxtyping
# ---------------------------------------------------------------------------------------------


def einops_and_jaxtyping():
    text("## einops and jaxtyping")
    text("What does this do?")
    x = torch.ones(2, 3, 4)  # @inspect x
    y = x.transpose(-2, -1)  # @inspect y
    text("You have to remember what dims -2 and -1 are. Naming dimensions removes the guesswork.")
    link(title="einops", url="https://einops.rocks")
    jaxtyping_annotations()
    einops_einsum()
    einops_reduce()
    einops_rearrange_and_repeat()
    einops_pooling()


def jaxtyping_annotations():
    text("### jaxtyping: names in the type")
    text("Old way: a comment saying what the dimensions are.")
    x = torch.ones(2, 2, 1, 3)  # @inspect x
    text("New way: the annotation carries the dimension names.")
    x: Float[torch.Tensor, "batch seq heads hidden"] = torch.ones(2, 2, 1, 3)  # @inspect x
    x: Float[torch.Tensor, "batch seq hidden"] = torch.ones(2, 3, 4)  # @inspect x
    text("By itself this is documentation; nothing checks it at run time unless you add a checker (`jaxtyping.jaxtyped` with a type checker such as beartype).")
    link(title="jaxtyping", url="https://docs.kidger.site/jaxtyping/")


def einops_einsum():
    text("### einsum")
    text("Einstein summation with named dimensions. A dimension that does not appear in the output is summed over.")
    x: Float[torch.Tensor, "batch seq1 hidden"] = torch.ones(2, 3, 4)  # @inspect x
    y: Float[torch.Tensor, "batch seq2 hidden"] = torch.ones(2, 3, 4)  # @inspect y
    text("Old way:")
    z = x @ y.transpose(-2, -1)  # @inspect z
    text("New way:")
    z_named = einsum(x, y, "batch seq1 hidden, batch seq2 hidden -> batch seq1 seq2")  # @inspect z_named
    assert torch.equal(z, z_named) and z_named.shape == (2, 3, 3)
    assert z_named[0, 0, 0] == 4  # a sum over hidden = 4 ones
    text("`...` stands for any number of leading dimensions:")
    z_any = einsum(x, y, "... seq1 hidden, ... seq2 hidden -> ... seq1 seq2")  # @inspect z_any
    assert torch.equal(z_any, z)
    text("`torch.einsum` does the same, but each dimension must be a single letter:")
    z_letters = torch.einsum("bsh,bth->bst", x, y)  # @inspect z_letters
    assert torch.equal(z_letters, z)
    try:
        torch.einsum("batch seq hidden, batch other hidden -> batch seq other", x, y)
        einsum_error = None
    except RuntimeError as error:
        einsum_error = str(error)  # @inspect einsum_error
    assert einsum_error is not None and "number of subscripts" in einsum_error


def einops_reduce():
    text("### reduce")
    text("Reduce one tensor with sum, mean, max or min over the dimensions left out of the output.")
    x: Float[torch.Tensor, "batch seq hidden"] = torch.arange(24.0).reshape(2, 3, 4)  # @inspect x
    text("Old way:")
    y = x.sum(dim=-1)  # @inspect y
    text("New way:")
    y_named = reduce(x, "... hidden -> ...", "sum")  # @inspect y_named
    assert torch.equal(y, y_named)
    over_seq = reduce(x, "batch seq hidden -> batch hidden", "sum")  # @inspect over_seq
    assert over_seq[0].tolist() == [12.0, 15.0, 18.0, 21.0]  # 0 + 4 + 8 = 12, ...


def einops_rearrange_and_repeat():
    text("### rearrange")
    text("Sometimes one dimension holds two: the hidden vector of attention is `heads` blocks of `hidden1` each.")
    x: Float[torch.Tensor, "batch seq total_hidden"] = torch.arange(48.0).reshape(2, 3, 8)  # @inspect x
    w: Float[torch.Tensor, "hidden1 hidden2"] = torch.ones(4, 4)  # @inspect w
    text("Split `total_hidden` into heads:")
    x_heads = rearrange(x, "... (heads hidden1) -> ... heads hidden1", heads=2)  # @inspect x_heads
    assert x_heads.shape == (2, 3, 2, 4) and torch.equal(x_heads[0, 0, 1], torch.tensor([4.0, 5, 6, 7]))
    text("Transform every head with `w`:")
    y_heads = einsum(x_heads, w, "... hidden1, hidden1 hidden2 -> ... hidden2")  # @inspect y_heads
    text("Merge the heads back:")
    y = rearrange(y_heads, "... heads hidden2 -> ... (heads hidden2)")  # @inspect y
    assert y.shape == (2, 3, 8)
    text("### repeat")
    text("`repeat` copies a tensor along a new (or enlarged) dimension:")
    row: Float[torch.Tensor, "hidden"] = torch.tensor([1.0, 2, 3])  # @inspect row
    rows = repeat(row, "hidden -> copies hidden", copies=2)  # @inspect rows
    assert rows.tolist() == [[1.0, 2, 3], [1.0, 2, 3]]


def einops_pooling():
    text("### Pooling an image with reduce")
    text("A synthetic 3-channel 8 × 8 image: each channel a different ramp.")
    rows = torch.arange(8.0).reshape(8, 1)
    cols = torch.arange(8.0).reshape(1, 8)
    image_chw: Float[torch.Tensor, "channel height width"] = torch.stack([rows + cols, 2 * rows.expand(8, 8), 3 * cols.expand(8, 8)])  # @inspect image_chw
    text("Average each 2 × 2 patch by splitting height and width and reducing the inner parts:")
    pooled = reduce(image_chw, "channel (height h2) (width w2) -> channel height width", "mean", h2=2, w2=2)  # @inspect pooled
    assert pooled.shape == (3, 4, 4)
    assert torch.allclose(pooled, F.avg_pool2d(image_chw, kernel_size=2))
    text("Channels-last layout, and a grey image repeated back into three channels:")
    image_hwc = rearrange(image_chw, "channel height width -> height width channel")  # @inspect image_hwc
    grey = reduce(image_chw, "channel height width -> height width", "mean")  # @inspect grey
    grey_rgb = repeat(grey, "height width -> channel height width", channel=3)  # @inspect grey_rgb
    assert image_hwc.shape == (8, 8, 3) and grey_rgb.shape == (3, 8, 8)


# ---------------------------------------------------------------------------------------------
# 5. Compute accounting
# ---------------------------------------------------------------------------------------------


def compute_accounting():
    text("## Compute accounting")
    text("A FLOP is one floating-point operation, such as an addition `x + y` or a multiplication `x * y`.")
    text("- **FLOPs** (plural): an amount of computation done.")
    text("- **FLOP/s** (per second): a speed, a property of hardware. Some write it FLOPS; we don't.")
    headline_figures()
    matmul_flops()
    timing_and_mfu()
    dtype_and_flop_per_s()
    napkin_math()


def headline_figures():
    text("### Orders of magnitude")
    gpt3_flops = 3.14e23  # @inspect gpt3_flops
    gpt4_flops = 2e25  # @inspect gpt4_flops
    text("GPT-3 (2020) took 3.14e23 FLOPs to train; GPT-4 (2023) is speculated at about 2e25.")
    reporting_threshold_flops = 1e25  # @inspect reporting_threshold_flops
    assert gpt3_flops < reporting_threshold_flops < gpt4_flops
    text("Regulators count FLOPs too: the EU AI Act presumes systemic risk above 1e25 training FLOPs. GPT-4 is over that line; GPT-3 is about 32 times under it.")
    assert round(reporting_threshold_flops / gpt3_flops) == 32
    note("The 2023 US executive order on AI set its reporting threshold higher, at 1e26 operations; it was revoked in 2025.")
    text("Peak speeds, from the datasheets:")
    a100_flop_per_s = 312e12  # @inspect a100_flop_per_s
    h100_sparse_flop_per_s = 1979e12  # @inspect h100_sparse_flop_per_s
    h100_flop_per_s = 989e12  # @inspect h100_flop_per_s
    text("A100: 312 TFLOP/s in bf16. H100: 1979 TFLOP/s in bf16 *with* structured sparsity, half of that (989) for the dense matmuls we actually run.")
    assert abs(h100_sparse_flop_per_s / 2 - h100_flop_per_s) < 1e12
    link(title="NVIDIA H100 datasheet", url="https://www.nvidia.com/en-us/data-center/h100/")
    text("Eight H100s for two weeks at peak:")
    seconds_in_two_weeks = 14 * 24 * 60 * 60
    total_flops = 8 * seconds_in_two_weeks * h100_flop_per_s  # @inspect total_flops
    assert 9.5e21 < total_flops < 9.6e21
    text("About 9.6e21 FLOPs: GPT-3's budget would take 33 such fortnights.")
    assert round(gpt3_flops / total_flops) == 33


def matmul_flops():
    text("### FLOPs of a matrix multiplication")
    text("Matrix multiplications dominate the compute of deep learning, so count them first.")
    m, k, n = 1024, 256, 64
    device = get_device()
    x = torch.ones(m, k, device=device)  # @inspect x
    w = torch.randn(k, n, device=device)  # @inspect w
    y = x @ w  # @flops @inspect y
    text("Each of the m·n outputs takes k multiplications and k - 1 additions:")
    exact_flops = m * n * (2 * k - 1)  # @inspect exact_flops
    text("which everyone rounds to one multiply and one add per (i, j, k) triple:")
    matmul_flops = 2 * m * n * k  # @inspect matmul_flops
    assert matmul_flops == 33_554_432
    assert (matmul_flops - exact_flops) / matmul_flops < 0.01
    text("torch's own counter (`FlopCounterMode`) agrees with 2·m·n·k:")
    counted_flops = count_flops(lambda: x @ w)  # @stepover @inspect counted_flops
    assert counted_flops == matmul_flops
    link(count_flops)
    text("Interpretation: m is the number of data points (tokens) and k·n the number of parameters, so a forward pass costs 2 × tokens × parameters FLOPs.")
    text("### Elementwise operations")
    text("An elementwise operation on an m × n matrix costs O(m·n) FLOPs; adding two m × n matrices is exactly m·n additions.")
    a = torch.ones(m, n, device=device)
    b = a + a  # @flops
    addition_flops = m * n  # @inspect addition_flops
    assert addition_flops < matmul_flops / 100
    text("That is tiny next to the matmul, which is why FLOP counters count only matmul-like operations:")
    counted_addition_flops = count_flops(lambda: a + a)  # @stepover @inspect counted_addition_flops
    assert counted_addition_flops == 0


def timing_and_mfu():
    text("### From FLOPs to seconds: MFU")
    text("Model FLOPs utilization (MFU) = achieved FLOP/s ÷ the hardware's promised FLOP/s. An MFU of 0.5 or more is good.")
    device = get_device()
    size = 8192 if device == "cuda" else 1024
    x = torch.randn(size, size, device=device)  # @inspect x
    w = torch.randn(size, size, device=device)  # @inspect w
    y = x @ w  # @flops
    matmul_flops = 2 * size * size * size  # @inspect matmul_flops
    seconds = time_fn(lambda: x @ w, device)  # @stepover @inspect seconds
    actual_flop_per_s = matmul_flops / seconds  # @inspect actual_flop_per_s
    assert actual_flop_per_s > 0
    device_name = torch.cuda.get_device_name() if device == "cuda" else "cpu"  # @inspect device_name
    promised = promised_flop_per_s(device_name, torch.float32)  # @stepover @inspect promised
    if promised is None:
        text("No datasheet peak is known for this device (CPUs publish none we can rely on), so MFU is skipped here. On an H100 this float32 matmul is compared with 67 TFLOP/s.")
        assert promised_flop_per_s("NVIDIA H100 80GB HBM3", torch.float32) == 67e12
        mfu = None
    else:
        mfu = actual_flop_per_s / promised  # @inspect mfu
        assert mfu > 0
    link(promised_flop_per_s)


def dtype_and_flop_per_s():
    text("### The dtype changes the speed")
    text("GPUs have tensor cores that multiply bfloat16 far faster than float32.")
    device = get_device()
    size = 8192 if device == "cuda" else 256
    x = torch.randn(size, size, device=device, dtype=torch.bfloat16)  # @inspect x
    w = torch.randn(size, size, device=device, dtype=torch.bfloat16)  # @inspect w
    y = x @ w  # @flops
    matmul_flops = 2 * size**3
    bf16_seconds = time_fn(lambda: x @ w, device)  # @stepover @inspect bf16_seconds
    bf16_flop_per_s = matmul_flops / bf16_seconds  # @inspect bf16_flop_per_s
    x32, w32 = x.float(), w.float()
    fp32_seconds = time_fn(lambda: x32 @ w32, device)  # @stepover @inspect fp32_seconds
    fp32_flop_per_s = matmul_flops / fp32_seconds  # @inspect fp32_flop_per_s
    device_name = torch.cuda.get_device_name() if device == "cuda" else "cpu"
    promised = promised_flop_per_s(device_name, torch.bfloat16)  # @stepover @inspect promised
    if device == "cuda":
        assert bf16_flop_per_s > fp32_flop_per_s
        if promised is not None:
            bf16_mfu = bf16_flop_per_s / promised  # @inspect bf16_mfu
            assert 0 < bf16_mfu < 1
    else:
        text("On this CPU, without bfloat16 matrix units, bfloat16 is emulated and may even be *slower* than float32: the speed-up is a property of the hardware.")
    text("FLOP/s depends on the hardware (H100 ≫ A100) and on the dtype (bfloat16 ≫ float32).")


def napkin_math():
    text("### Napkin math")
    text("How long to train a 70B-parameter model on 15T tokens with 1024 H100s at 50% MFU? Training costs about 6 × parameters × tokens FLOPs (see **Gradients**).")
    total_flops = 6 * 70e9 * 15e12  # @inspect total_flops
    h100_flop_per_s = 989e12
    mfu = 0.5
    flops_per_day = 1024 * h100_flop_per_s * mfu * 24 * 60 * 60  # @inspect flops_per_day
    days = total_flops / flops_per_day  # @inspect days
    assert round(days) == 144
    text("About 144 days.")
    text("What is the largest model that fits on 8 H100s (80 GB each) when trained with AdamW in float32?")
    bytes_per_parameter = 4 + 4 + (4 + 4)  # parameter, gradient, two AdamW moments  @inspect bytes_per_parameter
    assert bytes_per_parameter == 16
    num_parameters = 8 * 80e9 / bytes_per_parameter  # @inspect num_parameters
    assert num_parameters == 40e9
    text("40B parameters, and that ignores activations, which grow with batch size and sequence length.")


# ---------------------------------------------------------------------------------------------
# 6. Gradients
# ---------------------------------------------------------------------------------------------


def gradients():
    text("## Gradients")
    text("So far: the forward pass. Training also needs the backward pass, which computes gradients.")
    tiny_regression()
    gradient_flops()


def tiny_regression():
    text("### A tiny regression")
    text("Loss $L(w) = \\frac{1}{2}(x \\cdot w - 5)^2$, so $\\nabla_w L = (x \\cdot w - 5)\\, x$.")
    x = torch.tensor([1.0, 2, 3])  # @inspect x
    w = torch.tensor([1.0, 1, 1], requires_grad=True)  # @inspect w
    pred_y = x @ w  # @inspect pred_y
    loss = 0.5 * (pred_y - 5).pow(2)  # @inspect loss
    assert pred_y.item() == 6.0 and loss.item() == 0.5
    assert w.grad is None  # nothing computed yet
    loss.backward()  # @inspect w.grad
    assert torch.equal(w.grad, torch.tensor([1.0, 2, 3]))  # (6 - 5) * x


def gradient_flops():
    text("### FLOPs of the backward pass")
    text("A two-layer linear model: x → (w1) → h1 → (w2) → h2 → loss.")
    device = get_device()
    B, D, K = 1024, 256, 64
    text("`x` stands for the output of an earlier layer, so its gradient is needed too (a deep network needs it to keep propagating).")
    x = torch.ones(B, D, device=device, requires_grad=True)  # @inspect x
    w1 = torch.randn(D, D, device=device, requires_grad=True)  # @inspect w1
    w2 = torch.randn(D, K, device=device, requires_grad=True)  # @inspect w2
    num_parameters = D * D + D * K  # @inspect num_parameters
    h2 = (x @ w1) @ w2  # @flops @inspect h2
    forward_flops = count_flops(lambda: (x @ w1) @ w2)  # @stepover @inspect forward_flops
    assert forward_flops == 2 * B * D * D + 2 * B * D * K == 2 * B * num_parameters
    loss = h2.pow(2).mean()  # @inspect loss
    text("Backward, counted matmul by matmul: each input of a forward matmul gets its gradient from a matmul of the same size.")
    text(
        "forward          backward                      FLOPs\n"
        "h2 = h1 @ w2     w2.grad = h1.T @ h2.grad      2·B·D·K\n"
        "                 h1.grad = h2.grad @ w2.T      2·B·D·K\n"
        "h1 = x @ w1      w1.grad = x.T @ h1.grad       2·B·D·D\n"
        "                 x.grad  = h1.grad @ w1.T      2·B·D·D",
        verbatim=True,
    )
    text("Two matmuls per matmul of the forward pass.")
    expected_backward_flops = 2 * (2 * B * D * K) + 2 * (2 * B * D * D)  # @inspect expected_backward_flops
    backward_flops = count_flops(loss.backward)  # @stepover @inspect backward_flops
    assert backward_flops == expected_backward_flops == 4 * B * num_parameters
    text("The counter agrees, and once more with the directive on the line itself:")
    x.grad = w1.grad = w2.grad = None
    h2 = (x @ w1) @ w2  # @flops
    loss = h2.pow(2).mean()
    loss.backward()  # @flops
    text("Putting it together, per data point (token) and parameter:")
    text("- forward: 2 FLOPs\n- backward: 4 FLOPs\n- total: **6 × tokens × parameters** FLOPs")
    total_flops = forward_flops + backward_flops  # @inspect total_flops
    assert total_flops == 6 * B * num_parameters
    text("Scaling-law papers use the same estimate, written C ≈ 6ND (N parameters, D tokens):"), link(SCALING_LAWS_PAPER)


# ---------------------------------------------------------------------------------------------
# 7. Models
# ---------------------------------------------------------------------------------------------


class ScaledLinear(nn.Module):
    """A bias-free linear layer whose weights start at std 1/sqrt(input_dim)."""

    def __init__(self, input_dim: int, output_dim: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(input_dim, output_dim) / math.sqrt(input_dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x @ self.weight


class DeepLinear(nn.Module):
    """num_layers square ScaledLinear layers, then a head down to one number per example."""

    def __init__(self, dim: int, num_layers: int):
        super().__init__()
        self.layers = nn.ModuleList([ScaledLinear(dim, dim) for _ in range(num_layers)])
        self.head = ScaledLinear(dim, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = layer(x)
        return self.head(x).squeeze(-1)


def count_parameters(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


def models():
    text("## Models")
    initialization()
    deep_linear_model()


def initialization():
    text("### Parameters and initialization")
    text("Parameters are tensors wrapped in `nn.Parameter` so that modules and optimizers can find them.")
    generator = torch.Generator().manual_seed(0)
    input_dim, output_dim = 1024, 1024
    x = torch.randn(input_dim, generator=generator)  # @inspect x
    w = nn.Parameter(torch.randn(input_dim, output_dim, generator=generator))  # @inspect w
    output = x @ w  # @inspect output
    output_std = output.std().item()  # @inspect output_std
    text("Each output sums `input_dim` products of unit-variance terms, so its std grows like $\\sqrt{\\text{input\\_dim}}$ = 32:")
    assert 0.9 * 32 < output_std < 1.1 * 32
    text("Through many layers that blows up (or vanishes). Divide by $\\sqrt{\\text{input\\_dim}}$ and the std stays near 1:")
    w = nn.Parameter(torch.randn(input_dim, output_dim, generator=generator) / math.sqrt(input_dim))  # @inspect w
    output = x @ w  # @inspect output
    scaled_output_std = output.std().item()  # @inspect scaled_output_std
    assert 0.9 < scaled_output_std < 1.1
    text("This is Xavier initialization, up to a constant. To rule out outliers, sample from a normal truncated to [-3, 3]:")
    w = nn.Parameter(nn.init.trunc_normal_(torch.empty(input_dim, output_dim), mean=0, std=1, a=-3, b=3, generator=generator) / math.sqrt(input_dim))  # @inspect w
    assert w.abs().max().item() <= 3 / math.sqrt(input_dim)
    text("Where Xavier (or Glorot) initialization comes from:"), link(XAVIER_INIT_PAPER)


def deep_linear_model():
    text("### A deep linear model")
    link(ScaledLinear)
    link(DeepLinear)
    D = 64
    model = DeepLinear(dim=D, num_layers=2)  # @inspect model
    param_sizes = [(name, param.numel()) for name, param in model.state_dict().items()]  # @inspect param_sizes
    assert param_sizes == [("layers.0.weight", D * D), ("layers.1.weight", D * D), ("head.weight", D)]
    num_parameters = count_parameters(model)  # @inspect num_parameters
    assert num_parameters == 2 * D * D + D == 8256
    text("Move the model to the device and run a batch through it:")
    device = get_device()
    model = model.to(device)
    B = 8
    x = torch.randn(B, D, device=device)  # @inspect x
    y = model(x)  # @inspect y
    assert y.shape == (B,)


# ---------------------------------------------------------------------------------------------
# 8. Training
# ---------------------------------------------------------------------------------------------


class AdaGrad(torch.optim.Optimizer):
    """AdaGrad: scale each step by the root of the running sum of squared gradients."""

    def __init__(self, params, lr: float = 0.01, eps: float = 1e-10):
        super().__init__(params, dict(lr=lr, eps=eps))

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if "sum_sq_grad" not in state:
                    state["sum_sq_grad"] = torch.zeros_like(p)
                state["sum_sq_grad"] += p.grad.square()
                p -= group["lr"] * p.grad / (state["sum_sq_grad"].sqrt() + group["eps"])


def get_batch(data: np.ndarray, batch_size: int, sequence_length: int, device: str) -> torch.Tensor:  # @inspect batch_size sequence_length device
    """batch_size random windows of sequence_length tokens, as a (batch_size, sequence_length) tensor."""
    starts = torch.randint(len(data) - sequence_length + 1, (batch_size,)).tolist()  # @inspect starts
    x = torch.from_numpy(np.stack([data[s : s + sequence_length] for s in starts]))
    if device == "cuda":
        # Page-locked host memory lets the copy run asynchronously, overlapping with compute.
        x = x.pin_memory()
    return x.to(device, non_blocking=True)


def training():
    text("## Training")
    randomness()
    data_loading()
    optimizers()
    training_memory_and_compute()
    training_loop()
    checkpointing()
    mixed_precision()


def randomness():
    text("### Randomness")
    text("Randomness enters through initialization, dropout and data order. Fix the seeds so that a run, and its bugs, can be reproduced:")
    seed = 0
    torch.manual_seed(seed)
    np.random.seed(seed)
    random.seed(seed)
    first = torch.randn(3)  # @inspect first
    torch.manual_seed(seed)
    second = torch.randn(3)  # @inspect second
    assert torch.equal(first, second)
    note("torch, NumPy and Python's `random` each have their own generator; seed all three.")


def data_loading():
    text("### Data loading")
    text("Language model data is a long sequence of integer token ids. Store it as a flat binary file:")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "tokens.bin"
        tokens = np.arange(1000, dtype=np.int32)  # @inspect tokens
        tokens.tofile(path)
        text("`np.memmap` maps the file without reading it: pages load only when touched, so datasets larger than RAM work.")
        data = np.memmap(path, dtype=np.int32, mode="r")  # @inspect data
        assert len(data) == 1000 and data[123] == 123
        link(get_batch)
        B, L = 2, 4
        x = get_batch(data, batch_size=B, sequence_length=L, device=get_device())  # @inspect x
        assert x.shape == (B, L)
        assert torch.all(x[:, 1:] - x[:, :-1] == 1)  # each row is a contiguous window
        del data
    if torch.cuda.is_available():
        pinned_memory()
    else:
        text("On a GPU, `get_batch` pins the batch (`pin_memory()`) and copies it with `non_blocking=True`, so the next batch travels while the GPU computes.")


def pinned_memory():
    text("### Pinned memory")
    pageable = torch.ones(64, 1024, 1024)  # 256 MiB
    pinned = pageable.pin_memory()
    assert pinned.is_pinned() and not pageable.is_pinned()
    pageable_seconds = time_fn(lambda: pageable.to("cuda"), "cuda")  # @stepover @inspect pageable_seconds
    pinned_seconds = time_fn(lambda: pinned.to("cuda", non_blocking=True), "cuda")  # @stepover @inspect pinned_seconds
    text("Pinned (page-locked) memory can be copied by DMA directly; pageable memory goes through a staging buffer first.")


def optimizers():
    text("### Optimizers")
    text("The family tree of the usual optimizers:")
    text("- momentum = SGD + an exponential average of gradients\n- AdaGrad = SGD + scaling by the accumulated squared gradients\n- RMSProp = AdaGrad with an exponential average of squared gradients\n- Adam = RMSProp + momentum")
    link(ADAM_PAPER)
    link(AdaGrad)
    torch.manual_seed(0)
    device = get_device()
    model = DeepLinear(dim=4, num_layers=2).to(device)  # @stepover
    reference = DeepLinear(dim=4, num_layers=2).to(device)  # @stepover
    reference.load_state_dict(model.state_dict())
    optimizer = AdaGrad(model.parameters(), lr=0.01)
    reference_optimizer = torch.optim.Adagrad(reference.parameters(), lr=0.01, eps=1e-10)
    x = torch.randn(8, 4, device=device)
    y = torch.randn(8, device=device)
    for net, opt in [(model, optimizer), (reference, reference_optimizer)]:
        F.mse_loss(net(x), y).backward()  # @stepover
        opt.step()
    weight = model.head.weight  # @inspect weight
    state = optimizer.state[weight]  # @inspect state
    assert torch.allclose(state["sum_sq_grad"], weight.grad.square())
    text("One step of ours matches `torch.optim.Adagrad`:")
    assert all(torch.allclose(a, b) for a, b in zip(model.parameters(), reference.parameters()))


def training_memory_and_compute():
    text("### Memory and compute of a training step")
    device = get_device()
    D, num_layers, B = 64, 4, 8
    model = DeepLinear(dim=D, num_layers=num_layers).to(device)  # @stepover
    optimizer = AdaGrad(model.parameters(), lr=0.01)  # @stepover
    x = torch.randn(B, D, device=device)
    model(x).pow(2).mean().backward()  # @stepover
    optimizer.step()  # @stepover
    num_parameters = D * D * num_layers + D  # @inspect num_parameters
    assert num_parameters == count_parameters(model)
    num_activations = B * D * num_layers  # @inspect num_activations
    num_gradients = num_parameters  # @inspect num_gradients
    num_optimizer_states = num_parameters  # AdaGrad: one running sum per parameter  @inspect num_optimizer_states
    assert sum(get_memory_usage(p.grad) for p in model.parameters()) == 4 * num_gradients
    assert sum(get_memory_usage(s["sum_sq_grad"]) for s in optimizer.state.values()) == 4 * num_optimizer_states
    total_nbytes = 4 * (num_parameters + num_activations + num_gradients + num_optimizer_states)  # float32  @inspect total_nbytes
    assert total_nbytes == 205_568
    text("Compute for one step: forward and backward, 6 FLOPs per example and parameter:")
    step_flops = 6 * B * num_parameters  # @inspect step_flops
    assert step_flops == 789_504


def training_loop():
    text("### A training loop")
    text("Learn a linear function with weights (0, 1, ..., D - 1) from noise-free examples.")
    device = get_device()
    D, B = 16, 32
    true_w = torch.arange(D, dtype=torch.float32)  # @inspect true_w
    generator = torch.Generator().manual_seed(0)
    torch.manual_seed(0)
    model = DeepLinear(dim=D, num_layers=0).to(device)  # @stepover
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for step in range(30):
        x = torch.randn(B, D, generator=generator)
        y = x @ true_w
        loss = F.mse_loss(model(x.to(device)), y.to(device))  # @stepover
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        losses.append(loss.item())  # @inspect losses
    assert losses[-1] < losses[0] / 10
    plot({
        "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
        "title": "Training loss",
        "data": {"values": [{"step": i, "loss": value} for i, value in enumerate(losses)]},
        "mark": "line",
        "encoding": {"x": {"field": "step", "type": "quantitative"}, "y": {"field": "loss", "type": "quantitative", "scale": {"type": "log"}}},
    })


def checkpointing():
    text("### Checkpointing")
    text("Long runs crash. Periodically save the model *and* the optimizer state, so training can resume where it stopped.")
    device = get_device()
    torch.manual_seed(0)
    model = DeepLinear(dim=8, num_layers=2).to(device)  # @stepover
    optimizer = AdaGrad(model.parameters(), lr=0.01)  # @stepover
    model(torch.randn(4, 8, device=device)).sum().backward()  # @stepover
    optimizer.step()  # @stepover
    checkpoint = {"model": model.state_dict(), "optimizer": optimizer.state_dict()}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "checkpoint.pt"
        torch.save(checkpoint, path)
        checkpoint_nbytes = path.stat().st_size  # @inspect checkpoint_nbytes
        loaded = torch.load(path, map_location=device)
    restored = DeepLinear(dim=8, num_layers=2).to(device)  # @stepover
    restored.load_state_dict(loaded["model"])
    restored_optimizer = AdaGrad(restored.parameters(), lr=0.01)  # @stepover
    restored_optimizer.load_state_dict(loaded["optimizer"])
    assert all(torch.equal(a, b) for a, b in zip(model.parameters(), restored.parameters()))
    saved_state = optimizer.state_dict()["state"]
    restored_state = restored_optimizer.state_dict()["state"]
    assert all(torch.equal(saved_state[i]["sum_sq_grad"], restored_state[i]["sum_sq_grad"]) for i in saved_state)


def mixed_precision():
    text("### Mixed precision with autocast")
    text("`torch.autocast` runs matmuls in bfloat16 inside its block while the parameters stay in float32.")
    device = get_device()
    torch.manual_seed(0)
    model = DeepLinear(dim=64, num_layers=2).to(device)  # @stepover
    x = torch.randn(8, 64, device=device)
    target = torch.zeros(8, device=device)
    with torch.autocast(device_type=device, dtype=torch.bfloat16):
        y = model(x)  # @stepover @inspect y
        loss = F.mse_loss(y, target)  # @inspect loss
    assert y.dtype == torch.bfloat16  # activations: low precision
    assert loss.dtype == torch.float32  # the loss is computed in float32
    assert model.head.weight.dtype == torch.float32  # parameters: float32
    loss.backward()
    weight_grad = model.head.weight.grad  # @inspect weight_grad
    assert weight_grad.dtype == torch.float32  # gradients: float32
    link(title="PyTorch automatic mixed precision", url="https://pytorch.org/docs/stable/amp.html")


def summary():
    text("## Summary")
    text("- Memory = number of elements × bytes per element; pick the dtype with range in mind.")
    text("- Matmuls dominate compute: 2·m·n·k FLOPs each; training costs about 6 × tokens × parameters.")
    text("- MFU = achieved FLOP/s ÷ promised FLOP/s tells you how much of the hardware you use.")


if __name__ == "__main__":
    main()
