"""``repair`` where a page now repeats the label's text (issue 35, held-out histories of session
17): the occurrence where the quote stood is pinned by context only when the text that was
around the quote singles it out; a quote now repeated in its own page, a quote moved into a page
that holds it twice, and an edit that makes the quote a copy of a sentence the page already had."""

from __future__ import annotations

from conftest import q, write_project
from helpers_interop import cli_json, questions_of
from helpers_moves import commit_all, edited_project, git
from labeller.core import old_place
from labeller.core.old_place import OldPlaces
from test_repair_old_place import repaired_span, repaired_span_text, the_one_fix

# -- which repeat the text around the quote points at ------------------------------------------------

INTRO = "The tool reads its settings from the project file and then from the environment of the shell."
CLOSING = "Every command prints what it did and exits with the documented code when something is wrong."
SENTENCE = "By default the tool installs your package every time you run it."
NEW_SECTION = "A newer command keeps the environment in step with the lock file and removes what it lacks."


def places_of(text: str, passage: str) -> list[tuple[int, int]]:
    out, at = [], text.find(passage)
    while at != -1:
        out.append((at, at + len(passage)))
        at = text.find(passage, at + 1)
    return out


def test_the_repeat_still_among_the_text_that_was_around_the_quote_is_singled_out():
    old = f"# Install\n\n{INTRO}\n\n{SENTENCE}\n\n{CLOSING}\n"
    new = f"# Install\n\n{INTRO}\n\n{SENTENCE}\n\n{CLOSING}\n\n# Sync\n\n{NEW_SECTION}\n\n{SENTENCE}\n"
    start = old.index(SENTENCE)
    places = places_of(new, SENTENCE)
    assert len(places) == 2
    assert OldPlaces().best_around(("a", "b"), old, start, start + len(SENTENCE), new, places) == 0
    moved = f"# Sync\n\n{NEW_SECTION}\n\n{SENTENCE}\n\n# Install\n\n{INTRO}\n\n{SENTENCE}\n\n{CLOSING}\n"
    assert OldPlaces().best_around(("a", "b"), old, start, start + len(SENTENCE), moved,
                                   places_of(moved, SENTENCE)) == 1


def test_repeats_whose_surroundings_agree_as_far_as_it_looks_are_not_told_apart():
    """A page repeated whole: each repeat holds every word that was around the quote, in order."""
    old = f"# Install\n\n{INTRO}\n\n{SENTENCE}\n\n{CLOSING}\n"
    new = old + "\n" + old
    start = old.index(SENTENCE)
    assert OldPlaces().best_around(("a", "b"), old, start, start + len(SENTENCE), new,
                                   places_of(new, SENTENCE)) is None


def test_a_tie_at_eight_words_is_broken_further_out():
    """The sentence before the quote is the same before both repeats; the headings further out
    are not (Poetry's ``install`` section copied into a new ``sync`` one)."""
    old = f"# Install the package\n\n{INTRO}\n\n{SENTENCE}\n"
    new = (f"# Install the package\n\n{INTRO}\n\n{SENTENCE}\n\n# Synchronise the environment\n\n{INTRO}\n\n"
           f"{SENTENCE}\n")
    start = old.index(SENTENCE)
    places = places_of(new, SENTENCE)
    op = OldPlaces()
    assert op.best_around(("a", "b"), old, start, start + len(SENTENCE), new, places) == 0


# -- two of three signals: the comparison, the text around, the section -----------------------------

BODY = f"{INTRO}\n\n{SENTENCE}\n\n{CLOSING}\n"


def single_out(old: str, new: str, mine: int | None) -> int | None:
    start = old.index(SENTENCE)
    return OldPlaces().single_out(("a", "b"), old, start, start + len(SENTENCE), new, places_of(new, SENTENCE), mine)


def test_the_comparisons_repeat_is_outvoted_by_the_text_around_and_the_section():
    """Poetry's CLI page copied its ``install`` section into a new ``sync`` one and the page's
    comparison put the ``install`` labels in the copy: the words around and the heading name the original."""
    old = f"# Commands\n\n## install\n\n{BODY}"
    new = f"# Commands\n\n## install\n\n{BODY}\n## sync\n\n{BODY}"
    assert single_out(old, new, 1) == 0
    assert single_out(old, new, 0) == 0


def test_where_the_text_around_ties_the_section_and_the_comparison_decide():
    """Each copy holds every word that was around the quote as far as ``best_around`` reads: the
    heading path names the ``install`` copy, and it takes the comparison's agreement to apply it."""
    old = f"# Commands\n\n## install\n\n{BODY}"
    new = f"# Commands\n\n## sync\n\n{BODY}\n## install\n\n{BODY}"
    start = old.index(SENTENCE)
    assert OldPlaces().best_around(("a", "b"), old, start, start + len(SENTENCE), new,
                                   places_of(new, SENTENCE)) is None
    assert single_out(old, new, 1) == 1
    assert single_out(old, new, 0) is None  # the section alone against the comparison: a person picks
    assert single_out(old, new, None) is None


def test_the_section_is_told_by_its_heading_path_not_its_innermost_title():
    """Both copies sit under an ``Options`` sub-heading; the titles above tell them apart. Tables
    whose sections share every title (``[project]`` and ``[tool.poetry]`` each with an
    ``authors``, at the same depth) are not told apart by their sections."""
    old = f"# Commands\n\n## install\n\n### Options\n\n{BODY}"
    new = f"# Commands\n\n## sync\n\n### Options\n\n{BODY}\n## install\n\n### Options\n\n{BODY}"
    assert single_out(old, new, 1) == 1 and single_out(old, new, 0) is None
    alike = f"# Commands\n\n## install\n\n### Options\n\n{BODY}\n## install\n\n### Options\n\n{BODY}"
    assert single_out(old, alike, 1) is None


# -- a quote the page now repeats --------------------------------------------------------------------

QUOTE = "installs your package every time you run it"
BEFORE = f"# Install\n\n{INTRO}\n\n{SENTENCE}\n\n{CLOSING}\n"
REPEATED = f"# Install\n\n{INTRO}\n\n{SENTENCE}\n\n{CLOSING}\n\n# Sync\n\n{NEW_SECTION}\n\n{SENTENCE}\n"


def test_a_quote_the_page_now_repeats_is_pinned_where_it_stood(tmp_path, capsys, monkeypatch):
    """The quote is unchanged but a new section repeats it: the build refuses it as ambiguous,
    and ``repair`` adds the context that picks the occurrence still among its old neighbours."""
    root, error = edited_project(tmp_path, capsys, monkeypatch, BEFORE, REPEATED, QUOTE)
    assert error["kind"] == "ambiguous"
    fix = the_one_fix(capsys, root)
    assert fix["at_old_place"] and fix["score"] == 100.0 and fix["new"]["quote"] == QUOTE
    assert {"prefix", "suffix"} & set(fix["new"])
    text, start, _ = repaired_span(root)
    assert text[start:].startswith("By default") and start < text.index("# Sync")
    rc, report = cli_json(capsys, "repair", "--moves", "--root", root)  # not a move: nothing left to do either
    assert rc == 0 and not report["applied"]


def test_a_repeat_the_comparison_took_by_its_order_is_pinned_where_it_stood(tmp_path, capsys, monkeypatch):
    """The page's comparison puts the quote in the new section's copy (its own order, as on
    Poetry's CLI page); the text around the quote and its section name the original, so the
    label is pinned there, not left for a person. The misalignment needs the whole page to
    happen, so the comparison is made to return it."""
    root, _ = edited_project(tmp_path, capsys, monkeypatch, BEFORE, REPEATED, QUOTE)
    copy = REPEATED.index(QUOTE, REPEATED.index("# Sync"))
    misaligned = old_place.Where(copy, copy + len(QUOTE), True, True)
    monkeypatch.setattr(old_place.OldPlaces, "place", lambda *args: misaligned)
    fix = the_one_fix(capsys, root)
    assert fix["at_old_place"] and fix["new"]["quote"] == QUOTE
    text, start, _ = repaired_span(root)
    assert start < text.index("# Sync")


def test_a_quote_repeated_among_the_same_words_is_a_persons_pick(tmp_path, capsys, monkeypatch):
    root, error = edited_project(tmp_path, capsys, monkeypatch, BEFORE, BEFORE + "\n" + BEFORE, QUOTE)
    assert error["kind"] == "ambiguous"
    rc, report = cli_json(capsys, "repair", "--root", root)
    assert rc == 1 and not report["applied"]
    assert "nor its section singles one occurrence out: a person picks" in report["left"][0]["reason"]
    assert questions_of(root)[0]["locators"] == [{"doc": "page.md", "quote": QUOTE}]


def test_a_repeated_remnant_of_the_quote_is_left_for_how_little_of_it_it_keeps(tmp_path, capsys, monkeypatch):
    """Where the quote stood, only two of its words are left, and the page says them twice alike:
    which repeat it was is moot, the reason is how little of the quote either keeps."""
    edited = BEFORE.replace(SENTENCE, "By default the tool installs your code and stops.")
    root, _ = edited_project(tmp_path, capsys, monkeypatch, BEFORE, edited + "\n" + edited, QUOTE)
    rc, report = cli_json(capsys, "repair", "--root", root)
    assert rc == 1 and not report["applied"]
    reason = report["left"][0]["reason"]
    assert "where it stood, the passage keeps" in reason and "of the quote: below 60" in reason
    assert "singles one occurrence out" not in reason


# -- an edit that makes the quote a copy of a sentence the page already had ---------------------------

NODE = "ignore files located in `node_modules` directory. To opt"
NODE_BEFORE = (f"# CLI\n\n## Check\n\nBy default the check will {NODE}-out, pass the flag to it.\n\n"
               f"## Write\n\nThe write command rewrites files in place.\n\n## Ignore\n\n"
               f"By default the formatter will {NODE} out from this, pass the flag.\n")
NODE_QUOTE = f"{NODE}-out"


def test_an_edit_that_makes_the_quote_a_copy_of_an_older_sentence_is_repaired_where_it_stood(
        tmp_path, capsys, monkeypatch):
    """"To opt-out" became "To opt out", which a later section always had: the passage where the
    quote stood also stood elsewhere at the last build, but the page holds it once more now."""
    after = NODE_BEFORE.replace("-out, pass", " out, pass")
    root, error = edited_project(tmp_path, capsys, monkeypatch, NODE_BEFORE, after, NODE_QUOTE)
    assert len([s for s in error["suggestions"] if s.get("score", 0) >= 80]) == 2  # a person's pick alone
    fix = the_one_fix(capsys, root, "--min-score", "80")
    assert fix["at_old_place"] and fix["new"]["quote"] == f"{NODE} out"
    assert repaired_span_text(root).startswith("By default the check")


def test_a_passage_that_stood_elsewhere_and_is_no_more_frequent_now_is_left(tmp_path, capsys, monkeypatch):
    """The same edit, and the later section's sentence deleted: the page holds the passage as
    often as it stood elsewhere then, so it may be that sentence, aligned by the comparison."""
    after = NODE_BEFORE.replace("-out, pass", " out, pass").replace(
        f"By default the formatter will {NODE} out from this, pass the flag.\n", "Nothing is ignored here.\n")
    root, _ = edited_project(tmp_path, capsys, monkeypatch, NODE_BEFORE, after, NODE_QUOTE)
    rc, report = cli_json(capsys, "repair", "--min-score", "80", "--root", root)
    assert rc == 1 and not report["applied"]
    assert "also stood elsewhere in page.md at the last build" in report["left"][0]["reason"]


# -- a quote moved into a page that holds it twice ---------------------------------------------------

AUTHORS = "a list of authors and should contain at least one"
TABLE_OLD = (f"# The manifest\n\n## Authors\n\nThe package authors. This is {AUTHORS} author, in the form of a name "
             f"and an address.\n\n## Urls\n\nLinks shown on the package index.\n")
TABLE_NEW = (f"# The manifest\n\n## The project table\n\nThe standard fields come first, read by every packaging "
             f"tool in the same way.\n\nThis is {AUTHORS} author, and so on for the standard table.\n\n"
             f"## The tool table\n\n### Authors\n\nThe package authors. This is {AUTHORS} author, in the form of a "
             f"name and an address.\n\n### Urls\n\nLinks shown on the package index.\n")


def renamed_project(tmp_path, capsys, monkeypatch, old: str, new: str, quote: str):
    """``docs/manifest.md`` labelled and built, then renamed ``manifest.md`` (git's pairing) as
    ``new``; the build's report of the refused label."""
    monkeypatch.setenv("LABELLER_REVIEWER", "repair-bot")
    root = write_project(tmp_path / "proj", {"docs/manifest.md": old}, [q("r-1", {"doc": "docs/manifest.md",
                                                                                "quote": quote})])
    assert cli_json(capsys, "build", "--root", root)[0] == 0
    commit_all(root, "built")
    git(root, "mv", "corpus/docs/manifest.md", "corpus/manifest.md")
    (root / "corpus/manifest.md").write_text(new, encoding="utf-8")
    commit_all(root, "renamed")
    _, built = cli_json(capsys, "build", "--root", root)
    (error,) = built["errors"]
    return root, error


def test_a_quote_moved_into_a_page_that_holds_it_twice_is_moved_where_it_stood(tmp_path, capsys, monkeypatch):
    root, error = renamed_project(tmp_path, capsys, monkeypatch, TABLE_OLD, TABLE_NEW, AUTHORS)
    assert "2 times in manifest.md" in error["message"]  # the build still refuses it (SPEC §13)
    fix = the_one_fix(capsys, root, "--moves")
    assert fix["kind"] == "moved" and fix["new"]["doc"] == "manifest.md" and fix["new"]["quote"] == AUTHORS
    assert {"prefix", "suffix"} & set(fix["new"])
    assert "in the form of a name" in repaired_span_text(root)


def test_a_quote_moved_into_a_page_that_holds_it_twice_alike_is_left(tmp_path, capsys, monkeypatch):
    new = TABLE_OLD + "\n" + TABLE_OLD  # each copy holds every word that was around the quote
    root, _ = renamed_project(tmp_path, capsys, monkeypatch, TABLE_OLD, new, AUTHORS)
    rc, report = cli_json(capsys, "repair", "--moves", "--root", root)
    assert rc == 1 and not report["applied"]
    assert report["left"][0]["reason"].startswith("the quote is verbatim several times in manifest.md: a person "
                                                  "picks one")


def test_a_repeat_outvoting_the_comparisons_needs_a_phrase_of_the_text_around_beside_it(tmp_path, capsys,
                                                                                         monkeypatch):
    """The comparison (made to) put the moved quote in the ``sync`` copy; the words around and the
    section name the ``install`` one, whose neighbours keep the old ones' words but no phrase of
    them: a move needs a phrase of the text around the quote beside it, so it is left."""
    around = ("alpha bravo charlie delta echo foxtrot golf hotel. This is {0} author, in order. india juliet kilo "
              "lima mike november oscar papa.\n")
    old = "# Commands\n\n## install\n\n" + around.format(AUTHORS)
    new = ("# Commands\n\n## install\n\nalpha one bravo two charlie three delta four. This is " + AUTHORS +
           " author, one in two order. india five juliet six kilo seven lima eight.\n\n## sync\n\nSomething else "
           "is written before the copy. This is " + AUTHORS + " author, in order. Something else follows it.\n\n## notes\n\n" +
           "word " * 80 + "alpha bravo charlie delta echo.\n")
    root, _ = renamed_project(tmp_path, capsys, monkeypatch, old, new, AUTHORS)
    copy = new.index(AUTHORS, new.index("## sync"))
    monkeypatch.setattr(old_place.OldPlaces, "place",
                        lambda *args: old_place.Where(copy, copy + len(AUTHORS), True, True))
    rc, report = cli_json(capsys, "repair", "--moves", "--root", root)
    assert rc == 1 and not report["applied"]
    assert "has none of the text that was around the quote beside it" in report["left"][0]["reason"]


def test_a_phrase_of_the_text_around_is_read_past_the_marks_between_its_words(tmp_path, capsys, monkeypatch):
    """Poetry's "by passing the `-E|--extras` option (See [Extras](…)": every word of the text
    around the ``install`` copy stands between marks, the same then and now, so no three *tokens*
    in a row are words; the phrase is three words in a row, the marks between them passed over."""
    around = ("`-a|--alpha` (`bravo`, [charlie](/delta/#echo)) as {0}. This is {1} author. `-f|--foxtrot` (`golf`, "
              "[hotel](/india/#juliet)).\n")
    old = "# Commands\n\n## install\n\n" + around.format("shown here", AUTHORS)
    new = ("# Commands\n\n## install\n\n" + around.format("it shows", AUTHORS) + "\n## sync\n\nSomething else is "
           "written before the copy. This is " + AUTHORS + " author. Something else follows it.\n\n## notes\n\n" +
           "word " * 80 + "as shown here.\n")  # a phrase of the text around in the page: it may be compared
    root, _ = renamed_project(tmp_path, capsys, monkeypatch, old, new, AUTHORS)
    copy = new.index(AUTHORS, new.index("## sync"))
    monkeypatch.setattr(old_place.OldPlaces, "place",
                        lambda *args: old_place.Where(copy, copy + len(AUTHORS), True, True))
    fix = the_one_fix(capsys, root, "--moves")
    assert fix["kind"] == "moved" and fix["new"]["quote"] == AUTHORS
    text, start, end = repaired_span(root)
    assert "-a|--alpha" in text[start:end] and end < text.index("## sync")  # the install copy


# -- a renamed page's nearest passage that the page held under its old name ---------------------------

SRC_OLD = ("# New projects\n\nIf you want to name your project differently than the folder, you can pass the `--name` "
           "option.\n\nIf you want to use a src folder, you can use the `--src` option.\n")
SRC_NEW = ("# New projects\n\nIf you want to name your project differently than the folder, you can pass the `--name` "
           "option.\n\nA flat layout is made with the `--flat` option, the source beside the manifest.\n")


def test_a_renamed_pages_nearest_passage_that_stood_in_it_under_its_old_name_is_left(tmp_path, capsys,
                                                                                     monkeypatch):
    quote = "folder, you can use the `--src`"
    root, error = renamed_project(tmp_path, capsys, monkeypatch, SRC_OLD, SRC_NEW, quote)
    above = [s for s in error["suggestions"] if s.get("score", 0) >= 80]
    assert [s["quote"] for s in above] == ["folder, you can pass the `--name`"]  # the trap: the name option
    rc, report = cli_json(capsys, "repair", "--min-score", "80", "--root", root)
    assert rc == 1 and not report["applied"]
    assert "already stood in manifest.md at the last build" in report["left"][0]["reason"]
    assert questions_of(root)[0]["locators"] == [{"doc": "docs/manifest.md", "quote": quote}]  # nothing written


# -- a place in a repeat that its surroundings do not single out says nothing -------------------------

VERSION_QUOTE = "a specific version, you can use `--version` or the"
VERSION_BEFORE = ("# Install\n\nSimilarly, if you want to install a specific version, you can use `--version` or the "
                  "variable named below.\n\n## Update\n\nAnd finally, if you want to install a specific version, you "
                  "can pass it as an argument to the update command.\n")
VERSION_AFTER = VERSION_BEFORE.replace("`--version` or the", "`--version` option or the")


def test_a_place_in_a_repeat_its_surroundings_do_not_single_out_does_not_veto_a_nearest_passage(
        tmp_path, capsys, monkeypatch):
    """Poetry's installation page, rewritten around it, had its comparison put "a specific version,
    you can use `--version` or the" in the update section's "a specific version, you can pass it"
    (54.8% of the quote): a guess, since the install section's copy stands among the words that
    were around the quote. Taken for where the quote's words stand, it left the right nearest
    passage (94.8) as "away from" them; a guess now says nothing, and the passage is applied.
    The misalignment needs the whole page to happen, so the comparison is made to return it."""
    root, error = edited_project(tmp_path, capsys, monkeypatch, VERSION_BEFORE, VERSION_AFTER, VERSION_QUOTE)
    wrong = VERSION_AFTER.index("a specific version, you can pass")
    misaligned = old_place.Where(wrong, wrong + len("a specific version, you can"), True, False)
    monkeypatch.setattr(old_place.OldPlaces, "place", lambda *args: misaligned)
    fix = the_one_fix(capsys, root, "--min-score", "80")
    assert not fix.get("at_old_place") and fix["new"]["quote"] == "a specific version, you can use `--version` option"
    assert repaired_span_text(root).startswith("Similarly")
