"""Review mode: step through records, see every label in its context, accept / flag / edit.

The reviewer's question is "does this span really answer this query, and is it all of
the answer?", so each record shows the query, the expected answer and every resolved
span with a few lines around it, its block kind, and where the chunk boundaries fall
(which chunks the build will count as answer-bearing). Decisions go to the append-only
review log; an edit is written to questions.jsonl and leaves the record needing review.

The screen is self-contained (own bindings and CSS), so the main app can push it and
``labeller review`` can run it alone through ``labeller.app.review_app.ScreenApp``. What it
shows and writes is held by its ``labeller.app.session.review.ReviewSession``.
"""

from __future__ import annotations

from typing import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from labeller.app.widgets.chunk_names import full_ids
from labeller.app.screens.host import AppHost
from labeller.app.screens.records import CommentScreen, RecordEditor, RecordPager, pager_bindings
from labeller.app.session.review import (ReviewSession, checked_reviewer, login_name, review_queue,
                                         reviewer_from_environment)
from labeller.app.widgets.key_bar import KeyBar
from labeller.app.widgets.markup import visible_line
from labeller.app.widgets.record_view import STATUS_STYLE, plain, record_summary, record_view
from labeller.core.build import resolve_record
from labeller.core.models import Question
from labeller.core.project import Project
from labeller.errors import LabellerError


class ReviewScreen(RecordPager):
    """Step through ``record_ids`` and record this reviewer's decisions (held and written by
    its ``ReviewSession``)."""

    DEFAULT_CSS = """
    ReviewScreen #rv-head { height: auto; padding: 0 1; background: $boost; }
    ReviewScreen #rv-body { height: 1fr; padding: 0 1; }
    """
    BINDINGS = [
        Binding("a", "accept", "Accept", id="review.accept"),
        Binding("f", "flag", "Flag", id="review.flag"),
        Binding("e", "edit", "Edit", id="review.edit", tooltip="Edit the record (from the app: opens it in the live editor)"),
        Binding("i", "chunk_ids", "Chunk ids", id="review.chunk-ids",
                tooltip="Show the record's answer-bearing chunk ids whole and copy them to the clipboard"),
        *pager_bindings("review"),
    ]

    def __init__(self, project: Project, record_ids: list[str], reviewer: str, *, live_editor: bool = False) -> None:
        """``live_editor``: inside the authoring app, ``e`` closes review with ``("edit", id)``
        so that the app opens the record in its live editor (spans, suggestions); stand-alone
        (``labeller review``) ``e`` edits the record's JSON in place."""
        super().__init__()
        self.live_editor = live_editor
        self.model = self.session = ReviewSession(project, record_ids, reviewer)

    @property
    def reviewer(self) -> str:
        return self.session.reviewer

    def compose(self) -> ComposeResult:
        yield Static(id="rv-head")
        with VerticalScroll(id="rv-body"):
            yield Static(id="rv-record")
        yield KeyBar()

    def on_mount(self) -> None:
        self.reload()

    def reload(self) -> None:
        self.session.reload()
        self.show()

    def show(self) -> None:
        head = Text()
        body = self.query_one("#rv-record", Static)
        model = self.session
        rid = model.record_id
        if rid is None:
            self.query_one("#rv-head", Static).update("no records to review")
            body.update("")
            return
        head.append(f"review {model.index + 1}/{len(model.record_ids)}  ", style="bold")
        head.append_text(plain(f"record {rid}  "))
        q = model.current()
        if q is None:
            head.append("not in questions.jsonl any more", style="bold red")
            self.query_one("#rv-head", Static).update(head)
            body.update("")
            return
        head.append(model.status_label(q), style=STATUS_STYLE[model.status(q)])
        latest = model.latest(rid)
        if latest is not None:
            head.append_text(plain(f"  (last: {latest.decision} by {latest.reviewer} at {latest.timestamp}"
                                   + (f": {latest.comment}" if latest.comment else "") + ")", "dim"))
        head.append_text(plain(f"\nreviewer {model.reviewer}", "dim"))
        if model.load_error:
            head.append_text(plain(f"\n{model.load_error}", "bold red"))
        problems = model.log.problems
        if problems:
            head.append(f"  review log: {problems.total:,} line(s) ignored, first at line {problems[0].line} "
                        "(truncated or invalid; left as it is)", style="yellow")
        self.query_one("#rv-head", Static).update(head)
        body.update(record_view(model.project, q, resolve_record(model.project, q)))
        self.query_one("#rv-body", VerticalScroll).scroll_home(animate=False)

    def _decide(self, decision: str, comment: str = "") -> None:
        try:
            q = self.session.decide(decision, comment)
        except LabellerError as exc:
            self.notify(visible_line(str(exc)), severity="error", markup=False)  # paths may hold "[...]"
            return
        if q is None:
            return
        self.notify(visible_line(f"{q.id}: {decision}"), markup=False)
        self.action_next()

    def action_chunk_ids(self) -> None:
        q = self.session.current()
        if q is None:
            return
        full_ids(self.app, list(resolve_record(self.session.project, q).chunk_ids), f"record {q.id}")

    def action_accept(self) -> None:
        self._decide("accept")

    def action_flag(self) -> None:
        q = self.session.current()
        if q is None:
            return
        self.app.push_screen(CommentScreen(f"Flag record {q.id}: what is wrong?"),
                             self._flag_with)

    def _flag_with(self, comment: str | None) -> None:
        """A flag needs its reason: a cancelled or empty comment records nothing."""
        if comment:
            self._decide("flag", comment)

    def action_edit(self) -> None:
        q = self.session.current()
        if q is None:
            return
        if self.live_editor:
            self.dismiss(("edit", q.id))
            return

        def save(edited: Question) -> None:
            self.session.save_edit(q, edited)

        status = self.session.status(q)
        rows = [("status", Text(f"review {self.index + 1}/{len(self.record_ids)} · ")
                 + Text(self.session.status_label(q), style=STATUS_STYLE[status]))]
        latest = self.session.latest(q.id)
        if latest is not None:
            rows.append(("last", plain(f"{latest.decision} by {latest.reviewer}"
                                             + (f": {latest.comment}" if latest.comment else ""))))
        self.app.push_screen(RecordEditor(f"Edit record {q.id}", q.as_json(), q.id, save,
                                          context=record_summary(q, rows)),
                             self._reload_if_edited)

    def _reload_if_edited(self, edited: Question | None) -> None:
        if edited is not None:
            self.reload()


def open_review(app: AppHost) -> None:
    """Review mode from the authoring app (the same screen as ``labeller review``), most
    urgent records first. Review edits write questions.jsonl directly, so unsaved edits
    must be saved first; afterwards the app reads the file again.

    ``e`` opens the record in the live editor and keeps the queue and the record
    (``session.review_return``): saving it (ctrl+s) or f7 comes back to that record in the
    same queue, where ``a`` accepts it as edited (issue 38: review in place)."""

    session = app.session
    resume = session.review_return
    if session.dirty:
        back = f" returns to {resume[1]} in review" if resume else ""
        app.notify(f"save first (ctrl+s): review edits go straight to questions.jsonl; ctrl+s then{back or ' f7'}",
                   severity="warning")
        return
    try:
        ids = ([i for i in resume[0] if i in session.drafts] if resume
               else review_queue(session.project, session.answers()))
    except LabellerError as exc:
        app.notify(visible_line(str(exc)), severity="error", markup=False)
        return
    if not ids:
        app.notify("nothing to review: press ctrl+n to write a question first", severity="warning")
        return

    def closed(result) -> None:
        session.reload()
        app.refresh_screens()
        app.prepare()
        session.review_return = None
        if isinstance(result, tuple) and result[0] == "edit" and result[1] in session.drafts:
            session.review_return = (ids, result[1])
            app.open_record(result[1])
            app.notify(f"editing {result[1]} from review: ctrl+s saves it and returns to it in review, "
                       "f7 returns to it unedited", timeout=10, markup=False)

    def start(reviewer: str) -> None:
        screen = ReviewScreen(session.project, ids, reviewer, live_editor=True)
        if resume is not None and resume[1] in ids:
            screen.session.index = ids.index(resume[1])
        app.push_screen(screen, closed)

    with_reviewer(app, start)


def with_reviewer(app: AppHost, then: Callable[[str], None]) -> None:
    """Call ``then`` with the reviewer's name: the one chosen earlier in this session, else
    ``$LABELLER_REVIEWER``, else asked in a small input (the login name offered), and
    remembered until the app closes. A name ``check_person`` refuses is asked again."""
    from labeller.app.screens.ask import Ask

    session = app.session
    if session.reviewer is None:
        try:
            session.reviewer = reviewer_from_environment()
        except LabellerError as exc:
            app.notify(visible_line(str(exc)), severity="error", markup=False)
    if session.reviewer is not None:
        then(session.reviewer)
        return

    def answered(name: str | None) -> None:
        if name is None:
            return
        try:
            session.reviewer = checked_reviewer(name)
        except LabellerError as exc:
            app.notify(visible_line(f"{exc}: type another name"), severity="error", markup=False)
            with_reviewer(app, then)
            return
        then(session.reviewer)

    app.push_screen(Ask("Who is reviewing? (written into reviews.jsonl)", "your name", login_name()), answered)
