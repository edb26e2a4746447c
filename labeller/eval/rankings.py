"""Each query's ranking in an eval, as ``Hit``s made only when someone reads them.

Scoring reads a ranking's chunk ids alone, and the report shows its top ``shipped_k``; a
``Hit`` per retrieved chunk (a million of them for a 20,000 x 50 run, 1.2 us each) is made
for a query only when its whole ranking is asked for (``rankings[qid]``: a written run, the
app's drill-down, a leak's ranks). A retriever that can give a ranking as columns (ids and
scores, already in ``top_k``'s order: ``RunFileRetriever.ranked_columns``) hands those in;
any other ranking is kept as the ``Hit``s it came as.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

import numpy as np

from labeller.eval.retrievers import Hit


class Rankings(Mapping[str, list[Hit]]):
    """Query id -> its ranking (trec order), in the order the queries were added."""

    def __init__(self) -> None:
        self._hits: dict[str, list[Hit] | None] = {}
        self._columns: dict[str, tuple[list[str], list[float]]] = {}
        self.ids: dict[str, list[str]] = {}  # each ranking's chunk ids: what scoring reads
        # the same ids as numbers into ``table`` (``eval.codes``), while the ranking is the one given as columns
        self.codes: dict[str, np.ndarray] = {}
        self.table: Sequence[str] = ()

    def add_hits(self, query_id: str, hits: list[Hit]) -> None:
        self._hits[query_id] = hits
        self._columns.pop(query_id, None)
        self.ids[query_id] = [h.chunk_id for h in hits]
        self.codes.pop(query_id, None)

    def add_columns(self, query_id: str, ids: list[str], scores: list[float],
                    coded: tuple[Sequence[str], np.ndarray] | None = None) -> None:
        """``coded``: the table and the ids' numbers in it (``RunFileRetriever.ranked_codes``;
        one table for every ranking)."""
        self._hits[query_id] = None
        self._columns[query_id] = ids, scores
        self.ids[query_id] = ids
        if coded is not None:
            self.table, self.codes[query_id] = coded

    def top(self, query_id: str, n: int) -> list[Hit]:
        """The first ``n`` hits (only those made)."""
        hits = self._hits[query_id]
        if hits is not None:
            return hits[:n]
        ids, scores = self._columns[query_id]
        return list(map(Hit, ids[:n], scores[:n]))

    def __getitem__(self, query_id: str) -> list[Hit]:
        hits = self._hits[query_id]
        if hits is None:
            ids, scores = self._columns.pop(query_id)
            hits = self._hits[query_id] = list(map(Hit, ids, scores))
        return hits

    def __iter__(self) -> Iterator[str]:
        return iter(self._hits)

    def __len__(self) -> int:
        return len(self._hits)

    def __contains__(self, query_id: object) -> bool:
        return query_id in self._hits

