"""Review mode: step through records, see every label in its context, accept / flag / edit.

The reviewer's question is "does this span really answer this query, and is it all of
the answer?", so each record shows the query, the expected answer and every resolved
span with a few lines around it, its block kind, and where the chunk boundaries fall
(which chunks the build will count as answer-bearing). Decisions go to the append-only
review log; an edit is written to questions.jsonl and leaves the record needing review.

The screen is self-contained (own bindings and CSS), so the main app can push it and
``labeller review`` can run it alone through ``labeller.app.review_app.ScreenApp``.
"""

from __future__ import annotations

import getpass
import json
import os
from typing import TYPE_CHECKING, Callable

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Input, Static

from labeller.app.screens.host import AppHost
from labeller.app.widgets.fields import SafeInput
from labeller.app.widgets.fields_area import SafeTextArea
from labeller.app.widgets.key_bar import KeyBar
from labeller.core.build import RecordResult, resolve_record
from labeller.core.models import Question
from labeller.core.project import Project
from labeller.core.resolve import Refusal, Span
from labeller.display import json_dumps, safe
from labeller.errors import LabellerError
from labeller.review.adjudicate import apply_edit, validated
from labeller.review.log import STATUS_LABELS, ReviewLog, append_review, new_entry, read_review_log

CONTEXT_LINES = 2
MAX_SPAN_LINES = 40  # longer spans (whole sections) show their first and last lines only
HEAD_LINES, TAIL_LINES = 16, 8
STATUS_STYLE = {"reviewed": "bold green", "needs_rereview": "bold yellow", "flagged": "bold red",
                "unreviewed": "dim"}


def plain(text: str, style: str = "") -> Text:
    """Untrusted text as a Rich Text: control characters visible, no markup or emoji codes."""
    return Text.from_markup(safe(text), style=style, emoji=False, end="")


# -- rendering a span in its document ---------------------------------------------------------


def _marker_line(doc, pos: int) -> int:
    """The line a boundary at ``pos`` is drawn above (one past the last line at the end)."""
    if pos >= len(doc.text):
        return len(doc.line_starts)
    line = doc.line_of(pos)
    return line if doc.line_starts[line] == pos else line + 1


def span_view(project: Project, span: Span, title: str, note: str = "") -> Text:
    """The span with context lines, its block kind, and the chunk boundaries around it.

    Chunk starts and ends are drawn as ruler lines; chunks that hit the span under the
    build's hit rule are named in the header, since those are the ids the artifact gets.
    """
    doc = project.corpus[span.doc_id]
    starts = doc.line_starts
    first, last = doc.line_of(span.start), doc.line_of(max(span.start, span.end - 1))
    lo, hi = max(0, first - CONTEXT_LINES), min(len(starts) - 1, last + CONTEXT_LINES)
    window = (starts[lo], doc.line_end(hi))
    chunks = [c for c in project.resolver.chunks_of(span.doc_id) if c.start < window[1] and window[0] < c.end]
    rule = project.hit_rule
    hits = {c.chunk_id for c in chunks if rule.chunk_hits((c.start, c.end), (span.start, span.end))}
    hidden = range(first + HEAD_LINES, last - TAIL_LINES + 1) if last - first + 1 > MAX_SPAN_LINES else range(0)

    out = Text()
    out.append(f"{title} ", style="bold")
    out.append(f"{span.block} ", style="bold magenta")
    out.append_text(plain(f"{span.doc_id}:{first + 1}-{last + 1}", "cyan"))
    out.append(f"  [{span.start}, {span.end})  {span.end - span.start} chars", style="dim")
    hit_ords = ", ".join(f"#{c.ordinal}" for c in chunks if c.chunk_id in hits)
    out.append(f"  answer-bearing: {hit_ords or 'none'} ({rule.name})")
    if note:
        out.append(f"  {note}", style="italic")
    out.append("\n")

    markers: dict[int, list[Text]] = {}
    for c in chunks:
        mark = "cyan bold" if c.chunk_id in hits else "cyan dim"
        head = f"┌─ chunk #{c.ordinal} {c.chunk_id[:8]} [{c.start}, {c.end})"
        if c.start < window[0]:
            markers.setdefault(lo, []).append(Text(f"      ┆  … inside chunk #{c.ordinal} {c.chunk_id[:8]} "
                                                   f"[{c.start}, {c.end})", style=mark))
        else:
            markers.setdefault(_marker_line(doc, c.start), []).append(
                Text(f"      {head}  ", style=mark) + plain(c.heading_path, mark))
        if c.end <= window[1]:
            markers.setdefault(_marker_line(doc, c.end), []).insert(0, Text(f"      └─ end of chunk #{c.ordinal}",
                                                                           style=mark))
        else:
            markers.setdefault(hi + 1, []).append(Text(f"      ┆  chunk #{c.ordinal} continues …", style=mark))

    for k in range(lo, hi + 2):
        for m in markers.get(k, []):
            out.append_text(m)
            out.append("\n")
        if k > hi or k in hidden:
            if hidden and k == hidden.start:
                out.append(f"      ┆  … {len(hidden)} lines of the span not shown …\n", style="dim italic")
            continue
        ls, le = starts[k], doc.line_end(k)
        body = doc.text[ls:le].rstrip("\n")
        in_span = ls < span.end and span.start < le
        out.append(f"{k + 1:>5} ", style="dim")
        out.append("▌" if in_span else " ", style="bold green")
        out.append(" ")
        cuts = sorted({0, len(body), *(max(0, min(len(body), p - ls))
                                       for p in (span.start, span.end, span.quote_start, span.quote_end))})
        for a, b in zip(cuts, cuts[1:]):
            pos = ls + a
            style = "dim"
            if span.start <= pos < span.end:
                style = "bold"
                if span.quote_start <= pos < span.quote_end and span.block != "exact":
                    style = "bold underline yellow"  # the quote the block was expanded from
            out.append_text(plain(body[a:b], style))
        out.append("\n")
    return out


def refusal_view(r: Refusal) -> Text:
    """Why a locator does not resolve, with the occurrences or nearest passages to fix it."""
    out = Text(f"refused ({r.kind}): ", style="bold red")
    out.append_text(plain(f"{r.locator.describe()}: {r.message}\n"))
    for occ in r.occurrences:
        out.append_text(plain(f"  at {occ['doc']}:{occ['line']}:{occ['col']}", "cyan"))
        if occ.get("extension"):
            out.append_text(plain(f"  unique as: {occ['extension']}", "green"))
        out.append("\n")
    for sug in r.suggestions:
        if "quote" in sug:
            score = f" ({sug['score']})" if "score" in sug else ""
            out.append_text(plain(f"  nearest {sug['where']}{score}: {sug['quote']}\n", "yellow"))
        elif sug.get("heading"):
            out.append_text(plain(f"  try the section: doc {sug['doc']}, heading {sug['heading']}\n", "yellow"))
    return out


def record_view(project: Project, q: Question, result: RecordResult, *, show_labels: bool = True) -> Group:
    """Query, expected answer, facts, then every span (or refusal) of the record."""
    facts = Text()
    facts.append("query     ", style="bold")
    facts.append_text(plain(q.query, "bold"))
    facts.append("\nexpected  ", style="bold")
    facts.append_text(plain(q.expected_answer or "(none)"))
    bits = [f"hop {q.hop}", f"split {q.split or '-'}", "tags " + (", ".join(q.tags) or "-")]
    if q.unanswerable:
        bits.append("unanswerable (negative: no spans by design)")
    facts.append_text(plain("\n" + "  ·  ".join(bits) + "\n", "dim"))  # tags are the record's text
    parts: list = [facts]
    if show_labels:
        for i, span in enumerate(result.spans, start=1):
            parts.append(span_view(project, span, f"span {i}/{len(result.spans)}"))
        parts.extend(refusal_view(r) for r in result.refusals)
    return Group(*parts)


# -- small modal dialogs shared by the review screens -----------------------------------------


class CommentScreen(ModalScreen[str | None]):
    """Ask for the comment a flag needs (Enter to flag, Escape to cancel)."""

    DEFAULT_CSS = """
    CommentScreen { align: center middle; }
    CommentScreen > Vertical { width: 80; height: auto; border: thick $warning; background: $surface; padding: 1 2; }
    CommentScreen #cm-error { color: $error; height: auto; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, prompt: str) -> None:
        super().__init__()
        self.prompt = prompt

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(plain(self.prompt))
            yield SafeInput(placeholder="what is wrong with this label?", id="cm-input")
            yield Static("", id="cm-error")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        comment = self.query_one("#cm-input", SafeInput).raw
        if not comment.strip():
            self.query_one("#cm-error", Static).update("a flag needs a comment")
            return
        self.dismiss(comment.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)


class RecordEditor(ModalScreen[Question | None]):
    """Edit one record as JSON (query, expected answer, locators ...); Ctrl+S saves.

    ``save_record`` does the writing and raises ``LabellerError`` to refuse; the message is
    shown and the editor stays open, so nothing half-valid is ever written.
    """

    DEFAULT_CSS = """
    RecordEditor { align: center middle; }
    RecordEditor > Vertical { width: 90%; height: 90%; border: thick $accent; background: $surface; padding: 0 1; }
    RecordEditor #ed-text { height: 1fr; }
    RecordEditor #ed-error { color: $error; height: auto; max-height: 10; }
    """
    BINDINGS = [Binding("ctrl+s", "save", "Save", priority=True, id="record_editor.save"),
                Binding("escape", "cancel", "Cancel", id="record_editor.cancel")]

    def __init__(self, title: str, record: dict, record_id: str, save_record: Callable[[Question], None]) -> None:
        super().__init__()
        self.title_text = title
        self.record = record
        self.record_id = record_id
        self.save_record = save_record

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(plain(self.title_text + "   (Ctrl+S save, Escape cancel; the id cannot change)", "bold"))
            # JSON with C1 controls and bidi overrides escaped too (json escapes C0 itself): the
            # same record, nothing in it acts on the terminal; a pasted one shows as a stand-in
            yield SafeTextArea(json_dumps(self.record, indent=2), id="ed-text", show_line_numbers=True)
            yield Static("", id="ed-error")
            yield KeyBar()

    def action_save(self) -> None:
        error = self.query_one("#ed-error", Static)
        try:
            data = json.loads(self.query_one("#ed-text", SafeTextArea).raw)
        except json.JSONDecodeError as exc:
            error.update(plain(f"malformed JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"))
            return
        try:
            if not isinstance(data, dict):
                raise LabellerError("a record must be a JSON object")
            edited = validated(data, self.record_id)
            self.save_record(edited)
        except LabellerError as exc:
            error.update(plain(str(exc)))
            return
        self.dismiss(edited)

    def action_cancel(self) -> None:
        self.dismiss(None)


# -- the review screen --------------------------------------------------------------------------


class RecordPager(Screen):
    """A screen that walks ``record_ids`` one at a time (review and adjudication share it)."""

    record_ids: list[str]
    index: int

    if TYPE_CHECKING:  # each pager shows its own record
        def show(self) -> None: ...

    def action_next(self) -> None:
        if self.index + 1 < len(self.record_ids):
            self.index += 1
        self.show()

    def action_prev(self) -> None:
        if self.index > 0:
            self.index -= 1
        self.show()

    def action_close(self) -> None:
        self.dismiss(None)


class ReviewScreen(RecordPager):
    """Step through ``record_ids`` and record this reviewer's decisions."""

    DEFAULT_CSS = """
    ReviewScreen #rv-head { height: auto; padding: 0 1; background: $boost; }
    ReviewScreen #rv-body { height: 1fr; padding: 0 1; }
    """
    BINDINGS = [
        Binding("a", "accept", "Accept", id="review.accept"),
        Binding("f", "flag", "Flag", id="review.flag"),
        Binding("e", "edit", "Edit", id="review.edit", tooltip="Edit the record (from the app: opens it in the live editor)"),
        Binding("n,right", "next", "Next", id="review.next"),
        Binding("p,left", "prev", "Prev", id="review.prev"),
        Binding("q,escape", "close", "Close", id="review.close"),
    ]

    def __init__(self, project: Project, record_ids: list[str], reviewer: str, *, live_editor: bool = False) -> None:
        """``live_editor``: inside the authoring app, ``e`` closes review with ``("edit", id)``
        so that the app opens the record in its live editor (spans, suggestions); stand-alone
        (``labeller review``) ``e`` edits the record's JSON in place."""
        super().__init__()
        self.live_editor = live_editor
        self.project = project
        self.record_ids = list(record_ids)
        self.reviewer = reviewer
        self.index = 0
        self.questions: dict[str, Question] = {}
        self.review_log: ReviewLog | None = None
        self.load_error = ""

    def compose(self) -> ComposeResult:
        yield Static(id="rv-head")
        with VerticalScroll(id="rv-body"):
            yield Static(id="rv-record")
        yield KeyBar()

    def on_mount(self) -> None:
        self.reload()

    def reload(self) -> None:
        """Re-read questions and log: another reviewer may be appending to the same log, and
        the author may be saving. A file that cannot be read keeps the last good view on the
        screen, with the reason, rather than ending the session."""
        try:
            self.questions = {q.id: q for q in self.project.load_questions().questions}
            self.review_log = read_review_log(self.project.layout.review_log)
            self.load_error = ""
        except LabellerError as exc:
            self.load_error = str(exc)
            if self.review_log is None:
                self.review_log = ReviewLog(self.project.layout.review_log)
        self.show()

    def current(self) -> Question | None:
        if not self.record_ids:
            return None
        return self.questions.get(self.record_ids[self.index])

    def show(self) -> None:
        head = Text()
        body = self.query_one("#rv-record", Static)
        if not self.record_ids:
            self.query_one("#rv-head", Static).update("no records to review")
            body.update("")
            return
        rid = self.record_ids[self.index]
        head.append(f"review {self.index + 1}/{len(self.record_ids)}  ", style="bold")
        head.append_text(plain(f"record {rid}  "))
        q = self.current()
        if q is None:
            head.append("not in questions.jsonl any more", style="bold red")
            self.query_one("#rv-head", Static).update(head)
            body.update("")
            return
        log = self.review_log
        assert log is not None, "reload() runs on mount and always leaves a review log"
        status = log.status(q)
        head.append(STATUS_LABELS[status], style=STATUS_STYLE[status])
        latest = log.latest(rid)
        if latest is not None:
            head.append_text(plain(f"  (last: {latest.decision} by {latest.reviewer} at {latest.timestamp}"
                                   + (f": {latest.comment}" if latest.comment else "") + ")", "dim"))
        head.append_text(plain(f"\nreviewer {self.reviewer}", "dim"))
        if self.load_error:
            head.append_text(plain(f"\n{self.load_error}", "bold red"))
        problems = log.problems
        if problems:
            head.append(f"  review log: {problems.total:,} line(s) ignored, first at line {problems[0].line} "
                        "(truncated or invalid; left as it is)", style="yellow")
        self.query_one("#rv-head", Static).update(head)
        body.update(record_view(self.project, q, resolve_record(self.project, q)))
        self.query_one("#rv-body", VerticalScroll).scroll_home(animate=False)

    def _decide(self, decision: str, comment: str = "") -> None:
        q = self.current()
        if q is None:
            return
        try:
            append_review(self.project.layout.review_log, new_entry(q, self.reviewer, decision, comment))
        except LabellerError as exc:
            self.notify(str(exc), severity="error")
            return
        self.notify(f"{q.id}: {decision}")
        self.reload()
        self.action_next()

    def action_accept(self) -> None:
        self._decide("accept")

    def action_flag(self) -> None:
        q = self.current()
        if q is None:
            return
        self.app.push_screen(CommentScreen(f"Flag record {q.id}: what is wrong?"),
                             self._flag_with)

    def _flag_with(self, comment: str | None) -> None:
        """A flag needs its reason: a cancelled or empty comment records nothing."""
        if comment:
            self._decide("flag", comment)

    def action_edit(self) -> None:
        q = self.current()
        if q is None:
            return
        if self.live_editor:
            self.dismiss(("edit", q.id))
            return

        def save(edited: Question) -> None:
            apply_edit(self.project, q, edited, self.reviewer)

        self.app.push_screen(RecordEditor(f"Edit record {q.id}", q.as_json(), q.id, save),
                             self._reload_if_edited)

    def _reload_if_edited(self, edited: Question | None) -> None:
        if edited is not None:
            self.reload()


def open_review(app: AppHost) -> None:
    """Review mode from the authoring app (the same screen as ``labeller review``), most
    urgent records first. Review edits write questions.jsonl directly, so unsaved edits
    must be saved first; afterwards the app reads the file again."""
    from labeller.app.widgets.markup import visible_line

    session = app.session
    if session.dirty:
        app.notify("save first (ctrl+s): review edits go straight to questions.jsonl", severity="warning")
        return
    try:
        questions = session.project.load_questions().questions
        ids = read_review_log(session.config.layout.review_log).queue(questions) or [q.id for q in questions]
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
        if isinstance(result, tuple) and result[0] == "edit" and result[1] in session.drafts:
            app.open_record(result[1])

    def start(reviewer: str) -> None:
        app.push_screen(ReviewScreen(session.project, ids, reviewer, live_editor=True), closed)

    with_reviewer(app, start)


def with_reviewer(app: AppHost, then: Callable[[str], None]) -> None:
    """Call ``then`` with the reviewer's name: the one chosen earlier in this session, else
    ``$LABELLER_REVIEWER``, else asked in a small input (the login name offered), and
    remembered until the app closes. A name ``check_person`` refuses is asked again."""
    from labeller.app.screens.ask import Ask
    from labeller.app.widgets.markup import visible_line
    from labeller.review.reviewers import default_reviewer

    session = app.session
    if session.reviewer is None and os.environ.get("LABELLER_REVIEWER"):
        try:
            session.reviewer = default_reviewer(None)
        except LabellerError as exc:
            app.notify(visible_line(str(exc)), severity="error", markup=False)
    if session.reviewer is not None:
        then(session.reviewer)
        return
    try:
        guess = getpass.getuser()
    except (OSError, KeyError):
        guess = ""

    def answered(name: str | None) -> None:
        if name is None:
            return
        try:
            session.reviewer = default_reviewer(name.strip())
        except LabellerError as exc:
            app.notify(visible_line(f"{exc}: type another name"), severity="error", markup=False)
            with_reviewer(app, then)
            return
        then(session.reviewer)

    app.push_screen(Ask("Who is reviewing? (written into reviews.jsonl)", "your name", guess), answered)
