"""Import and export of golden sets in other tools' formats.

Each format is one module with ``NAME``, ``SUMMARY``, ``read(path, project, options) ->
Incoming`` and ``export(project, build_result, options) -> (files, notes)``; the shared rules
(what a document, section or chunk id becomes, what is refused, how records merge into
questions.jsonl) live in ``labeller.interop.common`` so that every format obeys them alike.
"""

from __future__ import annotations

from types import ModuleType

from labeller.interop import beir, jsonl, pages_json, trec, yaml_golden

FORMATS: dict[str, ModuleType] = {m.NAME: m for m in (jsonl, yaml_golden, pages_json, beir, trec)}
