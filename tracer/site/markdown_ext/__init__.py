"""Markdown extensions for lecture prose: ``mathml`` (``$...$`` to MathML, no JavaScript) and
``sanitize`` (the nh3 allowlist, the URL rule and the pages' Content-Security-Policy).
"""
