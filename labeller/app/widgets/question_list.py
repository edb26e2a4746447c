"""The question list and its filter bar."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import DataTable, Input, Select

from labeller.app.widgets.fields import SafeInput
from labeller.app.widgets.table import Table
from labeller.app.session.drafts import Draft
from labeller.app.session.filters import NO_ANSWER, QuestionFilter, no_answer
from labeller.app.session.statuses import STATUSES
from labeller.display import visible_line

STATUS_STYLE = {"resolved": "green", "not found": "red", "ambiguous": "yellow", "unanswerable": "cyan",
                "stale": "magenta", "incomplete": "dim"}


def status_text(status: str, answerless: bool = False) -> Text:
    """The status cell; a record without an expected answer (an import's, typically) says so
    beside its status, since it is not done until someone writes one."""
    text = Text(status, style=STATUS_STYLE.get(status, "red"))
    if answerless:
        text.append(f", {NO_ANSWER}", style="yellow")
    return text


class FilterBar(Horizontal):
    """Text, tag, split and status filters; posts ``Changed`` with the whole filter. The status
    choice "no answer" keeps the records without an expected answer, whatever their status."""

    class Changed(Message):
        def __init__(self, flt: QuestionFilter) -> None:
            super().__init__()
            self.filter = flt

    def compose(self) -> ComposeResult:
        # compact (one row, not three): at 80×24 the list keeps its rows (issue 38)
        yield SafeInput(placeholder="filter: id, query, answer, tags", id="filter-text", compact=True)
        yield Select([], prompt="tag", id="filter-tag", compact=True)
        yield Select([(s, s) for s in ("dev", "test", "holdout")], prompt="split", id="filter-split", compact=True)
        yield Select([(s, s) for s in (*STATUSES, NO_ANSWER)], prompt="status", id="filter-status", compact=True)

    def set_tags(self, tags: list[str]) -> None:
        select = self.query_one("#filter-tag", Select)
        current = select.value
        with self.prevent(Select.Changed):
            select.set_options([(t, t) for t in tags])
            if current in tags:
                select.value = current

    @property
    def filter(self) -> QuestionFilter:
        def value(sel_id: str) -> str | None:
            v = self.query_one(sel_id, Select).value
            return None if v is Select.NULL else str(v)

        status = value("#filter-status")
        return QuestionFilter(text=self.query_one("#filter-text", SafeInput).raw, tag=value("#filter-tag"),
                              split=value("#filter-split"), status=None if status == NO_ANSWER else status,
                              no_answer=status == NO_ANSWER)

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.post_message(self.Changed(self.filter))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_to_list()

    def key_down(self, event) -> None:
        """↓ in the filter box goes on to the list it filters (the Selects keep ↓ for themselves)."""
        if isinstance(self.screen.focused, Input):
            event.stop()
            self.action_to_list()

    def action_to_list(self) -> None:
        self.screen.focus_next(DataTable)

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        self.post_message(self.Changed(self.filter))


SORTS = ("file order", "id", "status", "review", "hop", "split", "query")  # what the sort key cycles through


def _sort_value(value):
    """A cell as a sort key: numbers as numbers, anything else (Rich Text too) by its text."""
    return (0, value, "") if isinstance(value, int) else (1, 0, str(value).casefold())


class QuestionTable(Table):
    """id, status, review, hop, split, query; Enter (or a click) opens the record;
    ``s`` sorts by the next column (then back to the file's order)."""

    BINDINGS = [Binding("enter", "open", "Open", show=True, id="question_list.open",
                        tooltip="Open the question in the editor"),
                Binding("s", "cycle_sort", "Sort", show=True, id="question_list.sort",
                        tooltip="Sort by the next column: id, status, review, hop, split, query, file order")]

    class Opened(Message):
        def __init__(self, record_id: str) -> None:
            super().__init__()
            self.record_id = record_id

    def __init__(self, **kwargs) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)
        self.sort_by = SORTS[0]
        self._shown: tuple = ([], set(), {})

    def on_mount(self) -> None:
        # status before the query, so a long query never pushes it off screen
        self.add_column("id", key="id")
        self.add_column("status", key="status")
        self.add_column("review", key="review")
        self.add_column("hop", key="hop")
        self.add_column("split", key="split")
        self.add_column("query", key="query")

    def show(self, rows: list[tuple[Draft, str]], dirty: set[str], reviews: dict[str, str]) -> None:
        """Show ``rows``, the cursor staying on its record. When that record is gone (deleted,
        or filtered out) the cursor stays on the same row, which now holds its neighbour (the
        previous one if it was the last): never back to the first row, where the next
        Delete + Enter would remove a record nobody pointed at."""
        keep, keep_row = self.current_id, self.cursor_row
        self._shown = (rows, dirty, reviews)
        self.clear()
        for draft, status in rows:
            rid = draft.id + (" *" if draft.id in dirty else "")
            # the record's own texts as plain ``Text``: shown as they are (never read as markup),
            # and not parsed for markup again per cell, which the table does with a string
            self.add_row(Text(visible_line(rid)), status_text(status, no_answer(draft)), reviews.get(draft.id, ""),
                         draft.hop, draft.split or "", Text(visible_line(draft.query[:120])), key=draft.id)
        self._apply_sort()
        if keep is not None and keep in self.rows:
            self.move_cursor(row=self.get_row_index(keep))
        elif keep is not None and self.row_count:
            self.move_cursor(row=min(keep_row, self.row_count - 1))

    def _apply_sort(self) -> None:
        for key, column in self.columns.items():
            name = str(key.value)
            column.label = Text(name + (" ▲" if name == self.sort_by else ""))
        if self.sort_by != SORTS[0]:
            self.sort(self.sort_by, key=_sort_value)
        self.refresh()

    def action_cycle_sort(self) -> None:
        """Sort by the next column, the cursor staying on its record."""
        keep = self.current_id
        self.sort_by = SORTS[(SORTS.index(self.sort_by) + 1) % len(SORTS)]
        if self.sort_by == SORTS[0]:
            self.show(*self._shown)  # the file's order: lay the rows out again as given
        else:
            self._apply_sort()
        if keep is not None and keep in self.rows:
            self.move_cursor(row=self.get_row_index(keep))
        self.notify(f"sorted by {self.sort_by}", timeout=2)

    @property
    def current_id(self) -> str | None:
        if not self.row_count:
            return None
        try:
            key = self.coordinate_to_cell_key(self.cursor_coordinate).row_key
        except Exception:
            return None
        return key.value

    def action_open(self) -> None:
        rid = self.current_id
        if rid is not None:
            self.post_message(self.Opened(rid))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.row_key.value is not None:
            self.post_message(self.Opened(event.row_key.value))
