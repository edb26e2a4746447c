"""LlamaIndex ``EmbeddingQAFinetuneDataset`` JSON: ``{queries: {id: text}, corpus: {node_id: text},
relevant_docs: {id: [node_id]}, mode: "text"}``.

What ``generate_qa_embedding_pairs(...).save_json`` writes and ``RetrieverEvaluator`` reads.
On import each relevant node's text is a context, located exactly in the corpus (nodes
written with metadata in their text are not found; the nearest passage is suggested). On
export the corpus is labeller's chunks (node id = chunk id, as in ``beir``) and the relevant
nodes a record's answer-bearing chunks under the build hit rule, so LlamaIndex scores a
retriever over the very chunks labeller built; a re-import then labels whole chunks.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from labeller.core.build import BuildResult
from labeller.core.project import Project
from labeller.display import json_dumps
from labeller.errors import InvalidInput
from labeller.interop.files import read_text, refuse_unknown_keys
from labeller.interop.format import Exported, Format
from labeller.interop.records import Incoming
from labeller.interop.synthetic import synthetic_candidate
from labeller.io import parse_json


def _str_map(data: dict, key: str, path: Path) -> dict[str, str]:
    value = data[key]
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise InvalidInput(f"{key} must map ids to texts", path=str(path))
    return value


def read(path: Path, project: Project, options: SimpleNamespace) -> Incoming:
    data = parse_json(read_text(path, project.config.limits, "LlamaIndex dataset"), str(path))
    if not isinstance(data, dict):
        raise InvalidInput("the top level must be {queries, corpus, relevant_docs, mode}", path=str(path))
    refuse_unknown_keys(data, {"queries", "corpus", "relevant_docs", "mode"}, {"queries", "corpus", "relevant_docs"},
                        str(path))
    queries, corpus = _str_map(data, "queries", path), _str_map(data, "corpus", path)
    relevant = data["relevant_docs"]
    if not isinstance(relevant, dict) or not all(isinstance(v, list) and all(isinstance(n, str) for n in v)
                                                 for v in relevant.values()):
        raise InvalidInput("relevant_docs must map query ids to lists of node ids", path=str(path))
    out = []
    for qid, query in queries.items():
        where = f"{path}: queries[{qid!r}]"
        nodes = relevant.get(qid, [])
        missing = [n for n in nodes if n not in corpus]
        contexts = [corpus[n] for n in nodes if n in corpus]
        cand = synthetic_candidate(project, "llamaindex", qid, query, where, contexts, "")
        if missing:
            cand.skip = ("unknown_node", f"relevant node(s) {', '.join(map(repr, missing))} are not in the file's "
                         "corpus")
        out.append(cand)
    return Incoming(out)


def export(project: Project, result: BuildResult, options: SimpleNamespace) -> Exported:
    corpus: dict[str, str] = {}
    for c in project.all_chunks:
        corpus.setdefault(c.chunk_id, c.text)
    queries = {rec.question.id: rec.question.query for rec in result.records if rec.chunk_ids}
    relevant = {rec.question.id: list(rec.chunk_ids) for rec in result.records if rec.chunk_ids}
    left = len(result.records) - len(queries)
    text = json_dumps({"queries": queries, "corpus": corpus, "relevant_docs": relevant, "mode": "text"},
                      indent=2) + "\n"
    notes = [f"{len(corpus)} node(s) = chunks; relevant = answer-bearing chunks under the build hit rule "
             f"{project.hit_rule.name}"]
    if left:
        notes.append(f"{left} record(s) with no answer-bearing chunk (negatives) left out")
    return Exported({"": text.encode("utf-8")}, notes)


FORMAT = Format("llamaindex", "LlamaIndex EmbeddingQAFinetuneDataset JSON {queries, corpus, relevant_docs} "
                "(node texts located exactly)", read=read, export=export)
