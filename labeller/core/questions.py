"""Reading and writing questions.jsonl without losing a byte the author meant to keep.

Loading reports every problem with its line number and record id before anything is
built; saving keeps ``//`` comment lines and blank lines where they were and writes the
records in their existing order, atomically, so ids are never renumbered or shuffled.
"""

from __future__ import annotations

import json
import os
import stat
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from pydantic import ValidationError

from labeller.config import Limits
from labeller.core.canon import decode_utf8, sha256_hex
from labeller.core.models import Question
from labeller.display import json_dumps
from labeller.errors import InvalidInput
from labeller.io import atomic_write_text, iter_jsonl, read_regular_file, refuse_many_lines


@dataclass
class Entry:
    """A line of the file: a record, or a run of comment/blank lines kept verbatim as one
    entry (``line`` its first), so blank lines cost their bytes, not an object each.

    ``raw + eol`` is the line exactly as it is (or will be) in the file: a record nobody
    changed keeps the bytes it was read from; a changed or new one gets its canonical JSON.
    """

    line: int
    raw: str
    question: Question | None = None
    eol: str = "\n"


def record_line(question: Question, like: str | None = None) -> str:
    """A record as it is written: one line of JSON, keys in model order — or, when it replaces
    a line (``like``), in that line's order, a key the line lacks after those, so that the diff
    of an edit (a repair changing a ``doc``) is the values that changed, not fields the tool
    reordered in a line written by hand or by another tool."""
    out = question.as_json()
    if like is not None:
        try:
            out = ordered_like(out, json.loads(like))
        except ValueError:  # not JSON (never for a line that loaded): the model's order
            pass
    return json_dumps(out)


def ordered_like(new, old):
    """``new`` with each object's keys in the order ``old``'s matching object has them (lists
    matched item by item), keys ``old`` lacks after those in their own order; values unchanged."""
    if isinstance(new, dict) and isinstance(old, dict):
        keys = [k for k in old if k in new] + [k for k in new if k not in old]
        return {k: ordered_like(new[k], old.get(k)) for k in keys}
    if isinstance(new, list) and isinstance(old, list):
        return [ordered_like(v, old[i] if i < len(old) else None) for i, v in enumerate(new)]
    return new


@dataclass
class QuestionsFile:
    path: Path | None
    entries: list[Entry] = field(default_factory=list)
    source_sha256: str | None = None
    bom: bool = False  # the file started with a BOM: kept on write, never part of the text or its digest

    @property
    def questions(self) -> list[Question]:
        return [e.question for e in self.entries if e.question is not None]

    def line_of(self, record_id: str) -> int | None:
        for e in self.entries:
            if e.question is not None and e.question.id == record_id:
                return e.line
        return None

    def render(self) -> str:
        """The file's text (its digest is ``source_sha256``): every line as ``raw + eol``; a
        line that lost its newline by becoming not-last gets one."""
        last = len(self.entries) - 1
        return "".join(e.raw + (e.eol or ("\n" if i < last else "")) for i, e in enumerate(self.entries))

    def edited(self, *, changed: Iterable[Question] = (), added: Iterable[Question] = (),
               deleted: Iterable[str] = (), after: Mapping[str, str] | None = None) -> "QuestionsFile":
        """A copy with these edits and nothing else: a changed record is rewritten in place
        (kept byte for byte when it equals the record on file), a deleted one loses its line,
        added ones append in order — or, when ``after`` names a kept or added record for one, go
        right after that record's line (``""``: before the first record), so a restored record
        returns to its place and the file keeps the order the author sees; comments, blank lines and every other record stay as read.
        An id that is not where the edit expects it is refused (``InvalidInput``)."""
        where = str(self.path or "questions.jsonl")
        have = {e.question.id for e in self.entries if e.question is not None}
        by_id = {q.id: q for q in changed}
        gone = set(deleted)
        new = list(added)
        for rid in sorted((set(by_id) | gone) - have):
            raise InvalidInput("the record is not in the questions file", path=where, record_id=rid)
        for rid in sorted(set(by_id) & gone):
            raise InvalidInput("the record is both changed and deleted", path=where, record_id=rid)
        for q in new:
            if q.id in have or q.id in by_id:
                raise InvalidInput("a new record's id is already in the questions file", path=where, record_id=q.id)
        placeable = (have - gone) | {q.id for q in new} | {""}  # "": before the first record
        anchored: dict[str, list[Question]] = {}
        tail: list[Question] = []
        for q in new:
            anchor = (after or {}).get(q.id)
            (anchored.setdefault(anchor, []) if anchor in placeable and anchor != q.id else tail).append(q)
        entries: list[Entry] = []

        def follow(rid: str) -> None:  # the new records placed after ``rid``, and theirs in turn
            for q in anchored.pop(rid, ()):
                entries.append(Entry(0, record_line(q), q))
                follow(q.id)

        for e in self.entries:
            old = e.question
            if old is not None and old.id in gone:
                continue
            if old is not None:
                follow("")
            if old is not None and old.id in by_id and by_id[old.id] != old:
                e = Entry(e.line, record_line(by_id[old.id], like=e.raw), by_id[old.id], e.eol)
            entries.append(e)
            if old is not None:
                follow(old.id)
        for q in tail + [q for qs in anchored.values() for q in qs]:  # (the last: anchors in a cycle)
            entries.append(Entry(0, record_line(q), q))
            follow(q.id)
        return QuestionsFile(self.path, entries, self.source_sha256, self.bom)

    def target(self, path: Path | None = None) -> Path:
        """Where this file is written: ``path``, else the file it was read from."""
        target = path or self.path
        if target is None:
            raise ValueError("a questions file built in memory needs a path to be written to")
        return Path(target)

    def save(self, path: Path | None = None, *, force: bool = False) -> None:
        """Write the file atomically; a read-only file is replaced only with ``force``."""
        target = self.target(path)
        if not force:
            refuse_read_only(target)
        atomic_write_text(target, ("\ufeff" if self.bom else "") + self.render())


def refuse_read_only(path: Path) -> None:
    """Refuse to replace a questions file someone made read-only (``chmod a-w``): the rename
    of an atomic write needs only the folder's permission, so without this check a file
    protected on purpose would be replaced as if it were not."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return
    if not st.st_mode & 0o222 or not os.access(path, os.W_OK):
        raise InvalidInput(f"the questions file is read-only (mode {stat.S_IMODE(st.st_mode):04o}); nothing was "
                           "written: make it writable first (or give `labeller import` --force)", path=str(path))


def prepare_questions(qf: QuestionsFile, *, changed: Iterable[Question] = (), added: Iterable[Question] = (),
                      deleted: Iterable[str] = (), limits: Limits = Limits(),
                      path: Path | None = None, after: Mapping[str, str] | None = None) -> QuestionsFile:
    """The minimal edit of ``qf`` (as it was loaded), checked exactly as the loader checks a
    file, not written: what ``write_questions`` would write (a dry run shows its problems).

    A file the next build would refuse (duplicate id or query, too big, too many records) is
    ``InvalidInput`` listing each problem.
    """
    target = qf.target(path)
    new = qf.edited(changed=changed, added=added, deleted=deleted, after=after)
    text = new.render()
    size = len(text.encode("utf-8")) + (3 if qf.bom else 0)
    if size > limits.max_file_bytes:
        raise InvalidInput(f"the file would be {size} bytes, over the bound of {limits.max_file_bytes} "
                           "(raise [limits] max_file_bytes); nothing was written", path=str(target))
    try:
        written = parse_questions(text, str(target), limits)
    except InvalidInput as exc:
        reasons = "; ".join(f"line {d['line']}: {d['message']}" for d in exc.details) or exc.reason
        raise InvalidInput(f"the questions file would not load after this change ({reasons}); nothing was written",
                           path=str(target)).with_details(exc.details) from None
    written.path, written.bom, written.source_sha256 = target, qf.bom, sha256_hex(text)
    return written


def write_questions(qf: QuestionsFile, *, changed: Iterable[Question] = (), added: Iterable[Question] = (),
                    deleted: Iterable[str] = (), limits: Limits = Limits(), path: Path | None = None,
                    check_unchanged_on_disk: bool = False, after: Mapping[str, str] | None = None) -> QuestionsFile:
    """The one way labeller writes questions.jsonl: ``prepare_questions`` (the minimal edit,
    checked), then one atomic write. Returns the file as written (its ``source_sha256`` is
    that of the new text). Every line the edit does not touch stays byte-identical.

    With ``check_unchanged_on_disk`` the save is refused when the file on disk is no longer
    the text ``qf`` was read from (someone else saved in between): reload and edit again.
    """
    written = prepare_questions(qf, changed=changed, added=added, deleted=deleted, limits=limits, path=path,
                                after=after)
    target = written.target()
    if check_unchanged_on_disk and (target.exists() or target.is_symlink()):
        on_disk = questions_text(read_regular_file(target, max_bytes=limits.max_file_bytes, what="questions file",
                                                   bound_hint="raise [limits] max_file_bytes"), str(target))
        if sha256_hex(on_disk) != qf.source_sha256:
            raise InvalidInput("the file changed on disk since it was read; reload it before saving",
                               path=str(target))
    written.save()
    return written


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
    gap: list[str] = []  # the comment and blank lines since the last record, each raw + eol
    gap_line, gap_eol = 0, ""

    def keep_gap() -> None:
        if gap:
            kept = "".join(gap)
            qf.entries.append(Entry(gap_line, kept[:len(kept) - len(gap_eol)], eol=gap_eol))
            gap.clear()

    refuse_many_lines(text, Path(path), limits.max_lines, "questions file", "raise [limits] max_records")
    for jl in iter_jsonl(text, path, comments=True):
        lineno, raw, obj = jl.line, jl.raw, jl.value
        if jl.skipped:
            gap_line = gap_line if gap else lineno
            gap.append(raw + jl.eol)
            gap_eol = jl.eol
            continue
        n_records += 1
        if n_records > limits.max_records:
            problem(lineno, f"more than {limits.max_records} records (raise [limits] max_records)")
            break
        if jl.error is not None:
            problem(lineno, jl.error)
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
        keep_gap()
        qf.entries.append(Entry(lineno, raw, q, jl.eol))
    keep_gap()
    if problems:
        raise InvalidInput(f"{len(problems)} problem(s) in the questions file", path=path).with_details(problems)
    return qf


def questions_text(data: bytes, path: str) -> str:
    """A questions file's text as it is parsed and digested: UTF-8, a leading BOM dropped.

    ``source_sha256`` is the digest of this text, so whoever asks "did the file change on
    disk?" (the app, before a save) digests the same thing."""
    return decode_utf8(data, path).removeprefix("\ufeff")


def load_questions(path: Path, limits: Limits = Limits(), reuse: QuestionsFile | None = None) -> QuestionsFile:
    """The questions file as it is on disk now. ``reuse``: an earlier parse of this path under
    the same limits; when the file's text (and BOM) is still the one it was parsed from, its
    records are taken instead of parsing them again (an eval reads the file twice: the run
    reader's golden ids, then the build; 20,000 records are half a second a parse). The
    file is always read and digested, so an edit on disk is always seen."""
    data = read_regular_file(path, max_bytes=limits.max_file_bytes, what="questions file",
                             bound_hint="raise [limits] max_file_bytes")
    text = questions_text(data, str(path))
    digest, bom = sha256_hex(text), data.startswith(b"\xef\xbb\xbf")
    if reuse is not None and (reuse.path, reuse.source_sha256, reuse.bom) == (path, digest, bom):
        return replace(reuse, entries=list(reuse.entries))  # Entries are never changed in place (``edited`` copies)
    qf = parse_questions(text, str(path), limits)
    qf.path = path
    qf.source_sha256 = digest
    qf.bom = bom
    return qf
