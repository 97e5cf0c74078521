"""``python -m tracer`` is the ``chalktrace`` command."""

import sys

from tracer.cli import main

sys.exit(main())
