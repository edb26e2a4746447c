"""Broken labels: what no longer resolves, stale ones (the corpus moved under them) first.

The list is the walk: Enter opens a record in the editor on its first refused locator,
with the core's suggestions ready to accept; ctrl+b there goes on to the next one. Under it,
the highlighted record's refusals, each with its suggestions as ``labeller repair`` ranks them
(``core.repair.offered``, in a worker: the first is what repair applies), as the editor lists
them. Above it, when the corpus was reorganised, the moved labels grouped per pair of documents
(``ch17.md → ch18.md: 9 labels``): the build's moves at once, then ``labeller repair --moves``'s
plan (the session's ``moves_plan``, in a worker: it reads the committed build, so a quote the new
page repeats counts, moved where it stood). One key re-points the group under the cursor with a
plan made afresh, as one undo step the author then saves."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.widgets import DataTable, Header, Static

from labeller.app.screens.base import LatestOnly, SessionScreen
from labeller.app.widgets.question_list import status_text
from labeller.app.widgets.markup import fmt
from labeller.app.widgets.table import Table
from labeller.app.widgets.key_bar import KeyBar
from labeller.core.fixes import MOVED
from labeller.core.moves import group_line
from labeller.display import safe_line, visible_line


class StaleScreen(SessionScreen):
    CSS_PATH = "coverage.tcss"
    BINDINGS = [Binding("m", "accept_moves", "Accept moves", id="stale.accept_moves",
                        tooltip="Re-point every label of the highlighted group of moves (the quote unchanged)")]

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._groups: list[dict] = []  # the moves shown, in the moves table's order
        # repair's suggestions per refusal of a record, for the result they were computed from
        self._offers: dict[str, tuple[object, list]] = {}
        self._offering = LatestOnly(self, "offers", self._compute_offers, self._apply_offers)
        self._moving = LatestOnly(self, "moves", self._compute_moves, self._apply_moves)
        self._listing = LatestOnly(self, "move-groups", self._compute_listing, self._apply_listing)
        self._shown: str | None = None  # the record whose detail is shown

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="stale-summary")
        yield Table(id="moves", cursor_type="row")
        yield Table(id="broken", cursor_type="row", zebra_stripes=True)
        yield Static("", id="broken-detail")
        yield KeyBar()

    def on_mount(self) -> None:
        table = self.query_one("#broken", DataTable)
        table.add_columns("id", "status", "locator", "reason")
        table.focus()
        moves = self.query_one("#moves", DataTable)
        moves.add_columns("moved labels (old document → new document)")
        moves.border_title = "moved: m accepts a group"
        moves.display = False

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
        self._show_groups(s.move_groups() if s.ready else [])
        if s.ready and s.may_move():
            self._listing.request()
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
            summary += fmt("\n$n document(s) changed since the last build: $docs", n=len(changed),
                           docs=", ".join(changed[:SHOWN_DOCS]) + ", …" * (len(changed) > SHOWN_DOCS))
        self.query_one("#stale-summary", Static).update(summary)
        self._detail(broken[0] if broken else None)

    def _show_groups(self, groups: list[dict]) -> None:
        """Show ``groups``, the cursor kept on the pair it was on (the plan's groups replace the
        build's while the author looks: **m** must not fall on another pair)."""
        if groups == self._groups:
            return
        moves = self.query_one("#moves", DataTable)
        was = self._groups[moves.cursor_row] if 0 <= moves.cursor_row < len(self._groups) else None
        self._groups = groups
        moves.clear()
        for g in groups:
            moves.add_row(safe_line(group_line(g)), key=_pair_key(g))
        if was is not None and any(_pair_key(g) == _pair_key(was) for g in groups):
            moves.move_cursor(row=moves.get_row_index(_pair_key(was)))
        moves.display = bool(groups)
        self.refresh_bindings()

    def _compute_listing(self, interim) -> list:
        return self.session.moves_plan()

    def _apply_listing(self, args: tuple, plan) -> None:
        """The groups as ``repair --moves`` would apply them replace the build's (a quote the
        renamed page repeats counts in its group; a move that does not resolve does not)."""
        if isinstance(plan, Exception):
            self.labeller.notify(visible_line(f"moves failed: {plan}"), severity="error", markup=False)
        elif self.is_mounted and self.session.ready:
            self._show_groups(self.session.move_groups(plan))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The accept key is shown only while there are moves to accept."""
        if action == "accept_moves":
            return bool(self._groups)
        return True

    def action_accept_moves(self) -> None:
        """Re-point the highlighted group's labels (the cursor of the moves table): the plan is
        made in a worker (with the committed build, read through git), applied when it is back."""
        groups = self._groups
        if not groups:
            return
        moves = self.query_one("#moves", DataTable)
        g = groups[min(max(moves.cursor_row, 0), len(groups) - 1)]
        self.labeller.notify(visible_line(f"re-pointing {g['from']} → {g['to']}…"), markup=False)
        self._moving.request(g["from"], g["to"])

    def _compute_moves(self, old_doc: str, new_doc: str, interim) -> list:
        return [f for f in self.session.moves_plan() if (f.old.doc, f.new.doc) == (old_doc, new_doc)]

    def _apply_moves(self, args: tuple, fixes) -> None:
        old_doc, new_doc = args
        if isinstance(fixes, Exception):
            self.labeller.notify(visible_line(f"moves failed: {fixes}"), severity="error", markup=False)
            return
        ids = self.session.accept_moves(fixes)
        self.labeller.notify(visible_line(f"re-pointed {len(ids)} record(s) {old_doc} → {new_doc}; "
                                          "ctrl+s saves, ctrl+z undoes"), markup=False)
        self.labeller.records_changed(ids)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table.id != "broken":
            return
        self._detail(event.row_key.value)

    def _compute_offers(self, rid: str, result, interim) -> list:
        return self.session.record_offers(rid)

    def _apply_offers(self, args: tuple, offers) -> None:
        rid, result = args
        if isinstance(offers, Exception):
            self.labeller.notify(visible_line(f"suggestions failed: {offers}"), severity="error", markup=False)
            return
        self._offers[rid] = (result, offers)
        if self._shown == rid:
            self._detail(rid)

    def _detail(self, rid: str | None) -> None:
        detail = self.query_one("#broken-detail", Static)
        res = self.session.result(rid) if rid else None
        self._shown = rid
        if res is None:
            detail.update("")
            return
        assert rid is not None
        known = self._offers.get(rid)
        offers = known[1] if known is not None and known[0] is res else None
        if offers is None:
            self._offering.request(rid, res)
        lines = [fmt("[b]$id[/b]: $query", id=rid, query=res.question.query)]
        for i, r in enumerate(res.refusals):
            lines.append(fmt(f"  [$error]{r.kind}[/] $loc: $message", loc=r.locator.describe(), message=r.message))
            offered, places = offers[i] if offers is not None else (None, ())
            if offered is not None and offered.fixes:
                for fix, place in list(zip(offered.fixes, places))[:3]:
                    score = f" ({fix.score})" if fix.score is not None else ""
                    where = self.session.project.corpus[place.doc].where(place.start) if place else fix.new.doc
                    if fix.kind == MOVED:
                        where = f"{fix.old.doc} → {where}"
                    lines.append(fmt(f"    $kind{score}: $where [$warning]$quote[/]", kind=fix.how,
                                     where=where or "", quote=fix.new.quote or fix.new.heading or ""))
                lines.append(Content.from_markup("    [dim]`labeller repair` would apply the first[/]")
                             if offered.applied is not None
                             else fmt("    [dim]`labeller repair` leaves it: $reason[/]", reason=offered.reason))
                continue
            for sug in r.suggestions[:3]:
                if sug.get("kind") == "moved":
                    lines.append(fmt("    moved: $old → [$success]$where[/]", old=sug["from"], where=sug["where"]))
                elif "quote" in sug:
                    lines.append(fmt("    nearest: $where [$warning]$quote[/]", where=sug["where"], quote=sug["quote"]))
            for occ in r.occurrences[:3]:
                if occ.get("extension"):
                    lines.append(fmt("    $where unique as [$success]$ext[/]",
                                     where=f"{occ['doc']}:{occ['line']}:{occ['col']}", ext=occ["extension"]))
        detail.update(Content("\n").join(lines))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if event.data_table.id != "broken":
            return
        rid = event.row_key.value
        assert rid is not None, "every row is keyed by its record id"
        self.labeller.open_record(rid, self.session.first_refused_locator(rid))


SHOWN_DOCS = 3  # changed documents named in the summary (its count says how many): it stays a line or two at 80x24


def _pair_key(group: dict) -> str:
    """A moves table row's key: the group's pair of documents."""
    return f"{group['from']}\0{group['to']}"
