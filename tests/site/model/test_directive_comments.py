from tracer.capture.directives import KNOWN
from tracer.site.cards.code_highlight import highlight_lines
from tracer.site.model.directive_comments import DIRECTIVE_NAMES, comment_cut, directive_cuts


def test_the_site_knows_the_tracers_directives():
    assert set(DIRECTIVE_NAMES) == set(KNOWN)


def test_comment_cut_keeps_prose_before_a_directive():
    assert comment_cut("# @inspect x") == 0
    assert comment_cut("#@clear x") == 0
    assert comment_cut("# the count @inspect x") == len("# the count")
    assert comment_cut("# @inspect x, @inspect y") == 0
    assert comment_cut("# email me @alice") is None  # not a directive name
    assert comment_cut("# see user@inspect.org") is None  # an address, not a directive
    assert comment_cut("# plain prose") is None
    assert comment_cut("# @torch.no_grad()") is None and comment_cut("# `@inspect` x") is None  # the tracer's rule too
    assert comment_cut("# a count, @inspect n") == len("# a count")


def test_directive_cuts_find_columns_and_skip_strings():
    source = "x = 1  # @inspect x\ny = 2  # the count @inspect y\ns = '# @inspect s'\n    # @stepover\n"
    assert directive_cuts(source) == {1: len("x = 1"), 2: len("y = 2  # the count"), 4: 0}
    assert directive_cuts("def broken(:\n  # @inspect x\n") in ({}, {2: 0})  # never raises


def test_highlighted_code_drops_or_wraps_directives():
    source = "y = 2  # the count @inspect y\nz = 3  # @inspect z\n"
    dropped = highlight_lines(source, "drop")
    assert "@inspect" not in "".join(dropped) and "the count" in dropped[0]
    assert dropped[1].endswith("3</span>")  # the whole comment and the spaces before it go
    wrapped = highlight_lines(source, "wrap")
    assert wrapped[0].count('<span class="lt-dir">') == 1 and "@inspect y" in wrapped[0].split('class="lt-dir"')[1]
    assert "@inspect" in "".join(highlight_lines(source))  # "keep": the source as written
