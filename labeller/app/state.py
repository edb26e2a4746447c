"""The authoring session: every piece of app state, kept outside the widgets.

Widgets show a session and post messages; screens turn those messages into calls on the
session; the session turns them into calls on ``labeller.core``. Nothing here imports
Textual, so all of it is testable without a terminal, and no labelling rule is decided
here: resolution, expansion, chunk hits, suggestions, validation of records and of the
whole file, the build and its summary all come from the core.

What the session adds is the authoring bookkeeping the core has no reason to know:
drafts (records being edited, which may not be valid yet), which of them differ from
the file on disk, the journal that keeps them across a crash, the check that the file
did not change under the author, and which labels went stale when the corpus moved.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Protocol

from pydantic import ValidationError
from rapidfuzz import fuzz, utils

from labeller.app.journal import Journal, JournalEntry
from labeller.config import ProjectConfig, load_config
from labeller.core.anchors import fold_quote
from labeller.core.build import BuildResult, RecordResult, build, resolve_record, write_artifacts
from labeller.core.canon import decode_utf8, sha256_hex
from labeller.core.chunkers import Chunk
from labeller.core.corpus import Document
from labeller.core.models import Locator, Question, record_json
from labeller.core.project import Project
from labeller.core.questions import QuestionsFile, parse_questions
from labeller.core.resolve import MAX_LISTED_OCCURRENCES, Refusal, Span
from labeller.errors import InvalidInput, LabellerError
from labeller.review.log import STATUS_LABELS, read_review_log

# -- the copy warning ----------------------------------------------------------------------
#
# A query that repeats the wording of its own answer measures string matching, not
# retrieval: BM25 finds it because the words are the same. We score the query against the
# span with rapidfuzz's partial_ratio after its default processing (lower case, punctuation
# to spaces, trimmed): the best alignment of the whole query with any stretch of the span of
# the same length, 0-100. At 85 or more the query is a near-verbatim copy of a passage (a
# word or two changed); below that it is paraphrase or shared topic words. A warning only:
# some questions legitimately use the document's own terms.
COPY_WARN_THRESHOLD = 85.0

STATUS_RESOLVED = "resolved"
STATUS_NOT_FOUND = "not found"
STATUS_AMBIGUOUS = "ambiguous"
STATUS_UNANSWERABLE = "unanswerable"
STATUS_STALE = "stale"
STATUS_INCOMPLETE = "incomplete"
STATUS_PENDING = "…"
STATUSES = (STATUS_RESOLVED, STATUS_NOT_FOUND, STATUS_AMBIGUOUS, STATUS_UNANSWERABLE, STATUS_STALE,
            STATUS_INCOMPLETE)


def copy_score(query: str, span_text: str) -> float:
    """How closely the query copies a stretch of its answer span (0-100, see above)."""
    return fuzz.partial_ratio(query, span_text, processor=utils.default_process)


# -- drafts ---------------------------------------------------------------------------------

def _opt_str(value) -> str | None:
    return value if isinstance(value, str) else None


@dataclass(frozen=True)
class LocatorDraft:
    """A locator as the author is typing it; may be incomplete (both fields empty)."""

    doc: str | None = None
    quote: str | None = None
    heading: str | None = None
    exact: bool | None = None

    @classmethod
    def from_locator(cls, loc: Locator) -> "LocatorDraft":
        return cls(doc=loc.doc, quote=loc.quote, heading=loc.heading, exact=loc.exact)

    @classmethod
    def from_json(cls, obj: dict) -> "LocatorDraft":
        exact = obj.get("exact")
        return cls(doc=_opt_str(obj.get("doc")), quote=_opt_str(obj.get("quote")),
                   heading=_opt_str(obj.get("heading")), exact=exact if isinstance(exact, bool) else None)

    def as_json(self) -> dict:
        out = {"doc": self.doc, "quote": self.quote, "exact": self.exact, "heading": self.heading}
        return {k: v for k, v in out.items() if v is not None}

    def to_locator(self) -> Locator:
        """The validated core locator (raises pydantic's ``ValidationError``)."""
        return Locator.model_validate(self.as_json())

    def describe(self) -> str:
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
    hop: str = "single"
    tags: tuple[str, ...] = ()
    split: str | None = None
    unanswerable: bool | None = None

    @classmethod
    def from_question(cls, q: Question) -> "Draft":
        return cls(id=q.id, query=q.query, expected_answer=q.expected_answer,
                   locators=tuple(LocatorDraft.from_locator(loc) for loc in q.locators), hop=q.hop,
                   tags=tuple(q.tags), split=q.split, unanswerable=q.unanswerable)

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
                   hop=obj.get("hop") if obj.get("hop") in ("single", "multi") else "single",
                   tags=tuple(t for t in tags if isinstance(t, str)) if isinstance(tags, list) else (),
                   split=obj.get("split") if obj.get("split") in ("dev", "test", "holdout") else None,
                   unanswerable=un if isinstance(un, bool) else None)

    def as_json(self) -> dict:
        return record_json(self)

    def to_question(self) -> Question:
        return Question.model_validate(self.as_json())

    def problems(self) -> list[str]:
        """Why this draft is not a valid record yet (the model's own messages)."""
        try:
            self.to_question()
        except ValidationError as exc:
            return [f"{'.'.join(str(p) for p in e['loc']) or 'record'}: {e['msg'].removeprefix('Value error, ')}"
                    for e in exc.errors()]
        return []

    def unchecked_question(self, locators: list[Locator] | None = None) -> Question:
        """The draft as a core ``Question`` without record-level validation, so one locator of
        a half-written record can be resolved by the core's own ``resolve_record``."""
        return Question.model_construct(id=self.id, query=self.query, expected_answer=self.expected_answer,
                                        locators=list(locators or []), hop="single", tags=list(self.tags),
                                        split=self.split, unanswerable=None)


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


# -- live resolution ------------------------------------------------------------------------

@dataclass(frozen=True)
class ChunkInfo:
    """An answer-bearing chunk and its boundaries, for the preview."""

    chunk_id: str
    ordinal: int
    n_in_doc: int
    start: int
    end: int
    first_line: int  # 1-based
    last_line: int


@dataclass(frozen=True)
class Preview:
    """One locator resolved by the core, as the app shows it live."""

    record_id: str
    index: int
    locator: LocatorDraft
    span: Span | None = None
    refusal: Refusal | None = None
    error: str | None = None
    chunks: tuple[ChunkInfo, ...] = ()
    coverage: float | None = None
    copy_score: float | None = None
    # "not_found" or "ambiguous" as soon as the occurrences are counted, while the core's
    # suggestions (nearest passages, unique extensions) are still being computed
    pending: str | None = None
    occurrences: tuple[tuple[str, int, int], ...] = ()  # with ``pending``: where the quote occurs
    places: tuple[tuple[str, int, int], ...] = ()  # where the suggested passages are (doc, start, end)

    @property
    def status(self) -> str:
        if self.error is not None:
            return "invalid"
        if self.span is not None:
            return STATUS_RESOLVED
        if self.refusal is not None:
            return self.refusal.kind.replace("_", " ")
        return self.pending.replace("_", " ") if self.pending else "invalid"

    @property
    def copies_answer(self) -> bool:
        return self.copy_score is not None and self.copy_score >= COPY_WARN_THRESHOLD


def chunk_infos(project: Project, doc_id: str, chunk_ids: list[str]) -> tuple[ChunkInfo, ...]:
    wanted = set(chunk_ids)
    chunks = project.chunks.get(doc_id, [])
    doc = project.corpus[doc_id]
    return tuple(ChunkInfo(c.chunk_id, c.ordinal, len(chunks), c.start, c.end, doc.line_of(c.start) + 1,
                           doc.line_of(max(c.start, c.end - 1)) + 1)
                 for c in chunks if c.chunk_id in wanted)


def _validation_message(exc: ValidationError) -> str:
    return "; ".join(e["msg"].removeprefix("Value error, ") for e in exc.errors())


def quick_preview(project: Project, draft: Draft, index: int) -> Preview | None:
    """The answer for a quote found zero or several times, before the core's suggestions.

    Counting occurrences is one scan of the folded corpus; the suggestions for a refused
    quote (nearest passages over every chunk, the unique extension of each occurrence)
    take far longer on a large corpus, so the app shows "not found" / "ambiguous" (and
    where the occurrences are) first. ``None`` when the full resolution is just as quick:
    one occurrence, a section locator, or a locator the core refuses before searching.
    """
    ld = draft.locators[index]
    try:
        loc = ld.to_locator()
    except ValidationError:
        return None
    if loc.quote is None or (loc.doc is not None and loc.doc not in project.corpus):
        return None
    folded = fold_quote(loc.quote)
    hits = project.resolver.index.find_all([folded], loc.doc)[folded]
    if len(hits) == 1:
        return None
    return Preview(draft.id, index, ld, pending="ambiguous" if hits else "not_found",
                   occurrences=tuple((h.doc_id, h.start, h.end) for h in hits[:MAX_LISTED_OCCURRENCES]))


def suggested_places(project: Project, refusal: Refusal) -> tuple[tuple[str, int, int], ...]:
    """Where each nearest-passage suggestion of a refusal lies, so the document view can
    show it (the suggestion names a line and column; the view needs offsets)."""
    places = []
    for sug in refusal.suggestions:
        quote = sug.get("quote")
        if quote and sug.get("doc") in project.corpus:
            hits = project.resolver.index.find_all([quote], sug["doc"])[quote]
            places.extend((h.doc_id, h.start, h.end) for h in hits[:1])
    return tuple(places)


def preview_locator(project: Project, draft: Draft, index: int) -> Preview:
    """Resolve one locator of a draft exactly as ``labeller build`` would (``resolve_record``)."""
    ld = draft.locators[index]
    try:
        loc = ld.to_locator()
    except ValidationError as exc:
        return Preview(draft.id, index, ld, error=_validation_message(exc))
    try:
        rec = resolve_record(project, draft.unchecked_question([loc]))
    except LabellerError as exc:  # a chunker bug is loud here too, never hidden
        return Preview(draft.id, index, ld, error=str(exc))
    if rec.refusals:
        refusal = rec.refusals[0]
        return Preview(draft.id, index, ld, refusal=refusal, places=suggested_places(project, refusal))
    span = rec.spans[0]
    text = project.corpus[span.doc_id].text[span.start:span.end]
    return Preview(draft.id, index, ld, span=span, chunks=chunk_infos(project, span.doc_id, rec.chunk_ids),
                   coverage=rec.coverage[0], copy_score=copy_score(draft.query, text) if draft.query.strip()
                   else None)


def locator_statuses(draft: Draft, result: RecordResult | None) -> list[str]:
    """Each locator's status in a record resolution (``invalid`` for one that is not a
    locator yet). ``resolve_record`` gives each valid locator one span or one refusal."""
    locs: list[Locator | None] = []
    for ld in draft.locators:
        try:
            locs.append(ld.to_locator())
        except ValidationError:
            locs.append(None)
    out = [STATUS_RESOLVED if loc is not None else "invalid" for loc in locs]
    if result is None:
        return out
    taken: set[int] = set()
    for r in result.refusals:
        same = [i for i, loc in enumerate(locs) if loc == r.locator and i not in taken]
        if same:
            # of two equal locators the second is the duplicate; any other refusal hits both
            i = same[-1] if r.kind == "duplicate_span" else same[0]
            taken.add(i)
            out[i] = r.kind.replace("_", " ")
    return out


def resolve_locators(project: Project, draft: Draft) -> tuple[RecordResult | None, list[str]]:
    """The record resolution of a valid draft, and the status of each of its locators (also
    for a draft that is not a valid record yet, resolving the locators it has)."""
    if not draft.problems():
        result = resolve_record(project, draft.to_question())
        return result, locator_statuses(draft, result)
    valid = []
    for ld in draft.locators:
        try:
            valid.append(ld.to_locator())
        except ValidationError:
            pass
    partial = resolve_record(project, draft.unchecked_question(valid)) if valid else None
    return None, locator_statuses(draft, partial)


# -- what the document view draws ------------------------------------------------------

_LIST_MARKER = re.compile(r"^[ \t]*(?:>[ \t]?)*([-*+]|\d{1,9}[.)])(?=\s|$)")
_STRUCTURE_KINDS = {"heading": "heading", "code": "code", "html": "html"}


def structure_styles(project: Project, doc_id: str) -> dict[int, list[tuple[int, int | None, str]]]:
    """Per 0-based line, the Markdown structure to style: ``(col start, col end or None, kind)``.

    Taken from the core's own block parse (the one expansion uses), so what the author
    sees as a heading, code block, table or list item is what the build treats as one.
    """
    doc = project.corpus[doc_id]
    blocks = project.resolver.blocks(doc_id)
    out: dict[int, list[tuple[int, int | None, str]]] = {}

    def add(line: int, c0: int, c1: int | None, kind: str) -> None:
        out.setdefault(line, []).append((c0, c1, kind))

    for line in range(blocks.front_matter_lines):
        add(line, 0, None, "front-matter")
    for unit in blocks.leaves:
        kind = _STRUCTURE_KINDS.get(unit.kind)
        if kind:
            for line in range(unit.first, unit.last + 1):
                add(line, 0, None, kind)
    for table in blocks.tables:
        for line in range(table.first, table.last + 1):
            add(line, 0, None, "table")
    for item in blocks.items:
        text = doc.text[doc.line_starts[item.first]:doc.line_end(item.first)]
        m = _LIST_MARKER.match(text)
        if m:
            add(item.first, m.start(1), m.end(1), "marker")
    return out


# -- nudging a quote by a word --------------------------------------------------------------

def nudge_range(text: str, start: int, end: int, how: str) -> tuple[int, int] | None:
    """Move one boundary of ``text[start:end]`` by one word; ``None`` when it cannot move.

    A word is a run of non-whitespace characters, the unit the core's unique-extension
    suggestion grows by; the quote always keeps at least one word.
    """
    s, e = start, end
    if how == "grow_start":
        while s > 0 and text[s - 1].isspace():
            s -= 1
        while s > 0 and not text[s - 1].isspace():
            s -= 1
    elif how == "grow_end":
        n = len(text)
        while e < n and text[e].isspace():
            e += 1
        while e < n and not text[e].isspace():
            e += 1
    elif how == "shrink_start":
        while s < e and not text[s].isspace():
            s += 1
        while s < e and text[s].isspace():
            s += 1
        if s >= e:
            return None
    elif how == "shrink_end":
        while e > s and not text[e - 1].isspace():
            e -= 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if e <= s:
            return None
    else:
        raise ValueError(f"unknown nudge {how!r}")
    if (s, e) == (start, end) or not text[s:e].strip():
        return None
    return s, e


def quote_from_range(doc: Document, start: int, end: int) -> str:
    """The quote a selection of canonical text stands for: the core's folded form, so a
    selection across a line wrap is stored on one line and still matches the same place."""
    return fold_quote(doc.text[start:end])


def trimmed_start(doc: Document, start: int, end: int) -> int:
    """Where the quote of ``[start, end)`` starts once its leading whitespace is trimmed."""
    while start < end and doc.text[start].isspace():
        start += 1
    return start


# -- filtering the question list ------------------------------------------------------------

@dataclass(frozen=True)
class QuestionFilter:
    text: str = ""
    tag: str | None = None
    split: str | None = None
    status: str | None = None

    def matches(self, draft: Draft, status: str) -> bool:
        if self.tag is not None and self.tag not in draft.tags:
            return False
        if self.split is not None and draft.split != self.split:
            return False
        if self.status is not None and status != self.status:
            return False
        needle = self.text.strip().casefold()
        if needle:
            hay = " ".join([draft.id, draft.query, draft.expected_answer, *draft.tags]).casefold()
            return all(word in hay for word in needle.split())
        return True


# -- corpus search ----------------------------------------------------------------------------

class Searcher(Protocol):
    """Ranks chunks for a query; returns hits with ``.chunk`` and ``.score``, best first."""

    def __call__(self, query: str, k: int) -> list: ...


def default_searcher(project: Project) -> Searcher:
    """The eval's BM25 index over the chunks, so what an author finds in the search box is
    what ``labeller eval`` retrieves (same index, same analysis)."""
    from labeller.eval.retrievers import bm25

    bm25.BM25Retriever.for_project(project)  # load the cached index (or build it) now, not on first search
    return lambda query, k: bm25.search(project, query, k)


# -- stale labels -----------------------------------------------------------------------------

@dataclass
class CommittedState:
    """What the last committed build said: which documents changed since, and which
    documents each record's spans were in. A record is *stale* when it fails to resolve
    now and one of its committed documents changed or disappeared."""

    changed_docs: set[str] = field(default_factory=set)
    record_docs: dict[str, set[str]] = field(default_factory=dict)

    @classmethod
    def read(cls, config: ProjectConfig, project: Project) -> "CommittedState":
        try:
            manifest = json.loads(config.manifest_path.read_text(encoding="utf-8"))
            docs = manifest.get("docs") or {}
        except (OSError, ValueError, AttributeError):
            return cls()
        corpus = project.corpus
        changed = {d for d, info in docs.items()
                   if d not in corpus or not isinstance(info, dict) or corpus[d].sha256 != info.get("sha256")}
        record_docs: dict[str, set[str]] = {}
        try:
            lines = config.artifact_path.read_text(encoding="utf-8").splitlines()
        except (OSError, ValueError):
            lines = []
        for line in lines:
            try:
                rec = json.loads(line)
                record_docs[str(rec["query_id"])] = {str(s["doc_id"]) for s in rec["answer_spans"]}
            except (ValueError, KeyError, TypeError):
                continue  # a damaged artifact only means fewer records are recognised as stale
        return cls(changed, record_docs)

    def is_stale(self, record_id: str, result: RecordResult | None) -> bool:
        return bool(result is not None and result.refusals
                    and self.record_docs.get(record_id, set()) & self.changed_docs)


# -- saving ---------------------------------------------------------------------------------

@dataclass
class SaveOutcome:
    """What a save did, for the status line and the tests."""

    conflict: bool = False
    written: bool = False
    held_back: dict[str, list[str]] = field(default_factory=dict)  # drafts not valid yet: id -> problems
    file_problems: list[dict] = field(default_factory=list)  # the loader's refusal of the whole file
    artifact_written: bool = False
    artifact_reason: str = ""  # why the artifact was not rebuilt
    refusals: list[Refusal] = field(default_factory=list)
    build: BuildResult | None = None
    questions: list[Question] = field(default_factory=list)  # what was written, for the rebuild
    generation: int = 0
    committed: "CommittedState | None" = None

    def message(self) -> str:
        if self.conflict:
            return "questions.jsonl changed on disk since it was loaded; nothing was written"
        if not self.written:
            probs = "; ".join(f"line {p.get('line')}: {p.get('message')}" for p in self.file_problems[:3])
            return f"not saved: the file would be refused ({probs})"
        parts = ["saved questions.jsonl"]
        if self.held_back:
            parts.append(f"{len(self.held_back)} unfinished draft(s) kept in the journal, not written: "
                         + ", ".join(sorted(self.held_back)))
        if self.artifact_written:
            parts.append("golden set and manifest rebuilt")
        else:
            parts.append(f"golden set NOT rebuilt: {self.artifact_reason}")
        return "; ".join(parts)


def file_sha256(path: Path) -> str | None:
    """The questions file's digest as ``load_questions`` computes it (after a leading BOM)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    try:
        text = decode_utf8(data, str(path))
    except InvalidInput:
        return "not-utf-8:" + hashlib.sha256(data).hexdigest()  # changed, whatever it was before
    return sha256_hex(text.removeprefix("\ufeff"))


# -- the session ----------------------------------------------------------------------------

class AuthoringSession:
    """A project, its questions file, the drafts being edited and their resolution.

    Methods that only read (``compute``, ``resolve_draft``, ``rebuild``, the previews) may
    run in worker threads on a snapshot of drafts; everything that changes the session
    runs on the app's thread. A stored resolution is used only while it was computed from
    the record's current draft, so a late worker can never show a stale status.
    """

    def __init__(self, project: Project, qfile: QuestionsFile, journal: Journal | None = None,
                 searcher_factory: Callable[[Project], Searcher] = default_searcher) -> None:
        self.project = project
        self.config = project.config
        self.journal = journal if journal is not None else Journal(self.config.root / ".labeller")
        self._searcher_factory = searcher_factory
        self._searcher: Searcher | None = None
        self.results: dict[str, RecordResult] = {}
        self.committed = CommittedState()
        self.ready = False  # chunks, quote index and statuses computed
        self._review_log = None  # golden/reviews.jsonl as last read, and the stat it was read at
        self._review_stamp: tuple[int, int] | None | bool = False
        self.last_build: BuildResult | None = None
        self._save_generation = 0
        self._rebuild_lock = threading.Lock()
        self._set_file(qfile)

    @classmethod
    def open(cls, root: Path | str = ".", **kwargs) -> "AuthoringSession":
        """Load config, questions and the corpus; every refusal here is a clean exit 2."""
        from labeller.core.cache import DigestCache

        config = load_config(root)
        project = Project(config, DigestCache(config.cache_dir))
        qfile = project.load_questions()
        project.corpus  # noqa: B018 - load now so an unsafe corpus is refused before the UI starts
        return cls(project, qfile, **kwargs)

    def _set_file(self, qfile: QuestionsFile) -> None:
        self.qfile = qfile
        self.baseline: dict[str, Question] = {q.id: q for q in qfile.questions}
        self.order: list[str] = [q.id for q in qfile.questions]
        self.drafts: dict[str, Draft] = {q.id: Draft.from_question(q) for q in qfile.questions}
        self._dirty_memo: dict[str, tuple[Draft, bool]] = {}

    # -- resolving (thread-safe readers, app-thread writers) ----------------------------------

    def prepare(self) -> None:
        """Chunk the corpus and index it for quotes (slow on a big corpus: run in a worker)."""
        p = self.project
        p.chunks, p.resolver  # noqa: B018 - compute the cached properties once, off the UI thread
        self.committed = CommittedState.read(self.config, p)

    def snapshot(self) -> list[Draft]:
        return [self.drafts[i] for i in self.order]

    def compute(self, drafts: list[Draft]) -> BuildResult:
        """Resolve every valid draft in one build (one multi-pattern search for all quotes)."""
        return build(self.project, [d.to_question() for d in drafts if not d.problems()])

    def store(self, result: BuildResult) -> None:
        self.last_build = result
        self.results = {r.question.id: r for r in result.records}
        self.ready = True

    def store_record(self, result: RecordResult) -> None:
        self.results[result.question.id] = result

    # -- reading ------------------------------------------------------------------------

    def iter_drafts(self):
        return (self.drafts[i] for i in self.order)

    def draft(self, record_id: str) -> Draft:
        return self.drafts[record_id]

    def is_dirty(self, record_id: str) -> bool:
        # Asked for every record on each keystroke (the journal holds the dirty ones), so
        # the answer is kept until the draft object is replaced: drafts are immutable and
        # the baseline only changes with the file (``_set_file`` drops the memo).
        draft = self.drafts[record_id]
        memo = self._dirty_memo.get(record_id)
        if memo is not None and memo[0] is draft:
            return memo[1]
        base = self.baseline.get(record_id)
        dirty = base is None or base.as_json() != draft.as_json()
        self._dirty_memo[record_id] = (draft, dirty)
        return dirty

    @property
    def dirty(self) -> bool:
        return any(self.is_dirty(i) for i in self.order) or bool(self.deleted_ids())

    def deleted_ids(self) -> list[str]:
        return sorted(set(self.baseline) - set(self.drafts))

    def result(self, record_id: str) -> RecordResult | None:
        """The last resolution of the record, only if it was computed from the current draft."""
        res = self.results.get(record_id)
        if res is None or res.question.as_json() != self.drafts[record_id].as_json():
            return None
        return res

    def status(self, record_id: str) -> tuple[str, str]:
        """``(status, detail)`` for the question list."""
        draft = self.drafts[record_id]
        problems = draft.problems()
        if problems:
            return STATUS_INCOMPLETE, problems[0]
        if draft.unanswerable:
            return STATUS_UNANSWERABLE, ""
        res = self.result(record_id)
        if res is None:
            return STATUS_PENDING, "resolving"
        if not res.refusals:
            return STATUS_RESOLVED, ""
        first = res.refusals[0]
        if self.committed.is_stale(record_id, res):
            return STATUS_STALE, first.message
        kinds = {r.kind for r in res.refusals}
        for kind in ("ambiguous", "not_found"):
            if kind in kinds:
                return kind.replace("_", " "), first.message
        return first.kind.replace("_", " "), first.message

    def review_statuses(self) -> dict[str, str]:
        """Review status per record (reviewed / needs re-review / flagged / unreviewed).

        Read from golden/reviews.jsonl, which ``labeller review`` appends to from outside the
        app too; re-read only when the file changes. An unsaved edit of a reviewed record
        already shows as needing re-review: the review covered the record as it was.
        """
        path = self.config.review_log
        try:
            st = path.stat()
            stamp = (st.st_mtime_ns, st.st_size)
        except OSError:
            stamp = None
        if self._review_stamp != stamp:
            try:
                self._review_log = read_review_log(path)
            except LabellerError:
                self._review_log = None
            self._review_stamp = stamp
        out: dict[str, str] = {}
        for d in self.iter_drafts():
            if self._review_log is None or d.problems():
                continue
            out[d.id] = STATUS_LABELS[self._review_log.status(d.to_question())]
        return out

    def rows(self, flt: QuestionFilter = QuestionFilter()) -> list[tuple[Draft, str]]:
        out = []
        for d in self.iter_drafts():
            status, _ = self.status(d.id)
            if flt.matches(d, status):
                out.append((d, status))
        return out

    def all_tags(self) -> list[str]:
        return sorted({t for d in self.iter_drafts() for t in d.tags})

    def broken_records(self) -> list[str]:
        """Records whose labels are refused, stale ones first: the re-anchoring walk's order."""
        broken = [i for i in self.order if (res := self.result(i)) is not None and res.refusals]
        return sorted(broken, key=lambda i: self.status(i)[0] != STATUS_STALE)

    def first_refused_locator(self, record_id: str) -> int:
        """Index of the first locator the core refused (0 when none can be matched)."""
        res = self.result(record_id)
        if res is None or not res.refusals:
            return 0
        bad = res.refusals[0].locator
        for i, ld in enumerate(self.drafts[record_id].locators):
            if ld.as_json() == bad.as_json():
                return i
        return 0

    # -- editing -------------------------------------------------------------------------

    def _touched(self) -> None:
        self.write_journal()

    def new_record(self) -> str:
        rid = next_record_id([*self.order, *self.baseline])
        self.drafts[rid] = Draft(id=rid, locators=(LocatorDraft(),))
        self.order.append(rid)
        self._touched()
        return rid

    def delete_record(self, record_id: str) -> None:
        self.drafts.pop(record_id)
        self.order.remove(record_id)
        self._touched()

    def update(self, record_id: str, **fields) -> Draft:
        """Change fields of a draft (query, expected_answer, hop, tags, split, unanswerable, locators)."""
        if "id" in fields:
            raise ValueError("ids are never renumbered")
        if "tags" in fields:
            fields["tags"] = tuple(fields["tags"])
        new = replace(self.drafts[record_id], **fields)
        if new != self.drafts[record_id]:
            self.drafts[record_id] = new
            self._touched()
        return new

    def set_locator(self, record_id: str, index: int, loc: LocatorDraft) -> Draft:
        d = self.drafts[record_id]
        if d.locators[index] == loc:
            return d
        locs = list(d.locators)
        locs[index] = loc
        return self.update(record_id, locators=tuple(locs))

    def add_locator(self, record_id: str, loc: LocatorDraft | None = None) -> int:
        d = self.drafts[record_id]
        self.update(record_id, locators=(*d.locators, loc or LocatorDraft()))
        return len(d.locators)

    def remove_locator(self, record_id: str, index: int) -> None:
        d = self.drafts[record_id]
        self.update(record_id, locators=tuple(loc for i, loc in enumerate(d.locators) if i != index))

    def apply_suggestion(self, record_id: str, index: int, suggestion: dict) -> LocatorDraft:
        """Accept one of the core's suggestions for a refused locator (never done on its own).

        ``suggestion`` is an entry of ``Refusal.suggestions`` (a nearest passage, or a section
        locator for a heading-only span) or of ``Refusal.occurrences`` (an occurrence with its
        shortest unique extension).
        """
        old = self.drafts[record_id].locators[index]
        if suggestion.get("heading"):
            new = LocatorDraft(doc=suggestion["doc"], heading=suggestion["heading"])
        elif suggestion.get("extension"):
            new = replace(old, quote=suggestion["extension"], heading=None)
        elif suggestion.get("quote"):
            doc = old.doc if old.doc is not None or suggestion.get("unique") else suggestion.get("doc")
            new = replace(old, quote=suggestion["quote"], doc=doc, heading=None)
        else:
            raise ValueError("not a suggestion")
        self.set_locator(record_id, index, new)
        return new

    # -- search ------------------------------------------------------------------------------

    def warm_search(self) -> Searcher:
        """The corpus search, its index built or loaded on first use (slow: a worker's job)."""
        if self._searcher is None:
            self._searcher = self._searcher_factory(self.project)
        return self._searcher

    def search(self, query: str, k: int = 20) -> list:
        if not query.strip():
            return []
        return self.warm_search()(query, k)

    # -- coverage ------------------------------------------------------------------------

    def coverage(self, result: BuildResult) -> dict:
        """The build's own summary (labels per document, unlabelled documents, single / multi /
        negative counts) plus labels per tag, over every valid draft."""
        summary = dict(result.summary)
        per_tag: dict[str, dict[str, int]] = {}
        for rec in result.records:
            for tag in rec.question.tags or ["(no tag)"]:
                row = per_tag.setdefault(tag, {"records": 0, "spans": 0})
                row["records"] += 1
                row["spans"] += len(rec.spans)
        summary["labels_per_tag"] = dict(sorted(per_tag.items()))
        return summary

    # -- journal -------------------------------------------------------------------------

    def journal_entry(self) -> JournalEntry:
        return JournalEntry(questions=self._questions_rel(), base_sha256=self.qfile.source_sha256,
                            drafts=[self.drafts[i].as_json() for i in self.order if self.is_dirty(i)],
                            deleted=self.deleted_ids())

    def _questions_rel(self) -> str:
        try:
            return self.config.questions.relative_to(self.config.root).as_posix()
        except ValueError:
            return str(self.config.questions)

    def write_journal(self) -> None:
        if self.dirty:
            self.journal.write(self.journal_entry())
        else:
            self.journal.clear()

    def restore(self, entry: JournalEntry) -> list[str]:
        """Re-apply a journal's drafts over the loaded file; returns the restored ids.

        Records keep the file's order (the app never reorders); new records go at the end.
        """
        restored = []
        for obj in entry.drafts:
            d = Draft.from_json(obj)
            if d.id not in self.drafts:
                self.order.append(d.id)
            self.drafts[d.id] = d
            restored.append(d.id)
        for rid in entry.deleted:
            if rid in self.drafts and rid not in restored:
                del self.drafts[rid]
                self.order.remove(rid)
        self.write_journal()
        return restored

    # -- saving ----------------------------------------------------------------------------

    def disk_changed(self) -> bool:
        return file_sha256(self.config.questions) != self.qfile.source_sha256

    def save_questions(self, *, overwrite: bool = False) -> SaveOutcome:
        """Write questions.jsonl atomically (keeping comments, order and ids).

        Refuses (``conflict``) when the file changed on disk since it was loaded, unless
        ``overwrite`` (the author chose "keep mine"). Drafts that are not valid records yet
        are not written: their last saved version (if any) stays in the file and the draft
        stays in the journal. The golden set is rebuilt afterwards by ``rebuild``.
        """
        out = SaveOutcome()
        if not overwrite and self.disk_changed():
            out.conflict = True
            return out
        questions: list[Question] = []
        for d in self.iter_drafts():
            problems = d.problems()
            if problems:
                out.held_back[d.id] = problems
                if d.id in self.baseline:
                    questions.append(self.baseline[d.id])
            else:
                questions.append(d.to_question())
        candidate = QuestionsFile(self.qfile.path, list(self.qfile.entries), self.qfile.source_sha256)
        candidate.replace(questions)
        text = candidate.render()
        try:
            # the loader's own checks (duplicate ids and queries, bounds) decide what may be written
            written = parse_questions(text, str(self.config.questions), self.config.limits)
        except InvalidInput as exc:
            out.file_problems = exc.details or [{"message": str(exc)}]
            return out
        candidate.path = self.config.questions
        candidate.save()
        written.path = self.config.questions
        written.source_sha256 = sha256_hex(text)
        drafts = self.drafts
        self._set_file(written)
        for rid, d in drafts.items():  # unfinished drafts stay as they were, in the journal
            if rid in out.held_back:
                if rid not in self.drafts:
                    self.order.append(rid)
                self.drafts[rid] = d
        out.written = True
        out.questions = questions
        self._save_generation += 1
        out.generation = self._save_generation
        self.write_journal()
        return out

    def rebuild(self, out: SaveOutcome) -> SaveOutcome:
        """Build the saved records and write the artifact and manifest if every label resolves
        (thread-safe; a rebuild overtaken by a newer save writes nothing)."""
        with self._rebuild_lock:
            if out.generation != self._save_generation:
                out.artifact_reason = "a newer save rebuilds it"
                return out
            try:
                result = build(self.project, out.questions)
            except LabellerError as exc:
                out.artifact_reason = str(exc)
                return out
            out.build = result
            out.refusals = result.refusals
            if not result.ok:
                ids = sorted({str(r.record_id) for r in result.refusals})
                out.artifact_reason = (f"{len(result.refusals)} label error(s) in {', '.join(ids)}; "
                                       "the previous artifact was left as it was")
            else:
                write_artifacts(self.project, result)
                out.artifact_written = True
                out.committed = CommittedState.read(self.config, self.project)
        return out

    def finish_save(self, out: SaveOutcome) -> None:
        """Take a rebuild's results in (app thread)."""
        if out.build is not None:
            self.store(out.build)
        if out.committed is not None:
            self.committed = out.committed

    def reload(self) -> list[str]:
        """Load questions.jsonl again from disk and put the author's edits back on top of it.

        Used after a conflict ("reload"): the other writer's records come in, and every
        record the author had edited keeps the author's version. Returns the kept ids.
        """
        mine = self.journal_entry()
        self._set_file(self.project.load_questions())
        return self.restore(mine) if mine.drafts or mine.deleted else []

    def reload_corpus(self) -> None:
        """Read the corpus again (after it was edited); ``prepare`` and ``compute`` follow."""
        self.project = Project(self.config, self.project.cache)
        self._searcher = None
        self.ready = False


# -- the eval tab -----------------------------------------------------------------------------
#
# The numbers come from ``labeller.eval.runner.run_eval`` (what ``labeller eval`` runs) on
# questions.jsonl as saved; these helpers only pick out what one view shows.

DRILL_DEPTH = 20


def run_eval(project: Project, progress):
    """One eval of the saved golden set with the eval's default retriever (BM25)."""
    from labeller.eval.runner import run_eval as run

    return run(project, progress=progress)


@dataclass(frozen=True)
class GoldSpan:
    span: Span
    text: str
    rank: int | None  # rank of the first retrieved chunk that hits it


@dataclass(frozen=True)
class RetrievedChunk:
    rank: int
    score: float
    chunk: Chunk
    hits_gold: bool


@dataclass(frozen=True)
class DrillDown:
    """A query's gold spans beside what was retrieved for it."""

    query_id: str
    query: str
    gold: tuple[GoldSpan, ...]
    retrieved: tuple[RetrievedChunk, ...]


def drill_down(project: Project, result, query_id: str, depth: int = DRILL_DEPTH) -> DrillDown:
    from labeller.core.hitrules import parse_hit_rule
    from labeller.eval.metrics import ChunkPositions, relevant_chunk_ids

    row = next(r for r in result.report["queries"] if r["query_id"] == query_id)
    rec = next(r for r in result.build.records if r.question.id == query_id)
    rule = parse_hit_rule(result.report["fingerprint"]["hit_rule"])
    relevant = relevant_chunk_ids(rec.spans, ChunkPositions(project.all_chunks), rule)
    first: dict[str, Chunk] = {}
    for c in project.all_chunks:
        first.setdefault(c.chunk_id, c)
    gold = tuple(GoldSpan(s, project.corpus[s.doc_id].text[s.start:s.end], rank)
                 for s, rank in zip(rec.spans, row["hit_ranks"]))
    retrieved = tuple(RetrievedChunk(i, h.score, first[h.chunk_id], h.chunk_id in relevant)
                      for i, h in enumerate(result.hits.get(query_id, [])[:depth], 1) if h.chunk_id in first)
    return DrillDown(query_id, rec.question.query, gold, retrieved)


def leak_places(project: Project, result, finding: dict) -> list:
    """Where a leak finding's quoted queries occur in its document (``LeakLocation`` list)."""
    from labeller.eval.leaks import leak_locations

    return leak_locations(project.all_chunks, finding, result.build.records, project.corpus.docs)
