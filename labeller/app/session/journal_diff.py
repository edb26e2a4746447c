"""What restoring a journal would change, record by record, in words short enough for a dialog.

The restore dialog at start used to name the record ids alone (issue 38.12), so an author had
to restore blind or discard blind. Each journal draft is compared with the record as the
questions file holds it now (both in their questions.jsonl form, ``as_json``): a new record
says so with its query, an edited one names each field that differs with a short
old → new, a deleted one gives the query it had. Plain data, no Textual: the dialog
(``screens/dialogs.py``) shows the lines.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from labeller.app.journal import JournalEntry
from labeller.app.session.drafts import Draft
from labeller.display import visible_line

VALUE_CHARS = 28  # one value, old or new, in a change
LEAD_CHARS = 8  # kept before the first difference when two long values share their start
ID_CHARS = 64  # a record id (the journal is the app's, but an id is whatever the file held)
LISTED_RECORDS = 12  # records listed in the dialog; the rest counted
LISTED_LOCATORS = 2  # changed locators described per record; the rest counted


def short(value: object) -> str:
    """A field's value in a few characters: a string quoted and cut, a list by its items."""
    if value is None:
        return "none"
    if isinstance(value, str):
        return _clip(visible_line(value))
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return short(", ".join(value)) if value else "none"
    if isinstance(value, bool | int):
        return str(value).lower() if isinstance(value, bool) else str(value)
    return "(set)" if value else "none"


def _clip(text: str) -> str:
    return repr(text if len(text) <= VALUE_CHARS else text[:VALUE_CHARS - 1] + "…")


def change(before: object, after: object) -> str:
    """``old → new`` for one field. Two strings that share a start longer than the cut (a
    quote with a word inserted near its end, as a repair makes) are both shown from a little
    before their first difference, so that the two sides never read the same."""
    if isinstance(before, str) and isinstance(after, str):
        a, b = visible_line(before), visible_line(after)
        same = len(os.path.commonprefix([a, b]))
        if same > VALUE_CHARS - LEAD_CHARS and max(len(a), len(b)) > VALUE_CHARS:
            cut = same - LEAD_CHARS
            return f"{_clip('…' + a[cut:])} → {_clip('…' + b[cut:])}"
    return f"{short(before)} → {short(after)}"


def _id(record_id: str) -> str:
    text = visible_line(record_id)
    return text if len(text) <= ID_CHARS else text[:ID_CHARS - 1] + "…"


def _locator_changes(old: list[dict], new: list[dict]) -> list[str]:
    out = [f"locators {len(old)} → {len(new)}"] if len(old) != len(new) else []
    changed = [i for i in range(min(len(old), len(new))) if old[i] != new[i]]
    for i in changed[:LISTED_LOCATORS]:
        keys = [k for k in dict.fromkeys([*old[i], *new[i]]) if old[i].get(k) != new[i].get(k)]
        out.append(f"locator {i + 1} " + ", ".join(f"{k} {change(old[i].get(k), new[i].get(k))}" for k in keys))
    if len(changed) > LISTED_LOCATORS:
        out.append(f"{len(changed) - LISTED_LOCATORS} more locator(s) changed")
    return out


def record_change(old: dict, new: dict) -> str:
    """What differs between two questions.jsonl forms of one record, field by field."""
    parts: list[str] = []
    for key in dict.fromkeys([*old, *new]):
        before, after = old.get(key), new.get(key)
        if before == after:
            continue
        if key == "locators":
            parts += _locator_changes(before or [], after or [])
        else:
            parts.append(f"{key.replace('_', ' ')} {change(before, after)}")
    return "; ".join(parts) or "no change"


def journal_changes(entry: JournalEntry, on_file: Mapping[str, Draft]) -> list[str]:
    """One line per record the journal would restore over ``on_file`` (the records as the
    questions file holds them), in the journal's order, then the deleted ones; at most
    ``LISTED_RECORDS``, and a line counting the rest."""
    lines: list[str] = []
    for obj in entry.drafts:
        draft = Draft.from_json(obj)
        rid = _id(draft.id)
        old = on_file.get(draft.id)
        if old is None:
            lines.append(f"{rid} (new): query {short(draft.query)}")
        else:
            lines.append(f"{rid}: {record_change(old.as_json(), draft.as_json())}")
    for rid in entry.deleted:
        old = on_file.get(rid)
        lines.append(f"{_id(rid)} (deleted)" + (f": query {short(old.query)}" if old is not None else ""))
    if len(lines) > LISTED_RECORDS:
        lines = lines[:LISTED_RECORDS] + [f"… and {len(lines) - LISTED_RECORDS} more record(s)"]
    return lines
