"""BEIR dataset folders: ``corpus.jsonl``, ``queries.jsonl``, ``qrels/<split>.tsv``.

Export writes every chunk of the corpus as a BEIR document (``_id`` = chunk id, ``title`` =
breadcrumb, ``text`` = the chunk's canonical text), every record as a query, and the build's
answer-bearing chunks as relevance 1 in the qrels file of the record's split (``test`` when
it has none). BEIR has no place for labeller's other fields, so they travel in the query's
``metadata.labeller`` object, which BEIR loaders ignore and labeller reads back: a labeller →
labeller round trip keeps expected answers, tags, splits, hops and negatives.

Import reads ``queries.jsonl`` and the qrels files (all of them, or ``--split NAME``); it does
not need ``corpus.jsonl``, since every corpus id is checked against this corpus instead. The
split is the metadata's when present, else the qrels file's name when it is one of labeller's
splits (``dev``, ``test``, ``holdout``), else none.
"""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

from labeller.core.build import BuildResult
from labeller.core.project import Project
from labeller.core.vocab import SPLITS
from labeller.display import json_dumps
from labeller.errors import InvalidInput
from labeller.interop.files import read_text, refuse_unknown_keys, require_str
from labeller.interop.format import Exported, Format, Option
from labeller.interop.objects import optional_str, str_list
from labeller.interop.qrels import (CHUNKS_OPTION, Judgments, candidates_from_judgments, through_chunk_file,
                                   tsv_field)
from labeller.interop.records import Incoming
from labeller.io import nonblank_lines, read_jsonl, refuse_symlink_components

QRELS_HEADER = "query-id\tcorpus-id\tscore"
META_KEYS = {"expected_answer", "tags", "split", "hop", "unanswerable"}


def _queries(path: Path, project: Project) -> tuple[dict[str, tuple[str, str]], dict[str, dict]]:
    queries: dict[str, tuple[str, str]] = {}
    meta: dict[str, dict] = {}
    lines = read_jsonl(path, max_bytes=project.config.limits.max_file_bytes, what="BEIR queries file",
                       bound_hint="raise [limits] max_file_bytes in labeller.toml",
                       max_lines=project.config.limits.max_lines,
                       lines_hint="raise [limits] max_records in labeller.toml")
    for jl in lines:
        if jl.skipped:
            continue
        if jl.error is not None:
            raise jl.refuse()
        where, obj = f"{path}:{jl.line}", jl.value
        if not isinstance(obj, dict):
            raise InvalidInput(f"{where}: a query must be a JSON object")
        refuse_unknown_keys(obj, {"_id", "text", "metadata", "title"}, {"_id", "text"}, where)
        qid = require_str(obj["_id"], "_id", where)
        if qid in queries:
            raise InvalidInput(f"{where}: query id {qid!r} appears twice (first at {queries[qid][1]})")
        queries[qid] = (require_str(obj["text"], "text", where), where)
        own = (obj.get("metadata") or {}).get("labeller") if isinstance(obj.get("metadata"), dict) else None
        if own is not None:
            if not isinstance(own, dict):
                raise InvalidInput(f"{where}: metadata.labeller must be an object")
            refuse_unknown_keys(own, META_KEYS, set(), f"{where}: metadata.labeller")
            meta[qid] = _own_fields(own, f"{where}: metadata.labeller")
    return queries, meta


def _own_fields(own: dict, where: str) -> dict:
    """labeller's fields as a query's metadata carries them, each checked for its type (``null``
    is "not set"): a number or ``null`` in ``tags`` reached the import's count of tagged
    records and exited 3."""
    for key in ("expected_answer", "split", "hop"):
        optional_str(own, key, where)
    if own.get("unanswerable") is not None and not isinstance(own["unanswerable"], bool):
        raise InvalidInput(f"{where}: unanswerable must be true or false, not {type(own['unanswerable']).__name__}")
    fields = {k: v for k, v in own.items() if k != "tags"}
    if own.get("tags") is not None:
        fields["tags"] = str_list(own, "tags", where)
    return fields


def _qrels_files(folder: Path, split: str | None) -> list[Path]:
    qrels = folder / "qrels"
    if split is not None:
        if not split or "/" in split or "\\" in split or split.startswith("."):
            raise InvalidInput(f"--split {split!r} must be a plain split name such as test")
        return [qrels / f"{split}.tsv"]
    if qrels.is_symlink() or not qrels.is_dir():
        raise InvalidInput("no qrels/ folder (a BEIR dataset keeps its judgments in qrels/<split>.tsv)",
                           path=str(folder))
    return sorted(qrels / e.name for e in os.scandir(qrels) if e.name.endswith(".tsv"))


def read(path: Path, project: Project, options: SimpleNamespace) -> Incoming:
    folder = Path(path)
    refuse_symlink_components(folder)
    if not folder.is_dir():
        raise InvalidInput("a BEIR dataset is a folder (corpus.jsonl, queries.jsonl, qrels/)", path=str(folder))
    queries, meta = _queries(folder / "queries.jsonl", project)
    judgments = Judgments()
    split_of: dict[str, set[str]] = {}
    notes = []
    for qrels in _qrels_files(folder, options.split):
        in_file = Judgments()
        lines = nonblank_lines(read_text(qrels, project.config.limits, "qrels file"))
        first, header = next(lines, (0, ""))
        if first != 1 or header.rstrip("\r") != QRELS_HEADER:
            raise InvalidInput(f"the first line must be the header {QRELS_HEADER!r}", path=str(qrels), line=1)
        for n, line in lines:
            parts = line.rstrip("\r").split("\t")
            if len(parts) != 3:
                raise InvalidInput(f"expected 3 tab-separated fields, found {len(parts)}", path=str(qrels), line=n)
            in_file.add(parts[0], parts[1], parts[2], f"{qrels}:{n}")
            split_of.setdefault(parts[0], set()).add(qrels.stem)
        judgments.update(in_file)
        if qrels.stem not in SPLITS:
            notes.append(f"{qrels.name}: {qrels.stem!r} is not a labeller split ({', '.join(SPLITS)}); its records "
                         "get no split unless their metadata names one")
    candidates, unjudged = candidates_from_judgments(judgments, queries, meta)
    for cand in candidates:
        splits = split_of.get(cand.id, set())
        if len(splits) > 1:
            cand.skip = ("split_conflict", f"judged in more than one qrels file: {', '.join(sorted(splits))}")
        elif "split" not in cand.fields and splits and next(iter(splits)) in SPLITS:
            cand.fields["split"] = next(iter(splits))
        if cand.fields.get("split", "") is None:
            del cand.fields["split"]
    if options.chunks:
        notes += through_chunk_file(project, candidates, options.chunks)
    if unjudged:
        notes.append(f"{unjudged} query(ies) in queries.jsonl have no judgments in the qrels read and were not "
                     "imported")
    return Incoming(candidates, notes)


def export(project: Project, result: BuildResult, options: SimpleNamespace) -> Exported:
    corpus_lines = []
    seen: set[str] = set()
    for c in project.all_chunks:
        if c.chunk_id in seen:
            continue  # two chunks of one document with identical text share an id: one BEIR document
        seen.add(c.chunk_id)
        corpus_lines.append(json_dumps({"_id": c.chunk_id, "title": c.breadcrumb, "text": c.text,
                                        "metadata": {"doc_id": c.doc_id, "char_start": c.start,
                                                     "char_end": c.end}}) + "\n")
    query_lines = []
    qrels: dict[str, list[str]] = {}
    for rec in result.records:
        q = rec.question
        qid = tsv_field(q.id, "record id", q.id)
        own: dict[str, object] = {"expected_answer": q.expected_answer, "tags": list(q.tags), "split": q.split, "hop": q.hop}
        if q.unanswerable is not None:
            own["unanswerable"] = q.unanswerable
        query_lines.append(json_dumps({"_id": qid, "text": q.query, "metadata": {"labeller": own}}) + "\n")
        rows = qrels.setdefault(q.split or "test", [])
        rows.extend(f"{qid}\t{cid}\t1\n" for cid in rec.chunk_ids)
    files = {"corpus.jsonl": "".join(corpus_lines), "queries.jsonl": "".join(query_lines)}
    for split, rows in sorted(qrels.items()):
        files[f"qrels/{split}.tsv"] = QRELS_HEADER + "\n" + "".join(rows)
    notes = [f"{len(seen)} corpus documents (chunks), {len(result.records)} queries; relevance = answer-bearing "
             f"chunks under the build hit rule {project.hit_rule.name}"]
    return Exported({name: text.encode("utf-8") for name, text in files.items()}, notes)


FORMAT = Format(
    "beir", "BEIR folder: corpus.jsonl {_id: chunk id, title, text}, queries.jsonl, qrels/<split>.tsv",
    read=read, export=export,
    import_options=(Option("split", "read only qrels/SPLIT.tsv (default: every qrels file)", metavar="SPLIT"),
                    CHUNKS_OPTION),
    folder=("corpus.jsonl", "queries.jsonl", "qrels/*.tsv"))
