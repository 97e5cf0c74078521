"""The shared test helpers clean up after themselves: the traced fixture lectures' temporary
directory is gone when the test process ends."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def test_the_traced_fixtures_directory_is_removed_when_the_process_ends():
    script = "from helpers.traced import traces_dir\nout = traces_dir()\n(out / 'x.json').write_text('{}')\nprint(out)\n"
    done = subprocess.run([sys.executable, "-c", script], cwd=TESTS, capture_output=True, text=True, timeout=60, check=True)
    made = Path(done.stdout.strip())
    assert made.name.startswith("chalktrace-test-traces-")
    assert not made.exists()
