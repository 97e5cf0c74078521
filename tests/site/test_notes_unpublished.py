"""Speaker notes never reach a published build: no file of build/site holds their text (data.js, the
lecture page, source.html, the search index), and the build writes them to the notes file beside the site."""

from __future__ import annotations

import json

from helpers.site import build_site
from helpers.traced import trace_path

SECRETS = ("SECRET-NOTE-4711", "SECRET-NOTE-2", "SECRET-NOTE-3")


def test_no_file_of_the_built_site_holds_a_note_and_the_notes_file_beside_it_does(tmp_path):
    site = build_site(tmp_path, [trace_path("secret_notes")])
    files = [path for path in site.rglob("*") if path.is_file()]
    assert any(path.name == "data.js" for path in files) and any(path.name == "source.html" for path in files)
    assert any(path.name == "search_index.json" for path in files)
    for path in files:
        data = path.read_bytes()
        for secret in SECRETS:
            assert secret.encode() not in data, f"{path.relative_to(site)} holds {secret}"
    data_js = (site / "lectures" / "secret_notes" / "data.js").read_text(encoding="utf-8")
    assert '"has_speaker_notes":true' in data_js and "speaker_note(" not in data_js
    # the code around the notes is still published
    source = (site / "lectures" / "secret_notes" / "source.html").read_text(encoding="utf-8")
    assert "explain" in source and "@inspect" in source

    notes = json.loads((tmp_path / "build" / "notes" / "secret_notes.json").read_text(encoding="utf-8"))
    assert notes["lecture"] == "secret_notes"
    text = " ".join(html for _step, html in notes["notes"])
    assert all(secret in text for secret in SECRETS)
    assert [step for step, _html in notes["notes"]] == sorted(step for step, _html in notes["notes"])
