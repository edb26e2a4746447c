"""The traffic queue (issue 39.4): label the queries sampled from a query log.

The list is the queue file's items (already redacted) with their stratum, weight (1/π) and
where each stands: open, the verdict kept in the queue file, or the record made from it and
that record's status (``hb-093 resolved``); the line above counts them and the unsaved records.
Enter (or l) makes the item a draft question (query, split and provenance filled in) and opens the
editor on it with the corpus search already run on the query and its hits in view (at 80
columns, the editor's full-width corpus view); ``n`` makes it a negative record without
leaving the list; ``o`` / ``u`` mark it out of scope / unclear in the queue file (again:
cleared). Each of those, and coming back from the editor with the item labelled, puts the
cursor on the next item left to do, so a queue is walked with Enter and F10 alone. Below the
list, the pipeline's own retrieved passages of the item, placed in the corpus by the passage
locator: ``p`` goes to them, Enter on one opens the item in the editor at that passage. The
state is ``labeller.app.session.traffic_queue``'s.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.widgets import DataTable, Header, Input, OptionList, Static, TabbedContent
from textual.widgets.option_list import Option

from labeller.app.screens.base import LatestOnly, SessionScreen
from labeller.app.session.traffic_queue import KINDS, PlacedPassage, TrafficQueue, queue_path
from labeller.app.widgets.corpus import SearchPanel
from labeller.app.widgets.key_bar import KeyBar
from labeller.app.widgets.markup import fmt, fmt_block
from labeller.app.widgets.table import Table
from labeller.display import safe_line, visible_line
from labeller.errors import LabellerError

if TYPE_CHECKING:
    from labeller.app.screens.author import AuthorScreen


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
        self._sent: str | None = None  # the item last opened in the editor
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
        table.clear(columns=True)  # the columns made again: their widths fit what is shown now
        table.add_columns(*COLUMNS)
        summary = self.query_one("#traffic-summary", Static)
        if self.queue is None:
            summary.update(visible_line(self.problem))
            self._show_item(None)
            return
        states = self.queue.states(self.session)
        counts: dict[str, int] = {}
        for st in states:
            counts[st.kind] = counts.get(st.kind, 0) + 1
            table.add_row(safe_line(st.label), safe_line(st.item.stratum), f"{1 / st.item.pi:.1f}",
                          safe_line(st.item.query), key=st.item.id)
        if states:
            table.move_cursor(row=max(0, min(row, len(states) - 1)))
        unsaved = sum(st.unsaved for st in states)
        table.border_title = visible_line(f"traffic queue · {self.queue.path.name}")  # the counts get the line
        summary.update(Content(f"{len(states)} items: "
                               + ", ".join(f"{counts[k]} {k}" for k in KINDS if k in counts)
                               + (f" · {unsaved} unsaved" if unsaved else "")))
        self._show_item(self.current_id)

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        """Back from the editor: once the item sent there is labelled, the list is on the next
        item left to do and has the focus, so Enter goes on with it; an item left unfinished
        stays under the cursor, its status saying what it lacks. (The base class's handler,
        which Textual calls after this one, redraws the list.)"""
        sent, self._sent = self._sent, None
        if sent is None or self.queue is None or sent != self.current_id:
            return
        if self.queue.state(sent, self.session).done:
            self._go_on(sent)
        self.query_one("#traffic-items", DataTable).focus()

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
        passages.add_options([Option(Content(passage_line(p)), id=str(p.rank)) for p in result])

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
        self.refresh_from_session()
        self._go_on(item_id)

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
            self._go_on(item_id)

    def _go_on(self, item_id: str) -> None:
        """The cursor to the next item left to do after ``item_id`` (none left: it stays)."""
        assert self.queue is not None
        nxt = self.queue.next_to_do(item_id, self.session)
        if nxt is not None:
            table = self.query_one("#traffic-items", DataTable)
            table.move_cursor(row=table.get_row_index(nxt))

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
        self._sent = self.current_id
        self.labeller.open_record(record_id)  # switches to the editor now; it opens the record on resuming
        if self.app.current_mode == "author":
            # queued behind the editor's resume, which puts the focus on the query field
            editor = cast("AuthorScreen", self.app.screen)
            editor.call_later(self._in_editor, editor, query, passage)

    @staticmethod
    def _in_editor(editor: "AuthorScreen", query: str, passage: PlacedPassage | None) -> None:
        """The search run on the query; its hits in view (at 80 columns, the corpus view in
        place of the document: Enter on a hit opens it), or the chosen passage marked."""
        if passage is not None and passage.place is not None:
            editor.query_one(TabbedContent).active = "tab-search"
            place = passage.place
            editor.post_message(SearchPanel.HitChosen(place.doc, place.start, place.end))
        else:
            editor.action_focus_search()  # shows the search pane (or view) and moves the focus there
        # the panel posts its Query: the editor searches as if it were typed
        editor.query_one("#search-input", Input).value = query

WHY_CHARS = 36
COLUMNS = ("status", "stratum", "weight", "query")


def passage_line(p: PlacedPassage) -> str:
    """One row of the passages list: rank, the pipeline's id and score, and where it lies."""
    head = f"{p.rank}. {p.id or '(no id)'}" + (f" ({p.score:.3g})" if p.score is not None else "")
    if p.place is None:  # the locator's whole reason is shown when the passage is chosen
        why = p.how if len(p.how) <= WHY_CHARS else p.how[:WHY_CHARS - 1] + "…"
        return visible_line(f"{head}: not placed: {why}")
    return visible_line(f"{head} → {p.place.doc}:{p.line} [{p.how}]")
