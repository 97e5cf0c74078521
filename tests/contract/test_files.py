"""tracer/contract/files.py: atomic writes keep the old file or the whole new one, with the umask's mode."""

from __future__ import annotations

import os

import pytest

from tracer.contract.files import write_atomic


def test_write_atomic_creates_parents_and_replaces(tmp_path):
    path = tmp_path / "a" / "b" / "t.json"
    write_atomic(path, "one")
    write_atomic(path, "two")
    assert path.read_text(encoding="utf-8") == "two"
    assert [p.name for p in path.parent.iterdir()] == ["t.json"]


def test_write_atomic_crash_keeps_old_file_and_no_temp(tmp_path, monkeypatch):
    path = tmp_path / "t.json"
    path.write_text("old", encoding="utf-8")

    def crash(*args):
        raise OSError("disk on fire")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="disk on fire"):
        write_atomic(path, "new")
    monkeypatch.undo()
    assert path.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["t.json"]


def test_write_atomic_respects_umask_without_changing_it(tmp_path):
    before = os.umask(0o027)
    try:
        write_atomic(tmp_path / "t.json", "{}")
        assert (tmp_path / "t.json").stat().st_mode & 0o777 == 0o640
        assert os.umask(0o027) == 0o027  # unchanged by the write
    finally:
        os.umask(before)
