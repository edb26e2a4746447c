"""A build's quotes not found share what their nearest-passage searches need of each chunk.

Each quote's search once re-normalised the whitespace of every chunk (``suggest.ChunkScope``
now does it once per build). The suggestions must be those of the per-quote path, byte for
byte: a build's refusals are compared with ``suggest`` asked for each bare refusal alone
(no budget, so no shared scope), on generated corpora with several quotes not found, with
and without the pre-filter.
"""

from __future__ import annotations

import json
from pathlib import Path
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labeller.config import ProjectConfig
from labeller.core import suggest
from labeller.core.build import build
from labeller.core.corpus import Corpus, make_document
from labeller.core.models import Locator, Question
from labeller.core.project import Project
from labeller.core.vocab import RefusalKind

VOCAB = ["alpha", "beta", "gamma", "delta", "restart", "the", "service", "pager", "東京", "café"]
WORD = st.sampled_from(VOCAB)
SPACE = st.sampled_from([" ", "  ", "\n", " \t", "\u3000"])  # runs the normalisation folds to one space
MISSING = "zq"  # in no document: a quote holding it is never found


@st.composite
def paragraph(draw) -> str:
    words = draw(st.lists(WORD, min_size=3, max_size=14))
    return "".join(w + draw(SPACE) for w in words).strip()


@st.composite
def case(draw):
    n_docs = draw(st.integers(1, 3))
    texts = ["# Doc\n\n" + "\n\n".join(draw(st.lists(paragraph(), min_size=1, max_size=6))) + "\n"
             for _ in range(n_docs)]
    corpus = Corpus.from_documents([make_document(f"d{i}.md", t) for i, t in enumerate(texts)])
    questions = []
    for i in range(draw(st.integers(2, 5))):
        locs = []
        for _ in range(draw(st.integers(1, 3))):
            words = draw(st.lists(WORD, min_size=1, max_size=6))
            words.insert(draw(st.integers(0, len(words))), MISSING)
            doc = draw(st.sampled_from([None, *corpus.docs]))
            locs.append(Locator(quote=" ".join(words), doc=doc))
        questions.append(Question(id=f"q{i}", query=f"query {i}?", expected_answer="", locators=locs))
    # a WORK_BUDGET of a chunk or a few: every quote takes the pre-filter's path (a chunk set of its own)
    return corpus, questions, draw(st.sampled_from([suggest.WORK_BUDGET, 150, 500]))


def project_of(corpus: Corpus) -> Project:
    """A Project over an in-memory corpus, no cache (nothing on disk)."""
    p = Project(ProjectConfig(root=Path("."), corpus=Path("corpus"), max_chars=120))
    p.__dict__["corpus"] = corpus
    return p


def as_bytes(refusals) -> list[bytes]:
    return [json.dumps(r.to_data(), sort_keys=True, ensure_ascii=False).encode() for r in refusals]


@settings(max_examples=80, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(case())
def test_a_builds_suggestions_are_those_of_each_quote_alone(data):
    corpus, questions, work_budget = data
    with mock.patch.object(suggest, "WORK_BUDGET", work_budget):
        built = build(project_of(corpus), questions).refusals
        resolver = project_of(corpus).resolver
        alone = [suggest.suggest(resolver, resolver.resolve(loc, q.id)) for q in questions for loc in q.locators]
    assert {r.kind for r in built} == {RefusalKind.NOT_FOUND}
    assert as_bytes(built) == as_bytes(alone)


def test_a_build_normalises_each_chunk_once(tmp_path, monkeypatch):
    """Several quotes not found, in the corpus and in one document: each chunk's whitespace
    is normalised at most once in the build (once per quote it was the corpus again for
    every quote)."""
    corpus = Corpus.from_documents([make_document(f"d{i}.md", "# Doc\n\n" + "\n\n".join(
        f"the  pager\n{w} restart service {i}" for w in VOCAB) + "\n") for i in range(3)])
    quotes = [f"the pager {w} {MISSING}" for w in VOCAB[:6]]
    questions = [Question(id=f"q{i}", query=f"query {i}?", expected_answer="",
                          locators=[Locator(quote=quote, doc="d1.md" if i % 2 else None)])
                 for i, quote in enumerate(quotes)]
    normalised = []
    real = suggest._WS_RUN

    class Counting:
        def sub(self, repl, text):
            normalised.append(text)
            return real.sub(repl, text)

    monkeypatch.setattr(suggest, "_WS_RUN", Counting())
    project = project_of(corpus)
    refusals = build(project, questions).refusals
    assert len(refusals) == len(quotes) and all(r.suggestions for r in refusals)
    # each chunk at most twice: once for the corpus's scope, once for its document's
    assert len(normalised) <= len(project.all_chunks) + len(project.chunks["d1.md"])
