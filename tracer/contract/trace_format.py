"""The trace file format: its Python types, its JSON Schema, and reading/validating/writing traces.

This module is the single source of truth for what a trace is. The TypedDicts below describe the
JSON that the recorder writes and the site reads; ``trace.schema.json`` (shipped beside this file)
says the same thing to a validator (``tests/contract/test_trace_format.py`` checks that the two and the
writer's real output agree), and ``SCHEMA_VERSION`` goes up on every incompatible change. The read
side is :func:`load_trace` (read + validate, bounded in size and nesting depth before anything else
runs) and :func:`read_header` (no validation, for freshness checks), plus small typed accessors (:func:`step_frame`, :func:`iter_renderings`,
:func:`local_images`, :func:`trace_notes`, ...) that every consumer uses instead of walking raw
dicts its own way. It must not run lectures or render anything: it only knows the shape of the data.

Value encoding (``Value``, produced by ``tracer.capture.values``), each a dict with a ``type`` key:

* ``int``/``bool``/``str``/``none``: ``{"type": "int", "value": 3}``; ``str`` may carry ``truncated``.
* ``float``: ``value`` is a number, or one of the strings ``"nan"``, ``"inf"``, ``"-inf"``.
* ``complex``: ``{"real": float, "imag": float}``.
* ``list``/``tuple``/``set``/``frozenset``: ``items`` (Values), ``length`` (full length),
  ``truncated`` (bool). ``dict``: ``items`` is a list of ``[key Value, value Value]`` pairs.
* ``dataclass``: ``class`` and ``fields`` ({name: Value}). ``cycle``: a back-reference, ``repr``.
* ``ndarray``: ``dtype``, ``shape``, ``values`` (nested lists), ``truncated``, ``stats``; a 2-D array
  bigger than its preview also has ``heatmap`` (see ``Heatmap``).
* ``numpy_scalar``: ``dtype``, ``value``. ``sympy``: ``repr``, ``latex``.
* ``finfo``: ``dtype``, ``bits``, ``eps``, ``max``, ``min``, ``smallest_normal``, ``resolution``.
  ``iinfo``: ``dtype``, ``bits``, ``min``, ``max``.
* ``dtype``: ``value`` (e.g. ``"float32"``), ``itemsize``, ``is_floating_point``.
  ``device``: ``value``. ``size``: ``value`` (list of ints).
* ``module``: ``class``, ``num_parameters``, ``parameters`` ([{name, shape, dtype}]), ``repr``.
* ``function``/``class``: ``name``, ``path``/``line`` when defined in a lecture file.
* ``tensor``: see ``TensorValue``. Inside ``values``, an elided run of elements is the string
  ``"…"``; non-finite floats are ``"nan"``/``"inf"``/``"-inf"``; complex numbers are ``[re, im]``;
  every float is the shortest decimal that reads back as the same element in the tensor's own dtype
  (float32 ``1000.1`` is ``1000.1``). ``stats`` is a ``Stats``; a 2-D tensor bigger than its preview
  has ``heatmap``, a ``Heatmap`` of the whole tensor.
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
* ``view``: an object whose class defines ``__lecture_view__``: ``class`` (the object's) and ``value``
  (the Value of what that method returned, encoded with the same bounds).
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

from tracer.contract.float_text import shorten_values

SCHEMA_VERSION = 2
# Versions load_trace reads. Version 1 stored each step's whole stack (a trace of an n-deep recursion
# grew with n squared); it is converted on load into version 2's frame table, so committed traces that
# cannot be re-made here (CUDA runs) keep loading and rendering.
READABLE_VERSIONS: tuple[int, ...] = (1, 2)
SCHEMA_PATH = Path(__file__).with_name("trace.schema.json")
# A trace file larger than this is refused before it is parsed (reading it would take the build's
# memory and time). A 100,000-step lecture with values on every step stays well below it.
MAX_TRACE_NBYTES = 256 * 1024 * 1024
# JSON nesting deeper than this is refused: the deepest valid trace (a 64-dimensional tensor preview
# inside an inspected container) stays below it, and readers that walk values recursively stay far
# from Python's recursion limit.
MAX_TRACE_DEPTH = 100


class Frame(TypedDict):
    path: str  # relative to the project root, forward slashes
    line: int
    function: str


class FramePosition(TypedDict):
    """One entry of a trace's ``frames`` table: a line being run in a function, and who called it.

    Each distinct position (with its callers) is written once; a step names its innermost position
    by index, so a trace grows with its steps, not with its steps times their stack depth."""

    path: str
    line: int  # the line the frame is on: for a caller, the line that made the call
    function: str
    parent: int | None  # index of the caller's position in the same table (always lower), None: outermost


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
    uncounted_ops: NotRequired[list[str]]  # ops that ran and that PyTorch's FLOP counter does not count ("aten.div")


RenderingType = Literal["markdown", "image", "link", "note", "plot", "video", "graph", "table"]
RENDERING_TYPES: tuple[str, ...] = get_args(RenderingType)  # every kind the authoring API can emit


class Rendering(TypedDict, total=False):
    type: RenderingType
    data: str  # markdown/note text; image path (project-relative) or URL
    style: dict[str, Any] | None  # CSS properties (text, image, link)
    verbatim: bool  # markdown: data is exact text, shown preformatted (not parsed as markdown)
    command: list[str]  # markdown from system_text(): the command whose stdout is data (verbatim)
    exit_status: int  # system_text(..., check=False): the command's non-zero exit status
    external: bool  # image/video: data is a URL (not in the course cache: see missing/too_large)
    width: float | str | None
    alt: str  # image: the text a screen reader reads (absent: the caption, else none)
    caption: str  # image/video: shown under it
    source_url: str  # image/video: the URL it was fetched from into the course cache (data is the cached copy)
    missing: bool  # image/video: a URL neither cached nor fetchable when traced (the page shows a placeholder)
    too_large: int  # image/video: a URL over the course's max_media_bytes (its size, 0 if unknown): linked, not embedded
    animate: bool  # the line's @animate: step mode shows its renderings one at a time
    url: str | None  # link
    title: str
    internal: Frame | None  # link(function): where it is defined
    # link(record), link(url, notes=...): citation fields as the author gave them: authors (a
    # string or a list of strings), organization, date (e.g. "2020-01"), description, notes, plus
    # any other public field of the record. Present when any is set; enough for a compact
    # "[Kaplan+ 2020]" citation whose panel shows the rest.
    attrs: dict[str, Any]
    spec: dict[str, Any]  # plot: a Vega-Lite spec
    svg: str  # plot of a matplotlib figure: the figure as SVG text, drawn when traced (no spec then)
    columns: list[Any]  # table: column names (JSON scalars)
    rows: list[list[Any]]  # table: the first rows kept, each cell a JSON scalar ("nan"/"inf"/"-inf" as strings)
    total_rows: int  # table: rows the data had
    total_columns: int  # table: columns the data had (at most 30 are kept)
    index: list[
        Any
    ]  # table: a DataFrame's row labels, when not the default 0..n-1; graph: nodes, edges, layout, stylesheet, width, height (capture.graphs)
    truncated: dict[str, int]  # plot: {"data_points": N} when the spec's data held N rows and an even sample is kept


class FiniteStats(TypedDict):
    """The statistics of the finite values alone (present when NaN or ±Inf are)."""

    min: float | str | None
    max: float | str | None
    mean: float | str | None
    std: float | str | None
    count: int


class Stats(TypedDict):
    """A floating tensor's or array's statistics, computed in float64 over every value as torch
    would (NaN if any value is NaN), of an even sample when ``sampled``."""

    min: float | str | None
    max: float | str | None
    mean: float | str | None
    std: float | str | None
    nan_count: int
    inf_count: int
    finite: NotRequired[FiniteStats]
    sampled: NotRequired[bool]


# A Heatmap's cell codes: 0..HEATMAP_CODE_TOP spread over [cell_min, cell_max], then NaN, +Inf, -Inf.
HEATMAP_CODE_TOP = 252
HEATMAP_CODE_NAN, HEATMAP_CODE_POS_INF, HEATMAP_CODE_NEG_INF = 253, 254, 255


class Heatmap(TypedDict):
    """The whole of a 2-D tensor or array as at most 128 x 128 cells (``tracer.capture.numeric``)."""

    rows: int
    cols: int
    block: list[int] | None  # elements per cell along (rows, cols), at most; None: one cell per element
    codes: str  # base64 of zlib-compressed row-major bytes: 0..252 over [cell_min, cell_max]; 253 NaN, 254 +Inf, 255 -Inf
    cell_min: float | str
    cell_max: float | str
    min: float | str | None  # of the whole tensor's finite values
    max: float | str | None
    max_abs: float | str | None
    sampled: NotRequired[bool]  # past 1M elements the pooled input is an even sample of rows and columns


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
    stats: Stats | None  # floating tensors
    heatmap: NotRequired[Heatmap | None]  # 2-D tensors bigger than their preview
    quantized: NotRequired[dict[str, Any]]  # quantized tensors: qscheme, scale(s), zero point(s)
    subclass: NotRequired[str]  # a tensor subclass: its class ("module.Name")


Value = dict[str, Any]
# Every kind of Value (its "type"), as listed in this module's docstring; tests check that the encoder
# emits only these and that the site draws each one (no "unknown" card).
VALUE_TYPES: tuple[str, ...] = (
    "int",
    "bool",
    "str",
    "none",
    "float",
    "complex",
    "list",
    "tuple",
    "set",
    "frozenset",
    "dict",
    "dataclass",
    "cycle",
    "ndarray",
    "numpy_scalar",
    "sympy",
    "finfo",
    "iinfo",
    "dtype",
    "device",
    "size",
    "module",
    "function",
    "class",
    "tensor",
    "object",
    "missing",
    "unrepresentable",
    "meta_tensor",
    "sparse_tensor",
    "nested_tensor",
    "view",
)


class Step(TypedDict):
    frame: int  # index in the trace's (or the rank stream's) ``frames``: the line this step is about
    # Not in the file: load_trace (expand_stacks) gives each step its call stack, outermost first, the
    # last frame being ``frame``'s. Steps at one position share one list: treat it as read-only.
    stack: NotRequired[list[Frame]]
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
    state: Literal[
        "waiting", "called", "never called", "different"
    ]  # in #n; called #n and went on; never called #n; called another #n
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
    frames: NotRequired[list[FramePosition]]  # the positions this rank's steps name (absent: no steps)
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
    chalktrace: str  # the chalktrace version that made the trace (tracer.__version__); absent in older traces
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
    frames: list[FramePosition]  # every position the steps name, each once (callers before callees)
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
    "environment": "chalktrace, python, torch, numpy versions and the device: reported by diff, never drift",
}
# Value names a lecture uses for what it timed itself (see RUN_DEPENDENT); matched at the name's end.
TIMING_NAME_SUFFIXES: tuple[str, ...] = ("seconds", "_per_s", "mfu")
RUN_DEPENDENT_COMPUTE: frozenset[str] = frozenset(("seconds", "flop_per_s", "mfu", "repeats", "timing"))
RUN_DEPENDENT_COLLECTIVE: frozenset[str] = frozenset(
    ("seconds", "start_seconds", "wait_seconds", "transfer_seconds", "algbw", "busbw", "peak_share")
)


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
    validation cost what the trace's variety costs, not its length. The step's ``frame`` (an index,
    range-checked by :func:`expand_stacks`) and its in-memory ``stack`` are left out of the
    comparison, so the steps of a deep recursion, which differ only there, count once.
    """
    steps = trace.get("steps") if isinstance(trace, dict) else None
    if not isinstance(steps, list) or len(steps) < 64:
        return trace, None
    seen: set[str] = set()
    unique: list[Any] = []
    origin: list[int] = []
    for index, step in enumerate(steps):
        try:
            if isinstance(step, dict) and isinstance(step.get("frame"), int) and step["frame"] >= 0:
                key = json.dumps({k: v for k, v in step.items() if k != "frame" and k != "stack"}, sort_keys=True)
            else:
                key = None
        except (TypeError, ValueError):
            key = None  # not JSON data: validate it as it is
        if key is None or key not in seen:
            if key is not None:
                seen.add(key)
            unique.append(step)
            origin.append(index)
    return {**trace, "steps": unique}, origin


def _frames_problem(frames: Any, where: str) -> str | None:
    """The first entry of a ``frames`` table that breaks the schema's ``frame_position``, checked by
    hand: every position is distinct, so the table gains nothing from step deduplication, and a
    deep recursion has thousands of them."""
    if not isinstance(frames, list):
        return None  # the schema says what it should be
    for k, position in enumerate(frames):
        if not isinstance(position, dict):
            return f"at {where}frames/{k}: {position!r:.60} is not of type 'object'"
        for name in ("path", "line", "function", "parent"):
            if name not in position:
                return f"at {where}frames/{k}: {name!r} is a required property"
        path, line, function, parent = position["path"], position["line"], position["function"], position["parent"]
        if not isinstance(path, str) or path.startswith("/") or (len(path) > 2 and path[1:3] == ":\\"):
            return f"at {where}frames/{k}/path: {path!r:.80} is not a project-relative path"
        if type(line) is not int or line < 1:
            return f"at {where}frames/{k}/line: {line!r:.40} is not an integer of at least 1"
        if not isinstance(function, str):
            return f"at {where}frames/{k}/function: {function!r:.40} is not of type 'string'"
        if parent is not None and (type(parent) is not int or not 0 <= parent < k):
            return f"at {where}frames/{k}/parent: {parent!r:.40} is not the index of an earlier frame"
    return None


def _without_frames(trace: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """``trace`` with its frame tables (the trace's and each rank stream's) emptied, and the problems
    :func:`_frames_problem` finds in them."""
    problems = [p for p in [_frames_problem(trace.get("frames"), "")] if p]
    trace = {**trace, "frames": []} if isinstance(trace.get("frames"), list) else trace
    ranks = trace.get("ranks")
    if isinstance(ranks, dict) and isinstance(ranks.get("launches"), list):
        launches = []
        for i, launch in enumerate(ranks["launches"]):
            if isinstance(launch, dict) and isinstance(launch.get("streams"), list):
                streams = []
                for j, stream in enumerate(launch["streams"]):
                    if isinstance(stream, dict) and isinstance(stream.get("frames"), list):
                        problem = _frames_problem(stream["frames"], f"ranks/launches/{i}/streams/{j}/")
                        problems += [problem] if problem else []
                        stream = {**stream, "frames": []}
                    streams.append(stream)
                launch = {**launch, "streams": streams}
            launches.append(launch)
        trace["ranks"] = {**ranks, "launches": launches}
    return trace, problems


def validation_error(trace: Any) -> str | None:
    """The first schema violation in ``trace`` as one line, or None when it is valid.

    Linear in the trace's size: frame tables are checked by hand, in one pass, and each distinct
    step is given to the JSON Schema validator once."""
    import jsonschema

    if isinstance(trace, dict):
        trace, problems = _without_frames(trace)
        if problems:
            return problems[0]
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


def nesting_problem(data: Any, limit: int = MAX_TRACE_DEPTH) -> str | None:
    """Where ``data`` (parsed JSON) nests deeper than ``limit`` levels, as "at PATH", or None.

    Iterative and linear in the data's size, so a hostile trace cannot make it (or the readers
    after it, which recurse into values) run out of stack."""
    todo: list[tuple[Any, int, str]] = [(data, 1, "")]
    pop, push = todo.pop, todo.append
    while todo:
        node, depth, where = pop()
        if depth > limit:
            return f"at {where.strip('/') or '(top level)'}"
        children = node.items() if isinstance(node, dict) else enumerate(node)
        for key, child in children:
            if isinstance(child, (dict, list)):
                # Name only the first levels of the path: enough to find the step and the value.
                push((child, depth + 1, f"{where}/{key}" if depth <= 4 else where))
    return None


def _parse(path: Path) -> Any:
    """The JSON in ``path``, refused before parsing when too large and after it when nested too deep."""
    try:
        nbytes = path.stat().st_size
    except FileNotFoundError:
        raise TraceError(f"{path}: no such trace file") from None
    except OSError as exc:
        raise TraceError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if nbytes > MAX_TRACE_NBYTES:
        raise TraceError(f"{path}: {nbytes:,} bytes, over the {MAX_TRACE_NBYTES:,}-byte limit for a trace; not read")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TraceError(f"{path}: no such trace file") from None
    except RecursionError:
        raise TraceError(f"{path}: nested deeper than the {MAX_TRACE_DEPTH}-level limit for a trace; not read") from None
    except OSError as exc:
        raise TraceError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except (UnicodeDecodeError, ValueError) as exc:  # ValueError: also ints past Python's digit limit
        raise TraceError(f"{path}: not valid JSON ({exc})") from None
    if isinstance(data, (dict, list)):
        deep = nesting_problem(data)
        if deep:
            raise TraceError(f"{path}: nested deeper than the {MAX_TRACE_DEPTH}-level limit for a trace {deep}; not read")
    return data


def _stack_problem(stack: Any) -> str | None:
    if not isinstance(stack, list) or not stack:
        return "expected a non-empty list of frames"
    for k, frame in enumerate(stack):
        if not (
            isinstance(frame, dict)
            and isinstance(frame.get("path"), str)
            and type(frame.get("line")) is int
            and isinstance(frame.get("function"), str)
        ):
            return f"{k}: expected a frame {{path, line, function}}"
    return None


def _stacks_to_frames(steps: Any, where: str) -> list[FramePosition]:
    """Version 1 steps (each with its whole ``stack``) rewritten in place to name positions of a
    ``frames`` table, which is returned: the same numbering the writer gives (first seen first)."""
    frames: list[FramePosition] = []
    index: dict[tuple[Any, ...], int] = {}
    if not isinstance(steps, list):
        return frames
    for n, step in enumerate(steps):
        if not isinstance(step, dict) or "stack" not in step:
            continue  # the schema names what is missing
        problem = _stack_problem(step["stack"])
        if problem:
            raise TraceError(f"at {where}steps/{n}/stack/{problem}")
        parent: int | None = None
        for frame in step.pop("stack"):
            key = (frame["path"], frame["line"], frame["function"], parent)
            found = index.get(key)
            if found is None:
                found = index[key] = len(frames)
                frames.append({"path": frame["path"], "line": frame["line"], "function": frame["function"], "parent": parent})
            parent = found
        step["frame"] = parent
    return frames


def upgrade(data: dict[str, Any]) -> dict[str, Any]:
    """A version 1 trace (parsed JSON) as version 2, in place: its stacks become frame tables, and
    its float32/float16 elements their shortest decimals (``float_text``)."""
    if data.get("schema_version") != 1:
        return data
    shorten_values(data.get("steps"))
    shorten_values(data.get("ranks"))
    data["frames"] = _stacks_to_frames(data.get("steps"), "")
    ranks = data.get("ranks")
    launches = ranks.get("launches") if isinstance(ranks, dict) else None
    for i, launch in enumerate(launches if isinstance(launches, list) else []):
        streams = launch.get("streams") if isinstance(launch, dict) else None
        for j, stream in enumerate(streams if isinstance(streams, list) else []):
            if isinstance(stream, dict) and stream.get("steps"):
                stream["frames"] = _stacks_to_frames(stream["steps"], f"ranks/launches/{i}/streams/{j}/")
    data["schema_version"] = SCHEMA_VERSION
    return data


def _expand(frames: list[FramePosition], steps: list[Step], where: str) -> None:
    stacks: list[list[Frame]] = []
    for k, position in enumerate(frames):
        parent = position["parent"]
        if parent is None:
            stacks.append([{"path": position["path"], "line": position["line"], "function": position["function"]}])
        elif type(parent) is int and 0 <= parent < k:
            stacks.append(
                stacks[parent] + [{"path": position["path"], "line": position["line"], "function": position["function"]}]
            )
        else:  # a caller listed after its callee could form a cycle
            raise TraceError(f"at {where}frames/{k}/parent: {parent!r} is not the index of an earlier frame")
    count = len(stacks)
    for n, step in enumerate(steps):
        at = step["frame"]
        if not 0 <= at < count:
            raise TraceError(f"at {where}steps/{n}/frame: {at} is not an index of frames ({count} frames)")
        step["stack"] = stacks[at]


def expand_stacks(trace: Trace) -> Trace:
    """Give every step (the trace's and each rank stream's) its ``stack``, from the frame tables.

    Steps at one position share one list (memory grows with the distinct positions, and is never
    written back). Raises TraceError (without a file name) when a step or a caller names no frame."""
    _expand(trace.get("frames") or [], trace["steps"], "")
    for i, launch in enumerate((trace.get("ranks") or {}).get("launches") or []):  # type: ignore[call-overload]
        for j, stream in enumerate(launch["streams"]):
            _expand(stream.get("frames") or [], stream["steps"], f"ranks/launches/{i}/streams/{j}/")
    return trace


def load_trace(path: str | os.PathLike[str], *, validate: bool = True) -> Trace:
    """Read, (by default) validate and expand a trace; raise TraceError naming the file on any problem.

    Bounded before any reader walks it: a file over MAX_TRACE_NBYTES is not parsed, and JSON nested
    deeper than MAX_TRACE_DEPTH is refused. A version 1 trace is upgraded to the current version."""
    path = Path(path)
    data = _parse(path)
    if not isinstance(data, dict):
        raise TraceError(f"{path}: not a trace (top level is {type(data).__name__}, expected an object)")
    version = data.get("schema_version")
    if version not in READABLE_VERSIONS:
        raise TraceError(
            f"{path}: schema_version {version!r}, this chalktrace reads {', '.join(map(str, READABLE_VERSIONS))}; re-trace it"
        )
    try:
        upgrade(data)
    except TraceError as exc:
        raise TraceError(f"{path}: invalid trace {exc}") from None
    if validate:
        problem = validation_error(data)
        if problem:
            raise TraceError(f"{path}: invalid trace {problem}")
    try:
        return expand_stacks(data)  # type: ignore[arg-type]
    except TraceError as exc:
        raise TraceError(f"{path}: invalid trace {exc}") from None
    except (KeyError, TypeError, AttributeError) as exc:  # not validated: not the shape of a trace
        raise TraceError(f"{path}: invalid trace ({type(exc).__name__}: {exc})") from None


def sha256_file(path: str | os.PathLike[str]) -> str:
    """The digest recorded in a trace's ``sources``: sha256 of the file's bytes as they are on disk.

    The runner (writing ``sources``) and freshness (``tracer.commands.freshness``) both call this one function, so
    a file is fresh whatever its line endings (hashing newline-normalised text on one side and raw
    bytes on the other made every CRLF lecture look stale)."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def read_header(path: str | os.PathLike[str]) -> dict[str, Any] | None:
    """A trace's top-level fields without validating it, or None when it is missing, unreadable, or
    past the size and depth limits (:func:`load_trace` says which).

    For freshness checks (``tracer.commands.freshness``), which must cope with old or broken traces."""
    try:
        data = _parse(Path(path))
    except TraceError:
        return None
    return data if isinstance(data, dict) else None


# -- typed access (what consumers read) ------------------------------------------------------------
def step_frame(step: Step) -> Frame:
    """The frame a step is about: the innermost one, whose line was executed (a loaded step)."""
    return step["stack"][-1]


def stream_last_frame(frames: list[FramePosition], steps: list[Step]) -> Frame | None:
    """The frame of the last of ``steps`` (read from the ``frames`` table; steps need no ``stack``)."""
    if not steps:
        return None
    position = frames[steps[-1]["frame"]]
    return {"path": position["path"], "line": position["line"], "function": position["function"]}


def iter_renderings(trace: Trace) -> Iterator[tuple[int, Rendering]]:
    """(step index, rendering) for every rendering in the trace, in order."""
    for index, step in enumerate(trace["steps"]):
        for rendering in step["renderings"]:
            yield index, rendering


def local_images(trace: Trace) -> list[str]:
    """Project-relative paths of the local images and videos the lecture shows (URLs left out;
    cached copies of remote ones in), first use first: the site publishes these files."""
    found: dict[str, None] = {}
    for _index, rendering in iter_renderings(trace):
        if rendering.get("type") in ("image", "video") and not rendering.get("external"):
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
