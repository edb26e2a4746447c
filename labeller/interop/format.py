"""The ``Format`` protocol: what one import/export format declares, and the registry of them.

A format is one module that ends with ``FORMAT = Format(...)``: its name, a one-line summary,
``read`` if it imports, ``export`` if it exports, and the options each direction reads. The
``labeller import`` / ``labeller export`` flags are generated from those options, so a format
never touches the CLI; ``read`` and ``export`` get their own options only, defaults filled in.
Adding a format is one new module plus one line in ``labeller/interop/__init__.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from labeller.core.build import BuildResult
from labeller.core.project import Project
from labeller.errors import InvalidInput
from labeller.interop.records import Incoming


class Direction(StrEnum):
    IMPORT = "import"
    EXPORT = "export"


@dataclass(frozen=True)
class Option:
    """One option of a format, the ``--NAME`` flag of ``labeller import`` or ``export``.

    ``type`` converts the flag's text (``bool`` makes a switch); the format reads the value as
    ``options.<name with _ for ->``. Two formats may declare the same option (one flag serves
    both) only if they agree on its type, default, metavar and choices.
    """

    name: str
    help: str
    type: Callable[[str], Any] = str
    default: Any = None
    metavar: str | None = None
    choices: tuple | None = None

    @property
    def flag(self) -> str:
        return f"--{self.name}"

    @property
    def dest(self) -> str:
        return self.name.replace("-", "_")

    def shape(self) -> tuple:
        """What two declarations of one flag must agree on."""
        return self.type, self.default, self.metavar, self.choices


@dataclass(frozen=True)
class Exported:
    """An export's output. ``files`` maps ``""`` to the one file of a single-file format, or
    each path inside ``--out DIR`` of a folder format to its bytes; ``extra`` holds files the
    user asked for at paths of their own through an option (TREC's ``--queries-out``)."""

    files: dict[str, bytes]
    notes: list[str] = field(default_factory=list)
    extra: dict[str, bytes] = field(default_factory=dict)


Reader = Callable[[Path, Project, SimpleNamespace], Incoming]
Exporter = Callable[[Project, BuildResult, SimpleNamespace], Exported]


@dataclass(frozen=True)
class Format:
    """One import/export format.

    ``folder`` is None for a format whose import reads and whose export writes one file; for a
    folder format it lists the glob patterns (relative to the folder) of every file an export
    may write, so that re-exporting into the same folder replaces exactly those.
    """

    name: str
    summary: str
    read: Reader | None = None
    export: Exporter | None = None
    import_options: tuple[Option, ...] = ()
    export_options: tuple[Option, ...] = ()
    folder: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if self.read is None and self.export is None:
            raise ValueError(f"format {self.name!r} neither imports nor exports")

    def does(self, direction: Direction) -> bool:
        return (self.read if direction is Direction.IMPORT else self.export) is not None

    def options(self, direction: Direction) -> tuple[Option, ...]:
        return self.import_options if direction is Direction.IMPORT else self.export_options

    def defaults(self, direction: Direction) -> SimpleNamespace:
        """The format's options at their defaults, for calling ``read``/``export`` outside the CLI."""
        return SimpleNamespace(**{o.dest: o.default for o in self.options(direction)})


def shared_options(formats: dict[str, Format], direction: Direction) -> dict[str, tuple[Option, list[str]]]:
    """Every option the formats declare for ``direction``: ``{name: (option, formats declaring it)}``.

    One flag serves every format that declares the option, so the declarations must agree.
    """
    out: dict[str, tuple[Option, list[str]]] = {}
    for fmt in formats.values():
        if not fmt.does(direction):
            continue
        for opt in fmt.options(direction):
            if opt.name in out:
                first, users = out[opt.name]
                if first.shape() != opt.shape():
                    raise ValueError(f"formats {users[0]!r} and {fmt.name!r} declare --{opt.name} differently")
                users.append(fmt.name)
            else:
                out[opt.name] = (opt, [fmt.name])
    return out


def options_for(fmt: Format, direction: Direction, given: dict[str, Any],
                formats: dict[str, Format]) -> SimpleNamespace:
    """The options ``fmt`` reads, from the values given on the command line (None: not given).

    An option given to a format that does not declare it is refused, not ignored: the user
    meant something by it, and an import that silently dropped it would not be what they asked.
    """
    own = {o.name for o in fmt.options(direction)}
    for name, (opt, users) in shared_options(formats, direction).items():
        if given.get(opt.dest) is not None and name not in own:
            which = ", ".join(users)
            raise InvalidInput(f"{opt.flag} applies to the {which} format{'s' if len(users) > 1 else ''} only")
    return SimpleNamespace(**{o.dest: o.default if given.get(o.dest) is None else given[o.dest]
                                 for o in fmt.options(direction)})
