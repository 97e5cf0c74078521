"""The step viewer's data: ``viewer_data`` (``data.js``), ``quiz`` (quiz mode's questions) and
``speaker_notes`` (the speaker view's notes). The viewer itself is plain JavaScript in
``tracer/site/assets``; these modules only precompute what it reads.
"""
