"""Helper for uses_helper.py: traced because it lives in the lecture's directory."""


def triple(n):
    result = n * 3  # @inspect result
    return result
