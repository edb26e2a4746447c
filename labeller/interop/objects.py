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
from labeller.io import parse_json, parse_jsonl


def json_objects(path: Path, project: Project, what: str) -> list[tuple[str, dict]]:
    """``[(where, object)]`` of a JSON array of objects or a JSONL file (blank lines skipped);
    anything but objects is refused naming the line or index."""
    text = read_text(path, project.config.limits, what)
    if text.lstrip().startswith("["):
        data = parse_json(text, str(path))
        items = [(f"{path}: [{i}]", item) for i, item in enumerate(data)]
    else:
        items = []
        for jl in parse_jsonl(text, str(path)):
            if jl.error is not None:
                raise jl.refuse()
            if not jl.skipped:
                items.append((f"{path}:{jl.line}", jl.value))
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
