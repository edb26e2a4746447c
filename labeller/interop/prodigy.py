"""Prodigy span annotations: JSONL ``{text, spans: [{start, end, label, text?}], answer, meta}``.

Prodigy counts code points (Python strings). A task whose ``answer`` is ``reject`` or
``ignore`` is kept out, named. The record id is ``meta.id`` or ``id`` when present, else the
task's ``_task_hash``, else its line; the question is the field ``--query-field`` names,
at the top level or in ``meta``. Import only.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from labeller.core.project import Project
from labeller.errors import InvalidInput
from labeller.interop.files import require_str
from labeller.interop.format import Format
from labeller.interop.objects import json_objects, optional_str
from labeller.interop.offsets import UNITS_OPTION
from labeller.interop.records import Incoming
from labeller.interop.spans import TextFinder
from labeller.interop.tasks import QUERY_FIELD, SPAN_LABEL, TaskSpan, merge_by_id, task_candidate


def _id(obj: dict, meta: dict, n: int) -> str:
    for value in (meta.get("id"), obj.get("id"), obj.get("_task_hash")):
        if value is not None and not isinstance(value, bool):
            return str(value)
    return f"prodigy-{n}"


def read(path: Path, project: Project, options: SimpleNamespace) -> Incoming:
    units = options.units or "codepoints"
    qfield = options.query_field or "question"
    finder = TextFinder(project)
    cands = []
    for n, (where, obj) in enumerate(json_objects(path, project, "Prodigy", "prodigy"), start=1):
        text = require_str(obj.get("text"), "text", where)
        meta = obj.get("meta") or {}
        if not isinstance(meta, dict):
            raise InvalidInput(f"{where}: meta must be an object")
        raw = obj.get("spans") or []
        if not isinstance(raw, list) or not all(isinstance(s, dict) and {"start", "end"} <= set(s) for s in raw):
            raise InvalidInput(f"{where}: spans must be a list of {{start, end, label?, text?}}")
        spans = [TaskSpan(s["start"], s["end"], s.get("text"), s.get("label")) for s in raw]
        spans = [s for s in spans if options.span_label is None or s.label == options.span_label]
        query = optional_str(obj, qfield, where) if qfield in obj else optional_str(meta, qfield, where)
        cand = task_candidate(project, finder, _id(obj, meta, n), query, where, text, spans, units,
                              {"tags": ["source:prodigy"]})
        answer = obj.get("answer", "accept")
        if answer != "accept":
            cand.skip = ("rejected", f"the annotator's answer is {answer!r}, not 'accept'")
        cands.append(cand)
    return Incoming(merge_by_id(cands), [f"offsets counted in {units}; question from field {qfield!r}"])


FORMAT = Format("prodigy", "Prodigy JSONL {text, spans: [{start, end, label}], answer, meta}, question in "
                "--query-field; the text is matched to its corpus document", read=read,
                import_options=(UNITS_OPTION, QUERY_FIELD, SPAN_LABEL))
