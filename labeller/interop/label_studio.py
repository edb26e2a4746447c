"""Label Studio JSON exports of text-span tasks, and pre-annotated tasks for a review project.

Label Studio's JSON export is a list of tasks ``{id, data: {text, ...}, annotations: [{result:
[{type: "labels", value: {start, end, text?, labels}}], was_cancelled}], predictions: [...]}``.
Its offsets are JavaScript string indices, so they count UTF-16 code units (an emoji counts
two): ``--units`` defaults to ``utf16`` here. The question is ``data[--query-field]`` (or the
text of a TextArea result of that name); the
record id is ``data.record_id`` when present, else the task id. A task text found in two or
more corpus documents is refused ``task_ambiguous`` unless ``data[--doc-field]`` (``doc``, as
labeller's export writes it) names one of them that holds it once. Cancelled annotations are
ignored; when a task's annotations disagree on its spans the record is kept out
(adjudicate in Label Studio first). Predictions (pre-annotations) are read only with
``--predictions``: they are suggestions until someone accepts them.

Export writes one task per record and document, ``data`` = the document's canonical text,
the question, ``record_id`` and ``doc``, with the record's built spans as a prediction, ready
to import into a project whose labelling config is::

    <View><Text name="text" value="$text"/><Header value="$question"/>
      <Labels name="label" toName="text"><Label value="answer"/></Labels></View>
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from labeller.core.build import BuildResult
from labeller.core.project import Project
from labeller.display import json_dumps
from labeller.errors import InvalidInput
from labeller.interop.containers import JSON_LIST, sniff
from labeller.interop.files import read_text
from labeller.interop.format import Exported, Format, Option
from labeller.interop.objects import optional_list, optional_str
from labeller.interop.offsets import UNITS_OPTION
from labeller.interop.records import Incoming
from labeller.interop.spans import TextFinder, from_codepoints
from labeller.interop.tasks import QUERY_FIELD, SPAN_LABEL, TaskSpan, merge_by_id, task_candidate

LABEL = "answer"


def _result_spans(results, where: str, span_label: str | None) -> list[TaskSpan]:
    if not isinstance(results, list):
        raise InvalidInput(f"{where}: result must be a list")
    out = []
    for r in results:
        if not isinstance(r, dict) or not isinstance(r.get("value"), dict):
            raise InvalidInput(f"{where}: each result is an object with a value")
        value = r["value"]
        if "start" not in value or "end" not in value:
            continue  # not a text span (a choice, a rating, a text area)
        labels = value.get("labels") or []
        if not isinstance(labels, list):
            raise InvalidInput(f"{where}: value.labels must be a list")
        if span_label is not None and span_label not in labels:
            continue
        out.append(TaskSpan(value["start"], value["end"], value.get("text"), ",".join(map(str, labels)) or None))
    return out


def _task_spans(task: dict, where: str, options: SimpleNamespace) -> tuple[list[TaskSpan], tuple[str, str] | None]:
    """The spans the task's annotations agree on, or why there are none to take."""
    annotations = [a for a in optional_list(task, "annotations", where)
                   if isinstance(a, dict) and not a.get("was_cancelled")]
    source = "annotation"
    if not annotations and (predictions := optional_list(task, "predictions", where)):
        if not options.predictions:
            return [], ("prediction_only", "the task has only predictions (pre-annotations); --predictions takes them")
        annotations, source = [p for p in predictions if isinstance(p, dict)], "prediction"
    sets = [_result_spans(a.get("result", []), where, options.span_label) for a in annotations]
    # offsets are not checked yet (a list, a string: ``to_codepoints`` names them per task), so
    # compared by their repr, which hashes and sorts whatever they are
    keys = {tuple(sorted(repr((s.start, s.end)) for s in spans)) for spans in sets}
    if len(keys) > 1:
        return [], ("disagreement", f"{len(sets)} {source}s of the task give different spans; adjudicate first")
    return (sets[0] if sets else []), None


def _question(task: dict, qfield: str, where: str) -> str | None:
    """``data[qfield]``, else the text of a TextArea result named ``qfield`` (a project where
    annotators write the question while they mark its answer)."""
    if qfield in task["data"]:
        return optional_str(task["data"], qfield, where)
    for a in optional_list(task, "annotations", where):
        for r in (a.get("result") or []) if isinstance(a, dict) else []:
            if isinstance(r, dict) and r.get("from_name") == qfield and isinstance(r.get("value"), dict):
                texts = r["value"].get("text")
                if isinstance(texts, list) and texts and isinstance(texts[0], str):
                    return texts[0]
    return None


def read(path: Path, project: Project, options: SimpleNamespace) -> Incoming:
    units = options.units or "utf16"
    qfield = options.query_field or "question"
    tfield = options.text_field or "text"
    dfield = options.doc_field or "doc"
    box = sniff(read_text(path, project.config.limits, "Label Studio export"), str(path))
    if box.kind != JSON_LIST:
        raise box.wrong("label-studio", "a JSON list of tasks (Label Studio's JSON export)", str(path))
    data = box.value
    finder = TextFinder(project)
    cands = []
    for i, task in enumerate(data):
        where = f"{path}: [{i}]"
        if not isinstance(task, dict) or not isinstance(task.get("data"), dict):
            raise InvalidInput(f"{where}: each task is an object with data")
        fields = task["data"]
        text = optional_str(fields, tfield, where)
        if text is None:
            raise InvalidInput(f"{where}: data has no {tfield!r} text (--text-field names it)")
        rid = fields.get("record_id", task.get("id", i + 1))
        if isinstance(rid, bool) or not isinstance(rid, (str, int)):
            raise InvalidInput(f"{where}: the record id (data.record_id or the task id) must be a string or a number")
        spans, why = _task_spans(task, where, options)
        extra: dict = {"tags": ["source:label-studio"]}
        answer = optional_str(fields, "expected_answer", where)
        if answer:
            extra["expected_answer"] = answer
        hint = (optional_str(fields, dfield, where), f"data.{dfield}")
        cand = task_candidate(project, finder, str(rid), _question(task, qfield, where), where, text, spans,
                              units, extra, hint)
        if why is not None and (cand.skip is None or cand.skip[0] == "no_span"):
            cand.skip = why
        cands.append(cand)
    return Incoming(merge_by_id(cands), [f"offsets counted in {units}; question from data.{qfield}"])


def export(project: Project, result: BuildResult, options: SimpleNamespace) -> Exported:
    units = options.units or "utf16"
    tasks: list[dict] = []
    negatives = 0
    for rec in result.records:
        q = rec.question
        per_doc: dict[str, list] = {}
        for s in rec.spans:
            per_doc.setdefault(s.doc_id, []).append(s)
        negatives += not per_doc
        for doc_id, spans in per_doc.items():
            text = project.corpus[doc_id].text
            results = []
            for n, s in enumerate(spans, start=1):
                start, end = from_codepoints(text, [s.start, s.end], units)
                results.append({"id": f"{q.id}-{len(tasks)}-{n}", "from_name": "label", "to_name": "text",
                                "type": "labels", "value": {"start": start, "end": end, "text": text[s.start:s.end],
                                                            "labels": [LABEL]}})
            tasks.append({"data": {"text": text, "question": q.query, "record_id": q.id, "doc": doc_id,
                                   "expected_answer": q.expected_answer},
                          "predictions": [{"model_version": "labeller", "result": results}]})
    notes = [f"{len(tasks)} task(s), one per record and document; offsets in {units}; spans as predictions"]
    if negatives:
        notes.append(f"{negatives} negative record(s) have no span and so no task")
    return Exported({"": (json_dumps(tasks, indent=2) + "\n").encode("utf-8")}, notes)


FORMAT = Format(
    "label-studio", "Label Studio JSON export of text-span tasks (UTF-16 offsets); export: pre-annotated tasks",
    read=read, export=export,
    import_options=(UNITS_OPTION, QUERY_FIELD, SPAN_LABEL,
                    Option("text-field", "the task data field holding the text (default: text)", metavar="FIELD"),
                    Option("doc-field", "the task data field naming the corpus document, which picks among "
                           "documents that all hold the task text (default: doc)", metavar="FIELD"),
                    Option("predictions", "take a task's predictions when it has no annotation", type=bool,
                           default=False)),
    export_options=(UNITS_OPTION,))
