"""Per-document work spread over the machine's cores, for cold builds of large corpora.

Parsing every labelled document with markdown-it is most of a cold build's time, and
documents are independent, so the work splits cleanly. Results come back in input order
and are the same objects a serial run computes (a pure function of each document), so
the artifact cannot depend on how the work was spread. Small batches stay in-process:
starting workers costs more than it saves below ``MIN_PARALLEL_CHARS``.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
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


def map_documents(fn: Callable[[Document], T], docs: Sequence[Document]) -> list[T]:
    """``[fn(d) for d in docs]``, on several processes when the batch is large enough.

    ``fn`` must pickle (a module-level function, or a bound method of a picklable object
    such as a chunker) and its result must depend only on the document.
    """
    workers = min(worker_count(), len(docs))
    if workers < 2 or sum(len(d.text) for d in docs) < MIN_PARALLEL_CHARS:
        return [fn(d) for d in docs]
    chunksize = max(1, len(docs) // (workers * _BATCHES_PER_WORKER))
    try:
        with ProcessPoolExecutor(max_workers=workers, mp_context=_context()) as pool:
            return list(pool.map(fn, docs, chunksize=chunksize))
    except (OSError, BrokenProcessPool):
        # no process support here (a sandbox), or a worker was killed: same result, one core
        return [fn(d) for d in docs]
