"""What every import and export shares: reading untrusted files, turning foreign labels into
locators, checking them against the corpus, and merging the survivors into questions.jsonl.

Foreign formats label documents, sections or chunk ids; labeller labels spans. The
conversions here are the only ones allowed, and each is exact or refused:

- a section ``{path, heading}`` is a section locator;
- a chunk id of this corpus is an ``exact`` quote of that chunk's whole text, so the span lies
  in that chunk and in no other;
- a whole document ``{path}`` is the section locator of the one heading whose section holds
  all of the document's chunked text (front matter aside); a document with text outside
  every such section (a preamble, two top-level sections) cannot be one span, and its record
  is kept out rather than approximated by a part of it.

Imports never guess. A label the corpus cannot resolve keeps its record out and is counted;
a malformed or unsafe file (bad JSON/YAML, traversal, bounds) stops the import with exit 2
and writes nothing.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from labeller.core.build import RecordResult, resolve_record
from labeller.core.canon import decode_utf8
from labeller.core.corpus import check_relative_doc_id
from labeller.core.models import Locator, Question
from labeller.core.project import Project
from labeller.config import Limits
from labeller.core.questions import QuestionsFile, load_questions, normalise_query, prepare_questions
from labeller.core.resolve import Refusal, Span
from labeller.core.vocab import SPLITS
from labeller.errors import InvalidInput
from labeller.io import read_regular_file


# -- reading untrusted files -----------------------------------------------------------------


def read_text(path: Path, limits: Limits, what: str) -> str:
    """A label file as text: no symlink in any path component, regular, bounded, strict UTF-8."""
    data = read_regular_file(path, max_bytes=limits.max_file_bytes, what=what,
                             bound_hint="raise [limits] max_file_bytes in labeller.toml")
    text = decode_utf8(data, str(path))
    return text[1:] if text.startswith("\ufeff") else text


def require_str(value, what: str, where: str) -> str:
    if not isinstance(value, str):
        raise InvalidInput(f"{where}: {what} must be a string, not {type(value).__name__}")
    return value


def refuse_unknown_keys(obj: dict, allowed: set[str], required: set[str], where: str) -> None:
    unknown = sorted(set(obj) - allowed)
    if unknown:
        raise InvalidInput(f"{where}: unknown key(s) {', '.join(map(repr, unknown))}; allowed: "
                           f"{', '.join(sorted(allowed))}")
    missing = sorted(required - set(obj))
    if missing:
        raise InvalidInput(f"{where}: missing key(s) {', '.join(map(repr, missing))}")


def tsv_field(value: str, what: str, record_id: str) -> str:
    """An id written into a whitespace- or tab-separated file must not contain the separator
    (nor control characters, which would reach whatever terminal the file is shown on)."""
    if not value or any(ch.isspace() or unicodedata.category(ch) == "Cc" for ch in value):
        raise InvalidInput(f"{what} {value!r} is empty or holds whitespace or control characters, which this "
                           "format cannot hold", record_id=record_id)
    return value


# -- what a foreign file says ------------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    """One foreign label: a document, a section, a corpus id (chunk id or path), or a locator."""

    kind: str  # "document" | "section" | "corpus_id" | "locator"
    doc: str | None = None
    heading: str | None = None
    ident: str | None = None
    locator: Locator | None = None


@dataclass
class Candidate:
    """A record read from a foreign file, before it meets the corpus.

    ``negative`` marks a record the file declares has no answer in the corpus (an empty
    list, or judgments that are all non-relevant); ``skip`` is set when the file itself rules
    the record out (a skip reason, judgments without query text).
    """

    id: str
    query: str
    where: str
    targets: list[Target] = field(default_factory=list)
    negative: bool = False
    fields: dict = field(default_factory=dict)  # expected_answer, tags, split, hop (what the format holds)
    skip: tuple[str, str] | None = None  # (kind, message) when the file itself rules the record out


@dataclass
class KeptOut:
    record_id: str
    where: str
    kind: str
    message: str

    def as_json(self) -> dict:
        return {"id": self.record_id, "where": self.where, "kind": self.kind, "message": self.message}


@dataclass
class Incoming:
    """Everything a format reader found: candidates plus notes for the summary."""

    candidates: list[Candidate]
    notes: list[str] = field(default_factory=list)


# -- documents, sections and chunks as locators ----------------------------------------------


class LabelMapper:
    """Converts foreign labels to locators for one project, caching per document."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self._whole: dict[str, tuple[str | None, str]] = {}
        self._chunks: dict[str, list] | None = None

    def whole_document(self, doc_id: str) -> tuple[str | None, str]:
        """``(heading, "")`` when one section is the whole document, else ``(None, reason)``.

        "Whole" means: the section's span holds every non-blank character of every chunk of
        the document outside YAML front matter, so under ``any_overlap`` its answer-bearing
        chunks are exactly the document's chunks; a chunk made only of front matter is the one
        thing left out (front matter is never answer text). Under ``span_containment`` no chunk
        contains a section (its heading line lies in none), and the import reports ``no_hit``.
        The earliest heading that qualifies wins, so the answer is unique.
        """
        if doc_id not in self._whole:
            self._whole[doc_id] = self._find_whole(doc_id)
        return self._whole[doc_id]

    def answer_text(self, chunk) -> tuple[int, int] | None:
        """The non-blank extent of a chunk outside YAML front matter (the chunker does not
        know front matter, so a chunk can start inside it), or None if nothing is left."""
        doc = self.project.corpus[chunk.doc_id]
        fm_lines = self.project.resolver.blocks(chunk.doc_id).front_matter_lines
        starts = doc.line_starts
        lo = max(chunk.start, starts[fm_lines] if fm_lines < len(starts) else len(doc.text))
        piece = doc.text[lo:chunk.end]
        if not piece.strip():
            return None
        return lo + len(piece) - len(piece.lstrip()), lo + len(piece.rstrip())

    def _find_whole(self, doc_id: str) -> tuple[str | None, str]:
        resolver = self.project.resolver
        extents = [e for c in resolver.chunks_of(doc_id) if (e := self.answer_text(c)) is not None]
        if not extents:
            return None, "the document holds no answer text (no chunk outside its front matter)"
        first, last = min(a for a, _ in extents), max(b for _, b in extents)
        blocks = resolver.blocks(doc_id)
        for h in blocks.headings:
            if not h.text:
                continue
            span = resolver.resolve(Locator(doc=doc_id, heading=h.text))
            if isinstance(span, Span) and span.start <= first and last <= span.end:
                return h.text, ""
        return None, ("no single section covers the whole document (text before its first heading, or more "
                      "than one top-level section), so a whole-document label cannot be one span; label a "
                      "section or a quote instead")

    def _chunk_index(self) -> dict[str, list]:
        if self._chunks is None:
            self._chunks = {}
            for c in self.project.all_chunks:
                self._chunks.setdefault(c.chunk_id, []).append(c)
        return self._chunks

    def is_chunk_id(self, ident: str) -> bool:
        return ident in self._chunk_index()

    def chunk_locator(self, chunk_id: str) -> Locator | KeptOut | None:
        """The exact quote of a chunk's text, or None if ``chunk_id`` is no chunk of this corpus."""
        found = self._chunk_index().get(chunk_id)
        if not found:
            return None
        if len(found) > 1:
            return KeptOut("", "", "duplicate_chunk_id",
                           f"chunk id {chunk_id[:12]}… names {len(found)} chunks of {found[0].doc_id} with "
                           "identical text; one span cannot name them apart")
        c = found[0]
        extent = self.answer_text(c)
        if extent is None:
            return KeptOut("", "", "front_matter", f"chunk {chunk_id[:12]}… of {c.doc_id} holds only front matter, "
                           "which is metadata, not answer text")
        return Locator(doc=c.doc_id, quote=self.project.corpus[c.doc_id].text[extent[0]:extent[1]], exact=True)

    def locator(self, target: Target, cand: Candidate) -> Locator | KeptOut:
        corpus = self.project.corpus
        if target.kind == "locator":
            return target.locator
        if target.kind == "corpus_id":
            found = self.chunk_locator(target.ident)
            if isinstance(found, KeptOut):
                return KeptOut(cand.id, cand.where, found.kind, found.message)
            if found is not None:
                if target.ident in corpus:
                    return KeptOut(cand.id, cand.where, "ambiguous_id",
                                   f"{target.ident!r} is both a chunk id and a document path")
                return found
            if target.ident not in corpus:
                cfg = self.project.config
                return KeptOut(cand.id, cand.where, "unknown_id",
                               f"{target.ident!r} is neither a chunk id of this corpus ({cfg.chunker}, max_chars "
                               f"{cfg.max_chars}) nor a document path in it")
            target = Target("document", doc=target.ident)
        if target.doc not in corpus:
            return KeptOut(cand.id, cand.where, "unknown_doc", f"document {target.doc!r} is not in the corpus")
        if target.kind == "section":
            return Locator(doc=target.doc, heading=target.heading)
        heading, reason = self.whole_document(target.doc)
        if heading is None:
            return KeptOut(cand.id, cand.where, "whole_document", f"{target.doc}: {reason}")
        return Locator(doc=target.doc, heading=heading)

    def document_labels(self, rec: RecordResult) -> list[tuple[str, str | None]]:
        """A built record as ``(doc, heading or None)`` labels, for document/section formats.

        A section locator keeps its heading, unless its section is the whole document (then it
        is the document); any other span widens to its document. One document label absorbs
        the section labels of the same document, since it already holds them.
        """
        per_doc: dict[str, list[str | None]] = {}
        for loc, span in zip(rec.question.locators, rec.spans):
            heading = None
            if loc.heading is not None:
                whole, _ = self.whole_document(span.doc_id)
                heading = None if loc.heading.strip() == whole else loc.heading.strip()
            per_doc.setdefault(span.doc_id, []).append(heading)
        out: list[tuple[str, str | None]] = []
        for doc, headings in per_doc.items():
            if None in headings:
                out.append((doc, None))
            else:
                out.extend((doc, h) for h in dict.fromkeys(headings))
        return out


# -- relevance judgments (TREC qrels, BEIR qrels) ---------------------------------------------


@dataclass
class Judgments:
    """qrels rows grouped by query id, in first-seen order: ``{qid: {corpus_id: relevance}}``."""

    rows: dict[str, dict[str, int]] = field(default_factory=dict)
    where: dict[str, str] = field(default_factory=dict)

    def add(self, qid: str, corpus_id: str, rel: str, where: str) -> None:
        try:
            value = int(rel)
        except ValueError:
            raise InvalidInput(f"{where}: relevance {rel!r} is not an integer") from None
        judged = self.rows.setdefault(qid, {})
        if corpus_id in judged:
            raise InvalidInput(f"{where}: query {qid!r} judges {corpus_id!r} twice")
        judged[corpus_id] = value
        self.where.setdefault(qid, where)

    def update(self, other: "Judgments") -> None:
        """Add another file's judgments (a query judged in two files is the caller's to flag)."""
        for qid, rows in other.rows.items():
            self.rows.setdefault(qid, {}).update(rows)
            self.where.setdefault(qid, other.where[qid])


def candidates_from_judgments(judgments: Judgments, queries: dict[str, tuple[str, str]],
                              extra: dict[str, dict] | None = None) -> tuple[list[Candidate], int]:
    """Records for every judged query: relevance > 0 labels a corpus id; a query judged only
    non-relevant is a negative. Returns the candidates (in the queries file's order, then
    judged ids the queries file lacks) and how many queries were never judged.

    ``extra`` holds per-query fields the format carries (labeller's own metadata in BEIR).
    """
    extra = extra or {}
    out: list[Candidate] = []
    for qid, (text, where) in queries.items():
        fields = dict(extra.get(qid, {}))
        negative = fields.get("unanswerable") is True
        if negative:
            del fields["unanswerable"]  # set again from ``negative`` once the record is built
        if qid not in judgments.rows:
            if negative:  # declared a negative by the file's own metadata
                out.append(Candidate(qid, text, where, negative=True, fields=fields))
            continue
        relevant = [cid for cid, rel in judgments.rows[qid].items() if rel > 0]
        out.append(Candidate(qid, text, where, [Target("corpus_id", ident=cid) for cid in relevant],
                             negative=not relevant, fields=fields))
    for qid, where in judgments.where.items():
        if qid not in queries:
            out.append(Candidate(qid, "?", where, skip=("no_query", "judged, but the queries file has no text "
                                                                    "for this id")))
    never = sum(1 for qid in queries if qid not in judgments.rows and not extra.get(qid, {}).get("unanswerable"))
    return out, never


# -- import: candidates -> questions -----------------------------------------------------------


@dataclass
class ImportPlan:
    questions: list[Question]
    kept_out: list[KeptOut]
    read: int


def _validation_problems(exc: ValidationError, cand: Candidate) -> list[dict]:
    return [{"path": cand.where, "id": cand.id,
             "message": f"{'.'.join(str(p) for p in e['loc']) or 'record'}: {e['msg']}"} for e in exc.errors()]


def plan_import(project: Project, incoming: Incoming, source: str) -> ImportPlan:
    """Check every candidate against the bounds and the corpus; split them into the questions
    to merge and the records kept out (with why). Malformed input raises ``InvalidInput``."""
    limits = project.config.limits
    cands = incoming.candidates
    if len(cands) > limits.max_records:
        raise InvalidInput(f"{len(cands)} records, over the bound of {limits.max_records} "
                           "(raise [limits] max_records in labeller.toml)", path=source)
    mapper = LabelMapper(project)
    problems: list[dict] = []
    seen: dict[str, str] = {}
    for cand in cands:
        def problem(message: str) -> None:
            problems.append({"path": cand.where, "id": cand.id, "message": message})

        if cand.id in seen:
            problem(f"duplicate id (first at {seen[cand.id]})")
        seen.setdefault(cand.id, cand.where)
        if len(normalise_query(cand.query)) > limits.max_query_chars:
            problem(f"query is over {limits.max_query_chars} characters (raise [limits] max_query_chars)")
        if len(cand.targets) > limits.max_locators:
            problem(f"{len(cand.targets)} labels, over the bound of {limits.max_locators} "
                    "(raise [limits] max_locators)")
        for t in cand.targets:
            doc = t.locator.doc if t.locator is not None else t.doc
            if t.kind == "corpus_id" and not mapper.is_chunk_id(t.ident):
                doc = t.ident  # not a chunk id, so it is read as a document path
            if doc is not None:
                try:
                    check_relative_doc_id(doc)
                except InvalidInput as exc:
                    problem(exc.reason)
    if problems:
        raise InvalidInput(f"{len(problems)} problem(s) in the file; nothing was imported",
                           path=source).with_details(problems)
    questions: list[Question] = []
    kept_out: list[KeptOut] = []
    for cand in cands:
        if cand.skip is not None:
            kept_out.append(KeptOut(cand.id, cand.where, *cand.skip))
            continue
        locs: list[Locator] = []
        refused = None
        for t in cand.targets:
            got = mapper.locator(t, cand)
            if isinstance(got, KeptOut):
                refused = got
                break
            if t.kind != "locator" and got in locs:
                continue  # a document and its whole-document section name one place: one label
            locs.append(got)
        if refused is not None:
            kept_out.append(refused)
            continue
        data = {"id": cand.id, "query": cand.query, "expected_answer": "", "locators": locs, **cand.fields}
        if cand.negative:
            data["unanswerable"] = True
        if data.get("hop") == "multi" and len(locs) < 2:
            kept_out.append(KeptOut(cand.id, cand.where, "hop", "a multi-hop record needs two labels in "
                                    f"different places; these resolve to {len(locs)}"))
            continue
        try:
            q = Question.model_validate(data)
        except ValidationError as exc:
            problems.extend(_validation_problems(exc, cand))
            continue
        rec = resolve_record(project, q)
        invalid = [r for r in rec.refusals if r.kind == "invalid"]
        if invalid:
            problems.extend({"path": cand.where, "id": cand.id, "message": r.message} for r in invalid)
        elif rec.refusals:
            kept_out.append(_refused(cand, rec.refusals))
        else:
            questions.append(q)
    if problems:
        raise InvalidInput(f"{len(problems)} problem(s) in the file; nothing was imported",
                           path=source).with_details(problems)
    return ImportPlan(questions, kept_out, len(cands))


def _refused(cand: Candidate, refusals: list[Refusal]) -> KeptOut:
    def short(loc: Locator) -> str:
        text = loc.describe()
        return text if len(text) <= 80 else text[:79] + "…"

    message = "; ".join(f"{short(r.locator)}: {r.message}" for r in refusals)
    return KeptOut(cand.id, cand.where, refusals[0].kind, message)


# -- merge into questions.jsonl ------------------------------------------------------------------


@dataclass
class Merge:
    added: list[str]
    replaced: list[str]
    qf: QuestionsFile


def merge(project: Project, questions: list[Question], replace: bool) -> Merge:
    """Merge imported records into questions.jsonl (in memory; the caller saves atomically).

    Existing records keep their lines and comments; a replaced record keeps its line; new
    records append in file order. The merged text is checked by ``prepare_questions`` with
    the project's bounds, so a merge can never write a file the next build would refuse.
    """
    cfg = project.config
    path = cfg.questions
    if path.exists() or path.is_symlink():
        qf = load_questions(path, cfg.limits)
    else:
        qf = QuestionsFile(path=path)
    existing = {q.id for q in qf.questions}
    incoming = {q.id: q for q in questions}
    clashes = [q.id for q in questions if q.id in existing]
    if clashes and not replace:
        details = [{"path": str(path), "id": i, "message": "id already in the questions file"} for i in clashes]
        raise InvalidInput(f"{len(clashes)} imported id(s) already exist; use --replace to overwrite those "
                           "records (nothing was written)", path=str(path)).with_details(details)
    merged = prepare_questions(qf, changed=[incoming[i] for i in clashes],
                               added=[q for q in questions if q.id not in existing], limits=cfg.limits)
    return Merge(added=[q.id for q in questions if q.id not in existing], replaced=clashes, qf=merged)
