"""main is imported from a helper."""

from _main_source import main  # noqa: F401
