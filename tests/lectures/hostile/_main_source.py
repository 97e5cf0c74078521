# chalktrace: trace
"""Helper module holding the real main (imported by main_imported.py)."""


def main():
    y = 2  # @inspect y
