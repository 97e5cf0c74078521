"""Site: render traces into MkDocs pages and the step viewer's data.

The MkDocs plugin (``mkdocs_plugin``) reads traces through ``tracer.trace_format`` and builds plain
page records (``page_model``, ``read_page``, ``cards``, ``memory_chart``, ``stride_diagram``, ...)
that the Jinja templates in ``templates/`` turn into markup; ``assets/`` is the viewer's plain
JS/CSS. This side only reads traces: it must never import torch or the capture side
(``tracer.capture``) (``tests/test_layering.py`` enforces it).
"""
