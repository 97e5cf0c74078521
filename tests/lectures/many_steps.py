"""Fixture: more steps than a small max_steps; writes a marker file at the very end."""

import os


def main():
    total = 0
    for i in range(200):
        total += i
    marker = os.environ.get("CHALKTRACE_TEST_MARKER")
    if marker:
        with open(marker, "w", encoding="utf-8") as f:
            f.write(str(total))
