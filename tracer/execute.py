"""``python -m tracer.execute -m lecture_01``: edtrace's one-lecture command, spelled for chalktrace
(``chalktrace execute``; see ``tracer.commands.execute``)."""

import sys

from tracer.cli import main

if __name__ == "__main__":
    sys.exit(main(["execute", *sys.argv[1:]]))
