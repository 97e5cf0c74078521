"""The publishing policy (tracer/contract/publish_policy.py): every warning box a page would show
fails ``check`` and ``build``, naming ``file:line``, until the author fixes it or accepts it (a
``# @accept KIND`` directive or ``[tool.chalktrace] accept_warnings``); an accepted one shows on the
page as the author's note, and ``run`` says the same warnings."""

from __future__ import annotations

import subprocess
import sys
import zlib
from pathlib import Path

from tracer.contract.publish_policy import KINDS, warning_kind

LECTURE = """from tracer import image, link, text


class Odd:
    def __repr__(self):
        raise RuntimeError("no repr")


def main():
    text("# Warnings")
    odd = Odd()  # @inspect odd{accept_odd}
    v = [1]  # @inspect v @inpsect v{accept_directive}
    link("https://arxiv.org/abs/2401.00001")  # offline, and no cache{accept_metadata}
    image("images/dot.png")
"""


def png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return len(data).to_bytes(4, "big") + kind + data + zlib.crc32(kind + data).to_bytes(4, "big")

    header = (1).to_bytes(4, "big") * 2 + bytes([8, 2, 0, 0, 0])
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00")) + chunk(b"IEND", b"")
    )


def chalktrace(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tracer", *args], cwd=root, capture_output=True, text=True, timeout=300)


def course(tmp_path: Path, **accepts: str) -> Path:
    root = tmp_path / "course"
    assert chalktrace(tmp_path, "init", str(root), "-q").returncode == 0
    (root / "lectures" / "images").mkdir(exist_ok=True)
    (root / "lectures" / "images" / "dot.png").write_bytes(png())
    fields = {f"accept_{k}": "" for k in ("odd", "directive", "metadata")} | accepts
    (root / "lectures" / "warns.py").write_text(LECTURE.format(**fields), encoding="utf-8")
    return root


EXPECTED = [  # directives are read before the lecture runs
    ("lectures/warns.py:12: unknown directive @inpsect", "directive"),
    ("lectures/warns.py:11: Odd: repr() raised RuntimeError: no repr", "unencodable"),
    ("lectures/warns.py:13: arXiv metadata unavailable (offline", "metadata"),
    ("lectures/warns.py:14: image lectures/images/dot.png has no alt text", "alt-text"),
]


def test_each_warning_box_fails_check_and_build_naming_file_line_and_run_says_it(tmp_path):
    root = course(tmp_path)
    ran = chalktrace(root, "run", "lectures/warns.py")
    assert ran.returncode == 0, ran.stderr
    for text, _ in EXPECTED:  # the run says each (the alt text too), as build and check will
        assert f"warning: {text}" in ran.stderr, ran.stderr
    assert "4 warning(s) students would see (directive, unencodable, metadata, alt-text)" in ran.stderr
    built = chalktrace(root, "build")
    checked = chalktrace(root, "check", "-q")
    assert built.returncode == 1 and checked.returncode == 3, (built.stderr, checked.stderr)
    for done in (built, checked):
        lines = [line for line in done.stderr.splitlines() if "a warning box students would see" in line]
        assert [line.split(" (a warning box")[0][: len(text)] for line, (text, _) in zip(lines, EXPECTED)] == [
            text for text, _ in EXPECTED
        ], done.stderr
        assert [line.rsplit("`# @accept ", 1)[1] for line in lines] == [f"{kind}` on its line)" for _, kind in EXPECTED]
    assert "chalktrace check: 4 problem(s)" in checked.stderr
    page = (root / "build" / "site" / "lectures" / "warns" / "index.html").read_text(encoding="utf-8")
    assert page.count("Trace warning") == 4 and "Author's note" not in page  # serve shows the draft as students would


def test_accepted_warnings_pass_and_show_as_the_author_s_notes(tmp_path):
    root = course(tmp_path, accept_odd=" @accept unencodable", accept_directive=" @accept directive")
    with (root / "pyproject.toml").open("a", encoding="utf-8") as settings:
        settings.write('\n[tool.chalktrace]\naccept_warnings = ["metadata", "lectures/warns.py:alt-text"]\n')
    built = chalktrace(root, "build")
    assert built.returncode == 0, built.stderr
    checked = chalktrace(root, "check", "-q")
    assert checked.returncode == 0, checked.stderr
    page = (root / "build" / "site" / "lectures" / "warns" / "index.html").read_text(encoding="utf-8")
    assert page.count("Author&#39;s note") + page.count("Author's note") == 4 and "Trace warning" not in page
    assert "no repr" in page and "arXiv metadata unavailable" in page
    # an accept for one lecture does not reach another; an unknown kind is refused, naming the file
    (root / "pyproject.toml").write_text('[project]\nname = "c"\n[tool.chalktrace]\naccept_warnings = ["typo"]\n')
    refused = chalktrace(root, "check", "-q")
    assert refused.returncode == 3 and "pyproject.toml: [tool.chalktrace] accept_warnings must be a list" in refused.stderr


def test_an_accept_naming_no_kind_is_itself_a_warning(tmp_path):
    root = course(tmp_path, accept_odd=" @accept unencodeable")
    ran = chalktrace(root, "run", "lectures/warns.py")
    assert "lectures/warns.py:11: @accept takes warning kinds (" in ran.stderr and "not 'unencodeable'" in ran.stderr


def test_warning_kinds_of_the_tracer_s_messages():
    assert warning_kind("torch.Tensor: cannot encode: RuntimeError: Numpy is not available") == "unencodable"
    assert warning_kind("int: int with 5,000 digits (more than 4,300)") == "unencodable"
    assert warning_kind("@inspect/@clear takes names or dotted paths, not '2x'") == "directive"
    assert warning_kind("arXiv has no paper 9901.00009; its citation is labelled by its title or id") == "metadata"
    assert warning_kind("recording stopped after 10 steps") == "truncated"
    assert warning_kind("printed output kept in part: 2,000 characters printed") == "truncated"
    assert warning_kind("the lecture left an interval timer armed") == "other"
    assert warning_kind("image(https://x.org/a.png): not in the course cache and cannot be fetched (offline)") == "media"
    assert set(KINDS) == {"unencodable", "directive", "metadata", "media", "alt-text", "truncated", "other"}


def test_a_change_to_accept_warnings_reaches_a_page_rendered_from_the_cache(tmp_path):
    """The setting is not in the trace: a build after it changed must not reuse the page rendered before."""
    root = course(tmp_path)
    chalktrace(root, "build")
    page = root / "build" / "site" / "lectures" / "warns" / "index.html"
    assert page.read_text(encoding="utf-8").count("Trace warning") == 4
    with (root / "pyproject.toml").open("a", encoding="utf-8") as settings:
        settings.write('\n[tool.chalktrace]\naccept_warnings = ["metadata", "alt-text"]\n')
    chalktrace(root, "build")  # the trace is unchanged (nothing re-traced): only the setting moved
    shown = page.read_text(encoding="utf-8")
    assert shown.count("Trace warning") == 2 and shown.count("Author&#39;s note") + shown.count("Author's note") == 2
