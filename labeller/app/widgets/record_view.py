"""How a record of the golden set is drawn for review: its query and facts, every span in
its document with the chunk boundaries around it, and every refusal with its fixes.

The review, annotation and adjudication screens all show records this way, so a reviewer
sees the same picture whichever of them is open; the drawing is Rich text and reads only
the project (corpus, chunks, hit rule), never a file.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Group
from rich.table import Table
from rich.text import Text

from labeller.app.widgets.chunk_names import chunk_name, short_id
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


def labelled(rows: Iterable[tuple[Text, Text]], gap: int = 2, *, wrap: bool = True) -> Table:
    """Each value beside its label, its wrapped lines hanging under the value's first column
    (a Rich grid: a label column that never wraps, a value column that wraps and folds a
    word too long for it). A long query or quote wrapped back to column 0 ran into the
    labels below it; under its own first column it reads as one field at any width.
    ``wrap=False``: each value on its one line, cut with an ellipsis (a summary of a fixed height)."""
    grid = Table.grid(padding=(0, gap))
    grid.add_column(no_wrap=True)
    grid.add_column(overflow="fold")
    for label, value in rows:
        grid.add_row(label, value if wrap else Text.assemble(value, no_wrap=True, overflow="ellipsis"))
    return grid


def span_view(project: Project, span: Span, title: str, note: str = "") -> Group:
    """The span with context lines, its block kind, and the chunk boundaries around it.

    Chunk starts and ends are drawn as ruler lines; chunks that hit the span under the
    build's hit rule are named in the header, since those are the ids the artifact gets.
    Each line's gutter (its number and the span mark, or a ruler's corner) is a column of
    its own, so a long line wraps under its text, not under the numbers.
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

    head = Text(f"{title} ", style="bold")  # a heading, wrapped as it is: a hanging indent costs a side pane lines
    head.append(f"{span.block} ", style="bold magenta")
    head.append_text(plain(f"{span.doc_id}:{first + 1}-{last + 1}", "cyan"))
    head.append(f"  [{span.start}, {span.end})  {span.end - span.start} chars", style="dim")
    n = len(project.resolver.chunks_of(span.doc_id))
    hit_ords = ", ".join(f"{c.ordinal + 1}/{n}" for c in chunks if c.chunk_id in hits)
    head.append(f"  answer-bearing chunks: {hit_ords or 'none'} ({rule.name})")
    if note:
        head.append(f"  {note}", style="italic")

    def ruler(corner: str, mark: str, body: Text) -> tuple[Text, Text]:
        """A chunk boundary's line: its corner under the span mark, its words where text starts."""
        return Text(f"      {corner}", style=mark), Text(" ", style=mark) + body

    markers: dict[int, list[tuple[Text, Text]]] = {}
    for c in chunks:
        mark = "cyan bold" if c.chunk_id in hits else "cyan dim"
        if c.start < window[0]:
            markers.setdefault(lo, []).append(ruler("┆ ", mark, Text(f"… inside {chunk_name(c.ordinal, n)} {short_id(c.chunk_id)} "
                                                                     f"[{c.start}, {c.end})", style=mark)))
        else:
            markers.setdefault(_marker_line(doc, c.start), []).append(ruler(
                "┌─", mark, Text(f"{chunk_name(c.ordinal, n)} {short_id(c.chunk_id)} [{c.start}, {c.end})  ", style=mark)
                + plain(c.heading_path, mark)))
        if c.end <= window[1]:
            markers.setdefault(_marker_line(doc, c.end), []).insert(0, ruler("└─", mark, Text(
                f"end of {chunk_name(c.ordinal, n)}", style=mark)))
        else:
            markers.setdefault(hi + 1, []).append(ruler("┆ ", mark, Text(f"{chunk_name(c.ordinal, n)} continues …",
                                                                         style=mark)))

    rows: list[tuple[Text, Text]] = []
    for k in range(lo, hi + 2):
        rows.extend(markers.get(k, []))
        if k > hi or k in hidden:
            if hidden and k == hidden.start:
                rows.append(ruler("┆ ", "dim italic", Text(f"… {len(hidden)} lines of the span not shown …",
                                                          style="dim italic")))
            continue
        ls, le = starts[k], doc.line_end(k)
        body = doc.text[ls:le].rstrip("\n")
        in_span = ls < span.end and span.start < le
        gutter = Text(f"{k + 1:>5} ", style="dim")
        gutter.append("▌" if in_span else " ", style="bold green")
        gutter.append(" ")
        line = Text()
        cuts = sorted({0, len(body), *(max(0, min(len(body), p - ls))
                                       for p in (span.start, span.end, span.quote_start, span.quote_end))})
        for a, b in zip(cuts, cuts[1:]):
            pos = ls + a
            style = "dim"
            if span.start <= pos < span.end:
                style = "bold"
                if span.quote_start <= pos < span.quote_end and span.block != "exact":
                    style = "bold underline yellow"  # the quote the block was expanded from
            line.append_text(plain(body[a:b], style))
        rows.append((gutter, line))
    head.end = "\n"
    return Group(head, labelled(rows, gap=0), Text(""))


def refusal_view(r: Refusal) -> Group:
    """Why a locator does not resolve, with the occurrences or nearest passages to fix it
    (each line's text hanging under its own label)."""
    rows: list = [labelled([(Text(f"refused ({r.kind}):", style="bold red"),
                             plain(f"{r.locator.describe()}: {r.message}"))], gap=1)]
    for occ in r.occurrences:
        where = plain(f"{occ['doc']}:{occ['line']}:{occ['col']}", "cyan")
        if occ.get("extension"):
            where.append_text(plain(f"  unique as: {occ['extension']}", "green"))
        rows.append(labelled([(Text("  at"), where)], gap=1))
    for sug in r.suggestions:
        if "quote" in sug:
            score = f" ({sug['score']})" if "score" in sug else ""
            rows.append(labelled([(plain(f"  nearest {sug['where']}{score}:", "yellow"),
                                   plain(sug["quote"], "yellow"))], gap=1))
        elif sug.get("heading"):
            rows.append(labelled([(Text("  try the section:", style="yellow"),
                                   plain(f"doc {sug['doc']}, heading {sug['heading']}", "yellow"))], gap=1))
    return Group(*rows, Text(""))


def facts_view(q: Question) -> Group:
    """The record's query and expected answer, each under its label, then its facts."""
    bits = [f"hop {q.hop}", f"split {q.split or '-'}", "tags " + (", ".join(q.tags) or "-")]
    if q.unanswerable:
        bits.append("unanswerable (negative: no spans by design)")
    facts = plain("  ·  ".join(bits), "dim")  # tags are the record's text
    facts.end = "\n"  # a line of its own: what follows starts below it
    return Group(labelled([(Text("query", style="bold"), plain(q.query, "bold")),
                           (Text("expected", style="bold"), plain(q.expected_answer or "(none)"))]), facts)


SUMMARY_LOCATORS = 3  # locators a summary lists; the rest are counted


def record_summary(q: Question, head: Iterable[tuple[str, Text]] = ()) -> Table:
    """``head`` rows (a review's status), the record's query and its locators (quote, section or
    document), one line each: what an editor of the record's JSON keeps in view, at most
    ``SUMMARY_LOCATORS`` + 3 lines whatever the record (the JSON below holds every word)."""
    rows = [*head, ("query", plain(q.query, "bold"))]
    rows += [(loc.kind, plain(loc.describe())) for loc in q.locators[:SUMMARY_LOCATORS]]
    if len(q.locators) > SUMMARY_LOCATORS:
        rows.append(("", Text(f"… and {len(q.locators) - SUMMARY_LOCATORS} more locators", style="dim")))
    if not q.locators:
        rows.append(("labels", Text("none" + (" (unanswerable)" if q.unanswerable else ""))))
    return labelled([(Text(label, style="bold"), value) for label, value in rows], wrap=False)


def record_view(project: Project, q: Question, result: RecordResult, *, show_labels: bool = True) -> Group:
    """Query, expected answer, facts, then every span (or refusal) of the record."""
    parts: list = [facts_view(q), Text("")]
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
