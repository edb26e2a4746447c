"""``labeller pool``: the retrieved chunks nobody judged yet, one JSONL line per (question, chunk).

The union of each system's top ``--depth`` for every answerable question (holdout records
stay unseen), minus the chunks a label or a judgment already covers (SPEC §11); the built-in
BM25 when no ``--run`` or ``--retriever`` is given. Judge the lines with ``labeller judge``
or in the app's review mode. Exit 0, or 2 on invalid input (nothing written).
"""

from __future__ import annotations

import argparse
import sys

from labeller.commands.common import add_format_option, add_project_options, console, project_from
from labeller.core.judgments import load_judgments, resolve_judgments
from labeller.core.outputs import check_output
from labeller.display import json_dumps, safe_line
from labeller.errors import EXIT_OK, InvalidInput
from labeller.eval.chunkset import load_chunk_set
from labeller.eval.pooling import build_pool
from labeller.eval.retrievers import make_retriever
from labeller.eval.runner import built_golden_set, select_records
from labeller.config import MAX_K
from labeller.io import atomic_write_text


def register(sub) -> None:
    p = sub.add_parser("pool",
                       description="Pool the systems' top --depth chunks per answerable question (BM25 when no "
                       "--run/--retriever is given), drop those a label or a judgment already covers, and write "
                       "one JSONL line per (question, chunk): {query_id, chunk_id, doc, start, end, text, systems, "
                       "best_rank}. Judge them with `labeller judge` or in the app (review mode).")
    add_project_options(p)
    p.add_argument("--run", action="append", default=[], metavar="FILE",
                   help="a TREC run file to pool (repeat for several)")
    p.add_argument("--retriever", action="append", default=[], metavar="NAME",
                   help="a registered retriever to pool (repeat for several; default bm25 when no --run)")
    p.add_argument("--chunks", help="pool over this chunk file's chunking instead of the project's chunks")
    p.add_argument("--depth", type=int, required=True, metavar="K", help="how deep to pool each system's ranking")
    p.add_argument("--out", dest="pool_out", required=True, metavar="POOL.jsonl", help="where to write the pool")
    add_format_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if not 1 <= args.depth <= MAX_K:
        raise InvalidInput(f"--depth must be between 1 and {MAX_K}, got {args.depth}")
    if "run" in args.retriever:
        raise InvalidInput("pool a run file with --run FILE, not --retriever run")
    project = project_from(args)
    check_output(project.config, args.pool_out, "--out")
    built = built_golden_set(project)
    records = [r for r in select_records(built.records, None, False) if not r.question.unanswerable]
    judgments = resolve_judgments(project, load_judgments(project), [r.question.id for r in built.records])
    chunks = load_chunk_set(project, args.chunks)
    systems = [(f"run:{path}", make_retriever("run", project, chunks=chunks, path=path)) for path in args.run]
    systems += [(name, make_retriever(name, project, chunks=chunks)) for name in args.retriever]
    if not systems:
        systems = [("bm25", make_retriever("bm25", project, chunks=chunks))]
    pool = build_pool(project, records, judgments, chunks, systems, args.depth, project.hit_rule)
    atomic_write_text(args.pool_out, "".join(e.line() + "\n" for e in pool))
    summary = {"out": str(args.pool_out), "entries": len(pool), "questions": len({e.query_id for e in pool}),
               "questions_pooled": len(records), "depth": args.depth, "systems": [name for name, _ in systems],
               "stale_judgments": len(judgments.stale)}
    if args.format == "json":
        sys.stdout.write(json_dumps(summary, indent=2, sort_keys=True) + "\n")
    else:
        console().print(f"pooled {summary['entries']} unjudged chunk(s) of {summary['questions']} of "
                        f"{len(records)} question(s) from {', '.join(safe_line(s) for s in summary['systems'])} "
                        f"at depth {args.depth} → {safe_line(str(args.pool_out))}")
        if judgments.stale:
            console(stderr=True).print(f"[yellow]warning:[/] {len(judgments.stale)} stale judgment(s) were not "
                                       "counted (see `labeller build --check`)")
    return EXIT_OK
