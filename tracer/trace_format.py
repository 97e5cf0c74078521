"""The trace file format: its Python types, its JSON Schema, and reading/validating/writing traces.

This module is the single source of truth for what a trace is. The TypedDicts below describe the
JSON that the recorder writes and the site reads; ``trace.schema.json`` (shipped beside this file)
says the same thing to a validator (``tests/test_trace_format.py`` checks that the two and the
writer's real output agree), and ``SCHEMA_VERSION`` goes up on every incompatible change. The read
side is :func:`load_trace` (read + validate) and :func:`read_header` (no validation, for freshness
checks), plus small typed accessors (:func:`step_frame`, :func:`iter_renderings`,
:func:`local_images`, :func:`trace_notes`, ...) that every consumer uses instead of walking raw
dicts its own way. It must not run lectures or render anything: it only knows the shape of the data.

Value encoding (``Value``, produced by ``tracer.capture.values``), each a dict with a ``type`` key:

* ``int``/``bool``/``str``/``none``: ``{"type": "int", "value": 3}``; ``str`` may carry ``truncated``.
* ``float``: ``value`` is a number, or one of the strings ``"nan"``, ``"inf"``, ``"-inf"``.
* ``complex``: ``{"real": float, "imag": float}``.
* ``list``/``tuple``/``set``/``frozenset``: ``items`` (Values), ``length`` (full length),
  ``truncated`` (bool). ``dict``: ``items`` is a list of ``[key Value, value Value]`` pairs.
* ``dataclass``: ``class`` and ``fields`` ({name: Value}). ``cycle``: a back-reference, ``repr``.
* ``ndarray``: ``dtype``, ``shape``, ``values`` (nested lists), ``truncated``, ``stats``.
* ``numpy_scalar``: ``dtype``, ``value``. ``sympy``: ``repr``, ``latex``.
* ``finfo``: ``dtype``, ``bits``, ``eps``, ``max``, ``min``, ``smallest_normal``, ``resolution``.
  ``iinfo``: ``dtype``, ``bits``, ``min``, ``max``.
* ``dtype``: ``value`` (e.g. ``"float32"``), ``itemsize``, ``is_floating_point``.
  ``device``: ``value``. ``size``: ``value`` (list of ints).
* ``module``: ``class``, ``num_parameters``, ``parameters`` ([{name, shape, dtype}]), ``repr``.
* ``function``/``class``: ``name``, ``path``/``line`` when defined in a lecture file.
* ``tensor``: see ``TensorValue``. Inside ``values``, an elided run of elements is the string
  ``"…"``; non-finite floats are ``"nan"``/``"inf"``/``"-inf"``; complex numbers are ``[re, im]``.
  A quantized tensor also has ``quantized`` (``qscheme``, ``scale``/``zero_point`` or per-channel
  ``axis``/``scales``/``zero_points``) and its ``values`` are the stored integers; a tensor subclass
  has ``subclass`` (its class) and the card of the plain tensor it holds.
* ``meta_tensor``: a tensor with no data (device "meta"): ``dtype``, ``shape``, ``stride``,
  ``element_size``, ``numel``, ``nbytes`` (what it would take), ``requires_grad``.
* ``sparse_tensor``: ``layout`` (``sparse_coo``, ``sparse_csr``, ...), ``dtype``, ``shape``, ``device``,
  ``nnz``, ``nbytes`` (of the arrays it stores), ``components`` ([{name, shape, dtype, values, truncated}]:
  its index and value arrays, previewed like a tensor's values).
* ``nested_tensor``: ``dtype``, ``device``, ``length``, ``shapes`` (each component's), ``truncated``.
* ``object``: ``class`` and ``repr`` (``repr`` is null and ``repr_error`` set when ``__repr__`` fails).
* ``missing``: a name an ``@inspect`` asked for that did not exist; ``message`` says why.
* ``unrepresentable``: a value that cannot be shown as itself (an int of thousands of digits, an
  object whose encoding failed): ``class``, ``reason``, ``preview`` (short text or null). The run
  also warns, naming file:line.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterator, Literal, NotRequired, TypedDict, get_args, get_origin, get_type_hints

SCHEMA_VERSION = 1
SCHEMA_PATH = Path(__file__).with_name("trace.schema.json")


class Frame(TypedDict):
    path: str  # relative to the project root, forward slashes
    line: int
    function: str


class ErrorInfo(TypedDict):
    type: str
    message: str
    traceback: list[Frame]  # lecture frames only, outermost first
    rank: NotRequired[int]  # the trace's error came from this rank


class Memory(TypedDict):
    nbytes: int  # CUDA: memory_allocated(); CPU: bytes of live storages among recorded tensors
    peak_nbytes: int  # CUDA: max_memory_allocated(); CPU: the running maximum of nbytes


class Compute(TypedDict):
    flops: int
    seconds: float
    flop_per_s: float | None
    by_op: dict[str, int]
    peak_flop_per_s: float | None
    mfu: float | None
    dtype: str | None
    device_name: NotRequired[str | None]
    timing: NotRequired[str]  # "replay" (pure expression re-run) or "single" (one run, as traced)
    repeats: NotRequired[int]
    peak_note: NotRequired[str | None]  # why peak/mfu are null


RenderingType = Literal["markdown", "image", "link", "note", "plot"]
RENDERING_TYPES: tuple[str, ...] = get_args(RenderingType)  # every kind the authoring API can emit


class Rendering(TypedDict, total=False):
    type: RenderingType
    data: str  # markdown/note text; image path (project-relative) or URL
    style: dict[str, Any] | None  # CSS properties (text, image, link)
    verbatim: bool  # markdown: data is exact text, shown preformatted (not parsed as markdown)
    command: list[str]  # markdown from system_text(): the command whose stdout is data (verbatim)
    exit_status: int  # system_text(..., check=False): the command's non-zero exit status
    external: bool  # image: data is a URL
    width: float | str | None
    url: str | None  # link
    title: str
    internal: Frame | None  # link(function): where it is defined
    # link(record), link(url, notes=...): citation fields as the author gave them: authors (a
    # string or a list of strings), organization, date (e.g. "2020-01"), description, notes, plus
    # any other public field of the record. Present when any is set; enough for a compact
    # "[Kaplan+ 2020]" citation whose panel shows the rest.
    attrs: dict[str, Any]
    spec: dict[str, Any]  # plot: a Vega-Lite spec
    truncated: dict[str, int]  # plot: {"data_points": N} when the spec's data held N rows and an even sample is kept


class TensorValue(TypedDict):
    type: Literal["tensor"]
    dtype: str  # "float32", "bfloat16", "float8_e4m3fn", ...
    shape: list[int]
    stride: list[int]
    storage_offset: int
    contiguous: bool
    device: str
    element_size: int
    numel: int
    nbytes: int  # numel * element_size
    storage_id: str  # "s1", "s2", ...: equal for tensors sharing one storage
    storage_nbytes: int
    requires_grad: bool
    grad_fn: str | None
    values: Any  # nested lists (bounded preview)
    truncated: bool
    stats: dict[str, Any] | None  # floating tensors: min, max, mean, std, nan_count, inf_count
    quantized: NotRequired[dict[str, Any]]  # quantized tensors: qscheme, scale(s), zero point(s)
    subclass: NotRequired[str]  # a tensor subclass: its class ("module.Name")


Value = dict[str, Any]
# Every kind of Value (its "type"), as listed in this module's docstring; tests check that the encoder
# emits only these and that the site draws each one (no "unknown" card).
VALUE_TYPES: tuple[str, ...] = (
    "int", "bool", "str", "none", "float", "complex", "list", "tuple", "set", "frozenset", "dict", "dataclass",
    "cycle", "ndarray", "numpy_scalar", "sympy", "finfo", "iinfo", "dtype", "device", "size", "module", "function",
    "class", "tensor", "object", "missing", "unrepresentable", "meta_tensor", "sparse_tensor", "nested_tensor",
)


class Step(TypedDict):
    stack: list[Frame]  # outermost first; the last frame is the line this step is about
    env: dict[str, Value]  # values recorded on this step only
    renderings: list[Rendering]
    stdout: str
    memory: Memory
    stderr: NotRequired[str]  # what the lecture wrote to sys.stderr (warnings too), bounded like stdout
    clear: NotRequired[list[str]]  # names an @clear removes from view from this step on
    call: NotRequired[bool]  # the line is calling into lecture code; its values come on a later step
    error: NotRequired[ErrorInfo]
    compute: NotRequired[Compute]
    collectives: NotRequired[list["Collective"]]  # torch.distributed calls this line made (rank streams)
    speaker_notes: NotRequired[list[str]]  # speaker_note() markdown: shown only in the speaker view


class Collective(TypedDict):
    """One torch.distributed call on one rank; the byte model is in tracer/capture/ranks/collectives.py."""

    op: str  # "all_reduce", "broadcast", "all_gather", "reduce_scatter_tensor", "send", "barrier", ...
    seq: int  # this rank's n-th collective of its launch: equal seq on every rank = the same collective
    dtype: str | None
    shape: list[int] | None
    nbytes: int  # the per-rank payload S of the model
    sent_nbytes: int
    received_nbytes: int
    algorithm: str  # "ring", "one-to-all", "direct", "point to point", ...
    group_size: int
    backend: str | None
    seconds: float  # wall time of the call on this rank (waiting for the others included)
    start_seconds: float  # since the launch started (one clock for all its ranks)
    async_op: bool
    root: NotRequired[int]
    peer: NotRequired[int]
    reduce_op: NotRequired[str]
    # added when the launch's records are merged (collectives.add_bandwidth), from every rank's entry:
    wait_seconds: NotRequired[float]  # waiting for the last rank to enter (async calls: absent)
    transfer_seconds: NotRequired[float]  # seconds - wait_seconds
    algbw: NotRequired[float]  # bytes/s, nccl-tests' S / transfer_seconds (no figure for barrier, async calls)
    busbw: NotRequired[float]  # bytes/s, algbw x the op's bus factor
    peak: NotRequired[float]  # bytes/s, one direction of the link (the launch's ``link``), where known
    peak_share: NotRequired[float]  # busbw / peak


class Link(TypedDict):
    """The link a launch's collectives crossed, from tracer/capture/link_peaks.py (absent: unknown)."""

    label: str  # "NVLink 4 (H100 SXM)", "PCIe Gen5 x16", "100 GbE"
    bytes_per_s: float  # one direction


class SequenceEntry(TypedDict):
    """One collective as a rank announced it before entering it (its desync record)."""

    n: int | None  # its number among the rank's collectives over the whole group (1-based); None: p2p, subgroup
    seq: int  # as Collective.seq
    op: str
    dtype: str | None
    shape: list[int] | None
    nbytes: int
    path: str
    line: int
    root: NotRequired[int]
    start_seconds: NotRequired[float]  # when it was announced, since the launch started


class RankEnd(TypedDict):
    """How a rank's function ended, as it said before exiting (absent: it never said: killed, lost)."""

    how: Literal["returned", "raised"]
    error: NotRequired[str]  # "Type: message" (first line), when it raised
    path: NotRequired[str]  # where it raised
    line: NotRequired[int]


class DesyncRank(TypedDict):
    rank: int
    state: Literal["waiting", "called", "never called", "different"]  # in #n; called #n and went on; never called #n; called another #n
    last: SequenceEntry | None  # waiting: the collective it waits in; else its last collective (#n itself if different)
    ended: RankEnd | None
    where: str | None  # "path:line" where the rank stood when the run was stopped


class Desync(TypedDict):
    """Ranks that disagree on their collectives (tracer/capture/ranks/desync.py)."""

    message: str  # "path:line: rank 0 of 2 waits in all_reduce #2; rank 1 never called it (...)"
    n: int  # the collective number they disagree on
    ranks: list[DesyncRank]  # every rank of the launch, by rank
    found_seconds: NotRequired[float]  # when the launcher named it, since the launch started (absent: at the merge)


class RankStream(TypedDict):
    rank: int  # from the process group once joined, else the spawn index (or torchrun's RANK)
    spawn_index: int
    status: Literal["ok", "error", "stopped", "exited", "lost"]
    joined: NotRequired[bool]
    exitcode: NotRequired[int | None]
    waiting_in: NotRequired[str]  # the collective a stopped rank was blocked in
    sequence: NotRequired[list[SequenceEntry]]  # every collective the rank entered, in order (the last may not have returned)
    ended: NotRequired[RankEnd]
    error: NotRequired["ErrorInfo"]
    warnings: NotRequired[list[str]]
    # like the trace's: {"max_steps": N} when this rank hit the step cap, {"stdout_chars": N} and
    # {"stderr_chars": N} when it wrote more than the output budget kept
    truncated: NotRequired[dict[str, int] | None]
    steps: list[Step]  # this rank's own steps; stacks start at its function


class Launch(TypedDict):
    step: int | None  # spawn: the parent step of the line that started the ranks; torchrun: None
    how: Literal["spawn", "torchrun"]
    world_size: int
    backend: str | None
    streams: list[RankStream]  # sorted by rank
    link: NotRequired[Link]  # the link the collectives crossed, where known (gloo on loopback: absent)
    desync: NotRequired[Desync]  # the ranks disagreed on a collective: the run was stopped and says so


class ShardInfo(TypedDict):
    """A shard (one rank's own trace, before merging) says which rank it is."""

    rank: int
    status: Literal["ok", "error", "stopped"]
    spawn_index: NotRequired[int]
    launch: NotRequired[int]
    world_size: NotRequired[int | None]
    backend: NotRequired[str | None]
    joined: NotRequired[bool]
    exitcode: NotRequired[int | None]
    link: NotRequired[Link | None]


class RanksInfo(TypedDict):
    format: int  # 1
    world_size: int
    launches: list[Launch]


class Lecture(TypedDict):
    name: str
    path: str
    title: str


class Environment(TypedDict, total=False):
    python: str
    torch: str | None
    numpy: str | None
    device: Literal["cpu", "cuda"]
    gpu_name: str | None
    gpu_total_memory_nbytes: int | None
    memory_source: Literal["cpu_recorded", "cuda_allocated"]
    seed: int
    hash_seed: int | None  # PYTHONHASHSEED of the traced process (null: randomised); absent in older traces


class Trace(TypedDict):
    schema_version: int
    lecture: Lecture
    sources: dict[str, str]  # path -> sha256_file() of every lecture file the run loaded (and local images)
    files: dict[str, str]  # path -> source text, for files that have steps
    hidden_lines: dict[str, list[int]]  # path -> lines marked @hide
    # helper files among ``sources`` that the run stepped into (marker or [tool.chalktrace] trace_helpers);
    # freshness re-decides them, so a changed setting makes the trace stale. Absent in older traces.
    stepped_helpers: NotRequired[list[str]]
    environment: Environment
    status: Literal["ok", "error", "exited", "interrupted"]  # anything but "ok": main() did not complete
    error: NotRequired[ErrorInfo]
    # {"max_steps": N} when the step cap stopped recording; {"stdout_chars": N} when printed output
    # beyond the kept head and tail was left out (a note in the steps marks where);
    # {"stderr_chars": N} likewise for stderr; {"max_plot_points": N} when a plot() held more data points and kept an even sample of N
    truncated: dict[str, int] | None
    warnings: list[str]
    steps: list[Step]  # the launching process's steps (torchrun: the lowest rank's)
    ranks: NotRequired[RanksInfo]  # present when the lecture started traced ranks
    shard: NotRequired[ShardInfo]  # only in a shard: the trace of one rank, before merging


# -- what varies from run to run ---------------------------------------------------------------------
# Two runs of one lecture on one machine write the same trace except for these fields. `chalktrace check`
# compares each fresh run with the committed trace and reports every other difference as drift;
# `chalktrace diff` leaves these out unless asked (--all). Each is skipped, not compared with a
# tolerance: none of them has a scale on which "close" means "the same". Any other value, float or
# not, is compared exactly: the same lecture, seed and libraries give the same bits.
RUN_DEPENDENT: dict[str, str] = {
    "compute.seconds": "@flops wall time of the line",
    "compute.flop_per_s": "@flops FLOPs divided by that time",
    "compute.mfu": "@flops FLOP/s over the device's peak",
    "compute.repeats": "@flops replays: how many fit the timing budget",
    "compute.timing": "@flops replay or single run, decided by the first run's time",
    "collectives.seconds": "a collective's wall time on its rank",
    "collectives.start_seconds": "when a collective started, on the launch's clock",
    "memory (memory_source cuda_allocated)": "CUDA allocator figures (caching allocator, library workspaces)",
    "memory (rank streams)": "a rank's recorded-tensor bytes: when its peers release shared buffers varies",
    "values named *seconds, *_per_s, *mfu": "timings a lecture measures itself (names say the unit)",
    "environment": "python, torch, numpy versions and the device: reported by diff, never drift",
}
# Value names a lecture uses for what it timed itself (see RUN_DEPENDENT); matched at the name's end.
TIMING_NAME_SUFFIXES: tuple[str, ...] = ("seconds", "_per_s", "mfu")
RUN_DEPENDENT_COMPUTE: frozenset[str] = frozenset(("seconds", "flop_per_s", "mfu", "repeats", "timing"))
RUN_DEPENDENT_COLLECTIVE: frozenset[str] = frozenset(("seconds", "start_seconds", "wait_seconds", "transfer_seconds",
                                                      "algbw", "busbw", "peak_share"))


def is_timing_name(name: str) -> bool:
    """Whether a recorded value's name says it is a time or a rate (``fp32_seconds``, ``flop_per_s``)."""
    leaf = name.rsplit(".", 1)[-1].lower()
    return leaf.endswith(TIMING_NAME_SUFFIXES)


def memory_is_run_dependent(trace: "Trace", in_rank_stream: bool) -> bool:
    """Whether the ``memory`` figures of steps (the trace's own, or a rank stream's) vary from run to run."""
    return in_rank_stream or (trace.get("environment") or {}).get("memory_source") == "cuda_allocated"


def optional_keys(typed_dict: type) -> frozenset[str]:
    """Keys a TypedDict marks NotRequired (or all keys of a total=False one)."""
    if not typed_dict.__total__:  # type: ignore[attr-defined]
        return frozenset(typed_dict.__annotations__)
    hints = get_type_hints(typed_dict, include_extras=True)
    return frozenset(name for name, hint in hints.items() if get_origin(hint) is NotRequired)


class TraceError(Exception):
    """A trace file that cannot be used; str() is one line naming the file and the reason."""


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def _distinct_steps(trace: Any) -> tuple[Any, list[int] | None]:
    """``trace`` with each distinct step kept once, and the original index of each kept step.

    A step's validity depends on its content alone, and long traces repeat plain steps (a loop body,
    the same memory figure) tens of thousands of times: validating each distinct one once makes
    validation cost what the trace's variety costs, not its length.
    """
    steps = trace.get("steps") if isinstance(trace, dict) else None
    if not isinstance(steps, list) or len(steps) < 64:
        return trace, None
    seen: set[str] = set()
    unique: list[Any] = []
    origin: list[int] = []
    for index, step in enumerate(steps):
        try:
            key = json.dumps(step, sort_keys=True)
        except (TypeError, ValueError):
            key = None  # not JSON data: validate it as it is
        if key is None or key not in seen:
            if key is not None:
                seen.add(key)
            unique.append(step)
            origin.append(index)
    return {**trace, "steps": unique}, origin


def validation_error(trace: Any) -> str | None:
    """The first schema violation in ``trace`` as one line, or None when it is valid."""
    import jsonschema

    trace, origin = _distinct_steps(trace)
    validator = jsonschema.Draft202012Validator(schema())
    error = jsonschema.exceptions.best_match(validator.iter_errors(trace))
    if error is None:
        return None
    path = list(error.absolute_path)
    if origin is not None and len(path) > 1 and path[0] == "steps" and isinstance(path[1], int):
        path[1] = origin[path[1]]  # the first step of the original list with that content
    where = "/".join(str(p) for p in path) or "(top level)"
    message = error.message if len(error.message) < 200 else error.message[:197] + "..."
    return f"at {where}: {message}"


def load_trace(path: str | os.PathLike[str], *, validate: bool = True) -> Trace:
    """Read and (by default) validate a trace; raise TraceError naming the file on any problem."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TraceError(f"{path}: no such trace file") from None
    except (UnicodeDecodeError, ValueError) as exc:  # ValueError: also ints past Python's digit limit
        raise TraceError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise TraceError(f"{path}: not a trace (top level is {type(data).__name__}, expected an object)")
    version = data.get("schema_version")
    if version != SCHEMA_VERSION:
        raise TraceError(f"{path}: schema_version {version!r}, this chalktrace reads {SCHEMA_VERSION}; re-trace it")
    if validate:
        problem = validation_error(data)
        if problem:
            raise TraceError(f"{path}: invalid trace {problem}")
    return data  # type: ignore[return-value]


def sha256_file(path: str | os.PathLike[str]) -> str:
    """The digest recorded in a trace's ``sources``: sha256 of the file's bytes as they are on disk.

    The runner (writing ``sources``) and regen (checking freshness) both call this one function, so
    a file is fresh whatever its line endings (hashing newline-normalised text on one side and raw
    bytes on the other made every CRLF lecture look stale)."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def read_header(path: str | os.PathLike[str]) -> dict[str, Any] | None:
    """A trace's top-level fields without validating it, or None when it is missing or unreadable.

    For freshness checks (``regen``), which must cope with old or broken traces."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


# -- typed access (what consumers read) ------------------------------------------------------------
def step_frame(step: Step) -> Frame:
    """The frame a step is about: the innermost one, whose line was executed."""
    return step["stack"][-1]


def iter_renderings(trace: Trace) -> Iterator[tuple[int, Rendering]]:
    """(step index, rendering) for every rendering in the trace, in order."""
    for index, step in enumerate(trace["steps"]):
        for rendering in step["renderings"]:
            yield index, rendering


def local_images(trace: Trace) -> list[str]:
    """Project-relative paths of the local images the lecture shows (URLs left out), first use first."""
    found: dict[str, None] = {}
    for _index, rendering in iter_renderings(trace):
        if rendering.get("type") == "image" and not rendering.get("external"):
            found.setdefault(rendering["data"])
    return list(found)


def source_text(trace: Trace, path: str) -> str:
    """The recorded source of ``path`` ("" for a file without steps)."""
    return trace["files"].get(path, "")


def hidden_lines(trace: Trace, path: str) -> set[int]:
    return set(trace.get("hidden_lines", {}).get(path, ()))


def memory_nbytes(trace: Trace) -> list[int]:
    """Memory in use after each step (bytes)."""
    return [step["memory"]["nbytes"] for step in trace["steps"]]


def trace_notes(trace: Trace) -> list[str]:
    """The run's warnings, plus a note when the step cap stopped recording (or output or plot data was cut).

    A distributed trace adds its ranks' warnings (each text once: every rank parses the same lecture)
    and says which rank hit the step cap."""
    notes = list(trace.get("warnings", []))
    ranks = trace.get("ranks")
    for launch in ranks["launches"] if ranks else []:
        for stream in launch["streams"]:
            for warning in stream.get("warnings") or []:
                if warning not in notes:
                    notes.append(warning)
            capped = (stream.get("truncated") or {}).get("max_steps")
            if capped is not None:
                notes.append(f"rank {stream['rank']}: recording stopped after {capped} steps")
    truncated = trace.get("truncated") or {}
    if "max_steps" in truncated:
        notes.append(f"recording stopped after {truncated['max_steps']} steps")
    if "stdout_chars" in truncated:
        notes.append(f"printed output kept in part: {truncated['stdout_chars']:,} characters printed")
    if "stderr_chars" in truncated:
        notes.append(f"stderr kept in part: {truncated['stderr_chars']:,} characters written")
    if "max_plot_points" in truncated:
        notes.append(f"plot data sampled: at most {truncated['max_plot_points']:,} points kept per plot")
    return notes


def _umask() -> int:
    """The process umask, read without changing it (Linux reports it in /proc; else assume 022)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o022


def write_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` so that readers see either the old file or the whole new one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp's 0600 would make committed traces private
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
