"""Person-name detectors: the one kind of personal data no pattern finds (SPEC §14).

An e-mail address or a card number has a shape (``redact.DETECTORS``); a name has none: a
pattern cannot tell "Rich Text" from "Rich Hickey". So names are a plug-in, chosen by a spec
as a chunker is (``[traffic] names = "presidio"``, ``--names list:file=golden/staff.txt``),
and off unless asked for. A detector only finds spans; ``redact.PersonNames`` replaces them
with ``<PERSON>`` and counts them, the same for every detector.

A detector asked for that cannot run (its package or its model is not installed, its file
is missing) stops the run before a line is read, with exit 2 and what to install: a run
that silently left the names in would write them into the queue.

Adding one: a module here whose class has ``name`` (its key below), ``parameters`` (the
spec's keys it takes) and ``from_spec(params, root) -> NameDetector``, plus one line in
``REGISTRY``; another package adds one through the ``labeller.names`` entry-point group.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import ClassVar, Protocol, cast

from labeller.core.chunkers import parse_spec
from labeller.errors import InvalidInput
from labeller.registry import Registry

WHAT = "person-name detector"


class NameDetector(Protocol):
    """Finds person names in a text: their ``(start, end)`` character spans, any order, may overlap."""

    name: ClassVar[str]

    def find(self, text: str) -> Sequence[tuple[int, int]]: ...


class DetectorClass(Protocol):
    name: ClassVar[str]
    parameters: ClassVar[tuple[str, ...]]

    @classmethod
    def from_spec(cls, params: Mapping[str, str], root: Path) -> NameDetector: ...


REGISTRY: Registry[DetectorClass] = Registry(__name__, {
    "presidio": "presidio:PresidioNames",  # Microsoft Presidio's analyzer on a spaCy model (installed separately)
    "list": "name_list:NameList",  # the names in a file of the project, one a line
}, group="labeller.names", what=WHAT, named_by="name")


def make_detector(spec: str, root: Path) -> NameDetector:
    """The detector ``spec`` names (``name`` or ``name:key=value,...``), made now; unknown,
    malformed or unavailable: ``InvalidInput`` saying which and why."""
    name, params = parse_spec(spec, WHAT)
    cls = cast(DetectorClass, REGISTRY.load(name, unknown=lambda: f"unknown {WHAT} {name!r}; known: "
                                                                  f"{', '.join(REGISTRY.names())}"))
    unknown = sorted(set(params) - set(cls.parameters))
    if unknown:
        raise InvalidInput(f"{WHAT} {spec!r}: unknown parameter {unknown[0]!r} (parameters of {name}: "
                           f"{', '.join(cls.parameters) or 'none'})")
    return cls.from_spec(params, root)
