"""The document locator ``{doc}`` (SPEC §2.1), context on a quote (§2.2), the shortest
context tools write, and records without an expected answer (§6)."""

from __future__ import annotations

import json
import unicodedata

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from conftest import q, write_project
from helpers_oracle import oracle_context_matches
from labeller.cli import main
from labeller.core.anchors import QuoteIndex, find_overlapping, fold_quote
from labeller.core.build import build
from labeller.core.context import Context, contexts_for, pick_occurrence, shortest_context
from labeller.core.corpus import Corpus, make_document
from labeller.core.models import Locator, Question
from labeller.core.resolve import Refusal, Resolver, Span
from labeller.core.suggest import suggest
from labeller.core.vocab import BlockKind, Place, RefusalKind

REPEATED = ("# Steps\n\nRestart the service. Then check the log.\n\n"
            "Stop the cluster. Restart the service. Wait a minute.\n\n"
            "Finally, restart the service. Then check the log again.\n")


def quote_places(text: str, quote: str) -> list[int]:
    """Canonical starts of the occurrences of ``quote`` (no whitespace in it) in ``text``."""
    return list(find_overlapping(text, quote))


def located(project, **loc) -> Place | Refusal:
    return project.resolver.locate(Locator(**loc))


# -- context: which occurrence counts ---------------------------------------------------------


def test_a_prefix_picks_one_of_a_repeated_passage(make_project):
    p = make_project({"a.md": REPEATED})
    text = p.corpus["a.md"].text
    starts = quote_places(text, "Restart the service.")
    assert len(starts) == 2
    assert located(p, doc="a.md", quote="Restart the service.").kind == RefusalKind.AMBIGUOUS
    assert located(p, doc="a.md", quote="Restart the service.", prefix="cluster. ") == \
        Place("a.md", starts[1], starts[1] + len("Restart the service."))


def test_a_suffix_picks_one_and_both_together_pick_one(make_project):
    p = make_project({"a.md": REPEATED})
    text = p.corpus["a.md"].text
    starts = quote_places(text, "the service. Then check the log")
    lower = text.index("restart the service. Then")  # lower-case "restart": not an occurrence of "Restart"
    assert len(starts) == 2 and starts[1] == lower + len("restart ")
    quote = "the service. Then check the log"
    assert located(p, quote=quote).kind == RefusalKind.AMBIGUOUS
    assert located(p, quote=quote, suffix=" again").start == starts[1]
    assert located(p, quote=quote, suffix=".").start == starts[0]
    # neither side alone decides "the service." (three times), both do
    three = quote_places(text, "the service.")
    assert len(three) == 3
    assert located(p, quote="the service.", prefix="Restart ").kind == RefusalKind.AMBIGUOUS
    assert located(p, quote="the service.", suffix=" Then").kind == RefusalKind.AMBIGUOUS
    assert located(p, quote="the service.", prefix="Restart ", suffix=" Then").start == three[0]
    assert located(p, quote="the service.", prefix="restart ", suffix=" Then").start == three[2]


def test_whitespace_at_the_inner_edge_is_a_run_and_at_the_outer_edge_is_ignored(make_project):
    p = make_project({"a.md": "Xfoo one and X \n  foo two and Yfoo three.\n"})
    text = p.corpus["a.md"].text
    starts = quote_places(text, "foo")
    # no whitespace at the inner edge: the prefix must touch the quote
    assert located(p, quote="foo", prefix="X").start == starts[0]
    # whitespace at the inner edge: any run of whitespace between them, here " \n  "
    assert located(p, quote="foo", prefix="X ").start == starts[1]
    assert located(p, quote="foo", prefix="X\t\n").start == starts[1]
    # whitespace at the outer edge means nothing
    assert located(p, quote="foo", prefix="   X").start == starts[0]
    assert located(p, quote="foo", prefix="\nY").start == starts[2]
    assert located(p, quote="foo", suffix=" one   ").start == starts[0]
    # the suffix's inner edge is its left one: "foo" followed directly by " two" needs the run
    assert located(p, quote="foo", suffix="two").kind == RefusalKind.NOT_FOUND


def test_context_across_a_line_wrap(make_project):
    p = make_project({"a.md": "Keep the\nbackups for nine days. Keep the logs\nfor nine days.\n"})
    text = p.corpus["a.md"].text
    starts = quote_places(text, "nine days.")
    assert located(p, quote="for nine days.", prefix="Keep the backups ").start == starts[0] - len("for ")
    assert located(p, quote="nine days.", prefix="the logs for ").start == starts[1]
    assert located(p, quote="nine days.", prefix="the  logs\n\tfor\n").start == starts[1]


def test_overlapping_occurrences_with_context(make_project):
    p = make_project({"a.md": "x aaa y\n"})
    assert located(p, quote="aa").kind == RefusalKind.AMBIGUOUS  # at 2 and 3 (overlapping)
    assert located(p, quote="aa", prefix="a") == Place("a.md", 3, 5)
    assert located(p, quote="aa", suffix="a") == Place("a.md", 2, 4)
    assert located(p, quote="aa", prefix="x ") == Place("a.md", 2, 4)
    assert located(p, quote="aa", suffix=" y") == Place("a.md", 3, 5)


def test_context_that_matches_nowhere_is_not_found_with_the_contexts_that_would(make_project):
    p = make_project({"a.md": REPEATED})
    loc = Locator(doc="a.md", quote="Restart the service.", prefix="Reboot. ")
    r = p.resolver.resolve(loc, "q1")
    assert isinstance(r, Refusal) and r.kind == RefusalKind.NOT_FOUND
    assert "occurs 2 times" in r.message and "prefix/suffix" in r.message
    r = suggest(p.resolver, r)
    assert len(r.suggestions) == 2
    for sug, place in zip(r.suggestions, r.suggested_places):
        fields = {k: sug[k] for k in ("doc", "quote", "prefix", "suffix") if k in sug}
        assert located(p, **fields) == place
    # a quote that does not occur at all: the nearest passages, as without context
    r = suggest(p.resolver, p.resolver.resolve(Locator(quote="Restart the servce.", suffix=" Wait")))
    assert r.kind == RefusalKind.NOT_FOUND and "Restart the service." in r.suggestions[0]["quote"]


def test_still_ambiguous_lists_the_counted_occurrences_with_unique_contexts(make_project):
    p = make_project({"a.md": REPEATED, "b.md": "# B\n\nOnce more: Restart the service. Then check the log.\n"})
    r = p.resolver.resolve(Locator(quote="Restart the service.", suffix=" Then check the log"))
    assert isinstance(r, Refusal) and r.kind == RefusalKind.AMBIGUOUS
    assert "occurs 2 times" in r.message and "context" in r.message
    a, b = p.corpus["a.md"].text, p.corpus["b.md"].text
    # the places are the quote's own ranges, only where the context matched
    assert r.places == (Place("a.md", a.index("Restart"), a.index("Restart") + 20),
                        Place("b.md", b.index("Restart"), b.index("Restart") + 20))
    r = suggest(p.resolver, r)
    assert [(o["doc"], o["char_start"], o["char_end"]) for o in r.occurrences] == [tuple(pl) for pl in r.places]
    for occ, place in zip(r.occurrences, r.places):
        assert located(p, quote="Restart the service.", **occ["context"]) == place
    assert r.as_json()["occurrences"][0]["context"] == r.occurrences[0]["context"]


def test_the_span_is_the_quotes_expansion_never_widened_by_context(make_project):
    p = make_project({"a.md": REPEATED})
    text = p.corpus["a.md"].text
    span = p.resolver.resolve(Locator(doc="a.md", quote="Restart the service.", prefix="Stop the cluster. "))
    second = quote_places(text, "Restart the service.")[1]
    paragraph = text.index("Stop the cluster.")
    assert isinstance(span, Span) and span.block == BlockKind.PARAGRAPH
    assert (span.quote_start, span.quote_end) == (second, second + 20)
    assert (span.start, span.end) == (paragraph, text.index("\n\n", paragraph) + 1)
    exact = p.resolver.resolve(Locator(quote="Restart the service.", prefix="cluster. ", suffix=" Wait", exact=True))
    assert isinstance(exact, Span) and (exact.start, exact.end) == (second, second + 20)
    assert exact.block == BlockKind.EXACT
    # the same paragraph as the unique quote around that occurrence gives
    plain = p.resolver.resolve(Locator(quote="Restart the service. Wait"))
    assert isinstance(plain, Span) and (plain.start, plain.end) == (span.start, span.end)


def test_the_build_batch_search_filters_by_context(make_project):
    docs = {"a.md": REPEATED}
    # nine records with quotes (the multi-pattern automaton path), two of them with context
    qs = [q(f"q{i}", {"doc": "a.md", "quote": w}) for i, w in enumerate(
        ["Stop the cluster", "Wait a minute", "Finally", "check the log again", "# Steps", "Then check the log."])]
    qs += [q("c1", {"quote": "Restart the service.", "prefix": "cluster. "}),
           q("c2", {"quote": "Restart the service.", "suffix": " Then"}),
           q("c3", {"quote": "Restart the service.", "prefix": "nowhere "})]
    p = make_project(docs, qs)
    result = build(p, p.load_questions().questions)
    by_id = {r.question.id: r for r in result.records}
    text = p.corpus["a.md"].text
    starts = quote_places(text, "Restart the service.")
    assert by_id["c1"].spans[0].quote_start == starts[1]
    assert by_id["c2"].spans[0].quote_start == starts[0]
    assert [r.kind for r in by_id["c3"].refusals] == [RefusalKind.NOT_FOUND]
    for rid in ("c1", "c2"):  # the batch and the lone lookup agree
        alone = p.resolver.resolve(by_id[rid].question.locators[0])
        assert alone == by_id[rid].spans[0]


def test_context_is_validated():
    for bad in ({"doc": "a.md", "heading": "T", "prefix": "x"}, {"doc": "a.md", "suffix": "x"},
                {"quote": "q", "prefix": ""}, {"quote": "q", "suffix": " \n\t"}, {"doc": "a.md", "exact": True}):
        with pytest.raises(ValidationError):
            Locator(**bad)
    assert Locator(quote="q", prefix=" x ").as_json() == {"quote": "q", "prefix": " x "}  # kept as written
    with pytest.raises(ValidationError):
        Locator()


# -- the document locator -----------------------------------------------------------------


DOC_WITH_FM = "---\ntitle: A\n---\n\n\n# Alpha\n\nFirst paragraph.\n\nSecond paragraph.\n\n\n  \n"


def test_a_document_locator_is_the_text_after_front_matter_without_edge_blank_lines(make_project):
    p = make_project({"a.md": DOC_WITH_FM, "b.md": "\n\nJust text,\nno headings.\n\n", "c.md": "One line."})
    for doc_id, body in (("a.md", "# Alpha\n\nFirst paragraph.\n\nSecond paragraph.\n"),
                         ("b.md", "Just text,\nno headings.\n"), ("c.md", "One line.\n")):
        span = p.resolver.resolve(Locator(doc=doc_id))
        text = p.corpus[doc_id].text
        assert isinstance(span, Span) and span.block == BlockKind.DOCUMENT == "document"
        assert text[span.start:span.end] == body and span.end == text.index(body) + len(body)
        assert (span.quote_start, span.quote_end) == (span.start, span.end)


@pytest.mark.parametrize("content, what", [("", "empty"), ("\n \n\t\n", "empty"),
                                           ("---\ntitle: A\n---\n", "front matter only"),
                                           ("---\ntitle: A\n---\n\n  \n", "front matter only")])
def test_an_empty_or_front_matter_only_document_is_refused_as_invalid(make_project, content, what):
    p = make_project({"a.md": "# A\n\ntext\n", "e.md": content})
    r = p.resolver.resolve(Locator(doc="e.md"), "q1")
    assert isinstance(r, Refusal) and r.kind == RefusalKind.INVALID and what in r.message and "e.md" in r.message
    assert p.resolver.resolve(Locator(doc="missing.md")).kind == RefusalKind.UNKNOWN_DOC


def test_a_document_locator_hits_every_overlapping_chunk_and_builds(tmp_path, capsys):
    long_doc = "# Long\n\n" + "\n\n".join(f"Paragraph {i} " + "words " * 60 for i in range(12)) + "\n"
    docs = {"long.md": long_doc, "a.md": DOC_WITH_FM}
    qs = [q("d1", {"doc": "long.md"}), q("d2", {"doc": "a.md"}, expected_answer=""),
          q("d3", {"doc": "a.md", "quote": "Second paragraph."})]
    root = write_project(tmp_path / "p", docs, qs)
    assert main(["build", "--root", str(root), "--format", "json"]) == 0
    summary = json.loads(capsys.readouterr().out)["summary"]
    assert summary["blocks"] == {"document": 2, "paragraph": 1} and summary["no_answer"] == 1
    records = [json.loads(line) for line in (root / "golden/golden-set.v1.jsonl").read_text().splitlines()]
    from labeller.config import load_config
    from labeller.core.project import Project

    project = Project(load_config(root))
    chunks = project.chunks["long.md"]
    assert len(chunks) > 1
    assert records[0]["answer_bearing_chunk_ids"] == sorted({c.chunk_id for c in chunks})
    assert records[0]["answer_spans"][0]["block"] == "document"
    assert 0.99 < records[0]["span_union_coverage"][0] < 1  # the heading line and gaps lie in no chunk
    # under span_containment no chunk holds a whole document that starts with a heading line (in no
    # chunk) or spans several chunks: refused like any such span; the plain quote still builds
    assert main(["build", "--root", str(root), "--hit-rule", "span_containment", "--format", "json"]) == 1
    errors = json.loads(capsys.readouterr().out)["errors"]
    assert [(e["id"], e["kind"]) for e in errors] == [("d1", "no_hit"), ("d2", "no_hit")]
    assert main(["build", "--root", str(root), "--hit-rule", "union_coverage>=0.75"]) == 0


# -- the shortest context -------------------------------------------------------------------


def index_of(**docs: str) -> QuoteIndex:
    return QuoteIndex(Corpus.from_documents([make_document(f"{k}.md", v) for k, v in docs.items()]))


def test_shortest_context_prefers_whole_words_and_the_fewest_characters():
    idx = index_of(a="one red fox ran. two red fox sat. one red fox sat.\n")
    text = idx.corpus["a.md"].text
    starts = quote_places(text, "red fox")
    assert shortest_context(idx, Place("a.md", starts[1], starts[1] + 7), "red fox", "a.md") == Context("two ", None)
    assert shortest_context(idx, Place("a.md", starts[0], starts[0] + 7), "red fox", "a.md") == Context(None, " ran.")
    # one side cannot single the last one out ("one red fox" twice, "red fox sat." twice): both
    assert shortest_context(idx, Place("a.md", starts[2], starts[2] + 7), "red fox", "a.md") == \
        Context("one ", " sat.")
    assert shortest_context(index_of(a="only once here\n"), Place("a.md", 5, 9), "once") == Context()


def test_in_a_script_without_spaces_a_character_is_a_word():
    idx = index_of(ja="東京の天気は晴れ。大阪の天気は雨。\n")
    text = idx.corpus["ja.md"].text
    first, second = quote_places(text, "天気は")
    assert shortest_context(idx, Place("ja.md", first, first + 3), "天気は") == Context(None, "晴")
    assert shortest_context(idx, Place("ja.md", second, second + 3), "天気は") == Context(None, "雨")
    mixed = index_of(a="see 東京 x. see 大阪 x.\n")
    starts = quote_places(mixed.corpus["a.md"].text, "x.")
    assert shortest_context(mixed, Place("a.md", starts[1], starts[1] + 2), "x.") == Context("阪 ", None)


def test_shortest_context_is_none_when_the_text_is_the_same_to_both_edges():
    idx = index_of(a="same text\n", b="same text\n")
    assert shortest_context(idx, Place("a.md", 0, 4), "same") is None  # corpus-wide: the documents are equal
    assert shortest_context(idx, Place("a.md", 0, 4), "same", "a.md") == Context()
    with pytest.raises(ValueError):
        shortest_context(idx, Place("a.md", 1, 5), "same")
    three = index_of(a="a x. a y. a z.\n")
    places = [Place("a.md", i, i + 1) for i in (0, 5, 10)]
    assert contexts_for(three, places, "a", "a.md") == {p: Context(None, s) for p, s in zip(places, (" x.", " y.", " z."))}
    assert contexts_for(three, places, "a", "a.md", max_occurrences=2) == dict.fromkeys(places)  # too common


def test_pick_occurrence_pins_the_document_and_writes_the_context():
    idx = index_of(a="x aaa y\n", b="aa\n")
    loc = Locator(quote="aa", exact=True, prefix="stale ")
    picked = pick_occurrence(idx, loc, Place("a.md", 3, 5))
    assert picked == Locator(doc="a.md", quote="aa", exact=True, prefix="a")
    resolver = Resolver(idx.corpus, {}, None)  # type: ignore[arg-type]  # locate() needs no chunks
    assert resolver.locate(picked) == Place("a.md", 3, 5)
    assert pick_occurrence(idx, loc, Place("b.md", 0, 2)) == Locator(doc="b.md", quote="aa", exact=True)


WORDS = st.sampled_from(["a", "b", "ab", "ba", "x", "天a", "天", "x気"])
SEPARATORS = st.sampled_from([" ", " ", "\n", "  ", ". ", "\n\n"])


@st.composite
def documents_with_repeats(draw):
    words = draw(st.lists(WORDS, min_size=3, max_size=30))
    seps = draw(st.lists(SEPARATORS, min_size=len(words), max_size=len(words)))
    return "".join(w + s for w, s in zip(words, seps))


def whole_word_contexts(text: str, start: int, end: int):
    """Every whole-word prefix and suffix around ``[start, end)``, as canonical text (a word:
    a run between whitespace; in CJK, one character)."""
    def boundary(i: int) -> bool:  # between text[i - 1] and text[i]
        return i in (0, len(text)) or text[i - 1].isspace() != text[i].isspace() or \
            unicodedata.east_asian_width(text[i - 1]) in "WF" or unicodedata.east_asian_width(text[i]) in "WF"

    prefixes = [""] + [text[i:start] for i in range(start - 1, -1, -1) if not text[i].isspace() and boundary(i)]
    suffixes = [""] + [text[end:j] for j in range(end + 1, len(text) + 1)
                       if not text[j - 1].isspace() and boundary(j)]
    return prefixes, suffixes


def folded_len(s: str) -> int:
    return len(" ".join(s.split())) + (1 if s and s[0].isspace() else 0) + (1 if s and s[-1].isspace() else 0)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=st.lists(documents_with_repeats(), min_size=1, max_size=2), quote=st.sampled_from(["a", "ab", "a b", "x", "天"]),
       pinned=st.booleans(), data=st.data())
def test_shortest_context_really_resolves_uniquely_and_nothing_shorter_does(docs, quote, pinned, data):
    corpus = Corpus.from_documents([make_document(f"d{i}.md", t) for i, t in enumerate(docs)])
    idx = QuoteIndex(corpus)
    resolver = Resolver(corpus, {}, None)  # type: ignore[arg-type]
    folded = fold_quote(quote)
    occurrences = [o for occs in [idx.find_all([folded], d)[folded] for d in corpus.docs] for o in occs]
    if not occurrences:
        event("quote absent")
        return
    target = data.draw(st.sampled_from(occurrences))
    scope = target.doc_id if pinned else None
    place = Place(target.doc_id, target.start, target.end)
    ctx = shortest_context(idx, place, quote, scope)
    in_scope = [o for o in occurrences if scope is None or o.doc_id == scope]

    def counted(prefix: str, suffix: str):
        return [o for o in in_scope if oracle_context_matches(corpus[o.doc_id].text, o.start, o.end, prefix, suffix)]

    # the brute force: every whole-word context around the target, the shortest that is unique
    text = corpus[target.doc_id].text
    prefixes, suffixes = whole_word_contexts(text, target.start, target.end)
    unique = [folded_len(pr) + folded_len(su) for pr in prefixes for su in suffixes if len(counted(pr, su)) == 1]
    event("no context can" if ctx is None else "unique alone" if ctx == Context()
          else "prefix and suffix" if ctx.prefix and ctx.suffix else "one side")
    if ctx is None:
        assert not unique
        return
    assert unique and folded_len(ctx.prefix or "") + folded_len(ctx.suffix or "") == min(unique)
    for side in (ctx.prefix, ctx.suffix):
        assert side is None or side.strip()  # never a context the validator refuses
    found = resolver.locate(Locator(doc=scope, quote=quote, prefix=ctx.prefix, suffix=ctx.suffix))
    assert found == place


# -- records without an expected answer -------------------------------------------------------


def test_no_answer_is_counted_and_not_done_under_require_reviewed(tmp_path, capsys):
    from labeller.config import load_config
    from labeller.review.log import append_review, new_entry

    qs = [q("q1", {"quote": "First paragraph."}), q("q2", {"quote": "Second paragraph."}, expected_answer=" "),
          q("q3", unanswerable=True, expected_answer="")]
    root = write_project(tmp_path / "p", {"a.md": DOC_WITH_FM}, qs)
    assert main(["build", "--root", str(root)]) == 0
    out = capsys.readouterr().out
    assert "no_answer" in out
    config = load_config(root)
    questions = [Question(**rec) for rec in qs]
    assert [x.no_answer for x in questions] == [False, True, False]  # a negative has no answer by definition
    for question in questions:
        append_review(config.layout.review_log, new_entry(question, "alice", "accept"))
    assert main(["build", "--root", str(root), "--check", "--require-reviewed", "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["not_reviewed"] == {"q2": "no_answer"} and report["summary"]["no_answer"] == 1
    assert main(["build", "--root", str(root), "--check", "--require-reviewed"]) == 1
    assert "q2: reviewed, but no expected answer" in capsys.readouterr().err


def test_the_schema_shows_the_document_locator_and_context(capsys):
    assert main(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    locator = schema["$defs"]["Locator"]
    assert {"prefix", "suffix", "doc", "quote", "heading", "exact"} <= set(locator["properties"])
    assert "whole document" in locator["description"] and "whole document" in locator["properties"]["doc"]["description"]


def test_a_refused_build_prints_the_contexts_that_would_single_out_each_occurrence(tmp_path, capsys):
    qs = [q("amb", {"doc": "a.md", "quote": "Restart the service."}),
          q("miss", {"doc": "a.md", "quote": "Restart the service.", "suffix": " Reboot"})]
    root = write_project(tmp_path / "p", {"a.md": REPEATED}, qs)
    assert main(["build", "--root", str(root)]) == 1
    err = capsys.readouterr().err
    assert err.count('unique with the context: "suffix": " Wait"') == 1  # " Wait" is shorter than "cluster. "
    assert err.count('with the context: "suffix": " Then"') == 2  # once per refusal
    assert main(["build", "--root", str(root), "--format", "json"]) == 1
    errors = json.loads(capsys.readouterr().out)["errors"]
    assert [o["context"] for o in errors[0]["occurrences"]] == [{"suffix": " Then"}, {"suffix": " Wait"}]
    assert [{k: s.get(k) for k in ("quote", "prefix", "suffix")} for s in errors[1]["suggestions"]] == \
        [{"quote": "Restart the service.", "prefix": None, "suffix": suffix} for suffix in (" Then", " Wait")]


def test_a_quote_that_is_unique_alone_but_given_a_wrong_context_suggests_dropping_it(tmp_path, capsys):
    root = write_project(tmp_path / "p", {"a.md": REPEATED}, [q("w", {"quote": "Wait a minute.", "prefix": "Go. "})])
    assert main(["build", "--root", str(root)]) == 1
    assert "with the context: none (drop prefix and suffix)" in capsys.readouterr().err
    assert main(["build", "--root", str(root), "--format", "json"]) == 1
    [sug] = json.loads(capsys.readouterr().out)["errors"][0]["suggestions"]
    assert sug == {"doc": "a.md", "quote": "Wait a minute.", "where": "a.md:5:40", "unique": True}


def test_agreement_treats_a_document_label_as_any_span(make_project):
    from labeller.review.agreement import KappaTable, compare_record, resolve_pair

    p = make_project({"a.md": DOC_WITH_FM, "b.md": "# B\n\nOther.\n"})
    question = Question(id="r1", query="where?", expected_answer="x", locators=[Locator(doc="a.md")])
    rec = compare_record(p, *resolve_pair(p, question, [Locator(quote="Second paragraph.")]))
    assert not rec.exact_match and rec.chars.both == rec.chars.chars_b == len("Second paragraph.\n")
    # a.md's blocks: the heading and two paragraphs; A (the document) labels all three, B one
    assert rec.kappa == KappaTable(both=1, a_only=2, b_only=0, neither=0)
    assert compare_record(p, *resolve_pair(p, question, [Locator(doc="a.md")])).exact_match
