"""Page-level JSON query files: ``{id, query, expected_pages: [...], category}``.

Either a bare list of records or the wrapper ``{"schema": "...", "queries": [...]}``. Each page
is a corpus-relative document path; an empty list is a negative (no answer in the corpus);
``category`` becomes the record's one tag; an optional ``skip_reason`` keeps the record out
and is reported. A page listed twice in one record is refused, like every duplicate label.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from labeller.core.build import BuildResult
from labeller.core.project import Project
from labeller.display import json_dumps
from labeller.errors import InvalidInput
from labeller.interop.containers import JSON_LIST, JSON_OBJECT, sniff
from labeller.interop.files import read_text, refuse_unknown_keys, require_str
from labeller.interop.format import Exported, Format
from labeller.interop.labels import LabelMapper
from labeller.interop.records import Candidate, Incoming, Target

# Written on export to say who wrote the file; on import any schema string is accepted
# (and reported), since each tool that speaks this shape names it differently.
SCHEMA = "labeller.page-queries.v1"
KEYS = {"id", "query", "expected_pages", "category", "skip_reason"}


def read(path: Path, project: Project, options: SimpleNamespace) -> Incoming:
    box = sniff(read_text(path, project.config.limits, "query file"), str(path))
    if box.kind not in (JSON_LIST, JSON_OBJECT) or (box.kind == JSON_OBJECT and "queries" not in box.keys):
        raise box.wrong("pages-json", 'a JSON list of records or {"schema": ..., "queries": [...]}', str(path))
    data = box.value
    notes = []
    if isinstance(data, dict):
        refuse_unknown_keys(data, {"schema", "queries"}, {"queries"}, f"{path}: top level")
        if "schema" in data:
            notes.append(f"schema: {require_str(data['schema'], 'schema', str(path))}")
        data = data["queries"]
    if not isinstance(data, list):
        raise InvalidInput('the file must be a list of records or {"schema": ..., "queries": [...]}', path=str(path))
    out = []
    for i, item in enumerate(data):
        where = f"{path}: queries[{i}]"
        if not isinstance(item, dict):
            raise InvalidInput(f"{where} must be an object")
        refuse_unknown_keys(item, KEYS, {"id", "query", "expected_pages"}, where)
        rid = require_str(item["id"], "id", where)
        query = require_str(item["query"], "query", where)
        pages = item["expected_pages"]
        if not isinstance(pages, list):
            raise InvalidInput(f"{where}: record {rid!r}: expected_pages must be a list (empty for a negative)")
        targets = []
        for page in pages:
            doc = require_str(page, "each expected page", where)
            if Target("document", doc=doc) in targets:
                raise InvalidInput(f"{where}: record {rid!r}: page {doc!r} is listed twice")
            targets.append(Target("document", doc=doc))
        fields = {}
        if "category" in item:
            category = require_str(item["category"], "category", where)
            if category.strip():
                fields["tags"] = [category]
        skip = None
        if "skip_reason" in item:
            skip = ("skipped", f"the file skips it: {require_str(item['skip_reason'], 'skip_reason', where)}")
        out.append(Candidate(rid, query, where, targets, negative=not targets, fields=fields, skip=skip))
    return Incoming(out, notes)


def export(project: Project, result: BuildResult, options: SimpleNamespace) -> Exported:
    mapper = LabelMapper(project)
    queries = []
    dropped_tags = 0
    for rec in result.records:
        q = rec.question
        pages = list(dict.fromkeys(doc for doc, _ in mapper.document_labels(rec)))
        item = {"id": q.id, "query": q.query, "expected_pages": pages}
        if q.tags:
            item["category"] = q.tags[0]
            dropped_tags += len(q.tags) - 1
        queries.append(item)
    text = json_dumps({"schema": SCHEMA, "queries": queries}, indent=2) + "\n"
    notes = ["every label is written as its document (this format holds pages only)"]
    if dropped_tags:
        notes.append(f"{dropped_tags} tag(s) after each record's first were left out (one category per record)")
    return Exported({"": text.encode("utf-8")}, notes)


FORMAT = Format("pages-json", 'JSON query file: {id, query, expected_pages: [...], category} (bare list or '
                '{"schema", "queries"})', read=read, export=export)
