"""How a refused build is reported: every command that needs a clean build (build, export,
leaks) prints its label errors the same way, with context and the suggested fixes."""

from __future__ import annotations


from labeller.commands.common import console
from labeller.core.build import BuildResult
from labeller.core.project import Project
from labeller.core.resolve import Refusal
from labeller.core.vocab import RefusalKind
from labeller.display import json_dumps, safe_line
from labeller.errors import EXIT_INVALID, EXIT_OK, EXIT_REFUSED

CONTEXT_CHARS = 60


def report_refusals(project: Project, result: BuildResult, fmt: str, what: str, consequence: str,
                    summary: dict | None = None) -> int:
    """Print a refused build's errors (JSON or text) and return its exit code."""
    if fmt == "json":
        report = {"ok": False, "errors": [r.as_json() for r in result.refusals]}
        if summary is not None:
            report["summary"] = summary
        print(json_dumps(report, indent=2, sort_keys=True))
    else:
        print_refusals(project, result.refusals)
        console(stderr=True).print(f"[bold red]{what}:[/] {len(result.refusals)} label error(s); {consequence}")
    return refusals_exit_code(result.refusals)


def refusals_exit_code(refusals: list[Refusal]) -> int:
    """0 when clean; 2 when any refusal is invalid input; otherwise 1 (label errors)."""
    kinds = {r.kind for r in refusals}
    return EXIT_OK if not kinds else EXIT_INVALID if RefusalKind.INVALID in kinds else EXIT_REFUSED


def print_refusals(project: Project, refusals: list[Refusal]) -> None:
    err = console(stderr=True)
    corpus = project.corpus
    for r in refusals:
        err.print(f"[bold red]{r.kind}[/] record [bold]{safe_line(str(r.record_id))}[/]: "
                  f"{safe_line(r.locator.describe())}")
        err.print(f"  {safe_line(r.message)}")
        for occ in r.occurrences:
            doc = corpus[occ["doc"]]
            ctx = doc.text[max(0, occ["char_start"] - CONTEXT_CHARS):occ["char_end"] + CONTEXT_CHARS]
            err.print(f"  at {safe_line(occ['doc'])}:{occ['line']}:{occ['col']}  …{safe_line(ctx)}…")
            if occ["extension"]:
                err.print(f"    unique if lengthened to: [green]{safe_line(occ['extension'])}[/]")
            if occ.get("context"):
                err.print(f"    unique with the context: [green]{safe_line(context_line(occ['context']))}[/]")
        for sug in r.suggestions:
            if "quote" in sug and "score" not in sug:  # the quote itself, in another context
                err.print(f"  occurs {safe_line(sug['where'])} with the context: "
                          f"[yellow]{safe_line(context_line(sug) or 'none (drop prefix and suffix)')}[/]")
            elif "quote" in sug:
                flag = "" if sug["unique"] else " (not unique)"
                err.print(f"  nearest passage {safe_line(sug['where'])} ({sug['score']}){flag}: "
                          f"[yellow]{safe_line(sug['quote'])}[/]")
            elif sug.get("heading"):
                err.print(f"  try a section locator: {{\"doc\": \"{safe_line(sug['doc'])}\", "
                          f"\"heading\": \"{safe_line(sug['heading'])}\"}}")


def context_line(ctx: dict) -> str:
    """A context as the locator fields to add: ``"prefix": "…", "suffix": "…"``."""
    return ", ".join(f"{json_dumps(k)}: {json_dumps(ctx[k])}" for k in ("prefix", "suffix")
                     if k in ctx)
