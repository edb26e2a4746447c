"""Records being edited: drafts over the core's ``Question`` and ``Locator``.

A draft must be able to hold what the core models refuse (an empty locator, a record
with no query yet), so it cannot *be* a validated model; everything else comes from the
models. The fields are the models' own (a test holds them equal), the questions.jsonl
form is the core's ``record_json``, validation is ``model_validate`` and its messages
are pydantic's. Drafts are immutable: the session replaces one on every change, which
is what lets undo keep them and the dirty check compare them by identity.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields, replace
from functools import cached_property
from typing import Literal

from pydantic import ValidationError

from labeller.core.models import Locator, Question, record_json
from labeller.core.vocab import SPLITS, SplitName


def _opt_str(value) -> str | None:
    return value if isinstance(value, str) else None


@dataclass(frozen=True)
class LocatorDraft:
    """A locator as the author is typing it; may be incomplete (both fields empty).

    ``whole``: the author chose to label the whole document (SPEC §2.1). A ``{doc}`` locator
    means that in questions.jsonl, but in the editor a doc with its quote cleared is a
    locator half-written, never silently a whole-document label (issue 38): without
    ``whole`` it is *incomplete*, and its questions.jsonl form keeps the empty quote, so it
    neither validates nor saves until the author types a quote or ticks "whole doc". A
    ``{doc}`` read from disk was chosen, so it comes back with ``whole`` set."""

    doc: str | None = None
    quote: str | None = None
    heading: str | None = None
    exact: bool | None = None
    prefix: str | None = None
    suffix: str | None = None
    whole: bool = False

    @classmethod
    def from_locator(cls, loc: Locator) -> "LocatorDraft":
        return cls(**{f.name: getattr(loc, f.name) for f in fields(cls) if f.name != "whole"},
                   whole=loc.kind == "document")

    @classmethod
    def from_json(cls, obj: dict) -> "LocatorDraft":
        exact = obj.get("exact")
        draft = cls(doc=_opt_str(obj.get("doc")), quote=_opt_str(obj.get("quote")) or None,  # "": as typed, none
                    heading=_opt_str(obj.get("heading")), exact=exact if isinstance(exact, bool) else None,
                    prefix=_opt_str(obj.get("prefix")), suffix=_opt_str(obj.get("suffix")))
        # {doc} alone (no quote key at all) is a whole-document label; {doc, quote: ""} is incomplete
        return replace(draft, whole=draft.doc is not None and "quote" not in obj and draft.heading is None)

    @property
    def incomplete(self) -> bool:
        """A document named and nothing else, the whole document not chosen."""
        return (self.doc is not None and not (self.quote or "").strip() and self.heading is None
                and not self.whole)

    def as_json(self) -> dict:
        """The locator's questions.jsonl form, keys in the core model's order (``Locator.as_json``);
        an incomplete locator keeps its empty quote (which the model refuses)."""
        out = {f.name: getattr(self, f.name) for f in fields(self)
               if f.name != "whole" and getattr(self, f.name) is not None}
        if self.incomplete and "quote" not in out:
            out = {"doc": out.pop("doc"), "quote": "", **out}
        return out

    def to_locator(self) -> Locator:
        """The validated core locator (raises pydantic's ``ValidationError``)."""
        return Locator.model_validate(self.as_json())

    def describe(self) -> str:
        if self.incomplete:
            return f"{self.doc} (incomplete)"
        try:
            return self.to_locator().describe()
        except ValidationError:
            return "(empty locator)"


@dataclass(frozen=True)
class Draft:
    """One record as edited in the app. ``as_json`` has the shape of ``Question.as_json``,
    so a draft of an untouched record compares equal to the record on disk."""

    id: str
    query: str = ""
    expected_answer: str = ""
    locators: tuple[LocatorDraft, ...] = ()
    hop: Literal["single", "multi"] = "single"  # as Question has them
    tags: tuple[str, ...] = ()
    split: SplitName | None = None
    unanswerable: bool | None = None
    metadata: dict = field(default_factory=dict)  # carried along untouched: the app does not edit it
    traffic: object = None  # a sampled record's provenance (a TrafficProvenance or its JSON): carried along untouched

    @classmethod
    def from_question(cls, q: Question) -> "Draft":
        values = {f.name: getattr(q, f.name) for f in fields(cls)}
        values["locators"] = tuple(LocatorDraft.from_locator(loc) for loc in q.locators)
        values["tags"] = tuple(q.tags)
        return cls(**values)

    @classmethod
    def from_json(cls, obj: dict) -> "Draft":
        """Lenient: a journal may hold a record that is not valid yet."""
        locs = obj.get("locators")
        tags = obj.get("tags")
        un = obj.get("unanswerable")
        return cls(id=str(obj["id"]), query=_opt_str(obj.get("query")) or "",
                   expected_answer=_opt_str(obj.get("expected_answer")) or "",
                   locators=tuple(LocatorDraft.from_json(x) for x in locs if isinstance(x, dict))
                   if isinstance(locs, list) else (),
                   hop=obj["hop"] if obj.get("hop") in ("single", "multi") else "single",
                   tags=tuple(t for t in tags if isinstance(t, str)) if isinstance(tags, list) else (),
                   split=obj.get("split") if obj.get("split") in SPLITS else None,
                   unanswerable=un if isinstance(un, bool) else None,
                   metadata=obj["metadata"] if isinstance(obj.get("metadata"), dict) else {},
                   traffic=obj["traffic"] if isinstance(obj.get("traffic"), dict) else None)

    def as_json(self) -> dict:
        return record_json(self)

    def to_question(self) -> Question:
        """The validated core record (raises pydantic's ``ValidationError``)."""
        question, error = self._validated
        if error is not None:
            raise error
        assert question is not None
        return question

    def problems(self) -> list[str]:
        """Why this draft is not a valid record yet, in words an author acts on."""
        _, error = self._validated
        if error is None:
            return []
        incomplete = {i for i, loc in enumerate(self.locators) if loc.incomplete}
        own = [f"Locator {i + 1} is incomplete: {INCOMPLETE}" for i in sorted(incomplete)]
        rest = [e for e in error.errors() if not (len(e["loc"]) >= 2 and e["loc"][0] == "locators"
                                                  and e["loc"][1] in incomplete)]
        return own + (plain_problems(error, rest) if rest else [])

    @cached_property
    def _validated(self) -> tuple[Question | None, ValidationError | None]:
        """The draft validated once: it is immutable, and the question list asks every row's
        status, review status and record on each refresh (three validations a row at start).
        The record is frozen too, so every caller may share it."""
        try:
            return Question.model_validate(self.as_json()), None
        except ValidationError as exc:
            return None, exc

    def unchecked_question(self, locators: list[Locator] | None = None) -> Question:
        """The draft as a core ``Question`` without record-level validation, so one locator of
        a half-written record can be resolved by the core's own ``resolve_record``."""
        return Question.model_construct(id=self.id, query=self.query, expected_answer=self.expected_answer,
                                        locators=list(locators or []), hop="single", tags=list(self.tags),
                                        split=self.split, unanswerable=None)


_FIELD_WORDS = {"query": "the query", "expected_answer": "the expected answer", "id": "the id", "hop": "hop",
                "split": "split", "tags": "the tags", "quote": "quote", "doc": "doc", "heading": "heading",
                "prefix": "context before", "suffix": "context after", "exact": "exact"}
_EMPTY_HINT = {"query": "type what a user would ask", "expected_answer": "type the answer a reader should get",
               "id": "every record needs one"}


def _where(loc: tuple) -> str:
    """A pydantic error location as the form names it: ``("locators", 0, "quote")`` -> locator 1's quote."""
    words = []
    parts = list(loc)
    while parts:
        part = parts.pop(0)
        if part == "locators" and parts and isinstance(parts[0], int):
            words.append(f"locator {parts.pop(0) + 1}")
        elif part == "tags" and parts and isinstance(parts[0], int):
            words.append(f"tag {parts.pop(0) + 1}")
        elif isinstance(part, str):
            words.append(_FIELD_WORDS.get(part, part.replace("_", " ")))
    return "'s ".join(words) if words else "the record"


INCOMPLETE = "type its quote or a heading, or tick \"whole doc\" to label the whole document"


def plain_problems(exc: ValidationError, errors: list | None = None) -> list[str]:
    """The model's refusals (or those of them in ``errors``) as sentences an author acts on
    (the validators' own messages are already plain; pydantic's generic ones are reworded by
    error type)."""
    out = []
    for e in exc.errors() if errors is None else errors:
        where, kind, field = _where(e["loc"]), e["type"], str(e["loc"][-1]) if e["loc"] else ""
        if kind == "value_error":
            msg = e["msg"].removeprefix("Value error, ")
            out.append(msg[:1].upper() + msg[1:] if where == "the record" else f"{where.capitalize()}: {msg}")
        elif kind in ("string_too_short", "missing", "too_short"):
            hint = _EMPTY_HINT.get(field)
            out.append(f"{where.capitalize()} is empty" + (f": {hint}" if hint else ""))
        elif kind == "literal_error":
            out.append(f"{where.capitalize()} must be {e.get('ctx', {}).get('expected', 'one of the listed values')}")
        elif kind == "extra_forbidden":
            out.append(f"{where.capitalize()} is not a field labeller knows")
        elif kind.endswith("_type"):
            out.append(f"{where.capitalize()} has the wrong kind of value ({e['msg'].lower()})")
        else:
            out.append(f"{where.capitalize()}: {e['msg'][:1].lower() + e['msg'][1:]}")
    return out


def next_record_id(existing: list[str]) -> str:
    """A fresh id in the style of the last numbered id (``q014`` after ``q013``); never reuses one."""
    taken = set(existing)
    numbered = [(m.group(1), m.group(2)) for i in existing if (m := re.fullmatch(r"(.*?)(\d+)", i))]
    if numbered:
        prefix = numbered[-1][0]
        width = max(len(n) for p, n in numbered if p == prefix)
        n = max(int(n) for p, n in numbered if p == prefix) + 1
    else:
        prefix, width, n = "q", 3, 1
    while (candidate := f"{prefix}{n:0{width}d}") in taken:
        n += 1
    return candidate
