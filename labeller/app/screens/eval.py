"""The eval tab: run ``labeller eval``'s own evaluation in a worker and read the results.

Recall@k as a curve and as a table with its intervals (chunk and document level), the
character metrics beside them, the per-query table sortable by rank, a drill-down from a
query to its gold spans beside what was retrieved, and the leak report: documents that
quote golden queries, each opening on the quoted text in its document. The eval runs over
the project's own chunks or over a chunk file (SPEC §10, ``labeller eval --chunks``), and
every result says which chunking it was measured on: chunk-level numbers are relative to
it, the character ones are not. The Chunkers tab compares chunkings (``chunkers.py``); the
Traffic tab shows the traffic-weighted estimates (``traffic_estimates.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING, cast

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.color import Color
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import (Button, DataTable, Header, Input, ProgressBar, Select, Static, TabbedContent,
                             TabPane, Tabs)
from textual_plotext import PlotextPlot

from labeller.app.widgets.fields import SafeInput
from labeller.app.screens.base import SessionScreen
from labeller.app.screens.chunkers import ChunkersView
from labeller.app.screens.host import AppHost
from labeller.app.screens.traffic_estimates import TrafficEstimatesView
from labeller.app.session.drilldown import (drill_down, leak_places, record_run, result_age, retriever_choices,
                                           run_eval)
from labeller.app.session.structure import structure_styles
from labeller.app.widgets.key_bar import KeyBar
from labeller.app.widgets.document_view import DocumentView, Mark
from labeller.app.widgets.markup import fmt, visible, visible_line
from labeller.app.widgets.table import Table
from labeller.app.widths import CURVE_COLUMNS
from labeller.display import safe_line
from labeller.errors import LabellerError
from labeller.eval.leaks import CLEAN
from labeller.eval.present import ALL_AT_K, PRECISION_OMEGA, ReportView, interval, scope_note
from labeller.eval.report_model import ChunkingSummary

if TYPE_CHECKING:  # the eval is imported when one runs, not at app start-up
    from labeller.eval.runner import EvalResult

STAGES = {"index": "building the search index", "embed": "embedding chunks", "retrieve": "retrieving"}
SNIPPET_CHARS = 300
MAX_LISTED_REFUSALS = 8  # a refused chunk file's problems listed in the header (the rest counted)


# Every part of the eval a key away (issue 38): (key, part, title, kind, what it holds). A
# table part is the id of the table focused; a tab part ("tab-…") is activated and its first
# focusable widget (or, with none, its tab row) focused.
TAB_KEYS = (
    ("alt+m", "eval-metrics", "Metrics", "table", "recall, precision, MRR, nDCG, all@k and judged@k at each k"),
    ("alt+c", "eval-chars", "Characters", "table", "character recall and precision, comparable across chunkings"),
    ("alt+q", "tab-queries", "Queries", "tab", "each query's first hit rank; enter drills down"),
    ("alt+l", "tab-leaks", "Leaks", "tab", "documents that quote two or more golden queries"),
    ("alt+d", "tab-diagnostics", "Diagnostics", "tab", "the checks the eval read from the golden set"),
    ("alt+k", "tab-chunkers", "Chunkers", "tab", "compare chunkings on the golden set"),
    ("alt+t", "tab-traffic", "Traffic", "tab", "traffic-weighted recall per stratum and tenant, and the subset's strata"),
)
NOT_RUN = "not run yet: ctrl+r runs the eval of questions.jsonl as saved"
CURVE_NOTE = (f"the recall@k curve shows at {CURVE_COLUMNS} columns or wider; its points are the recall@k rows "
              "of the table above")
# the two curves: (level, plotext marker, its glyph in the legend, theme colour, legend words)
CURVES = (("chunk", "braille", "⢕⢕", "accent", "chunk level"),
          ("doc", "dot", "••", "success", "document level"))


def chunking_line(chunking: ChunkingSummary, path: str | None) -> Content:
    """Which chunking a result was measured on (the report's ``chunking`` object)."""
    source = f"chunk file {path}" if path else "this project's chunker"
    mean = "no chunks" if chunking.mean_chars is None else f"mean {chunking.mean_chars:.0f} chars"
    return fmt(f"measured on chunking [b]$name[/b] ($source) · digest {chunking.digest[:12]} · "
               f"{chunking.n_chunks} chunks, $mean · precision_Ω $omega ({PRECISION_OMEGA}) · "
               f"{chunking.unreachable_spans} unreachable span(s) · [dim]{ALL_AT_K}[/dim]",
               name=chunking.name, source=source, mean=mean, omega=interval(chunking.precision_omega))


def refusal_lines(exc: Exception) -> Content:
    """A refused chunk file (or golden set): every listed problem with its file, line and id."""
    details = list(getattr(exc, "details", None) or [])
    lines = [fmt("[$error]refused:[/] $why", why=str(exc))]
    for d in details[:MAX_LISTED_REFUSALS]:
        where = ":".join(str(x) for x in (d.get("path"), d.get("line")) if x is not None)
        chunk = f" (id {d['id']})" if d.get("id") is not None else ""
        lines.append(fmt("  $where$chunk: $message", where=where, chunk=chunk, message=d.get("message", "")))
    if len(details) > MAX_LISTED_REFUSALS:
        lines.append(fmt(f"  … and {len(details) - MAX_LISTED_REFUSALS} more"))
    return Content("\n").join(lines)


class EvalScreen(SessionScreen):
    CSS_PATH = "eval.tcss"
    BINDINGS = [Binding("ctrl+r", "run_eval", "Run eval", show=True, id="eval.run",
                        tooltip="Run the eval of questions.jsonl as saved (the retriever chosen beside *Run eval*: BM25 by "
                        "default; the configured k and hit rule)"),
                Binding("ctrl+o", "open_chunks", "Open chunk file", show=True, id="eval.open_chunks",
                        tooltip="Name a chunk file (SPEC §10 JSONL); enter runs the eval over that chunking"),
                *(Binding(key, f"show_part('{part}')", f"{title} {kind}", show=False, id=f"eval.{part}",
                          tooltip=f"The eval's {title.lower()} {kind}: {what}")
                  for key, part, title, kind, what in TAB_KEYS)]

    DEFAULT_CSS = """
    #eval-chunks { width: 44; }
    #eval-chunking { height: auto; padding: 0 1; }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.result: EvalResult | None = None
        self._summary: Content | str = ""  # the status line of the last run, before its age
        self._sort: tuple[str, bool] = ("rank", True)  # misses and late hits first: what needs a look

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="eval-bar"):
            yield Button("Run eval", id="eval-run", variant="primary")
            yield Select([(n, n) for n in retriever_choices()], value="bm25", allow_blank=False, compact=True,
                         id="eval-retriever", tooltip="the retriever scored (labeller eval --retriever)")
            yield SafeInput(placeholder="chunk file (empty: own chunks)", id="eval-chunks")
            yield ProgressBar(id="eval-progress", show_eta=False)
            yield Static(NOT_RUN, id="eval-status")
        yield Static("", id="eval-chunking")
        with Horizontal(id="eval-top"):
            yield Table(id="eval-metrics", cursor_type="row", zebra_stripes=True)
            with Vertical(id="eval-side"):
                yield PlotextPlot(id="eval-plot")
                yield Static("", id="eval-legend")
                yield Static(CURVE_NOTE, id="eval-curve-note")
                yield Table(id="eval-chars", cursor_type="row", zebra_stripes=True)
        with TabbedContent(id="eval-tabs"):
            with TabPane("Queries", id="tab-queries"):
                yield Static(NOT_RUN, id="eval-queries-empty")
                yield Table(id="eval-queries", cursor_type="row", zebra_stripes=True)
            with TabPane("Leaks", id="tab-leaks"):
                yield Static(NOT_RUN, id="eval-leaks-empty")
                yield Table(id="eval-leaks", cursor_type="row", zebra_stripes=True)
            with TabPane("Diagnostics", id="tab-diagnostics"):
                yield Static(NOT_RUN, id="eval-diagnostics")
            with TabPane("Chunkers", id="tab-chunkers"):
                yield ChunkersView(lambda: self.session.project, self.session.config.eval.shipped_k, id="chunkers",
                                   retriever=self.retriever)
            with TabPane("Traffic", id="tab-traffic"):
                yield TrafficEstimatesView(NOT_RUN, id="traffic-estimates")
        yield KeyBar()

    def on_compose(self) -> None:
        self._curve_class(self.app.size.width)  # before the first frame, as the width class is (base.py)

    def on_resize(self, event: events.Resize) -> None:
        self._curve_class(event.size.width)

    def _curve_class(self, width: int) -> None:
        """``-curve`` on the screen where the recall@k curve fits beside the metrics table
        (``widths.CURVE_COLUMNS``); eval.tcss lays the tables out by it."""
        self.set_class(width >= CURVE_COLUMNS, "-curve")

    def on_mount(self) -> None:
        self.query_one("#eval-metrics", DataTable).add_columns("metric", "chunk level", "document level")
        self.query_one("#eval-metrics").border_title = "chunk level: not comparable across chunkings"
        self.query_one("#eval-chars", DataTable).add_columns("metric", "characters")
        self.query_one("#eval-chars").border_title = "characters: comparable across chunkings"
        queries = self.query_one("#eval-queries", DataTable)
        queries.add_column("id", key="id")
        queries.add_column("first hit rank", key="rank")
        k = self.session.config.eval.shipped_k
        queries.add_column(f"recall@{k}", key="recall")
        queries.add_column(f"mrr@{k}", key="mrr")
        queries.add_column("query", key="query")
        self.query_one("#eval-leaks", DataTable).add_columns("document", "quoted queries (rank in top k)")
        self.query_one("#eval-progress", ProgressBar).display = False
        for part in ("#eval-top", "#eval-queries", "#eval-leaks"):  # empty until a run: its words say so
            self.query_one(part).display = False

    # -- running --------------------------------------------------------------------------

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "eval-run":
            self.action_run_eval()

    def action_open_chunks(self) -> None:
        self.query_one("#eval-tabs", TabbedContent).active = "tab-queries"
        self.query_one("#eval-chunks", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "eval-chunks":
            self.action_run_eval()

    def action_show_part(self, part: str) -> None:
        """Bring one part of the eval into view and give it the keys (``TAB_KEYS``)."""
        tabs = self.query_one("#eval-tabs", TabbedContent)
        if not part.startswith("tab-"):
            if part in ("eval-metrics", "eval-chars") and tabs.active == "tab-chunkers":
                tabs.active = "tab-queries"  # the Chunkers tab hides the single eval's tables
            target = self.query_one(f"#{part}")
            if target.display and self.query_one("#eval-top").display:
                target.focus()
            else:
                self.notify(f"{NOT_RUN}", severity="warning")
            return
        tabs.active = part
        pane = tabs.get_pane(part)
        focusable = [w for w in pane.query("*") if w.focusable and w.display]
        (focusable[0] if focusable else tabs.query_one(Tabs)).focus()
        self.call_after_refresh(pane.scroll_visible, top=True, animate=False)

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        # the Chunkers view compares chunkings of its own: the single eval's chunking line, plot and
        # tables make way (at 80×24 the chunking line alone pushed the Compare button off the screen)
        self.query_one("#eval-chunking").display = event.pane.id != "tab-chunkers"
        self.query_one("#eval-top").display = event.pane.id != "tab-chunkers" and self.result is not None

    def retriever(self) -> str:
        """The retriever chosen in the bar (the Chunkers view compares with it too)."""
        return str(self.query_one("#eval-retriever", Select).value)

    def chunk_file(self):
        """The chunk file named in the field (relative to the project root), or None."""
        typed = self.query_one("#eval-chunks", SafeInput).raw.strip()
        return self.session.config.root / typed if typed else None

    def action_run_eval(self) -> None:
        if any(w.group == "eval" and w.is_running for w in self.workers):
            return
        chunks = self.chunk_file()
        bar = self.query_one("#eval-progress", ProgressBar)
        bar.display = True
        bar.update(total=None, progress=0)
        unsaved = sum(1 for i in self.session.order if self.session.is_dirty(i)) + len(self.session.deleted_ids())
        note = f" ({unsaved} unsaved change(s) are not included)" if unsaved else ""
        self.query_one("#eval-status", Static).update(f"running…{note}")
        project = self.session.project
        retriever = self.retriever()
        app = self.app
        last: list = [None]

        def progress(stage: str, done: int, total: int) -> None:
            step = (stage, done * 100 // max(total, 1))
            if step != last[0]:  # at most a hundred updates per stage reach the UI thread
                last[0] = step
                app.call_from_thread(self._progress, stage, done, total)

        def work():
            try:
                result = run_eval(project, progress, chunks=chunks, retriever=retriever)
            except (LabellerError, OSError) as exc:  # a golden set that does not build, a refused chunk file
                app.call_from_thread(self._failed, exc)
                return
            try:
                recorded = f"recorded in `labeller runs` as {record_run(project, result)}"
            except LabellerError as exc:  # shown, as the CLI's warning: the results stand
                recorded = f"not recorded in the run history: {exc}"
            app.call_from_thread(self._finished, result, note, None if chunks is None else str(chunks), recorded)

        self.run_worker(work, thread=True, group="eval")

    def _progress(self, stage: str, done: int, total: int) -> None:
        self.query_one("#eval-progress", ProgressBar).update(total=total, progress=done)
        self.query_one("#eval-status", Static).update(f"{STAGES.get(stage, stage)} {done}/{total}")

    def _failed(self, exc: Exception) -> None:
        self.query_one("#eval-progress", ProgressBar).display = False
        shown = " (the results below are from the previous run)" if self.result is not None else ""
        self.query_one("#eval-status", Static).update(fmt(f"[$error]eval failed{shown}:[/] $why", why=str(exc)))
        self.query_one("#eval-chunking", Static).update(refusal_lines(exc))

    def _finished(self, result: EvalResult, note: str, path: str | None, recorded: str = "") -> None:
        self.result = result
        self.query_one("#eval-progress", ProgressBar).display = False
        report = ReportView(result.model)
        self.query_one("#eval-chunking", Static).update(chunking_line(report.report.chunking, path))
        fp = report.report.fingerprint
        recs = report.report.config.records
        cfg = report.report.config
        self._summary = fmt(
            f"{recs.scored} queries scored, {recs.negatives} negatives, $scope · hit rule $rule · "
            f"$retriever$note",
            scope=scope_note(cfg.split, cfg.include_holdout), rule=fp.hit_rule, retriever=fp.retriever["name"],
            note=note)
        self._show_status()
        self.notify(visible_line(f"eval finished in {result.seconds:.1f} s; {recorded}"), markup=False,
                    severity="information" if recorded.startswith("recorded") else "warning", timeout=15)
        self.query_one("#eval-top").display = self.query_one("#eval-tabs", TabbedContent).active != "tab-chunkers"
        self._show_plot(report)
        self._show_metrics(report)
        self._show_chars(report)
        self._show_queries(report)
        self._show_leaks(report)
        self._show_diagnostics(report)
        self.query_one(TrafficEstimatesView).show(report.report)

    # -- showing --------------------------------------------------------------------------

    def refresh_from_session(self) -> None:
        if self.is_mounted and self.result is not None:
            self._show_status()
        if self.is_mounted:
            view = self.query_one(ChunkersView)
            if view.comparison is not None:  # its evals are as old as the labels they scored
                view.show_status(result_age(view.comparison.results[0], self.session.questions_to_write(),
                                            self.session.project.corpus.digest))

    def age(self) -> list[str]:
        """Why the shown results are older than the labels or the corpus (empty: current)."""
        if self.result is None:
            return []
        return result_age(self.result, self.session.questions_to_write(), self.session.project.corpus.digest)

    def _show_status(self) -> None:
        why = self.age()
        status = self._summary
        if why:
            status = Content.assemble(fmt("[$warning]⚠ older than the golden set: $why; ctrl+r runs it again[/]\n",
                                          why="; ".join(why)), status)
        self.query_one("#eval-status", Static).update(status)

    def _show_plot(self, report: ReportView) -> None:
        ks = report.ks
        plot = self.query_one(PlotextPlot)
        plt = plot.plt
        plt.clear_data()
        plt.clear_figure()
        legend = []
        # k values are far apart (1 ... 50): plot them at even steps, labelled with their k. The
        # legend is a line under the plot, not plotext's own, which it draws inside the plot's
        # top left corner, over the 1.0 line a good curve reaches (issue 38.10)
        for level, marker, glyph, colour, words in CURVES:
            pts = report.recall_curve(level)
            if pts:
                rgb = Color.parse(self.app.theme_variables[colour])
                plt.plot([i for i, _ in pts], [v for _, v in pts], marker=marker, color=rgb.rgb)
                legend.append(fmt(f"[b {rgb.hex}]{glyph}[/] $words", words=words))
        plt.xticks(list(range(len(ks))), [str(k) for k in ks])
        plt.ylim(0, 1)
        plt.title(f"recall@k ({report.report.fingerprint.hit_rule})")
        plot.refresh()
        self.query_one("#eval-legend", Static).update(Content("   ").join(legend))

    def _show_metrics(self, report: ReportView) -> None:
        table = self.query_one("#eval-metrics", DataTable)
        table.clear()
        for row in report.metric_pairs():
            table.add_row(row.name, row.chunk, row.doc)

    def _show_chars(self, report: ReportView) -> None:
        table = self.query_one("#eval-chars", DataTable)
        table.clear()
        for name, cell in report.chars_pairs():
            table.add_row(name, cell)

    def _show_queries(self, report: ReportView) -> None:
        table = self.query_one("#eval-queries", DataTable)
        table.clear()
        for row in report.query_lines():
            table.add_row(safe_line(row.query_id), "miss" if row.first_rank is None else row.first_rank,
                          row.recall, row.mrr, safe_line(row.query[:100]), key=row.query_id)
        self._apply_sort()
        table.display = bool(table.row_count)
        self.query_one("#eval-queries-empty", Static).update(
            "" if table.row_count else "no query was scored: every record is a negative or in the holdout split")
        self.query_one("#eval-queries-empty").display = not table.row_count

    def _apply_sort(self) -> None:
        column, reverse = self._sort
        table = self.query_one("#eval-queries", DataTable)
        if column == "rank":
            table.sort("rank", key=lambda r: (r == "miss", r if r != "miss" else 0), reverse=reverse)
        else:
            table.sort(column, reverse=reverse)

    def on_data_table_header_selected(self, event: DataTable.HeaderSelected) -> None:
        if event.data_table.id != "eval-queries":
            return
        column = event.column_key.value or ""
        self._sort = (column, not self._sort[1] if self._sort[0] == column else False)
        self._apply_sort()

    def _show_leaks(self, report: ReportView) -> None:
        table = self.query_one("#eval-leaks", DataTable)
        table.clear()
        rows = report.leak_rows()
        for i, (path, quoted) in enumerate(rows):
            table.add_row(safe_line(path), safe_line(quoted), key=str(i))
        self.query_one("#eval-tabs", TabbedContent).get_tab("tab-leaks").label = f"Leaks ({len(rows)})"
        table.display = bool(rows)
        self.query_one("#eval-leaks-empty", Static).update(fmt(f"[$success]clean:[/] {CLEAN}"))
        self.query_one("#eval-leaks-empty").display = not rows

    def _show_diagnostics(self, report: ReportView) -> None:
        lines = [fmt(f"[b]{d.check}[/b] ({d.status}): $reading", reading=d.reading)
                 for d in report.report.diagnostics]
        self.query_one("#eval-diagnostics", Static).update(Content("\n").join(lines) if lines else
                                                           "no diagnostics: the eval raised no check")

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if self.result is None:
            return
        key = event.row_key.value
        if event.data_table.id == "eval-queries":
            assert key is not None, "every query row is keyed by its query id"
            self.app.push_screen(DrillDownScreen(drill_down(self.session.project, self.result, key)))
        elif event.data_table.id == "eval-leaks":
            assert key is not None, "every leak row is keyed by its finding's index"
            finding = self.result.report["findings"][int(key)]
            self.app.push_screen(LeakScreen(finding, leak_places(self.session.project, self.result, finding),
                                            self.age()))


class DrillDownScreen(Screen):
    """One query: its gold spans on the left, what was retrieved on the right."""

    CSS_PATH = "eval.tcss"
    BINDINGS = [Binding("escape", "app.pop_screen", "Back", show=True, id="drilldown.back"),
                Binding("ctrl+e", "edit", "Edit this question", show=True, id="drilldown.edit")]

    def __init__(self, drill, **kwargs) -> None:
        super().__init__(**kwargs)
        self.drill = drill

    def compose(self) -> ComposeResult:
        d = self.drill
        yield Header()
        yield Static(fmt("[b]$id[/b]  $query", id=d.query_id, query=d.query), id="drill-query")
        with Horizontal(id="drill"):
            with VerticalScroll(id="drill-gold"):
                for g in d.gold:
                    where = f"{g.span.doc_id} [{g.span.start}, {g.span.end}) {g.span.block}"
                    found = f"first hit at rank {g.rank}" if g.rank is not None else "[$error]not retrieved[/]"
                    yield Static(fmt(f"[b]gold[/b] $where · {found}", where=where), classes="drill-head")
                    yield Static(Content(visible(g.text.rstrip("\n"))), classes="drill-text")
            with VerticalScroll(id="drill-retrieved"):
                for r in d.retrieved:
                    mark = "[$success]✓ hits gold[/]" if r.hits_gold else "[dim]·[/dim]"
                    yield Static(fmt(f"[b]#{r.rank}[/b]  {r.score:.3f}  {mark}  $where", where=r.chunk.heading_path),
                                 classes="drill-head")
                    yield Static(Content(visible_line(" ".join(r.chunk.text.split()))[:SNIPPET_CHARS]),
                                 classes="drill-text")
        yield KeyBar()

    def on_mount(self) -> None:
        self.sub_title = visible_line(f"{self.drill.query_id}: gold spans vs. the top {len(self.drill.retrieved)}")
        self.query_one("#drill-gold").border_title = "gold span(s)"
        self.query_one("#drill-retrieved").border_title = "retrieved, best first"

    def action_edit(self) -> None:
        self.app.pop_screen()
        cast(AppHost, self.app).open_record(self.drill.query_id)


class LeakScreen(Screen):
    """A document that quotes golden queries, with the quoted text marked."""

    CSS_PATH = ["eval.tcss", "document_view.tcss"]
    BINDINGS = [Binding("escape", "app.pop_screen", "Back", show=True, id="leaks.back")]

    def __init__(self, finding: dict, places: list, age: Sequence[str] = (), **kwargs) -> None:
        super().__init__(**kwargs)
        self.finding = finding
        self.places = places
        self.age = list(age)  # why the eval this finding comes from is older than the golden set

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="leak"):
            yield DocumentView(id="leak-doc")
            with VerticalScroll(id="leak-side"):
                yield Static(Content.from_markup(
                    "This document quotes two or more golden queries. Either it is a note [b]about[/b] the "
                    "evaluation (a leak: it wins the top slot and pushes the labelled answer down), or it is a "
                    "[b]source[/b] the queries were written from (then the golden set lacks a label here)."),
                    id="leak-explain")
                yield Static(fmt("[$warning]⚠ from an eval older than the golden set: $why[/]",
                                 why="; ".join(self.age)) if self.age else "", id="leak-age")
                yield Static("", id="leak-queries")
        yield KeyBar()

    def on_mount(self) -> None:
        session = cast(AppHost, self.app).session
        project = session.project
        path = self.finding["path"]
        view = self.query_one(DocumentView)
        view.show_document(project.corpus[path], partial(structure_styles, project, path),
                           project.chunks.get(path, []))
        marks = [Mark(p.doc_start, p.doc_end, "occurrence") for p in self.places if p.doc_start is not None]
        view.set_marks(marks)
        if marks:
            view.reveal(marks[0].start)
        self.sub_title = visible_line(f"leak report: {path}")
        lines = []
        for q in self.finding["quoted"]:
            rid = q["query_id"]
            query = session.drafts[rid].query if rid in session.drafts else ""
            rank = q["rank_in_top_k"]
            fields = sorted({p.field for p in self.places if p.query_id == rid})
            lines.append(fmt(f"[b]$id[/b] rank {rank if rank is not None else '-'} · in $fields\n  $query",
                             id=rid, fields=", ".join(fields) or "?", query=query))
        self.query_one("#leak-queries", Static).update(Content("\n\n").join(lines))
