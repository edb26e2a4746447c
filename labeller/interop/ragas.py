"""ragas test sets, as teams save them: CSV, JSON Lines, a JSON list or ``{"samples": [...]}``.

Rows are ``{user_input, reference_contexts: [...], reference, synthesizer_name?}``, or ragas
0.1's ``{question, contexts, ground_truth(s), evolution_type, metadata}`` (mapped to the same).
``testset.to_pandas().to_csv()`` — the most common save — writes list cells as Python reprs
(``['…', '…']``) and an unnamed index column; list cells are read with ``ast.literal_eval``
(literals only, never ``eval``) or as JSON, within the label-file bound. Multi-hop
synthesizers prefix each context with ``<N-hop>\\n\\n``: the marker is cut off and a record
whose contexts reach hop 2 or more is ``hop: multi``. Every other column goes to the record's
``metadata`` (empty cells left out). ragas keeps no record id, so each record's id is
``ragas-`` and a digest of its question (stable across re-imports); ``synthesizer_name``
becomes a tag ``synthesizer:NAME``.

Export writes what ``EvaluationDataset.from_jsonl`` and ``Testset.from_list`` read: the
question, each built span's text as a reference context (with the hop markers for a
multi-hop record), the expected answer as the reference, the synthesizer back from its tag
and the metadata columns back beside them. Negatives have no context and are left out.
"""

from __future__ import annotations

import ast
import csv
import io
import math
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from labeller.core.build import BuildResult
from labeller.core.project import Project
from labeller.display import json_dumps
from labeller.errors import InvalidInput
from labeller.interop.containers import CSV, Container, sniff
from labeller.interop.files import read_text, require_str
from labeller.interop.format import Exported, Format
from labeller.interop.front_matter import FrontMatterCut
from labeller.interop.objects import objects_of
from labeller.interop.records import Incoming
from labeller.interop.synthetic import record_id, synthetic_candidate
from labeller.io import parse_json

READS = ("CSV, JSON Lines, a JSON list or {\"samples\": [...]} of rows with the columns user_input, "
         "reference_contexts, reference (or ragas 0.1's question, contexts, ground_truth)")
RENAMED = {"question": "user_input", "contexts": "reference_contexts", "ground_truth": "reference",
           "ground_truths": "reference"}  # ragas 0.1's columns, as the current ones
OWN = {"user_input", "reference_contexts", "reference", "synthesizer_name"}
LIST_COLUMNS = {"reference_contexts", "contexts", "ground_truths", "retrieved_contexts", "multi_responses"}
INDEX_COLUMNS = {"", "Unnamed: 0"}  # the index pandas writes unless index=False
HOP = re.compile(r"<(\d{1,4})-hop>\r?\n\r?\n")
SYNTH_TAG = "synthesizer:"


def read(path: Path, project: Project, options: SimpleNamespace) -> Incoming:
    box = sniff(read_text(path, project.config.limits, "ragas test set"), str(path))
    rows = _csv_rows(box, path) if box.kind == CSV else objects_of(box, path, "ragas test set", "ragas", "samples",
                                                                    READS, max_lines=project.config.limits.max_lines)
    cut = FrontMatterCut(project)
    out = []
    for n, (where, row) in enumerate(rows):
        if isinstance(row.get("eval_sample"), dict):  # a Testset's own dump: {eval_sample: {...}, synthesizer_name}
            row = {**row["eval_sample"], **{k: v for k, v in row.items() if k != "eval_sample"}}
        row = {RENAMED.get(k, k): v for k, v in row.items()} if not OWN & row.keys() else row
        if "user_input" not in row:
            if n == 0:  # not a ragas set at all: say what it is
                raise box.wrong("ragas", READS, str(path))
            raise InvalidInput(f"{where}: the row has no user_input (nor question)")
        query = require_str(row["user_input"], "user_input", where)
        contexts, hops = _unmarked(_str_list(row.get("reference_contexts"), "reference_contexts", where))
        synth = _optional_str(row.get("synthesizer_name"), "synthesizer_name", where)
        cand = synthetic_candidate(project, "ragas", record_id("ragas", query), query, where,
                                   [cut.body(c) for c in contexts], _answer(row.get("reference"), where),
                                   tags=(f"{SYNTH_TAG}{synth}",) if synth else ())
        if hops >= 2:
            cand.fields["hop"] = "multi"
        meta = {k: v for k, v in row.items() if k not in OWN and k not in INDEX_COLUMNS and v not in (None, "", [])}
        if meta:
            cand.fields["metadata"] = meta
        out.append(cand)
    return Incoming(out, cut.notes())


def _unmarked(contexts: list[str]) -> tuple[list[str], int]:
    """The contexts without their ``<N-hop>`` markers, and the highest hop marked (0: none)."""
    hops, out = 0, []
    for c in contexts:
        m = HOP.match(c)
        if m:
            hops = max(hops, int(m.group(1)))
            c = c[m.end():]
        out.append(c)
    return out, hops


def _answer(value: Any, where: str) -> str:
    """``reference``, or 0.1's ``ground_truths`` (a list: its answers, a blank line apart)."""
    if isinstance(value, list) or (isinstance(value, str) and value.lstrip().startswith("[")):
        try:
            return "\n\n".join(_str_list(value, "ground_truths", where))
        except InvalidInput:
            if isinstance(value, list):
                raise
    return _optional_str(value, "reference", where) or ""


def _optional_str(value: Any, what: str, where: str) -> str | None:
    return None if value is None else require_str(value, what, where)


def _str_list(value: Any, what: str, where: str) -> list[str]:
    """A list of strings: as JSON gives it, or a CSV cell holding one as JSON or as a Python repr."""
    if value is None or value == "":
        return []
    if isinstance(value, str):
        value = _literal(value, what, where)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InvalidInput(f"{where}: {what} must be a list of strings")
    return value


def _literal(cell: str, what: str, where: str) -> Any:
    """A list or dict cell: JSON first (the strict parser), else a Python literal read by
    ``ast.literal_eval``, which builds literals only and never runs code; the cell is within
    the label file's size bound, and nesting past the parser's own limit is an error."""
    text = cell.strip()
    if not text.startswith(("[", "{")):
        raise InvalidInput(f"{where}: {what} must be a list, not {cell[:40]!r}")
    try:
        return parse_json(text, where)
    except InvalidInput:
        pass
    try:
        return ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise InvalidInput(f"{where}: {what} is neither a JSON nor a Python literal") from None


def _extra(cell: str, column: str, where: str) -> Any:
    """An extra CSV column's cell: a list or dict literal as its JSON value (0.1's ``metadata``
    column), anything else as the text it is."""
    if not cell.strip().startswith(("[", "{")):
        return cell
    try:
        value = _literal(cell, column, where)
    except InvalidInput:
        return cell
    return value if _is_json(value) else cell


def _is_json(value: Any) -> bool:
    if isinstance(value, (str, bool, int)) or value is None:
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(_is_json(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _is_json(v) for k, v in value.items())
    return False


def _csv_rows(box: Container, path: Path) -> list[tuple[str, dict]]:
    """The rows of a CSV as ``(where, row)``: list columns parsed, extra columns as JSON values
    where they hold a literal, empty cells absent (pandas writes a missing value so)."""
    if not ({"user_input", "question"} & set(box.keys)):
        raise box.wrong("ragas", READS, str(path))
    limit = csv.field_size_limit()
    csv.field_size_limit(max(limit, len(box.text)))  # one cell may be most of the (bounded) file
    try:
        reader = csv.reader(io.StringIO(box.text, newline=""))
        header = next(reader)
        rows = []
        line = reader.line_num + 1
        for cells in reader:
            where = f"{path}:{line}"
            line = reader.line_num + 1
            if not any(c.strip() for c in cells):
                continue
            if len(cells) != len(header):
                raise InvalidInput(f"{where}: {len(cells)} cells, but the header has {len(header)} columns")
            row: dict[str, Any] = {}
            for column, cell in zip(header, cells):
                if column in INDEX_COLUMNS or cell == "":
                    continue
                if column in LIST_COLUMNS:
                    row[column] = _str_list(cell, column, where)
                elif column in OWN or column in RENAMED:
                    row[column] = cell
                else:
                    row[column] = _extra(cell, column, where)
            rows.append((where, row))
    except csv.Error as exc:
        raise InvalidInput(f"malformed CSV: {exc}", path=str(path), line=reader.line_num) from None
    finally:
        csv.field_size_limit(limit)
    return rows


def export(project: Project, result: BuildResult, options: SimpleNamespace) -> Exported:
    lines, negatives = [], 0
    for rec in result.records:
        if not rec.spans:
            negatives += 1
            continue
        q = rec.question
        contexts = [project.corpus[s.doc_id].text[s.start:s.end] for s in rec.spans]
        if q.hop == "multi":
            contexts = [f"<{i}-hop>\n\n{c}" for i, c in enumerate(contexts, start=1)]
        row: dict[str, Any] = {"user_input": q.query, "reference_contexts": contexts, "reference": q.expected_answer}
        synth = [t[len(SYNTH_TAG):] for t in q.tags if t.startswith(SYNTH_TAG)]
        if synth:
            row["synthesizer_name"] = synth[0]
        row.update((k, v) for k, v in q.metadata.items() if k not in row)
        lines.append(json_dumps(row) + "\n")
    notes = ["reference contexts are the built spans' text"]
    if negatives:
        notes.append(f"{negatives} negative record(s) left out (a ragas row needs a reference context)")
    return Exported({"": "".join(lines).encode("utf-8")}, notes)


FORMAT = Format("ragas", "ragas test set: CSV (to_pandas().to_csv()), JSONL or JSON {user_input, reference_contexts, "
                "reference} or 0.1's {question, contexts, ground_truth} (contexts located exactly)", read=read,
                export=export)
