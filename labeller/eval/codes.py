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

from collections.abc import Collection, Iterable, Sequence
from functools import cached_property
from itertools import repeat
from operator import itemgetter

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
        self._unique = len(set(table)) == n  # distinct codes name distinct ids
        self._table, self._spread = table, pos.spread
        self._doc_index: dict[str, int] = {}  # each document met, numbered (``_doc_codes``)

    def known(self, codes: np.ndarray) -> bool:
        """Whether every coded id is a chunk id (``pos.first``)."""
        return bool(self._known[codes].all())

    def docs(self, codes: np.ndarray) -> list[str | None]:
        """``pos.doc.get`` of each coded id, in order."""
        return self._doc[codes].tolist()

    def places(self, codes: np.ndarray) -> list[Sequence[Place]]:
        """``ChunkSet.places_of`` the coded ids: each id's positions (``()`` for an unknown id)."""
        return self._places[codes].tolist()

    def sweep(self, codes: np.ndarray, docs: Collection[str]) -> tuple[list[int], list[int]] | None:
        """What ``chars.score_chars`` sweeps a ranking by (its ``sweep_of``): the characters of
        each rank's places and the ranks whose chunk lies in one of ``docs`` — when no place can
        repeat in the ranking (the codes distinct, naming distinct ids, no id with an empty
        place or one place twice: over a chunking whose chunks share no character, no two
        ranks then share a place) and no ranked id is in two documents. None otherwise."""
        listed = codes.tolist()
        if not self._unique or not self._sweepable[codes].all() or len(set(listed)) != len(listed):
            return None
        doc = self._doc_codes[codes]
        near = np.zeros(len(listed), dtype=bool)
        for d in docs:  # (a question's few answer documents)
            at = self._doc_index.get(d)
            if at is not None:
                near |= doc == at
        return self._chars[codes].tolist(), np.flatnonzero(near).tolist()

    @cached_property
    def _sweepable(self) -> np.ndarray:
        """Ids ``sweep`` takes: no empty or repeated place, in at most one document."""
        return (self._chars >= 0) & (self._doc_codes != _SPREAD)

    @cached_property
    def _doc_codes(self) -> np.ndarray:
        """Each id's document as a number (``_doc_index``), _SPREAD for an id in several documents, _NONE for none."""
        spread = self._spread
        codes = [_NONE if d is None else _SPREAD if t in spread else self._doc_index.setdefault(d, len(self._doc_index))
                 for t, d in zip(self._table, self._doc.tolist())]
        return np.array(codes, dtype=np.int64)

    @cached_property
    def _chars(self) -> np.ndarray:
        """Each id's characters (the sum of its places' lengths; 0 for no place), or -1 when
        one of its places is empty or repeated. One place an id (nearly every id) by C passes."""
        counts = np.fromiter(map(len, self._places), dtype=np.int64, count=len(self._places))
        out = np.zeros(len(counts), dtype=np.int64)
        one = np.flatnonzero(counts == 1)
        if len(one):
            first = list(map(_FIRST, self._places[one].tolist()))
            lengths = (np.fromiter(map(_END, first), dtype=np.int64, count=len(one))
                       - np.fromiter(map(_START, first), dtype=np.int64, count=len(one)))
            out[one] = np.where(lengths > 0, lengths, -1)
        for i in np.flatnonzero(counts > 1).tolist():
            places = self._places[i]
            clean = len(set(places)) == len(places) and all(p.end > p.start for p in places)
            out[i] = sum(p.end - p.start for p in places) if clean else -1
        return out


_FIRST, _START, _END = itemgetter(0), itemgetter(1), itemgetter(2)
_SPREAD, _NONE = -1, -2  # ``_doc_codes`` of an id in several documents, and in none
