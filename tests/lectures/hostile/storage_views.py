"""A 100-million-element storage inspected through views of rank 1 to 4 (the site's work is bounded by the preview)."""

import torch


def main():
    flat = torch.zeros(100_000_000, dtype=torch.uint8)  # @inspect flat
    square = flat.view(10_000, 10_000)  # @inspect square
    cube = flat.view(1_000, 1_000, 100)  # @inspect cube
    tesseract = flat.view(100, 100, 100, 100)  # @inspect tesseract
    strided = tesseract[::3, 1::7, :, ::2].transpose(0, 3)  # @inspect strided
    del flat, square, cube, tesseract, strided
