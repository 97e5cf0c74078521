"""``python -m tracer`` is the ``lectrace`` command."""

import sys

from tracer.cli import main

sys.exit(main())
