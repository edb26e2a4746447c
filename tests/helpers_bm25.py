"""whoosh as the BM25 oracle: a real whoosh index of the same chunks, written and searched through whoosh's public API.

labeller's index is its own (``labeller.eval.retrievers.bm25_index``); what it must equal is
whoosh's BM25F (k1, b) over the chunks' three fields cut by the same analyzer, a query being
an ``Or`` of ``Term``s boosted by the field weights. This builds that index with whoosh's
own writer (``add_document``), in RAM, and reads scores back through whoosh's searcher and
matchers: nothing of labeller's index code is involved.
"""

from __future__ import annotations

from whoosh.fields import STORED, TEXT, Schema
from whoosh.filedb.filestore import RamStorage
from whoosh.query import Or, Term
from whoosh.scoring import BM25F
from whoosh.searching import Searcher

from labeller.core.chunkers import Chunk
from labeller.eval.analysis import Analyzer
from labeller.eval.retrievers.base import Hit, trec_order
from labeller.eval.retrievers.bm25 import B, FIELDS, K1


def whoosh_searcher(chunks: list[Chunk], analyzer: Analyzer, b: float = B, k1: float = K1) -> Searcher:
    """whoosh's BM25F(b, k1) searcher over ``chunks`` (docnum i is ``chunks[i]``), indexed by whoosh's writer."""
    an = analyzer.whoosh()
    schema = Schema(chunk_id=STORED(), **{f: TEXT(analyzer=an, phrase=False) for f in FIELDS})
    ix = RamStorage().create_index(schema)
    with ix.writer() as writer:
        for c in chunks:
            writer.add_document(chunk_id=c.chunk_id, heading=c.heading, breadcrumb=c.breadcrumb, body=c.text)
    searcher = ix.searcher(weighting=BM25F(B=b, K1=k1))
    assert [searcher.stored_fields(d)["chunk_id"] for d in range(searcher.doc_count_all())] == \
        [c.chunk_id for c in chunks]
    return searcher


def whoosh_term_scores(searcher: Searcher, field: str, term: str) -> tuple[list[int], list[float]]:
    """Docnums and scores of ``term`` in ``field``, one posting at a time through whoosh's matcher."""
    m = Term(field, term).matcher(searcher, searcher.context())
    ids, scores = [], []
    while m.is_active():
        ids.append(m.id())
        scores.append(m.score())
        m.next()
    return ids, scores


def whoosh_ranking(searcher: Searcher, analyzer: Analyzer, weights: dict[str, float], text: str) -> list[Hit]:
    """Every match of the query, whoosh's scores, in trec_eval order (SPEC §8: ties by descending id)."""
    terms = list(dict.fromkeys(analyzer.terms(text)))
    if not terms:
        return []
    query = Or([Term(f, t, boost=w) for f, w in weights.items() if w > 0 for t in terms])
    return trec_order(Hit(searcher.stored_fields(d)["chunk_id"], s)
                      for d, s in searcher.search(query, limit=None).items())
