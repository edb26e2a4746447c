"""TREC qrels: ``qid 0 docid rel``, one judgment a line, docid = chunk id.

This is what trec_eval and ir_measures read next to a run file. The qrels of a build are
its answer-bearing chunk ids (relevance 1) under the build's hit rule; negatives have no
relevant chunk, so TREC qrels cannot hold them, and they hold no query text either: the
optional companion file is a topics TSV, ``qid<TAB>query`` a line.

On import, a docid that is a chunk id of this corpus becomes an exact quote of that chunk;
a docid that is a document path becomes a whole-document label; relevance ≤ 0 is a judged
non-relevant (a query judged only so is a negative). Query text comes from ``--queries``.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from labeller.core.build import BuildResult
from labeller.core.project import Project
from labeller.display import CONTROL
from labeller.errors import InvalidInput
from labeller.interop.files import read_text
from labeller.interop.format import Exported, Format, Option
from labeller.interop.qrels import (CHUNKS_OPTION, Judgments, candidates_from_judgments, through_chunk_file,
                                   tsv_field)
from labeller.interop.records import Incoming
from labeller.io import nonblank_lines


def read_topics(path: Path, project: Project) -> dict[str, tuple[str, str]]:
    """``qid<TAB>query`` lines; the query is everything after the first tab."""
    queries: dict[str, tuple[str, str]] = {}
    for n, line in nonblank_lines(read_text(path, project.config.limits, "queries TSV")):
        qid, tab, text = line.rstrip("\r").partition("\t")
        where = f"{path}:{n}"
        if not tab or not qid.strip() or not text.strip():
            raise InvalidInput(f"{where}: expected 'query-id<TAB>query text'")
        if qid in queries:
            raise InvalidInput(f"{where}: query id {qid!r} appears twice (first at {queries[qid][1]})")
        queries[qid] = (text, where)
    return queries


def read(path: Path, project: Project, options: SimpleNamespace) -> Incoming:
    topics = options.queries
    if not topics:
        raise InvalidInput("TREC qrels hold no query text; give it with --queries FILE "
                           "(a TSV of 'query-id<TAB>query' lines)", path=str(path))
    queries = read_topics(Path(topics), project)
    judgments = Judgments()
    for n, line in nonblank_lines(read_text(path, project.config.limits, "qrels file")):
        parts = line.split()
        where = f"{path}:{n}"
        if len(parts) != 4:
            raise InvalidInput(f"{where}: expected 4 fields 'qid iteration docid relevance', found {len(parts)}")
        judgments.add(parts[0], parts[2], parts[3], where)
    candidates, unjudged = candidates_from_judgments(judgments, queries)
    notes = [f"{unjudged} query(ies) in {topics} have no judgments and were not imported"] if unjudged else []
    if options.chunks:
        notes += through_chunk_file(project, candidates, options.chunks)
    return Incoming(candidates, notes)


def export(project: Project, result: BuildResult, options: SimpleNamespace) -> Exported:
    lines: list[str] = []
    topics: list[str] = []
    negatives = 0
    for rec in result.records:
        qid = tsv_field(rec.question.id, "record id", rec.question.id)
        query = rec.question.query
        if "\t" in query or "\n" in query or "\r" in query:
            raise InvalidInput("the query holds a tab or a line break, which a topics TSV cannot hold",
                               record_id=qid)
        if options.queries_out and (bad := CONTROL.search(query)):
            raise InvalidInput(f"the query holds the control or invisible character U+{ord(bad.group()):04X}, "
                               "which a topics TSV has no escape for (export jsonl or beir to keep it)",
                               record_id=qid)
        topics.append(f"{qid}\t{query}\n")
        negatives += not rec.chunk_ids
        lines.extend(f"{qid} 0 {cid} 1\n" for cid in rec.chunk_ids)
    notes = [f"relevance = answer-bearing chunks under the build hit rule {project.hit_rule.name}"]
    if negatives:
        notes.append(f"{negatives} record(s) with no answer-bearing chunk (negatives) have no qrels line")
    extra = {options.queries_out: "".join(topics).encode("utf-8")} if options.queries_out else {}
    return Exported({"": "".join(lines).encode("utf-8")}, notes, extra)


FORMAT = Format(
    "trec-qrels", "TREC qrels 'qid 0 docid rel' (docid = chunk id); query text from a 'qid<TAB>query' TSV (--queries)",
    read=read, export=export,
    import_options=(Option("queries", "the query text, one 'query-id<TAB>query' a line", metavar="TSV"),
                    CHUNKS_OPTION),
    export_options=(Option("queries-out", "also write the 'query-id<TAB>query' topics here", metavar="TSV"),))
