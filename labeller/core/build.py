"""The build: questions.jsonl + corpus → golden-set.v1.jsonl + its manifest.

The artifact is derived, never edited, and byte-identical for unchanged inputs (sorted
keys, file order, no timestamps), which is what lets ``build --check`` compare bytes.
A build with any refusal writes nothing.
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass, field, replace

from labeller import __version__
from labeller.core.cache import SCALAR, Codec, as_list, check, conforms, strs
from labeller.core.answer_text import LazyDigests, answer_digests
from labeller.core.canon import CANONICAL_VERSION
from labeller.core.chunkers import chunker_spec
from labeller.core.coldbuild import prepare_cold_build
from labeller.core.expansion import EXPANSION_VERSION
from labeller.core.hitrules import union_coverage
from labeller.core.models import Question
from labeller.core.outputs import check_output
from labeller.core.project import Project
from labeller.core.resolve import Refusal, Span, locator_error
from labeller.core.suggest import BUILD_HELP_BUDGET, RECORD_HELP_BUDGET, WorkBudget, suggest
from labeller.core.vocab import Place, RefusalKind
from labeller.display import json_dumps
from labeller.errors import InvalidInput
from labeller.io import atomic_write_bytes


@dataclass
class RecordResult:
    question: Question
    spans: list[Span] = field(default_factory=list)
    chunk_ids: list[str] = field(default_factory=list)
    coverage: list[float] = field(default_factory=list)
    refusals: list[Refusal] = field(default_factory=list)

    def to_data(self) -> dict:
        """The record as plain data for the build cache, without its question (the cache key
        holds the digest of the questions, so the caller has them)."""
        return {"spans": [s.to_data() for s in self.spans], "chunk_ids": self.chunk_ids,
                "coverage": self.coverage, "refusals": [r.to_data() for r in self.refusals]}

    @classmethod
    def from_data(cls, data, question: Question) -> "RecordResult":
        """What ``to_data`` wrote, every field's type checked (a cache miss otherwise)."""
        check(type(data) is dict and set(data) == {"spans", "chunk_ids", "coverage", "refusals"})
        coverage = as_list(data["coverage"])
        check(all(type(x) is float for x in coverage))
        return cls(question, [Span.from_data(s) for s in as_list(data["spans"])], strs(data["chunk_ids"]),
                   coverage, [Refusal.from_data(r) for r in as_list(data["refusals"])])


@dataclass
class BuildResult:
    records: list[RecordResult]
    manifest: dict
    summary: dict

    @property
    def refusals(self) -> list[Refusal]:
        return [r for rec in self.records for r in rec.refusals]

    @property
    def ok(self) -> bool:
        return not self.refusals

    def to_data(self) -> dict:
        summary = dict(self.summary)
        summary["chunks_per_record"] = list(map(list, summary["chunks_per_record"].items()))  # keys are ints
        return {"records": [r.to_data() for r in self.records], "manifest": self.manifest, "summary": summary}

    @classmethod
    def from_data(cls, data, questions: list[Question]) -> "BuildResult":
        """What ``to_data`` wrote for these questions, every field's type checked."""
        conforms(data, {"records": list, "manifest": MANIFEST_SHAPE, "summary": SUMMARY_SHAPE})
        records = as_list(data["records"], len(questions))
        summary = dict(data["summary"])
        check(all(len(pair) == 2 for pair in summary["chunks_per_record"]))
        summary["chunks_per_record"] = dict(summary["chunks_per_record"])
        return cls([RecordResult.from_data(r, q) for r, q in zip(records, questions)], data["manifest"], summary)

    def artifact_bytes(self) -> bytes:
        return "".join(json_dumps(artifact_record(r, self.manifest), sort_keys=True) + "\n"
                       for r in self.records).encode("utf-8")

    def manifest_bytes(self) -> bytes:
        return (json_dumps(self.manifest, sort_keys=True, indent=2) + "\n").encode("utf-8")


def artifact_record(rec: RecordResult, manifest: dict) -> dict:
    q = rec.question
    out = {
        "answer_bearing_chunk_ids": rec.chunk_ids,
        "answer_spans": [s.as_json() for s in rec.spans],
        "canonical_version": manifest["canonical_version"],
        "chunker_version": manifest["chunker_version"],
        "expected_answer": q.expected_answer,
        "hop": q.hop,
        "query": q.query,
        "query_id": q.id,
        "span_union_coverage": rec.coverage,
        "tags": list(q.tags),
    }
    if q.split is not None:
        out["split"] = q.split
    if q.unanswerable is not None:
        out["unanswerable"] = q.unanswerable
    return out


def resolve_record(project: Project, q: Question, found: dict | None = None, *,
                   suggestions: bool = True, budget: WorkBudget | None = None) -> RecordResult:
    """Resolve every locator of one record and derive its answer-bearing chunks.

    Each refusal comes with its suggestions (``suggest.suggest``) unless ``suggestions`` is
    false: then the refusals are bare, and cheap, for a caller that shows them first and
    asks for the help later. ``budget`` (the build's) bounds what the help of this record
    may cost, with a share of its own.
    """
    rec = RecordResult(q)
    resolver = project.resolver
    rule = project.hit_rule
    seen: dict[Place, int] = {}
    share = budget.share(RECORD_HELP_BUDGET) if budget is not None else None
    for i, loc in enumerate(q.locators):
        try:
            res = resolver.resolve(loc, q.id, found)
        except InvalidInput as exc:
            res = locator_error(exc, loc, q.id)
        if isinstance(res, Refusal):
            rec.refusals.append(suggest(resolver, res, share) if suggestions else res)
            continue
        if res.place in seen:
            rec.refusals.append(Refusal(RefusalKind.DUPLICATE_SPAN, f"locator {i + 1} gives the same span as locator "
                                        f"{seen[res.place] + 1}", loc, q.id))
            continue
        seen[res.place] = i
        span_iv = (res.start, res.end)
        near = (resolver.chunks_overlapping(res.doc_id, res.start, res.end) if rule.needs_overlap
                else resolver.chunks_of(res.doc_id))
        hits = [c for c in near if rule.chunk_hits((c.start, c.end), span_iv)]
        if not hits or not rule.span_satisfied([(c.start, c.end) for c in hits], span_iv):
            rec.refusals.append(Refusal(RefusalKind.NO_HIT, f"no chunk hits this span under {rule.name}; label a "
                                        "smaller block or build with another hit rule", loc, q.id))
            continue
        rec.spans.append(res)
        rec.coverage.append(round(union_coverage([(c.start, c.end) for c in hits], span_iv), 4))
        rec.chunk_ids.extend(c.chunk_id for c in hits)
    rec.chunk_ids = sorted(set(rec.chunk_ids))
    return rec


def build(project: Project, questions: list[Question]) -> BuildResult:
    """Resolve all records (one multi-pattern search for every quote) and derive the artifact.

    A refused build's labels whose quote moved to another document get their ``moved``
    suggestions (``core.moves``) after the cached part: git's rename pairing, which they
    use, is not one of the inputs the cache key holds.
    """
    result = resolved(project, questions)
    if result.ok:
        return result
    from labeller.core.moves import find_moves

    moved = iter(find_moves(project, result.refusals))  # a new result: a cached one may be shared
    return replace(result, records=[replace(rec, refusals=[next(moved) for _ in rec.refusals])
                                    for rec in result.records])


def resolved(project: Project, questions: list[Question]) -> BuildResult:
    """``build`` without the moves: what the build cache keeps, and all that a reader of the
    resolved spans needs (``answers_now``).

    With a project cache, the last result is kept with everything it is a function of
    (``build_key``), so ``build --check`` on unchanged inputs costs a corpus read and a
    digest compare instead of a rebuild. Only the last one: the app rebuilds on every
    save, and a result per save would fill the cache folder.
    """
    cache = project.cache
    key = build_key(project, questions) if cache is not None else None
    if cache is not None and key is not None:
        codec = last_build_codec(key, questions)
        cached = cache.get(LAST_BUILD, codec)
        if cached is not None and cached[0] == key:  # the memory layer holds the last build of any key
            return cached[1]
    prepare_cold_build(project, questions)
    found = project.resolver.search_locators(loc for q in questions for loc in q.locators)
    with project.resolver.deferred_window_writes():
        budget = WorkBudget(BUILD_HELP_BUDGET)
        records = [resolve_record(project, q, found, budget=budget) for q in questions]
    manifest = make_manifest(project, len(questions))
    result = BuildResult(records, manifest, summarize(project, records))
    if cache is not None and key is not None:
        cache.put(LAST_BUILD, (key, result), codec)
    return result


def answers_now(project: Project, questions: list[Question]) -> LazyDigests:
    """Today's answer digests of these records (``answer_text``: what a review pins), from
    ``resolved``, whose cache makes asking again after ``labeller build`` cheap."""
    return answer_digests(resolved(project, questions).records, project.corpus)


LAST_BUILD = ("build", "last")


def last_build_codec(key: tuple, questions: list[Question]) -> Codec:
    """The cached last build, ``(build_key, BuildResult)``, read back only for this key."""

    def decode(data) -> tuple:
        stored_key, result = as_list(data, 2)
        check(stored_key == list(key))  # another build's result: a miss
        return key, BuildResult.from_data(result, questions)

    return Codec("last-build", lambda value: [list(value[0]), value[1].to_data()], decode)


def build_key(project: Project, questions: list[Question]) -> tuple:
    """Every input a build result depends on: the corpus digest (freshly computed from the
    files, never trusted from the cache), the parsed questions, and every rule version and
    setting that reaches the artifact, manifest or summary (the tool version is part of
    every cache path already)."""
    import hashlib

    import markdown_it
    import mdit_py_plugins

    qs = hashlib.sha256()
    for q in questions:
        qs.update(q.model_dump_json().encode("utf-8") + b"\n")
    return ("build", project.corpus.digest, qs.hexdigest(), project.chunker.version, chunker_spec(project.chunker),
            project.hit_rule.name, CANONICAL_VERSION, EXPANSION_VERSION, markdown_it.__version__,
            mdit_py_plugins.__version__)


def make_manifest(project: Project, n_records: int) -> dict:
    """SPEC §6's manifest. ``max_chars`` is md-struct-v1's setting (``null`` for a chunker
    without it); any other settings of the chunker are listed under ``chunker_settings``."""
    corpus = project.corpus
    settings = dict(project.chunker.settings)
    max_chars = settings.pop("max_chars", None)
    manifest = {
        "build_hit_rule": project.hit_rule.name,
        "canonical_version": CANONICAL_VERSION,
        "chunker_version": project.chunker.version,
        "corpus_chars": corpus.chars,
        "corpus_digest": corpus.digest,
        "docs": {d.doc_id: {"chars": len(d.text), "sha256": d.sha256} for d in corpus},
        "expansion_version": EXPANSION_VERSION,
        "max_chars": max_chars,
        "n_chunks": sum(len(cs) for cs in project.chunks.values()),
        "n_docs": len(corpus),
        "n_records": n_records,
        "tool_version": __version__,
    }
    if settings:
        manifest["chunker_settings"] = settings
    return manifest


# The shapes of ``make_manifest`` and ``summarize`` as the build cache stores them (a cached
# build of any other shape is recomputed).
MANIFEST_SHAPE = {"build_hit_rule": str, "canonical_version": str, "chunker_version": str, "corpus_chars": int,
                  "corpus_digest": str, "docs": {str: {"chars": int, "sha256": str}}, "expansion_version": str,
                  "max_chars": (int, None), "chunker_settings?": {str: SCALAR}, "n_chunks": int, "n_docs": int,
                  "n_records": int, "tool_version": str}
SUMMARY_SHAPE = {"docs": int, "chars": int, "chunks": int, "records": int, "spans": int, "single": int, "multi": int,
                 "negative": int, "no_answer": int, "labels_per_doc": {str: int}, "unlabelled_docs": [str],
                 "blocks": {str: int},
                 "chunks_per_record": [[int]],
                 "span_chars": (None, {"min": int, "median": (int, float), "mean": float, "max": int}),
                 "refusals": int}


def summarize(project: Project, records: list[RecordResult]) -> dict:
    qs = [r.question for r in records]
    spans = [s for r in records for s in r.spans]
    lengths = [s.end - s.start for s in spans]
    per_doc = Counter(s.doc_id for s in spans)
    answerable = [r for r in records if not r.question.unanswerable]
    return {
        "docs": len(project.corpus),
        "chars": project.corpus.chars,
        "chunks": sum(len(cs) for cs in project.chunks.values()),
        "records": len(records),
        "spans": len(spans),
        "single": sum(1 for q in qs if not q.unanswerable and q.hop == "single"),
        "multi": sum(1 for q in qs if not q.unanswerable and q.hop == "multi"),
        "negative": sum(1 for q in qs if q.unanswerable),
        "no_answer": sum(1 for q in qs if q.no_answer),
        "labels_per_doc": dict(sorted(per_doc.items())),
        "unlabelled_docs": sorted(d for d in project.corpus.docs if d not in per_doc),
        "blocks": dict(sorted(Counter(s.block for s in spans).items())),
        "chunks_per_record": dict(sorted(Counter(len(r.chunk_ids) for r in answerable).items())),
        "span_chars": ({"min": min(lengths), "median": statistics.median(lengths),
                        "mean": round(statistics.fmean(lengths), 1), "max": max(lengths)} if lengths else None),
        "refusals": sum(len(r.refusals) for r in records),
    }


def write_artifacts(project: Project, result: BuildResult) -> None:
    """Write artifact and manifest atomically; both are rendered before either is written."""
    artifact, manifest = result.artifact_bytes(), result.manifest_bytes()
    layout = project.config.layout
    for path in (layout.artifact, layout.manifest):  # both checked before either is written
        check_output(project.config, path, "the golden set ([golden] out)")
    atomic_write_bytes(layout.artifact, artifact)
    atomic_write_bytes(layout.manifest, manifest)
