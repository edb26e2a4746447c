"""A second annotator's labels, kept apart from questions.jsonl: ``golden/annotations/NAME.jsonl``.

Blind double annotation only means something if the second person's locators never
mix with the first's, so each annotator gets a file of their own, one line per record:
``{"record_id": ..., "locators": [...]}`` (an empty list: "I found no answer"). The file
is rewritten atomically on every save, so a crash leaves the old or the new version.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError

from labeller.core.models import Locator
from labeller.display import json_dumps
from labeller.errors import InvalidInput
from labeller.io import atomic_write_text, check_output_path, read_jsonl

if TYPE_CHECKING:
    from labeller.config import ProjectConfig

_ANNOTATOR = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_KEYS = {"record_id", "locators"}


def check_annotator(name: str) -> str:
    """An annotator name is also a file name, so it is held to a safe alphabet."""
    if not _ANNOTATOR.match(name or ""):
        raise InvalidInput(f"annotator name {name!r}: use 1-64 letters, digits, '.', '_' or '-', "
                           "starting with a letter or digit")
    return name


def annotation_path(config: ProjectConfig, name: str) -> Path:
    return config.layout.annotation(check_annotator(name))


@dataclass
class Annotations:
    """One annotator's locators by record id, in file order (new records append)."""

    path: Path
    annotator: str
    records: dict[str, list[Locator]] = field(default_factory=dict)

    def get(self, record_id: str) -> list[Locator] | None:
        """The annotator's locators, or None when the record is not annotated yet."""
        found = self.records.get(record_id)
        return None if found is None else list(found)

    def set(self, record_id: str, locators: list[Locator]) -> None:
        self.records[record_id] = list(locators)

    def render(self) -> str:
        return "".join(json_dumps({"locators": [loc.as_json() for loc in locs], "record_id": rid},
                                  sort_keys=True) + "\n"
                       for rid, locs in self.records.items())

    def save(self) -> None:
        check_output_path(self.path)  # a committed ``annotations -> /elsewhere`` link is not written through
        atomic_write_text(self.path, self.render())


def load_annotations(config: ProjectConfig, name: str) -> Annotations:
    """Read ``name``'s file (missing: empty). Every bad line is reported, with its number."""
    path = annotation_path(config, name)
    ann = Annotations(path, name)
    if not path.exists() and not path.is_symlink():
        return ann
    limits = config.limits
    lines = read_jsonl(path, max_bytes=limits.max_file_bytes, what="annotation file",
                       bound_hint="raise [limits] max_file_bytes", max_lines=limits.max_lines,
                       lines_hint="raise [limits] max_records")
    problems: list[dict] = []

    def problem(line: int, message: str, rid: str | None = None) -> None:
        problems.append({"path": str(path), "line": line, "id": rid, "message": message})

    for jl in lines:
        lineno, obj = jl.line, jl.value
        if jl.skipped:
            continue
        if jl.error is not None:
            problem(lineno, jl.error)
            continue
        if not isinstance(obj, dict) or set(obj) != _KEYS:
            problem(lineno, "a line must be an object with exactly the keys record_id and locators")
            continue
        rid, raw_locs = obj["record_id"], obj["locators"]
        if not isinstance(rid, str) or not rid or not isinstance(raw_locs, list):
            problem(lineno, "record_id must be a non-empty string and locators a list")
            continue
        if rid in ann.records:
            problem(lineno, "record annotated twice", rid)
            continue
        if len(raw_locs) > limits.max_locators:
            problem(lineno, f"{len(raw_locs)} locators, over the bound of {limits.max_locators}", rid)
            continue
        try:
            ann.records[rid] = [Locator.model_validate(loc) for loc in raw_locs]
        except ValidationError as exc:
            for err in exc.errors():
                problem(lineno, f"locator: {err['msg']}", rid)
    if problems:
        raise InvalidInput(f"{len(problems)} problem(s) in the annotation file", path=str(path)).with_details(problems)
    return ann
