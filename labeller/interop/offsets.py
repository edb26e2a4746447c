"""Chunk-free character spans: ``{id, query, expected_answer?, spans: [{doc, start, end, text?}], split?, tags?}``.

The most portable form of a golden set: every label is a range of one document's canonical
text (SPEC §1) — or, with ``--offsets-of file``, of the file as on disk (CRLF, NFD and a leading
BOM counted as they are) — counted in ``--units`` (code points by default; ``utf16`` for offsets a
JavaScript tool counted, ``utf8`` for byte offsets). A span's optional ``text`` must equal
the text at its offsets. Import turns each span into a quote pinned to its document with
the least context that makes it unique, so the record builds to exactly those offsets
(whitespace at a span's edge aside: a quote is trimmed). Export writes the build's spans,
each with its text, so any tool can check them.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from labeller.core.build import BuildResult
from labeller.core.canon import canonicalize, decode_utf8
from labeller.core.corpus import check_relative_doc_id, read_file_nofollow
from labeller.core.project import Project
from labeller.display import json_dumps
from labeller.errors import InvalidInput
from labeller.interop.files import refuse_unknown_keys, require_str
from labeller.interop.format import Exported, Format, Option
from labeller.interop.objects import json_objects, optional_str, str_list
from labeller.interop.records import Candidate, Incoming, Target
from labeller.interop.spans import (UNITS, SpanProblem, canonical_range, check_text, from_codepoints, span_locator,
                                    to_codepoints)

KEYS = {"id", "query", "expected_answer", "spans", "split", "tags", "hop", "unanswerable"}
SPAN_KEYS = {"doc", "start", "end", "text"}


def read(path: Path, project: Project, options: SimpleNamespace) -> Incoming:
    units = options.units or "codepoints"
    files: dict[str, str] = {}
    out = []
    for where, obj in json_objects(path, project, "offsets", "offsets"):
        refuse_unknown_keys(obj, KEYS, {"id", "query", "spans"}, where)
        rid = require_str(obj["id"], "id", where)
        query = require_str(obj["query"], "query", where)
        spans = obj["spans"]
        if not isinstance(spans, list):
            raise InvalidInput(f"{where}: record {rid!r}: spans must be a list (empty for a negative)")
        fields: dict = {"expected_answer": optional_str(obj, "expected_answer", where) or ""}
        if obj.get("tags") is not None:
            fields["tags"] = str_list(obj, "tags", where)
        for key in ("split", "hop"):
            if obj.get(key) is not None:
                fields[key] = require_str(obj[key], key, where)
        cand = Candidate(rid, query, where, negative=not spans or obj.get("unanswerable") is True, fields=fields)
        for i, span in enumerate(spans):
            swhere = f"{where}: spans[{i}]"
            if not isinstance(span, dict):
                raise InvalidInput(f"{swhere} must be an object {{doc, start, end, text?}}")
            refuse_unknown_keys(span, SPAN_KEYS, {"doc", "start", "end"}, swhere)
            doc = require_str(span["doc"], "doc", swhere)
            check_relative_doc_id(doc, record_id=rid, path=swhere)
            try:
                if doc not in project.corpus:
                    raise SpanProblem("unknown_doc", f"document {doc!r} is not in the corpus")
                if options.offsets_of == "file":
                    text = files[doc] if doc in files else files.setdefault(doc, file_text(project, doc))
                else:
                    text = project.corpus[doc].text
                start, end = to_codepoints(text, [span["start"], span["end"]], units)
                if not start < end:
                    raise SpanProblem("bad_offset", f"span [{span['start']}, {span['end']}) is empty or reversed")
                if options.offsets_of == "file":
                    start, end = file_to_canonical(text, start, end)
                check_text(span.get("text"), project.corpus[doc].text[start:end])
                cand.targets.append(Target("locator", locator=span_locator(project, doc, start, end)))
            except SpanProblem as exc:
                cand.skip = (exc.kind, f"spans[{i}]: {exc.message}")
                break
        out.append(cand)
    of = "the files as they are on disk" if options.offsets_of == "file" else "the canonical text"
    return Incoming(out, [f"offsets counted in {units} of {of}"])


def file_text(project: Project, doc: str) -> str:
    """A corpus document's text as a tool that read the file sees it: decoded UTF-8, line
    breaks, normalisation and a leading BOM as they are on disk."""
    root = project.corpus.root
    if root is None:
        raise InvalidInput("--offsets-of file needs a corpus read from disk")
    text = decode_utf8(read_file_nofollow(root / doc, project.config.max_file_bytes), str(root / doc))
    if canonicalize(text) != project.corpus[doc].text:
        raise InvalidInput("the file changed on disk while importing", path=str(root / doc))
    return text


def file_to_canonical(text: str, start: int, end: int) -> tuple[int, int]:
    """Code-point offsets of the file's text as canonical offsets.

    A leading BOM is part of the file — one code point, one UTF-16 unit, three bytes, as a
    byte count or Python's ``utf-8`` codec sees it — and canon-v1 drops it (SPEC §1): offsets
    after it move back by one, and a span that starts on it starts at the text's start. A
    span of the BOM alone holds no text."""
    if text.startswith("\ufeff"):
        if end <= 1:
            raise SpanProblem("bad_offset", f"span [{start}, {end}) holds only the file's byte order mark")
        text, start, end = text[1:], max(start - 1, 0), end - 1
    return canonical_range(text, start, end)


def export(project: Project, result: BuildResult, options: SimpleNamespace) -> Exported:
    units = options.units or "codepoints"
    lines = []
    for rec in result.records:
        q = rec.question
        spans = []
        for s in rec.spans:
            text = project.corpus[s.doc_id].text
            start, end = from_codepoints(text, [s.start, s.end], units)
            spans.append({"doc": s.doc_id, "start": start, "end": end, "text": text[s.start:s.end]})
        obj: dict = {"id": q.id, "query": q.query, "expected_answer": q.expected_answer, "spans": spans}
        if q.split is not None:
            obj["split"] = q.split
        if q.tags:
            obj["tags"] = list(q.tags)
        if q.hop != "single":
            obj["hop"] = q.hop
        if q.unanswerable:
            obj["unanswerable"] = True
        lines.append(json_dumps(obj) + "\n")
    notes = [f"offsets counted in {units} of each document's canonical text; each span is the built span "
             "(after block expansion), with its text"]
    return Exported({"": "".join(lines).encode("utf-8")}, notes)


UNITS_OPTION = Option("units", "what offsets count: codepoints, utf16 (JavaScript tools such as Label Studio) or utf8 "
                      "bytes (default: the format's own — utf16 for label-studio, else codepoints)",
                      metavar="UNITS", choices=UNITS)

FORMAT = Format("offsets", "JSONL {id, query, expected_answer?, spans: [{doc, start, end, text?}], split?, tags?} of "
                "canonical character offsets", read=read, export=export,
                import_options=(UNITS_OPTION, Option(
                    "offsets-of", "what the offsets index: canonical (the canonical text, as labeller exports) or "
                    "file (each file as on disk: CRLF, NFD and a leading BOM as they are)", default="canonical",
                    metavar="TEXT", choices=("canonical", "file"))),
                export_options=(UNITS_OPTION,))
