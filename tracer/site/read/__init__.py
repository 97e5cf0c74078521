"""The read page: a lecture as a document (prose, code, value cards, the memory timeline).

``line_records`` (what the trace says about each line, shared with step mode), ``page_model`` (the
document as plain records), ``read_page`` (Markdown with HTML slots), ``directive_comments`` (which
comment text the page hides) and ``memory_chart``. These modules must not write files.
"""
