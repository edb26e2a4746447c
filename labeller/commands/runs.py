"""``labeller runs``: the eval run history (DuckDB), with a trend of one metric."""

from __future__ import annotations

import argparse
import re

from rich.table import Table
from rich.text import Text

from labeller.commands.common import add_format_option, add_root_options, config_from, console
from labeller.core.outputs import check_output
from labeller.display import json_dumps, safe_line
from labeller.errors import EXIT_OK, InvalidInput
from labeller.eval.history import list_runs
from labeller.eval.measures import FAMILIES
from labeller.eval.metrics import LEVELS

SPARKS = "▁▂▃▄▅▆▇█"


def register(sub) -> None:
    p = sub.add_parser("runs", help="list past eval runs and the trend of a metric",
                       description="List the runs recorded by `labeller eval` in the run history "
                       "([eval] history, default .labeller/runs.duckdb) with one metric per run and its trend. "
                       "The database is plain DuckDB: query it with SQL for anything else.")
    add_root_options(p)
    p.add_argument("--metric", help="metric to show, e.g. recall@5, mrr@10 (default: recall at the shipped k)")
    p.add_argument("--level", choices=LEVELS, default="chunk", help="chunk or doc level (default chunk)")
    p.add_argument("--limit", type=int, default=20, help="how many of the latest runs (default 20)")
    add_format_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    cfg = config_from(args)
    metric = args.metric or f"recall@{cfg.eval.shipped_k}"
    families = FAMILIES.names()
    if not re.fullmatch(rf"({'|'.join(map(re.escape, families))})@([1-9]\d*)", metric):
        raise InvalidInput(f"--metric must look like recall@5 (one of {', '.join(families)} @ k), got {metric!r}")
    if args.limit < 1:
        raise InvalidInput("--limit must be at least 1")
    path = check_output(cfg, cfg.layout.run_history, "[eval] history")  # DuckDB may write even to read
    rows = list_runs(path, metric, args.level, args.limit)
    if args.format == "json":
        runs = [{**r, "started_at": r["started_at"].isoformat() if r["started_at"] else None} for r in rows]
        print(json_dumps({"history": str(path), "metric": metric, "level": args.level, "runs": runs}, indent=2, sort_keys=True))
        return EXIT_OK
    out = console()
    if not rows:
        out.print(f"no runs recorded yet in {safe_line(str(path))} (run `labeller eval`)")
        return EXIT_OK
    t = Table(title=f"eval runs ({args.level} {metric}, oldest first)", title_justify="left")
    for col in ("run", "started (UTC)", "retriever", "hit rule", "n", metric, "Δ", "leaks"):
        t.add_column(col, justify="right" if col in ("n", metric, "Δ", "leaks") else "left")
    prev: dict[tuple, float] = {}
    for r in rows:
        measure = (r["chunker"], r["max_chars"], r["hit_rule"])
        value = r["value"]
        delta = ""
        if value is not None and measure in prev:
            delta = f"{value - prev[measure]:+.3f}"
        if value is not None:
            prev[measure] = value
        shown = Text("no data", style="dim") if value is None else (
            Text(f"{value:.3f}") + Text(f" {r['ci_low']:.2f}–{r['ci_high']:.2f}", style="dim"))
        retriever = r["retriever"] + (f" {r['analyzer']}" if r["analyzer"] else "")
        t.add_row(safe_line(r["run_id"]), r["started_at"].strftime("%Y-%m-%d %H:%M"), safe_line(retriever),
                  safe_line(r["hit_rule"]),
                  str(r["n_scored"]), shown, delta, str(r["n_findings"]))
    out.print(t)
    latest = rows[-1]
    measure = (latest["chunker"], latest["max_chars"], latest["hit_rule"])
    series = [r["value"] for r in rows if (r["chunker"], r["max_chars"], r["hit_rule"]) == measure
              and r["value"] is not None]
    if series:
        out.print(f"trend of {metric} over the {len(series)} run(s) with {safe_line(str(measure[0]))} max_chars "
                  f"{measure[1]} and hit rule {safe_line(str(measure[2]))} (other settings measure something else): "
                  f"{sparkline(series)} "
                  f"{series[0]:.3f} → {series[-1]:.3f}")
    return EXIT_OK


def sparkline(values: list[float]) -> str:
    """One block character per value, scaled between the series' min and max."""
    lo, hi = min(values), max(values)
    if hi == lo:
        return SPARKS[len(SPARKS) // 2] * len(values)
    return "".join(SPARKS[round((v - lo) / (hi - lo) * (len(SPARKS) - 1))] for v in values)
