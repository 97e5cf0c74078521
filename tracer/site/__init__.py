"""Site: render traces into MkDocs pages and the step viewer's data, in layers that only look down.

``model`` (what the trace says, as plain records) < ``cards`` (how one value, rendering or number
looks) < ``pages`` (what one page or view needs: the read page, step mode's ``data.js``, quiz, speaker
notes, ranks) < the MkDocs glue here: ``mkdocs_plugin`` (a page per trace, assets, ``data.js``),
``render_cache``, ``built_files`` (what a build writes beside each page) and ``viewer_assets`` (the
viewer's scripts as one bundle). ``markdown_ext`` (MathML, the sanitizer) imports no other part of
the site. A layer never imports one above it. The Jinja templates in ``templates/`` turn the records into markup; ``assets/`` is the viewer's plain
JS/CSS. This side only reads traces: it must never import torch or the capture side
(``tracer.capture``), not even at run time (``tests/test_layering.py`` enforces all three rules).
"""
