"""run_eval with a plugged-in retriever: the interface other systems implement."""

from __future__ import annotations

import pytest

from labeller.errors import InvalidInput
from labeller.eval import retrievers
from labeller.eval.retrievers import Hit, make_retriever, register_retriever
from labeller.eval.runner import run_eval

DOCS = {"a.md": "# A\n\nalpha facts here\n", "b.md": "# B\n\nbeta facts here\n"}
QUESTIONS = [{"id": "qa", "query": "alpha", "expected_answer": "", "locators": [{"doc": "a.md", "quote": "alpha"}]},
             {"id": "qb", "query": "beta", "expected_answer": "", "locators": [{"doc": "b.md", "quote": "beta"}]}]


class Reversed:
    """Ranks every chunk in reverse corpus order, whatever the query."""

    name = "reversed"

    def __init__(self, project, bogus: bool = False) -> None:
        self.ids = [c.chunk_id for c in reversed(project.all_chunks)] + (["no-such-chunk"] if bogus else [])

    def describe(self) -> dict:
        return {"name": self.name}

    def retrieve(self, query_id: str, query: str, k: int) -> list[Hit]:
        return [Hit(cid, float(len(self.ids) - i)) for i, cid in enumerate(self.ids)][:k]


def test_a_registered_retriever_is_scored_like_any_other(make_project, monkeypatch):
    monkeypatch.setattr(retrievers, "REGISTRY", dict(retrievers.REGISTRY))  # leave the process-wide registry as it was
    project = make_project(DOCS, QUESTIONS)
    register_retriever("reversed", Reversed)
    result = run_eval(project, retriever=make_retriever("reversed", project))
    rows = {q["query_id"]: q for q in result.report["queries"]}
    assert rows["qb"]["hit_ranks"] == [1] and rows["qa"]["hit_ranks"] == [2]
    assert result.report["fingerprint"]["retriever"] == {"name": "reversed"}


def test_a_retriever_returning_unknown_ids_is_refused(make_project):
    project = make_project(DOCS, QUESTIONS)
    with pytest.raises(InvalidInput, match="'no-such-chunk' for query 'qa'"):
        run_eval(project, retriever=Reversed(project, bogus=True))


def test_unknown_retriever_names_the_known_ones(make_project):
    with pytest.raises(InvalidInput, match="unknown retriever 'colbert'; known: .*bm25.*run"):
        make_retriever("colbert", make_project(DOCS, QUESTIONS))


def test_the_garbage_collector_is_paused_while_scoring_and_back_on_after_even_on_error(make_project):
    """Scoring makes millions of acyclic objects: the collector's passes are held off during
    run_eval, and the process gets its collector back however the eval ends."""
    import gc

    seen = []

    class Watching(Reversed):
        def retrieve(self, query_id, query, k):
            seen.append(gc.isenabled())
            return super().retrieve(query_id, query, k)

    project = make_project(DOCS, QUESTIONS)
    assert gc.isenabled()
    run_eval(project, retriever=Watching(project))
    with pytest.raises(InvalidInput):
        run_eval(project, retriever=Watching(project, bogus=True))
    assert seen and not any(seen) and gc.isenabled()
