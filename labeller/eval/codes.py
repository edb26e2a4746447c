"""A ranking's chunk ids as integer codes into a table of distinct ids.

A 20,000 x 100 run names a million ranks but at most the chunk set's 200,000 distinct ids.
Scoring asks three things of every rank — is it a chunk id, its document (judged flags,
hit ranks, documents in order), its places (character scores) — each once a dict probe of
a 200,000-key dict per rank, memory-bound. With the ranking given as numbers into a table of
its distinct ids (a run file's docids, ``RunFileRetriever.ranked_codes``), each distinct id
is looked up once here and a ranking's answers are one numpy gather each; the values are
the dicts' own (the same strings, the positions' own lists), so scoring reads the same.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import repeat

import numpy as np

from labeller.core.vocab import Place
from labeller.eval.metrics import ChunkPositions


def _objects(values: Iterable[object], n: int) -> np.ndarray:
    """``values`` as a 1-d object array (each value one cell, a list too)."""
    return np.fromiter(values, dtype=object, count=n)


class ChunkCodes:
    """The chunk set's facts about each id of ``table``, by the id's number in it."""

    def __init__(self, table: Sequence[str], pos: ChunkPositions) -> None:
        n = len(table)
        self._known = np.fromiter(map(pos.first.__contains__, table), dtype=bool, count=n)
        self._doc = _objects(map(pos.doc.get, table), n)
        self._places = _objects(map(pos.positions.get, table, repeat(())), n)

    def known(self, codes: np.ndarray) -> bool:
        """Whether every coded id is a chunk id (``pos.first``)."""
        return bool(self._known[codes].all())

    def docs(self, codes: np.ndarray) -> list[str | None]:
        """``pos.doc.get`` of each coded id, in order."""
        return self._doc[codes].tolist()

    def places(self, codes: np.ndarray) -> list[Sequence[Place]]:
        """``ChunkSet.places_of`` the coded ids: each id's positions (``()`` for an unknown id)."""
        return self._places[codes].tolist()
