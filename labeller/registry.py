"""Named implementations imported on first use: the one loader behind every ``REGISTRY``.

A registry is a plain dict from a name to ``"module:attr"`` (``attr`` may be dotted, as
``Class.factory``): a module without a dot is one of the registry's own package, a dotted
one is imported as it is (an implementation kept elsewhere, as the tests' toys). Adding an
implementation is one new module plus one line in its package's dict, and only the one
asked for is imported, so a chunker, a retriever or a screen nobody uses costs nothing at
start-up. A third-party package adds implementations through an entry-point group instead.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from typing import TYPE_CHECKING, Generic, TypeVar, cast

from labeller.errors import InvalidInput

if TYPE_CHECKING:  # importlib.metadata (zipfile, email, ...) is read only when a group is asked for
    from importlib.metadata import EntryPoint

T = TypeVar("T")


def load_target(target: str, package: str) -> object:
    """Import ``"module:attr"`` (module relative to ``package`` unless it has a dot)."""
    module, _, attr = target.partition(":")
    found: object = importlib.import_module(module if "." in module else f"{package}.{module}")
    for part in attr.split("."):
        found = getattr(found, part)
    return found


def lookup(registry: Mapping[str, object], name: str, package: str, *, named_by: str | None = None,
           unknown: Callable[[], str] | None = None) -> object | None:
    """What ``registry`` holds for ``name``, imported. A name not registered is ``None``, or,
    given ``unknown`` (the message, made only when needed), invalid input. A value that is
    not a string (registered in-process) is returned as it is. ``named_by`` names the
    attribute by which the implementation states its own name: a registry line whose key
    differs from it is a bug in labeller, not the user's input."""
    target = registry.get(name)
    if target is None and unknown is not None:
        raise InvalidInput(unknown())
    if not isinstance(target, str):
        return target
    found = load_target(target, package)
    if named_by is not None and getattr(found, named_by) != name:  # the class's own name for itself
        raise TypeError(f"REGISTRY names {target} {name!r} but the class says {getattr(found, named_by)!r}")
    return found


def plugins(group: str) -> dict[str, EntryPoint]:
    """The entry points installed packages declare in ``group``, by name."""
    from importlib.metadata import entry_points

    return {ep.name: ep for ep in entry_points(group=group)}


def load_plugin(group: str, name: str, what: str) -> object | None:
    """Load the entry point ``name`` of ``group`` (``None``: no package declares it). A
    broken third-party package is that package's input error (naming ``what`` it was to
    provide), not a crash of labeller."""
    ep = plugins(group).get(name)
    if ep is None:
        return None
    try:
        return ep.load()
    except Exception as exc:
        raise InvalidInput(f"{what} {name!r} (entry point {ep.value!r} in group {group}) cannot be loaded: "
                           f"{type(exc).__name__}: {exc}") from None


class Registry(MutableMapping[str, "str | T"], Generic[T]):
    """Names -> implementations, imported on first use: the one shape behind every registry.

    As a mapping it holds the targets as written, a name -> ``"module:attr"`` (see
    ``load_target``) or the object itself, so a test swaps one in with
    ``monkeypatch.setitem`` and the architecture test reads the strings without importing
    them. ``load`` imports the implementation; ``group`` is the entry-point group through
    which installed packages add more (after the built-in names, never replacing one);
    ``named_by`` names the attribute by which an implementation states its own name (a
    registry line disagreeing with it is a bug in labeller, not the user's input).
    """

    def __init__(self, package: str, targets: Mapping[str, str | T], *, group: str | None = None,
                 what: str = "implementation", named_by: str | None = None) -> None:
        self.package, self.group, self.what, self.named_by = package, group, what, named_by
        self._targets: dict[str, str | T] = dict(targets)
        self._all: list[T] | None = None  # ``implementations``, until a target changes

    def __getitem__(self, name: str) -> str | T:
        return self._targets[name]

    def __setitem__(self, name: str, target: str | T) -> None:
        self._targets[name] = target
        self._all = None

    def __delitem__(self, name: str) -> None:
        del self._targets[name]
        self._all = None

    def __iter__(self) -> Iterator[str]:
        return iter(self._targets)

    def __len__(self) -> int:
        return len(self._targets)

    def names(self) -> list[str]:
        """Registered names in registration order, then installed plugins' (sorted)."""
        extra = sorted(n for n in plugins(self.group) if n not in self._targets) if self.group else []
        return [*self._targets, *extra]

    def load(self, name: str, unknown: Callable[[], str] | None = None) -> T | None:
        """The implementation named ``name``, imported now. Not found: None, or, given
        ``unknown`` (the message, made only when needed), invalid input."""
        found = lookup(self._targets, name, self.package, named_by=self.named_by)
        if found is None and self.group is not None:
            found = load_plugin(self.group, name, self.what)
        if found is None and unknown is not None:
            raise InvalidInput(unknown())
        return cast("T | None", found)

    def implementations(self) -> list[T]:
        """Every implementation, in ``names`` order (imports them all; kept, as scoring
        asks once per query and reading the installed entry points is slow)."""
        if self._all is None:
            self._all = [v for n in self.names() if (v := self.load(n)) is not None]
        return self._all
