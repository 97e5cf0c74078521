"""The site's pages: each module turns the model and the cards into what one page or view needs.

``read_page`` (the read page's Markdown with HTML slots), ``lecture_page`` (what the page says around
it), ``home`` (the list of lectures), ``memory_chart``, ``viewer_data`` (step mode's ``data.js``),
``quiz`` and ``quiz_questions`` (quiz mode's questions), ``speaker_notes`` (the speaker view's notes),
``rank_cards`` (ranks side by side, collective cards), ``rank_viewer`` (one step timeline per rank) and
``kept_gpu_run`` (what a lecture's page and its kept GPU run's page say about each other).
They import ``model`` and ``cards`` only, never the plugin, and write no files.
"""
