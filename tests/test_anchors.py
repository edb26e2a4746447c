import pytest

from labeller.core.anchors import QuoteIndex, fold_quote
from labeller.core.corpus import Corpus, make_document
from labeller.core.models import Locator
from labeller.core.resolve import Refusal, Span
from labeller.core.suggest import suggest
from labeller.errors import InvalidInput

DOC = "# T\n\nThe quick brown fox\njumps over   the lazy dog.\n\nAnother paragraph about the quick brown cat.\n"


def corpus_of(**docs):
    return Corpus.from_documents([make_document(k.replace("_", "/") + ".md", v) for k, v in docs.items()])


def test_quote_across_a_line_wrap_resolves(make_project):
    p = make_project({"a.md": DOC})
    span = p.resolver.resolve(Locator(quote="brown fox jumps over the lazy"))
    assert isinstance(span, Span)
    text = p.corpus["a.md"].text
    assert text[span.quote_start:span.quote_end] == "brown fox\njumps over   the lazy"
    assert span.block == "paragraph"
    assert text[span.start:span.end] == "The quick brown fox\njumps over   the lazy dog.\n"


def test_no_case_or_markup_folding(make_project):
    p = make_project({"a.md": "Some **bold** words here.\n"})
    assert p.resolver.resolve(Locator(quote="some")).kind == "not_found"
    assert p.resolver.resolve(Locator(quote="bold words")).kind == "not_found"
    assert isinstance(p.resolver.resolve(Locator(quote="**bold** words")), Span)


def test_occurrences_counted_overlapping():
    idx = QuoteIndex(corpus_of(a="aaa"))
    assert len(idx.find_all(["aa"])["aa"]) == 2


def test_automaton_and_find_agree():
    corpus = corpus_of(a="x aa  aa\n\n aa b", b="aab aa\ta", c_d="b  aa")
    idx = QuoteIndex(corpus)
    quotes = ["aa", "aa aa", "aa b", "b aa", "a", "aa a", "x", "ab", "b", "zz"]
    many = idx.find_all(quotes)  # >= 8 quotes: automaton path
    for qtext in quotes:
        assert idx.find_all([qtext])[qtext] == many[qtext], qtext


def test_not_found_offers_nearest_passage_but_does_not_apply_it(make_project):
    p = make_project({"a.md": DOC})
    r = suggest(p.resolver, p.resolver.resolve(Locator(quote="jumps ovr the lazy"), "q1"))
    assert isinstance(r, Refusal) and r.kind == "not_found"
    assert r.suggestions and "jumps over" in r.suggestions[0]["quote"]
    assert r.record_id == "q1"


def test_ambiguous_lists_each_occurrence_with_unique_extension(make_project):
    p = make_project({"a.md": DOC})
    r = suggest(p.resolver, p.resolver.resolve(Locator(quote="quick brown")))
    assert r.kind == "ambiguous"
    assert [(o["line"], o["col"]) for o in r.occurrences] == [(3, 5), (6, 29)]
    exts = [o["extension"] for o in r.occurrences]
    # one word either side is enough; ties go to the alphabetically first candidate
    assert exts == ["The quick brown", "the quick brown"]
    for ext in exts:
        assert isinstance(p.resolver.resolve(Locator(quote=ext)), Span)


def test_doc_scoping_makes_a_quote_unique(make_project):
    p = make_project({"a.md": "shared phrase here\n", "b.md": "shared phrase there\n"})
    assert p.resolver.resolve(Locator(quote="shared phrase")).kind == "ambiguous"
    span = p.resolver.resolve(Locator(doc="b.md", quote="shared phrase"))
    assert isinstance(span, Span) and span.doc_id == "b.md"


def test_unknown_doc_and_unsafe_doc(make_project):
    p = make_project({"a.md": DOC})
    assert p.resolver.resolve(Locator(doc="missing.md", quote="fox")).kind == "unknown_doc"
    for bad in ("../a.md", "/etc/passwd", "x/../../a.md"):
        with pytest.raises(InvalidInput) as exc:
            p.resolver.resolve(Locator(doc=bad, quote="fox"))
        assert exc.value.exit_code == 2


def test_fold_quote():
    assert fold_quote("  a\n\t b  ") == "a b"
    assert fold_quote("e\u0301 x") == "\u00e9 x"


def test_nfd_crlf_and_bom_inputs_resolve_to_the_same_spans(make_project):
    text = "# Caf\u00e9\n\nLe caf\u00e9 ouvre \u00e0 huit heures.\n\n- na\u00efve item\n"
    variants = {
        "nfc.md": text,
        "nfd_crlf_bom.md": "\ufeff" + __import__("unicodedata").normalize("NFD", text).replace("\n", "\r\n"),
        "cr.md": text.replace("\n", "\r"),
    }
    p = make_project(variants)
    spans = []
    for doc in variants:
        for quote in ("caf\u00e9 ouvre", "cafe\u0301 ouvre", "na\u00efve"):
            s = p.resolver.resolve(Locator(doc=doc, quote=quote))
            assert isinstance(s, Span), (doc, quote, s)
            spans.append((s.start, s.end, s.block, s.quote_start, s.quote_end))
    assert len(set(spans[0::3])) == len(set(spans[1::3])) == len(set(spans[2::3])) == 1
    assert spans[0] == spans[1]
