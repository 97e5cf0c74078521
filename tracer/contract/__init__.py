"""The contract both sides share: the trace format and the files a course repository holds.

``trace_format`` (with ``trace.schema.json``: the trace's types, its JSON Schema and version),
``trace_reading``, ``trace_validation``, ``trace_upgrade`` and ``trace_access`` (reading, checking,
upgrading and reading from a trace), ``files`` (atomic writes, file digests), ``paths`` (where lectures, traces, docs and the built site live, and the
site's URLs), ``source_facts`` (one parse per lecture source, the directive and rendering-call names),
``helper_files`` (which helper modules beside a lecture are stepped into) and ``collector`` (the
garbage collector held off while a big trace's data is made or read). Capture writes what
these modules describe and the site reads it; they must import only the standard library (and
jsonschema, lazily), never ``tracer.capture``, ``tracer.site`` or ``tracer.commands``.
"""
