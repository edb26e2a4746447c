"""``labeller traffic``: questions from real traffic (SPEC §14, docs/traffic.md).

``labeller traffic sample LOG --n N --out QUEUE`` reads a query log (JSONL, CSV, Parquet) or
an OpenInference trace export, redacts it, folds near-duplicates, and writes a stratified
sample whose every item carries its stratum and inclusion probability. ``labeller traffic
check QUEUE`` reads a queue file (made here or by the warehouse SQL in the docs), checks
every line and summarises its strata; with ``--out`` it writes it again as labeller writes
one, redacted. ``labeller traffic allocate`` is the warehouse's middle step.

Redaction is on unless ``--no-redact`` is given here: there is no ``[traffic]`` key for it,
so a repository cannot switch it off for whoever runs the command.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from rich.table import Table

from labeller.commands.common import add_format_option, add_root_options, config_from, console
from labeller.core.outputs import check_output
from labeller.core.questions import load_questions
from labeller.display import json_dumps, safe_line
from labeller.errors import EXIT_OK, InvalidInput
from labeller.traffic.design import allocate, read_cells
from labeller.traffic.normal import fold_key
from labeller.traffic.queue import read_queue, write_queue
from labeller.traffic.names import REGISTRY as NAME_DETECTORS
from labeller.traffic.readers import FORMATS, ROLES, detect_format, iter_rows
from labeller.traffic.redact import make_redactor
from labeller.traffic.sample import sample

SALT_ENV = "LABELLER_TRAFFIC_SALT"
NAMES_HELP = (f"also remove person names with this detector: {', '.join(NAME_DETECTORS)}, as NAME or "
              "NAME:key=value,... (e.g. list:file=golden/names.txt; default: [traffic] names, none)")
MAX_SAMPLE = 1_000_000


def register(sub) -> None:
    p = sub.add_parser("traffic",
                       description="Questions from real traffic: sample a query log (redacted, folded, stratified "
                                   "by frequency) into a queue file, or check a queue file.")
    actions = p.add_subparsers(dest="action", metavar="sample|check|allocate", required=True)
    s = actions.add_parser("sample", help="draw a stratified sample of a log into a queue file",
                           description="Read LOG (JSONL, CSV or Parquet through DuckDB, or an OpenInference trace "
                           "export with --format-in spans), redact personal data, fold exact and near-duplicate "
                           "queries (frequencies summed), leave out the golden set's queries and their "
                           "near-duplicates, and draw N folded queries stratified by head/torso/tail share of "
                           "traffic (crossed with [traffic] stratify_by), the tail and negative feedback "
                           "over-sampled by [traffic] tail_factor and negative_factor. Each item records its "
                           f"stratum and inclusion probability. log_hash is an HMAC keyed by ${SALT_ENV}.")
    s.add_argument("log", metavar="LOG", type=Path, help="the query log or trace export")
    s.add_argument("--n", type=int, required=True, help="folded queries to draw")
    s.add_argument("--out", dest="queue_out", type=Path, required=True, metavar="QUEUE",
                   help="the queue file to write (JSONL)")
    s.add_argument("--seed", type=int, default=0, help="the draw's seed (default 0)")
    s.add_argument("--format-in", choices=FORMATS, help="the log's format (default: from its suffix)")
    for role in ROLES:
        s.add_argument(f"--{role.replace('_', '-')}", metavar="COLUMN", help=f"the log's {role} column "
                       f"(default: [traffic] {role})")
    s.add_argument("--stratify-by", choices=("tenant", "feedback", "intent"), help="the column crossing the "
                   "frequency strata (default: [traffic] stratify_by)")
    s.add_argument("--no-redact", action="store_true", help="keep personal data as logged (command line only)")
    s.add_argument("--names", metavar="DETECTOR", help=NAMES_HELP)
    add_root_options(s)
    add_format_option(s)
    s.set_defaults(func=run_sample)
    c = actions.add_parser("check", help="check a queue file and summarise its strata",
                           description="Read a traffic queue file (labeller's own, or one a warehouse query wrote), "
                           "check every line, and count its items per stratum, split and tenant.")
    c.add_argument("queue", metavar="QUEUE", type=Path)
    c.add_argument("--out", dest="queue_out", type=Path, metavar="QUEUE_OUT",
                   help="also write it as labeller writes a queue (lines sorted, keys sorted), its texts redacted "
                   "again: a warehouse's file made canonical")
    c.add_argument("--no-redact", action="store_true", help="with --out: keep the texts as they are")
    c.add_argument("--names", metavar="DETECTOR", help="with --out: " + NAMES_HELP)
    add_root_options(c)
    add_format_option(c)
    c.set_defaults(func=run_check)
    a = actions.add_parser("allocate", help="items per stratum for the warehouse query (docs/traffic.md)",
                           description="Read a CSV of strata (cell,units,traffic: the warehouse's first query) and "
                           "print how many folded queries to draw from each, and π, as `sample` would: the "
                           "warehouse's second query reads it back.")
    a.add_argument("cells", metavar="CELLS_CSV", type=Path)
    a.add_argument("--n", type=int, required=True, help="folded queries to draw")
    add_root_options(a)
    a.set_defaults(func=run_allocate)


def run_sample(args: argparse.Namespace) -> int:
    if not 1 <= args.n <= MAX_SAMPLE:
        raise InvalidInput(f"--n must be 1..{MAX_SAMPLE:,}, got {args.n}")
    cfg = config_from(args)
    overrides = {role: getattr(args, role) for role in ROLES if getattr(args, role) is not None}
    if args.stratify_by is not None:
        overrides["stratify_by"] = args.stratify_by
    if args.names is not None:
        overrides["names"] = args.names
    traffic = cfg.traffic.model_copy(update=overrides)
    if traffic.stratify_by is not None and getattr(traffic, traffic.stratify_by) is None:
        raise InvalidInput(f"stratify_by is {traffic.stratify_by!r}, but no column is mapped to it "
                           f"(set [traffic] {traffic.stratify_by} or --{traffic.stratify_by})")
    out = check_output(cfg, args.queue_out, "--out")
    golden = frozenset(fold_key(q.query) for q in load_questions(cfg.questions, cfg.limits).questions) \
        if cfg.questions.exists() else frozenset()
    redactor = None if args.no_redact else make_redactor(names=traffic.names, root=cfg.root)
    salt = os.environ.get(SALT_ENV, "")
    fmt = detect_format(args.log, args.format_in)
    result = sample(iter_rows(args.log, fmt, traffic), n=args.n, seed=args.seed, cfg=traffic, golden_keys=golden,
                    redact=redactor, salt=salt.encode("utf-8"))
    write_queue(out, result.items)
    report = {**result.report, "queue": str(args.queue_out), "log_hash_salted": bool(salt),
              "redaction": "off (--no-redact)" if redactor is None else redactor.report(),
              "person_names": None if redactor is None else traffic.names}
    if not salt:
        print(f"warning: ${SALT_ENV} is not set: log_hash is an unkeyed hash, which a short query's text can be "
              "guessed from; set it to a secret kept with the log", file=sys.stderr)
    if args.format == "json":
        print(json_dumps(report, indent=2, sort_keys=True))
        return EXIT_OK
    _print_sample(report)
    return EXIT_OK


def _print_sample(report: dict) -> None:
    out = console()
    out.print(f"{report['requests']:,} requests, {report['folded_queries']:,} folded queries; "
              f"{report['golden_requests_left_out']:,} requests of golden-set queries left out; "
              f"{report['sampled']:,} drawn into {safe_line(report['queue'])} (seed {report['seed']})")
    t = Table(title="strata", title_justify="left")
    for col in ("stratum", "queries", "traffic", "factor", "drawn", "π"):
        t.add_column(col, justify="left" if col == "stratum" else "right")
    for name, s in report["strata"].items():
        t.add_row(safe_line(name), f"{s['units']:,}", f"{s['traffic_share']:.1%}", f"{s['factor']:g}",
                  f"{s['sampled']:,}", f"{s['pi']:.4g}")
    out.print(t)
    red = report["redaction"]
    out.print("redactions: " + (red if isinstance(red, str) else
                                ", ".join(f"{k} {v:,}" for k, v in red.items() if v) or "none found")
              + ("" if isinstance(red, str) else
                 f"; person names: {safe_line(report['person_names']) if report['person_names'] else 'not looked for'}"))


def run_allocate(args: argparse.Namespace) -> int:
    if not 1 <= args.n <= MAX_SAMPLE:
        raise InvalidInput(f"--n must be 1..{MAX_SAMPLE:,}, got {args.n}")
    t = config_from(args).traffic
    cells = read_cells(args.cells, t.tail_factor, t.negative_factor)
    take = allocate(cells, args.n)
    rows = ["cell,units,sampled,pi"] + [f"{c.name},{c.units},{take[c.name]},{round(take[c.name] / c.units, 12)!r}"
                                        for c in cells]
    print("\n".join(rows))
    return EXIT_OK


def run_check(args: argparse.Namespace) -> int:
    cfg = config_from(args)  # a bad labeller.toml is refused here as everywhere
    out = check_output(cfg, args.queue_out, "--out") if args.queue_out else None
    names = args.names if args.names is not None else cfg.traffic.names
    redactor = None if args.no_redact or out is None else make_redactor(names=names, root=cfg.root)
    items = read_queue(args.queue, redactor)
    if out is not None:
        write_queue(out, items)
    summary: dict[str, Any] = {
        "items": len(items), "strata": dict(sorted(Counter(it.stratum for it in items).items())),
        "splits": dict(sorted(Counter(it.split for it in items).items())),
        "tenants": dict(sorted(Counter(it.tenant or "(none)" for it in items).items())),
        **({"written": str(out), "redaction": redactor.report() if redactor else "off (--no-redact)"} if out else {})}
    if args.format == "json":
        print(json_dumps(summary, indent=2, sort_keys=True))
        return EXIT_OK
    term = console()
    term.print(f"{len(items):,} items, every line valid" + (f"; written to {safe_line(str(out))}" if out else ""))
    for kind in ("strata", "splits", "tenants"):
        term.print(f"{kind}: " + ", ".join(f"{safe_line(k)} {v:,}" for k, v in summary[kind].items()))
    return EXIT_OK
