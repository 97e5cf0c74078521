"""Value cards: how values, renderings and numbers look on a page.

``render`` (the ``HtmlRenderer``: value, rendering, compute and error cards, code lines) over the
value families (``value_families``, ``kinds/``), ``renderings``, ``code_highlight`` and ``templates``
(the Jinja environment); ``stride_diagram``, ``heatmap``, ``jaxtyping_dims``, ``vega_plot``,
``citations`` and ``units`` (human-readable bytes, FLOPs, seconds). These modules build records and markup for one value; they
must not know the page they sit on: they import ``model`` (and ``markdown_ext``), never ``pages``
or the plugin.
"""
