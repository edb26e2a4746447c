"""The coverage panel: the build's summary of the golden set, as tables."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Static

from labeller.app.widgets.table import Table
from labeller.display import safe_line


class CoverageView(Vertical):
    """Labels per document and per tag, unlabelled documents, single / multi / negative.

    The counts come first in each row and the names last: a table narrower than its longest
    name (three side by side at 80 columns) cuts the name's end, never a count; the
    focused table scrolls sideways for the rest."""

    def compose(self) -> ComposeResult:
        yield Static("computing…", id="coverage-counts")
        with Horizontal(id="coverage-tables"):
            yield Table(id="coverage-docs", cursor_type="row", zebra_stripes=True)
            yield Table(id="coverage-tags", cursor_type="row", zebra_stripes=True)
            yield Table(id="coverage-unlabelled", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        docs = self.query_one("#coverage-docs", DataTable)
        docs.border_title = "labels per document"
        docs.add_columns("spans", "document")
        tags = self.query_one("#coverage-tags", DataTable)
        tags.border_title = "labels per tag"
        tags.add_columns("records", "spans", "tag")
        unl = self.query_one("#coverage-unlabelled", DataTable)
        unl.border_title = "unlabelled documents"
        unl.add_columns("document")

    def show(self, summary: dict) -> None:
        s = summary
        counts = (f"[b]{s['records']}[/] records: [b]{s['single']}[/] single-hop · [b]{s['multi']}[/] multi-hop · "
                  f"[b]{s['negative']}[/] negative (unanswerable)   ·   {s['spans']} spans over {s['docs']} documents "
                  f"({s['chunks']} chunks)")
        if s.get("refusals"):
            counts += f"   ·   [red]{s['refusals']} label error(s)[/]"
        if s.get("blocks"):
            counts += "\nblocks: " + "  ".join(f"{k} {v}" for k, v in s["blocks"].items())
        if s.get("span_chars"):
            sc = s["span_chars"]
            counts += f"   ·   span chars: min {sc['min']} median {sc['median']} mean {sc['mean']} max {sc['max']}"
        self.query_one("#coverage-counts", Static).update(counts)
        docs = self.query_one("#coverage-docs", DataTable)
        docs.clear()
        for doc, n in sorted(s["labels_per_doc"].items(), key=lambda kv: (-kv[1], kv[0])):
            docs.add_row(n, safe_line(doc))
        tags = self.query_one("#coverage-tags", DataTable)
        tags.clear()
        for tag, row in s["labels_per_tag"].items():
            tags.add_row(row["records"], row["spans"], safe_line(tag))
        unl = self.query_one("#coverage-unlabelled", DataTable)
        unl.clear()
        for doc in s["unlabelled_docs"]:
            unl.add_row(safe_line(doc))
