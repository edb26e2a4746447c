"""The live preview of one locator: what the core made of it, and its suggestions.

Shows the status, the block kind and span, the answer-bearing chunks with their
boundaries, the copy warning, and for a refused locator the reason and the core's
suggestions as a list the author may accept (Enter, a click, or the accept binding).
Nothing is ever applied from here without that.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from labeller.app.widgets.chunk_names import chunk_name, short_id
from labeller.app.session.drafts import LocatorDraft
from labeller.app.session.preview import COPY_WARN_THRESHOLD, Preview
from labeller.core.moves import MOVED, is_move
from labeller.core.fixes import Fix
from labeller.core.resolve import MAX_LISTED_OCCURRENCES
from labeller.core.corpus import Corpus
from labeller.core.vocab import Place
from labeller.app.widgets.markup import Hanging, fmt

CONTEXT_CHARS = 40
NO_LOCATOR = ("no locator yet: select the answer in the document, or press [b]ctrl+l[/b] and type a quote "
              "(an unanswerable question has none)")
EMPTY_LOCATOR = ("empty locator: select the answer in the document, or type its exact words in the quote "
                 "([b]alt+w[/b]); [b]ctrl+l[/b] adds another locator")


# What each colour in the document view means (the component classes of DocumentView), one
# line per colour (issue 38.12: as one run-on paragraph it was read as a sentence, not as a key):
# the sample in its colour, then what it marks. Each line fits the record column at 80 columns.
LEGEND_ROWS = (("on $accent", "quote", "the quoted words"), ("on $success-muted", "span", "the answer span"),
               ("on $primary-muted", "chunk", "its chunk(s)"), ("on $secondary-muted", "other", "other locators"),
               ("b u on $warning-muted", "occurrence", "each place found"),
               ("on $warning-muted", "search hit", "a search result"),
               ("on $warning-muted", "suggestion", "a suggested span"),
               ("on $warning-muted", "unlabelled", "not labelled yet"))
LEGEND = Content("\n").join([
    Content.from_markup("[dim]colours in the document[/]"),
    *(fmt(f"[{style}] $name[/] $meaning", name=f"{name:<10}", meaning=meaning) for style, name, meaning in LEGEND_ROWS),
    fmt("[b $secondary]▐[/] $name $meaning", name=f"{'gutter':<9}", meaning="other questions")])


def in_context(text: str, start: int, end: int) -> Content:
    """``text[start:end]`` in bold with the rest of its line around it."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end == -1 else line_end
    return fmt("…$left[b u]$mid[/]$right…", left=text[max(line_start, start - CONTEXT_CHARS):start],
               mid=text[start:end], right=text[end:min(line_end, end + CONTEXT_CHARS)])


def _fix_prompt(fix: Fix, place: Place | None, corpus: Corpus) -> tuple[Content, list[Content]]:
    """A suggestion of ``repair``'s: its kind, score and place, then the locator's text now and
    as the fix would write it (a new document, or a new quote with the context that picks it)."""
    kind = fix.how
    score = f" ({fix.score})" if fix.score is not None else ""
    where = corpus[place.doc].where(place.start) if place is not None else fix.new.doc or ""
    flag = "" if place is not None else " [dim](not unique)[/]"
    head = fmt(f"[b]$kind[/]{score} $where{flag}", kind=kind, where=where)
    if fix.kind == MOVED:
        return head, [fmt("[dim]$old →[/] [$success]$new[/]", old=fix.old.doc or "", new=fix.new.doc or "")]
    if fix.new.heading is not None:  # a section locator's heading edited
        return head, [fmt("[dim]was:[/] # $old", old=fix.old.heading or ""),
                      fmt("[dim]now:[/] # [$warning]$new[/]", new=fix.new.heading)]
    ctx = "".join(f" {k} {v!r}" for k, v in (("prefix", fix.new.prefix), ("suffix", fix.new.suffix)) if v is not None)
    return head, [fmt("[dim]was:[/] $old", old=fix.old.quote or ""),
                  fmt("[dim]now:[/] [$warning]$new[/][dim]$ctx[/]", new=fix.new.quote or "", ctx=ctx)]


class PreviewPanel(Vertical, can_focus=True):
    """Focusable (Tab, alt+r), so that focusing it scrolls the record column to it: at 80×24
    the span and chunk ids are below the fold."""

    class SuggestionChosen(Message):
        def __init__(self, suggestion: dict) -> None:
            super().__init__()
            self.suggestion = suggestion

    class SuggestionHighlighted(Message):
        """The cursor moved onto a suggestion: ``place`` is where it is (``None``: not known
        here, e.g. a nearest passage, which the screen looks up)."""

        def __init__(self, suggestion: dict, place: Place | None) -> None:
            super().__init__()
            self.suggestion = suggestion
            self.place = place

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.preview: Preview | None = None
        self._suggestions: list[dict] = []
        self._places: list[Place | None] = []

    def compose(self) -> ComposeResult:
        yield Static("select text in the document, or type a quote", id="preview-status")
        yield OptionList(id="preview-suggestions")

    def on_mount(self) -> None:
        self.border_title = "resolution"
        self.query_one(OptionList).display = False

    def show(self, preview: Preview | None, corpus: Corpus, selected_start: int | None = None,
             was: LocatorDraft | None = None) -> None:
        """Render ``preview``; ``selected_start`` marks the occurrence the author selected,
        ``was`` the locator an accepted suggestion replaced (shown beside the new one)."""
        self.preview = preview
        status = self.query_one("#preview-status", Static)
        options = self.query_one(OptionList)
        self._suggestions = []
        self._places = []
        if options.option_count:
            options.clear_options()
        if preview is None:
            status.update(Content.from_markup(NO_LOCATOR))
            options.display = False
            return
        lines = self._lines(preview, corpus)
        if was is not None and was != preview.locator:
            lines.append(fmt("[dim]was: $old[/dim]", old=was.describe()))
        content = Content("\n").join(lines)
        # Re-laying out the screen on every keystroke is most of the cost of live preview;
        # it is only needed when the text's height changes.
        width = status.content_size.width
        old = status.visual if isinstance(status.visual, Content) else None
        same_height = old is not None and width > 0 and len(old.wrap(width)) == len(content.wrap(width))
        status.update(content, layout=not same_height)
        self._suggestions, self._places, prompts = self._suggestion_rows(preview, corpus, selected_start)
        if prompts:
            with self.prevent(OptionList.OptionHighlighted):  # a new preview is no move of the cursor
                options.add_options([Option(Hanging(Content(f"{i + 1} ") + head if i < 9 else head, body), id=str(i))
                                     for i, (head, body) in enumerate(prompts)])
                options.highlighted = self._default_choice(selected_start)
        if options.display != bool(prompts):
            options.display = bool(prompts)

    def _lines(self, p: Preview, corpus: Corpus) -> list[Content]:
        if p.error is not None and p.locator == LocatorDraft():
            return [Content.from_markup(EMPTY_LOCATOR)]
        if p.error is not None and p.locator.incomplete:  # no ✓, no span: half-written (issue 38)
            return [fmt("[b $warning]… incomplete[/]: $doc named, nothing in it chosen yet; $error",
                        doc=p.locator.doc, error=p.error)]
        if p.error is not None:
            return [fmt("[b red]✗ invalid[/]: $error", error=p.error)]
        if p.span is not None:
            s = p.span
            doc = corpus[s.doc_id]
            l1, _ = doc.line_col(s.start)
            l2, _ = doc.line_col(max(s.start, s.end - 1))
            lines = [fmt(f"[b green]✓ resolved[/] · [b]{s.block}[/] · $doc lines {l1}–{l2}", doc=s.doc_id),
                     Content(f"match [{s.quote_start}, {s.quote_end}) · span [{s.start}, {s.end}) · "
                             f"{s.end - s.start} chars"),
                     Content(f"span coverage {p.coverage} · answer-bearing chunks: {len(p.chunks)} "
                             "(alt+i: their full ids, copied)")]
            lines += [Content(f"  {chunk_name(c.ordinal, c.n_in_doc)} {short_id(c.chunk_id)} [{c.start}, {c.end}) "
                              f"lines {c.first_line}–{c.last_line}") for c in p.chunks]
            if p.copies_answer:
                lines.append(Content.from_markup(
                    f"[b $warning]⚠ the query copies its answer's wording[/] (score {p.copy_score:.0f} ≥ "
                    f"{COPY_WARN_THRESHOLD:.0f}): this label would measure string matching, not retrieval"))
            if s.block != "section":
                lines.append(Content.from_markup("[dim]nudge: [b]\\[ ][/b] add a word at start / end, "
                                                 "[b]{ }[/b] drop one[/dim]"))
            return lines
        if p.pending == "not_found":
            return [Content.from_markup("[b red]✗ not found[/]: no occurrence; looking for the nearest passages…")]
        if p.pending == "ambiguous":
            n = len(p.occurrences)
            more = "+" if n == MAX_LISTED_OCCURRENCES else ""
            return [Content.from_markup(f"[b red]✗ ambiguous[/]: {n}{more} occurrences; working out the unique "
                                        "extension of each…")]
        r = p.refusal
        assert r is not None, "a preview without an error, a span or a pending kind carries its refusal"
        lines = [fmt(f"[b red]✗ {r.kind.replace('_', ' ')}[/]: $message", message=r.message)]
        if p.offered is not None and p.offered.fixes:  # ranked as `labeller repair` ranks them
            lines.append(Content("suggestions, as `labeller repair` ranks them (Enter or ctrl+g accepts one):"))
            lines.append(Content.from_markup("[dim]`labeller repair` would apply 1[/]") if p.offered.applied is not None
                         else fmt("[dim]`labeller repair` leaves it: $reason[/]", reason=p.offered.reason))
        elif r.kind == "not_found":
            lines.append(Content("nearest passages (Enter or ctrl+g accepts one):" if r.suggestions
                                 else "no passage is close enough to suggest"))
        elif r.kind == "ambiguous" and p.pins:  # the list starts with documents, not occurrences (issue 38.12)
            lines.append(Content("pin to a document, or pick an occurrence (Enter or ctrl+g): a pin writes the "
                                 "document, an occurrence its context; the quote stays:"))
        elif r.kind == "ambiguous":
            lines.append(Content("occurrences (Enter or ctrl+g picks one: its context is written, the quote stays):"))
        elif r.suggestions:
            lines.append(Content("suggestion (Enter or ctrl+g accepts it):"))
        return lines

    def _suggestion_rows(self, p: Preview, corpus: Corpus, selected_start: int | None):
        rows: list[dict] = []
        places: list[Place | None] = []
        prompts: list[tuple[Content, list[Content]]] = []  # each option's first line and the lines under it
        r = p.refusal
        if r is None:
            return rows, places, prompts
        offers = list(zip(p.offered.fixes, p.offer_places)) if p.offered is not None else []
        for fix, place in offers:  # repair's, first: what the status line says it would apply
            prompts.append(_fix_prompt(fix, place, corpus))
            rows.append({"fix": fix})
            places.append(place)
        if r.kind == "ambiguous":
            taken = {place for _, place in offers}  # an occurrence repair pins where it stood is listed once
            for pin in p.pins:
                prompts.append((fmt("pin to [b]$doc[/b] (the quote occurs once there)", doc=pin.doc), []))
                rows.append({"doc": pin.doc, "pin": True})
                places.append(pin)
            for occ in r.occurrences:
                if Place(occ["doc"], occ["char_start"], occ["char_end"]) in taken:
                    continue
                head = fmt("$where" + (" [b](your selection)[/b]" if occ["char_start"] == selected_start else ""),
                           where=f"{occ['doc']}:{occ['line']}:{occ['col']}")
                ctx = occ.get("context")
                occ_quote = corpus[occ["doc"]].text[occ["char_start"]:occ["char_end"]]
                if ctx is not None:  # what accepting writes: the quote stays, the context picks this copy
                    ext = fmt("picked by: [u]$prefix[/u][$success]$quote[/][u]$suffix[/u]",
                              prefix=ctx.get("prefix", ""), quote=occ_quote, suffix=ctx.get("suffix", ""))
                elif occ["extension"]:
                    ext = fmt("unique as: [$success]$ext[/]", ext=occ["extension"])
                else:
                    ext = Content.from_markup("[dim]no unique context or extension within 12 words[/]")
                context = in_context(corpus[occ["doc"]].text, occ["char_start"], occ["char_end"])
                prompts.append((head, [context, ext]))
                rows.append(occ)
                places.append(Place(occ["doc"], occ["char_start"], occ["char_end"]))
        else:
            for sug in r.suggestions:
                if offers and (is_move(sug) or "score" in sug):
                    continue  # one of repair's, ranked above
                if "quote" in sug:
                    flag = "" if sug["unique"] else " [dim](not unique)[/]"
                    score = f" ({sug['score']})" if "score" in sug else ""  # an exact copy in another context has none
                    ctx = "".join(f" {k} {sug[k]!r}" for k in ("prefix", "suffix") if k in sug)
                    prompts.append((fmt(f"$where{score}{flag}", where=sug["where"]),
                                    [fmt("[$warning]$quote[/][dim]$ctx[/]", quote=sug["quote"], ctx=ctx)]))
                elif sug.get("heading"):
                    prompts.append((fmt("section locator: $doc # $heading", doc=sug["doc"], heading=sug["heading"]), []))
                else:
                    continue
                rows.append(sug)
                places.append(None)
        return rows, places, prompts

    def _default_choice(self, selected_start: int | None) -> int:
        for i, row in enumerate(self._suggestions):
            if selected_start is not None and row.get("char_start") == selected_start:
                return i
        return 0

    def chosen(self) -> dict | None:
        """The highlighted suggestion, if it can be applied."""
        options = self.query_one(OptionList)
        i = options.highlighted
        if i is None or i >= len(self._suggestions):
            return None
        row = self._suggestions[i]
        if "char_start" in row and not row.get("extension") and row.get("context") is None:
            return None
        return row

    def pick(self, n: int) -> bool:
        """Highlight the ``n``-th suggestion (0-based) and accept it, as the digit keys do."""
        options = self.query_one(OptionList)
        if not options.display or n >= len(self._suggestions):
            return False
        options.highlighted = n
        row = self.chosen()
        if row is None:
            return False
        self.post_message(self.SuggestionChosen(row))
        return True

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        i = event.option_index
        if i < len(self._suggestions):
            self.post_message(self.SuggestionHighlighted(self._suggestions[i], self._places[i]))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        row = self.chosen()
        if row is not None:
            self.post_message(self.SuggestionChosen(row))
