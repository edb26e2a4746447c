"""The record objects of a JSON or JSON Lines file, whichever the tool wrote.

Annotation and test-set tools export either a JSON array or one object a line (ragas's
``to_jsonl``, DeepEval's ``save_as``, doccano and Prodigy's JSONL, Label Studio's JSON); the
importers read both through this one function, with the strict parser of every label file.
"""

from __future__ import annotations

from pathlib import Path

from labeller.core.project import Project
from labeller.errors import InvalidInput
from labeller.interop.files import read_text
from labeller.interop.containers import JSON_LIST, JSON_OBJECT, JSONL, Container, sniff
from labeller.io import iter_jsonl, refuse_many_lines


def json_objects(path: Path, project: Project, what: str, fmt: str) -> list[tuple[str, dict]]:
    """``[(where, object)]`` of a JSON array of objects or a JSONL file (blank lines skipped);
    anything but objects is refused naming the line or index, and a file of another kind
    (CSV, a JSON object) is refused saying what it is and what ``fmt`` reads."""
    return objects_of(sniff(read_text(path, project.config.limits, what), str(path)), path, what, fmt,
                      max_lines=project.config.limits.max_lines)


def objects_of(box: Container, path: Path, what: str, fmt: str, wrapper: str | None = None,
               reads: str = "a JSON list of objects or JSON Lines (one object a line)", *,
               max_lines: int) -> list[tuple[str, dict]]:
    """The records of a sniffed file: a JSON list, JSON Lines (a one-line JSON object is one
    record; over ``max_lines`` lines refused before any is parsed), or the list under
    ``wrapper`` of a JSON object (ragas's ``{"samples": [...]}``)."""
    if box.kind == JSON_OBJECT and wrapper is not None and wrapper in box.value:
        listed = box.value[wrapper]
        if not isinstance(listed, list):
            raise InvalidInput(f"{wrapper} must be a list of {what} records", path=str(path))
        items = [(f"{path}: {wrapper}[{i}]", item) for i, item in enumerate(listed)]
    elif box.kind == JSON_LIST:
        items = [(f"{path}: [{i}]", item) for i, item in enumerate(box.value)]
    elif box.kind == JSONL or (box.kind == JSON_OBJECT and "\n" not in box.text.strip()):
        items = []
        refuse_many_lines(box.text, path, max_lines, f"{what} file", "raise [limits] max_records in labeller.toml")
        for jl in iter_jsonl(box.text, str(path)):
            if jl.error is not None:
                raise jl.refuse()
            if not jl.skipped:
                items.append((f"{path}:{jl.line}", jl.value))
    else:
        raise box.wrong(fmt, reads, str(path))
    for where, item in items:
        if not isinstance(item, dict):
            raise InvalidInput(f"{where}: each {what} record must be a JSON object")
    return items


def optional_str(obj: dict, key: str, where: str) -> str | None:
    value = obj.get(key)
    if value is not None and not isinstance(value, str):
        raise InvalidInput(f"{where}: {key} must be a string, not {type(value).__name__}")
    return value


def str_list(obj: dict, key: str, where: str) -> list[str]:
    value = obj.get(key)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InvalidInput(f"{where}: {key} must be a list of strings")
    return value


def optional_list(obj: dict, key: str, where: str) -> list:
    """``obj[key]``, a list (absent or null: none); another shape is refused, never iterated
    (a number there exited 3, a string was read one character at a time)."""
    value = obj.get(key)
    if value is not None and not isinstance(value, list):
        raise InvalidInput(f"{where}: {key} must be a list, not {type(value).__name__}")
    return value or []
