"""TREC run files (``qid Q0 docid rank score tag``) as a retriever, and writing them.

This is how any external system is scored without labeller knowing it: run it over the
golden queries, write one line per retrieved chunk with ``docid`` = labeller's chunk id,
and pass the file to ``labeller eval --run``. As in trec_eval the rank column is read but
not trusted: the order is score descending, ties by docid descending (``trec_order``).
Scores are written with ``repr`` so a written run reads back to the same floats.
"""

from __future__ import annotations

import hashlib
import math
from array import array
from collections import deque
from functools import cached_property
from pathlib import Path
from typing import Callable, Collection, Mapping, NoReturn, Sequence, cast

import numpy as np

from labeller.core.chunkers import chunker_spec
from labeller.core.parallel import gc_paused
from labeller.core.project import Project
from labeller.errors import InvalidInput
from labeller.eval.chunkset import ChunkSet
from labeller.eval.retrievers.base import Hit, trec_order
from labeller.io import atomic_write_text, open_regular_file

RUN_MAX_BYTES = 256 * 1024 * 1024
BLOCK_BYTES = 1024 * 1024  # a run file is read, decoded and parsed this many bytes at a time (numpy holds ~10x a block)
# NUL, and the line breaks for ``splitlines`` and whitespace for ``split`` besides space, tab,
# CR and LF (ASCII only: non-ASCII text is not taken by columns at all).
_SUBTLE = "\x00\x0b\x0c\x1c\x1d\x1e\x1f"
# Distinct tags a run may have: the tag names the system that made the run, and every one is
# kept for the report's fingerprint (a hostile run of a new tag a line would list millions).
MAX_TAGS = 100
UNKNOWN_COUNTED = 1000  # distinct unknown docids a refusal counts; past it, "more than" (a hostile run has millions)


class Run:
    """A parsed run file, held compactly: a run at its 256 MiB bound has millions of lines,
    kept as one row of four numbers each (query, docid, score, line), the query ids and
    docids once each, so memory is a fraction of the file's size. ``hits_of`` gives one
    query's hits; ``hits`` all of them."""

    def __init__(self, queries: dict[str, int], docids: dict[str, int], first_lines: array,
                 rows: tuple[array, array, array, array], tags: set[str], sha256: str,
                 unknown: dict[str, int] | None = None, unknown_more: bool = False) -> None:
        self.docids = list(docids)  # in order of first appearance
        self.first_lines = first_lines  # the line each docid is first seen on (for errors)
        self.tags = tags
        self.unknown = unknown or {}  # docids not of the chunking (``known_docids``), with their first line
        self.unknown_more = unknown_more  # more distinct unknown docids than the UNKNOWN_COUNTED in ``unknown``
        self.sha256 = sha256
        query, docid, score, _ = (np.frombuffer(a, dtype=a.typecode) for a in rows)
        self._query, self._docid, self._score = query, docid, score
        self._queries = queries
        self._order = np.argsort(query, kind="stable")  # each query's rows together, in file order
        self._bounds = np.searchsorted(query[self._order], np.arange(len(queries) + 1))

    def __contains__(self, query_id: str) -> bool:
        return query_id in self._queries

    def hits_of(self, query_id: str) -> list[Hit]:
        i = self._queries.get(query_id)
        if i is None:
            return []
        rows = self._order[self._bounds[i]:self._bounds[i + 1]]
        docids = self.docids
        return [Hit(docids[d], s) for d, s in zip(self._docid[rows].tolist(), self._score[rows].tolist())]

    @property
    def hits(self) -> dict[str, list[Hit]]:
        return {qid: self.hits_of(qid) for qid in self._queries}

    @cached_property
    def _ranked(self) -> np.ndarray:
        """Every row in trec order within its query (score descending, ties by docid
        descending: a run's docids are distinct within a query, so the order is total), the
        queries in ``_bounds``' order: one sort for the whole run, not one per query."""
        order = sorted(range(len(self.docids)), key=self.docids.__getitem__)
        docid_rank = np.empty(len(self.docids), dtype=np.int64)
        docid_rank[order] = np.arange(len(self.docids))
        rows = self._order
        query, docid = self._query[rows].astype(np.int64), docid_rank[self._docid[rows]]
        scores, score_rank = np.unique(self._score[rows], return_inverse=True)  # ascending; -0.0 is 0.0
        n_scores, n_docids = len(scores), max(1, len(self.docids))
        if (int(query.max(initial=0)) + 1) * n_scores * n_docids < _ONE_KEY_BELOW:
            # one int64 key per row, distinct (a docid once per query): one sort, not lexsort's three
            key = (query * n_scores + (n_scores - 1 - score_rank.ravel())) * n_docids + (n_docids - 1 - docid)
            return rows[np.argsort(key)]
        return rows[np.lexsort((-docid, -self._score[rows], query))]

    def top(self, query_id: str, k: int) -> list[Hit]:
        """``top_k(hits_of(query_id), k)``, read off the run's one sort; only the k kept
        become ``Hit`` objects."""
        return list(map(Hit, *self.top_columns(query_id, k)))

    def top_columns(self, query_id: str, k: int) -> tuple[list[str], list[float]]:
        """``top``'s chunk ids and scores, no ``Hit`` made: slices of the run's ranked columns."""
        i = self._queries.get(query_id)
        if i is None or k <= 0:
            return [], []
        ids, scores, bounds = self._ranked_columns
        lo, hi = bounds[i], bounds[i + 1]
        return ids[lo:min(hi, lo + k)].tolist(), scores[lo:min(hi, lo + k)].tolist()

    def top_codes(self, query_id: str, k: int) -> np.ndarray:
        """``top_columns``' chunk ids as their numbers in ``docids`` (a slice of one array):
        what ``eval.codes.ChunkCodes`` reads a ranking's documents and places by."""
        i = self._queries.get(query_id)
        codes = self._ranked_codes
        if i is None or k <= 0:
            return codes[:0]
        lo, hi = self._ranked_columns[2][i], self._ranked_columns[2][i + 1]
        return codes[lo:min(hi, lo + k)]

    @cached_property
    def _ranked_codes(self) -> np.ndarray:
        """Every row's docid number in ``_ranked``'s order."""
        return self._docid[self._ranked]

    @cached_property
    def _ranked_columns(self) -> tuple[np.ndarray, np.ndarray, list[int]]:
        """Every row's docid (the string: an array of references) and score in ``_ranked``'s
        order, and each query's bounds, made once for the run (a query's top is then two slices)."""
        return (np.array(self.docids, dtype=object)[self._ranked_codes], self._score[self._ranked],
                self._bounds.tolist())


_ONE_KEY_BELOW = 2 ** 63  # ``Run._ranked`` sorts by one int64 key when every key fits below this


class _RunParser:
    """Parses a run's text as it comes (whole lines at a time) into ``Run``'s rows.

    Every problem is the first one in file order, as if the file had been read whole: a
    docid repeated for a query is found when all rows are in (one sort, not a set of every
    pair), so a later malformed line first reports a repeat on an earlier one.

    Only rows eval can score are kept (a hostile run of millions of distinct ids once held
    each as a Python string, 2.9 GB for 256 MiB): with ``keep_queries`` (the golden query
    ids) rows of other queries are checked, then dropped; with ``known_docids`` (the chunk
    ids) a row of another docid is dropped and its docid noted in ``unknown`` (the first
    UNKNOWN_COUNTED distinct ones, in file order), which the caller refuses. What is kept is
    at most one row per golden query and chunk, whatever the file holds. A docid repeated
    under a dropped row is not looked for."""

    def __init__(self, path: str, keep_queries: Collection[str] | None = None,
                 known_docids: Collection[str] | None = None) -> None:
        self.path = path
        self.keep_queries, self.known_docids = keep_queries, known_docids
        self._keep_sorted, self._known_sorted = _ascii_sorted(keep_queries), _ascii_sorted(known_docids)
        self._keep_keys, self._known_keys = _short_keys(self._keep_sorted), _short_keys(self._known_sorted)
        self.unknown: dict[str, int] = {}
        self.unknown_more = False
        self.lineno = 0
        self.queries: dict[str, int] = {}
        self.docids: dict[str, int] = {}
        self._sorted_queries, self._sorted_docids = _Sorted(self._keep_sorted), _Sorted(self._known_sorted)  # look-ups
        self.first_lines = array("I")
        self.rows = (array("i"), array("i"), array("d"), array("I"))  # query, docid, score, line
        self.tags: set[str] = set()

    def feed(self, text: str) -> None:
        """Whole lines: ``text`` ends at a line break (or the end of the file). A well-formed
        block is taken in one pass by columns (``_feed_columns``); anything else — a bad line,
        or a character that makes the line or field split subtle — by the line reader, which
        words the first problem exactly."""
        if not self._feed_columns(text):
            self._feed_lines(text)

    def _feed_columns(self, text: str) -> bool:
        """The block as six columns at once, from its bytes: numpy finds every field and
        counts each line's, a column's fields become one fixed-width array, and ids are
        interned by ``np.unique`` (Python sees each distinct id once, not each line). Ranks
        of digits only are checked as bytes, any other with ``int``; scores go through
        ``float``: Python's own rules, as the line reader's. Taken only for ASCII text with no
        NUL (a fixed-width array would drop a trailing one), whose line breaks are ``\\n``
        (or ``\\r\\n``) and whose whitespace is space, tab and those, so that the lines and
        fields are exactly those of ``splitlines``/``split``; and only when every line is
        well formed (else False, nothing kept: the line reader then finds the first problem)."""
        if (not text.isascii() or any(c in text for c in _SUBTLE)
                or ("\r" in text and text.count("\r") != text.count("\r\n"))):
            return False
        raw = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
        word = ~((raw == 32) | (raw == 9) | (raw == 10) | (raw == 13))
        edges = np.flatnonzero(np.diff(np.concatenate(([False], word, [False])).view(np.int8)))
        starts, ends = edges[0::2], edges[1::2]  # each field's [start, end): a field starts, then ends
        breaks = np.flatnonzero(raw == 10)
        # fields per line of the block (the last: after the last break), by a search per line, not per field
        per_line = np.diff(np.searchsorted(starts, breaks), prepend=0, append=len(starts))
        if np.any(per_line[per_line > 0] != 6):
            return False
        n = len(starts) // 6
        if n:
            padded = np.concatenate((raw, np.zeros(int((ends - starts).max()), dtype=np.uint8)))  # room for any field
            cols = [_column(padded, len(raw), starts[j::6], ends[j::6]) for j in (0, 2, 3, 4, 5)]
            if any(c is None for c in cols):
                return False
            qcol, dcol, rcol, scol, tcol = cast("list[np.ndarray]", cols)
            try:
                if not _all_digits(rcol):
                    deque(map(int, rcol.tolist()), maxlen=0)
                scores = np.fromiter(map(float, scol.tolist()), dtype=np.float64, count=n)
            except ValueError:
                return False
            if not np.isfinite(scores).all():
                return False
            lines = (np.flatnonzero(per_line) + (self.lineno + 1)).astype(np.uint32)  # each row's line
            tags = {t.decode("ascii") for t in np.unique(tcol).tolist()}
            if len(self.tags | tags) > MAX_TAGS:
                return False  # the line reader finds the line of the first tag too many
            self.tags |= tags
            kept, q_at, d_at = self._kept_columns(qcol, dcol, lines)
            if kept is not None:
                qcol, dcol, scores, lines = qcol[kept], dcol[kept], scores[kept], lines[kept]
                q_at, d_at = (None if at is None else at[kept] for at in (q_at, d_at))
            q_codes = self._sorted_queries.intern(qcol, self.queries, lambda rows: None, q_at)
            d_codes = self._sorted_docids.intern(dcol, self.docids,
                                                 lambda rows: self.first_lines.extend(lines[rows].tolist()), d_at)
            q_rows, d_rows, s_rows, l_rows = self.rows
            q_rows.frombytes(q_codes.tobytes())
            d_rows.frombytes(d_codes.tobytes())
            s_rows.frombytes(scores.tobytes())
            l_rows.frombytes(lines.tobytes())
        self.lineno += len(breaks) + (1 if text and not text.endswith("\n") else 0)
        return True

    def _kept_columns(self, qcol: np.ndarray, dcol: np.ndarray, lines: np.ndarray
                      ) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
        """Which rows of a block to keep (None: all): those of a kept query and a known
        docid, the unknown docids noted in file order, as ``_feed_lines`` does line by line.
        With them, where each query id and docid stands in the sorted kept or known ids
        (None where there are none): a kept row's id is that one, so interning it needs no
        second search (``_Sorted.intern``)."""
        if self._keep_sorted is None and self._known_sorted is None:
            return None, None, None
        kept = np.ones(len(qcol), dtype=bool)
        q_at = d_at = None
        if self._known_sorted is not None:
            kept, d_at = _member(dcol, self._known_sorted, self._known_keys)
            stray = np.flatnonzero(~kept)
            if len(stray) and not self.unknown_more:
                _, first = np.unique(dcol[stray], return_index=True)
                for at in np.sort(first).tolist():  # in file order
                    self._note_unknown(dcol[stray[at]].decode("ascii"), int(lines[stray[at]]))
        if self._keep_sorted is not None:
            member, q_at = _member(qcol, self._keep_sorted, self._keep_keys)
            kept &= member
        return kept, q_at, d_at

    def _note_unknown(self, docid: str, line: int) -> None:
        if docid in self.unknown or self.unknown_more:
            return
        if len(self.unknown) == UNKNOWN_COUNTED:
            self.unknown_more = True
        else:
            self.unknown[docid] = line

    def _feed_lines(self, text: str) -> None:
        """The reference reader, line by line: what ``_feed_columns`` must equal."""
        queries, docids, tags = self.queries, self.docids, self.tags
        q_rows, d_rows, s_rows, l_rows = self.rows
        lineno = self.lineno
        for lineno, line in enumerate(text.splitlines(), lineno + 1):
            parts = line.split()
            if not parts:
                continue
            if len(parts) != 6:
                self._refuse(f"expected 6 fields 'qid Q0 docid rank score tag', found {len(parts)}", lineno)
            qid, _, docid, rank, score, tag = parts
            try:
                int(rank)
                value = float(score)
            except ValueError:
                self._refuse(f"rank {rank!r} must be an integer and score {score!r} a number", lineno)
            if not math.isfinite(value):
                self._refuse(f"score {score!r} is not a finite number", lineno)
            if tag not in tags:
                if len(tags) == MAX_TAGS:
                    self._refuse(f"more than {MAX_TAGS} distinct tags (the last column, the run's name): "
                                 f"{tag!r} is one too many", lineno)
                tags.add(tag)
            if self.known_docids is not None and docid not in self.known_docids:
                self._note_unknown(docid, lineno)
                continue
            if self.keep_queries is not None and qid not in self.keep_queries:
                continue
            q = queries.setdefault(qid, len(queries))
            d = docids.get(docid)
            if d is None:
                d = docids[docid] = len(docids)
                self.first_lines.append(lineno)
            q_rows.append(q)
            d_rows.append(d)
            s_rows.append(value)
            l_rows.append(lineno)
        self.lineno = lineno

    def _refuse(self, message: str, line: int) -> NoReturn:
        self._check_repeats()  # a repeat on an earlier line is the first problem
        raise InvalidInput(message, path=self.path, line=line)

    def _check_repeats(self) -> None:
        query, docid, _, lines = (np.frombuffer(a, dtype=a.typecode) for a in self.rows)
        pairs = query.astype(np.int64) * max(1, len(self.docids)) + docid
        order = np.argsort(pairs, kind="stable")  # a pair's rows in file order
        ordered = pairs[order]
        again = order[1:][ordered[1:] == ordered[:-1]]
        if len(again):
            row = int(again[np.argmin(lines[again])])
            qid, doc = list(self.queries)[query[row]], list(self.docids)[docid[row]]
            raise InvalidInput(f"docid {doc!r} appears twice for query {qid!r}", path=self.path,
                               line=int(lines[row]))

    def finish(self, sha256: str) -> Run:
        self._check_repeats()
        return Run(self.queries, self.docids, self.first_lines, self.rows, self.tags, sha256, self.unknown,
                   self.unknown_more)


def _ascii_sorted(ids: Collection[str] | None) -> np.ndarray | None:
    """``ids`` the column reader can meet (ASCII, no NUL) as a sorted bytes array, for
    ``_member``; None for None."""
    if ids is None:
        return None
    return np.sort(np.array([i.encode("ascii") for i in ids if i.isascii() and "\x00" not in i] or [b""],
                            dtype=bytes))


def _member(col: np.ndarray, ids: np.ndarray, keys: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Whether each field of ``col`` is one of the sorted ``ids`` (at once, no Python per row),
    and where in ``ids`` it is (for a member: ``ids[at] == field``). ``keys``: ``ids`` as
    ``_short_keys``; with fields of at most 8 bytes too, the search compares integers (a
    fifth of the time of comparing bytes), finding the same places."""
    mine = _short_keys(col) if keys is not None else None
    if keys is None or mine is None:
        at = np.minimum(np.searchsorted(ids, col), len(ids) - 1)
        return ids[at] == col, at
    at = np.minimum(np.searchsorted(keys, mine), len(ids) - 1)
    return keys[at] == mine, at


def _short_keys(ids: np.ndarray | None) -> np.ndarray | None:
    """Fixed-width ids of at most 8 bytes as integers: each id's bytes, NUL-padded to 8, read
    big-endian. An id holds no NUL (the column reader refuses a block with one, ``_ascii_sorted``
    leaves such ids out), so two keys are equal, or ordered, as their ids' bytes are (a
    fixed-width bytes array compares NUL-padded too). None for wider ids, or None."""
    if ids is None or ids.dtype.itemsize > 8:
        return None
    width = ids.dtype.itemsize
    cells = np.zeros((len(ids), 8), dtype=np.uint8)
    cells[:, :width] = np.ascontiguousarray(ids).view(np.uint8).reshape(len(ids), width)
    return cells.view(">u8").ravel().astype(np.uint64)


def _column(padded: np.ndarray, size: int, starts: np.ndarray, ends: np.ndarray) -> np.ndarray | None:
    """The fields ``padded[starts[i]:ends[i]]`` as one fixed-width bytes array (``S<widest>``);
    None when that array would be more than 4 times the block (``size`` bytes, then zeros at
    least as long as its longest field: one very long field)."""
    lens = ends - starts
    width = int(lens.max())
    if len(starts) * width > 4 * size + 4096:
        return None
    cells = np.lib.stride_tricks.sliding_window_view(padded, width)[starts]  # a copy, one row per field
    cells *= np.arange(width) < lens[:, None]  # the bytes past each field zeroed: S pads with NUL
    return cells.view(f"S{width}").ravel()


def _all_digits(col: np.ndarray) -> bool:
    """Every field of ``col`` ASCII digits only (NUL is padding: the block has none)."""
    cells = col.view(np.uint8)
    return bool((((cells >= 48) & (cells <= 57)) | (cells == 0)).all())


class _Sorted:
    """The ids of a table (``_RunParser.queries``/``docids``) as a sorted bytes array with
    their numbers, so that a block's ids are looked up at once (``searchsorted``) and Python
    sees only the new ones. Ids the line reader added are taken in before each look-up, but
    only those the column reader can meet (ASCII, no NUL): ``a\\x00`` as fixed-width bytes
    would read as ``a``."""

    def __init__(self, ref: np.ndarray | None = None) -> None:
        self.ids = np.array([], dtype="S1")
        self.codes = np.array([], dtype=np.int32)
        self.synced = 0  # how many of the table's ids were looked at
        # The sorted ids every interned id is one of (the kept queries, the known docids), when
        # the reader has them, and each one's number (-1: not met yet): ``intern``'s ``at``.
        self.ref = ref
        self.ref_codes = np.full(0 if ref is None else len(ref), -1, dtype=np.int32)

    def intern(self, col: np.ndarray, table: dict[str, int], new: Callable[[np.ndarray], None],
               at: np.ndarray | None = None) -> np.ndarray:
        """Each field's number in ``table`` (ids numbered in order of first appearance, as the
        line reader numbers them); ``new(rows)`` is told the first row of each id not seen
        before, in that order (the ids are numbered and told all at once: no Python step per id).
        ``at``: each field's place in ``ref`` (``ref[at] == col``), so that ids are told apart
        by integers, with no search of their bytes."""
        if at is not None and self.ref is not None:
            return self._intern_at(at, table, new)
        if self.synced != len(table):
            added = [(k, c) for k, c in list(table.items())[self.synced:] if k.isascii() and "\x00" not in k]
            self._add(np.array([k.encode("ascii") for k, _ in added], dtype=bytes),
                      np.array([c for _, c in added], dtype=np.int32))
            self.synced = len(table)
        distinct, first, inverse = np.unique(col, return_index=True, return_inverse=True)
        codes = np.full(len(distinct), -1, dtype=np.int32)
        if len(self.ids):
            at = np.minimum(np.searchsorted(self.ids, distinct), len(self.ids) - 1)
            known = self.ids[at] == distinct
            codes[known] = self.codes[at[known]]
        fresh = np.flatnonzero(codes < 0)
        fresh = fresh[np.argsort(first[fresh], kind="stable")]  # in order of first appearance
        codes[fresh] = _number(table, distinct[fresh])
        new(first[fresh])
        self._add(distinct[fresh], codes[fresh])
        self.synced = len(table)
        return codes[inverse.ravel()]

    def _intern_at(self, at: np.ndarray, table: dict[str, int], new: Callable[[np.ndarray], None]) -> np.ndarray:
        """``intern`` by places in ``ref``: the same numbers, read off ``ref_codes`` by place;
        only the rows of ids met for the first time are sorted (an integer ``unique``)."""
        ref = cast(np.ndarray, self.ref)
        if self.synced != len(table):  # ids the line reader numbered: each is one of ``ref`` (it keeps no other)
            added = [(k.encode("ascii"), c) for k, c in list(table.items())[self.synced:]
                     if k.isascii() and "\x00" not in k]
            if added:
                keys = np.array([k for k, _ in added], dtype=bytes)
                where = np.minimum(np.searchsorted(ref, keys), len(ref) - 1)
                held = ref[where] == keys
                self.ref_codes[where[held]] = np.array([c for _, c in added], dtype=np.int32)[held]
            self.synced = len(table)
        codes = self.ref_codes[at]
        unmet = np.flatnonzero(codes < 0)  # rows of ids not numbered yet: only those are sorted
        if len(unmet):
            distinct, first = np.unique(at[unmet], return_index=True)
            places = distinct[np.argsort(first, kind="stable")]  # in order of first appearance
            self.ref_codes[places] = _number(table, ref[places])
            new(unmet[np.sort(first)])
            codes = self.ref_codes[at]
        self.synced = len(table)
        return codes

    def _add(self, ids: np.ndarray, codes: np.ndarray) -> None:
        """Take in ids not yet held: sorted among themselves, then inserted where they belong
        (one linear merge; re-sorting the whole table each block was most of this reader's sort time)."""
        if len(ids):
            order = np.argsort(ids)
            ids, codes = ids[order], codes[order]
            held = self.ids.astype(np.promote_types(self.ids.dtype, ids.dtype))  # a wider id widens the table
            at = np.searchsorted(held, ids)
            self.ids, self.codes = np.insert(held, at, ids), np.insert(self.codes, at, codes)


def _number(table: dict[str, int], ids: np.ndarray) -> np.ndarray:
    """Number ``ids`` (bytes, ASCII, none in ``table``) after those of ``table``, in order, and
    add them to it; their numbers."""
    numbers = np.arange(len(table), len(table) + len(ids), dtype=np.int32)
    table.update(zip(map(bytes.decode, ids.tolist()), numbers.tolist()))
    return numbers


def parse_run(text: str, path: str = "run") -> Run:
    parser = _RunParser(path)
    parser.feed(text)
    return parser.finish(hashlib.sha256(text.encode("utf-8")).hexdigest())


def read_run(path: Path, max_bytes: int = RUN_MAX_BYTES, keep_queries: Collection[str] | None = None,
             known_docids: Collection[str] | None = None) -> Run:
    """Read a run file a block at a time (it may be 256 MiB: never whole in memory as text);
    the problems reported, and their order, are those of reading it whole. ``keep_queries``
    and ``known_docids`` keep only the rows eval can score (``_RunParser``)."""
    where = str(path)
    parser = _RunParser(where, keep_queries, known_docids)
    digest = hashlib.sha256()
    problem: InvalidInput | None = None  # a malformed line: reported unless the file is not UTF-8
    offset = size = 0  # of ``pending`` in the file; bytes read
    pending = bytearray()  # read, not parsed: up to the last line break
    with open_regular_file(Path(path), max_bytes=max_bytes, what="run file") as fh:
        while True:
            block = fh.read(BLOCK_BYTES)
            size += len(block)
            if size > max_bytes:
                raise InvalidInput(f"run file grew past the bound of {max_bytes} bytes", path=where)
            digest.update(block)
            pending += block
            cut = pending.rfind(b"\n") + 1 if block else len(pending)  # whole lines; all at the end
            try:
                text = pending[:cut].decode("utf-8")  # a line break is never inside a UTF-8 sequence
            except UnicodeDecodeError as exc:
                raise InvalidInput(f"not valid UTF-8 at byte {offset + exc.start}", path=where) from None
            if problem is None:
                try:
                    parser.feed(text)
                except InvalidInput as exc:
                    problem = exc
            offset += cut
            del pending[:cut]
            if not block:
                break
    if problem is not None:
        raise problem
    return parser.finish(digest.hexdigest())


def format_run(results: Mapping[str, list[Hit]], tag: str) -> str:
    """Queries in the given order; each query's hits in trec_eval order with ranks 1..n."""
    for name, value in (("tag", tag), *(("query id", q) for q in results)):
        if not value or any(ch.isspace() for ch in value):
            raise InvalidInput(f"{name} {value!r} cannot be written to a TREC run (empty or contains whitespace)")
    lines = [f"{qid} Q0 {h.chunk_id} {rank} {h.score!r} {tag}\n"
             for qid, hits in results.items() for rank, h in enumerate(trec_order(hits), 1)]
    return "".join(lines)


def write_run(path: Path, results: Mapping[str, list[Hit]], tag: str) -> None:
    atomic_write_text(Path(path), format_run(results, tag))


class RunFileRetriever:
    """Replays a run file; a golden query missing from it retrieves nothing (scored as misses)."""

    name = "run"

    def __init__(self, path: Path, run: Run) -> None:
        self.path = Path(path)
        self.run = run

    @classmethod
    @gc_paused()
    def for_project(cls, project: Project, path: Path | str, chunks: ChunkSet | None = None) -> "RunFileRetriever":
        """Read the run and refuse docids that are not chunk ids of the chunking scored (the
        project's chunks, or ``chunks``, a foreign ``ChunkSet``): they mean the run was made
        over another chunking or corpus, and would silently score 0. The cycle collector is
        paused (``gc_paused``): the golden ids' records and the run's ids make no cycles, and
        its full passes would walk the chunk set loaded before."""
        foreign = chunks if chunks is not None and chunks.foreign else None
        known = foreign.positions.first if foreign is not None else {c.chunk_id for c in project.all_chunks}
        golden = {q.id for q in project.load_questions().questions}  # only their rows are scored
        run = read_run(Path(path), keep_queries=golden, known_docids=known)
        if run.unknown:
            docid, line = next(iter(run.unknown.items()))  # the first in file order
            where = (foreign.label if foreign is not None else
                     f"this corpus under {chunker_spec(project.chunker)}")
            count = f"more than {UNKNOWN_COUNTED}" if run.unknown_more else str(len(run.unknown))
            raise InvalidInput(f"docid {docid!r} is not a chunk id of {where}; {count} unknown docid(s) in "
                               "all. The run must use chunk ids of the same corpus and chunking.",
                               path=str(path), line=line)
        return cls(Path(path), run)

    def describe(self) -> dict:
        return {"name": self.name, "file": self.path.name, "sha256": self.run.sha256, "tags": sorted(self.run.tags)}

    def retrieve(self, query_id: str, query: str, k: int) -> list[Hit]:
        return self.run.top(query_id, k)

    def ranked_columns(self, query_id: str, query: str, k: int) -> tuple[list[str], list[float]]:
        """``retrieve``'s ranking as its ids and scores, already in ``top_k``'s order (eval
        neither sorts it again nor makes a ``Hit`` per row: ``eval.rankings``)."""
        return self.run.top_columns(query_id, k)

    def ranked_codes(self, query_id: str, query: str, k: int) -> tuple[Sequence[str], np.ndarray]:
        """``ranked_columns``' ids as numbers into a table of the run's distinct ids (the
        table, the numbers): eval looks each distinct id up in the chunk set once
        (``eval.codes``), not each of a million ranks."""
        return self.run.docids, self.run.top_codes(query_id, k)

    def missing(self, query_ids: list[str]) -> list[str]:
        return [q for q in query_ids if q not in self.run]
