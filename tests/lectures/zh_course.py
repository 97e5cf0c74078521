"""Fixture: a lecture whose prose is Chinese, for a course with theme.language: zh (the interface in Chinese)."""

import torch

from tracer import text


def main():
    text("## 张量的视图")
    text("转置不会复制数据：它只交换了形状和步长。下面的每一步都可以在逐步模式中查看。")
    x = torch.arange(6).reshape(2, 3)  # @inspect x
    y = x.T  # @inspect y
    for _ in range(3):
        pass
    n = y.numel()  # @ask n
    text("## 求和")
    total = 0
    for i in range(4):
        total += i * n
