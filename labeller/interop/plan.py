"""An import's plan: every candidate checked against the bounds and the corpus, exactly as a
build would resolve it, then split into the questions to merge and the records kept out.

Imports never guess. A label the corpus cannot resolve keeps its record out and is counted;
a malformed or unsafe file (bad JSON/YAML, traversal, bounds) stops the import with exit 2
and writes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import ValidationError

from labeller.core.build import resolve_record
from labeller.core.corpus import check_relative_doc_id
from labeller.core.models import Locator, Question
from labeller.core.project import Project
from labeller.core.questions import normalise_query
from labeller.core.resolve import Refusal
from labeller.errors import InvalidInput
from labeller.interop.labels import LabelMapper
from labeller.interop.records import Candidate, Incoming, KeptOut


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
            if t.kind == "corpus_id" and t.ident is not None and not mapper.is_chunk_id(t.ident):
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
    suggestions = [s for r in refusals for s in r.suggestions]
    if suggestions and "quote" in suggestions[0]:
        message += f"; nearest: {suggestions[0]['doc']}: {short(Locator(quote=suggestions[0]['quote']))}"
    return KeptOut(cand.id, cand.where, refusals[0].kind, message, suggestions)
