"""Blind second annotation: the annotator sees each query and nothing of the golden labels.

No anchor or span from questions.jsonl is ever rendered here, and by default neither
is the expected answer, which often repeats the very words the first annotator quoted.
A team that wants both people to look for one stated answer (so that disagreement is
only about *where* it is) opens the screen with ``show_expected``. The annotator
types a quote (and optionally its document), sees it resolve live exactly as the build
would resolve it, and adds it with Enter. Every change is saved at once to the
annotator's own file, ``golden/annotations/NAME.jsonl``.

Keys: ``/`` or ``i`` types a quote, Enter adds it, Escape leaves the input; outside the
input ``n``/``p`` move, ``d`` removes the highlighted locator, ``u`` marks "no answer".
"""

from __future__ import annotations

from pydantic import ValidationError
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Input, OptionList, Static

from labeller.app.widgets.fields import SafeInput
from labeller.app.screens.review import plain, refusal_view, span_view
from labeller.core.models import Locator, Question
from labeller.core.project import Project
from labeller.core.resolve import Refusal, Span, locator_error
from labeller.errors import InvalidInput, LabellerError
from labeller.review.annotations import load_annotations


class AnnotateScreen(Screen):
    DEFAULT_CSS = """
    AnnotateScreen #an-head { height: auto; padding: 0 1; background: $boost; }
    AnnotateScreen #an-query { height: auto; padding: 1 1; text-style: bold; }
    AnnotateScreen #an-inputs { height: auto; }
    AnnotateScreen #an-quote { width: 3fr; }
    AnnotateScreen #an-doc { width: 1fr; }
    AnnotateScreen #an-locs { height: auto; max-height: 10; }
    AnnotateScreen #an-preview-box { height: 1fr; padding: 0 1; }
    """
    BINDINGS = [
        Binding("slash,i", "focus_quote", "Type a quote"),
        Binding("n", "next", "Next"),
        Binding("p", "prev", "Prev"),
        Binding("d,delete", "remove", "Remove"),
        Binding("u", "no_answer", "No answer"),
        Binding("escape", "escape", "Leave input / close"),
        Binding("q", "close", "Close"),
    ]

    def __init__(self, project: Project, record_ids: list[str], annotator: str, show_expected: bool = False) -> None:
        super().__init__()
        self.project = project
        self.show_expected = show_expected
        self.record_ids = list(record_ids)
        self.annotator = annotator
        self.index = 0
        self.queries: dict[str, Question] = {}
        self.annotations = load_annotations(project.config, annotator)

    def compose(self) -> ComposeResult:
        yield Static(id="an-head")
        yield Static(id="an-query")
        with Horizontal(id="an-inputs"):
            yield SafeInput(placeholder="quote from the corpus; Enter adds it", id="an-quote")
            yield SafeInput(placeholder="doc (optional)", id="an-doc")
        yield OptionList(id="an-locs")
        with VerticalScroll(id="an-preview-box"):
            yield Static(id="an-preview")
        yield Footer()

    def on_mount(self) -> None:
        self.queries = {q.id: q for q in self.project.load_questions().questions}
        self.show()
        self.query_one("#an-locs", OptionList).focus()

    # -- state ------------------------------------------------------------------------------

    @property
    def record_id(self) -> str | None:
        return self.record_ids[self.index] if self.record_ids else None

    def locators(self) -> list[Locator] | None:
        return None if self.record_id is None else self.annotations.get(self.record_id)

    def save(self, locators: list[Locator] | None) -> None:
        """Store this record's locators (None: not annotated) and write the file at once."""
        record_id = self.record_id
        assert record_id is not None, "the actions that save act on the record on screen"
        if locators is None:
            self.annotations.records.pop(record_id, None)
        else:
            self.annotations.set(record_id, locators)
        self.annotations.save()
        self.show()

    def resolve(self, loc: Locator) -> Span | Refusal:
        try:
            return self.project.resolver.resolve(loc, self.record_id)
        except InvalidInput as exc:
            return locator_error(exc, loc, self.record_id)

    def typed_locator(self) -> Locator | None:
        quote = self.query_one("#an-quote", SafeInput).raw
        doc = self.query_one("#an-doc", SafeInput).raw.strip() or None
        try:
            return Locator(quote=quote, doc=doc)
        except ValidationError:
            return None

    # -- rendering --------------------------------------------------------------------------

    def show(self) -> None:
        head = Text()
        rid = self.record_id
        done = sum(1 for r in self.record_ids if r in self.annotations.records)
        if rid is None:
            self.query_one("#an-head", Static).update("no records to annotate")
            return
        head.append(f"annotate {self.index + 1}/{len(self.record_ids)}  ", style="bold")
        head.append_text(plain(f"record {rid}  annotator {self.annotator}  "))
        head.append(f"{done}/{len(self.record_ids)} annotated  ", style="dim")
        locs = self.locators()
        head.append("not annotated" if locs is None else "no answer" if not locs else f"{len(locs)} locator(s)",
                    style="bold yellow" if locs is None else "bold green")
        self.query_one("#an-head", Static).update(head)
        q = self.queries.get(rid)
        shown = plain(q.query if q is not None else "(record no longer in questions.jsonl)")
        if q is not None and self.show_expected:
            shown.append_text(plain(f"\nexpected answer: {q.expected_answer or '(none)'}", "not bold italic"))
        self.query_one("#an-query", Static).update(shown)
        options = self.query_one("#an-locs", OptionList)
        options.clear_options()
        for i, loc in enumerate(locs or [], start=1):
            res = self.resolve(loc)
            where = f"{res.block} {res.doc_id}:{self.project.corpus[res.doc_id].line_of(res.start) + 1}" \
                if isinstance(res, Span) else f"refused: {res.kind}"
            options.add_option(plain(f"{i}. {loc.describe()}  →  {where}"))
        if locs:
            options.highlighted = 0
        self.preview_typed()

    def preview_typed(self) -> None:
        loc = self.typed_locator()
        preview = self.query_one("#an-preview", Static)
        if loc is None:
            preview.update(Text("Type a quote (/), then Enter to add it. The preview shows what it resolves to.",
                                style="dim"))
            return
        res = self.resolve(loc)
        preview.update(span_view(self.project, res, "would label") if isinstance(res, Span) else refusal_view(res))

    def on_input_changed(self, event: Input.Changed) -> None:
        self.preview_typed()

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        locs = self.locators() or []
        if 0 <= event.option_index < len(locs) and self.typed_locator() is None:
            res = self.resolve(locs[event.option_index])
            preview = self.query_one("#an-preview", Static)
            preview.update(span_view(self.project, res, f"locator {event.option_index + 1}")
                           if isinstance(res, Span) else refusal_view(res))

    # -- actions ----------------------------------------------------------------------------

    def on_input_submitted(self, event: Input.Submitted) -> None:
        loc = self.typed_locator()
        if loc is None or self.record_id is None:
            return
        res = self.resolve(loc)
        if isinstance(res, Refusal):
            self.notify(f"not added: {res.kind}", severity="warning")
            return
        existing = self.locators() or []
        for i, other in enumerate(existing, start=1):
            o = self.resolve(other)
            if isinstance(o, Span) and (o.doc_id, o.start, o.end) == (res.doc_id, res.start, res.end):
                self.notify(f"not added: same block as locator {i}", severity="warning")
                return
        try:
            self.save([*existing, loc])
        except LabellerError as exc:
            self.notify(str(exc), severity="error")
            return
        self.query_one("#an-quote", Input).value = ""
        self.notify("added")

    def action_focus_quote(self) -> None:
        self.query_one("#an-quote", Input).focus()

    def action_escape(self) -> None:
        if isinstance(self.focused, Input):
            self.query_one("#an-locs", OptionList).focus()
        else:
            self.dismiss(None)

    def action_remove(self) -> None:
        locs = self.locators()
        highlighted = self.query_one("#an-locs", OptionList).highlighted
        if not locs or highlighted is None:
            return
        del locs[highlighted]
        self.save(locs or None)

    def action_no_answer(self) -> None:
        """Mark "I found no answer" (toggle); a record that has locators keeps them."""
        if self.record_id is None:
            return  # no record on screen: nothing to mark
        locs = self.locators()
        if locs:
            self.notify("remove the locators first (d) to mark this record as having no answer", severity="warning")
            return
        self.save(None if locs == [] else [])

    def _move(self, step: int) -> None:
        self.index = max(0, min(len(self.record_ids) - 1, self.index + step))
        self.query_one("#an-quote", Input).value = ""
        self.query_one("#an-doc", Input).value = ""
        self.show()

    def action_next(self) -> None:
        self._move(1)

    def action_prev(self) -> None:
        self._move(-1)

    def action_close(self) -> None:
        self.dismiss(None)
