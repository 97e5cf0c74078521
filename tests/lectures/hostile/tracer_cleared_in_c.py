"""A lecture whose tracer is removed from C (as an extension would), not through sys.settrace."""

import ctypes


def main():
    before = 1  # @inspect before
    ctypes.pythonapi.PyEval_SetTrace(None, None)
    after = 2  # @inspect after
