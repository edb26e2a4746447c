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
from textual.widgets import Input, OptionList, Static

from labeller.app.screens.field_keys import field_tab_bindings
from labeller.app.screens.records import RecordPager
from labeller.app.session.review import AnnotateSession
from labeller.app.widgets.fields import SafeInput
from labeller.app.widgets.key_bar import KeyBar
from labeller.app.widgets.markup import visible_line
from labeller.app.widgets.record_view import plain, refusal_view, span_view
from labeller.core.models import Locator
from labeller.core.project import Project
from labeller.core.resolve import Span
from labeller.errors import LabellerError


class AnnotateScreen(RecordPager):
    """One annotator's pass over ``record_ids``; the ``AnnotateSession`` holds and saves it."""

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
        Binding("slash,i", "focus_quote", "Type a quote", id="annotate.type_quote"),
        Binding("n", "next", "Next", id="annotate.next"),
        Binding("p", "prev", "Prev", id="annotate.prev"),
        Binding("d,delete", "remove", "Remove", id="annotate.remove"),
        Binding("u", "no_answer", "No answer", id="annotate.no_answer"),
        Binding("escape", "escape", "Leave input / close", id="annotate.escape"),
        Binding("q", "close", "Close", id="annotate.close"),
        *field_tab_bindings("annotate"),
    ]

    def __init__(self, project: Project, record_ids: list[str], annotator: str, show_expected: bool = False) -> None:
        super().__init__()
        self.model = self.session = AnnotateSession(project, record_ids, annotator, show_expected)

    def compose(self) -> ComposeResult:
        yield Static(id="an-head")
        yield Static(id="an-query")
        with Horizontal(id="an-inputs"):
            yield SafeInput(placeholder="quote from the corpus; Enter adds it", id="an-quote")
            yield SafeInput(placeholder="doc (optional)", id="an-doc")
        yield OptionList(id="an-locs")
        with VerticalScroll(id="an-preview-box"):
            yield Static(id="an-preview")
        yield KeyBar()  # every key on screen at 80 columns (Footer cuts the last ones off)

    def on_mount(self) -> None:
        self.session.load()
        self.show()
        self.query_one("#an-locs", OptionList).focus()

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
        model = self.session
        rid = model.record_id
        if rid is None:
            self.query_one("#an-head", Static).update("no records to annotate")
            return
        head.append(f"annotate {model.index + 1}/{len(model.record_ids)}  ", style="bold")
        head.append_text(plain(f"record {rid}  annotator {model.annotator}  "))
        head.append(f"{model.done}/{len(model.record_ids)} annotated  ", style="dim")
        locs = model.locators()
        head.append("not annotated" if locs is None else "no answer" if not locs else f"{len(locs)} locator(s)",
                    style="bold yellow" if locs is None else "bold green")
        self.query_one("#an-head", Static).update(head)
        q = model.query()
        shown = plain(q.query if q is not None else "(record no longer in questions.jsonl)")
        if q is not None and model.show_expected:
            shown.append_text(plain(f"\nexpected answer: {q.expected_answer or '(none)'}", "not bold italic"))
        self.query_one("#an-query", Static).update(shown)
        options = self.query_one("#an-locs", OptionList)
        options.clear_options()
        for i, loc in enumerate(locs or [], start=1):
            options.add_option(plain(f"{i}. {loc.describe()}  →  {model.where(model.resolve(loc))}"))
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
        res = self.session.resolve(loc)
        preview.update(span_view(self.session.project, res, "would label") if isinstance(res, Span)
                       else refusal_view(res))

    def on_input_changed(self, event: Input.Changed) -> None:
        self.preview_typed()

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        locs = self.session.locators() or []
        if 0 <= event.option_index < len(locs) and self.typed_locator() is None:
            res = self.session.resolve(locs[event.option_index])
            preview = self.query_one("#an-preview", Static)
            preview.update(span_view(self.session.project, res, f"locator {event.option_index + 1}")
                           if isinstance(res, Span) else refusal_view(res))

    # -- actions ----------------------------------------------------------------------------

    def on_input_submitted(self, event: Input.Submitted) -> None:
        loc = self.typed_locator()
        if loc is None or self.session.record_id is None:
            return
        try:
            refused = self.session.add(loc)
        except LabellerError as exc:
            self.notify(visible_line(str(exc)), severity="error", markup=False)  # paths may hold "[...]"
            return
        if refused is not None:
            self.notify(visible_line(refused), severity="warning", markup=False)
            return
        self.show()
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
        if self.session.remove(self.query_one("#an-locs", OptionList).highlighted):
            self.show()

    def action_no_answer(self) -> None:
        """Mark "I found no answer" (toggle); a record that has locators keeps them."""
        if self.session.record_id is None:
            return
        refused = self.session.toggle_no_answer()
        if refused is not None:
            self.notify(visible_line(refused), severity="warning", markup=False)
            return
        self.show()

    def action_next(self) -> None:
        self._clear_inputs()
        super().action_next()

    def action_prev(self) -> None:
        self._clear_inputs()
        super().action_prev()

    def _clear_inputs(self) -> None:
        self.query_one("#an-quote", Input).value = ""
        self.query_one("#an-doc", Input).value = ""
