"""The question list: every record with its status, filters, and the way into the editor."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.widgets import DataTable, Header, Static

from labeller.app.screens.base import SessionScreen
from labeller.app.screens.dialogs import confirm_dialog
from labeller.app.widgets.question_list import FilterBar, QuestionTable
from labeller.app.widgets.markup import fmt, fmt_block
from labeller.app.widgets.key_bar import KeyBar


class QuestionsScreen(SessionScreen):
    BINDINGS = [
        Binding("ctrl+n", "app.new_question", "New question", show=True, id="questions.new_question", priority=True,
                tooltip="Create a question with a fresh id and open it (shown here: where a newcomer starts)"),
        Binding("slash", "focus_filter", "Filter", show=True, id="questions.filter", tooltip="Filter the list by words"),
        Binding("delete", "delete_question", "Delete question", show=True, id="questions.delete",
                tooltip="Delete the highlighted question (leaves the file on the next save)"),
    ]

    def compose(self) -> ComposeResult:
        yield Header()
        yield FilterBar(id="filters")
        yield QuestionTable(id="questions")
        yield Static("", id="question-detail")
        yield Static("", id="status-line")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one(QuestionTable).focus()

    def refresh_from_session(self) -> None:
        if not self.is_mounted:
            return
        s = self.session
        bar = self.query_one(FilterBar)
        bar.set_tags(s.all_tags())
        rows = s.rows(bar.filter)
        table = self.query_one(QuestionTable)
        table.show(rows, {i for i in s.order if s.is_dirty(i)}, s.review_statuses())
        table.border_title = f"questions ({len(rows)} of {len(s.order)})"
        self._show_detail(table.current_id)
        self.query_one("#status-line", Static).update(self.labeller.status_line())

    def on_filter_bar_changed(self, event: FilterBar.Changed) -> None:
        self.refresh_from_session()

    def on_question_table_opened(self, event: QuestionTable.Opened) -> None:
        self.labeller.open_record(event.record_id)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_detail(event.row_key.value)

    def _show_detail(self, record_id: str | None) -> None:
        detail = self.query_one("#question-detail", Static)
        if not self.session.drafts:
            project = self.session.project
            detail.update(Content.from_markup(empty_state(len(project.corpus) if project.corpus_loaded else None)))
            return
        if record_id is None or record_id not in self.session.drafts:
            detail.update("")
            return
        d = self.session.draft(record_id)
        status, why = self.session.status(record_id)
        lines = [fmt(f"[b]$id[/b] · {status}" + (": $why" if why else ""), id=d.id, why=why),
                 fmt_block("[dim]query[/dim]  $q", q=d.query), fmt_block("[dim]answer[/dim] $a", a=d.expected_answer)]
        lines += [fmt(f"  locator {n}: $loc", loc=loc.describe()) for n, loc in enumerate(d.locators, start=1)]
        if d.tags:
            lines.append(fmt("[dim]tags[/dim]   $tags", tags=", ".join(d.tags)))
        detail.update(Content("\n").join(lines))

    def action_focus_filter(self) -> None:
        self.query_one("#filter-text").focus()

    def action_delete_question(self) -> None:
        rid = self.query_one(QuestionTable).current_id
        if rid is None:
            return

        def done(choice: str | None) -> None:
            if choice == "ok":
                self.session.delete_record(rid)
                self.refresh_from_session()

        self.app.push_screen(confirm_dialog(f"Delete {rid}?",
                                            "The record leaves questions.jsonl on the next save; the other "
                                            "records keep their ids.", "Delete"), done)


def empty_state(n_docs: int | None) -> str:
    """What to do first in a project without questions (markup); ``None``: the corpus is still being read."""
    if n_docs is None:
        return "[b]no questions yet[/b]: press [b]ctrl+n[/b] to write the first one (reading the corpus…)"
    if not n_docs:
        return ("[b]no corpus documents[/b]: put Markdown files in the corpus folder (see labeller.toml), then "
                "press [b]f8[/b] to read the corpus again")
    return (f"[b]no questions yet[/b]: press [b]ctrl+n[/b] to write the first one, then select its answer in one "
            f"of the {n_docs} documents (F3)")
