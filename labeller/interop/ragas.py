"""ragas test sets: rows ``{user_input, reference_contexts: [...], reference, synthesizer_name?}``.

What ``Testset.to_jsonl`` / ``to_list`` write (a JSON array is read as well). ragas keeps no
record id, so each record's id is ``ragas-`` and a digest of its question (stable across
re-imports); ``synthesizer_name`` becomes a tag ``synthesizer:NAME``. Export writes the
same rows: the question, each built span's text as a reference context, and the expected
answer as the reference. Negatives have no context and are left out of the export.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from labeller.core.build import BuildResult
from labeller.core.project import Project
from labeller.display import json_dumps
from labeller.interop.files import require_str
from labeller.interop.format import Exported, Format
from labeller.interop.objects import json_objects, optional_str, str_list
from labeller.interop.records import Incoming
from labeller.interop.synthetic import record_id, synthetic_candidate


def read(path: Path, project: Project, options: SimpleNamespace) -> Incoming:
    out = []
    for where, obj in json_objects(path, project, "ragas test set"):
        query = require_str(obj.get("user_input"), "user_input", where)
        contexts = str_list(obj, "reference_contexts", where)
        synth = optional_str(obj, "synthesizer_name", where)
        out.append(synthetic_candidate(project, "ragas", record_id("ragas", query), query, where, contexts,
                                       optional_str(obj, "reference", where) or "",
                                       tags=(f"synthesizer:{synth}",) if synth else ()))
    return Incoming(out)


def export(project: Project, result: BuildResult, options: SimpleNamespace) -> Exported:
    lines, negatives = [], 0
    for rec in result.records:
        if not rec.spans:
            negatives += 1
            continue
        contexts = [project.corpus[s.doc_id].text[s.start:s.end] for s in rec.spans]
        lines.append(json_dumps({"user_input": rec.question.query, "reference_contexts": contexts,
                                 "reference": rec.question.expected_answer}) + "\n")
    notes = ["reference contexts are the built spans' text"]
    if negatives:
        notes.append(f"{negatives} negative record(s) left out (a ragas row needs a reference context)")
    return Exported({"": "".join(lines).encode("utf-8")}, notes)


FORMAT = Format("ragas", "ragas test set JSONL {user_input, reference_contexts, reference} (contexts located "
                "exactly)", read=read, export=export)
