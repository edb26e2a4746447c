"""Same-record conflicts: questions.jsonl changed on disk while the app changed it too.

Another app instance, an editor or a ``git pull`` may save questions.jsonl while the
author works. The save notices it (the file's digest is not the one loaded, see
``saving.disk_changed``) and, instead of refusing the whole file or overwriting it, the
three versions of every record are compared: the *base* (the file as the app loaded it),
*mine* (the app's draft, ``None`` when deleted in the app) and *theirs* (the file on disk
now, ``None`` when deleted there). Records are compared by value (``as_json``), so a line
only re-formatted on disk is no change.

- changed only on disk: taken in quietly (``DiskMerge.taken``, reported after the save);
- changed only in the app: saved over the file on disk as usual;
- changed on both sides to the same value: nothing to decide;
- changed on both sides differently (edited, deleted or added under the same id):
  a ``Conflict``, which the author decides record by record (``MINE`` / ``THEIRS``).

Plain data, no Textual: the dialog (``screens/conflict.py``) shows it, the session
(``SavingMixin.take_disk``) applies the choices.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from labeller.app.session.drafts import Draft
from labeller.core.models import Question
from labeller.core.questions import QuestionsFile

MINE = "mine"
THEIRS = "theirs"


@dataclass(frozen=True)
class Conflict:
    """One record both sides changed, differently."""

    record_id: str
    base: Question | None  # as the app loaded it (None: new since)
    mine: Draft | None  # the app's version (None: deleted in the app)
    theirs: Question | None  # on disk now (None: deleted there)

    @property
    def kind(self) -> str:
        if self.base is None:
            return "added on both sides"
        if self.mine is None:
            return "deleted here, edited on disk"
        if self.theirs is None:
            return "edited here, deleted on disk"
        return "edited on both sides"

    @property
    def mine_json(self) -> dict | None:
        return None if self.mine is None else self.mine.as_json()

    @property
    def theirs_json(self) -> dict | None:
        return None if self.theirs is None else self.theirs.as_json()


@dataclass(frozen=True)
class DiskMerge:
    """The file on disk now, what changed only there, and the records to decide."""

    disk: QuestionsFile
    taken: tuple[str, ...]  # changed (or added, or deleted) only on disk, in no particular need of a choice
    conflicts: tuple[Conflict, ...]


def _value(record: Question | Draft | None) -> dict | None:
    return None if record is None else record.as_json()


def compare_with_disk(baseline: Mapping[str, Question], drafts: Mapping[str, Draft], order: Iterable[str],
                      is_dirty: Callable[[str], bool], disk: QuestionsFile) -> DiskMerge:
    """Compare the app's drafts (over ``baseline``, the file as loaded) with ``disk``.

    Ids are listed in the order the author sees (then the disk's new ones), so the dialog
    and the report read like the question list."""
    theirs = {q.id: q for q in disk.questions}
    ids = list(dict.fromkeys([*order, *baseline, *theirs]))
    taken: list[str] = []
    conflicts: list[Conflict] = []
    for rid in ids:
        base = baseline.get(rid)
        mine_changed = (rid in drafts and is_dirty(rid)) or (rid in baseline and rid not in drafts)
        theirs_changed = _value(base) != _value(theirs.get(rid))
        if not theirs_changed:
            continue
        if not mine_changed:
            taken.append(rid)
        elif _value(drafts.get(rid)) != _value(theirs.get(rid)):
            conflicts.append(Conflict(rid, base, drafts.get(rid), theirs.get(rid)))
    return DiskMerge(disk, tuple(taken), tuple(conflicts))
