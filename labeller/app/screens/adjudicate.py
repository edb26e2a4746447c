"""Adjudication: the golden labels (A) and a second annotator's (B) side by side.

For each record the two sides disagree on, both sets of spans are shown in context;
spans both sides share are marked, so the eye goes to the difference. The adjudicator
keeps A, keeps B, merges them (union, one locator per span) or writes a new record;
the result goes to questions.jsonl and an ``accept`` to the review log.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Static

from labeller.app.screens.records import RecordEditor, RecordPager, pager_bindings
from labeller.app.session.review import AdjudicateSession
from labeller.app.widgets.key_bar import KeyBar
from labeller.app.widgets.markup import visible_line
from labeller.app.widgets.record_view import plain, record_view, side_view
from labeller.core.models import Question
from labeller.core.project import Project
from labeller.errors import LabellerError


class AdjudicateScreen(RecordPager):
    """A against B for ``record_ids``; the ``AdjudicateSession`` reads and writes the files."""

    DEFAULT_CSS = """
    AdjudicateScreen #ad-head { height: auto; padding: 0 1; background: $boost; }
    AdjudicateScreen #ad-record { height: auto; padding: 0 1; }
    AdjudicateScreen #ad-sides { height: 1fr; }
    AdjudicateScreen .ad-side { width: 1fr; padding: 0 1; border-right: vkey $panel; }
    """
    BINDINGS = [
        Binding("a,1", "keep_a", "Keep A", id="adjudicate.keep_a"),
        Binding("b,2", "keep_b", "Keep B", id="adjudicate.keep_b"),
        Binding("m", "merge", "Merge", id="adjudicate.merge"),
        Binding("w", "write_new", "Write new", id="adjudicate.write_new"),
        *pager_bindings("adjudicate"),
    ]

    def __init__(self, project: Project, annotator: str, adjudicator: str, record_ids: list[str]) -> None:
        super().__init__()
        self.model = self.session = AdjudicateSession(project, annotator, adjudicator, record_ids)

    def compose(self) -> ComposeResult:
        yield Static(id="ad-head")
        yield Static(id="ad-record")
        with Horizontal(id="ad-sides"):
            with VerticalScroll(classes="ad-side"):
                yield Static(id="ad-a")
            with VerticalScroll(classes="ad-side"):
                yield Static(id="ad-b")
        yield KeyBar()  # every key on screen at 80 columns (Footer cuts the last ones off)

    def on_mount(self) -> None:
        self.reload()

    def reload(self) -> None:
        self.session.reload()
        self.show()

    def show(self) -> None:
        head = Text()
        model = self.session
        cur = model.current()
        if cur is None:
            self.query_one("#ad-head", Static).update("no record to adjudicate here (not in questions.jsonl, or "
                                                      "not annotated)" if model.record_ids else "nothing to adjudicate")
            for wid in ("#ad-record", "#ad-a", "#ad-b"):
                self.query_one(wid, Static).update("")
            return
        q, b = cur
        a_res, b_res = model.sides(q, b)
        head.append(f"adjudicate {model.index + 1}/{len(model.record_ids)}  ", style="bold")
        head.append_text(plain(f"record {q.id}  A = questions.jsonl  B = {model.annotator}  "))
        agr = model.agreement(a_res, b_res)
        if agr is not None:
            f1, kappa, jac = agr.chars.f1, agr.kappa.kappa, agr.chunk_jaccard
            fmt = lambda x: "n/a" if x is None else f"{x:.2f}"  # noqa: E731
            head.append(f"char F1 {fmt(f1)}  kappa {fmt(kappa)}  chunk Jaccard {fmt(jac)}"
                        + ("  identical" if agr.exact_match else ""), style="dim")
        latest = model.last_adjudication(q.id)
        if latest is not None:
            head.append_text(plain(f"\n{latest.comment} by {latest.reviewer} at {latest.timestamp}", "green"))
        self.query_one("#ad-head", Static).update(head)
        self.query_one("#ad-record", Static).update(record_view(model.project, q, a_res, show_labels=False))
        self.query_one("#ad-a", Static).update(side_view(model.project, " A  questions.jsonl ", a_res, b_res))
        self.query_one("#ad-b", Static).update(side_view(model.project, f" B  {model.annotator} ", b_res, a_res))

    def _decide(self, action: str) -> None:
        try:
            q = self.session.decide(action)
        except LabellerError as exc:
            self.notify(visible_line(str(exc)), severity="error", timeout=10, markup=False)  # paths may hold "[...]"
            return
        if q is None:
            return
        self.notify(visible_line(f"{q.id}: {action.replace('_', ' ')}"), markup=False)
        self.action_next()

    def action_keep_a(self) -> None:
        self._decide("keep_a")

    def action_keep_b(self) -> None:
        self._decide("keep_b")

    def action_merge(self) -> None:
        self._decide("merge")

    def action_write_new(self) -> None:
        """Open the record editor on the merged record, the usual starting point for a rewrite."""
        cur = self.session.current()
        if cur is None:
            return
        q, b = cur

        def save(edited: Question) -> None:
            self.session.save_new(q, b, edited)

        self.app.push_screen(RecordEditor(f"New label for {q.id} (starts as A merged with B)",
                                          self.session.rewrite_start(q, b).as_json(), q.id, save),
                             self._after_edit)

    def _after_edit(self, edited: Question | None) -> None:
        """A saved new label: re-read, then move on to the next record."""
        if edited is not None:
            self.reload()
            self.action_next()
