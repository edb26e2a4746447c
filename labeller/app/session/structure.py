"""What the document view draws besides the text: the Markdown structure of each line."""

from __future__ import annotations

import re

from labeller.core.project import Project


_LIST_MARKER = re.compile(r"^[ \t]*(?:>[ \t]?)*([-*+]|\d{1,9}[.)])(?=\s|$)")
_STRUCTURE_KINDS = {"heading": "heading", "code": "code", "html": "html"}


def structure_styles(project: Project, doc_id: str) -> dict[int, list[tuple[int, int | None, str]]]:
    """Per 0-based line, the Markdown structure to style: ``(col start, col end or None, kind)``.

    Taken from the core's own block parse (the one expansion uses), so what the author
    sees as a heading, code block, table or list item is what the build treats as one.
    """
    doc = project.corpus[doc_id]
    blocks = project.resolver.blocks(doc_id)
    out: dict[int, list[tuple[int, int | None, str]]] = {}

    def add(line: int, c0: int, c1: int | None, kind: str) -> None:
        out.setdefault(line, []).append((c0, c1, kind))

    for line in range(blocks.front_matter_lines):
        add(line, 0, None, "front-matter")
    for unit in blocks.leaves:
        kind = _STRUCTURE_KINDS.get(unit.kind)
        if kind:
            for line in range(unit.first, unit.last + 1):
                add(line, 0, None, kind)
    for table in blocks.tables:
        for line in range(table.first, table.last + 1):
            add(line, 0, None, "table")
    for item in blocks.items:
        text = doc.text[doc.line_starts[item.first]:doc.line_end(item.first)]
        m = _LIST_MARKER.match(text)
        if m:
            add(item.first, m.start(1), m.end(1), "marker")
    return out
