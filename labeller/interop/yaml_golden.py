"""YAML golden files: ``queries: [{id, query, expected: [{path, heading?}]}]``.

Labels are documents (``path``) or sections (``path`` + ``heading``); an empty ``expected``
list is a negative. Every mapping may hold only the keys above: a typo such as ``heading:``
spelled ``heading_:`` would otherwise widen a section label to its whole document without
anyone noticing.

The file is untrusted, so the loader is stricter than ``yaml.safe_load``: anchors and aliases
are refused (they let a small file expand into a huge tree), duplicate keys are refused (YAML
would keep the last one silently), and scalars must be strings where text is meant.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import yaml

from labeller.core.build import BuildResult
from labeller.core.project import Project
from labeller.display import CONTROL, escape_invisible
from labeller.errors import InvalidInput
from labeller.interop.containers import wrong_kind
from labeller.interop.files import read_text, refuse_unknown_keys, require_str
from labeller.interop.format import Exported, Format
from labeller.interop.labels import LabelMapper
from labeller.interop.records import Candidate, Incoming, Target


class _Map(dict):
    """A mapping that remembers the line it started on, for error messages."""

    line = 0


class _StrictLoader(yaml.SafeLoader):
    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark
            raise InvalidInput(f"YAML alias at line {mark.line + 1} refused (anchors and aliases are not allowed "
                               "in a label file)")
        return super().compose_node(parent, index)

    def construct_object(self, node, deep=False):
        """A scalar the safe loader cannot build (``2020-13-45`` as a date, 5,000 digits as an
        integer) is the file's error at its line: it raised ``ValueError``, an exit 3."""
        try:
            return super().construct_object(node, deep=deep)
        except (ValueError, OverflowError):
            value = str(node.value)
            shown = value if len(value) <= 40 else f"{value[:30]}… ({len(value):,} characters)"
            kind = str(node.tag).rsplit(":", 1)[-1]
            raise InvalidInput(f"{shown!r} is not a valid {kind} (quote it to make it text)",
                               line=node.start_mark.line + 1) from None

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            if isinstance(key, (list, dict)):
                raise InvalidInput(f"a key is a {'list' if isinstance(key, list) else 'mapping'}; keys are names",
                                   line=key_node.start_mark.line + 1)
            if isinstance(key, str) and key in seen:
                raise InvalidInput(f"duplicate key {key!r} at line {key_node.start_mark.line + 1}")
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def _construct_map(loader: _StrictLoader, node):
    data = _Map()
    data.line = node.start_mark.line + 1
    yield data
    data.update(loader.construct_mapping(node))


_StrictLoader.add_constructor("tag:yaml.org,2002:map", _construct_map)


def load_yaml(text: str, path: str):
    try:
        return yaml.load(text, Loader=_StrictLoader)  # noqa: S506 - a SafeLoader subclass, stricter still
    except InvalidInput as exc:
        raise InvalidInput(exc.reason, path=path, line=exc.line) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise InvalidInput(f"malformed YAML: {getattr(exc, 'problem', None) or exc}",
                           path=path, line=mark.line + 1 if mark else None) from None
    except RecursionError:
        raise InvalidInput("malformed YAML: nested too deeply", path=path) from None


def read(path: Path, project: Project, options: SimpleNamespace) -> Incoming:
    text = read_text(path, project.config.limits, "YAML golden file")
    reads = "YAML (or JSON) with one top-level key, queries"
    try:
        data = load_yaml(text, str(path))
    except InvalidInput:
        wrong_kind(text, path, "yaml", reads)  # a CSV need not be YAML at all
        raise
    if not isinstance(data, dict) or ("queries" not in data and text.lstrip().startswith("{")):
        wrong_kind(text, path, "yaml", reads)  # CSV, or the JSON of another tool
    if not isinstance(data, dict):
        raise InvalidInput("the top level must be a mapping with one key, queries", path=str(path))
    refuse_unknown_keys(data, {"queries"}, {"queries"}, f"{path}: top level")
    queries = data["queries"]
    if not isinstance(queries, list):
        raise InvalidInput("queries must be a list", path=str(path))
    out = []
    for i, item in enumerate(queries):
        where = f"{path}:{getattr(item, 'line', '?')}"
        if not isinstance(item, dict):
            raise InvalidInput(f"{where}: queries[{i}] must be a mapping")
        refuse_unknown_keys(item, {"id", "query", "expected"}, {"id", "query", "expected"}, where)
        rid = require_str(item["id"], "id (quote it if it looks like a number or a date)", where)
        query = require_str(item["query"], "query", where)
        expected = item["expected"]
        if not isinstance(expected, list):
            raise InvalidInput(f"{where}: record {rid!r}: expected must be a list (empty for a negative)")
        targets = []
        for label in expected:
            lwhere = f"{path}:{getattr(label, 'line', '?')}"
            if not isinstance(label, dict):
                raise InvalidInput(f"{lwhere}: record {rid!r}: each expected label is a mapping {{path, heading?}}")
            refuse_unknown_keys(label, {"path", "heading"}, {"path"}, lwhere)
            doc = require_str(label["path"], "path", lwhere)
            if "heading" in label:
                heading = require_str(label["heading"], "heading", lwhere)
                if not heading.strip():
                    raise InvalidInput(f"{lwhere}: record {rid!r}: the heading is empty")
                target = Target("section", doc=doc, heading=heading.strip())
            else:
                target = Target("document", doc=doc)
            if target in targets:
                raise InvalidInput(f"{lwhere}: record {rid!r}: the same label is listed twice")
            targets.append(target)
        out.append(Candidate(rid, query, where, targets, negative=not targets))
    return Incoming(out)


class _VisibleDumper(yaml.SafeDumper):
    """Readable UTF-8, except that a string holding a control, bidi or other invisible
    character is written double-quoted, the one YAML style with escapes."""


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style='"' if CONTROL.search(value) else None)


_VisibleDumper.add_representer(str, _represent_str)


def dump_yaml(data) -> str:
    """YAML that reads back to exactly ``data`` and holds nothing that acts on a terminal.

    PyYAML escapes C0 and C1 controls in a double-quoted scalar itself but writes bidi
    overrides and isolates raw (they are printable to YAML); ``display.escape_invisible``
    turns those into ``\\uXXXX``, a double-quoted escape, which is safe because every string
    holding one was forced into that style (the keys are plain ASCII).
    """
    return escape_invisible(yaml.dump(data, Dumper=_VisibleDumper, sort_keys=False, allow_unicode=True,
                                      default_flow_style=False, width=1_000_000))


def export(project: Project, result: BuildResult, options: SimpleNamespace) -> Exported:
    mapper = LabelMapper(project)
    queries = []
    widened = 0
    for rec in result.records:
        labels = mapper.document_labels(rec)
        widened += sum(1 for loc in rec.question.locators if loc.heading is None)
        queries.append({"id": rec.question.id, "query": rec.question.query,
                        "expected": [{"path": d} if h is None else {"path": d, "heading": h} for d, h in labels]})
    text = dump_yaml({"queries": queries})
    notes = [f"{widened} quote label(s) widened to their document (YAML golden files hold documents and sections)"]
    return Exported({"": text.encode("utf-8")}, notes if widened else [])


FORMAT = Format("yaml", "YAML golden file: queries: [{id, query, expected: [{path, heading?}]}]", read=read,
                export=export)
