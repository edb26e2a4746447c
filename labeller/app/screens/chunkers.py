"""The eval tab's Chunkers view: compare chunkings on the golden set (``labeller chunkers compare``).

Choose chunkings (every registered chunker at its defaults, plus the project's own), run
the comparison in a worker with a progress bar, and read its table (one column per
chunking, Δ against the first with ``*`` where the interval excludes zero), its verdict
and the recall-within-a-budget plot; pick a query to see where each chunking cuts its
gold spans. The numbers are ``compare_chunkers``' own; this widget only shows them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Button, DataTable, Input, ProgressBar, SelectionList, Static
from textual_plotext import PlotextPlot

from labeller.app.widgets.fields import SafeInput
from labeller.app.session.chunkings import END, START, chunking_choices, query_rows, span_boundaries
from labeller.app.widgets.markup import fmt, visible
from labeller.app.widgets.table import Table
from labeller.display import safe_line
from labeller.errors import LabellerError

if TYPE_CHECKING:
    from labeller.core.project import Project
    from labeller.eval.compare import Comparison

STAGES = ("chunk", "index", "retrieve")
STAGE_WORDS = {"chunk": "chunking", "index": "indexing", "embed": "embedding", "retrieve": "retrieving"}
MAX_SPAN_CHARS = 1500  # a section-long span is cut here in the boundary view
MARK = {START: "├", END: "┤"}  # box-drawing: every terminal font has them


def _cell(value: str, delta: str) -> Text:
    return Text(value + (f"\n{delta}" if delta else ""), style="bold" if delta.endswith("*") else "")


class ChunkersView(Vertical):
    """Compare chunkings; ``project`` gives the session's current project when asked. As tall as
    its parts: the eval screen around it is what scrolls (issue 38: no scroll box in a scroll box)."""

    DEFAULT_CSS = """
    ChunkersView { height: auto; }
    #chunkers-bar { height: auto; }
    #chunkers-choice { width: 1fr; height: auto; }
    #chunkers-side { width: 1fr; height: auto; padding: 0 1; }
    #chunkers-progress { height: 1; margin-top: 1; }
    #chunkers-status { height: auto; }
    #chunkers-middle { height: auto; }
    #chunkers-table { width: 1fr; height: auto; max-height: 10000; border: round $primary-muted; }
    #chunkers-plot { width: 46; height: 20; }
    #chunkers-verdict, #chunkers-note { height: auto; padding: 0 1; }
    #chunkers-note { color: $text-muted; }
    #chunkers-bottom { height: auto; }
    #chunkers-queries { width: 56; height: auto; max-height: 10000; border: round $primary-muted; }
    #chunkers-spans { width: 1fr; height: auto; padding: 0 1; border: round $primary-muted; }
    """

    def __init__(self, project: Callable[[], Project], shipped_k: int, retriever: Callable[[], str] = lambda: "bm25",
                 **kwargs) -> None:
        super().__init__(**kwargs)
        self.project = project
        self.retriever = retriever  # the eval tab's choice, read when a comparison starts
        self.shipped_k = shipped_k
        self.comparison: Comparison | None = None
        self.added: list[str] = []  # specs typed in, after the listed ones

    def compose(self) -> ComposeResult:
        choices = chunking_choices(self.project())
        with Horizontal(id="chunkers-bar"):
            yield SelectionList[str](*[(spec + ("  (this project's)" if own else ""), spec, own)
                                       for spec, own in choices], id="chunkers-choice")
            with Vertical(id="chunkers-side"):
                yield SafeInput(placeholder="add a spec, e.g. recursive-v1:size=800,overlap=200", id="chunkers-spec")
                yield Button("Compare", id="chunkers-run", variant="primary")
                yield ProgressBar(id="chunkers-progress", show_eta=False)
                yield Static("choose two or more chunkings (the first ticked is the baseline) and press Compare",
                             id="chunkers-status")
        with Horizontal(id="chunkers-middle"):
            yield Table(id="chunkers-table", zebra_stripes=True, cursor_type="row", fixed_columns=1)
            yield PlotextPlot(id="chunkers-plot")
        yield Static("", id="chunkers-verdict")
        yield Static("", id="chunkers-note")
        with Horizontal(id="chunkers-bottom"):
            yield Table(id="chunkers-queries", cursor_type="row", zebra_stripes=True)
            yield Static("pick a query to see each chunking's boundaries over its gold span", id="chunkers-spans")

    def on_mount(self) -> None:
        self.query_one("#chunkers-choice").border_title = "chunkings (chunker specs)"
        self.query_one("#chunkers-table").border_title = "comparison"
        self.query_one("#chunkers-queries").border_title = f"chars recall@{self.shipped_k} by chunking: pick a query"
        self.query_one("#chunkers-spans").border_title = "gold span(s): ├ a chunk starts, ┤ a chunk ends"
        self.query_one(ProgressBar).display = False
        for part in ("#chunkers-middle", "#chunkers-bottom"):  # empty until a comparison: the status says so
            self.query_one(part).display = False

    # -- running --------------------------------------------------------------------------

    def chosen(self) -> list[str]:
        """The ticked specs in list order (the first is the baseline)."""
        ticked = set(self.query_one(SelectionList).selected)
        return [spec for spec in [s for s, _ in chunking_choices(self.project())] + self.added if spec in ticked]

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id != "chunkers-spec":
            return
        event.stop()
        from labeller.core.chunkers import chunker_spec, get_chunker

        status = self.query_one("#chunkers-status", Static)
        try:
            spec = chunker_spec(get_chunker(event.value.strip()))  # the canonical spec, as the comparison names it
        except LabellerError as exc:
            status.update(fmt("[$error]not a chunker spec:[/] $why", why=str(exc)))
            return
        choice = self.query_one(SelectionList)
        if spec not in [s for s, _ in chunking_choices(self.project())] + self.added:
            self.added.append(spec)
            choice.add_option((spec, spec, True))
        choice.select(spec)
        event.input.value = ""
        status.update(fmt("added $spec", spec=spec))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "chunkers-run":
            event.stop()
            self.run_comparison()

    def run_comparison(self) -> None:
        if any(w.group == "chunkers" and w.is_running for w in self.workers):
            return
        specs = self.chosen()
        status = self.query_one("#chunkers-status", Static)
        if len(specs) < 2:
            status.update(fmt("[$warning]tick at least two chunkings to compare[/]"))
            return
        bar = self.query_one(ProgressBar)
        bar.display = True
        bar.update(total=len(specs) * len(STAGES), progress=0)
        status.update(f"comparing {len(specs)} chunkings…")
        project = self.project()
        retriever = self.retriever()
        app = self.app
        last: list = [None]

        def progress(stage: str, done: int, total: int, position: int, spec: str) -> None:
            step = (position, stage, done * 20 // max(total, 1))
            if step != last[0]:  # a few updates per stage reach the UI thread
                last[0] = step
                app.call_from_thread(self._progress, stage, done, total, position, spec, len(specs))

        def work():
            from labeller.eval.compare import compare_chunkers

            try:
                comparison = compare_chunkers(project, specs, retriever=retriever, progress=progress)
            except LabellerError as exc:  # shown, not raised: a golden set that does not build, a bad spec
                app.call_from_thread(self._failed, exc)
                return
            app.call_from_thread(self._finished, comparison)

        self.run_worker(work, thread=True, group="chunkers")

    def _progress(self, stage: str, done: int, total: int, position: int, spec: str, n: int) -> None:
        within = STAGES.index(stage) + done / max(total, 1) if stage in STAGES else 0
        self.query_one(ProgressBar).update(progress=(position - 1) * len(STAGES) + within)
        self.query_one("#chunkers-status", Static).update(
            fmt(f"{position}/{n} $spec: {STAGE_WORDS.get(stage, stage)} {done}/{total}", spec=spec))

    def _failed(self, exc: Exception) -> None:
        self.query_one(ProgressBar).display = False
        self.query_one("#chunkers-status", Static).update(fmt("[$error]comparison failed:[/] $why", why=str(exc)))

    def _finished(self, comparison) -> None:
        from labeller.eval.compare import FOOTNOTE, rows

        self.comparison = comparison
        data = comparison.data
        self.query_one(ProgressBar).display = False
        for part in ("#chunkers-middle", "#chunkers-bottom"):
            self.query_one(part).display = True
        self.show_status()
        table = self.query_one("#chunkers-table", DataTable)
        table.clear(columns=True)
        table.add_column("")
        for i, e in enumerate(data["chunkings"], 1):
            table.add_column(f"{i} {e['name']}" + (" (baseline)" if i == 1 else ""))
        for label, cells in rows(data):
            table.add_row(label, *(_cell(v, d) for v, d in cells), height=2 if any(d for _, d in cells) else 1)
        self.query_one("#chunkers-verdict", Static).update(
            Content("\n").join([fmt("[b]verdict[/b] $line", line=v["line"]) for v in data["verdict"]]))
        self.query_one("#chunkers-note", Static).update(FOOTNOTE)
        self._show_plot(data)
        self._show_queries(comparison)

    # -- showing --------------------------------------------------------------------------

    def show_status(self, age: Sequence[str] = ()) -> None:
        """The comparison's header, after why it is older than the golden set (``age``; empty: current)."""
        from labeller.eval.compare import header

        if self.comparison is None:
            return
        status = fmt("$header", header=header(self.comparison.data))
        if age:
            status = Content.assemble(fmt("[$warning]⚠ older than the golden set: $why; Compare runs it again[/]\n",
                                          why="; ".join(age)), status)
        self.query_one("#chunkers-status", Static).update(status)

    def _show_plot(self, data: dict) -> None:
        budgets = data["config"]["budgets"]
        plot = self.query_one(PlotextPlot)
        plt = plot.plt
        plt.clear_data()
        plt.clear_figure()
        for i, e in enumerate(data["chunkings"], 1):
            ys = [e[f"chars_recall@budget={b}"]["value"] for b in budgets]
            if budgets and all(y is not None for y in ys):
                plt.plot(budgets, ys, marker="braille", label=f"{i} {e['name']}")
        if budgets:
            plt.xscale("log")
            plt.xlabel("context budget (characters)")
            plt.xticks(budgets, [str(b) for b in budgets])
        plt.ylim(0, 1)
        plt.title("chars recall within a budget")
        plot.refresh()

    def _show_queries(self, comparison) -> None:
        table = self.query_one("#chunkers-queries", DataTable)
        table.clear(columns=True)
        table.add_column("id", key="id")
        for i in range(len(comparison.results)):
            table.add_column(str(i + 1), key=f"c{i}")
        table.add_column("query", key="query")
        listed = query_rows(comparison, self.shipped_k)
        for qid, query, values in listed:
            table.add_row(safe_line(qid), *("no data" if v is None else f"{v:.3f}" for v in values),
                          safe_line(query[:80]), key=qid)
        if listed:
            self.show_spans(listed[0][0])  # the cursor starts on the first row

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        qid = event.row_key.value if event.row_key is not None else None
        if event.data_table.id == "chunkers-queries" and self.comparison is not None and qid is not None:
            event.stop()
            self.show_spans(qid)

    def show_spans(self, query_id: str) -> None:
        """Each gold span of the query, once per chunking, with its chunk boundaries marked."""
        blocks = []
        for n, sv in enumerate(span_boundaries(self.project(), self.comparison, query_id), 1):
            blocks.append(fmt(f"[b]$id · gold span {n} · $doc $range[/b]", id=query_id, doc=sv.doc,
                              range=f"[{sv.start}, {sv.end})"))
            for i, row in enumerate(sv.rows, 1):
                found = f"first hit at rank {row.rank}" if row.rank is not None else "[$error]not retrieved[/]"
                blocks.append(fmt(f"[b]{i}[/b] $spec · {row.chunks} chunk(s) over the span · {found}",
                                  spec=row.spec))
                blocks.append(_marked(sv.text, row.marks))
        self.query_one("#chunkers-spans", Static).update(Content("\n").join(blocks))


def _marked(text: str, marks) -> Content:
    """The span's text with each boundary drawn where it falls (cut at MAX_SPAN_CHARS)."""
    shown = text[:MAX_SPAN_CHARS]
    parts: list = []
    at = 0
    for offset, kind in marks:
        if offset > len(shown):
            break
        parts += [visible(shown[at:offset]), (MARK[kind], "bold $accent")]
        at = offset
    parts.append(visible(shown[at:]))
    if len(text) > len(shown):
        parts.append((f" … ({len(text) - len(shown)} more characters)", "dim"))
    return Content.assemble(*parts)
