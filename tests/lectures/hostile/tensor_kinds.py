"""Tensors that teach resource accounting: meta, sparse, nested, quantized, a subclass."""

import torch


class Tagged(torch.Tensor):
    pass


def main():
    weight = torch.empty(4096, 11008, dtype=torch.bfloat16, device="meta")  # @inspect weight
    sparse = torch.tensor([[0.0, 2.0, 0.0], [3.0, 0.0, 4.0]]).to_sparse()  # @inspect sparse
    csr = torch.tensor([[0.0, 2.0], [5.0, 0.0]]).to_sparse_csr()  # @inspect csr
    nested = torch.nested.nested_tensor([torch.ones(2, 3), torch.ones(4, 3)])  # @inspect nested
    quantized = torch.quantize_per_tensor(torch.tensor([0.5, 1.0, -1.0]), scale=0.1, zero_point=10, dtype=torch.quint8)  # @inspect quantized
    tagged = torch.arange(4.0).as_subclass(Tagged)  # @inspect tagged
