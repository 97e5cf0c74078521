"""One module per family of value kinds (``contract/value_kinds.py`` names each kind's family).

Each module gives, for its kinds: ``view`` (the card's plain data, naming the template macro that
draws it), ``summary`` (the step viewer's one-line summary, or None), ``diff_text`` (a value as
short text, for ``chalktrace diff`` and ``check``) and ``compare`` (the differences between two
values of one kind). ``cards/value_families.py`` dispatches to them; none renders markup.
"""
