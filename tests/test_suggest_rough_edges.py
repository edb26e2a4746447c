"""Nearest passages without rough edges (issue 35 point 5): snapped to the quote's words and
punctuation, only those close to the best shown, and the build's budget wide enough for a
realistic break (many lightly edited quotes), while a quote of words found everywhere still
costs no more than scoring every chunk."""

from __future__ import annotations

import json
import random

import pytest

from conftest import q, write_project
from labeller.cli import main
from labeller.core import suggest
from labeller.core.anchors import fold_quote
from labeller.core.models import Locator
from labeller.core.suggest_cut import snap_to_quote

DOC = ("# Errors\n\nThe parser stops at malformed JSON, and the reader calls a model; its answer is kept.\n\n"
       "Everything else is logged (see the journal) for a week.\n")


def nearest(project, quote: str) -> list[dict]:
    return suggest.suggest(project.resolver, project.resolver.resolve(Locator(quote=quote))).suggestions


@pytest.mark.parametrize("quote, passage", [
    ("stops at malformed JSN", "stops at malformed JSON"),  # not "JSON,": the quote has no comma
    ("the reader calls a modl", "the reader calls a model"),  # not "model; its"
    ("logged see the journl", "logged (see the journal"),  # inner punctuation stays
])
def test_a_nearest_passage_carries_no_punctuation_or_word_the_quote_did_not_have(make_project, quote, passage):
    p = make_project({"e.md": DOC})
    first = nearest(p, quote)[0]
    assert first["quote"] == passage
    place = suggest.suggest(p.resolver, p.resolver.resolve(Locator(quote=quote))).suggested_places[0]
    assert p.corpus["e.md"].text[place.start:place.end] == passage  # the place is the passage's


def test_punctuation_the_quote_has_is_kept():
    text = "It ends here. (And then) more."
    assert snap_to_quote(text, 0, 13, fold_quote("It ends hre.")) == (0, 13)  # "It ends here."
    assert snap_to_quote(text, 14, 24, fold_quote("(And thn)")) == (14, 24)  # both brackets kept
    assert snap_to_quote(text, 14, 24, fold_quote("And thn")) == (15, 23)  # neither


def test_a_passage_the_page_repeats_is_suggested_at_each_of_its_places(make_project):
    """Poetry's CLI page copied its ``install`` section into a ``sync`` one: the nearest passage
    "use the exact versions from there instead of resolving" stands in a chunk of each, and each
    suggestion says where its own stands (both said the first, line 476, once)."""
    sentence = "If a lock file is present, use the exact versions from there instead of resolving them."
    filler = " ".join(f"word{i}" for i in range(400))  # each section past one chunk
    doc = f"# install\n\n{sentence}\n\n{filler}\n\n# sync\n\n{filler}\n\n{sentence}\n"
    p = make_project({"cli.md": doc})
    got = suggest.suggest(p.resolver, p.resolver.resolve(Locator(quote="use the exact version from there")))
    text = p.corpus["cli.md"].text
    places = sorted((pl.start, pl.end) for pl in got.suggested_places if pl is not None)
    assert places == [(s, s + len(got.suggestions[0]["quote"])) for s in
                      (text.index("use the exact"), text.rindex("use the exact"))]
    assert {s["where"] for s in got.suggestions} == {"cli.md:3:28", "cli.md:11:28"}
    assert not any(s["unique"] for s in got.suggestions)


def test_a_passage_is_found_from_a_chunk_that_starts_within_a_run_of_spaces(make_project):
    """A chunk may start on an indented line; the folded text keeps one space of the run, so the
    search starts at the first character past it, not past the run's first character."""
    p = make_project({"a.md": "# A\n\nalpha   beta\n\n\n   gamma delta\n"})
    text = p.corpus["a.md"].text
    at = text.index("gamma")
    for start in range(text.index("beta") + 4, at + 1):
        hit = p.resolver.index.first("gamma delta", "a.md", start)
        assert hit is not None and (hit.start, hit.end) == (at, at + len("gamma delta")), start
    assert p.resolver.index.first("gamma delta", "a.md", at + 1) is None


def test_a_passage_loses_the_space_and_the_punctuation_a_removed_run_leaves_at_its_edge():
    """A container's closing marker on the next line (Vue's event-handling tip, ``so.⏎:::``) and
    a code comment's ``//`` left a space at the passage's edge ("if you do so. ",
    " functions that mutate"), and the sentence's own period behind it."""
    from labeller.core.suggest_cut import edge_punctuation

    text = "the browser warns if you do so.\n:::\n\n// functions that mutate state\n"
    start, end = text.index("if you"), text.index(":::") + 3
    assert text[slice(*edge_punctuation(text, start, end, fold_quote("if you do so or give")))] == "if you do so"
    assert text[slice(*edge_punctuation(text, start, end, fold_quote("if you do so.")))] == "if you do so."
    start, end = text.index("//"), text.index("state") + 5
    assert text[slice(*edge_punctuation(text, start, end, fold_quote("indicate that functions")))] == \
        "functions that mutate state"


def test_suggestions_far_below_the_first_are_not_shown(make_project):
    doc = ("# A\n\nThe retention of search logs is nine days in every region.\n\n"
           "# B\n\nRetention of audit logs is a year.\n\n# C\n\nSearch engines log nothing for long.\n")
    p = make_project({"a.md": doc})
    raw = suggest.nearest_passages(p.resolver, fold_quote("retention of search logs is nine dayz"), None)
    shown = nearest(p, "retention of search logs is nine dayz")
    assert max(s["score"] for s, _ in raw) - min(s["score"] for s, _ in raw) > suggest.MAX_SCORE_GAP  # some far
    assert shown and all(shown[0]["score"] - s["score"] <= suggest.MAX_SCORE_GAP for s in shown)
    assert len(shown) < len(raw)


def test_a_quote_of_everyday_words_falls_back_to_scoring_every_chunk_at_no_more_than_its_cost(make_project,
                                                                                          monkeypatch):
    """A quote over a scope dearer than ``FULL_SCAN_UNITS`` tries the pre-filter first, which
    may read only as many matches as scoring every chunk would cost: on a text of the quote's
    own words it stops there and scores every chunk, as before."""
    unit = "alpha beta gamma "
    p = make_project({"a.md": "# Doc\n\n" + "\n\n".join([unit * 80] * 100) + "\n"})
    quote = fold_quote("alpha gamma zzqx")
    scope = suggest.ChunkScope(p.resolver, None)
    full = scope.cost(len(quote), range(len(scope.chunks)))
    monkeypatch.setattr(suggest, "FULL_SCAN_UNITS", full // 2)  # as a corpus twice this size would be
    spent: list[int] = []
    found = suggest.nearest_passages(p.resolver, quote, None, spent.append)
    read_at_most = (full // suggest.HIT_UNITS) * suggest.HIT_UNITS + 4 * scope.folded_chars
    assert found and full < spent[0] <= full + read_at_most  # every chunk scored, and what the pre-filter read


def test_a_realistic_break_is_helped_by_the_pre_filter_at_a_fraction_of_a_full_scan(tmp_path, capsys, monkeypatch):
    """Quotes one letter off, over a corpus dearer than a full scan (``FULL_SCAN_UNITS`` set
    below its cost, as for 2 MB): each gets its own sentence first from the pre-filter's
    candidates, at under a third of what scoring every chunk costs, which is what lets the
    build's budget cover a hundred of them (``benchmarks/realistic_break.py`` measures it)."""
    rng = random.Random(35)
    words = [f"w{rng.getrandbits(24):x}" for _ in range(4000)]
    sentences = [" ".join(rng.choice(words) for _ in range(9)) + "." for _ in range(1500)]
    docs = {f"d{i:02}.md": "# D\n\n" + "\n\n".join(sentences[i * 100:(i + 1) * 100]) + "\n" for i in range(15)}
    picked = rng.sample(range(len(sentences)), 12)
    quotes = [sentences[i].split(" ", 2)[2].rstrip(".") for i in picked]
    edited = [quote[:6] + quote[7:] for quote in quotes]  # a letter dropped
    root = write_project(tmp_path / "p", docs, [q(f"r{i}", {"quote": e}) for i, e in enumerate(edited)])
    from labeller.config import load_config
    from labeller.core.project import Project

    resolver = Project(load_config(root)).resolver
    scope = suggest.ChunkScope(resolver, None)
    full = min(scope.cost(len(fold_quote(e)), range(len(scope.chunks))) for e in edited)
    monkeypatch.setattr(suggest, "FULL_SCAN_UNITS", full - 1)
    monkeypatch.setenv("LABELLER_WORKERS", "1")  # the patched bound holds in this process only
    capsys.readouterr()
    assert main(["build", "--root", str(root), "--format", "json"]) == 1
    errors = json.loads(capsys.readouterr().out)["errors"]
    assert [e["suggestions"][0]["quote"] for e in errors] == quotes
    spent: list[int] = []
    for e in edited:
        suggest.nearest_passages(resolver, fold_quote(e), None, spent.append)
    assert 3 * max(spent) < full
