"""labeller's BM25 beside tantivy and bm25s: on the same tokens, and with each engine's own tokenizer.

Every engine gets the distinct chunks of the project's chunking and indexes the three
fields ``heading``, ``breadcrumb`` and ``body`` with labeller's field weights and k1/b.
Two comparisons:

- own tokenizer (``tantivy_own_run``): tantivy is given the chunks' text and analyses it
  with its own ``en_stem`` tokenizer (lower case, English stemming), index and query, the
  way one would use it; labeller with its own analyzer. What a user of either would pay.
- shared tokens: the chunks cut by labeller's analyzer (``Analyzer.terms``) once, and
  handed to the peers pre-tokenized, so only indexing and scoring differ:

- labeller: ``build_storage`` (labeller's own index, ``bm25_index``; it runs the analyzer
  itself, so its build time includes the analysis) and ``BM25Retriever.search_hits``;
- tantivy: one text field per field with the ``whitespace`` tokenizer over the tokens
  joined by spaces (so tantivy sees labeller's terms unchanged), one indexing thread as
  labeller has; a query is an OR of ``boost(term, weight)`` over fields and terms;
- bm25s: one index per field (bm25s has no fields), a query the weighted sum of the
  three score vectors.

So that a build is the same work on each side, a peer's build time is its indexing time
plus the time labeller's analyzer took to cut the chunks (measured once, here). Both
analyses start cold: the analyzer memoises each distinct word's terms (stemming is most of
its cost), and a memo left warm by the engine that ran before would give the next one its
stems for free. A query's
time includes cutting the query with the analyzer on every side. Recall@k is the share of
a golden record's answer-bearing chunks found in the top k, averaged over answerable
records: the same number for each engine, so a fast engine that finds less is seen.
``own_text_runs`` adds each peer as one would use it out of the box (its own tokenizer,
stemmer and k1/b over the chunk's text), the bar the default's recall is tuned against
(``bm25_tuning.py``). Both peers come from the ``dev`` extra; labeller never imports them.
"""

from __future__ import annotations

import time

clock = time.process_time  # CPU seconds of every thread of this process: a loaded machine's waits left out
from dataclasses import dataclass

import numpy as np


@dataclass
class EngineRun:
    name: str
    build_s: float          # analysis included (see above)
    query_ms: float         # mean per query, analysis included
    recall10: float
    index_only_s: float     # without the analysis, for the record
    recall5: float = 0.0


def _recall(ranked: dict[str, list[str]], golden: dict[str, list[str]], k: int) -> float:
    per = [len(set(ranked[q][:k]) & set(ids)) / len(ids) for q, ids in golden.items() if ids]
    return sum(per) / len(per) if per else 0.0


def _recall10(ranked: dict[str, list[str]], golden: dict[str, list[str]]) -> float:
    return _recall(ranked, golden, 10)


def _run(name: str, build_s: float, query_ms: float, ranked: dict[str, list[str]], golden: dict[str, list[str]],
         index_only_s: float) -> EngineRun:
    return EngineRun(name, build_s, query_ms, _recall10(ranked, golden), index_only_s, _recall(ranked, golden, 5))


def _cold_analyzer() -> None:
    """Forget the analyzer's per-word memo, so each measured analysis pays for its stems."""
    from labeller.eval import analysis

    analysis.forget_words()


def _tokens(chunks, analyzer) -> tuple[list[dict[str, list[str]]], float]:
    _cold_analyzer()
    t = clock()
    out = [{"heading": analyzer.terms(c.heading), "breadcrumb": analyzer.terms(c.breadcrumb),
            "body": analyzer.terms(c.text)} for c in chunks]
    return out, clock() - t


def labeller_run(chunks, analyzer, weights, queries, golden) -> EngineRun:
    from labeller.eval.retrievers.bm25 import BM25Retriever, build_storage

    _cold_analyzer()
    t = clock()
    storage = build_storage(chunks, analyzer)
    build = clock() - t
    r = BM25Retriever(chunks, storage, analyzer, weights)
    ranked = {}
    t = clock()
    for qid, text in queries:
        ranked[qid] = [h.chunk_id for h in r.search_hits(text, 10)]
    per_query = (clock() - t) / len(queries) * 1000
    return _run("labeller", build, per_query, ranked, golden, build)


TANTIVY_OWN = "tantivy (own tokenizer)"


def tantivy_own_run(chunks, weights, queries, golden) -> EngineRun:
    """tantivy with its own analysis (``en_stem``) of the chunks' text and of each query
    (its query parser, lenient, OR over the fields with the weights as boosts)."""
    import tantivy

    sb = tantivy.SchemaBuilder()
    sb.add_text_field("chunk_id", stored=True, tokenizer_name="raw")
    for f in weights:
        sb.add_text_field(f, tokenizer_name="en_stem")
    index = tantivy.Index(sb.build())
    t = clock()
    writer = index.writer(heap_size=256_000_000, num_threads=1)
    for c in chunks:
        writer.add_document(tantivy.Document(chunk_id=c.chunk_id, heading=c.heading, breadcrumb=c.breadcrumb,
                                             body=c.text))
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    build = clock() - t
    searcher = index.searcher()
    active = [f for f, w in weights.items() if w > 0]
    boosts = {f: weights[f] for f in active}
    ranked = {}
    t = clock()
    for qid, text in queries:
        query, _ = index.parse_query_lenient(text, default_field_names=active, field_boosts=boosts)
        hits = searcher.search(query, 10).hits
        ranked[qid] = [searcher.doc(addr)["chunk_id"][0] for _, addr in hits]
    per_query = (clock() - t) / len(queries) * 1000
    return _run(TANTIVY_OWN, build, per_query, ranked, golden, build)


def tantivy_run(chunks, tokens, analysis_s, analyzer, weights, queries, golden) -> EngineRun:
    import tantivy

    sb = tantivy.SchemaBuilder()
    sb.add_text_field("chunk_id", stored=True, tokenizer_name="raw")
    for f in weights:
        sb.add_text_field(f, tokenizer_name="whitespace", index_option="freq")
    schema = sb.build()
    index = tantivy.Index(schema)  # in RAM, as labeller's index is
    t = clock()
    writer = index.writer(heap_size=256_000_000, num_threads=1)
    for c, tok in zip(chunks, tokens):
        writer.add_document(tantivy.Document(chunk_id=c.chunk_id, **{f: " ".join(tok[f]) for f in weights}))
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    index_only = clock() - t
    searcher = index.searcher()
    ranked = {}
    should = tantivy.Occur.Should
    t = clock()
    for qid, text in queries:
        terms = list(dict.fromkeys(analyzer.terms(text)))
        clauses = [(should, tantivy.Query.boost_query(tantivy.Query.term_query(schema, f, term), w))
                   for f, w in weights.items() if w > 0 for term in terms]
        if not clauses:
            ranked[qid] = []
            continue
        hits = searcher.search(tantivy.Query.boolean_query(clauses), 10).hits
        ranked[qid] = [searcher.doc(addr)["chunk_id"][0] for _, addr in hits]
    per_query = (clock() - t) / len(queries) * 1000
    return _run("tantivy", analysis_s + index_only, per_query, ranked, golden, index_only)


def bm25s_run(chunks, tokens, analysis_s, analyzer, weights, queries, golden, k1: float, b: float) -> EngineRun:
    import bm25s

    fields = [f for f, w in weights.items() if w > 0]
    t = clock()
    engines = {}
    for f in fields:
        e = bm25s.BM25(k1=k1, b=b)
        e.index([tok[f] for tok in tokens], show_progress=False)
        engines[f] = e
    index_only = clock() - t
    ids = np.array([c.chunk_id for c in chunks])
    vocab = {f: engines[f].vocab_dict for f in fields}
    ranked = {}
    t = clock()
    for qid, text in queries:
        terms = list(dict.fromkeys(analyzer.terms(text)))
        scores = np.zeros(len(chunks))
        for f in fields:
            known = [term for term in terms if term in vocab[f]]
            if known:
                scores += weights[f] * engines[f].get_scores(known)
        top = np.argsort(-scores, kind="stable")[:10]
        ranked[qid] = list(ids[top[scores[top] > 0]])
    per_query = (clock() - t) / len(queries) * 1000
    return _run("bm25s", analysis_s + index_only, per_query, ranked, golden, index_only)


def _text(chunk, fields: tuple[str, ...]) -> str:
    return "\n".join({"heading": chunk.heading, "breadcrumb": chunk.breadcrumb, "body": chunk.text}[f] for f in fields)


def tantivy_text_run(chunks, queries, golden, fields: tuple[str, ...]) -> EngineRun:
    """tantivy out of the box: one ``en_stem`` text field holding ``fields`` of each chunk,
    its BM25 defaults, its query parser (lenient)."""
    import tantivy

    sb = tantivy.SchemaBuilder()
    sb.add_text_field("chunk_id", stored=True, tokenizer_name="raw")
    sb.add_text_field("text", tokenizer_name="en_stem")
    index = tantivy.Index(sb.build())
    t = clock()
    writer = index.writer(heap_size=256_000_000, num_threads=1)
    for c in chunks:
        writer.add_document(tantivy.Document(chunk_id=c.chunk_id, text=_text(c, fields)))
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    build = clock() - t
    searcher = index.searcher()
    ranked = {}
    t = clock()
    for qid, text in queries:
        query, _ = index.parse_query_lenient(text, default_field_names=["text"])
        ranked[qid] = [searcher.doc(addr)["chunk_id"][0] for _, addr in searcher.search(query, 10).hits]
    per_query = (clock() - t) / len(queries) * 1000
    return _run(f"tantivy ({'+'.join(fields)})", build, per_query, ranked, golden, build)


def bm25s_text_run(chunks, queries, golden, fields: tuple[str, ...]) -> EngineRun:
    """bm25s out of the box: its own tokenizer with English stop words and the Snowball
    English stemmer (PyStemmer, as its docs show), its k1/b, over ``fields`` of each chunk."""
    import bm25s
    import Stemmer

    stemmer = Stemmer.Stemmer("english")
    t = clock()
    engine = bm25s.BM25()
    engine.index(bm25s.tokenize([_text(c, fields) for c in chunks], stopwords="en", stemmer=stemmer,
                                show_progress=False), show_progress=False)
    build = clock() - t
    ids = np.array([c.chunk_id for c in chunks])
    ranked = {}
    t = clock()
    for qid, text in queries:
        q = bm25s.tokenize([text], stopwords="en", stemmer=stemmer, return_ids=False, show_progress=False)
        found, scores = engine.retrieve(q, k=min(10, len(chunks)), show_progress=False)
        ranked[qid] = list(ids[found[0][scores[0] > 0]])
    per_query = (clock() - t) / len(queries) * 1000
    return _run(f"bm25s ({'+'.join(fields)})", build, per_query, ranked, golden, build)


OWN_TEXT = (("body",), ("heading", "breadcrumb", "body"))  # a chunk's text alone, or with its headings


def own_text_runs(chunks, queries, golden) -> list[EngineRun]:
    """Each installed peer on each of ``OWN_TEXT``, its own tokenizer and defaults."""
    runs = []
    for fn in (tantivy_text_run, bm25s_text_run):
        for fields in OWN_TEXT:
            try:
                runs.append(fn(chunks, queries, golden, fields))
            except ImportError:
                break
    return runs


def compare(chunks, analyzer, weights, queries, golden, k1: float, b: float) -> list[EngineRun]:
    """labeller first, then each peer that is installed (a missing one is left out, named):
    tantivy with its own tokenizer, then tantivy and bm25s on labeller's tokens, then each
    peer out of the box on the chunk's text (``own_text_runs``)."""
    runs = [labeller_run(chunks, analyzer, weights, queries, golden)]
    tokens, analysis_s = _tokens(chunks, analyzer)
    for name, fn in (("tantivy", lambda: tantivy_own_run(chunks, weights, queries, golden)),
                     ("tantivy", lambda: tantivy_run(chunks, tokens, analysis_s, analyzer, weights, queries, golden)),
                     ("bm25s", lambda: bm25s_run(chunks, tokens, analysis_s, analyzer, weights, queries, golden,
                                                 k1, b))):
        try:
            runs.append(fn())
        except ImportError:
            print(f"  {name} is not installed (pip install -e '.[dev]'): left out of the comparison")
    return runs + own_text_runs(chunks, queries, golden)
