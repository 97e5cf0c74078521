"""Fixture: values whose text would leak this machine's paths or memory addresses."""

from pathlib import Path


class Opaque:
    pass


def main():
    here = __file__  # @inspect here
    where = Path(__file__).parent  # @inspect where
    thing = Opaque()  # @inspect thing
    print("running", __file__, thing)
    raise RuntimeError(f"stopped in {__file__}")
