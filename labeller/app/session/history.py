"""Undo and redo of every change the app makes to the golden set, until the app closes.

The history is a stack of *steps*; a step is the list of record changes one action made
(``Change``: a record's draft before and after, ``None`` for "not there", and its row so
an undone delete goes back where it was). Steps hold drafts, which are immutable, so a
step costs a few references however large the file is.

Changes are recorded per record rather than as snapshots of the whole set on purpose:
undoing a step touches only the records that step changed, so a save (which replaces the
baseline) or a reload that brought in another writer's records leaves those records
alone, and undo still works after both.

Typing is one step, not one step per key: consecutive changes with the same
``coalesce`` key (the same field of the same record) merge into the open step, and a
step that typing brought back to where it started disappears.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Hashable, Iterator

from labeller.app.session.drafts import Draft


@dataclass(frozen=True)
class Change:
    record_id: str
    before: Draft | None
    after: Draft | None
    index: int  # the record's row in the file order (before a delete, after an add)


class History:
    """Undo and redo stacks of steps (plain data; the session applies them)."""

    def __init__(self) -> None:
        self.undo_steps: list[list[Change]] = []
        self.redo_steps: list[list[Change]] = []
        self._group: list[Change] | None = None
        self._last_key: Hashable | None = None

    def record(self, change: Change, coalesce: Hashable | None = None) -> None:
        self.redo_steps.clear()
        if self._group is not None:
            self._group.append(change)
            return
        if coalesce is not None and coalesce == self._last_key and self.undo_steps:
            step = self.undo_steps[-1]
            merged = replace(step[-1], after=change.after)
            if merged.before == merged.after:
                self.undo_steps.pop()
                self._last_key = None
            else:
                step[-1] = merged
            return
        self.undo_steps.append([change])
        self._last_key = coalesce

    @contextmanager
    def step(self) -> Iterator[None]:
        """Group every change recorded inside into one step (e.g. a journal restore)."""
        if self._group is not None:  # nested: the outer step takes them
            yield
            return
        self._group = []
        try:
            yield
        finally:
            group, self._group = self._group, None
            if group:
                self.undo_steps.append(group)
                self._last_key = None

    def take_undo(self) -> list[Change] | None:
        self._last_key = None
        if not self.undo_steps:
            return None
        step = self.undo_steps.pop()
        self.redo_steps.append(step)
        return step

    def take_redo(self) -> list[Change] | None:
        self._last_key = None
        if not self.redo_steps:
            return None
        step = self.redo_steps.pop()
        self.undo_steps.append(step)
        return step

    def break_coalescing(self) -> None:
        """The next change starts a step of its own (another record was opened, say)."""
        self._last_key = None
