"""Helpers of the course, written against edtrace's API."""

from edtrace import link, text


def article_link(url: str) -> None:
    link(title="article", url=url)


def bullets(*items: str) -> None:
    for item in items:
        text(f"- {item}")
