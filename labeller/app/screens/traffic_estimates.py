"""The eval tab's Traffic view: the traffic-weighted estimate, per stratum and per tenant (SPEC §14).

What ``labeller eval`` prints after its tables, from the same rows (``eval.present``): the
estimate beside the unweighted mean of the same records, the estimator, the tenants whose
interval lies below the rest's, one row per stratum and tenant, and, for a report of
``eval --subset N``, the records taken per stratum. A run with no record sampled from
traffic says so in words, and how to get one.

At 80 columns nothing is cut: the group column (a stratum or tenant name, from the log) has
a fixed width and a long name wraps within it, its row as tall as it needs; the tables are
as tall as their rows, so the eval screen is the one thing that scrolls (issue 38).
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from labeller.app.widgets.markup import visible_line
from labeller.app.widgets.table import Table
from labeller.eval.present import (SUBSET_COLUMNS, subset_rows, subset_sentence, traffic_columns, traffic_lines,
                                   traffic_rows)
from labeller.eval.report_model import EvalReport

GROUP_WIDTH = 22  # the stratum or tenant column at every width: 80 columns hold the table whole
NO_TRAFFIC = ("no traffic-weighted estimate: none of the scored records was sampled from traffic. "
              "labeller traffic sample LOG --n N --out QUEUE draws them; F10 labels the queue")


class TrafficEstimatesView(Vertical):
    """The Traffic tab: its words, the per-stratum and per-tenant table, the subset's table."""

    DEFAULT_CSS = """
    TrafficEstimatesView { height: auto; }
    #eval-traffic-words { height: auto; padding: 0 1; }
    #eval-traffic, #eval-subset {
        width: auto;
        height: auto;
        max-height: 10000;  /* every row: the eval screen scrolls, not the table */
        max-width: 100%;
        border: round $primary-muted;
    }
    """

    def __init__(self, not_run: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.not_run = not_run

    def compose(self) -> ComposeResult:
        yield Static(self.not_run, id="eval-traffic-words", markup=False)
        yield Table(id="eval-traffic", cursor_type="row", zebra_stripes=True)
        yield Table(id="eval-subset", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        for part in ("#eval-traffic", "#eval-subset"):
            self.query_one(part).display = False  # empty until a run with traffic: the words say so

    def show(self, report: EvalReport) -> None:
        """Fill the view from a finished run's report."""
        t, s = report.traffic, report.subset
        words = [visible_line(line) for line in traffic_lines(t)] if t is not None else [NO_TRAFFIC]
        if s is not None:
            words.append(visible_line(subset_sentence(s)))
        self.query_one("#eval-traffic-words", Static).update("\n".join(words))
        table = self.query_one("#eval-traffic", DataTable)
        table.clear(columns=True)
        if t is not None:
            for i, col in enumerate(traffic_columns(t)):
                table.add_column(col, width=GROUP_WIDTH if i == 1 else None)
            for row in traffic_rows(t):
                style = "bold red" if row.below else ""
                table.add_row(*(Text(visible_line(c), style=style, overflow="fold") for c in row.cells()), height=None)
            table.border_title = f"traffic-weighted {visible_line(t['metric'])} by stratum and tenant"
        table.display = t is not None
        sub = self.query_one("#eval-subset", DataTable)
        sub.clear(columns=True)
        if s is not None:
            for i, col in enumerate(SUBSET_COLUMNS):
                sub.add_column(col, width=GROUP_WIDTH * 2 if i == 0 else None)
            for cells in subset_rows(s):
                sub.add_row(*(Text(visible_line(c), overflow="fold") for c in cells), height=None)
            sub.border_title = "subset: records taken per stratum"
        sub.display = s is not None
