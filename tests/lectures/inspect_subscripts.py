"""Fixture: @inspect with subscripts, read without running the lecture's code."""


class Model:
    def __init__(self):
        self.layers = ["embed", "attend", "project"]


class Counting:
    reads = 0

    def __getitem__(self, key):
        Counting.reads += 1
        return key


def main():
    vocab = {"the": 0, "cat": 1}
    history = [0.9, 0.5, 0.25]
    model = Model()
    i = 1
    new_id = "cat"
    counted = Counting()
    seen = 0  # @inspect vocab[new_id] history[-1] vocab['the'] model.layers[i] history[0]
    seen = Counting.reads  # @inspect counted[3] seen
