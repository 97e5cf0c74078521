"""image() of a file outside the project."""

import os
import tempfile

from tracer import image


def main():
    path = os.path.join(tempfile.gettempdir(), "chalktrace-outside.png")
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
    image(path)
