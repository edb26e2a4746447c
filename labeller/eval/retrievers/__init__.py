"""Retrievers by name: the shipped ones, those registered in-process, and third-party ones.

A retriever is anything with ``describe()`` and ``retrieve(query_id, query, k) -> [Hit]``
(``base.Retriever``), or a plain callable ``(query, k) -> ranked results`` that
``run_eval`` wraps (``callable.CallableRetriever``). A factory makes one for a project:
``factory(project, *, chunks=None, **options)``, where ``chunks`` is the
``labeller.eval.chunkset.ChunkSet`` being scored (None: the project's own chunks).

Names resolve in this order: ``register_retriever`` (in-process), the shipped ``bm25`` and
``run``, then the ``labeller.retrievers`` entry-point group, so a package can ship a
retriever that ``labeller eval --retriever NAME`` finds without labeller knowing it:

    [project.entry-points."labeller.retrievers"]
    dense = "my_package.retriever:make"
"""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import Callable

from labeller.core.project import Project
from labeller.errors import InvalidInput
from labeller.eval.retrievers.base import Hit, Progress, Retriever, top_k, trec_order
from labeller.eval.retrievers.function import FunctionRetriever
from labeller.eval.retrievers.run_file import write_run

ENTRY_POINT_GROUP = "labeller.retrievers"
BUILTIN = ("bm25", "run")

__all__ = ["Hit", "Progress", "Retriever", "FunctionRetriever", "top_k", "trec_order", "write_run", "register_retriever",
           "make_retriever", "known_retrievers", "ENTRY_POINT_GROUP"]

# name -> factory(project, **options) -> Retriever (or a (query, k) callable).
_REGISTRY: dict[str, Callable[..., object]] = {}


def register_retriever(name: str, factory: Callable[..., object]) -> None:
    _REGISTRY[name] = factory


def _entry_points() -> dict:
    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def known_retrievers() -> list[str]:
    return sorted({*BUILTIN, *_REGISTRY, *_entry_points()})


def make_retriever(name: str, project: Project, **options: object):
    factory = _REGISTRY.get(name) or _builtin(name)
    if factory is None:
        ep = _entry_points().get(name)
        if ep is None:
            raise InvalidInput(f"unknown retriever {name!r}; known: {', '.join(known_retrievers())}")
        try:
            factory = ep.load()
        except Exception as exc:  # a broken third-party package is its input error, not a labeller crash
            raise InvalidInput(f"retriever {name!r} (entry point {ep.value!r} in group {ENTRY_POINT_GROUP}) "
                               f"cannot be loaded: {type(exc).__name__}: {exc}") from None
    return factory(project, **options)


def _builtin(name: str) -> Callable[..., object] | None:
    """The shipped retrievers, imported on first use (BM25 brings whoosh and numpy)."""
    if name == "bm25":
        from labeller.eval.retrievers.bm25 import BM25Retriever

        return BM25Retriever.for_project
    if name == "run":
        from labeller.eval.retrievers.run_file import RunFileRetriever

        return RunFileRetriever.for_project
    return None
