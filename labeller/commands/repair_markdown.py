"""``repair --format markdown``: what a repair applied and left, as a pull request's body.

A bot that runs ``labeller repair`` on a reorganised corpus opens a pull request with the
rewritten questions.jsonl; its reviewer needs what the diff does not say: which renamed pages
the moves followed, each edited quote before and after with its score (those are the ones to
read), what was left for a person and where, and that every repaired record reads *changed
since review*. Sized and escaped as ``check_markdown``'s comment is (the ids, quotes and paths
come from the repository): tables of the first ``TEXT_LIMIT`` rows, every cell escaped, the
whole cut to ``COMMENT_CHARS``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from labeller.commands.check_markdown import groups_markdown
from labeller.core.fixes import NEAREST
from labeller.core.models import Locator
from labeller.core.repair import RepairPlan, fix_groups
from labeller.diagnostics import bounded_comment, markdown_table, markdown_text

TITLE = "### labeller repair"
FULL_REPORT = "`labeller repair --format json`"


def counted(kinds: Mapping[str, int]) -> str:
    """``not_found 5, unknown_doc 2``: most first, then by kind."""
    return ", ".join(f"{kind} {n}" for kind, n in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0])))


def left_kinds(plan: RepairPlan) -> str:
    """The refusal kinds of every locator left, ``counted``."""
    return counted(Counter(x.kind for x in plan.left))


def repair_markdown(plan: RepairPlan, written: bool, dry_run: bool, rel: str, groups: list[dict] | None = None) -> str:
    """The body; ``groups``: the plan's moves as ``core.repair.fix_groups`` groups them with the
    build's rename notes (without them when not given)."""
    s = plan.summary()
    verb = "would apply" if dry_run else "applied"
    lines = [f"{TITLE}: {verb} {s['applied']} fix(es) to {s['records']} record(s); {s['left']} refused locator(s) "
             "left", ""]
    if written:
        lines += [f"{markdown_text(rel)} rewritten (only the repaired records' lines). Each repaired record reads "
                  "*changed since review* until someone reads it (`labeller review`); rebuild the golden set with "
                  "`labeller build`.", ""]
    elif dry_run and plan.after:
        lines += ["Dry run: nothing written.", ""]
    elif not plan.fixes and not plan.left:
        lines += ["Every label resolves: nothing to repair.", ""]
    lines += _moved(plan, fix_groups(plan.fixes) if groups is None else groups) + _edited(plan) + _left(plan)
    return bounded_comment("\n".join(lines).rstrip("\n"), FULL_REPORT)


def _moved(plan: RepairPlan, groups: list[dict]) -> list[str]:
    """The moves, grouped (the quote unchanged)."""
    return groups_markdown(groups, f"**Moved** ({plan.summary()['moved']} label(s), the quote unchanged):")


def _edited(plan: RepairPlan) -> list[str]:
    """Each edited quote re-pointed, before and after: a person should read these."""
    fixes = [f for f in plan.fixes if f.kind == NEAREST]
    if not fixes:
        return []
    rows = ([f.record_id, str(f.index + 1), f.old.doc or "", _text(f.old), f.new.doc or "", _text(f.new),
             f"where it stood, {f.score}% kept" if f.at_old_place and f.new.heading is None
             else f"{f.how}, {f.score}"] for f in fixes)
    what = "quotes and headings" if any(f.new.heading is not None for f in fixes) else "quotes"
    return [f"**Edited {what} re-pointed** ({len(fixes)}: read each):", "",
            *markdown_table(("id", "locator", "document", "quote", "now in", "now", "how"), rows, len(fixes),
                            "edited quotes re-pointed"), ""]


def _text(loc: Locator) -> str:
    """A locator's quote, or a section locator's heading (``# title``)."""
    return loc.quote if loc.quote is not None else f"# {loc.heading}" if loc.heading is not None else ""


def _left(plan: RepairPlan) -> list[str]:
    """What is left for a person: where (per document, most first), then each with why."""
    if not plan.left:
        return []
    by_doc = plan.left_by_doc()
    lines = [f"**Left for a person** ({len(plan.left)} locator(s) in {len(by_doc)} document(s): "
             f"{markdown_text(left_kinds(plan))}):", ""]
    if len(plan.left) > 1:
        lines += markdown_table(("document", "left", "kinds"),
                                ([row["doc"] or "(any document)", str(row["left"]), counted(row["kinds"])]
                                 for row in by_doc), len(by_doc), "documents") + [""]
    rows = ([x.record_id, "" if x.index is None else str(x.index + 1), x.kind, x.reason] for x in plan.left)
    return lines + markdown_table(("id", "locator", "kind", "why"), rows, len(plan.left), "locators left") + [""]
