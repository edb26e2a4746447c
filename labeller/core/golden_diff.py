"""What changed in a golden set between two versions (``labeller diff``).

A reviewer of a pull request that touches ``questions.jsonl`` sees a JSONL line diff, which
says a line changed but not what that did to the labels: a one-word quote edit can move a
span to another section, and a corpus edit can move every span of a document without
touching the questions at all. So a version here is a record's question *with* the spans and
answer-bearing chunks it resolved to in that version, and a change is named by what moved.

The kinds, in the order they are reported (a record may have several):

- ``added`` / ``removed``: the id is in one version only;
- ``reworded``: the query changed; ``answer``: the expected answer changed;
- ``reanchored``: the locators were edited (quote, doc, heading, prefix, suffix, exact);
- ``moved``: the same locators resolve to other spans (the corpus changed under them);
- ``rechunked``: the same spans hit other chunks (the chunker or the text around them changed);
- ``retagged``: tags, split, hop, ``unanswerable``, the carried metadata or the traffic provenance changed.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from labeller.core.build import BuildResult
from labeller.core.check import committed_records
from labeller.core.models import Question
from labeller.errors import InvalidInput

KINDS = ("added", "removed", "reworded", "answer", "reanchored", "moved", "rechunked", "retagged")
SCHEMA = "labeller.golden-diff.v1"


@dataclass(frozen=True)
class LabelledRecord:
    """One record as one version holds it: the question, and what its labels resolved to there.

    ``broken``: some locator did not resolve in that version (a working tree mid-edit), so
    its spans are the ones that did."""

    question: Question
    spans: tuple[tuple[str, int, int], ...]
    chunk_ids: tuple[str, ...]
    broken: bool = False

    def as_json(self) -> dict:
        q = self.question
        return {"query": q.query, "expected_answer": q.expected_answer,
                "locators": [loc.as_json() for loc in q.locators],
                "spans": [{"char_end": end, "char_start": start, "doc_id": doc} for doc, start, end in self.spans],
                "answer_bearing_chunk_ids": list(self.chunk_ids), "broken": self.broken}


@dataclass(frozen=True)
class Version:
    """A golden set at one point: ``label`` names it in reports (``HEAD``, a file, the working tree)."""

    label: str
    records: dict[str, LabelledRecord]  # in file order


@dataclass(frozen=True)
class RecordChange:
    record_id: str
    kinds: tuple[str, ...]
    before: LabelledRecord | None
    after: LabelledRecord | None

    def as_json(self) -> dict:
        return {"id": self.record_id, "kinds": list(self.kinds),
                "before": None if self.before is None else self.before.as_json(),
                "after": None if self.after is None else self.after.as_json()}


def version_from_build(label: str, result: BuildResult) -> Version:
    """A version built in memory (the working tree, or a questions file against the current corpus)."""
    return Version(label, {rec.question.id: LabelledRecord(
        rec.question, tuple((s.doc_id, s.start, s.end) for s in rec.spans), tuple(rec.chunk_ids),
        broken=bool(rec.refusals)) for rec in result.records})


def version_from_artifact(label: str, questions: list[Question], artifact: bytes) -> Version:
    """A committed version: its questions and the artifact built from them at the time.

    The artifact holds the spans as that version's corpus and chunker made them, so nothing
    of that version has to be checked out or rebuilt. An artifact that does not match its
    questions (a commit made without ``labeller build``) is refused rather than diffed wrongly."""
    problems: list[str] = []
    built = committed_records(artifact, problems)
    if problems:
        raise InvalidInput(f"{label}: the committed golden-set artifact is damaged: {problems[0]}")
    records: dict[str, LabelledRecord] = {}
    for q in questions:
        rec = built.get(q.id)
        if rec is None or rec.get("query") != q.query:
            why = "has no record" if rec is None else "holds another query"
            raise InvalidInput(f"{label}: the committed artifact {why} for {q.id!r}: it was not rebuilt when "
                               "questions.jsonl changed (labeller build), so its spans cannot be trusted")
        records[q.id] = LabelledRecord(q, _spans(rec, label, q.id), tuple(_strs(rec.get("answer_bearing_chunk_ids"),
                                                                             label, q.id)))
    if len(built) != len(records):
        extra = sorted(set(built) - set(records))[:1]
        raise InvalidInput(f"{label}: the committed artifact holds records questions.jsonl does not "
                           f"({extra[0]!r}): it was not rebuilt (labeller build)")
    return Version(label, records)


def _spans(rec: dict, label: str, rid: str) -> tuple[tuple[str, int, int], ...]:
    spans = rec.get("answer_spans")
    if not isinstance(spans, list) or not all(
            isinstance(s, dict) and isinstance(s.get("doc_id"), str) and type(s.get("char_start")) is int
            and type(s.get("char_end")) is int for s in spans):
        raise InvalidInput(f"{label}: the committed artifact's answer_spans of {rid!r} are malformed")
    return tuple((s["doc_id"], s["char_start"], s["char_end"]) for s in spans)


def _strs(value, label: str, rid: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InvalidInput(f"{label}: the committed artifact's answer_bearing_chunk_ids of {rid!r} are malformed")
    return value


def compare(old: Version, new: Version) -> list[RecordChange]:
    """Every changed record: the new version's in its file order, then the removed ones in the old order."""
    changes = []
    for rid, after in new.records.items():
        before = old.records.get(rid)
        kinds = ("added",) if before is None else record_kinds(before, after)
        if kinds:
            changes.append(RecordChange(rid, kinds, before, after))
    changes += [RecordChange(rid, ("removed",), before, None)
                for rid, before in old.records.items() if rid not in new.records]
    return changes


def record_kinds(before: LabelledRecord, after: LabelledRecord) -> tuple[str, ...]:
    a, b = before.question, after.question
    found = {
        "reworded": a.query != b.query,
        "answer": a.expected_answer != b.expected_answer,
        "reanchored": a.locators != b.locators,
        "moved": a.locators == b.locators and before.spans != after.spans,
        "rechunked": before.spans == after.spans and before.chunk_ids != after.chunk_ids,
        "retagged": (a.tags, a.split, a.hop, a.unanswerable, a.metadata, a.traffic) != (
            b.tags, b.split, b.hop, b.unanswerable, b.metadata, b.traffic),
    }
    return tuple(kind for kind in KINDS if found.get(kind))


def summary(changes: list[RecordChange]) -> dict[str, int]:
    """How many records have each kind of change (every kind listed, zeros included)."""
    counts = Counter(kind for change in changes for kind in change.kinds)
    return {kind: counts[kind] for kind in KINDS}
