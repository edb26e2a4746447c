"""Resolution stays linear on hostile questions (issue 23, item 4), and agrees with plain references.

No clock here: the linear matcher is checked against a naive one on small random inputs,
and the bounds (occurrences kept, occurrences listed, help under a work budget, echoed
text) as behaviour. Time and memory are the benchmark's (benchmarks/hostile_resolution.py).
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import q, write_project
from helpers_oracle import oracle_context_matches, oracle_occurrences, oracle_quote
from labeller.cli import main
from labeller.core import build as build_mod
from labeller.core import suggest as suggest_mod
from labeller.core.anchors import KEPT, QuoteIndex, find_overlapping, fold_quote
from labeller.core.context import occurrence_help
from labeller.core.corpus import Corpus, make_document
from labeller.core.models import Locator
from labeller.core.resolve import Refusal, Resolver
from labeller.core.vocab import Place, RefusalKind


def naive_overlapping(haystack: str, needle: str) -> list[int]:
    return [i for i in range(len(haystack) - len(needle) + 1) if haystack.startswith(needle, i)]


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(unit=st.text("ab ", min_size=1, max_size=5), reps=st.integers(13, 40), noise=st.text("ab ", max_size=6),
       text=st.lists(st.sampled_from(["ab", "a", "b", " ", "aba", "ab ab "]), max_size=120))
def test_find_overlapping_agrees_with_a_naive_search_on_periodic_needles(unit, reps, noise, text):
    """Long needles (64+ characters, the stepping path) of small period, on texts made of
    the same letters: every overlapping occurrence, in order."""
    needle = unit * reps + noise
    haystack = "".join(text) + unit * (2 * reps) + noise + "".join(text) + needle * 2
    assert list(find_overlapping(haystack, needle)) == naive_overlapping(haystack, needle)


SEPS = st.sampled_from([" ", "  ", "\n", " \n ", "\t"])
WORDS = st.sampled_from(["a", "b", "ab", "ba", "a.", "天"])


@st.composite
def doc_text(draw):
    words = draw(st.lists(WORDS, min_size=2, max_size=40))
    return "".join(w + draw(SEPS) for w in words)


def oracle_counted(corpus: Corpus, quote: str, prefix, suffix, doc: str | None) -> list[tuple[str, int, int]]:
    out = []
    for doc_id in corpus.docs:
        if doc is not None and doc_id != doc:
            continue
        text = corpus[doc_id].text
        for s, e in oracle_occurrences(text, oracle_quote(quote)):
            if oracle_context_matches(text, s, e, prefix, suffix):
                out.append((doc_id, s, e))
    return out


@settings(max_examples=250, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(docs=st.lists(doc_text(), min_size=1, max_size=3), quote=st.sampled_from(["a", "ab", "a b", "b a", "天"]),
       prefix=st.none() | st.sampled_from(["a", "b ", " a", "ab  b", "a.\n"]),
       suffix=st.none() | st.sampled_from(["a", " b", "b ", "a. ab"]), pinned=st.booleans(),
       batch=st.booleans())
def test_context_matching_agrees_with_the_plain_reference(docs, quote, prefix, suffix, pinned, batch):
    """The context needle (one search of prefix+quote+suffix), in the build's batch search or
    the app's own, counts exactly the occurrences the char-by-char rule of SPEC §2.2 counts."""
    corpus = Corpus.from_documents([make_document(f"d{i}.md", t) for i, t in enumerate(docs)])
    resolver = Resolver(corpus, {}, None)  # type: ignore[arg-type]
    doc = "d0.md" if pinned else None
    loc = Locator(quote=quote, prefix=prefix, suffix=suffix, doc=doc)
    found = resolver.search_locators([loc, *(Locator(quote=w) for w in "ab天.xyz")]) if batch else None
    got = resolver.locate(loc, "r1", found)
    want = oracle_counted(corpus, quote, prefix, suffix, doc)
    if len(want) == 1:
        assert got == Place(*want[0])
    elif len(want) > 1:
        assert isinstance(got, Refusal) and got.kind == RefusalKind.AMBIGUOUS
        assert [(p.doc, p.start, p.end) for p in got.places] == want[:KEPT]
        assert f"occurs {len(want)} times" in got.message
    else:
        assert isinstance(got, Refusal) and got.kind == RefusalKind.NOT_FOUND


def reference_extension(index: QuoteIndex, place: Place, folded: str, scope: str | None, words: int) -> str | None:
    """The extension as it was computed before: grow by whole words, count each candidate."""
    fd = index.folded(place.doc)
    text = fd.folded
    fstart = next(p for p in find_overlapping(text, folded) if fd.occurrence(p, len(folded)).start == place.start)
    fend = fstart + len(folded)
    lefts, p = [fstart], fstart
    while len(lefts) <= words and p > 0:
        p = text.rfind(" ", 0, p - 1) + 1 if text[p - 1] == " " else text.rfind(" ", 0, p) + 1
        lefts.append(p)
    rights, r = [fend], fend
    while len(rights) <= words and r < len(text):
        nxt = text.find(" ", r + 1 if text[r] == " " else r)
        r = len(text) if nxt == -1 else nxt
        rights.append(r)
    for total in range(1, 2 * words + 1):
        found = [cand for n_left in range(total + 1) if n_left < len(lefts) and total - n_left < len(rights)
                 if (cand := text[lefts[n_left]:rights[total - n_left]].strip()) != folded
                 and index.count(cand, scope) == 1]
        if found:
            return min(found, key=lambda c: (len(c), c))
    return None


@settings(max_examples=200, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(docs=st.lists(doc_text(), min_size=1, max_size=2), quote=st.sampled_from(["a", "ab", "a b", "b"]),
       pinned=st.booleans(), data=st.data())
def test_the_extension_read_off_the_sides_equals_counting_each_candidate(docs, quote, pinned, data):
    corpus = Corpus.from_documents([make_document(f"d{i}.md", t) for i, t in enumerate(docs)])
    index = QuoteIndex(corpus)
    folded = fold_quote(quote)
    scope = "d0.md" if pinned else None
    occ = [o for d in corpus.docs if scope in (None, d)
           for o in (Place(d, s, e) for s, e in oracle_occurrences(corpus[d].text, folded))]
    if not occ:
        return
    place = data.draw(st.sampled_from(occ))
    helps = occurrence_help(index, [place], quote, scope, 10_000, 3)
    assert helps is not None
    assert helps[place][1] == reference_extension(index, place, folded, scope, 3)


# -- bounds ---------------------------------------------------------------------------------

def test_a_search_keeps_the_first_occurrences_and_counts_them_all():
    corpus = Corpus.from_documents([make_document("a.md", "ab " * 500), make_document("b.md", "ab\n" * 7)])
    hits = QuoteIndex(corpus).find_all(["ab"])["ab"]
    assert hits.total == 507 and hits.counts == {"a.md": 500, "b.md": 7}
    assert len(hits) == KEPT + 7 and [o.start for o in hits[:3]] == [0, 3, 6]
    assert hits.in_doc("b.md").total == 7


def hostile_project(tmp_path, n_records: int):
    """A repetitive document and records of many ambiguous two-letter quotes."""
    doc = "# Doc\n\n" + "alpha beta gamma " * 400 + "\n"
    pairs = ["al", "lp", "ph", "ha", "be", "et", "ta", "ga", "am", "mm", "ma"]
    questions = [q(f"r{i}", *({"quote": pairs[(i + j) % len(pairs)]} for j in range(30)),
                   query=f"question number {i} of the hostile file?") for i in range(n_records)]
    return write_project(tmp_path, {"a.md": doc}, questions)


def test_a_build_lists_a_bounded_number_of_occurrences_and_says_so(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(suggest_mod, "MAX_BUILD_LISTED", 40)
    root = hostile_project(tmp_path, 2)
    assert main(["build", "--check", "--root", str(root), "--format", "json"]) == 1
    errors = json.loads(capsys.readouterr().out)["errors"]
    assert len(errors) == 60  # every locator is still refused
    assert sum(len(e["occurrences"]) for e in errors) == 40
    assert "not listed (a build lists 40 at most)" in errors[-1]["message"]


def test_only_the_occurrences_a_build_lists_are_helped(tmp_path, monkeypatch, capsys):
    """Past ``MAX_BUILD_LISTED`` no occurrence is shown, so none is helped either (each costs a
    comparison with every other occurrence: the ``help`` benchmark shape spent 8.0-8.5 s, 4.7 s once
    only listed ones were helped), and a refusal with none listed does not blame the budget."""
    monkeypatch.setattr(suggest_mod, "MAX_BUILD_LISTED", 40)
    helped: list[int] = []

    def counting(index, places, *args, **kwargs):
        helped.append(len(places))
        return occurrence_help(index, places, *args, **kwargs)

    monkeypatch.setattr(suggest_mod, "occurrence_help", counting)
    root = hostile_project(tmp_path, 2)
    assert main(["build", "--check", "--root", str(root), "--format", "json"]) == 1
    errors = json.loads(capsys.readouterr().out)["errors"]
    listed = sum(len(e["occurrences"]) for e in errors)
    assert listed == 40 and sum(helped) == listed
    assert any(o["extension"] is not None for e in errors for o in e["occurrences"])  # and they are helped
    unlisted = [e for e in errors if not e["occurrences"]]
    assert len(unlisted) == 58 and not any("work budget" in e["message"] for e in unlisted)


def test_the_help_of_ambiguous_quotes_stops_when_the_build_budget_is_spent(tmp_path, monkeypatch, capsys):
    assert main(["build", "--check", "--root", str(hostile_project(tmp_path / "a", 2)), "--format", "json"]) == 1
    errors = json.loads(capsys.readouterr().out)["errors"]
    assert not any("work budget" in e["message"] for e in errors)
    assert any(o["extension"] is not None for e in errors for o in e["occurrences"])
    monkeypatch.setattr(build_mod, "BUILD_HELP_BUDGET", 50)
    assert main(["build", "--check", "--root", str(hostile_project(tmp_path / "b", 2)), "--format", "json"]) == 1
    starved = json.loads(capsys.readouterr().out)["errors"]
    assert [e["kind"] for e in starved] == [e["kind"] for e in errors]
    assert all("the work budget for suggestions is spent" in e["message"] for e in starved)
    assert all(o["context"] is None and o["extension"] is None for e in starved for o in e["occurrences"])


def test_a_huge_quote_is_echoed_shortened_and_offered_no_extension(tmp_path, capsys):
    quote = ("alpha beta gamma " * 300).strip()
    root = write_project(tmp_path, {"a.md": "# Doc\n\n" + "alpha beta gamma " * 700 + "\n"},
                         [q("r1", {"quote": quote})])
    assert main(["build", "--check", "--root", str(root)]) == 1
    err = capsys.readouterr().err
    assert quote[:1000] not in err and "characters) …" in err
    assert main(["build", "--check", "--root", str(root), "--format", "json"]) == 1
    (error,) = json.loads(capsys.readouterr().out)["errors"]
    assert "no extension or context offered for a quote over" in error["message"]
    assert error["occurrences"] and all(o["extension"] is None for o in error["occurrences"])
