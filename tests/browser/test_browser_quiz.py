"""Quiz mode in a real browser: the real site build of tests/lectures/quiz_demo.py, in Chromium.

quiz_demo asks four questions (tracer/site/pages/quiz.py picks them; tests/site/pages/test_quiz.py checks which):
y = x.T (its strides, automatic), z = y.contiguous() (``@ask z shares y``), n = z.numel()
(``@ask n``) and p = a @ a.T (``@ask flops``); its @noask lines ask nothing. Step numbers come from the built data.js, not guessed.
"""

from __future__ import annotations

import pytest

from helpers.site import goto_lecture, served_fixture_site

QUESTION = ".lt-viewer [data-question]"
FEEDBACK = ".lt-viewer .lt-quiz-feedback"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    with served_fixture_site(tmp_path_factory.mktemp("site"), "quiz_demo", "nested_calls", "ranks_allreduce") as url:
        yield url


def open_lecture(page, site: str, hash_: str = "", name: str = "quiz_demo") -> None:
    goto_lecture(page, site, name, hash_)


def questions(page) -> list[dict]:
    return page.evaluate("window.CHALKTRACE_DATA.quiz")


def step_of_line(page, text: str) -> int:
    """The first step on the lecture line holding ``text``."""
    return page.evaluate(
        """text => {
        const d = window.CHALKTRACE_DATA, lines = d.files[0].lines;
        const line = 1 + lines.findIndex(html => { const e = document.createElement('div'); e.innerHTML = html;
                                                    return e.textContent.includes(text); });
        return d.steps.line.findIndex((l, k) => l === line && d.steps.file[k] === 0);
    }""",
        text,
    )


def press_until_question(page, limit: int = 80) -> None:
    for _ in range(limit):
        if page.is_visible(QUESTION):
            return
        page.keyboard.press("ArrowRight")
    raise AssertionError("no question appeared")


def visible_card_names(page) -> list[str]:
    return [c.get_attribute("data-name") for c in page.query_selector_all(".lt-v-vars .lt-v-card") if c.is_visible()]


def test_the_normaliser_reads_answers_leniently(page, site):
    open_lecture(page, site)
    check = "([kind, value, tolerance, text]) => window.CHALKTRACE_QUIZ.check({kind, value, tolerance}, text)"
    right = [
        ("ints", [3, 2], 0, "(3, 2)"),
        ("ints", [3, 2], 0, "3,2"),
        ("ints", [3, 2], 0, "[3, 2]"),
        ("ints", [3, 2], 0, "torch.Size([3, 2])"),
        ("ints", [3, 2], 0, "3x2"),
        ("ints", [], 0, "()"),
        ("number", 24, 0, "24 B"),
        ("number", 24, 0, "24"),
        ("number", 24, 0, "24 bytes"),
        ("number", 1500, 0, "1.5e3"),
        ("number", 1500, 0, "1,500"),
        ("number", 1500, 0, "1.5k"),
        ("number", 1048576, 0, "2^20"),
        ("number", 1048576, 0, "1 MiB"),
        ("number", 128, 0, "4*8*4"),
        ("number", 33554432, 0.01, "3.36e7"),
        ("number", 0, 0, "0 FLOPs"),
        ("dtype", "bfloat16", 0, "torch.bfloat16"),
        ("dtype", "bfloat16", 0, "bf16"),
        ("dtype", "float32", 0, "float"),
        ("bool", True, 0, "Yes"),
        ("bool", False, 0, "no, a copy"),
    ]
    for case in right:
        assert page.evaluate(check, list(case)) is True, case
    wrong = [
        ("ints", [3, 2], 0, "(2, 3)"),
        ("ints", [3, 2], 0, "3"),
        ("number", 24, 0, "25"),
        ("number", 33554432, 0.01, "3e7"),
        ("dtype", "bfloat16", 0, "float16"),
        ("bool", True, 0, "no"),
    ]
    for case in wrong:
        assert page.evaluate(check, list(case)) is False, case
    unreadable = [("number", 24, 0, "twenty"), ("bool", True, 0, "maybe"), ("ints", [3], 0, "abc")]
    for case in unreadable:
        assert page.evaluate(check, list(case)) is None, case


def test_no_question_without_quiz_mode(page, site):
    open_lecture(page, site, "#step=0")
    for _ in range(len(questions(page)) and page.evaluate("window.CHALKTRACE_DATA.count") - 1):
        page.keyboard.press("ArrowRight")
        assert page.query_selector(QUESTION) is None
    assert page.evaluate("window.CHALKTRACE_VIEWER.cur") == page.evaluate("window.CHALKTRACE_DATA.count") - 1


def test_a_right_answer_typed_then_the_value_and_reason_show(page, site):
    open_lecture(page, site, "#step=0&quiz=1")
    transpose = step_of_line(page, "y = x.T")
    press_until_question(page)
    assert page.evaluate("window.CHALKTRACE_VIEWER.cur") == transpose
    form = page.query_selector(QUESTION)
    assert "What is y.stride()?" in form.inner_text()
    # the value is not shown while asked (the values before it are), and focus is in the labelled answer box
    assert visible_card_names(page) == ["x"]
    assert page.evaluate("document.activeElement.labels[0].textContent") == "Your answer"
    page.keyboard.type("1,3")
    page.keyboard.press("Enter")
    assert page.query_selector(QUESTION) is None
    feedback = page.inner_text(FEEDBACK)
    assert page.get_attribute(FEEDBACK, "data-result") == "right"
    assert "(1, 3)" in feedback and "transpose swaps the strides; no data moves" in feedback
    assert "y" in visible_card_names(page)
    assert page.evaluate("document.activeElement === document.querySelector('.lt-viewer')")  # focus went back where it was
    page.keyboard.press("ArrowRight")  # stepping on works again
    assert page.evaluate("window.CHALKTRACE_VIEWER.cur") == transpose + 1 and page.query_selector(FEEDBACK) is None


def test_a_wrong_choice_shows_the_recorded_value(page, site):
    open_lecture(page, site, "#step=0&quiz=1")
    press_until_question(page)
    page.keyboard.press("Escape")  # skip the first
    press_until_question(page)
    assert page.evaluate("window.CHALKTRACE_VIEWER.cur") == step_of_line(page, "z = y.contiguous()")
    assert "Does z share storage with y?" in page.inner_text(QUESTION)
    page.click(".lt-quiz-choice:text-is('yes')")
    assert page.get_attribute(FEEDBACK, "data-result") == "wrong"
    assert "recorded no." in page.inner_text(FEEDBACK) and "its own storage: a copy" in page.inner_text(FEEDBACK)


def test_unreadable_answer_keeps_the_question_and_esc_skips(page, site):
    open_lecture(page, site, "#step=0&quiz=1")
    press_until_question(page)
    page.keyboard.type("ll")  # typed into the answer, not taken as step keys
    page.keyboard.press("Enter")
    assert page.is_visible(QUESTION) and "Could not read that" in page.inner_text(QUESTION)
    assert page.input_value(".lt-quiz-input") == "ll"
    page.keyboard.press("Escape")
    assert page.query_selector(QUESTION) is None and page.get_attribute(FEEDBACK, "data-result") == "skipped"
    assert page.is_visible(".lt-viewer")  # Esc skipped the question; it did not leave step mode
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowRight")  # a question answered or skipped is not asked again
    assert page.query_selector(QUESTION) is None


def test_ask_forces_a_question_and_noask_suppresses_one(page, site):
    open_lecture(page, site, "#step=0&quiz=1")
    asked = [q["step"] for q in questions(page)]
    noask = step_of_line(page, "w = x[:, 1]")
    shown = []
    for _ in range(page.evaluate("window.CHALKTRACE_DATA.count") - 1):
        page.keyboard.press("ArrowRight")
        cur = page.evaluate("window.CHALKTRACE_VIEWER.cur")
        if page.query_selector(QUESTION):
            shown.append((cur, page.inner_text(".lt-quiz-prompt")))
            page.keyboard.press("Escape")
        if cur == noask:
            assert page.query_selector(QUESTION) is None
    assert [step for step, _ in shown] == asked
    assert [prompt for _, prompt in shown] == [
        "What is y.stride()?",
        "Does z share storage with y?",
        "What is n?",
        "How many FLOPs does this line do?",
    ]
    assert step_of_line(page, "n = z.numel()") in asked  # @ask on a line without @inspect


def test_q_key_and_url_turn_quiz_mode_on(page, site):
    open_lecture(page, site, "#step=0")
    page.keyboard.press("q")
    page.wait_for_function("location.hash.includes('quiz=1')")
    assert page.get_attribute(".lt-v-b-quiz", "aria-pressed") == "true"
    press_until_question(page)
    page.keyboard.press("Escape")
    page.keyboard.press("q")
    page.wait_for_function("!location.hash.includes('quiz=1')")
    open_lecture(page, site, f"#step={questions(page)[1]['step']}&quiz=1")  # a deep link asks before showing
    assert page.is_visible(QUESTION) and "z" not in visible_card_names(page)


def test_score_persists_on_the_lecture_page_and_resets(page, site):
    open_lecture(page, site, "#step=0&quiz=1")
    press_until_question(page)
    page.keyboard.type("(1, 3)")
    page.keyboard.press("Enter")
    press_until_question(page)
    page.keyboard.type("yes")
    page.keyboard.press("Enter")
    press_until_question(page)
    page.keyboard.press("Escape")
    page.goto(f"{site}lectures/quiz_demo/")
    page.wait_for_function("window.CHALKTRACE_READY !== undefined")
    assert page.inner_text(".lt-quiz-tally") == "Quiz: 1 right of 2 answered, 1 skipped (4 questions)"
    assert page.evaluate("Object.keys(localStorage).filter(k => k.startsWith('chalktrace-quiz:'))") == [
        "chalktrace-quiz:quiz_demo"
    ]
    page.focus(".lt-quiz-reset")
    page.keyboard.press("Enter")
    assert page.inner_text(".lt-quiz-tally").startswith("Quiz mode asks 4 questions")
    assert not page.is_visible(".lt-quiz-reset")
    page.reload()
    page.wait_for_function("window.CHALKTRACE_READY !== undefined")
    assert page.inner_text(".lt-quiz-tally").startswith("Quiz mode asks 4 questions")


def test_the_question_count_is_plural_only_when_it_should_be(page, site):
    open_lecture(page, site)
    count = "n => window.CHALKTRACE_QUIZ.questionCount(n)"
    assert [page.evaluate(count, n) for n in (0, 1, 2)] == ["0 questions", "1 question", "2 questions"]


def test_a_lecture_without_questions_has_no_quiz_controls(page, site):
    open_lecture(page, site, name="nested_calls")
    assert page.evaluate("window.CHALKTRACE_DATA.quiz") == []
    assert page.query_selector(".lt-quiz-score") is None


def test_a_collective_asks_the_bytes_each_rank_sends_and_digits_type_the_answer(page, site):
    open_lecture(page, site, "#step=0&quiz=1", name="ranks_allreduce")
    press_until_question(page)
    assert "How many bytes does this rank send in all_reduce?" in page.inner_text(QUESTION)
    page.keyboard.type("8 B")  # digits switch ranks in step mode (ranks.js), not while answering
    assert page.input_value(".lt-quiz-input") == "8 B"
    page.keyboard.press("Enter")
    assert page.get_attribute(FEEDBACK, "data-result") == "right"
    assert "ring all_reduce" in page.inner_text(FEEDBACK)


def test_a_flops_question_hides_only_the_count(page, site):
    flops = step_of_line_in(page, site, "p = a @ a.T")
    open_lecture(page, site, f"#step={flops - 1}&quiz=1")
    page.keyboard.press("ArrowRight")
    assert "How many FLOPs" in page.inner_text(QUESTION)
    assert not page.is_visible(".lt-v-compute") and "a" in visible_card_names(page)
    page.keyboard.type("24")
    page.keyboard.press("Enter")
    assert page.get_attribute(FEEDBACK, "data-result") == "right"
    assert page.is_visible(".lt-v-compute") and "2·m·n·k" in page.inner_text(FEEDBACK)


def step_of_line_in(page, site: str, text: str) -> int:
    open_lecture(page, site)
    return step_of_line(page, text)
