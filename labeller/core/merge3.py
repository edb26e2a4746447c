"""Three-way merge of a golden JSONL file by record, for the git merge driver (SPEC §12).

Two authors who each append questions at the end of ``questions.jsonl`` make git's line
merge conflict every time, though the records are independent. Merged by record instead,
only a record both sides changed differently is a conflict.

A line's key says which record it is:

* ``questions.jsonl``: its ``id``;
* ``judgments.jsonl`` (SPEC §11, no id): ``query_id``, ``judge`` and the locator (``doc``,
  ``quote``, ``prefix``, ``suffix``) — one judge's verdict on one passage for one question,
  so a re-judged ``relevant`` or ``note`` is a change of that judgment;
* ``reviews.jsonl`` (append-only, entries never edited, no id): the whole line and its
  occurrence number among equal lines, so both sides' appended decisions are kept, in order,
  and an entry can only be added or removed, never "changed".

Lines are compared as bytes (their text without the line ending). Comment and blank lines
are kept from ours, each run attached to the record that follows it in ours (the header to
the first); theirs' comments are not merged (``theirs_comments_differ`` says when that lost
something, for the driver to warn).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from labeller.config import MAX_RECORDS, Limits
from labeller.display import json_dumps
from labeller.io import JsonLine, iter_jsonl, refuse_many_lines

# The longest questions.jsonl any labeller.toml allows; a judgments file or review log is shorter.
MAX_SIDE_LINES = Limits(max_records=MAX_RECORDS).max_lines
MARKER = 7  # git's default conflict-marker size
BOM = "\ufeff"

Key = tuple[Any, ...]


@dataclass
class Side:
    """One version of the file: its records by key, in order, and ours' comment runs."""

    records: dict[Key, str] = field(default_factory=dict)  # key -> the line's text, file order
    comments_before: dict[Key, list[str]] = field(default_factory=dict)  # key -> the lines right above it
    trailer: list[str] = field(default_factory=list)  # comment/blank lines after the last record
    comments: list[str] = field(default_factory=list)  # every comment/blank line, in order
    eol: str = "\n"  # the first line ending of the file
    bom: bool = False
    ends_with_newline: bool = True


@dataclass
class Merged:
    """The merged text, and what the driver reports: the conflicts and whether theirs' comments were lost."""

    text: str
    conflicts: list[str]  # the conflicting records' labels, in output order
    theirs_comments_differ: bool


def record_key(value: Any, line: JsonLine, seen: dict[Key, int]) -> Key:
    """The key of one parsed line (see the module docstring); InvalidInput when it has none."""
    if not isinstance(value, dict):
        raise line.refuse("a record must be a JSON object")
    if "id" in value:
        return ("id", value["id"] if isinstance(value["id"], str) else json_dumps(value["id"]))
    if "record_digest" in value:  # a review decision: the whole line, and which copy of it
        whole: Key = ("line", line.raw.strip())
        seen[whole] = seen.get(whole, 0) + 1
        return (*whole, seen[whole])
    if "query_id" in value and "judge" in value:
        return ("judgment", *(json_dumps(value.get(k)) for k in ("query_id", "judge", "doc", "quote", "prefix",
                                                                  "suffix")))
    raise line.refuse("a line with no record id (questions: \"id\"; judgments: \"query_id\" and \"judge\"; "
                      "reviews: \"record_digest\")")


def label(key: Key) -> str:
    """How a conflict names its record: ``id "hb-003"``, or the judgment's question and judge."""
    if key[0] == "id":
        return f"id {json_dumps(key[1])}"
    if key[0] == "judgment":
        return f"judgment query_id {key[1]} judge {key[2]}"
    return "review entry"


def read_side(data: bytes, path: str) -> Side:
    """One version, parsed; malformed lines and duplicate keys are refused (``InvalidInput``)."""
    side = Side(bom=data.startswith(BOM.encode()))
    refuse_many_lines(data, path, MAX_SIDE_LINES, "merged file")  # a line object each would be gigabytes
    seen: dict[Key, int] = {}
    pending: list[str] = []
    first_line: dict[Key, int] = {}
    eol, last = "", None
    for line in iter_jsonl(data, path, comments=True):
        eol, last = eol or line.eol, line
        if line.skipped:
            pending.append(line.raw)
            side.comments.append(line.raw)
            continue
        if line.error is not None:
            raise line.refuse()
        key = record_key(line.value, line, seen)
        if key in side.records:
            raise line.refuse(f"duplicate record ({label(key)}; first on line {first_line[key]}): "
                              "fix the file, then merge")
        first_line[key] = line.line
        side.records[key] = line.raw
        side.comments_before[key], pending = pending, []
    side.trailer = pending
    if last is not None:
        side.eol = eol or "\n"
        side.ends_with_newline = last.terminated
    return side


def merge(base: Side, ours: Side, theirs: Side) -> Merged:
    """SPEC §12 over three parsed versions."""
    order = [*base.records, *(k for k in ours.records if k not in base.records),
             *(k for k in theirs.records if k not in base.records and k not in ours.records)]
    out: list[str] = []
    conflicts: list[str] = []
    carried: list[str] = []  # comments of an ours record that the merge dropped: they go with the next one
    for key in order:
        o, t, b = ours.records.get(key), theirs.records.get(key), base.records.get(key)
        chosen, conflict = _resolve(b, o, t)
        if key in ours.records:
            before = carried + ours.comments_before[key]
            carried = []
            if chosen is None and not conflict:
                carried = before
                continue
            out.extend(before)
        if conflict:
            name = label(key)
            out += [f"{'<' * MARKER} ours {name}", *([o] if o is not None else []), "=" * MARKER,
                    *([t] if t is not None else []), f"{'>' * MARKER} theirs {name}"]
            conflicts.append(name)
        elif chosen is not None:
            out.append(chosen)
    out += carried + ours.trailer
    text = "".join(line + ours.eol for line in out)
    if not ours.ends_with_newline and out and not conflicts:
        text = text[: -len(ours.eol)]
    lost = theirs.comments not in (base.comments, ours.comments)  # theirs changed comments ours lacks
    return Merged((BOM if ours.bom else "") + text, conflicts, lost)


def _resolve(b: str | None, o: str | None, t: str | None) -> tuple[str | None, bool]:
    """(the line to keep or None, whether it is a conflict) for one record's three versions."""
    if o == t:
        return o, False  # the same on both sides (or removed on both)
    if o == b:
        return t, False  # only theirs changed (or removed) it
    if t == b:
        return o, False  # only ours changed (or removed) it
    return None, True  # changed differently, added differently, or removed on one side and changed on the other


def merge_bytes(base: bytes, ours: bytes, theirs: bytes, names: tuple[str, str, str]) -> Merged:
    """Parse the three versions (``names`` for the error messages) and merge them. Identical
    sides are the result as they are (git itself never calls a driver for them)."""
    sides = [read_side(data, name) for data, name in zip((base, ours, theirs), names)]
    if ours == theirs:  # valid, as read_side has just checked: UTF-8 throughout
        return Merged(ours.decode("utf-8"), [], False)
    return merge(*sides)

