"""Reading and writing questions.jsonl without losing a byte the author meant to keep.

Loading reports every problem with its line number and record id before anything is
built; saving keeps ``//`` comment lines and blank lines where they were and writes the
records in their existing order, atomically, so ids are never renumbered or shuffled.
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from labeller.core.models import Question
from labeller.errors import InvalidInput
from labeller.io import atomic_write_text, read_regular_file


@dataclass(frozen=True)
class Limits:
    """Bounds on an untrusted label file; each is configurable in labeller.toml."""

    max_file_bytes: int = 1024 * 1024
    max_records: int = 10_000
    max_query_chars: int = 8_000
    max_locators: int = 64


@dataclass
class Entry:
    """A line of the file: a record, or a comment/blank line kept verbatim."""

    line: int
    raw: str
    question: Question | None = None


@dataclass
class QuestionsFile:
    path: Path | None
    entries: list[Entry] = field(default_factory=list)
    source_sha256: str | None = None

    @property
    def questions(self) -> list[Question]:
        return [e.question for e in self.entries if e.question is not None]

    def line_of(self, record_id: str) -> int | None:
        for e in self.entries:
            if e.question is not None and e.question.id == record_id:
                return e.line
        return None

    def render(self) -> str:
        """The file's text: comment lines, blank lines and untouched records exactly as read
        (a record's ``raw`` is kept only while it is the line the record was parsed from),
        changed and new records in their canonical form. A save is a minimal diff."""
        lines = []
        for e in self.entries:
            if e.question is None or e.raw:
                lines.append(e.raw)
            else:
                lines.append(json.dumps(e.question.as_json(), ensure_ascii=False))
        return "".join(line + "\n" for line in lines)

    def save(self, path: Path | None = None) -> None:
        target = path or self.path
        atomic_write_text(target, self.render())

    def replace(self, questions: list[Question]) -> None:
        """Set the records to ``questions``: existing ids keep their line, new ones append."""
        by_id = {q.id: q for q in questions}
        kept: list[Entry] = []
        for e in self.entries:
            if e.question is None:
                kept.append(e)
            elif e.question.id in by_id:
                q = by_id.pop(e.question.id)
                kept.append(Entry(e.line, e.raw if q == e.question else "", q))
        order = [q.id for q in questions]
        kept.extend(Entry(0, "", by_id[i]) for i in order if i in by_id)
        self.entries = kept


def normalise_query(query: str) -> str:
    return unicodedata.normalize("NFC", query).strip()


def parse_questions(text: str, path: str = "questions.jsonl", limits: Limits = Limits()) -> QuestionsFile:
    problems: list[dict] = []

    def problem(line: int, message: str, record_id: str | None = None) -> None:
        problems.append({"path": path, "line": line, "id": record_id, "message": message})

    qf = QuestionsFile(path=None)
    seen_ids: dict[str, int] = {}
    seen_queries: dict[str, tuple[str, int]] = {}
    n_records = 0
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the newline that ends the last line opens no new line
    for lineno, raw in enumerate(lines, start=1):
        raw = raw.rstrip("\r")
        stripped = raw.strip()
        if not stripped or stripped.startswith("//"):
            qf.entries.append(Entry(lineno, raw))
            continue
        n_records += 1
        if n_records > limits.max_records:
            problem(lineno, f"more than {limits.max_records} records (raise [limits] max_records)")
            break
        try:
            obj = json.loads(stripped)
        except json.JSONDecodeError as exc:
            problem(lineno, f"malformed JSON: {exc.msg} at column {exc.colno}")
            continue
        except RecursionError:  # "[[[[..." within the size bound overflows the decoder's stack
            problem(lineno, "malformed JSON: nested too deeply")
            continue
        if not isinstance(obj, dict):
            problem(lineno, "a record must be a JSON object")
            continue
        rid = obj.get("id") if isinstance(obj.get("id"), str) else None
        try:
            q = Question.model_validate(obj)
        except ValidationError as exc:
            for err in exc.errors():
                loc = ".".join(str(p) for p in err["loc"]) or "record"
                problem(lineno, f"{loc}: {err['msg']}", rid)
            continue
        if len(normalise_query(q.query)) > limits.max_query_chars:
            problem(lineno, f"query is over {limits.max_query_chars} characters (raise [limits] max_query_chars)",
                    q.id)
        if len(q.locators) > limits.max_locators:
            problem(lineno, f"{len(q.locators)} locators, over the bound of {limits.max_locators} "
                    "(raise [limits] max_locators)", q.id)
        if q.id in seen_ids:
            problem(lineno, f"duplicate id (first on line {seen_ids[q.id]})", q.id)
        seen_ids.setdefault(q.id, lineno)
        nq = normalise_query(q.query)
        if nq in seen_queries:
            other, other_line = seen_queries[nq]
            problem(lineno, f"same query as record {other!r} on line {other_line}", q.id)
        seen_queries.setdefault(nq, (q.id, lineno))
        qf.entries.append(Entry(lineno, raw, q))
    if problems:
        raise InvalidInput(f"{len(problems)} problem(s) in the questions file", path=path).with_details(problems)
    return qf


def questions_text(data: bytes, path: str) -> str:
    """A questions file's text as it is parsed and digested: UTF-8, a leading BOM dropped.

    ``source_sha256`` is the digest of this text, so whoever asks "did the file change on
    disk?" (the app, before a save) digests the same thing."""
    from labeller.core.canon import decode_utf8

    return decode_utf8(data, path).removeprefix("\ufeff")


def load_questions(path: Path, limits: Limits = Limits()) -> QuestionsFile:
    data = read_regular_file(path, max_bytes=limits.max_file_bytes, what="questions file",
                             bound_hint="raise [limits] max_file_bytes")
    from labeller.core.canon import sha256_hex

    text = questions_text(data, str(path))
    qf = parse_questions(text, str(path), limits)
    qf.path = path
    qf.source_sha256 = sha256_hex(text)
    return qf
