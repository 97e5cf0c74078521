"""The ``chalktrace`` commands: one module per command (``run``, ``build``, ``check``, ``serve``,
``diff``, ``init``, ``merge``), each with ``main(args) -> int``, and the work they share:
``freshness`` (which lectures there are, whether their traces are fresh), ``drift`` (values that
changed with unchanged sources), ``gpu_runs`` (the kept-GPU-run policy), ``run_protocol``
(tracing each lecture in a fresh interpreter) and ``trace_diff`` (two traces compared).

This is the only part of ``tracer`` that imports both the capture side and the site side; argument
parsing stays in ``tracer.cli``. A command imports the capture side (and so torch) only inside the
function that needs it.
"""
