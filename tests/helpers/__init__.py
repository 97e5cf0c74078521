"""Helpers the tests share (imported as ``helpers.NAME``; ``tests/`` is on ``sys.path`` through its
conftest): traced fixture lectures, scratch course projects, rank runs, XSS attack strings, a local
stand-in for remote hosts. Test modules import from here, never from each other."""
