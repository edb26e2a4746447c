"""What a repair does to one refused locator (``Fix``: re-pointed, and how) or why it does
nothing (``Left``): the plan's records (``core.repair``), which the app's journal keeps too (an
accepted repair restored after a crash is still logged as an edit when saved), apart from how
they are found."""

from __future__ import annotations

from dataclasses import dataclass

from labeller.core.models import Locator

MOVED = "moved"
NEAREST = "nearest"
MAX_OCCURRENCE_CHARS = 4096  # a journal's doc:line:col (a document path is bounded well below this)


@dataclass(frozen=True)
class Fix:
    """One locator re-pointed: ``kind`` is ``moved`` or ``nearest`` (with its ``score``, and
    whether the passage is the one where the quote stood, scored by ``old_place.kept_score``)."""

    record_id: str
    index: int
    kind: str
    old: Locator
    new: Locator
    score: float | None = None
    at_old_place: bool = False  # the passage (or heading) where it stood at the last build (``core.old_place``)
    occurrence: str | None = None  # a move to one occurrence of several, offered to a person: its doc:line:col

    @property
    def how(self) -> str:
        """How the fix was found, as reports and the app name it."""
        if self.kind == MOVED:
            return "moved"
        if self.new.heading is not None:
            return "heading where it stood" if self.at_old_place else "nearest heading"
        return "where it stood" if self.at_old_place else "nearest passage"

    def describe(self) -> str:
        if self.kind == MOVED and self.occurrence is not None:
            return (f"moved {self.old.doc} → {self.new.doc}, the occurrence at {self.occurrence}: "
                    f"{self.new.describe()}")
        if self.kind == MOVED:
            picked = (self.new.prefix, self.new.suffix) != (self.old.prefix, self.old.suffix)
            return f"moved {self.old.doc} → {self.new.doc}" + (f", where it stood: {self.new.describe()}" * picked)
        if self.at_old_place and self.new.heading is None:
            return f"where it stood, {self.score}% of the quote kept: {self.new.describe()}"
        return f"{self.how} ({self.score}) {self.new.describe()}"

    def as_json(self) -> dict:
        out = {"id": self.record_id, "locator_index": self.index, "kind": self.kind, "old": self.old.as_json(),
               "new": self.new.as_json()}
        if self.score is not None:
            out["score"] = self.score
        if self.at_old_place:
            out["at_old_place"] = True
        if self.occurrence is not None:
            out["occurrence"] = self.occurrence
        return out

    @classmethod
    def from_json(cls, obj: object) -> Fix:
        """A fix as ``as_json`` wrote it: the app's journal keeps the ones an author accepted, so
        that a restored repair is still logged as an edit when it is saved. ``ValueError``
        naming the first field that is not what ``as_json`` writes."""
        if not isinstance(obj, dict):
            raise ValueError("a fix is an object")
        rid, index, kind, score = obj.get("id"), obj.get("locator_index"), obj.get("kind"), obj.get("score")
        if not isinstance(rid, str) or not rid:
            raise ValueError("a fix's id is a non-empty string")
        if type(index) is not int or index < 0:
            raise ValueError("a fix's locator_index is a whole number, 0 or more")
        if kind not in (MOVED, NEAREST):
            raise ValueError(f"a fix's kind is {MOVED!r} or {NEAREST!r}")
        if score is not None and (type(score) not in (int, float) or not 0 <= score <= 100):
            raise ValueError("a fix's score is a number from 0 to 100")
        if not isinstance(obj.get("at_old_place", False), bool):
            raise ValueError("a fix's at_old_place is true or false")
        occurrence = obj.get("occurrence")
        if occurrence is not None and (not isinstance(occurrence, str) or len(occurrence) > MAX_OCCURRENCE_CHARS):
            raise ValueError(f"a fix's occurrence is a doc:line:col of at most {MAX_OCCURRENCE_CHARS} characters")
        old, new = Locator.model_validate(obj.get("old")), Locator.model_validate(obj.get("new"))
        return cls(rid, index, kind, old, new, None if score is None else float(score),
                   obj.get("at_old_place", False), occurrence)


@dataclass(frozen=True)
class Left:
    """A refused locator no suggestion was applied to, and why."""

    record_id: str
    index: int | None
    locator: Locator
    kind: str  # the refusal's kind
    reason: str

    def as_json(self) -> dict:
        return {"id": self.record_id, "locator_index": self.index, "locator": self.locator.as_json(),
                "kind": self.kind, "reason": self.reason}
