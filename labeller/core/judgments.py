"""Judgments (SPEC §11): a person's verdict on a pooled passage, kept as a span like a label.

A golden set is incomplete: a retriever that returns another passage that also answers is
scored as a miss. Judging the pooled passages records what is known about them. A judgment
names its passage by a quote locator, not by a chunk id, so it survives a change of chunker
and edits elsewhere in the document exactly as labels do; it is resolved by the build's own
resolver (``Resolver.resolve``: strict, no folding but whitespace), so a judgment whose text
was edited stops resolving and is reported *stale* rather than silently judging new text.

``golden/judgments.jsonl`` has no id field: a judgment is one judge's verdict on one passage
for one question, so its key is ``(query_id, judge, doc, quote, prefix, suffix)`` — the
merge driver (``merge3.record_key``) keys it the same way, and recording a verdict again
for the same key replaces the line in place.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr, ValidationError, model_validator

from labeller.core.context import shortest_context
from labeller.core.models import Locator
from labeller.core.project import Project
from labeller.core.questions import QuestionsFile, prepare_questions, refuse_read_only
from labeller.core.resolve import Refusal, Resolver, Span
from labeller.core.vocab import BlockKind, Place, RefusalKind
from labeller.display import json_dumps
from labeller.errors import InvalidInput, JudgmentRefused
from labeller.io import atomic_write_text, iter_jsonl, read_regular_file, refuse_many_lines

JUDGMENTS_MAX_BYTES = 64 * 1024 * 1024  # one line per judged passage: thousands of chunk-sized quotes
JUDGMENTS_MAX_LINES = 1_000_000  # a judgment line is at least ~70 bytes; 64 MiB of newlines is 64 million lines

Key = tuple[str, str, str, str, str | None, str | None]


class Judgment(BaseModel):
    """One line of judgments.jsonl: ``{query_id, doc, quote, prefix?, suffix?, relevant, judge, note?}``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    query_id: StrictStr = Field(min_length=1)
    doc: StrictStr = Field(min_length=1)
    quote: StrictStr
    prefix: StrictStr | None = None
    suffix: StrictStr | None = None
    relevant: StrictBool
    judge: StrictStr = Field(min_length=1)
    note: StrictStr | None = None

    @model_validator(mode="after")
    def _locator_valid(self) -> "Judgment":
        self.locator  # noqa: B018 - Locator's own checks (empty quote, blank context) refuse the line
        return self

    @property
    def locator(self) -> Locator:
        return Locator(doc=self.doc, quote=self.quote, prefix=self.prefix, suffix=self.suffix)

    @property
    def key(self) -> Key:
        return (self.query_id, self.judge, self.doc, self.quote, self.prefix, self.suffix)

    @property
    def passage_key(self) -> tuple:
        """The passage and question without the judge: what two judges agree or disagree on."""
        return self.key[:1] + self.key[2:]

    def line(self) -> str:
        return json_dumps(self.model_dump(exclude_none=True), sort_keys=True)


@dataclass
class JudgmentsFile:
    """The file as read: each line either kept as it was (comments, blank) or a judgment."""

    path: Path
    lines: list[str | Judgment] = field(default_factory=list)

    @property
    def judgments(self) -> list[Judgment]:
        return [x for x in self.lines if isinstance(x, Judgment)]

    def line_of(self) -> dict[Key, int]:
        return {x.key: i + 1 for i, x in enumerate(self.lines) if isinstance(x, Judgment)}

    def with_verdicts(self, new: Iterable[Judgment]) -> "JudgmentsFile":
        """The file with ``new`` recorded: a judgment with the key of an existing line replaces
        it where it stands, others are appended in the order given (the last of equal keys wins)."""
        lines = list(self.lines)
        at = {x.key: i for i, x in enumerate(lines) if isinstance(x, Judgment)}
        for j in new:
            if j.key in at:
                lines[at[j.key]] = j
            else:
                at[j.key] = len(lines)
                lines.append(j)
        return JudgmentsFile(self.path, lines)

    def render(self) -> str:
        return "".join((x.line() if isinstance(x, Judgment) else x) + "\n" for x in self.lines)

    def save(self) -> None:
        atomic_write_text(self.path, self.render())


def parse_judgments(data: str | bytes, path: Path) -> JudgmentsFile:
    """Every judgment of the file; any bad line refuses the whole file (exit 2), each problem
    named by path, line and question id, so a scorer never reads half a file."""
    out = JudgmentsFile(path)
    problems: list[dict] = []
    seen: dict[Key, int] = {}
    refuse_many_lines(data, path, JUDGMENTS_MAX_LINES, "judgments file")
    for jl in iter_jsonl(data, str(path), comments=True):
        if jl.skipped:
            out.lines.append(jl.raw)
            continue
        qid = jl.value.get("query_id") if isinstance(jl.value, dict) else None
        where = {"path": str(path), "line": jl.line, "id": qid if isinstance(qid, str) else None}
        if jl.error is not None:
            problems.append(where | {"message": jl.error})
            continue
        try:
            j = Judgment.model_validate(jl.value)
        except ValidationError as exc:
            problems.extend(where | {"message": f"{'.'.join(map(str, e['loc'])) or 'judgment'}: {e['msg']}"}
                            for e in exc.errors())
            continue
        if j.key in seen:
            problems.append(where | {"message": f"the same judge judged the same passage for this question on line "
                                                f"{seen[j.key]}; keep one line"})
            continue
        seen[j.key] = jl.line
        out.lines.append(j)
    if problems:
        raise InvalidInput(f"{len(problems)} problem(s) in the judgments file", path=str(path)).with_details(problems)
    return out


def load_judgments(project: Project) -> JudgmentsFile:
    """``golden/judgments.jsonl`` (an empty file when there is none yet)."""
    path = project.layout.judgments
    if not path.exists() and not path.is_symlink():
        return JudgmentsFile(path)
    return parse_judgments(read_regular_file(path, max_bytes=JUDGMENTS_MAX_BYTES, what="judgments file"), path)


@dataclass(frozen=True)
class ResolvedJudgment:
    judgment: Judgment
    span: Span

    @property
    def place(self) -> Place:
        return self.span.place


@dataclass
class JudgmentSet:
    """The judgments that resolve, by question, and the stale ones (with why)."""

    resolved: list[ResolvedJudgment] = field(default_factory=list)
    stale: list[dict] = field(default_factory=list)

    def of(self, query_id: str) -> list[ResolvedJudgment]:
        return self._by_query.get(query_id, [])

    @property
    def _by_query(self) -> dict[str, list[ResolvedJudgment]]:
        by = self.__dict__.get("_by")
        if by is None:
            by = self.__dict__["_by"] = {}
            for r in self.resolved:
                by.setdefault(r.judgment.query_id, []).append(r)
        return by

    def judged_places(self, query_id: str) -> list[Place]:
        return [r.place for r in self.of(query_id)]

    def relevant_places(self, query_id: str) -> list[Place]:
        return [r.place for r in self.of(query_id) if r.judgment.relevant]


def resolve_judgment(resolver: Resolver, j: Judgment, found: dict | None = None) -> Span | Refusal:
    """A judgment's span: its locator resolved as a label's (found exactly once, expanded to
    blocks), except that a passage starting in YAML front matter keeps its own range. A label
    there is refused because metadata is not answer text; but a retriever that indexes front
    matter returns chunks that start with it, and a verdict on such a chunk ("not relevant")
    must be recordable for the chunk to count as judged."""
    res = resolver.resolve(j.locator, j.query_id, found)
    if isinstance(res, Refusal) and res.kind == RefusalKind.FRONT_MATTER:
        place = resolver.locate(j.locator, j.query_id, found)
        if isinstance(place, Place):
            return Span(place.doc, place.start, place.end, BlockKind.EXACT, place.start, place.end)
    return res


def resolve_judgments(project: Project, jf: JudgmentsFile, question_ids: Iterable[str]) -> JudgmentSet:
    """Resolve every judgment like a label; one that no longer resolves (its text was edited,
    its document removed, its question deleted) is stale: listed, never scored."""
    judgments = jf.judgments
    if not judgments:  # no resolver (quote index, blocks) for a project that judged nothing
        return JudgmentSet()
    known = set(question_ids)
    resolver = project.resolver
    lines = jf.line_of()
    found = resolver.search_locators(j.locator for j in judgments)
    out = JudgmentSet()
    for j in judgments:
        where = {"path": str(jf.path), "line": lines[j.key], "id": j.query_id, "judge": j.judge,
                 "locator": j.locator.as_json()}
        if j.query_id not in known:
            out.stale.append(where | {"kind": "unknown_question",
                                      "message": f"no question {j.query_id!r} in the questions file"})
            continue
        try:
            res = resolve_judgment(resolver, j, found)
        except InvalidInput as exc:
            out.stale.append(where | {"kind": "invalid", "message": exc.reason})
            continue
        if isinstance(res, Refusal):
            out.stale.append(where | {"kind": str(res.kind), "message": f"stale judgment: {res.message} (the judged "
                                      "text changed or moved; judge the passage again)"})
            continue
        out.resolved.append(ResolvedJudgment(j, res))
    return out


def stale_judgments(project: Project, question_ids: Iterable[str]) -> list[dict]:
    """What ``build --check`` lists: every judgment that no longer resolves, with why."""
    return resolve_judgments(project, load_judgments(project), question_ids).stale


def passage_locator(project: Project, place: Place) -> Locator:
    """The locator a judgment of the passage at ``place`` (a chunk's range) records: its text
    as the quote, pinned to its document, with the shortest context that makes it unique
    there (two chunks of one document may have the same text). Refused when the passage
    cannot be told from another occurrence by any context."""
    text = project.corpus[place.doc].text[place.start:place.end]
    quote = text.strip()
    if not quote:
        raise JudgmentRefused(f"the passage {place.doc}[{place.start}:{place.end}] is blank")
    lead = len(text) - len(text.lstrip())
    own = Place(place.doc, place.start + lead, place.start + lead + len(quote))
    ctx = shortest_context(project.resolver.index, own, quote, place.doc)
    if ctx is None:
        raise JudgmentRefused(f"the passage {place.doc}[{place.start}:{place.end}] occurs again in {place.doc} with "
                              "the same text around it; no quote can single it out")
    return Locator(doc=place.doc, quote=quote, prefix=ctx.prefix, suffix=ctx.suffix)


def promoted_questions(project: Project, judgments: Iterable[Judgment]) -> tuple[QuestionsFile | None, list[str]]:
    """questions.jsonl with each relevant judgment's locator added to its question (once,
    after its own locators), checked as the loader checks it but not written (None: nothing
    to add); and the ids of the questions that change."""
    qf = project.load_questions()
    questions = {q.id: q for q in qf.questions}
    added: dict[str, list[Locator]] = {}
    for j in judgments:
        if j.relevant and j.query_id in questions and j.locator not in (
                questions[j.query_id].locators + added.get(j.query_id, [])):
            added.setdefault(j.query_id, []).append(j.locator)
    changed = [questions[qid].model_copy(update={"locators": [*questions[qid].locators, *locs]})
               for qid, locs in added.items()]
    if not changed:
        return None, []
    return prepare_questions(qf, changed=changed, limits=project.config.limits), sorted(added)


def record_verdicts(project: Project, judgments: list[Judgment], *, promoted: bool = False) -> tuple[int, list[str]]:
    """Check every judgment resolves (all or none), write them into judgments.jsonl (a judge's
    new verdict on a passage replaces the old one), and with ``promoted`` add the relevant
    ones as locators. Returns how many replaced an earlier verdict, and the promoted ids.
    Every check comes before the first write: a refusal writes neither file."""
    check_recordable(project, judgments)
    jf = load_judgments(project)
    before = {j.key for j in jf.judgments}
    new_questions, ids = promoted_questions(project, judgments) if promoted else (None, [])
    if new_questions is not None:
        refuse_read_only(new_questions.target())
    jf.with_verdicts(judgments).save()
    if new_questions is not None:
        new_questions.save()
    return sum(1 for j in judgments if j.key in before), ids


def check_recordable(project: Project, judgments: list[Judgment]) -> list[Span]:
    """The span of each judgment about to be recorded; any that does not resolve refuses the
    whole batch (nothing written), each named with its question and reason."""
    resolver = project.resolver
    found = resolver.search_locators(j.locator for j in judgments)
    spans, problems = [], []
    for j in judgments:
        res = resolve_judgment(resolver, j, found)
        if isinstance(res, Refusal):
            problems.append({"id": j.query_id, "kind": str(res.kind), "locator": j.locator.as_json(),
                             "message": res.message})
        else:
            spans.append(res)
    if problems:
        raise JudgmentRefused(f"{len(problems)} verdict(s) name a passage that does not resolve to one place; nothing "
                              "was recorded: " + "; ".join(f"{p['id']}: {p['message']}" for p in problems[:5])
                              ).with_details(problems)
    return spans
