"""Judging a pool in review mode: each pooled chunk beside the question and its labels.

The judge's question is "does this passage also answer the query?", so the screen shows the
query, the expected answer, the labelled spans (what the author found), and the candidate
chunk with any characters it shares with a label marked. ``r`` relevant, ``x`` not relevant,
``s`` skip, ``P`` relevant and promoted to a locator of the question; the head shows the
progress. Each verdict is written at once (``PoolSession``), so closing and reopening with
the same pool and judge resumes at the first passage left. ``labeller review --pool`` runs it.
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from labeller.app.screens.records import RecordPager, pager_bindings
from labeller.app.session.judging import PoolSession
from labeller.app.widgets.key_bar import KeyBar
from labeller.app.widgets.record_view import plain
from labeller.core.project import Project
from labeller.errors import LabellerError

SHOWN_CHARS = 1200  # of a labelled span: enough to read it, short enough to leave room for the candidate


class PoolScreen(RecordPager):
    """One judge's pass over a pool file (held and written by its ``PoolSession``)."""

    DEFAULT_CSS = """
    PoolScreen #pl-head { height: auto; padding: 0 1; background: $boost; }
    PoolScreen #pl-body { height: 1fr; padding: 0 1; }
    """
    BINDINGS = [
        Binding("r", "relevant", "Relevant", id="pool.relevant"),
        Binding("x", "not_relevant", "Not relevant", id="pool.not_relevant"),
        Binding("s", "skip", "Skip", id="pool.skip"),
        Binding("P", "promote", "Promote", id="pool.promote",
                tooltip="Relevant, and add the passage as a locator of the question"),
        *pager_bindings("pool"),
    ]

    def __init__(self, project: Project, pool: Path, judge: str) -> None:
        super().__init__()
        self.model = self.session = PoolSession(project, pool, judge)

    def compose(self) -> ComposeResult:
        yield Static(id="pl-head")
        with VerticalScroll(id="pl-body"):
            yield Static(id="pl-entry")
        yield KeyBar()

    def on_mount(self) -> None:
        try:
            self.session.load()
        except LabellerError as exc:
            self.notify(str(exc), severity="error")
        self.show()

    def show(self) -> None:
        model = self.session
        e = model.current()
        head = self.query_one("#pl-head", Static)
        body = self.query_one("#pl-entry", Static)
        if e is None:
            head.update("the pool is empty: nothing to judge")
            body.update("")
            return
        total = len(model.entries)
        line = Text()
        line.append(f"pool {model.index + 1}/{total}  judged {model.done}/{total}  ", style="bold")
        verdict = model.verdicts.get(model.index)
        if verdict is not None:
            line.append("relevant" if verdict else "not relevant", style="green" if verdict else "yellow")
        else:
            line.append("not judged", style="dim")
        line.append_text(plain(f"\njudge {model.judge}", "dim"))
        head.update(line)
        out = Text()
        q = model.question()
        out.append_text(plain(f"question {e.query_id}", "bold"))
        if q is None:
            out.append("  not in questions.jsonl any more", style="bold red")
        else:
            out.append_text(plain(f"\n{q.query}\n", "bold"))
            if q.expected_answer:
                out.append_text(plain(f"expected: {q.expected_answer}\n", "italic"))
        spans = model.labelled_spans()
        out.append(f"\nlabelled ({len(spans)} span{'s' * (len(spans) != 1)}):\n", style="bold")
        for s in spans:
            text = model.project.corpus[s.doc_id].text[s.start:s.end]
            shown = text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "…"
            out.append_text(plain(f"{s.doc_id} [{s.start}, {s.end})\n", "dim"))
            out.append_text(plain(shown.rstrip("\n") + "\n", "cyan"))
        out.append_text(plain(f"\ncandidate: {e.doc} [{e.start}, {e.end})  best rank {e.best_rank}  "
                              f"from {', '.join(e.systems)}\n", "bold"))
        candidate = plain(e.text)
        for s in spans:  # characters the candidate shares with a label
            if s.doc_id == e.doc and s.start < e.end and e.start < s.end:
                candidate.stylize("reverse", max(s.start, e.start) - e.start, min(s.end, e.end) - e.start)
        out.append_text(candidate)
        body.update(out)
        self.query_one("#pl-body", VerticalScroll).scroll_home(animate=False)

    def _decide(self, relevant: bool, promote: bool = False) -> None:
        try:
            j = self.session.decide(relevant, promote=promote)
        except LabellerError as exc:
            self.notify(str(exc), severity="error")
            return
        self.notify(f"{j.query_id}: {'relevant' if relevant else 'not relevant'}" + (", promoted" if promote else ""))
        self.show()

    def action_relevant(self) -> None:
        self._decide(True)

    def action_not_relevant(self) -> None:
        self._decide(False)

    def action_promote(self) -> None:
        self._decide(True, promote=True)

    def action_skip(self) -> None:
        self.session.skip()
        self.show()
