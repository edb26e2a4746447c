"""Retrievers by name: the shipped ones, those registered in-process, and third-party ones.

A retriever is anything with ``describe()`` and ``retrieve(query_id, query, k) -> [Hit]``
(``base.Retriever``), or a plain callable ``(query, k) -> ranked results`` that
``run_eval`` wraps (``function.FunctionRetriever``). A factory makes one for a project:
``factory(project, *, chunks=None, **options)``, where ``chunks`` is the
``labeller.eval.chunkset.ChunkSet`` being scored (None: the project's own chunks).

Names resolve in this order: ``REGISTRY`` (the shipped ``bm25``, ``run``, ``dense``, and the
fusions ``hybrid`` and ``rrf``, one line each,
and whatever ``register_retriever`` adds in-process, which may replace a shipped one), then
the ``labeller.retrievers`` entry-point group, so a package can ship a retriever that
``labeller eval --retriever NAME`` finds without labeller knowing it:

    [project.entry-points."labeller.retrievers"]
    mine = "my_package.retriever:make"
"""

from __future__ import annotations

import inspect
from typing import Callable, cast

from labeller.core.project import Project
from labeller.errors import InvalidInput
from labeller.registry import Registry
from labeller.eval.retrievers.base import Hit, Progress, Retriever, top_k, trec_order
from labeller.eval.retrievers.function import FunctionRetriever
from labeller.eval.retrievers.run_file import write_run

ENTRY_POINT_GROUP = "labeller.retrievers"

__all__ = ["Hit", "Progress", "Retriever", "FunctionRetriever", "top_k", "trec_order", "write_run", "register_retriever",
           "make_retriever", "known_retrievers", "REGISTRY", "ENTRY_POINT_GROUP"]

Factory = Callable[..., object]  # factory(project, **options) -> Retriever (or a (query, k) callable)

# One line per retriever: its name -> "module:attr" of its factory, imported only when asked
# for (BM25 brings whoosh and numpy); a module without a dot is one of this package, a dotted
# one is imported as it is. ``register_retriever`` puts a factory itself here.
REGISTRY: Registry[Factory] = Registry(__name__, {
    "bm25": "bm25:BM25Retriever.for_project",
    "run": "run_file:RunFileRetriever.for_project",
    "dense": "dense:DenseRetriever.for_project",
    "hybrid": "fusion:FusionRetriever.hybrid",
    "rrf": "fusion:FusionRetriever.for_project",
}, group=ENTRY_POINT_GROUP, what="retriever")


def register_retriever(name: str, factory: Factory) -> None:
    REGISTRY[name] = factory


def _registry() -> Registry[Factory]:
    """``REGISTRY``, read when asked: a caller may swap the module's table for a plain copy of
    it (a test leaving the process-wide one as it was), which is loaded the same way."""
    table = REGISTRY
    return table if isinstance(table, Registry) else Registry(__name__, table, group=ENTRY_POINT_GROUP,
                                                              what="retriever")


def known_retrievers() -> list[str]:
    return sorted(_registry().names())


def make_retriever(name: str, project: Project, **options: object):
    """The retriever ``name`` for ``project``. ``NAME:a,b`` gives the factory ``members=[a, b]``
    (``rrf:bm25,dense``); a ``progress`` callback goes only to a factory that takes one, so
    callers pass it whatever the retriever (a plugin's factory need not know it)."""
    name, sep, members = name.partition(":")
    factory = _factory(name)
    if sep:
        if not _takes(factory, "members"):
            raise InvalidInput(f"retriever {name!r} takes no ':' list (only a fusion does: rrf:bm25,dense)")
        options["members"] = members.split(",")
    if "progress" in options and not _takes(factory, "progress"):
        del options["progress"]
    return factory(project, **options)


def _takes(factory: Factory, parameter: str) -> bool:
    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):  # a callable without a signature: give it only what it was asked
        return False
    return parameter in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def _factory(name: str) -> Factory:
    return cast(Factory, _registry().load(name, unknown=lambda: f"unknown retriever {name!r}; known: "
                                                             f"{', '.join(known_retrievers())}"))
