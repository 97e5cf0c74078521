from tracer.site.cards.citations import author_names, citation_label, details, surname


def test_author_names_from_lists_and_strings():
    assert author_names(["Jared Kaplan", "Sam McCandlish"]) == ["Jared Kaplan", "Sam McCandlish"]
    assert author_names("Kingma, Ba") == ["Kingma", "Ba"]
    assert author_names("Paszke et al.") == ["Paszke", "…"]
    assert author_names("Jared Kaplan and Sam McCandlish") == ["Jared Kaplan", "Sam McCandlish"]
    assert author_names("Kaplan, Jared; McCandlish, Sam") == ["Kaplan, Jared", "McCandlish, Sam"]
    assert author_names(None) == [] and author_names("") == []
    assert [surname(n) for n in ("Jared Kaplan", "Kaplan, Jared", "Kaplan")] == ["Kaplan"] * 3


def test_citation_label():
    assert citation_label({"authors": ["Jared Kaplan", "Sam McCandlish"], "date": "2020-01-23"}) == "[Kaplan+ 2020]"
    assert citation_label({"authors": "Glorot", "year": 2010}) == "[Glorot 2010]"
    assert citation_label({"authors": "Paszke et al.", "date": "2019-12"}) == "[Paszke+ 2019]"
    assert citation_label({"date": "2017"}) == "[2017]"
    # a record without authors: its organization, else a short title, stands for them
    assert citation_label({"organization": "EleutherAI", "date": "2023-04-03"}, "Transformer Math 101") == "[EleutherAI 2023]"
    assert citation_label({"date": "2097"}, "The Course Handbook of Executable Lectures") == "[The Course Handbook of… 2097]"
    assert citation_label({"date": "2020"}, "GPT-J") == "[GPT-J 2020]"
    assert citation_label({"authors": ["Kimi Team", "A B"], "date": "2025"}) == "[Kimi Team 2025]"  # a group, whole
    assert citation_label({"notes": "no authors, no date"}) is None


def test_details_put_known_fields_first_and_cut_long_ones():
    rows = details({"abstract": "x" * 5000, "venue": "NeurIPS", "authors": ["A", "B"], "date": "2020", "empty": ""})
    assert [key for key, _ in rows] == ["authors", "date", "abstract", "venue"]
    assert rows[0][1] == "A, B" and len(rows[2][1]) <= 600 and rows[2][1].endswith("…")
