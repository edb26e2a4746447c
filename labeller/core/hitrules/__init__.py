"""Hit rules: when does a chunk count as holding (part of) an answer span?

Every recall number labeller prints names one of these, because the same ranking gives
different numbers under different rules (SPEC §5). All are computed from offsets
(``measures``). Each rule is one small module of this package implementing ``HitRule``,
plus its one line in ``REGISTRY``. A rule is named ``name`` or, when its class takes a
``threshold``, ``name>=T`` with ``0 <= T <= 1``; ``parse_hit_rule`` reads both forms for
every registered rule alike.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass
from typing import ClassVar, Iterable, Protocol, cast

from labeller.core.hitrules.measures import Interval, any_overlap, coverage, span_containment, union_coverage
from labeller.errors import InvalidInput
from labeller.registry import Registry

__all__ = ["HitRule", "ChunkRule", "ThresholdRule", "REGISTRY", "parse_hit_rule", "hit_rule_class", "hit_rule_forms", "Interval",
           "any_overlap", "coverage", "span_containment", "union_coverage"]


class HitRule(Protocol):
    """What the build, the eval and the chunk files ask of a rule."""

    @property
    def name(self) -> str:
        """The rule as it is written in ``labeller.toml``, the manifest and every report."""
        ...

    @property
    def needs_overlap(self) -> bool:
        """Can only a chunk that shares a character with the span hit it? (Lets the build
        look at the overlapping chunks alone.)"""
        ...

    def chunk_hits(self, chunk: Interval, span: Interval) -> bool:
        """Does this one chunk hit the span? (For a rule over a set of chunks: can it
        contribute to one that does?)"""
        ...

    def span_satisfied(self, chunks: Iterable[Interval], span: Interval) -> bool:
        """Is the span found by this set of (retrieved) chunks of its document?"""
        ...


# One line per rule: its name → "module:Class", imported only when asked for (the name must
# equal the class's ``kind``). A module without a dot is one of this package; a dotted one is
# imported as it is (a rule kept elsewhere, as the tests' toy). The modules end in ``_rule``:
# a submodule named like a measure re-exported above would replace it on the package once
# imported.
REGISTRY: Registry[type] = Registry(__name__, {
    "any_overlap": "any_overlap_rule:AnyOverlap",
    "span_containment": "span_containment_rule:SpanContainment",
    "coverage": "coverage_rule:Coverage",
    "union_coverage": "union_coverage_rule:UnionCoverage",
}, group="labeller.hitrules", what="hit rule", named_by="kind")


@dataclass(frozen=True)
class ChunkRule:
    """A rule decided chunk by chunk: a set of chunks finds the span when one of them hits it."""

    kind: ClassVar[str]

    @property
    def name(self) -> str:
        return self.kind

    @property
    def needs_overlap(self) -> bool:
        return True

    def chunk_hits(self, chunk: Interval, span: Interval) -> bool:
        raise NotImplementedError

    def span_satisfied(self, chunks: Iterable[Interval], span: Interval) -> bool:
        return any(self.chunk_hits(c, span) for c in chunks)


@dataclass(frozen=True)
class ThresholdRule(ChunkRule):
    """A rule written ``kind>=T``."""

    threshold: float

    @property
    def name(self) -> str:
        return f"{self.kind}>={self.threshold:g}"


_NAME = re.compile(r"([a-z][a-z0-9_]*)(?:>=(0(?:\.\d+)?|1(?:\.0+)?))?")


def hit_rule_class(kind: str) -> type:
    """The registered class for ``kind``; an unknown one is invalid input."""
    return cast(type, REGISTRY.load(kind, unknown=lambda: f"unknown hit rule {kind!r}; use {_usage()}"))


def parse_hit_rule(name: str) -> HitRule:
    """``any_overlap``, ``union_coverage>=0.5``, ...: the rule a name gives."""
    name = name.strip()
    m = _NAME.fullmatch(name)
    if m is None or m.group(1) not in REGISTRY.names():
        raise InvalidInput(f"unknown hit rule {name!r}; use {_usage()}")
    kind, threshold = m.groups()
    cls = hit_rule_class(kind)
    if _takes_threshold(cls) != (threshold is not None):
        raise InvalidInput(f"unknown hit rule {name!r}; use {_usage()}")
    return cls() if threshold is None else cls(float(threshold))


def _takes_threshold(cls: type) -> bool:
    return "threshold" in inspect.signature(cls).parameters


def hit_rule_forms() -> list[str]:
    """How each registered rule is written (``coverage>=T``), for help texts and errors."""
    return [f"{kind}>=T" if _takes_threshold(hit_rule_class(kind)) else kind for kind in REGISTRY]


def _usage() -> str:
    forms = hit_rule_forms()
    return ", ".join(forms[:-1]) + f" or {forms[-1]}" + (" with 0 <= T <= 1" if any(">=" in f for f in forms) else "")
