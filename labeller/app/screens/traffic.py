"""The traffic queue (issue 39.4): label the queries sampled from a query log.

The list is the queue file's items (already redacted) with their stratum, weight (1/π) and
where each stands: open, the record made from it, or the verdict kept in the queue file.
Enter (or l) makes the item a draft question (query, split and provenance filled in) and opens the
editor on it with the corpus search already run on the query; ``n`` makes it a negative
record without leaving the list; ``o`` / ``u`` mark it out of scope / unclear in the queue
file (again: cleared). Below the list, the pipeline's own retrieved passages of the item,
placed in the corpus by the passage locator: ``p`` goes to them, Enter on one opens the item
in the editor at that passage. The state is ``labeller.app.session.traffic_queue``'s.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.widgets import DataTable, Header, Input, OptionList, Static, TabbedContent
from textual.widgets.option_list import Option

from labeller.app.screens.base import LatestOnly, SessionScreen
from labeller.app.session.traffic_queue import PlacedPassage, TrafficQueue, queue_path
from labeller.app.widgets.corpus import SearchPanel
from labeller.app.widgets.key_bar import KeyBar
from labeller.app.widgets.markup import fmt, fmt_block
from labeller.app.widgets.table import Table
from labeller.display import safe_line, visible_line
from labeller.errors import LabellerError


class TrafficScreen(SessionScreen):
    CSS_PATH = "traffic.tcss"
    BINDINGS = [
        Binding("l,enter", "open_item", "Label", id="traffic.open",
                tooltip="Make the item a draft question and open it in the editor, searched for"),
        Binding("n", "unanswerable", "Negative", id="traffic.unanswerable",
                tooltip="Make the item a negative record: the corpus does not answer it"),
        Binding("o", "verdict('out_of_scope')", "Out of scope", id="traffic.out_of_scope",
                tooltip="Mark the item out of scope in the queue file (again: clear it)"),
        Binding("u", "verdict('unclear')", "Unclear", id="traffic.unclear",
                tooltip="Mark the item unclear in the queue file (again: clear it)"),
        Binding("p", "passages", "Passages", id="traffic.passages",
                tooltip="To the pipeline's retrieved passages of the item (Enter opens one in the editor)"),
        Binding("r", "reload", "Reload", show=False, id="traffic.reload", tooltip="Read the queue file again"),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.queue: TrafficQueue | None = None
        self.problem = ""
        self._shown_passages: list[PlacedPassage] = []
        self._placing = LatestOnly(self, "traffic-passages", self._compute_placed, self._apply_placed)

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="traffic-summary")
        yield Table(id="traffic-items", cursor_type="row", zebra_stripes=True)
        yield Static("", id="traffic-detail")
        yield OptionList(id="traffic-passages")
        yield KeyBar()

    def on_mount(self) -> None:
        table = self.query_one("#traffic-items", DataTable)
        table.add_columns("status", "stratum", "weight", "query")
        table.border_title = "traffic queue"
        self.query_one("#traffic-passages", OptionList).border_title = "retrieved passages (p)"
        self._load()
        table.focus()

    def _load(self) -> None:
        path = queue_path(self.session)
        self.queue, self.problem = None, ""
        if not path.is_file():
            self.problem = (f"no queue file at {path}: write one with `labeller traffic sample LOG --n N --out "
                            f"{path}` (or start with `labeller app --queue QUEUE`), then press r")
            return
        try:
            self.queue = TrafficQueue.open(path)
        except LabellerError as exc:
            self.problem = str(exc)

    @property
    def current_id(self) -> str | None:
        table = self.query_one("#traffic-items", DataTable)
        if self.queue is None or not self.queue.items or table.cursor_row < 0:
            return None
        return self.queue.items[min(table.cursor_row, len(self.queue.items) - 1)].id

    def refresh_from_session(self) -> None:
        if not self.is_mounted:
            return
        table = self.query_one("#traffic-items", DataTable)
        row = table.cursor_row
        table.clear()
        summary = self.query_one("#traffic-summary", Static)
        if self.queue is None:
            summary.update(visible_line(self.problem))
            self._show_item(None)
            return
        drafts = self.session.drafts
        records = self.queue.records(drafts)
        counts: dict[str, int] = {}
        for it in self.queue.items:
            status = self.queue.status(it, drafts, records)
            kind = "labelled" if it.id in records else status
            counts[kind] = counts.get(kind, 0) + 1
            table.add_row(safe_line(status), safe_line(it.stratum), f"{1 / it.pi:.1f}", safe_line(it.query), key=it.id)
        if self.queue.items:
            table.move_cursor(row=max(0, min(row, len(self.queue.items) - 1)))
        summary.update(fmt(f"$path · {len(self.queue.items)} items: "
                           + ", ".join(f"{n} {k}" for k, n in sorted(counts.items())), path=self.queue.path.name))
        self._show_item(self.current_id)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_item(None if event.row_key is None else event.row_key.value)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_open_item()

    def _show_item(self, item_id: str | None) -> None:
        detail = self.query_one("#traffic-detail", Static)
        passages = self.query_one("#traffic-passages", OptionList)
        if self.queue is None or item_id is None:
            detail.update("")
            passages.clear_options()
            passages.display = False
            return
        it = self.queue.item(item_id)
        lines = [fmt_block("[b]$id[/b] $q", id=it.id, q=it.query),
                 fmt("[dim]stratum[/dim] $s · π $pi · $f request(s) · split $split"
                     + (" · tenant $t" if it.tenant else ""),
                     s=it.stratum, pi=f"{it.pi:.4g}", f=it.frequency, split=it.split, t=it.tenant or "")]
        detail.update(Content("\n").join(lines))
        passages.clear_options()
        passages.display = bool(it.retrieved)
        if it.retrieved and self.session.ready:
            self._placing.request(item_id)

    def _compute_placed(self, item_id: str, interim):
        assert self.queue is not None
        return self.queue.placements(item_id, self.session.project.corpus)

    def _apply_placed(self, args: tuple, result) -> None:
        if isinstance(result, Exception):
            self.notify(visible_line(f"placing the passages failed: {result}"), severity="error", markup=False)
            return
        if args[0] != self.current_id:
            return
        self._shown_passages = result
        passages = self.query_one("#traffic-passages", OptionList)
        passages.clear_options()
        passages.add_options([Option(passage_line(p), id=str(p.rank)) for p in result])

    # -- actions --------------------------------------------------------------------------

    def _taken(self) -> tuple[str, str] | None:
        """(item id, its draft's id), the draft made if there is none; None when refused."""
        item_id = self.current_id
        if self.queue is None or item_id is None:
            self.notify("no queue item here", severity="warning")
            return None
        try:
            rid = self.queue.take(item_id, self.session)
        except LabellerError as exc:
            self.notify(visible_line(str(exc)), severity="warning", markup=False)
            return None
        self.labeller.records_changed([rid])
        return item_id, rid

    def action_open_item(self) -> None:
        taken = self._taken()
        if taken is not None:
            self._to_editor(taken[1], None)

    def action_unanswerable(self) -> None:
        item_id = self.current_id
        if self.queue is None or item_id is None:
            return
        try:
            rid = self.queue.mark_unanswerable(item_id, self.session)
        except LabellerError as exc:
            self.notify(visible_line(str(exc)), severity="warning", markup=False)
            return
        self.labeller.records_changed([rid])
        self.notify(f"{rid}: a negative record (save with ctrl+s)")
        self._next_row()

    def action_verdict(self, verdict: str) -> None:
        item_id = self.current_id
        if self.queue is None or item_id is None:
            return
        again = self.queue.item(item_id).verdict == verdict
        try:
            self.queue.set_verdict(item_id, None if again else verdict, self.session.drafts)
        except (LabellerError, OSError) as exc:
            self.notify(visible_line(str(exc)), severity="warning", markup=False)
            return
        self.refresh_from_session()
        if not again:
            self._next_row()

    def _next_row(self) -> None:
        self.refresh_from_session()
        self.query_one("#traffic-items", DataTable).action_cursor_down()

    def action_passages(self) -> None:
        passages = self.query_one("#traffic-passages", OptionList)
        if not passages.option_count:
            self.notify("this item carries no retrieved passages", severity="warning")
            return
        passages.focus()
        if passages.highlighted is None:
            passages.highlighted = 0

    def action_reload(self) -> None:
        self._load()
        self.refresh_from_session()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        chosen = self._shown_passages[event.option_index]
        if chosen.place is None:
            self.notify(visible_line(f"passage {chosen.rank} has no place: {chosen.how}"), severity="warning",
                        markup=False)
            return
        taken = self._taken()
        if taken is not None:
            self._to_editor(taken[1], chosen)

    def _to_editor(self, record_id: str, passage: PlacedPassage | None) -> None:
        """Open the draft in the editor, the search run on its query, and show ``passage``."""
        query = self.session.drafts[record_id].query
        self.labeller.open_record(record_id)
        self.app.call_after_refresh(self._in_editor, query, passage)

    def _in_editor(self, query: str, passage: PlacedPassage | None) -> None:
        editor = self.app.screen
        panels = editor.query(SearchPanel)
        if not panels:
            return
        editor.query_one(TabbedContent).active = "tab-search"
        box = editor.query_one("#search-input", Input)
        box.value = query  # the panel posts its Query: the editor searches as if it were typed
        if passage is not None and passage.place is not None:
            place = passage.place
            editor.post_message(SearchPanel.HitChosen(place.doc, place.start, place.end))
        else:
            box.focus()

WHY_CHARS = 36


def passage_line(p: PlacedPassage) -> str:
    """One row of the passages list: rank, the pipeline's id and score, and where it lies."""
    head = f"{p.rank}. {p.id or '(no id)'}" + (f" ({p.score:.3g})" if p.score is not None else "")
    if p.place is None:  # the locator's whole reason is shown when the passage is chosen
        why = p.how if len(p.how) <= WHY_CHARS else p.how[:WHY_CHARS - 1] + "…"
        return visible_line(f"{head}: not placed: {why}")
    return visible_line(f"{head} → {p.place.doc}:{p.line} [{p.how}]")
