from tracer.site.markdown_ext.mathml import latex_to_mathml, render_markdown


def test_inline_math_becomes_inline_mathml():
    html = render_markdown("Energy is $E = mc^2$ here.")
    assert '<math xmlns="http://www.w3.org/1998/Math/MathML" display="inline">' in html
    assert "<msup><mi>c</mi><mn>2</mn></msup>" in html
    assert "$" not in html


def test_display_math_becomes_block_mathml():
    html = render_markdown("Sum:\n\n$$\\sum_{i=1}^n x_i$$\n")
    assert 'display="block"' in html
    assert "<munderover>" in html


def test_underscores_in_math_are_not_emphasis():
    html = render_markdown("$a_b + c_d$")
    assert "<em>" not in html
    assert "<msub><mi>a</mi><mi>b</mi></msub>" in html


def test_prose_dollars_code_and_escapes_stay_text():
    html = render_markdown("It costs $5 and $10. Code `$x$` stays. A literal \\$3.")
    assert "<math" not in html
    assert "$5 and $10" in html
    assert "<code>$x$</code>" in html
    assert "literal $3" in html


def test_bad_latex_is_shown_not_raised():
    html = latex_to_mathml("\\frac{", display=False)
    assert "lt-math-error" in html and "\\frac{" in html


def test_math_in_headings():
    assert "<h2>Cost <math" in render_markdown("## Cost $O(n^2)$")
