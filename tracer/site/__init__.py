"""Site: render traces into MkDocs pages and the step viewer's data, grouped by what each part serves.

The MkDocs glue sits here: ``mkdocs_plugin`` (a page per trace, assets, ``data.js``) and ``gpu_run``
(a lecture's kept GPU run beside its CPU trace). It reads traces through
``tracer.contract.trace_format`` and asks ``read`` (the read page), ``cards`` (value cards),
``step_viewer`` (step mode's data, quiz, speaker notes), ``ranks`` (distributed traces) and
``markdown_ext`` (MathML, the sanitizer) for plain records that the Jinja templates in
``templates/`` turn into markup; ``assets/`` is the viewer's plain JS/CSS. This side only reads
traces: it must never import torch or the capture side (``tracer.capture``), not even at run time
(``tests/test_layering.py`` enforces both).
"""
