"""DeepEval goldens: ``[{input, expected_output?, context: [...], source_file?, ...}]``.

What ``EvaluationDataset.save_as`` writes (JSON, or JSONL). ``context`` holds the passages a
golden was synthesised from; ``source_file`` the document they came from, which pins the
quotes to that document when it names one of the corpus (the doc id, or the one document
ending the path). Goldens carry no id: each record's id is ``deepeval-`` and a digest of its
input. Other golden fields (``actual_output``, ``retrieval_context``, ...) are ignored. Import
only: ``ragas`` or ``offsets`` carry labeller's spans back out.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from labeller.core.project import Project
from labeller.interop.files import require_str
from labeller.interop.format import Format
from labeller.interop.front_matter import FrontMatterCut
from labeller.interop.objects import json_objects, optional_str, str_list
from labeller.interop.records import Incoming
from labeller.interop.synthetic import doc_of_source, record_id, synthetic_candidate


def read(path: Path, project: Project, options: SimpleNamespace) -> Incoming:
    out, unpinned = [], 0
    cut = FrontMatterCut(project)
    for where, obj in json_objects(path, project, "DeepEval goldens", "deepeval"):
        query = require_str(obj.get("input"), "input", where)
        source = optional_str(obj, "source_file", where)
        doc = doc_of_source(project, source)
        unpinned += bool(source) and doc is None
        out.append(synthetic_candidate(project, "deepeval", record_id("deepeval", query), query, where,
                                       [cut.body(c, doc) for c in str_list(obj, "context", where)],
                                       optional_str(obj, "expected_output", where) or "", doc=doc))
    notes = [f"{unpinned} source_file(s) name no single corpus document; their contexts were searched in the "
             "whole corpus"] if unpinned else []
    return Incoming(out, notes + cut.notes())


FORMAT = Format("deepeval", "DeepEval goldens JSON {input, expected_output, context, source_file} (contexts located "
                "exactly)", read=read)
