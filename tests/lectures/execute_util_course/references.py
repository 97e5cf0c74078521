"""Citation records, as a course keeps them (an untraced helper: no marker, no setting)."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Reference:
    title: str | None = None
    authors: list[str] | None = None
    organization: str | None = None
    date: str | None = None
    url: str | None = None
    description: str | None = None
    notes: str | None = None


scaling_laws = Reference(
    title="Scaling Laws for Neural Language Models",
    authors=["Jared Kaplan", "Sam McCandlish", "Tom Henighan"],
    organization="OpenAI",
    date="2020-01-23",
    url="https://arxiv.org/abs/2001.08361",
    description="Loss falls as a power law in parameters, data and compute.",
)
