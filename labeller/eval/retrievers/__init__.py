"""The retriever interface: anything that ranks chunk ids for a query can be scored.

A retriever returns scored chunk ids; it does not decide the final order. Every ranking is
put in trec_eval's order by ``trec_order`` (score descending, ties by id in *descending*
string order) before any metric sees it, so labeller's numbers and trec_eval's /
ir_measures' numbers agree on the same run, ties included, whichever system produced it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Protocol

from labeller.errors import InvalidInput

Progress = Callable[[str, int, int], None]  # (stage, done, total)


@dataclass(frozen=True, slots=True)
class Hit:
    """One retrieved chunk: its id (the chunker's content-addressed id) and its score."""

    chunk_id: str
    score: float


class Retriever(Protocol):
    name: str

    def describe(self) -> dict:
        """Settings that decide the ranking; they go into the eval fingerprint."""

    def retrieve(self, query_id: str, query: str, k: int) -> list[Hit]:
        """Up to ``k`` hits for one golden query (any order; see ``trec_order``)."""


def trec_order(hits: Iterable[Hit]) -> list[Hit]:
    """Score descending, ties by chunk id descending: how trec_eval ranks a run."""
    return sorted(sorted(hits, key=lambda h: h.chunk_id, reverse=True), key=lambda h: -h.score)


def top_k(hits: Iterable[Hit], k: int) -> list[Hit]:
    return trec_order(hits)[:k]


# name -> factory(project, **options) -> Retriever. Other systems register themselves here
# (``register_retriever("mine", factory)``) and are then run with ``run_eval(retriever=...)``.
_REGISTRY: dict[str, Callable[..., Retriever]] = {}


def register_retriever(name: str, factory: Callable[..., Retriever]) -> None:
    _REGISTRY[name] = factory


def make_retriever(name: str, project, **options) -> Retriever:
    factory = _REGISTRY.get(name) or _builtin(name)
    if factory is None:
        known = sorted({"bm25", "run", *_REGISTRY})
        raise InvalidInput(f"unknown retriever {name!r}; known: {', '.join(known)}")
    return factory(project, **options)


def _builtin(name: str) -> Callable[..., Retriever] | None:
    """The shipped retrievers, imported on first use (they import this module)."""
    if name == "bm25":
        from labeller.eval.retrievers.bm25 import BM25Retriever

        return BM25Retriever.for_project
    if name == "run":
        from labeller.eval.retrievers.run_file import RunFileRetriever

        return RunFileRetriever.for_project
    return None
