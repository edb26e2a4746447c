"""``labeller chunkers``: the chunkers a spec can name; ``labeller chunkers compare``: which is better here.

What ``--chunker`` / ``[build] chunker`` accept is the registry, so the listing lists the
registry: each chunker's name, its rule version, its one-line summary (the first line of
its module's docstring) and each parameter with its type and default, which is how a spec
such as ``recursive-v1:size=800,overlap=200`` is written.

``chunkers compare SPEC SPEC ...`` scores each chunking on the golden set with the same
retriever (``labeller.eval.compare``) and prints one column per chunking: a text table, the
``labeller.chunker-comparison.v1`` JSON, or a Markdown table for a pull request, and a plot
of recall against the context budget. Exit 0, or 2 on invalid input.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from labeller.commands.common import (add_format_option, add_project_options, console, placement_line, project_from,
                                      refuse_action_format)
from labeller.core.chunkers import REGISTRY, chunker_class, chunker_spec, get_chunker
from labeller.core.outputs import check_output
from labeller.display import json_dumps, safe_line
from labeller.errors import EXIT_OK
from labeller.eval.compare import FOOTNOTE, budget_plot, compare_chunkers, header, markdown, rows
from labeller.eval.present import unplaced_sentence
from labeller.eval.report import render
from labeller.eval.runner import parse_budgets, parse_ks
from labeller.io import atomic_write_text

STAGES = {"chunk": "chunking", "index": "indexing", "embed": "embedding", "retrieve": "retrieving"}


def register(sub) -> None:
    p = sub.add_parser("chunkers",
                       description="List every chunker a --chunker SPEC can name, its parameters and their "
                       "defaults. A spec is name or name:key=value,... `labeller chunkers compare SPEC SPEC ...` "
                       "compares chunkings on the golden set; its options may also stand before `compare` "
                       "(`chunkers --format json compare A B`).")
    add_format_option(p, "markdown")  # markdown: `compare`'s, here so it may come before `compare`
    add_project_options(p)
    p.set_defaults(func=run)
    actions = p.add_subparsers(dest="action", metavar="compare")
    c = actions.add_parser("compare", help="compare chunkings on the golden set with the same retriever",
                           description="Score each chunking (a chunker SPEC) on the golden set with the same "
                           "retriever (default: BM25 over that chunking): chunk sizes, the precision ceiling "
                           "precision_omega, chars recall/precision/IoU@k, chars recall within equal context "
                           "budgets, chunk-level recall@k (not comparable across chunkings), and paired bootstrap "
                           "intervals of each difference against the first SPEC.")
    c.add_argument("specs", nargs="+", metavar="SPEC",
                   help="chunker specs or chunk files (*.jsonl, SPEC §10), e.g. md-struct-v1 "
                   "recursive-v1:size=800,overlap=200 pipeline.jsonl (the first is the "
                   "baseline)")
    c.add_argument("--budget", action="append", metavar="CHARS",
                   help="context budgets in characters, comma-separated or repeated (default 500,1000,2000,4000,"
                   "8000)")
    c.add_argument("--retriever", default="bm25", help="a registered retriever by name, rebuilt over each "
                   "chunking: bm25 (default), dense, hybrid, rrf:NAME,NAME,... (see labeller eval --help)")
    c.add_argument("--analyzer", help="BM25 analyzer (default [eval] analyzer)")
    c.add_argument("--k", help="k sweep, comma-separated (default [eval] k; the shipped k is always added)")
    add_format_option(c, "markdown", inherited=True)  # `chunkers --format json compare A B` keeps json
    c.add_argument("--plot", metavar="FILE", help="also write the recall-against-budget plot (plain text) here")
    add_project_options(c, inherited=True)
    c.set_defaults(func=run_compare)


def describe(name: str) -> dict:
    chunker = get_chunker(name)  # the rule's own defaults, not a project's
    cls = chunker_class(name)
    doc = (sys.modules[cls.__module__].__doc__ or "").strip().splitlines()
    summary = doc[0].removeprefix(f"{name}:").strip().replace("``", "") if doc else ""
    return {"name": name, "version": chunker.version, "summary": summary, "default_spec": chunker_spec(chunker),
            "parameters": [{"name": k, "type": type(v).__name__, "default": v} for k, v in chunker.settings.items()]}


def run(args: argparse.Namespace) -> int:
    refuse_action_format(args, "chunkers compare", "markdown")
    rows_ = [describe(name) for name in sorted(REGISTRY)]
    if args.format == "json":
        print(json_dumps({"chunkers": rows_}, indent=2, sort_keys=True))
        return EXIT_OK
    out = console()
    for row in rows_:
        params = ", ".join(f"{p['name']}={p['default']} ({p['type']})" for p in row["parameters"]) or "none"
        out.print(f"{safe_line(row['name'])}  {safe_line(row['summary'])}", soft_wrap=True)
        out.print(f"    parameters: {safe_line(params)}", soft_wrap=True)
        out.print(f"    e.g. --chunker {safe_line(row['default_spec'])}", soft_wrap=True)
    return EXIT_OK


def run_compare(args: argparse.Namespace) -> int:
    ks = parse_ks(args.k) if args.k else None
    budgets = parse_budgets(",".join(args.budget)) if args.budget else None
    project = project_from(args)
    if args.plot:
        check_output(project.config, args.plot, "--plot")
    with progress_bar() as progress:
        comparison = compare_chunkers(project, args.specs, ks=ks, budgets=budgets, retriever=args.retriever,
                                      analyzer=args.analyzer, progress=progress)
    data = comparison.data
    plot = budget_plot(data)
    if args.plot:
        atomic_write_text(Path(args.plot), plot or "fewer than two budgets: nothing to plot\n")
    if args.format == "json":
        sys.stdout.write(render(data))
    elif args.format == "markdown":
        sys.stdout.write(markdown(data))
    else:
        print_comparison(data, plot)
    return EXIT_OK


def print_comparison(data: dict, plot: str | None) -> None:
    out = console()
    t = Table(title=f"chunker comparison: {safe_line(header(data))}", title_justify="left")
    t.add_column("")
    for i, e in enumerate(data["chunkings"], 1):
        t.add_column(f"{i} {safe_line(e['name'])}" + (" (baseline)" if i == 1 else ""), justify="right")
    for label, cells in rows(data):
        t.add_row(label, *(Text(v) + (Text("\n" + d, style="bold" if d.endswith("*") else "dim") if d else Text())
                           for v, d in cells))
    out.print(t)
    for e in data["chunkings"]:
        if "located" in e:
            out.print(f"chunks placed, {safe_line(e['name'])}: {placement_line(e['located'])}", soft_wrap=True)
        if "unplaced" in e:
            out.print(f"[yellow]{unplaced_sentence(e['unplaced'], safe_line(e['name']))}; eval --chunks lists "
                      "them[/]", soft_wrap=True)
    out.print(FOOTNOTE, soft_wrap=True)
    unfilled = [(e["name"], b, n) for e in data["chunkings"] for b, n in e["budget_unfilled"].items() if n]
    if unfilled:
        out.print("note: everything retrieved fits within some budgets, so those budget recalls are floors: " +
                  "; ".join(f"{safe_line(name)} @budget {b}: {n} quer{'y' if n == 1 else 'ies'}"
                            for name, b, n in unfilled), soft_wrap=True)
    out.print("verdict:", style="bold")
    for v in data["verdict"]:
        out.print(f"  {safe_line(v['line'])}", soft_wrap=True)
    if plot:
        out.print(Text(plot))


class progress_bar:
    """A rich progress bar on stderr per chunking and stage (only on a terminal)."""

    def __enter__(self):
        self.bar: Progress | None = None
        self.tasks: dict[tuple[int, str], TaskID] = {}
        if sys.stderr.isatty():
            self.bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                TimeElapsedColumn(), console=console(stderr=True), transient=True)
            self.bar.start()
        return self if self.bar is not None else None

    def __call__(self, stage: str, done: int, total: int, position: int, spec: str) -> None:
        bar = self.bar
        if bar is None:
            return
        key = (position, stage)
        if key not in self.tasks:
            self.tasks[key] = bar.add_task(f"{position} {spec}: {STAGES.get(stage, stage)}", total=total)
        bar.update(self.tasks[key], completed=done, total=total)

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.stop()
