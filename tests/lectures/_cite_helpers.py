"""Fixture helper: a wrapper that only renders (as courses in the executable-lecture format write)."""

from tracer import link


def named_link(title, url):
    link(title=title, url=url)
