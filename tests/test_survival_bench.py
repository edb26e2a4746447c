"""The survival benchmark (benchmarks/survival.py) end to end on a tiny git history built here:
one page renamed, a paragraph moved to another page, one edited, one deleted, the rest kept.
The ground truth must put each label where its words went, and the figures must follow."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import survival  # noqa: E402
from survival_truth import DELETED, EDITED, INTACT, MOVED, RENAMED, Fate, History  # noqa: E402

# Each paragraph has words of its own, so any quote of it is unique in the corpus.
KEPT_1 = "Apples ripen slowly under autumn light while orchard keepers count baskets and mend ladders."
EDITED_WORDS = ("copper kettles whistle beside quiet stoves until patient cooks pour amber tea "
                "for weary travellers resting near warm hearths").split()
KEPT_2 = "Glaciers carve deep valleys over centuries leaving polished granite walls and scattered boulders."
RENAMED_P = "Lighthouse lenses focus whale oil flames into beams that sailors trust through storms."
MOVED_P = "Bees dance in figure eights to tell hive sisters where clover fields bloom today."
DELETED_P = "Tram conductors once punched paper tickets with brass tools shaped like tiny stars."
KEPT_3 = "Violin makers season spruce for decades before carving the arched tops of instruments."


def edited(words: list[str]) -> str:
    """Every fourth word changed: any quote of six or more words loses one or two of them."""
    return " ".join(w + "s" if i % 4 == 3 else w for i, w in enumerate(words))


BASE = {
    "alpha.md": f"# Alpha\n\n{KEPT_1}\n\n{' '.join(EDITED_WORDS)}\n",
    "beta.md": f"# Beta\n\n{RENAMED_P}\n",
    "delta.md": f"# Delta\n\n{MOVED_P}\n\n{DELETED_P}\n\n{KEPT_2}\n",
    "epsilon.md": f"# Epsilon\n\n{KEPT_3}\n",
}
LATER = {
    "alpha.md": f"# Alpha\n\n{KEPT_1}\n\n{edited(EDITED_WORDS)}\n",
    "gamma.md": f"# Beta\n\n{RENAMED_P}\n",  # beta.md renamed, text unchanged
    "delta.md": f"# Delta\n\n{KEPT_2}\n",
    "epsilon.md": f"# Epsilon\n\n{KEPT_3}\n\n{MOVED_P}\n",
}
EXPECTED = {KEPT_1: (INTACT, "alpha.md"), " ".join(EDITED_WORDS): (EDITED, "alpha.md"),
            KEPT_2: (INTACT, "delta.md"), KEPT_3: (INTACT, "epsilon.md"), RENAMED_P: (RENAMED, "gamma.md"),
            MOVED_P: (MOVED, "epsilon.md"), DELETED_P: (DELETED, None)}


def commit(repo: Path, files: dict[str, str], message: str) -> str:
    env = os.environ | {"GIT_AUTHOR_DATE": "2001-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2001-01-01T00:00:00Z"}

    def git(*args: str) -> str:
        return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c",
                               "commit.gpgsign=false", *args], cwd=repo, env=env, check=True,
                              capture_output=True, text=True).stdout.strip()

    if not (repo / ".git").exists():
        git("init", "-q")
    for old in (repo / "docs").glob("*.md"):
        old.unlink()
    (repo / "docs").mkdir(exist_ok=True)
    for name, text in files.items():
        (repo / "docs" / name).write_text(text, encoding="utf-8")
    (repo / "README.md").write_text("outside the corpus\n", encoding="utf-8")
    git("add", "-A")
    git("commit", "-q", "-m", message)
    return git("rev-parse", "HEAD")


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    repo = tmp_path_factory.mktemp("docs-repo")
    base = commit(repo, BASE, "base")
    later = commit(repo, LATER, "rename, move, edit, delete")
    return repo / ".git", base, later


@pytest.fixture(scope="module")
def report(history, tmp_path_factory):
    git_dir, base, later = history
    return survival.survive(git_dir, "docs", base, [later], 100, 7, tmp_path_factory.mktemp("work"), "synthetic")


def paragraph_of(quote: str) -> str:
    """The base paragraph a label's quote was taken from."""
    words = quote.split()
    return next(p for p in EXPECTED if " ".join(words) in p)


def test_the_ground_truth_puts_every_label_where_its_words_went(report):
    assert report["labels"]["kept"] == len(EXPECTED)  # one label per paragraph, none refused at the base
    rows = {r["id"]: r for r in report["commits"][0]["labels"]}
    fates = report["commits"][0]["figures"]["fates"]
    assert fates == {"intact": 3, "renamed": 1, "moved": 1, "moved_ambiguous": 0, "edited": 1, "deleted": 1}
    assert len(rows) == 4  # the notable ones: every label that is not intact and kept
    for row in rows.values():
        fate, doc = EXPECTED[paragraph_of(row["quote"])]
        assert row["fate"] == fate, row
        assert (row.get("now") or {}).get("doc") == doc, row


def test_the_truth_ranges_are_the_quote_words_in_the_later_text(history):
    git_dir, base, later = history
    old, new = survival.corpus_at(git_dir, base, "docs"), survival.corpus_at(git_dir, later, "docs")
    h = History(old, new, survival.renames(git_dir, base, later, "docs"))
    assert h.renames == {"beta.md": "gamma.md"}
    quote = "to tell hive sisters where clover"
    start = old["delta.md"].index(quote)
    fate = h.fate("delta.md", start, start + len(quote))
    assert fate.kind == MOVED and new[fate.doc][fate.char_start:fate.char_end] == quote
    quote = "quiet stoves until patient cooks pour"  # "patient" became "patients"
    start = old["alpha.md"].index(quote)
    fate = h.fate("alpha.md", start, start + len(quote))
    assert fate.kind == EDITED
    assert new["alpha.md"][fate.char_start:fate.char_end] == "quiet stoves until patients cooks pour"


def test_an_edited_quote_of_a_page_git_does_not_pair_is_found_in_the_page_that_took_its_paragraph():
    """A page renamed and reworded past git's bar (no rename pair given): the quote's paragraph is
    the mutual best match of one paragraph of a page git pairs with none, so the quote is edited
    there; a paragraph found nowhere is still deleted, and a page git pairs is not looked in."""
    old = {"ch17.md": f"# Old\n\n{' '.join(EDITED_WORDS)}\n\n{DELETED_P}\n", "kept.md": f"# Kept\n\n{KEPT_1}\n"}
    new = {"ch18.md": f"# New\n\n{edited(EDITED_WORDS)}\n", "kept.md": f"# Kept\n\n{KEPT_1}\n"}
    quote = "quiet stoves until patient cooks pour"
    start = old["ch17.md"].index(quote)
    fate = History(old, new, {}).fate("ch17.md", start, start + len(quote))
    assert (fate.kind, fate.doc) == (EDITED, "ch18.md")
    assert new["ch18.md"][fate.char_start:fate.char_end] == "quiet stoves until patients cooks pour"
    start = old["ch17.md"].index(DELETED_P)
    assert History(old, new, {}).fate("ch17.md", start, start + len(DELETED_P)).kind == DELETED
    paired = {**new, "kept.md": new["kept.md"] + f"\n{edited(EDITED_WORDS)}\n"}
    paired.pop("ch18.md")
    start = old["ch17.md"].index(quote)
    assert History(old, paired, {}).fate("ch17.md", start, start + len(quote)).kind == DELETED


def test_words_reordered_in_a_paragraph_found_so_are_all_in_the_truths_range():
    """The paragraph pair is aligned as documents are: a run moved within the sentence is found by
    the passes after the first, so the range holds every surviving word of the quote."""
    old = {"a.md": "# A\n\nAlan Kay coined the term in 1967 to describe this architecture. Many definitions "
                   "describe what it is.\n"}
    new = {"b.md": "# B\n\nTo describe this architecture, Alan Kay coined the term in 1967. Many definitions "
                   "describe what it is.\n"}
    quote = "to describe this architecture. Many definitions describe"
    start = old["a.md"].index(quote)
    fate = History(old, new, {}).fate("a.md", start, start + len(quote))
    assert (fate.kind, fate.doc) == (EDITED, "b.md")
    assert new["b.md"][fate.char_start:fate.char_end] == \
        "describe this architecture, Alan Kay coined the term in 1967. Many definitions describe"


def test_labeller_keeps_intact_labels_in_place_and_moves_none_silently(report):
    figures = report["commits"][0]["figures"]
    assert figures["intact_kept_in_place"] == 3
    assert figures["silent_moves"] == 0
    assert figures["deleted_left_refused"] == 1
    rows = {paragraph_of(r["quote"]): r for r in report["commits"][0]["labels"]}
    assert rows[RENAMED_P]["check"] == "unknown_doc"
    assert rows[DELETED_P]["check"] == "not_found"


def test_intact_labels_whose_offsets_moved_are_not_named_to_re_read_beside_the_refusals(report):
    """delta.md lost two paragraphs above KEPT_2 (its offsets moved) while other labels were
    refused: ``build --check``'s drift beside the refusals calls it derived only."""
    figures = report["commits"][0]["figures"]
    assert figures["intact_kept_in_place_flagged"] == 0 and figures["silent_moves_flagged"] == 0



def test_resolving_labels_the_check_names_to_re_read_are_counted_per_fate():
    def row(fate: str, flagged: bool, silent: bool = False) -> dict:
        return {"fate": fate, "doc": "a.md", "now": {"doc": "a.md"}, "check": "resolved", "left": None,
                "silent_move": silent, "flagged": flagged, "kept_words": 1.0}

    f = survival.figures([row(EDITED, True), row(EDITED, False), row(INTACT, True), row(INTACT, False),
                          row(INTACT, False), row(EDITED, True, silent=True)], repaired=True)
    assert (f["edited_still_resolving_flagged"], f["edited_still_resolving"]) == (1, 2)
    assert (f["intact_kept_in_place_flagged"], f["intact_kept_in_place"]) == (1, 3)
    assert (f["silent_moves_flagged"], f["silent_moves"]) == (1, 1)


def test_the_records_to_re_read_come_from_the_drift_or_from_beside_the_refusals():
    classes = {"answer_text_changed": ["a"], "answer_text_not_comparable": ["b"], "derived_only": ["c"]}
    assert survival.to_reread({"errors": [], "drift": classes}) == {"a", "b"}
    assert survival.to_reread({"errors": [{"id": "x"}], "drift_beside_refusals": classes}) == {"a", "b"}
    assert survival.to_reread({"errors": [{"id": "x"}]}) == set()  # a labeller before the drift beside refusals


def test_repair_fixes_the_rename_the_move_and_the_edit_and_leaves_the_deletion(report):
    assert report["repair"] == "available"
    figures = report["commits"][0]["figures"]
    assert figures["renamed_or_moved_repaired_by_moves"] == 2
    assert figures["edited_in_place_repaired_by_min_score"] == figures["edited_in_place"] == 1
    assert figures["wrong_repairs"] == 0 and figures["deleted_left_refused"] == 1
    rows = {paragraph_of(r["quote"]): r for r in report["commits"][0]["labels"]}
    assert rows[RENAMED_P]["repaired_to"] == {"doc": "gamma.md", "quote": rows[RENAMED_P]["quote"]}
    assert rows[MOVED_P]["repaired_by"] == ["moves"] and rows[MOVED_P]["repaired_to"]["doc"] == "epsilon.md"
    assert rows[" ".join(EDITED_WORDS)]["repaired_by"] == ["min_score"]
    assert "repaired_by" not in rows[DELETED_P]


def test_a_labeller_without_repair_is_said_and_its_figures_are_null(report, monkeypatch):
    monkeypatch.setattr(survival, "labeller", lambda root, *args, ok: (2, ""))  # argparse: invalid choice
    missing = survival.repair_available(Path("."))
    assert missing is not None and "no `repair` command" in missing
    rows = report["commits"][0]["labels"]
    figures = survival.figures([{k: v for k, v in r.items() if k not in ("repaired_by", "repair_correct")}
                                for r in rows], repaired=False)
    assert figures["renamed_or_moved_repaired_by_moves"] is None and figures["wrong_repairs"] is None
    without = report | {"repair": f"not available: {missing}",
                        "commits": [report["commits"][0] | {"figures": figures}]}
    assert "n/a (no repair)" in survival.markdown(without)


def test_a_label_resolving_away_from_its_words_is_a_silent_move():
    label = survival.Label("sv-001", "a.md", "some words", 10, 20)
    fate = Fate(INTACT, "a.md", 110, 120)
    loc = {"doc": "a.md", "quote": "some words"}
    here = {"doc_id": "a.md", "char_start": 100, "char_end": 130, "block": "paragraph"}
    elsewhere = {"doc_id": "a.md", "char_start": 200, "char_end": 230, "block": "paragraph"}
    assert survival.judge(label, fate, None, None, here, loc, loc, loc)["silent_move"] is False
    assert survival.judge(label, fate, None, None, elsewhere, loc, loc, loc)["silent_move"] is True
    moved_to = {"doc": "b.md", "quote": "some words"}
    wrong = survival.judge(label, Fate(DELETED), "not_found", None, {**here, "doc_id": "b.md"}, loc, moved_to, moved_to)
    assert wrong["repaired_by"] == ["moves"] and wrong["repair_correct"] is False


def test_a_move_pinned_by_context_is_right_where_the_words_went_and_its_quote_unchanged():
    """A quote the new page holds twice is moved with a prefix that picks one occurrence: right
    when it resolves over the truth's place, wrong elsewhere or with its quote rewritten."""
    label = survival.Label("sv-001", "a.md", "some words", 10, 20)
    fate = Fate(MOVED, "b.md", 110, 120)
    loc = {"doc": "a.md", "quote": "some words"}
    there = {"doc_id": "b.md", "char_start": 100, "char_end": 130, "block": "paragraph"}
    pinned = {"doc": "b.md", "quote": "some words", "prefix": "install "}
    text = {"b.md": "x" * 102 + "install some words, and more " + "y" * 70 + "sync some words, and more.\n"}
    assert text["b.md"].index("install some words") + len("install ") == 110

    def right(span: dict, new: dict) -> bool:
        return survival.judge(label, fate, "unknown_doc", None, span, loc, new, new, None, text)["repair_correct"]

    assert right(there, pinned) is True
    assert right({**there, "char_start": 200, "char_end": 230}, {**pinned, "prefix": "sync "}) is False
    assert right(there, {**pinned, "quote": "some word"}) is False  # a move keeps its quote


def test_an_edit_repair_is_right_only_where_its_new_quote_stands_in_the_truths_range():
    """The span is the quote's whole block, so overlapping the truth's range says little: the
    repaired quote itself, found in the text, must stand mostly inside it."""
    text = "# A\n\nOne two three four five. Six seven eight nine ten.\n"
    block = {"doc_id": "a.md", "char_start": 5, "char_end": len(text) - 1, "block": "paragraph"}
    label = survival.Label("sv-001", "a.md", "two three four", 0, 1)
    words = text.index("two three four")
    fate = Fate(EDITED, "a.md", words, words + len("two three four five"))
    old = {"doc": "a.md", "quote": "two three four"}

    def judged(quote: str, **context: str) -> bool:
        new = {"doc": "a.md", "quote": quote, **context}
        return survival.judge(label, fate, "not_found", None, block, old, old, new, None, {"a.md": text})[
            "repair_correct"]

    assert judged("two three four five")
    assert not judged("seven eight nine")  # same block, other words: wrong
    assert judged("e", prefix="fiv", suffix=". Six") is True  # context picks the one inside
    assert not judged("e")  # several in the block, no context: not the quote's place
    assert survival.quote_range(text, block, {"quote": "three four"}) == (words + 4, words + 14)


def test_the_report_is_deterministic(history, report, tmp_path):
    git_dir, base, later = history
    again = survival.survive(git_dir, "docs", base, [later], 100, 7, tmp_path, "synthetic")
    assert json.dumps(again, sort_keys=True) == json.dumps(report, sort_keys=True)


def test_an_edited_quote_says_how_much_of_it_the_truth_keeps_where_it_stood():
    """``kept_words``: the share of the quote's words (punctuation not counted) the alignment
    keeps where it stood; three of ten words replaced keep 0.7, one of ten 0.9."""
    quote = "ten words here: copper kettles whistle beside quiet stoves daily"
    old = {"a.md": f"# A\n\nBefore it. {quote} and after it.\n"}
    rewritten = "ten words here: brass pots sing beside quiet stoves daily"
    touched = "ten words here: copper kettles sing beside quiet stoves daily"
    start = old["a.md"].index(quote)
    for now, share in ((rewritten, 0.7), (touched, 0.9)):
        fate = History(old, {"a.md": f"# A\n\nBefore it. {now} and after it.\n"}, {}).fate(
            "a.md", start, start + len(quote))
        assert fate.kind == EDITED and fate.as_json()["kept_words"] == share


def test_a_renamed_quote_also_in_another_document_is_counted_apart():
    """A page split in two (mdBook's config.md: renderers.md and preprocessors.md both keep one
    sentence): git pairs it with one half, but the quote stands verbatim in both, which SPEC §13
    refuses as ambiguous. The truth names every document, and the figures count such labels
    apart from the renamed ones ``--moves`` must repair."""
    old = {"config.md": f"# Config\n\n{RENAMED_P}\n\n{KEPT_2}\n"}
    new = {"renderers.md": f"# Renderers\n\n{RENAMED_P}\n\n{KEPT_2}\n", "preprocessors.md": f"# Pre\n\n{RENAMED_P}\n"}
    h = History(old, new, {"config.md": "renderers.md"})
    at = old["config.md"].index(RENAMED_P)
    fate = h.fate("config.md", at, at + len(RENAMED_P))
    assert (fate.kind, fate.doc, fate.candidates) == (RENAMED, "renderers.md", ("renderers.md", "preprocessors.md"))
    at = old["config.md"].index(KEPT_2)
    assert h.fate("config.md", at, at + len(KEPT_2)).candidates == ()  # in the renamed page alone

    def row(candidates: list[str], left: str | None) -> dict:
        out = {"fate": RENAMED, "doc": "config.md", "now": {"doc": "renderers.md"}, "check": "unknown_doc",
               "left": left, "silent_move": False}
        if left is None:
            out |= {"repaired_by": ["moves"], "repair_correct": True}
        return out | ({"candidates": candidates} if candidates else {})

    f = survival.figures([row([], None), row(["renderers.md", "preprocessors.md"], "unknown_doc")], repaired=True)
    assert (f["renamed_or_moved_repaired_by_moves"], f["renamed_or_moved"]) == (1, 1)
    assert (f["renamed_in_several_docs_left_refused"], f["renamed_in_several_docs"]) == (1, 1)


def test_wrong_repairs_of_labels_the_truth_calls_deleted_are_said_apart():
    def row(fate: str, correct: bool) -> dict:
        return {"fate": fate, "doc": "a.md", "now": {"doc": "a.md"}, "kept_words": 0.9, "check": "not_found",
                "repaired_by": ["min_score"], "repair_correct": correct, "left": None, "silent_move": False}

    f = survival.figures([row(EDITED, False), row(DELETED, False), row(DELETED, False), row(EDITED, True)],
                         repaired=True)
    assert (f["wrong_repairs"], f["wrong_repairs_of_deleted"]) == (3, 2)
    assert survival._wrong(f) == "3 (2 of 'deleted')"


def test_intact_labels_the_page_now_repeats_are_counted_apart_with_how_many_were_pinned():
    def row(check: str, repaired: bool, correct: bool = True) -> dict:
        return {"fate": INTACT, "doc": "a.md", "now": {"doc": "a.md"}, "check": check, "left": None,
                "silent_move": False, **({"repaired_by": ["min_score"], "repair_correct": correct} if repaired
                                         else {})}

    f = survival.figures([row("resolved", False), row("ambiguous", True), row("ambiguous", True, False),
                          row("ambiguous", False)], repaired=True)
    assert f["intact_kept_in_place"] == 1
    assert (f["intact_now_repeated_repaired_by_min_score"], f["intact_now_repeated"]) == (1, 3)
    assert survival._repeated(f) == " (3 now repeated in the page: 1 pinned where they stood)"
    assert survival._repeated(survival.figures([row("resolved", False)], repaired=True)) == ""


def test_the_edited_in_place_figures_split_at_mostly_kept():
    """The edited-in-place labels are split by the truth's share at ``MOSTLY_KEPT``, each group
    with its repaired-correctly count; correctness itself is not changed by the split."""
    def row(kept: float, correct: bool) -> dict:
        return {"fate": EDITED, "doc": "a.md", "now": {"doc": "a.md"}, "kept_words": kept, "check": "not_found",
                "repaired_by": ["min_score"], "repair_correct": correct, "left": None, "silent_move": False}

    rows = [row(survival.MOSTLY_KEPT, True), row(0.95, False), row(survival.MOSTLY_KEPT - 0.01, True),
            row(0.5, False), row(0.6, False)]
    f = survival.figures(rows, repaired=True)
    assert (f["edited_in_place_mostly_kept_repaired_by_min_score"], f["edited_in_place_mostly_kept"]) == (1, 2)
    assert (f["edited_in_place_rewritten_repaired_by_min_score"], f["edited_in_place_rewritten"]) == (1, 3)
    assert f["edited_in_place_repaired_by_min_score"] == 2 and f["edited_in_place"] == 5


def test_the_report_rows_of_edited_labels_carry_the_truths_share(report):
    row = next(r for r in report["commits"][0]["labels"] if r["fate"] == EDITED)
    words = row["quote"].split()
    changed = edited(EDITED_WORDS).split()
    at = next(i for i in range(len(EDITED_WORDS)) if EDITED_WORDS[i:i + len(words)] == words)
    assert row["kept_words"] == round(sum(changed[at + k] == w for k, w in enumerate(words)) / len(words), 3)
    f = report["commits"][0]["figures"]
    assert f["edited_in_place_mostly_kept"] + f["edited_in_place_rewritten"] == f["edited_in_place"]
    assert "of them quote mostly kept" in survival.markdown(report)


def test_truth_only_counts_the_full_runs_fates_and_runs_no_labeller(history, report, monkeypatch, tmp_path, capsys):
    """``--truth-only`` (how a held-out history is checked before its one run) samples the same
    labels and counts the same fates as the full run, without running labeller at all."""
    def no_labeller(*args, **kwargs):
        raise AssertionError("labeller was run")

    monkeypatch.setattr(survival, "labeller", no_labeller)
    git_dir, base, later = history
    out = tmp_path / "truth.json"
    assert survival.main([str(git_dir), "--subdir", "docs", "--base", base, "--later", later, "--labels", "100",
                          "--seed", "7", "--truth-only", "--json", str(out)]) == 0
    truth = json.loads(out.read_text(encoding="utf-8"))
    assert truth["labels"]["written"] == report["labels"]["kept"]
    commit = truth["commits"][0]
    assert commit["fates"] == report["commits"][0]["figures"]["fates"]
    assert (commit["renamed_docs"], commit["edited_in_place"], commit["edited_in_renamed_doc"]) == (1, 1, 0)
    assert "labeller not run" in capsys.readouterr().out
