"""The review log: ``golden/reviews.jsonl``, one decision per line, only ever appended to.

A review is a statement about one version of a record, so every entry carries the
sha256 of the record's canonical JSON as the reviewer saw it. The status of a record is
derived from its latest entry and its current digest; nothing is stored twice, and an
edit to questions.jsonl makes an earlier review visibly stale instead of silently
carrying it over.

A label is also a statement about the corpus: its quote may still resolve while the
paragraph around it was rewritten, and the reviewer accepted the old words. So an accept or
a flag also carries ``answer_digest``, the digest of the span texts the reviewer read
(``core.answer_text``); when today's differs, the record needs re-review too. Entries
written before labeller kept it have none and are judged by the record alone (nothing can
say what their reviewer read), and a record that does not resolve today is not compared:
the build refuses it anyway.

Appends are crash-safe without ever rewriting the file: one ``write`` of one line,
``fsync``, done. A crash can at worst leave a torn last line; reading reports it (file and
line) and ignores it, and the next append starts on a fresh line so the torn bytes stay
exactly where they were for a human to look at. The log is never "repaired".

The build never reads this file, except for the optional review counts in its summary
and ``build --check --require-reviewed``; see ``build_review_summary`` and
``unreviewed_or_stale``.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from labeller.core.canon import sha256_hex
from labeller.core.models import Question
from labeller.diagnostics import Bounded
from labeller.display import json_dumps
from labeller.errors import InvalidInput, LabellerError
from labeller.io import fsync_dir, iter_jsonl, naming, read_regular_file, refuse_many_lines, refuse_symlink_components

if TYPE_CHECKING:
    from labeller.config import ProjectConfig

DECISIONS = ("accept", "flag", "edit")
STATUSES = ("reviewed", "needs_rereview", "flagged", "unreviewed")
STATUS_LABELS = {"reviewed": "reviewed", "needs_rereview": "needs re-review", "flagged": "flagged",
                 "unreviewed": "unreviewed", "no_answer": "reviewed, but no expected answer",
                 "answer_changed": "needs re-review: its answer text changed since the review"}
MAX_LOG_BYTES = 64 * 1024 * 1024
MAX_LOG_LINES = MAX_LOG_BYTES // 128  # an entry is at least 161 bytes (its keys and a 64-digit digest)
MAX_NAME_CHARS = 100
_DIGEST = re.compile(r"^[0-9a-f]{64}$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
NO_ANSWERS: Mapping[str, str] = MappingProxyType({})  # no answer text compared


def record_digest(question: Question) -> str:
    """sha256 of the record's canonical JSON: its questions.jsonl form with sorted keys.

    ``as_json`` leaves defaults out, so the digest changes exactly when the written record
    changes, and not when the file around it is reformatted or reordered.
    """
    return sha256_hex(json.dumps(question.as_json(), ensure_ascii=False, sort_keys=True, separators=(",", ":")))


def check_person(name: str, what: str = "reviewer") -> str:
    """A reviewer or annotator name: non-blank, one line, bounded (it is shown in the app)."""
    name = name.strip()
    if not name or len(name) > MAX_NAME_CHARS or _CONTROL.search(name):
        raise InvalidInput(f"{what} name {name!r} must be 1-{MAX_NAME_CHARS} printable characters")
    return name


def utc_timestamp(now: datetime | None = None) -> str:
    return (now or datetime.now(timezone.utc)).astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True)
class ReviewEntry:
    """One decision. ``record_digest`` pins the version of the record it is about, and
    ``answer_digest`` (``""``: not known) the answer text the reviewer read."""

    record_id: str
    record_digest: str
    reviewer: str
    decision: str
    comment: str
    timestamp: str
    answer_digest: str = ""

    def as_json(self) -> dict:
        """The entry's line; without ``answer_digest`` when not known, as entries were written before it."""
        out = asdict(self)
        if not self.answer_digest:
            del out["answer_digest"]
        return out

    @classmethod
    def from_json(cls, obj: object) -> "ReviewEntry":
        """Validate one parsed line; extra keys are allowed so later versions may add fields."""
        if not isinstance(obj, dict):
            raise ValueError("an entry must be a JSON object")
        values = {}
        for key in ("record_id", "record_digest", "reviewer", "decision", "comment", "timestamp"):
            value = obj.get(key)
            if not isinstance(value, str):
                raise ValueError(f"{key} missing or not a string")
            values[key] = value
        if not values["record_id"] or not values["reviewer"].strip():
            raise ValueError("record_id and reviewer must not be empty")
        if values["decision"] not in DECISIONS:
            raise ValueError(f"decision {values['decision']!r} is not one of {', '.join(DECISIONS)}")
        if not _DIGEST.match(values["record_digest"]):
            raise ValueError("record_digest is not a sha256 hex digest")
        answer = obj.get("answer_digest", "")  # absent from entries written before it was kept
        if answer != "" and not (isinstance(answer, str) and _DIGEST.match(answer)):
            raise ValueError("answer_digest is not a sha256 hex digest")
        return cls(**values, answer_digest=answer)


def new_entry(question: Question, reviewer: str, decision: str, comment: str = "",
              now: datetime | None = None, answer: str | None = None) -> ReviewEntry:
    """The entry for a decision about ``question`` exactly as it is now; ``answer`` is the
    ``core.answer_text.answer_digest`` of the spans the reviewer was shown (``None``: none)."""
    if decision not in DECISIONS:
        raise InvalidInput(f"decision {decision!r} is not one of {', '.join(DECISIONS)}")
    if decision == "flag" and not comment.strip():
        raise InvalidInput(f"record {question.id!r}: a flag needs a comment saying what is wrong")
    return ReviewEntry(question.id, record_digest(question), check_person(reviewer), decision, comment.strip(),
                       utc_timestamp(now), answer or "")


@dataclass(frozen=True)
class LogProblem:
    """A line of the log that was ignored, and why (shown as a warning, never fixed)."""

    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


@dataclass
class ReviewLog:
    """The entries, and the ignored lines: ``problems`` holds the first ``diagnostics.KEEP`` of
    them and counts them all (a planted log of millions of ``{}`` lines must not become
    millions of warnings held in memory)."""

    path: Path
    entries: list[ReviewEntry] = field(default_factory=list)
    problems: Bounded[LogProblem] = field(default_factory=Bounded)

    def __post_init__(self) -> None:
        # File order is decision order: timestamps come from reviewers' clocks and may disagree.
        self._latest = {e.record_id: e for e in self.entries}

    def latest(self, record_id: str) -> ReviewEntry | None:
        return self._latest.get(record_id)

    def history(self, record_id: str) -> list[ReviewEntry]:
        return [e for e in self.entries if e.record_id == record_id]

    def status(self, question: Question, answers: Mapping[str, str] = NO_ANSWERS) -> str:
        """reviewed / needs_rereview / flagged / unreviewed, from the latest decision and
        today's answer digests by record id (``answers``; a record not in it is not compared).

        An ``edit`` entry pins the version the reviewer changed, so it is stale by
        construction: an edited label needs another look before it counts as reviewed.
        """
        entry = self._latest.get(question.id)
        if entry is None:
            return "unreviewed"
        if entry.decision == "edit" or entry.record_digest != record_digest(question):
            return "needs_rereview"
        if self.answer_changed(question, answers):
            return "needs_rereview"
        return "flagged" if entry.decision == "flag" else "reviewed"

    def answer_changed(self, question: Question, answers: Mapping[str, str]) -> bool:
        """Whether the record is as its latest decision saw it but the text under its spans is
        not. ``answers`` is asked only for a record whose decision pinned a text, so a lazy
        mapping (``core.answer_text.LazyDigests``) reads no span the log cannot compare."""
        entry = self._latest.get(question.id)
        if entry is None or entry.decision == "edit" or not entry.answer_digest:
            return False
        return (entry.record_digest == record_digest(question)
                and answers.get(question.id, entry.answer_digest) != entry.answer_digest)

    def statuses(self, questions: list[Question], answers: Mapping[str, str] = NO_ANSWERS) -> dict[str, str]:
        """``status`` of each record, ``answers`` holding today's answer digests by record id."""
        return {q.id: self.status(q, answers) for q in questions}

    def queue(self, questions: list[Question], status: str | None = None, everything: bool = False,
              answers: Mapping[str, str] = NO_ANSWERS) -> list[str]:
        """Record ids for a review session, most urgent first.

        By default every record not ``reviewed``: those changed since their review first
        (their approval describes a version that no longer exists), then flagged, then
        unreviewed, each in file order. ``status`` keeps one status; ``everything`` is the
        whole file in file order.
        """
        statuses = self.statuses(questions, answers)
        if everything:
            return list(statuses)
        if status is not None:
            return [rid for rid, s in statuses.items() if s == status]
        urgency = {"needs_rereview": 0, "flagged": 1, "unreviewed": 2}
        return sorted((rid for rid, s in statuses.items() if s in urgency), key=lambda rid: urgency[statuses[rid]])

    def counts(self, questions: list[Question], answers: Mapping[str, str] = NO_ANSWERS) -> dict:
        """SPEC §9: ``records`` and the four statuses, which always sum to ``records``."""
        out = {"records": len(questions)} | {s: 0 for s in STATUSES}
        for status in self.statuses(questions, answers).values():
            out[status] += 1
        return out


def read_review_log(path: Path) -> ReviewLog:
    """Read the log; a missing file is an empty log. Bad lines become ``problems``.

    Unsafe files (a symlink in the path, not a regular file, over ``MAX_LOG_BYTES``) and
    lines no interrupted append can leave (nested too deep, a duplicate key) are refused
    with ``InvalidInput``: those are not crash damage but something to look at.
    """
    path = Path(path)
    if not path.exists() and not path.is_symlink():
        return ReviewLog(path)
    entries: list[ReviewEntry] = []
    problems: Bounded[LogProblem] = Bounded()
    data = read_regular_file(path, max_bytes=MAX_LOG_BYTES, what="review log")
    refuse_many_lines(data, path, MAX_LOG_LINES, "review log")  # blank lines cost a step each, no entry
    for jl in iter_jsonl(data, str(path)):  # one line at a time: only entries and the first problems are kept
        if not jl.terminated:  # the last write was cut short
            problems.append(LogProblem(str(path), jl.line, "truncated last line (no newline: a write was "
                                       "interrupted?); ignored and left as it is"))
            continue
        if jl.skipped:
            continue
        if jl.hostile:
            raise jl.refuse(f"{jl.error}; the review log was written by hand or by something hostile, fix or "
                            "remove this line")
        try:
            if jl.error is not None:
                raise ValueError(jl.error)
            entries.append(ReviewEntry.from_json(jl.value))
        except ValueError as exc:
            problems.append(LogProblem(str(path), jl.line, f"not a valid review entry ({exc}); ignored"))
    return ReviewLog(path, entries, problems)


def append_review(path: Path, entry: ReviewEntry) -> bool:
    """Append one entry durably: a single write of one line, then fsync.

    Returns True when the file ended in a torn line; the new entry then starts on a line
    of its own (one newline is written first) and the torn bytes are left untouched,
    still reported by ``read_review_log``.
    """
    return append_reviews(path, [entry])


def append_reviews(path: Path, entries: list[ReviewEntry]) -> bool:
    """``append_review`` for several entries at once (``labeller repair``'s hundreds): one
    write of their lines and one fsync, so a crash can tear only the last line, as for one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    refuse_symlink_components(path.parent)
    created = not path.exists()
    flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as exc:
        raise InvalidInput(f"cannot open the review log: {exc.strerror}", path=str(path)) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise InvalidInput("review log is not a regular file", path=str(path))
        torn = st.st_size > 0 and os.pread(fd, 1, st.st_size - 1) != b"\n"
        lines = "".join(json_dumps(entry.as_json(), sort_keys=True) + "\n" for entry in entries)
        with naming(path):  # a full disk fails the write naming no file
            write_all(fd, (b"\n" if torn else b"") + lines.encode("utf-8"))
            os.fsync(fd)
    finally:
        os.close(fd)
    if created:
        fsync_dir(path.parent)
    return torn


def write_all(fd: int, data: bytes) -> None:
    """``os.write`` until every byte is out (a regular file rarely takes less than all)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


# -- what the build and CI read -------------------------------------------------------------


def unreviewed_or_stale(config: ProjectConfig, questions: list[Question], log: ReviewLog | None = None,
                        answers: Mapping[str, str] = NO_ANSWERS) -> dict[str, str]:
    """Records that ``build --check --require-reviewed`` refuses, in file order, with their status.

    Only ``reviewed`` passes: an unreviewed record was never checked, a stale one was
    checked in another version, and a flagged one carries an open objection. A reviewed
    record without an expected answer (``no_answer``, typical of an import) is not done
    either: its status reads ``no_answer``. A record stale because the text under its
    spans changed (``answers``: today's digests) reads ``answer_changed``, so the reader
    knows to look at the corpus, not at questions.jsonl.
    """
    log = log or read_review_log(config.layout.review_log)
    by_id = {q.id: q for q in questions}
    no_answer = {q.id for q in questions if q.no_answer}

    def why(rid: str, status: str) -> str:
        if status == "reviewed" and rid in no_answer:
            return "no_answer"
        return "answer_changed" if log.answer_changed(by_id[rid], answers) else status

    return {rid: why(rid, s) for rid, s in log.statuses(questions, answers).items()
            if s != "reviewed" or rid in no_answer}


def build_review_summary(config: ProjectConfig, questions: list[Question],
                         answers: Mapping[str, str] = NO_ANSWERS
                         ) -> tuple[dict | None, Bounded[str], ReviewLog | None]:
    """Review counts for the build summary (``answers``: the build's answer digests), warnings
    (the first kept, all counted), and the log itself, so that ``--require-reviewed`` judges the
    same read; never raises.

    The build must not depend on the review log, so an unreadable log gives ``None``
    counts (and no log) and a warning instead of an error.
    """
    try:
        log = read_review_log(config.layout.review_log)
    except LabellerError as exc:
        return None, Bounded([f"review counts skipped: {exc}"]), None
    return log.counts(questions, answers), log.problems.map(str), log
