"""Broken labels: what no longer resolves, stale ones (the corpus moved under them) first.

The list is the walk: Enter opens a record in the editor on its first refused locator,
with the core's suggestions ready to accept; ctrl+b there goes on to the next one.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import DataTable, Header, Static

from labeller.app.screens.base import SessionScreen
from labeller.app.widgets.question_list import status_text
from labeller.app.widgets.markup import fmt
from labeller.app.widgets.table import Table
from labeller.app.widgets.key_bar import KeyBar
from labeller.display import safe_line


class StaleScreen(SessionScreen):
    CSS_PATH = "coverage.tcss"

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="stale-summary")
        yield Table(id="broken", cursor_type="row", zebra_stripes=True)
        yield Static("", id="broken-detail")
        yield KeyBar()

    def on_mount(self) -> None:
        table = self.query_one("#broken", DataTable)
        table.add_columns("id", "status", "locator", "reason")
        table.focus()

    def refresh_from_session(self) -> None:
        if not self.is_mounted:
            return
        s = self.session
        table = self.query_one("#broken", DataTable)
        table.clear()
        broken = s.broken_records() if s.ready else []
        for rid in broken:
            status, why = s.status(rid)
            result = s.result(rid)
            assert result is not None, "a broken record is one whose result has refusals"
            first = result.refusals[0]
            table.add_row(safe_line(rid), status_text(status), safe_line(first.locator.describe()[:80]),
                          safe_line(why[:100]), key=rid)
        changed = sorted(s.committed.changed_docs)
        if not s.ready:
            head = "resolving…"
        elif not broken:
            head = "[green]every label resolves[/]"
        else:
            n_stale = sum(1 for rid in broken if s.status(rid)[0] == "stale")
            head = (f"[b]{len(broken)}[/b] record(s) with broken labels, [b]{n_stale}[/b] of them stale "
                    f"(their document changed since the last build). Enter opens one on its first broken "
                    f"locator with the suggestions; ctrl+b in the editor goes to the next.")
        summary = Content.from_markup(head)
        if changed:
            summary += fmt("\ndocuments changed since the last build: $docs", docs=", ".join(changed[:20]))
        self.query_one("#stale-summary", Static).update(summary)
        self._detail(broken[0] if broken else None)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._detail(event.row_key.value)

    def _detail(self, rid: str | None) -> None:
        detail = self.query_one("#broken-detail", Static)
        res = self.session.result(rid) if rid else None
        if res is None:
            detail.update("")
            return
        lines = [fmt("[b]$id[/b]: $query", id=rid, query=res.question.query)]
        for r in res.refusals:
            lines.append(fmt(f"  [$error]{r.kind}[/] $loc: $message", loc=r.locator.describe(), message=r.message))
            for sug in r.suggestions[:3]:
                if "quote" in sug:
                    lines.append(fmt("    nearest: $where [$warning]$quote[/]", where=sug["where"], quote=sug["quote"]))
            for occ in r.occurrences[:3]:
                if occ.get("extension"):
                    lines.append(fmt("    $where unique as [$success]$ext[/]",
                                     where=f"{occ['doc']}:{occ['line']}:{occ['col']}", ext=occ["extension"]))
        detail.update(Content("\n").join(lines))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        rid = event.row_key.value
        assert rid is not None, "every row is keyed by its record id"
        self.labeller.open_record(rid, self.session.first_refused_locator(rid))
