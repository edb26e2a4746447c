"""The retriever interface: anything that ranks chunk ids for a query can be scored.

A retriever returns scored chunk ids; it does not decide the final order. Every ranking is
put in trec_eval's order by ``trec_order`` (score descending, ties by id in *descending*
string order) before any metric sees it, so labeller's numbers and trec_eval's /
ir_measures' numbers agree on the same run, ties included, whichever system produced it.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter
from typing import Callable, Iterable, Protocol, runtime_checkable

Progress = Callable[[str, int, int], None]  # (stage, done, total)


@dataclass(frozen=True, slots=True)
class Hit:
    """One retrieved chunk: its id (an id of the chunking being scored) and its score."""

    chunk_id: str
    score: float


class Retriever(Protocol):
    name: str

    def describe(self) -> dict:
        """Settings that decide the ranking; they go into the eval fingerprint."""

    def retrieve(self, query_id: str, query: str, k: int) -> list[Hit]:
        """Up to ``k`` hits for one golden query (any order; see ``trec_order``)."""


@runtime_checkable
class Lexical(Protocol):
    """A retriever that matches the query's own words (BM25): it can say how much of a query
    one of its chunks holds, which the hybrid fusion reads (``fusion.coverage``)."""

    def held_share(self, query: str, chunk_id: str) -> float:
        """The share (0-1) of the query's distinct analysed terms that the chunk holds."""


@runtime_checkable
class Tokenized(Protocol):
    """A retriever that reads the query through a model's tokenizer (dense): it can say how
    much of a query it cannot read, which the hybrid fusion reads (``fusion.coverage``)."""

    def unreadable_share(self, query: str) -> float:
        """The share (0-1) of the query's non-space characters the tokenizer maps to its unknown token."""


def trec_order(hits: Iterable[Hit]) -> list[Hit]:
    """Score descending, ties by chunk id descending: how trec_eval ranks a run."""
    return sorted(sorted(hits, key=attrgetter("chunk_id"), reverse=True), key=lambda h: -h.score)


def top_k(hits: Iterable[Hit], k: int) -> list[Hit]:
    return trec_order(hits)[:k]
