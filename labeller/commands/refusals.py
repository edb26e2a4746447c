"""How a refused build is reported: every command that needs a clean build (build, export,
leaks) prints its label errors the same way, with context and the suggested fixes."""

from __future__ import annotations


from labeller.commands.common import console
from labeller.core.build import BuildResult
from labeller.core.moves import group_line, is_move, move_groups
from labeller.core.project import Project
from labeller.core.resolve import Refusal
from labeller.core.suggest import without_nearest
from labeller.core.vocab import RefusalKind
from labeller.diagnostics import print_bounded, print_with_command, safe_short
from labeller.display import json_dumps
from labeller.errors import EXIT_INVALID, EXIT_OK, EXIT_REFUSED

CONTEXT_CHARS = 60


def report_refusals(project: Project, result: BuildResult, fmt: str, what: str, consequence: str,
                    summary: dict | None = None, extra: dict | None = None) -> int:
    """Print a refused build's errors (JSON or text) and return its exit code; ``extra`` is
    more of the JSON report (the build's warnings)."""
    unhelped = without_nearest(result.refusals)
    if fmt == "json":
        report = {"ok": False, "errors": [r.as_json() for r in result.refusals],
                  "moves": move_groups(result.refusals)} | (extra or {})
        if summary is not None:
            report["summary"] = summary
        if unhelped:
            report["suggestion_budget_reached"] = {"quotes_without_suggestions": unhelped}
        print(json_dumps(report, indent=2, sort_keys=True))
    else:
        print_refusals(project, result.refusals)
        err = console(stderr=True)
        print_moves(result.refusals)
        if unhelped:
            err.print(f"[yellow]note:[/] the build's budget for suggestions was reached: {unhelped} later quote(s) "
                      "not found are reported without nearest passages")
        err.print(f"[bold red]{what}:[/] {len(result.refusals)} label error(s); {consequence}")
    return refusals_exit_code(result.refusals)


def print_moves(refusals: list[Refusal]) -> None:
    """The moved labels grouped per pair of documents (SPEC §13): one line a group."""
    groups = move_groups(refusals)
    if not groups:
        return
    err = console(stderr=True)
    plain, several = sum(g["labels"] for g in groups), sum(g["several"] for g in groups)
    counts = [f"{plain} label(s) whose quote is verbatim in another document"] if plain else []
    counts += [f"{several} whose quote is in another document several times"] if several else []
    err.print(f"[bold yellow]moved:[/] {' and '.join(counts)}:")
    print_bounded(err, (f"  {safe_short(group_line(g))}" for g in groups), len(groups),
                  "groups of moved labels")
    print_with_command(err, "this applies them (only each locator's document changes" + (
        "; a quote held several times is pinned by context where it stood, when its page, the text around it and "
        "its section say which, else left for a person" if several else "") + "):", "labeller repair --moves")


def refusals_exit_code(refusals: list[Refusal]) -> int:
    """0 when clean; 2 when any refusal is invalid input; otherwise 1 (label errors)."""
    kinds = {r.kind for r in refusals}
    return EXIT_OK if not kinds else EXIT_INVALID if RefusalKind.INVALID in kinds else EXIT_REFUSED


def print_refusals(project: Project, refusals: list[Refusal]) -> None:
    """The first ``diagnostics.TEXT_LIMIT`` label errors in full, then how many more there are."""
    err = console(stderr=True)
    print_bounded(err, ("\n".join(refusal_lines(project, r)) for r in refusals), len(refusals), "label errors")


def refusal_lines(project: Project, r: Refusal) -> list[str]:
    """One refusal as Rich lines: what and where, each occurrence with its context, the suggested fixes."""
    corpus = project.corpus
    lines = [f"[bold red]{r.kind}[/] record [bold]{safe_short(str(r.record_id))}[/]: {safe_short(r.locator.describe())}",
             f"  {safe_short(r.message)}"]
    for occ in r.occurrences:
        doc = corpus[occ["doc"]]
        ctx = doc.text[max(0, occ["char_start"] - CONTEXT_CHARS):occ["char_end"] + CONTEXT_CHARS]
        lines.append(f"  at {safe_short(occ['doc'])}:{occ['line']}:{occ['col']}  …{safe_short(ctx)}…")
        if occ["extension"]:
            lines.append(f"    unique if lengthened to: [green]{safe_short(occ['extension'])}[/]")
        if occ.get("context"):
            lines.append(f"    unique with the context: [green]{safe_short(context_line(occ['context']))}[/]")
    for sug in r.suggestions:
        if is_move(sug):
            renamed = f" (renamed, paired by {sug['paired_by']})" if sug.get("paired_by") else ""
            lines.append(f"  [green]moved[/] {safe_short(sug['from'])} → {safe_short(sug['where'])}{renamed}: "
                         "the locator unchanged but its doc")
        elif "quote" in sug and "score" not in sug:  # the quote itself, in another context
            lines.append(f"  occurs {safe_short(sug['where'])} with the context: "
                         f"[yellow]{safe_short(context_line(sug) or 'none (drop prefix and suffix)')}[/]")
        elif "quote" in sug:
            flag = "" if sug["unique"] else " (not unique)"
            lines.append(f"  nearest passage {safe_short(sug['where'])} ({sug['score']}){flag}: "
                         f"[yellow]{safe_short(sug['quote'])}[/]")
        elif sug.get("heading") and "score" in sug:
            flag = "" if sug["unique"] else " (not unique)"
            lines.append(f"  nearest heading {safe_short(sug['where'])} ({sug['score']}){flag}: "
                         f"[yellow]{safe_short(sug['heading'])}[/]")
        elif sug.get("heading"):
            lines.append(f"  try a section locator: {{\"doc\": \"{safe_short(sug['doc'])}\", "
                         f"\"heading\": \"{safe_short(sug['heading'])}\"}}")
    return lines


def context_line(ctx: dict) -> str:
    """A context as the locator fields to add: ``"prefix": "…", "suffix": "…"``."""
    return ", ".join(f"{json_dumps(k)}: {json_dumps(ctx[k])}" for k in ("prefix", "suffix")
                     if k in ctx)
