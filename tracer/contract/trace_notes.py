"""The notes a page shows above a lecture: the run's warnings and what the recorder cut short.

User-facing sentences made from a loaded trace, read by the publishing policy
(``tracer.contract.publish_policy``) for the page, ``check`` and ``build``; it must not render markup.
"""

from __future__ import annotations

from tracer.contract.trace_format import Trace


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
