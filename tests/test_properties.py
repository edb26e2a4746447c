"""Property tests: any unique quote resolves to a span that contains it, inside one document."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labeller.core.corpus import Corpus, make_document
from labeller.core.chunkers.md_struct_v1 import MdStructV1
from labeller.core.models import Locator
from labeller.core.resolve import Refusal, Resolver, Span

WORDS = ["alpha", "beta", "gamma", "délta", "東京", "x", "y"]
LINES = st.one_of(
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(" ".join),
    st.sampled_from(["", "# Head", "## Sub head", "- item", "  - nested", "1. step", "| a | b |", "|---|---|",
                     "```", "> quoted", "***", "    code"]),
)
DOCS = st.lists(LINES, min_size=1, max_size=25).map(lambda ls: "\n".join(ls) + "\n")


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(DOCS, min_size=1, max_size=3), st.data())
def test_spans_contain_their_quote_and_stay_in_one_document(texts, data):
    docs = [make_document(f"d{i}.md", t) for i, t in enumerate(texts)]
    corpus = Corpus.from_documents(docs)
    chunker = MdStructV1(120)
    resolver = Resolver(corpus, {d.doc_id: chunker.chunk(d) for d in corpus}, chunker)
    doc = data.draw(st.sampled_from(docs))
    start = data.draw(st.integers(0, len(doc.text) - 1))
    end = data.draw(st.integers(start + 1, min(len(doc.text), start + 40)))
    quote = doc.text[start:end]
    if not quote.strip():
        return
    result = resolver.resolve(Locator(doc=doc.doc_id, quote=quote))
    assert isinstance(result, (Span, Refusal))
    if isinstance(result, Span):
        assert result.doc_id == doc.doc_id
        assert 0 <= result.start <= result.quote_start < result.quote_end <= result.end <= len(doc.text)
        matched = doc.text[result.quote_start:result.quote_end]
        assert matched.split() == quote.split()
        assert result.start == 0 or doc.text[result.start - 1] == "\n"
        assert result.end == len(doc.text) or doc.text[result.end - 1] == "\n"
