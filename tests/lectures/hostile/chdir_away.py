"""Changes its working directory while it runs: a relative -o must not follow it."""

import os
import tempfile


def main():
    os.chdir(tempfile.gettempdir())
    here = os.getcwd()  # @inspect here
