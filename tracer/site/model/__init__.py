"""The site's model: what a trace says, as plain records, before any markup.

``line_records`` (what the trace says about each line, shared by the read page and step mode),
``page_model`` (the lecture as a document of prose, code and value slots), ``rank_model`` (per-rank
line records and timelines of a distributed trace), ``animate`` (which renderings are frames of one
animation) and ``directive_comments`` (which comment text the page hides). The lowest layer of the
site: these modules import no other part of it (``cards``, ``pages``, the plugin) and write nothing.
"""
