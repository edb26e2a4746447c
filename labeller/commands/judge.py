"""``labeller judge``: record verdicts on pooled chunks in golden/judgments.jsonl, or report
how two judges agree.

``--pool POOL --verdicts FILE --judge NAME`` reads ``{query_id, chunk_id, relevant, note?}``
lines (from a script, or LLM-assisted triage done elsewhere), turns each pooled chunk into a
judgment span (its text as the quote, pinned to its document, with the shortest context
that makes it unique) and records them all or none. ``--promote`` also makes every relevant
one a locator of its question. ``--agreement`` prints Cohen's kappa per pair of judges.
Exit codes: 0 recorded; 1 refused (a passage that no longer resolves to one place);
2 invalid input (a verdict not in the pool, a pool older than the corpus).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pydantic import BaseModel, ConfigDict, StrictBool, StrictStr, ValidationError

from labeller.commands.common import add_format_option, add_project_options, console, project_from
from labeller.core.judgments import Judgment, load_judgments, passage_locator, record_verdicts
from labeller.core.vocab import Place
from labeller.diagnostics import safe_short, shorten
from labeller.display import json_dumps, safe_line
from labeller.errors import EXIT_OK, InvalidInput
from labeller.eval.pooling import POOL_MAX_BYTES, POOL_MAX_LINES, read_pool
from labeller.io import read_jsonl
from labeller.review.judge_agreement import judge_agreement
from labeller.review.reviewers import default_reviewer


class Verdict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    query_id: StrictStr
    chunk_id: StrictStr
    relevant: StrictBool
    note: StrictStr | None = None


def register(sub) -> None:
    p = sub.add_parser("judge",
                       description="Record {query_id, chunk_id, relevant, note?} verdicts on the lines of a pool "
                       "(`labeller pool`) as judgments in golden/judgments.jsonl: spans that survive re-chunking. "
                       "With --agreement, Cohen's kappa between judges who judged the same passages.")
    add_project_options(p)
    p.add_argument("--pool", metavar="POOL.jsonl", help="the pool the verdicts are about")
    p.add_argument("--verdicts", metavar="FILE", help="JSONL, one {query_id, chunk_id, relevant, note?} a line")
    p.add_argument("--judge", help="who judged, recorded on every judgment (default: $LABELLER_REVIEWER, else the "
                   "login name)")
    p.add_argument("--promote", action="store_true",
                   help="also add every relevant verdict's passage as a locator of its question")
    p.add_argument("--agreement", action="store_true", help="report agreement between judges instead")
    add_format_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    project = project_from(args)
    if args.agreement:
        return agreement(project, args.format)
    if not (args.pool and args.verdicts):
        raise InvalidInput("labeller judge needs --pool POOL --verdicts FILE (or --agreement)")
    judge = default_reviewer(args.judge)  # a person's name, checked as the review log checks its reviewers
    pool = {(e.query_id, e.chunk_id): e for e in read_pool(Path(args.pool))}
    questions = {q.id for q in project.load_questions().questions}
    judgments: list[Judgment] = []
    for line, verdict in read_verdicts(Path(args.verdicts)):
        entry = pool.get((verdict.query_id, verdict.chunk_id))
        if entry is None:
            raise InvalidInput(f"chunk {shorten(verdict.chunk_id, 80)!r} of question {shorten(verdict.query_id, 80)!r} "
                               f"is not in the pool {args.pool}", path=args.verdicts, line=line)
        if verdict.query_id not in questions:
            raise InvalidInput(f"no question {shorten(verdict.query_id, 80)!r} in the questions file",
                               path=args.verdicts, line=line)
        if not entry.current(project):
            raise InvalidInput(f"the pool's chunk {entry.chunk_id[:12]} of {entry.doc} is not the corpus text any "
                               "more (the corpus changed since pooling); pool again", path=args.pool)
        loc = passage_locator(project, Place(entry.doc, entry.start, entry.end))
        judgments.append(Judgment(query_id=verdict.query_id, doc=entry.doc, quote=loc.quote or "", prefix=loc.prefix,
                                  suffix=loc.suffix, relevant=verdict.relevant, judge=judge, note=verdict.note))
    replaced, promoted = record_verdicts(project, judgments, promoted=args.promote)
    path = project.layout.judgments
    summary = {"recorded": len(judgments), "replaced": replaced,
               "relevant": sum(1 for j in judgments if j.relevant), "promoted": promoted, "judgments": str(path)}
    if args.format == "json":
        sys.stdout.write(json_dumps(summary, indent=2, sort_keys=True) + "\n")
    else:
        console().print(f"recorded {summary['recorded']} judgment(s) ({summary['relevant']} relevant, "
                        f"{summary['replaced']} replacing an earlier verdict of {safe_line(judge)}) in "
                        f"{safe_line(str(path))}" + (f"; promoted {len(promoted)} to locators" if promoted else ""))
    return EXIT_OK


def read_verdicts(path: Path) -> list[tuple[int, Verdict]]:
    """Every verdict with its line; a second verdict on the same pooled chunk is refused (which
    one is meant?), so there are never more verdicts to turn into judgments than pool lines."""
    out = []
    seen: dict[tuple[str, str], int] = {}
    for jl in read_jsonl(path, max_bytes=POOL_MAX_BYTES, what="verdicts file", max_lines=POOL_MAX_LINES):
        if jl.skipped:
            continue
        if jl.error is not None:
            raise jl.refuse()
        try:
            verdict = Verdict.model_validate(jl.value)
        except ValidationError as exc:
            e = exc.errors()[0]
            raise jl.refuse(f"{'.'.join(map(str, e['loc'])) or 'verdict'}: {e['msg']} (a verdict is "
                            "{query_id, chunk_id, relevant, note?})") from None
        key = (verdict.query_id, verdict.chunk_id)
        if key in seen:
            raise jl.refuse(f"chunk {shorten(verdict.chunk_id, 80)!r} of question {shorten(verdict.query_id, 80)!r} "
                            f"has a verdict on line {seen[key]} already; keep one")
        seen[key] = jl.line
        out.append((jl.line, verdict))
    return out


def agreement(project, fmt: str) -> int:
    pairs = judge_agreement(load_judgments(project).judgments)
    if fmt == "json":
        sys.stdout.write(json_dumps({"pairs": pairs}, indent=2, sort_keys=True) + "\n")
        return EXIT_OK
    out = console()
    if not pairs:
        out.print("no two judges judged the same passage")
    for p in pairs:
        kappa = "undefined (one side decided one way only)" if p["kappa"] is None else f"{p['kappa']:.3f}"
        # a committed judge name is anyone's text: cut, as the review log's names are bounded
        out.print(f"{safe_short(p['judges'][0], 100)} vs {safe_short(p['judges'][1], 100)}: {p['items']} passage(s) "
                  f"both judged, observed agreement {p['observed']:.3f}, Cohen's kappa {kappa}")
    return EXIT_OK
