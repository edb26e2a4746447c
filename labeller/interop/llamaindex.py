"""LlamaIndex datasets: ``EmbeddingQAFinetuneDataset`` and ``LabelledRagDataset`` JSON.

``EmbeddingQAFinetuneDataset`` — ``{queries: {id: text}, corpus: {node_id: text}, relevant_docs:
{id: [node_id]}, mode: "text"}`` — is what ``generate_qa_embedding_pairs(...).save_json`` writes
and ``RetrieverEvaluator`` reads. ``LabelledRagDataset`` — ``{examples: [{query, query_by,
reference_contexts, reference_answer, reference_answer_by}]}`` — is what ``RagDatasetGenerator``
and the llama-datasets hub save (``save_json``); its examples have no id, so each record's id is
``llamaindex-`` and a digest of its query, and ``query_by`` / ``reference_answer_by`` go to the
record's metadata. On import each relevant node's text (each reference context) is a context,
located exactly in the corpus (nodes written with metadata in their text are not found; the
nearest passage is suggested).

On export (``--dataset embedding-qa``, the default) the corpus is labeller's chunks (node id =
chunk id, as in ``beir``) and the relevant nodes a record's answer-bearing chunks under the build
hit rule, so LlamaIndex scores a retriever over the very chunks labeller built; a re-import
then labels whole chunks. ``--dataset rag`` writes a ``LabelledRagDataset``: the query, each
built span's text as a reference context, the expected answer (negatives left out).
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from labeller.core.build import BuildResult
from labeller.core.project import Project
from labeller.display import json_dumps
from labeller.errors import InvalidInput
from labeller.interop.containers import JSON_OBJECT, sniff
from labeller.interop.files import read_text, refuse_unknown_keys, require_str
from labeller.interop.format import Exported, Format, Option
from labeller.interop.front_matter import FrontMatterCut
from labeller.interop.objects import str_list
from labeller.interop.records import Incoming
from labeller.interop.synthetic import record_id, synthetic_candidate

READS = ("a JSON object: an EmbeddingQAFinetuneDataset {queries, corpus, relevant_docs, mode} or a "
         "LabelledRagDataset {examples: [{query, reference_contexts, reference_answer, ...}]}")
EXAMPLE_KEYS = {"query", "query_by", "reference_contexts", "reference_answer", "reference_answer_by"}
DATASETS = ("embedding-qa", "rag")


def _str_map(data: dict, key: str, path: Path) -> dict[str, str]:
    value = data[key]
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise InvalidInput(f"{key} must map ids to texts", path=str(path))
    return value


def read(path: Path, project: Project, options: SimpleNamespace) -> Incoming:
    box = sniff(read_text(path, project.config.limits, "LlamaIndex dataset"), str(path))
    if box.kind != JSON_OBJECT or not ({"examples", "queries", "corpus", "relevant_docs"} & set(box.keys)):
        raise box.wrong("llamaindex", READS, str(path))
    data = box.value
    cut = FrontMatterCut(project)
    if "examples" in data:
        refuse_unknown_keys(data, {"examples"}, {"examples"}, str(path))
        out = _rag_examples(data["examples"], path, project, cut)
    else:
        out = _embedding_qa(data, path, project, cut)
    return Incoming(out, cut.notes())


def _embedding_qa(data: dict, path: Path, project: Project, cut: FrontMatterCut) -> list:
    refuse_unknown_keys(data, {"queries", "corpus", "relevant_docs", "mode"}, {"queries", "corpus", "relevant_docs"},
                        str(path))
    queries, corpus = _str_map(data, "queries", path), _str_map(data, "corpus", path)
    relevant = data["relevant_docs"]
    if not isinstance(relevant, dict):
        raise InvalidInput("relevant_docs must map query ids to lists of node ids", path=str(path))
    for qid, nodes in relevant.items():
        if not isinstance(nodes, list) or not all(isinstance(n, str) for n in nodes):
            raise InvalidInput(f"relevant_docs[{qid!r}] must be a list of node ids (strings)", path=str(path),
                               record_id=qid)
    out = []
    for qid, query in queries.items():
        where = f"{path}: queries[{qid!r}]"
        nodes = relevant.get(qid, [])
        missing = [n for n in nodes if n not in corpus]
        contexts = [cut.body(corpus[n]) for n in nodes if n in corpus]
        cand = synthetic_candidate(project, "llamaindex", qid, query, where, contexts, "")
        if missing:
            cand.skip = ("unknown_node", f"relevant node(s) {', '.join(map(repr, missing))} are not in the file's "
                         "corpus")
        out.append(cand)
    return out


def _rag_examples(examples, path: Path, project: Project, cut: FrontMatterCut) -> list:
    if not isinstance(examples, list):
        raise InvalidInput("examples must be a list", path=str(path))
    out = []
    for i, ex in enumerate(examples):
        where = f"{path}: examples[{i}]"
        if not isinstance(ex, dict):
            raise InvalidInput(f"{where}: each example must be a JSON object")
        refuse_unknown_keys(ex, EXAMPLE_KEYS, {"query"}, where)
        query = require_str(ex["query"], "query", where)
        answer = ex.get("reference_answer")
        contexts = [cut.body(c) for c in str_list(ex, "reference_contexts", where)]
        cand = synthetic_candidate(project, "llamaindex", record_id("llamaindex", query), query, where, contexts,
                                   "" if answer is None else require_str(answer, "reference_answer", where))
        meta = {k: ex[k] for k in ("query_by", "reference_answer_by") if ex.get(k) is not None}
        if meta:
            cand.fields["metadata"] = meta
        out.append(cand)
    return out


def export(project: Project, result: BuildResult, options: SimpleNamespace) -> Exported:
    if options.dataset == "rag":
        return _export_rag(project, result)
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


def _export_rag(project: Project, result: BuildResult) -> Exported:
    examples, negatives = [], 0
    for rec in result.records:
        if not rec.spans:
            negatives += 1
            continue
        q = rec.question
        examples.append({"query": q.query, "query_by": q.metadata.get("query_by"),
                         "reference_contexts": [project.corpus[s.doc_id].text[s.start:s.end] for s in rec.spans],
                         "reference_answer": q.expected_answer,
                         "reference_answer_by": q.metadata.get("reference_answer_by")})
    notes = ["LabelledRagDataset: reference contexts are the built spans' text"]
    if negatives:
        notes.append(f"{negatives} negative record(s) left out (an example needs a reference context)")
    return Exported({"": (json_dumps({"examples": examples}, indent=4) + "\n").encode("utf-8")}, notes)


FORMAT = Format("llamaindex", "LlamaIndex EmbeddingQAFinetuneDataset {queries, corpus, relevant_docs} or "
                "LabelledRagDataset {examples} JSON (contexts located exactly)", read=read, export=export,
                export_options=(Option("dataset", "the LlamaIndex dataset to write: embedding-qa "
                                       "(EmbeddingQAFinetuneDataset, the default) or rag (LabelledRagDataset)",
                                       default="embedding-qa", metavar="KIND", choices=DATASETS),))
