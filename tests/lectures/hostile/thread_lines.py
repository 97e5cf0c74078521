"""A lecture that runs lines in a thread it starts."""

import threading


def work(out):
    total = sum(range(10))
    out.append(total)


def main():
    out = []
    worker = threading.Thread(target=work, args=(out,), name="worker-1")
    worker.start()
    worker.join()
    result = out[0]  # @inspect result
