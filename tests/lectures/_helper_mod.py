# chalktrace: trace
"""Helper for uses_helper.py: stepped into because of the marker line above."""


def triple(n):
    result = n * 3  # @inspect result
    return result
