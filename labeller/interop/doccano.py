"""doccano sequence-labelling exports: JSONL ``{id, text, label: [[start, end, name]], <question field>}``.

doccano counts offsets in code points (it corrected its JavaScript UTF-16 counting in 2019);
``--units`` says otherwise for older exports. The newer ``entities`` form
(``[{start_offset, end_offset, label}]``) is read as well. doccano writes a task's metadata
columns beside ``text``; the question is the one ``--query-field`` names (default
``question``). Import only: labeller's spans go back to doccano through ``offsets`` or
``label-studio``.
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


def _spans(obj: dict, where: str) -> list[TaskSpan]:
    if "label" in obj and "entities" in obj:
        raise InvalidInput(f"{where}: both label and entities; which holds the spans?")
    out = []
    if isinstance(obj.get("entities"), list):
        for e in obj["entities"]:
            if not isinstance(e, dict) or not {"start_offset", "end_offset"} <= set(e):
                raise InvalidInput(f"{where}: each entity is {{start_offset, end_offset, label}}")
            out.append(TaskSpan(e["start_offset"], e["end_offset"], label=e.get("label")))
        return out
    labels = obj.get("label", [])
    if not isinstance(labels, list):
        raise InvalidInput(f"{where}: label must be a list of [start, end, name]")
    for item in labels:
        if isinstance(item, str):
            continue  # a text-classification label, not a span
        if not isinstance(item, list) or len(item) != 3:
            raise InvalidInput(f"{where}: each span label is [start, end, name], not {item!r}")
        out.append(TaskSpan(item[0], item[1], label=item[2]))
    return out


def read(path: Path, project: Project, options: SimpleNamespace) -> Incoming:
    units = options.units or "codepoints"
    qfield = options.query_field or "question"
    finder = TextFinder(project)
    cands = []
    for n, (where, obj) in enumerate(json_objects(path, project, "doccano", "doccano"), start=1):
        text = require_str(obj.get("text"), "text", where)
        rid = str(obj["id"]) if "id" in obj else f"doccano-{n}"
        spans = [s for s in _spans(obj, where) if options.span_label is None or s.label == options.span_label]
        query = optional_str(obj, qfield, where)
        cands.append(task_candidate(project, finder, rid, query, where, text, spans, units, {"tags": ["source:doccano"]}))
    return Incoming(merge_by_id(cands), [f"offsets counted in {units}; question from field {qfield!r}"])


FORMAT = Format("doccano", "doccano JSONL {id, text, label: [[start, end, name]]} (or entities), question in "
                "--query-field; the text is matched to its corpus document", read=read,
                import_options=(UNITS_OPTION, QUERY_FIELD, SPAN_LABEL))
