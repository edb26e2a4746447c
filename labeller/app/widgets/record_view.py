"""How a record of the golden set is drawn for review: its query and facts, every span in
its document with the chunk boundaries around it, and every refusal with its fixes.

The review, annotation and adjudication screens all show records this way, so a reviewer
sees the same picture whichever of them is open; the drawing is Rich text and reads only
the project (corpus, chunks, hit rule), never a file.
"""

from __future__ import annotations

from rich.console import Group
from rich.text import Text

from labeller.core.build import RecordResult
from labeller.core.models import Question
from labeller.core.project import Project
from labeller.core.resolve import Refusal, Span
from labeller.display import safe

CONTEXT_LINES = 2
MAX_SPAN_LINES = 40  # longer spans (whole sections) show their first and last lines only
HEAD_LINES, TAIL_LINES = 16, 8
STATUS_STYLE = {"reviewed": "bold green", "needs_rereview": "bold yellow", "flagged": "bold red",
                "unreviewed": "dim"}


def plain(text: str, style: str = "") -> Text:
    """Untrusted text as a Rich Text: control characters visible, no markup or emoji codes."""
    return Text.from_markup(safe(text), style=style, emoji=False, end="")


# -- rendering a span in its document ---------------------------------------------------------


def _marker_line(doc, pos: int) -> int:
    """The line a boundary at ``pos`` is drawn above (one past the last line at the end)."""
    if pos >= len(doc.text):
        return len(doc.line_starts)
    line = doc.line_of(pos)
    return line if doc.line_starts[line] == pos else line + 1


def span_view(project: Project, span: Span, title: str, note: str = "") -> Text:
    """The span with context lines, its block kind, and the chunk boundaries around it.

    Chunk starts and ends are drawn as ruler lines; chunks that hit the span under the
    build's hit rule are named in the header, since those are the ids the artifact gets.
    """
    doc = project.corpus[span.doc_id]
    starts = doc.line_starts
    first, last = doc.line_of(span.start), doc.line_of(max(span.start, span.end - 1))
    lo, hi = max(0, first - CONTEXT_LINES), min(len(starts) - 1, last + CONTEXT_LINES)
    window = (starts[lo], doc.line_end(hi))
    chunks = [c for c in project.resolver.chunks_of(span.doc_id) if c.start < window[1] and window[0] < c.end]
    rule = project.hit_rule
    hits = {c.chunk_id for c in chunks if rule.chunk_hits((c.start, c.end), (span.start, span.end))}
    hidden = range(first + HEAD_LINES, last - TAIL_LINES + 1) if last - first + 1 > MAX_SPAN_LINES else range(0)

    out = Text()
    out.append(f"{title} ", style="bold")
    out.append(f"{span.block} ", style="bold magenta")
    out.append_text(plain(f"{span.doc_id}:{first + 1}-{last + 1}", "cyan"))
    out.append(f"  [{span.start}, {span.end})  {span.end - span.start} chars", style="dim")
    hit_ords = ", ".join(f"#{c.ordinal}" for c in chunks if c.chunk_id in hits)
    out.append(f"  answer-bearing: {hit_ords or 'none'} ({rule.name})")
    if note:
        out.append(f"  {note}", style="italic")
    out.append("\n")

    markers: dict[int, list[Text]] = {}
    for c in chunks:
        mark = "cyan bold" if c.chunk_id in hits else "cyan dim"
        head = f"┌─ chunk #{c.ordinal} {c.chunk_id[:8]} [{c.start}, {c.end})"
        if c.start < window[0]:
            markers.setdefault(lo, []).append(Text(f"      ┆  … inside chunk #{c.ordinal} {c.chunk_id[:8]} "
                                                   f"[{c.start}, {c.end})", style=mark))
        else:
            markers.setdefault(_marker_line(doc, c.start), []).append(
                Text(f"      {head}  ", style=mark) + plain(c.heading_path, mark))
        if c.end <= window[1]:
            markers.setdefault(_marker_line(doc, c.end), []).insert(0, Text(f"      └─ end of chunk #{c.ordinal}",
                                                                           style=mark))
        else:
            markers.setdefault(hi + 1, []).append(Text(f"      ┆  chunk #{c.ordinal} continues …", style=mark))

    for k in range(lo, hi + 2):
        for m in markers.get(k, []):
            out.append_text(m)
            out.append("\n")
        if k > hi or k in hidden:
            if hidden and k == hidden.start:
                out.append(f"      ┆  … {len(hidden)} lines of the span not shown …\n", style="dim italic")
            continue
        ls, le = starts[k], doc.line_end(k)
        body = doc.text[ls:le].rstrip("\n")
        in_span = ls < span.end and span.start < le
        out.append(f"{k + 1:>5} ", style="dim")
        out.append("▌" if in_span else " ", style="bold green")
        out.append(" ")
        cuts = sorted({0, len(body), *(max(0, min(len(body), p - ls))
                                       for p in (span.start, span.end, span.quote_start, span.quote_end))})
        for a, b in zip(cuts, cuts[1:]):
            pos = ls + a
            style = "dim"
            if span.start <= pos < span.end:
                style = "bold"
                if span.quote_start <= pos < span.quote_end and span.block != "exact":
                    style = "bold underline yellow"  # the quote the block was expanded from
            out.append_text(plain(body[a:b], style))
        out.append("\n")
    return out


def refusal_view(r: Refusal) -> Text:
    """Why a locator does not resolve, with the occurrences or nearest passages to fix it."""
    out = Text(f"refused ({r.kind}): ", style="bold red")
    out.append_text(plain(f"{r.locator.describe()}: {r.message}\n"))
    for occ in r.occurrences:
        out.append_text(plain(f"  at {occ['doc']}:{occ['line']}:{occ['col']}", "cyan"))
        if occ.get("extension"):
            out.append_text(plain(f"  unique as: {occ['extension']}", "green"))
        out.append("\n")
    for sug in r.suggestions:
        if "quote" in sug:
            score = f" ({sug['score']})" if "score" in sug else ""
            out.append_text(plain(f"  nearest {sug['where']}{score}: {sug['quote']}\n", "yellow"))
        elif sug.get("heading"):
            out.append_text(plain(f"  try the section: doc {sug['doc']}, heading {sug['heading']}\n", "yellow"))
    return out


def record_view(project: Project, q: Question, result: RecordResult, *, show_labels: bool = True) -> Group:
    """Query, expected answer, facts, then every span (or refusal) of the record."""
    facts = Text()
    facts.append("query     ", style="bold")
    facts.append_text(plain(q.query, "bold"))
    facts.append("\nexpected  ", style="bold")
    facts.append_text(plain(q.expected_answer or "(none)"))
    bits = [f"hop {q.hop}", f"split {q.split or '-'}", "tags " + (", ".join(q.tags) or "-")]
    if q.unanswerable:
        bits.append("unanswerable (negative: no spans by design)")
    facts.append_text(plain("\n" + "  ·  ".join(bits) + "\n", "dim"))  # tags are the record's text
    parts: list = [facts]
    if show_labels:
        for i, span in enumerate(result.spans, start=1):
            parts.append(span_view(project, span, f"span {i}/{len(result.spans)}"))
        parts.extend(refusal_view(r) for r in result.refusals)
    return Group(*parts)


def side_view(project: Project, title: str, res: RecordResult, other: RecordResult) -> Group:
    theirs = {(s.doc_id, s.start, s.end) for s in other.spans}
    parts: list = [Text(title, style="bold reverse")]
    if not res.spans and not res.refusals:
        parts.append(Text("no answer (no locators)", style="italic"))
    for i, span in enumerate(res.spans, start=1):
        shared = (span.doc_id, span.start, span.end) in theirs
        parts.append(span_view(project, span, f"span {i}", "same on both sides" if shared else "only on this side"))
    parts.extend(refusal_view(r) for r in res.refusals)
    return Group(*parts)
