"""Adjudication: the golden labels (A) and a second annotator's (B) side by side.

For each record the two sides disagree on, both sets of spans are shown in context;
spans both sides share are marked, so the eye goes to the difference. The adjudicator
keeps A, keeps B, merges them (union, one locator per span) or writes a new record;
the result goes to questions.jsonl and an ``accept`` to the review log.
"""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Footer, Static

from labeller.app.screens.review import RecordEditor, RecordPager, plain, record_view, refusal_view, span_view
from labeller.core.build import RecordResult
from labeller.core.models import Question
from labeller.core.project import Project
from labeller.errors import LabellerError
from labeller.review.adjudicate import adjudicate, merged_locators, with_new_locators
from labeller.review.agreement import compare_record, resolve_pair
from labeller.review.annotations import Annotations, load_annotations
from labeller.review.log import ReviewLog, read_review_log


def side_view(project: Project, title: str, res: RecordResult, other: RecordResult) -> Group:
    theirs = {(s.doc_id, s.start, s.end) for s in other.spans}
    parts: list = [Text(title, style="bold reverse")]
    if not res.spans and not res.refusals:
        parts.append(Text("no answer (no locators)", style="italic"))
    for i, span in enumerate(res.spans, start=1):
        shared = (span.doc_id, span.start, span.end) in theirs
        parts.append(span_view(project, span, f"span {i}", "same on both sides" if shared else "only on this side"))
    parts.extend(refusal_view(r) for r in res.refusals)
    return Group(*parts)


class AdjudicateScreen(RecordPager):
    DEFAULT_CSS = """
    AdjudicateScreen #ad-head { height: auto; padding: 0 1; background: $boost; }
    AdjudicateScreen #ad-record { height: auto; padding: 0 1; }
    AdjudicateScreen #ad-sides { height: 1fr; }
    AdjudicateScreen .ad-side { width: 1fr; padding: 0 1; border-right: vkey $panel; }
    """
    BINDINGS = [
        Binding("a,1", "keep_a", "Keep A"),
        Binding("b,2", "keep_b", "Keep B"),
        Binding("m", "merge", "Merge"),
        Binding("w", "write_new", "Write new"),
        Binding("n,right", "next", "Next"),
        Binding("p,left", "prev", "Prev"),
        Binding("q,escape", "close", "Close"),
    ]

    def __init__(self, project: Project, annotator: str, adjudicator: str, record_ids: list[str]) -> None:
        super().__init__()
        self.project = project
        self.annotator = annotator
        self.adjudicator = adjudicator
        self.record_ids = list(record_ids)
        self.index = 0
        self.questions: dict[str, Question] = {}
        self.annotations: Annotations | None = None
        self.review_log: ReviewLog | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="ad-head")
        yield Static(id="ad-record")
        with Horizontal(id="ad-sides"):
            with VerticalScroll(classes="ad-side"):
                yield Static(id="ad-a")
            with VerticalScroll(classes="ad-side"):
                yield Static(id="ad-b")
        yield Footer()

    def on_mount(self) -> None:
        self.reload()

    def reload(self) -> None:
        self.questions = {q.id: q for q in self.project.load_questions().questions}
        self.annotations = load_annotations(self.project.config, self.annotator)
        self.review_log = read_review_log(self.project.layout.review_log)
        self.show()

    def current(self) -> tuple[Question, list] | None:
        if not self.record_ids:
            return None
        q = self.questions.get(self.record_ids[self.index])
        assert self.annotations is not None, "reload() runs on mount and reads the annotations"
        b = self.annotations.get(self.record_ids[self.index])
        return None if q is None or b is None else (q, b)

    def show(self) -> None:
        head = Text()
        cur = self.current()
        if cur is None:
            self.query_one("#ad-head", Static).update("no record to adjudicate here (not in questions.jsonl, or "
                                                      "not annotated)" if self.record_ids else "nothing to adjudicate")
            for wid in ("#ad-record", "#ad-a", "#ad-b"):
                self.query_one(wid, Static).update("")
            return
        q, b = cur
        a_res, b_res = resolve_pair(self.project, q, b)
        head.append(f"adjudicate {self.index + 1}/{len(self.record_ids)}  ", style="bold")
        head.append_text(plain(f"record {q.id}  A = questions.jsonl  B = {self.annotator}  "))
        if not a_res.refusals and not b_res.refusals:
            agr = compare_record(self.project, a_res, b_res)
            f1, kappa, jac = agr.chars.f1, agr.kappa.kappa, agr.chunk_jaccard
            fmt = lambda x: "n/a" if x is None else f"{x:.2f}"  # noqa: E731
            head.append(f"char F1 {fmt(f1)}  kappa {fmt(kappa)}  chunk Jaccard {fmt(jac)}"
                        + ("  identical" if agr.exact_match else ""), style="dim")
        assert self.review_log is not None, "reload() runs on mount and reads the review log"
        latest = self.review_log.latest(q.id)
        if latest is not None and latest.comment.startswith("adjudicated"):
            head.append_text(plain(f"\n{latest.comment} by {latest.reviewer} at {latest.timestamp}", "green"))
        self.query_one("#ad-head", Static).update(head)
        self.query_one("#ad-record", Static).update(record_view(self.project, q, a_res, show_labels=False))
        self.query_one("#ad-a", Static).update(side_view(self.project, " A  questions.jsonl ", a_res, b_res))
        self.query_one("#ad-b", Static).update(side_view(self.project, f" B  {self.annotator} ", b_res, a_res))

    def _decide(self, action: str) -> None:
        cur = self.current()
        if cur is None:
            return
        q, b = cur
        try:
            adjudicate(self.project, q, b, action, self.adjudicator, self.annotator)
        except LabellerError as exc:
            self.notify(str(exc), severity="error", timeout=10)
            return
        self.notify(f"{q.id}: {action.replace('_', ' ')}")
        self.reload()
        self.action_next()

    def action_keep_a(self) -> None:
        self._decide("keep_a")

    def action_keep_b(self) -> None:
        self._decide("keep_b")

    def action_merge(self) -> None:
        self._decide("merge")

    def action_write_new(self) -> None:
        """Open the record editor on the merged record, the usual starting point for a rewrite."""
        cur = self.current()
        if cur is None:
            return
        q, b = cur
        try:
            start = with_new_locators(q, merged_locators(self.project, q.id, list(q.locators), b))
        except LabellerError:
            start = q  # the union is not a valid record (say, too many locators): start from A

        def save(edited: Question) -> None:
            adjudicate(self.project, q, b, "new", self.adjudicator, self.annotator, new=edited)

        self.app.push_screen(RecordEditor(f"New label for {q.id} (starts as A merged with B)", start.as_json(),
                                          q.id, save),
                             self._after_edit)

    def _after_edit(self, edited: Question | None) -> None:
        """A saved new label: re-read, then move on to the next record."""
        if edited is not None:
            self.reload()
            self.action_next()

