"""Map a function over documents on the machine's cores: the generic per-document mapper.

Documents are independent, so per-document work (chunking, searching, parsing; see
``coldbuild`` for the cold build that uses it) splits cleanly. Results come back in
input order and are the same objects a serial run computes (a pure function of each
document), so nothing derived can depend on how the work was spread. Small batches
stay in-process: starting workers costs more than it saves below ``MIN_PARALLEL_CHARS``.
"""

from __future__ import annotations

import ctypes
import gc
import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from typing import TypeVar

from labeller.core.corpus import Document

T = TypeVar("T")

MIN_PARALLEL_CHARS = 1_000_000
_BATCHES_PER_WORKER = 4
_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
_PARENT_POLL_SECONDS = 1.0


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


def _worker_start(parent_pid: int) -> None:
    """Initializer of every worker: no cycle collector (see ``gc_paused``), and
    die with the parent.

    A worker blocks on the pool's task pipe, whose write end every sibling forked after it
    also holds, so a parent killed with SIGKILL (a CI job cancelled) never gives it EOF: it
    would wait forever (issue 23). Linux kills it with the parent (``PR_SET_PDEATHSIG``);
    the ``getppid`` check closes the window where the parent died before that took effect,
    and the watcher thread covers the platforms without it.
    """
    gc.disable()
    if sys.platform == "linux":
        try:
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass  # no libc prctl (an unusual libc): the watcher below still ends the worker
    if os.getppid() != parent_pid:
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent_pid,), name="labeller-parent-watch", daemon=True).start()


def _watch_parent(parent_pid: int) -> None:
    """End this worker once its parent is gone: on POSIX an orphan is re-parented (its
    ``getppid`` changes); a spawned worker also holds a sentinel of the parent that becomes
    ready when the parent ends (Windows, where ``getppid`` does not change)."""
    parent = multiprocessing.parent_process()
    assert parent is not None  # every pool worker has one
    while os.getppid() == parent_pid and not multiprocessing.connection.wait([parent.sentinel],
                                                                             timeout=_PARENT_POLL_SECONDS):
        pass
    os._exit(1)


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cycle collector around work that makes millions of objects with almost no
    reference cycles: per-document parsing (a few hundred cycles collected per 10 MB), an
    eval's scoring (a ``Hit`` per retrieved chunk, metric dicts, report rows), a 200,000-line
    chunk file's chunks. Each of the collector's full passes re-walks every long-lived object
    (the corpus, the chunks): a quarter of the parse time, 40% of reading a 20,000 x 100 run,
    half of loading that chunk file. Reference counting still frees everything; the rare
    cycle waits for the collector, which is switched back on (if it was on) however the
    block ends. Also a decorator."""
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
            with ProcessPoolExecutor(max_workers=workers, mp_context=_context(), initializer=_worker_start,
                                     initargs=(os.getpid(),)) as pool:
                for result in pool.map(fn, docs, chunksize=chunksize):
                    done += 1
                    yield result
            return
        except (OSError, ValueError, BrokenProcessPool):
            # no process support here (a sandbox), a worker was killed, or stdio without a
            # file descriptor (Textual's stderr) that spawn cannot hand on: the rest on one core
            pass
    with gc_paused():
        results = [fn(d) for d in docs[done:]]
    yield from results
