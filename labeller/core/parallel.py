"""Per-document work spread over the machine's cores, for cold builds of large corpora.

Chunking every document, searching it for every quote and parsing the Markdown around
each match is nearly all of a cold build's time, and documents are independent, so the
work splits cleanly. Results come back in input order and are the same objects a serial
run computes (a pure function of each document), so the artifact cannot depend on how
the work was spread. Small batches stay in-process: starting workers costs more than it
saves below ``MIN_PARALLEL_CHARS``.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from functools import partial
from typing import TypeVar

from labeller.core.corpus import Document

T = TypeVar("T")

MIN_PARALLEL_CHARS = 1_000_000
_BATCHES_PER_WORKER = 4


def worker_count() -> int:
    """Cores this process may use (``LABELLER_WORKERS`` overrides; 1 turns parallelism off)."""
    env = os.environ.get("LABELLER_WORKERS", "").strip()
    if env.isdigit() and int(env) > 0:
        return int(env)
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _context():
    # fork is instant and inherits the imported modules, but forking a process that runs
    # other threads (the app) can deadlock the child; spawn is always safe.
    if sys.platform == "linux" and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


@contextmanager
def _cyclic_gc_paused():
    """Pause the cycle collector around per-document work.

    Parsing allocates millions of short-lived objects with almost no reference cycles
    (measured: a few hundred collected per 10 MB), so the collector only re-walks the
    long-lived corpus and chunks, a quarter of the parse time. Reference counting still
    frees everything; the rare cycle waits for the collector to resume.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def map_documents(fn: Callable[[Document], T], docs: Sequence[Document]) -> list[T]:
    """``[fn(d) for d in docs]``, on several processes when the batch is large enough."""
    return list(iter_documents(fn, docs))


def iter_documents(fn: Callable[[Document], T], docs: Sequence[Document]) -> Iterator[T]:
    """``fn(d)`` for each document in order, yielded as soon as it is ready, so the caller
    can store one result while the workers compute the next.

    ``fn`` must pickle (a module-level function, or a bound method of a picklable object
    such as a chunker) and its result must depend only on the document.
    """
    workers = min(worker_count(), len(docs))
    done = 0
    if workers >= 2 and sum(len(d.text) for d in docs) >= MIN_PARALLEL_CHARS:
        chunksize = max(1, len(docs) // (workers * _BATCHES_PER_WORKER))
        try:
            with ProcessPoolExecutor(max_workers=workers, mp_context=_context(), initializer=gc.disable) as pool:
                for result in pool.map(fn, docs, chunksize=chunksize):
                    done += 1
                    yield result
            return
        except (OSError, ValueError, BrokenProcessPool):
            # no process support here (a sandbox), a worker was killed, or stdio without a
            # file descriptor (Textual's stderr) that spawn cannot hand on: the rest on one core
            pass
    with _cyclic_gc_paused():
        results = [fn(d) for d in docs[done:]]
    yield from results


def prepare_cold_build(project, questions) -> None:
    """On an empty cache, chunk and search every document and parse around its matches, in
    one pass on all cores.

    A cold build does three kinds of work per document: chunking, searching the quotes,
    and parsing the windows around the matches. Done lazily they are three
    rounds, one of them serial in this process; here each worker does all three for its
    documents, and the results go into the project's caches under the same keys, computed
    by the same functions, as the lazy path would use, which then simply finds them. The
    workers also write the cache entries themselves, so encoding them is parallel too. A
    cache that holds anything already takes the lazy path, which redoes only what changed.
    """
    from labeller.core.anchors import LAST_SEARCH, SEARCH_CODEC, fold_quote, needles_digest, search_needles
    from labeller.core.chunkers import ROWS_CODEC, chunk_key
    from labeller.core.windows import WINDOWS_VERSION

    cache, corpus, chunker = project.cache, project.corpus, project.chunker
    if cache is None or worker_count() < 2 or corpus.chars < MIN_PARALLEL_CHARS:
        return
    docs = list(corpus)
    if any(cache.get(chunk_key(chunker, d), ROWS_CODEC) is not None for d in docs):
        return
    needles = search_needles(fold_quote(loc.quote) for q in questions for loc in q.locators if loc.quote is not None)
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
    for doc, (rows, hits, windows, line_starts) in zip(docs, iter_documents(job, docs)):
        cache.remember(chunk_key(chunker, doc), rows)
        per_doc[doc.doc_id] = (doc.sha256, hits)
        if windows is not None:
            cache.remember((*block_namespace, WINDOWS_VERSION, doc.doc_id, doc.sha256), windows)
            doc.adopt_line_starts(line_starts)
    if needles:
        cache.put(LAST_SEARCH, (needles_digest(needles), per_doc), SEARCH_CODEC)


_AUTOMATA: dict = {}  # per worker process: the automaton of the current needles, built once


def _prepare_document(doc: Document, *, chunker, needles: tuple[str, ...], sections: dict[str, set[str]], store,
                      block_namespace: tuple):
    """One document's chunk rows, quote matches, and the windows of parsed blocks that
    resolving its quotes and sections will ask for, under the keys ``Resolver`` looks
    them up by; all are also written to the cache folder of ``store`` (folder, secret), if any."""
    from labeller.core.anchors import FoldedDocument, automaton, document_hits
    from labeller.core.cache import DigestCache
    from labeller.core.chunkers import ROWS_CODEC, chunk_key
    from labeller.core.expansion import ExpansionRefused, section_span
    from labeller.core.windows import WINDOWS_CODEC, WINDOWS_VERSION, DocWindows

    hits = {}
    if needles:
        auto = _AUTOMATA.get(needles)
        if auto is None:
            _AUTOMATA.clear()
            auto = _AUTOMATA[needles] = automaton(list(needles))
        hits = document_hits(FoldedDocument(doc), auto)
    windows = None
    headings = sections.get(doc.doc_id, ())
    if hits or headings:
        windows = DocWindows.of(doc)
        for found in hits.values():
            for start, end in found:
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
            disk.put((*block_namespace, WINDOWS_VERSION, doc.doc_id, doc.sha256), windows, WINDOWS_CODEC)
    return rows, hits, windows, doc.line_starts if windows is not None else None
