"""The course's runners, read from ``[tool.chalktrace.runners.NAME]`` tables of its ``pyproject.toml``.

Each runner says where (``host``, an ssh destination; absent: this machine), how (``setup``, a shell
line run first; ``launch``, a template around ``{command}``) and what (``lectures``, project-relative
path patterns). Optional keys: ``ssh`` (extra ssh options), ``remote_dir`` (the runner's folder on the
host), ``python`` (the interpreter there), ``chalktrace`` (``"sent"``: this chalktrace's source is
sent; ``"installed"``: the host's own, which must be the same version; or a path to a wheel, whose
files are sent), ``files`` (more patterns of files the lectures read) and ``batch`` (the ``sbatch``
line for several lectures at once, when ``launch`` is not an ``srun`` line). This module only reads
and checks the settings; it must not run anything.
"""

from __future__ import annotations

import fnmatch
import shlex
import tomllib
from dataclasses import dataclass
from pathlib import Path

from tracer.contract import paths

LOCAL = "local"  # `--runner local`: trace on this machine, whatever the patterns say (no runner may take the name)
KNOWN_KEYS = ("host", "setup", "launch", "lectures", "ssh", "remote_dir", "python", "chalktrace", "files", "batch")
DEFAULT_REMOTE_DIR = ".cache/chalktrace"  # relative to the ssh user's home on the host


class RunnerError(Exception):
    """A runner cannot be used; str() is one line naming pyproject.toml (or the lecture) and the reason."""


@dataclass(frozen=True)
class Runner:
    name: str
    launch: str = "{command}"
    host: str | None = None
    setup: str | None = None
    lectures: tuple[str, ...] = ()
    ssh: tuple[str, ...] = ()
    remote_dir: str = DEFAULT_REMOTE_DIR
    python: str = "python3"
    chalktrace: str = "sent"
    files: tuple[str, ...] = ()
    batch: str | None = None

    def matches(self, relpath: str) -> bool:
        """Whether this runner traces the lecture at project-relative ``relpath`` by default."""
        return any(fnmatch.fnmatchcase(relpath, pattern) for pattern in self.lectures)

    @property
    def uses_slurm(self) -> bool:
        """Whether the launch goes through Slurm (so jobs can be named, cancelled and asked about)."""
        words = shlex.split(self.launch)
        return (bool(words) and words[0] in ("srun", "sbatch")) or self.batch is not None

    def where(self) -> str:
        """How messages name the runner: ``gpu (login.cluster.example.edu)``."""
        return f"{self.name} ({self.host})" if self.host else self.name


def _strings(value: object, key: str, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise RunnerError(f"{where}: {key} must be a list of strings")
    return tuple(value)


def _runner(name: str, table: object) -> Runner:
    where = f"pyproject.toml: [tool.chalktrace.runners.{name}]"
    if not isinstance(table, dict):
        raise RunnerError(f"{where}: must be a table of settings")
    if name == LOCAL:
        raise RunnerError(f"{where}: the name {LOCAL!r} is kept for `--runner {LOCAL}` (this machine)")
    unknown = sorted(set(table) - set(KNOWN_KEYS))
    if unknown:
        raise RunnerError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(KNOWN_KEYS)})")
    text: dict[str, str] = {}
    for key in ("host", "setup", "launch", "remote_dir", "python", "chalktrace", "batch"):
        if key in table:
            if not isinstance(table[key], str) or not table[key].strip():
                raise RunnerError(f"{where}: {key} must be a non-empty string")
            text[key] = table[key]
    launch = text.get("launch", "{command}")
    if launch.count("{command}") != 1:
        raise RunnerError(f'{where}: launch must name {{command}} once, e.g. "srun -p gpu --gres=gpu:1 {{command}}"')
    try:
        shlex.split(launch)
    except ValueError as exc:
        raise RunnerError(f"{where}: launch is not a shell command line ({exc})") from None
    return Runner(
        name=name,
        launch=launch,
        host=text.get("host"),
        setup=text.get("setup"),
        lectures=_strings(table.get("lectures", []), "lectures", where),
        ssh=_strings(table.get("ssh", []), "ssh", where),
        remote_dir=text.get("remote_dir", DEFAULT_REMOTE_DIR),
        python=text.get("python", "python3"),
        chalktrace=text.get("chalktrace", "sent"),
        files=_strings(table.get("files", []), "files", where),
        batch=text.get("batch"),
    )


def load_runners(project_root: Path) -> dict[str, Runner]:
    """Every runner the course declares, by name (empty when it declares none)."""
    path = project_root / "pyproject.toml"
    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return {}
    try:
        tables = tomllib.loads(text).get("tool", {}).get("chalktrace", {}).get("runners", {})
    except tomllib.TOMLDecodeError as exc:
        raise RunnerError(f"pyproject.toml: not valid TOML ({exc})") from None
    if not isinstance(tables, dict):
        raise RunnerError("pyproject.toml: [tool.chalktrace.runners] must hold one table per runner")
    return {name: _runner(name, table) for name, table in tables.items()}


def runner_for(lecture: Path, project_root: Path, runners: dict[str, Runner], chosen: str | None) -> Runner | None:
    """The runner that traces ``lecture``: the one ``--runner`` names, else the first whose ``lectures``
    match it; None for this machine (``--runner local``, or no pattern matches)."""
    if chosen == LOCAL:
        return None
    if chosen is not None:
        if chosen not in runners:
            known = ", ".join(sorted(runners)) or "none declared"
            raise RunnerError(f"--runner {chosen}: no [tool.chalktrace.runners.{chosen}] in pyproject.toml (runners: {known})")
        return runners[chosen]
    relpath = paths.project_relpath(lecture, project_root) or lecture.as_posix()
    for runner in runners.values():
        if runner.matches(relpath):
            return runner
    return None
