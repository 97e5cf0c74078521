"""step-data.js in Chromium: the packed data.js of real sites unpacks to exactly the data the site's
renderer made (every card's HTML and summary, the steps' columns, variables, clears and snapshots)."""

from __future__ import annotations

import pytest

from helpers.site import served_fixture_site, viewer_context
from helpers.traced import traced
from tracer.site.cards.render import HtmlRenderer
from tracer.site.cards.templates import template_env
from tracer.site.pages.viewer_data import build_viewer_data

LECTURES = ("packed_numbers", "exact_values", "tensor_views", "site_basics")

UNPACKED = """() => {
    const d = window.CHALKTRACE_DATA, cards = [];
    for (let k = 0; k < d.card_count; k++) { const c = d.card(k); cards.push([c.html, c.summary]); }
    return {cards, steps: d.steps, env: d.env, clear: d.clear, snapshots: d.snapshots};
}"""


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    with served_fixture_site(tmp_path_factory.mktemp("site"), *LECTURES) as url:
        yield url


@pytest.mark.parametrize("name", LECTURES)
def test_packed_data_unpacks_to_what_the_renderer_made(browser, site, name):
    trace = traced(name)
    made = build_viewer_data(trace, HtmlRenderer(trace, template_env()))
    with viewer_context(browser, viewport={"width": 1280, "height": 800}) as context:
        page = context.new_page()
        page.goto(f"{site}lectures/{name}/#step=1")
        page.wait_for_function("window.CHALKTRACE_READY !== undefined")
        got = page.evaluate(UNPACKED.replace("d.card_count", str(len(made["cards"]))))
    expected = [
        ["\n".join(made["fragments"][k] for k in card), summary] for card, summary in zip(made["cards"], made["summaries"])
    ]
    assert len(got["cards"]) == len(expected) > 0
    for k, (card, want) in enumerate(zip(got["cards"], expected)):
        assert card == want, f"card {k}"
    assert got["steps"] == made["steps"]
    assert got["env"] == made["env"] and got["clear"] == made["clear"] and got["snapshots"] == made["snapshots"]
