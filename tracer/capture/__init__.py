"""Capture: run a lecture under the tracer and record what it does.

The authoring API (``api``), directive parsing (``directives``), the ``sys.settrace`` hot path
(``recorder``), value encoding (``values``), memory and compute accounting (``memory``, ``compute``,
``peaks``), step serialization (``trace_writer``), the owner of one traced process (``traced_process``),
the trace header (``header``), the run of one lecture (``runner``), the progress line and timeout timer
that watch a running traced process (``progress_and_timeout``) and distributed lectures (``ranks``, on top of the
traced). This side
produces traces; it must never import the site side (``tracer.site``), Jinja2 or MkDocs
(``tests/test_layering.py`` enforces it).
"""
