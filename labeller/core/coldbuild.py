"""The cold build: on an empty cache, do every document's work in one pass on all cores.

A cold build does three kinds of work per document: chunking, searching the quotes, and
parsing the windows around the matches. Done lazily (as ``build`` does on a warm cache)
they are three rounds, one of them serial in this process; here each worker does all
three for its documents through ``parallel.iter_documents``, and the results go into the
project's caches under the same keys (``chunk_key``, ``window_key``, ``LAST_SEARCH``),
computed by the same functions, as the lazy path uses, which then simply finds them.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from labeller.core import parallel
from labeller.core.anchors import LAST_SEARCH, SEARCH_CODEC, FoldedDocument, document_hits, needles_digest, search_automaton
from labeller.core.cache import DigestCache
from labeller.core.chunkers import ROWS_CODEC, Chunker, chunk_key
from labeller.core.corpus import Document
from labeller.core.expansion import ExpansionRefused, section_span
from labeller.core.windows import WINDOWS_CODEC, DocWindows, window_key

if TYPE_CHECKING:  # a spawned worker imports this module: keep the project and models out of it
    from labeller.core.models import Question
    from labeller.core.project import Project


def prepare_cold_build(project: Project, questions: list[Question]) -> None:
    """On an empty cache, chunk and search every document and parse around its matches, in
    one pass on all cores; otherwise do nothing. The workers also write the cache entries
    themselves, so encoding them is parallel too. A cache that holds anything already
    takes the lazy path, which redoes only what changed."""
    cache, corpus, chunker = project.cache, project.corpus, project.chunker
    if cache is None or parallel.worker_count() < 2 or corpus.chars < parallel.MIN_PARALLEL_CHARS:
        return
    docs = list(corpus)
    if any(cache.get(chunk_key(chunker, d), ROWS_CODEC) is not None for d in docs):
        return
    from labeller.core.context import locator_needles  # not at the top: workers import this module

    needles = locator_needles(loc for q in questions for loc in q.locators)
    sections: dict[str, set[str]] = {}
    for q in questions:
        for loc in q.locators:
            if loc.heading is not None and loc.doc is not None:
                sections.setdefault(loc.doc, set()).add(loc.heading)
    block_namespace = project.block_cache.namespace
    store = (cache.folder.parent, cache.secret) if cache.folder is not None else None
    job = partial(_prepare_document, chunker=chunker, needles=tuple(needles), sections=sections, store=store,
                  block_namespace=block_namespace)
    per_doc = {}
    for doc, (rows, hits, windows, line_starts) in zip(docs, parallel.iter_documents(job, docs)):
        cache.remember(chunk_key(chunker, doc), rows)
        per_doc[doc.doc_id] = (doc.sha256, hits)
        if windows is not None:
            cache.remember((*block_namespace, *window_key(doc)), windows)
            doc.adopt_line_starts(line_starts)
    if needles:
        cache.put(LAST_SEARCH, (needles_digest(needles), per_doc), SEARCH_CODEC)


_AUTOMATA: dict = {}  # per worker process: the automaton of the current needles, built once


def _prepare_document(doc: Document, *, chunker: Chunker, needles: tuple[str, ...], sections: dict[str, set[str]],
                      store: tuple[Path, bytes | None] | None, block_namespace: tuple):
    """One document's chunk rows, quote matches, and the windows of parsed blocks that
    resolving its quotes and sections will ask for, under the keys ``Resolver`` looks
    them up by; all are also written to the cache folder of ``store`` (folder, HMAC secret),
    if any."""
    hits = {}
    if needles:
        if needles not in _AUTOMATA:
            _AUTOMATA.clear()
            _AUTOMATA[needles] = search_automaton(list(needles))
        auto = _AUTOMATA[needles]
        hits = document_hits(FoldedDocument(doc), auto, needles)
    windows = None
    headings = sections.get(doc.doc_id, ())
    if hits or headings:
        windows = DocWindows.of(doc)
        for _, kept in hits.values():
            for start, end in kept:
                windows.blocks_at(doc, doc.line_of(start), doc.line_of(end - 1))
        for heading in sorted(headings):
            try:
                section_span(doc, partial(windows.blocks_at, doc), heading)
            except ExpansionRefused:
                pass  # refused again, and reported, when the build resolves it
    rows = chunker.rows(doc)
    if store is not None:
        disk = DigestCache(*store)
        disk.put(chunk_key(chunker, doc), rows, ROWS_CODEC)
        if windows is not None:
            disk.put((*block_namespace, *window_key(doc)), windows, WINDOWS_CODEC)
    return rows, hits, windows, doc.line_starts if windows is not None else None
