"""``list:file=PATH``: the person names a team already knows, from a file of the project.

A support team knows whose names reach its logs: its staff, its customers' contacts. A list
finds exactly those, offline, at the speed of one Aho-Corasick pass a line, with no model
and no false positive outside the list (a model finds names nobody listed, and flags "Rich
Text"). A name matches whole words only ("Ann" not in "Annual"), ignoring case; where two
listed names overlap, the longer one wins ("Maria Garcia" over "Maria").

The file is UTF-8, one name a line; blank lines and lines starting with ``#`` are skipped. It
is the project's file (untrusted like every other): it must lie inside the project's tree,
is read without following a symlink, and is bounded in size.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import ClassVar

import ahocorasick

from labeller.errors import InvalidInput
from labeller.io import read_regular_file
from labeller.layout import inside, project_tree

MAX_LIST_BYTES = 16 * 1024 * 1024
MAX_NAME_CHARS = 200


def _fold(text: str) -> str:
    """Lower case with every character at its own offset (``str.lower`` may lengthen one:
    "İ" becomes two characters), so a match's offsets are the original text's."""
    low = text.lower()
    if len(low) == len(text):
        return low
    return "".join(lc if len(lc := c.lower()) == 1 else c for c in text)


class NameList:
    """The names of a list file, matched as whole words, case-insensitively."""

    name: ClassVar[str] = "list"
    parameters: ClassVar[tuple[str, ...]] = ("file",)

    def __init__(self, names: list[str]) -> None:
        if not names:
            raise InvalidInput("the name list holds no name")
        self.automaton = ahocorasick.Automaton()
        for n in names:
            key = _fold(n)
            self.automaton.add_word(key, len(key))
        self.automaton.make_automaton()

    @classmethod
    def from_spec(cls, params: Mapping[str, str], root: Path) -> NameList:
        if "file" not in params:
            raise InvalidInput("person-name detector 'list' needs its file: list:file=PATH (one name a line, a path "
                               "inside the project)")
        path = root / params["file"]
        if not inside(project_tree(root), path):
            raise InvalidInput("the name list must lie inside the project's tree (an absolute path, a '..' or a "
                               "symlink out of it is refused)", path=str(path))
        data = read_regular_file(path, max_bytes=MAX_LIST_BYTES, what="name list")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidInput(f"not valid UTF-8 at byte {exc.start}", path=str(path)) from None
        names = []
        for number, line in enumerate(text.splitlines(), start=1):
            entry = " ".join(line.split())
            if not entry or entry.startswith("#"):
                continue
            if len(entry) > MAX_NAME_CHARS:
                raise InvalidInput(f"a name of {len(entry):,} characters (at most {MAX_NAME_CHARS})", path=str(path),
                                   line=number)
            names.append(entry)
        if not names:
            raise InvalidInput("the name list holds no name (one a line; '#' starts a comment)", path=str(path))
        return cls(names)

    def find(self, text: str) -> list[tuple[int, int]]:
        """Whole-word matches, the longest first where they overlap."""
        folded = _fold(text)
        found = []
        for end, length in self.automaton.iter(folded):
            start, stop = end + 1 - length, end + 1
            if (start == 0 or not folded[start - 1].isalnum()) and (stop == len(folded) or not folded[stop].isalnum()):
                found.append((start, stop))
        kept: list[tuple[int, int]] = []
        for start, stop in sorted(found, key=lambda s: (s[0], -s[1])):
            if not kept or start >= kept[-1][1]:
                kept.append((start, stop))
        return kept
