"""The trace file format: its Python types, its version, and the error every reader raises.

This module is the single source of truth for what a trace is. The TypedDicts below describe the
JSON that the recorder writes and the site reads; ``trace.schema.json`` (shipped beside this file)
says the same thing to a validator (``tests/contract/test_trace_format.py`` checks that the two and the
writer's real output agree), and ``SCHEMA_VERSION`` goes up on every incompatible change. Reading is
``trace_reading`` (bounded in size and depth), checking ``trace_validation``, the version 1 upgrade
``trace_upgrade``, and the typed accessors consumers use instead of walking raw dicts ``trace_access``.
It must not read files, run lectures or render anything: it only knows the shape of the data.

Each kind of ``Value`` (its fields, and what the site does with it) is declared once, in ``value_kinds``.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict, get_args

from tracer.contract.value_kinds import VALUE_KINDS

SCHEMA_VERSION = 2
# Versions load_trace reads. Version 1 stored each step's whole stack (a trace of an n-deep recursion
# grew with n squared); it is converted on load into version 2's frame table, so committed traces that
# cannot be re-made here (CUDA runs) keep loading and rendering.
READABLE_VERSIONS: tuple[int, ...] = (1, 2)


# How a run ended (``status`` in the trace): anything but "ok" means main() did not complete.
# error: main() raised; exited: sys.exit() or os._exit() ended it early (whatever the code);
# interrupted: KeyboardInterrupt.
Status = Literal["ok", "error", "exited", "interrupted"]
STATUSES: tuple[str, ...] = get_args(Status)
# How one traced rank ended: as a run, or stopped by the launcher (a desync, a peer's failure), or
# its process gone without a word (lost). A shard says only what its own process knows.
RankStatus = Literal["ok", "error", "stopped", "exited", "lost"]
ShardStatus = Literal["ok", "error", "stopped"]


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


RenderingType = Literal[
    "markdown", "image", "link", "note", "plot", "video", "graph", "table", "code", "diff", "columns", "callout"
]
RENDERING_TYPES: tuple[str, ...] = get_args(RenderingType)  # every kind the authoring API can emit


class Rendering(TypedDict, total=False):
    type: RenderingType
    data: str  # markdown/note/callout text; code source; image path (project-relative) or URL
    style: dict[str, Any] | None  # CSS properties (text, image, link)
    verbatim: bool  # markdown: data is exact text, shown preformatted (not parsed as markdown)
    command: list[str]  # markdown from system_text(): the command whose stdout is data (verbatim)
    exit_status: int  # system_text(..., check=False): the command's non-zero exit status
    external: bool  # image/video: data is a URL (not in the course cache: see missing/too_large)
    width: float | str | None
    alt: str  # image: the text a screen reader reads (absent: the caption, else none)
    caption: str  # image/video/code: shown under it
    source_url: str  # image/video: the URL it was fetched from into the course cache (data is the cached copy)
    missing: bool  # image/video: a URL neither cached nor fetchable when traced (the page shows a placeholder)
    too_large: int  # image/video: a URL over the course's max_media_bytes (its size, 0 if unknown): linked, not embedded
    animate: bool  # the line's @animate: step mode shows its renderings one at a time
    url: str | None  # link
    title: str  # link; callout: its heading (optional)
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
    pixels: list[int]  # image with focus/markers: the file's [width, height] in pixels
    focus: list[float]  # image: the [x, y, width, height] region shown, in the file's pixels
    markers: list[dict[str, Any]]  # image: numbered marks, each {"x", "y" (pixels), "label"}
    language: str | None  # code/diff: the Pygments language name (diff: None for plain text)
    a: str  # diff: the text before
    b: str  # diff: the text after
    before: str  # diff: the name of a
    after: str  # diff: the name of b
    cells: list[str]  # columns: each column's markdown, left to right
    widths: list[float]  # columns: each column's share of the width (absent: equal)
    tone: Literal["info", "tip", "warning", "danger"]  # callout


class FiniteStats(TypedDict):
    """The statistics of the finite values alone (present when NaN or ±Inf are)."""

    min: float | str | None
    max: float | str | None
    mean: float | str | None
    std: float | str | None
    count: int


class Stats(TypedDict):
    """A floating tensor's or array's statistics, computed in float64 over every value as torch
    would (NaN if any value is NaN), of an even sample of ``sample_count`` values when ``sampled``.
    ``finite``'s four are None when no value is finite."""

    min: float | str | None
    max: float | str | None
    mean: float | str | None
    std: float | str | None
    nan_count: int
    inf_count: int
    finite: NotRequired[FiniteStats]
    sampled: NotRequired[bool]
    sample_count: NotRequired[int]


# A Heatmap's cell codes: 0..HEATMAP_CODE_TOP spread over [cell_min, cell_max], then NaN, +Inf, -Inf.
HEATMAP_CODE_TOP = 252
HEATMAP_CODE_NAN, HEATMAP_CODE_POS_INF, HEATMAP_CODE_NEG_INF = 253, 254, 255


class Heatmap(TypedDict):
    """The whole of a 2-D tensor or array as at most 128 x 128 cells (``tracer.capture.heatmap_codes``)."""

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
    # ``# @inspect x rows=32``: the grid's rows shown before the fold (else Trace.options.preview_rows);
    # an ndarray record may carry it too
    rows: NotRequired[int]


Value = dict[str, Any]
# Every kind of Value (its "type"), from the one registry of kinds.
VALUE_TYPES: tuple[str, ...] = tuple(kind.name for kind in VALUE_KINDS)


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
    status: RankStatus
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
    status: ShardStatus
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
    cpu: str  # machine, torch's CPU instruction set and thread count: how float sums round; absent in older traces


class RanOn(TypedDict):
    """Where a runner (``[tool.chalktrace.runners.NAME]``) traced the lecture; the GPU and chalktrace
    version are in ``environment``."""

    runner: str  # the runner's name in the course's pyproject.toml
    host: str  # the machine the traced process ran on (a Slurm node's name)
    slurm_job_id: str | None  # "812345", or "812345_2" for task 2 of a job array; null outside Slurm


class TraceOptionsRecord(TypedDict):
    """The ``chalktrace run`` options a trace was made with (``Trace.options``)."""

    preview_elements: int
    max_steps: int
    max_output_chars: int
    flops: bool
    preview_rows: NotRequired[int]  # value grid rows shown before the fold (absent: DEFAULT_PREVIEW_ROWS)


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
    # the `chalktrace run` options the trace was made with ([tool.chalktrace] or the command line; the
    # seed is environment.seed): `check` re-traces with them. Absent in older traces.
    options: NotRequired[TraceOptionsRecord]
    ran_on: NotRequired[RanOn]  # present when a runner traced the lecture (absent for a run on this machine)
    status: Status
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


class TraceError(Exception):
    """A trace file that cannot be used; str() is one line naming the file and the reason."""
