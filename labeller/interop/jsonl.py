"""The quote-anchored questions.jsonl of the reference golden-set lab.

It is labeller's own authored format (``locators`` of ``{doc?, quote, exact?}``, ``//``
comment lines), so importing is the core's own parser and bounds, then the same corpus
check as every other format, then a merge. No conversion, so the round trip is lossless
for records; comment lines of the imported file are not carried over.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from labeller.core.build import BuildResult
from labeller.core.project import Project
from labeller.core.questions import load_questions
from labeller.display import json_dumps
from labeller.errors import InvalidInput
from labeller.interop.containers import wrong_kind
from labeller.interop.files import read_text
from labeller.interop.format import Exported, Format
from labeller.interop.records import Candidate, Incoming, Target


def read(path: Path, project: Project, options: SimpleNamespace) -> Incoming:
    try:
        qf = load_questions(path, project.config.limits)
    except InvalidInput:
        wrong_kind(read_text(path, project.config.limits, "questions file"), path, "jsonl",
                   "labeller's questions.jsonl: one {id, query, expected_answer, locators} object a line")
        raise
    out = []
    for q in qf.questions:
        fields = q.model_dump(exclude={"id", "query", "locators"}, exclude_defaults=True)
        out.append(Candidate(q.id, q.query, f"{path}:{qf.line_of(q.id)}",
                             [Target("locator", locator=loc) for loc in q.locators],
                             negative=bool(q.unanswerable), fields=fields))
    return Incoming(out)


def export(project: Project, result: BuildResult, options: SimpleNamespace) -> Exported:
    text = "".join(json_dumps(rec.question.as_json()) + "\n" for rec in result.records)
    return Exported({"": text.encode("utf-8")})


FORMAT = Format("jsonl", "questions.jsonl of quote locators {doc?, quote, exact?} with // comments (labeller's own "
                "format)", read=read, export=export)
