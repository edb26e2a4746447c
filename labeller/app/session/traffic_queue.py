"""The traffic queue as the app labels it (SPEC §14, docs/traffic.md "Labelling a queue in the app").

A queue file (``labeller traffic sample --out``) holds sampled, redacted queries. Labelling one
makes a draft question of the authoring session, with the query and the item's provenance (a
``TrafficProvenance``: stratum, inclusion probability, frequency, salted log hash, tenant) and
its split; the author anchors it as any other, or marks it unanswerable (a negative record).
An item that is neither (out of scope, unclear) gets a ``verdict`` in the queue file itself,
written atomically, and nothing in the golden set.

Which item a draft came from is read from the drafts themselves (same log hash and stratum),
never kept beside them: undo, a deleted draft or a restored journal change it without this
model being told. ``states`` says where every item stands (open, a verdict, or its record's
status), for the list and its counts; ``next_to_do`` is the item the list goes on to once one
is done. The model holds no UI; the app's traffic screen shows it.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from labeller.app.session.statuses import STATUS_PENDING, STATUS_RESOLVED, STATUS_UNANSWERABLE
from labeller.core.models import TrafficProvenance
from labeller.core.passages import Passage, PassageLocator, Placement
from labeller.core.vocab import Place
from labeller.errors import InvalidInput
from labeller.io import refuse_symlink_components
from labeller.traffic.queue import QueueItem, read_queue, write_queue
from labeller.traffic.redact import Redactor

if TYPE_CHECKING:
    from labeller.app.session.drafts import Draft
    from labeller.app.session.session import AuthoringSession
    from labeller.core.corpus import Corpus

DEFAULT_QUEUE = Path("golden") / "traffic-queue.jsonl"  # where `labeller traffic sample` is shown writing it
VERDICTS = {"out_of_scope": "out of scope", "unclear": "unclear"}
OPEN = "open"
NEGATIVE = "negative"  # an unanswerable record's state: the corpus does not answer the query
DONE = frozenset({STATUS_RESOLVED, NEGATIVE, *VERDICTS.values()})
LABELLED, IN_PROGRESS, RESOLVING = "labelled", "in progress", "resolving"
KINDS = (LABELLED, IN_PROGRESS, RESOLVING, OPEN, *VERDICTS.values())  # what the screen counts, in this order


@dataclass(frozen=True)
class ItemState:
    """Where one item stands: ``open``, a verdict's words, or the record made from it and that
    record's status (``resolved``, ``negative``, ``incomplete``, ``not found``, …)."""

    item: QueueItem
    record: str | None  # the draft made from it
    state: str
    unsaved: bool  # its record has changes not yet in questions.jsonl

    @property
    def done(self) -> bool:
        """Nothing left to do here: an anchored or negative record, or a verdict."""
        return self.state in DONE

    @property
    def label(self) -> str:
        """The list's status cell: ``hb-093 resolved``, ``hb-095 negative``, ``open``."""
        return self.state if self.record is None else f"{self.record} {self.state}"

    @property
    def kind(self) -> str:
        """The summary's count it adds to (a record not resolved yet, as while the corpus is
        read at start, is neither labelled nor in progress)."""
        if self.record is None:
            return self.state
        if self.state == STATUS_PENDING:
            return RESOLVING
        return LABELLED if self.done else IN_PROGRESS


@dataclass(frozen=True)
class PlacedPassage:
    """One of the pipeline's retrieved passages of an item, placed in the corpus (or why not)."""

    rank: int  # 1-based, in the pipeline's order
    id: str | None
    score: float | None
    place: Place | None
    line: int | None  # the place's first line in its document, 1-based as the editor shows it
    how: str  # the locator's tier, or why the passage has no place


def provenance(item: QueueItem) -> TrafficProvenance:
    return TrafficProvenance(stratum=item.stratum, pi=item.pi, frequency=item.frequency, log_hash=item.log_hash,
                             tenant=item.tenant)


def _hash_and_stratum(traffic: object) -> tuple[str, str] | None:
    """A draft's provenance (a model, or its JSON from a journal) as the pair an item is found by."""
    if isinstance(traffic, TrafficProvenance):
        return traffic.log_hash, traffic.stratum
    if isinstance(traffic, dict) and isinstance(traffic.get("log_hash"), str) and isinstance(
            traffic.get("stratum"), str):
        return traffic["log_hash"], traffic["stratum"]
    return None


class TrafficQueue:
    """The items of one queue file, their verdicts, and the drafts made from them."""

    def __init__(self, path: Path, items: list[QueueItem]) -> None:
        self.path = path
        self.items = items
        self._placed: dict[str, list[PlacedPassage]] = {}
        self._locator: PassageLocator | None = None

    @classmethod
    def open(cls, path: Path) -> "TrafficQueue":
        """Read and check a queue file; its texts are redacted again (a file made elsewhere is
        not trusted to have been, and what is labelled here reaches the golden set)."""
        refuse_symlink_components(path)
        return cls(path, read_queue(path, Redactor()))

    def item(self, item_id: str) -> QueueItem:
        found = next((it for it in self.items if it.id == item_id), None)
        if found is None:
            raise KeyError(item_id)
        return found

    # -- which draft came from which item -----------------------------------------------------

    def records(self, drafts: Mapping[str, "Draft"]) -> dict[str, str]:
        """Item id → the id of the draft made from it (the first, in the drafts' order)."""
        by_key = {(it.log_hash, it.stratum): it.id for it in self.items}
        out: dict[str, str] = {}
        for rid, d in drafts.items():
            key = _hash_and_stratum(d.traffic)
            if key in by_key:
                out.setdefault(by_key[key], rid)
        return out

    def states(self, session: "AuthoringSession") -> list["ItemState"]:
        """Where every item stands, in the queue's order (the list and its counts draw these)."""
        records = self.records(session.drafts)
        out = []
        for it in self.items:
            rid = records.get(it.id)
            if rid is None:
                out.append(ItemState(it, None, VERDICTS[it.verdict] if it.verdict else OPEN, False))
                continue
            status = session.status(rid)[0]
            out.append(ItemState(it, rid, NEGATIVE if status == STATUS_UNANSWERABLE else status,
                                 session.is_dirty(rid)))
        return out

    def state(self, item_id: str, session: "AuthoringSession") -> "ItemState":
        return next(s for s in self.states(session) if s.item.id == item_id)

    def next_to_do(self, after: str, session: "AuthoringSession") -> str | None:
        """The first item after ``after`` (round to the start) with something left to do, or
        None when every item is done: where the list goes once an item is labelled."""
        states = self.states(session)
        at = next(i for i, s in enumerate(states) if s.item.id == after)
        return next((s.item.id for s in states[at + 1:] + states[:at] if not s.done), None)

    # -- labelling ----------------------------------------------------------------------------

    def take(self, item_id: str, session: "AuthoringSession") -> str:
        """The draft of this item: the one made before, or a new one with the item's query,
        split and provenance. An item with a verdict is refused (clear it first)."""
        item = self.item(item_id)
        rid = self.records(session.drafts).get(item_id)
        if rid is not None:
            return rid
        if item.verdict is not None:
            raise InvalidInput(f"item {item_id} is marked {VERDICTS[item.verdict]}: clear that first",
                               path=str(self.path), record_id=item_id)
        with session.history.step():  # one undo step takes the whole draft away
            rid = session.new_record()
            session.update(rid, coalesce=False, query=item.query, split=item.split, traffic=provenance(item))
        return rid

    def mark_unanswerable(self, item_id: str, session: "AuthoringSession") -> str:
        """The item's draft made a negative record (no locators): the query has no answer in the
        corpus. One undo step, with the draft's making when it is new."""
        with session.history.step():
            rid = self.take(item_id, session)
            session.update(rid, coalesce=False, unanswerable=True, locators=(), expected_answer="")
        return rid

    def set_verdict(self, item_id: str, verdict: str | None, drafts: Mapping[str, "Draft"]) -> None:
        """Mark an item out of scope or unclear (``None`` clears it), written to the queue file
        at once (atomically). An item already labelled is refused: its record says what it is."""
        if verdict is not None and verdict not in VERDICTS:
            raise ValueError(f"unknown verdict {verdict!r}")
        item = self.item(item_id)
        rid = self.records(drafts).get(item_id)
        if rid is not None:
            raise InvalidInput(f"item {item_id} is labelled as {rid}: delete that record first",
                               path=str(self.path), record_id=item_id)
        items = [it.model_copy(update={"verdict": verdict}) if it.id == item_id else it for it in self.items]
        write_queue(self.path, items)
        self.items = items

    # -- the pipeline's own passages ----------------------------------------------------------

    def placements(self, item_id: str, corpus: "Corpus") -> list[PlacedPassage]:
        """The item's retrieved passages placed in ``corpus`` by the passage locator (SPEC §10.1),
        each anywhere in the corpus (a log's passage ids are the pipeline's, not document ids)."""
        item = self.item(item_id)
        if item_id in self._placed:
            return self._placed[item_id]
        if self._locator is None or self._locator.corpus is not corpus:
            self._locator = PassageLocator(corpus)
            self._placed.clear()
        texts = [r for r in item.retrieved if r.text]
        found = self._locator.place([Passage(None, r.text) for r in texts], ordered=False) if texts else []
        where = dict(zip((id(r) for r in texts), found))
        placed = []
        for rank, r in enumerate(item.retrieved, start=1):
            got = where.get(id(r), "the log carried no text for it")
            if isinstance(got, Placement):
                line = corpus[got.place.doc].line_of(got.place.start) + 1  # line_of counts from 0
                placed.append(PlacedPassage(rank, r.id, r.score, got.place, line, got.tier))
            else:
                placed.append(PlacedPassage(rank, r.id, r.score, None, None, str(got)))
        self._placed[item_id] = placed
        return placed


# -- which queue the app shows --------------------------------------------------------------

_ATTACHED: "weakref.WeakKeyDictionary[AuthoringSession, Path]" = weakref.WeakKeyDictionary()


def attach_queue(session: "AuthoringSession", path: Path) -> TrafficQueue:
    """``labeller app --queue QUEUE``: read it now (a bad file is exit 2 before the UI) and let
    the traffic screen show it."""
    queue = TrafficQueue.open(path)
    _ATTACHED[session] = path
    return queue


def queue_path(session: "AuthoringSession") -> Path:
    """The queue given with ``--queue``, else the project's ``golden/traffic-queue.jsonl``."""
    return _ATTACHED.get(session) or session.config.root / DEFAULT_QUEUE
