"""The authoring workspace: find the answer in the corpus, anchor it, watch it resolve.

Left: the document tree and the corpus search. Middle: the document view, where a
selection becomes the quote of the active locator. Right: the record's fields, its
locators and the live resolution of the active one, with the core's suggestions. Above
them, the record's status in a line of its own, wrapped (a title cut it with "…").

Below 100 columns the two swap (issue 38): while a field of the record has the focus the
record has the whole width, so a query, a placeholder or a hint is read whole; with the
focus in the document (Esc, a selection, a search hit) the document is back beside it.

Every change goes to the session first (which journals it), then resolution runs in a
worker (``LatestOnly``), so typing never waits for the core and nothing typed is lost.
"""

from __future__ import annotations

from functools import partial

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Header, Input, Static, TabbedContent, TabPane

from labeller.app.screens.ask import Ask
from labeller.app.screens.author_keys import AUTHOR_BINDINGS
from labeller.app.screens.base import LatestOnly, SessionScreen
from labeller.app.session.drafts import Draft, LocatorDraft
from labeller.app.session.marks import (anchor_hint, anchor_position, hint_holds, labelled_lines, locator_place,
                                         marks_in, nudged)
from labeller.app.session.preview import Preview, live_preview, next_lane, preview_locator, resolve_locators
from labeller.app.session.statuses import STATUS_PENDING
from labeller.app.session.structure import structure_styles
from labeller.app.session.unlabelled import Gap, next_index
from labeller.app.widgets.chunk_names import full_ids
from labeller.app.widgets.corpus import CorpusTree, SearchPanel
from labeller.app.widgets.document_view import DocumentView, Mark
from labeller.app.widgets.locators import LocatorForm, LocatorTable
from labeller.app.widgets.preview import LEGEND, PreviewPanel
from labeller.app.widgets.markup import visible_line
from labeller.core.nudge import context_change
from labeller.app.widgets.question_form import QuestionForm
from labeller.app.widgets.textual_adapter import adopt_app_css
from labeller.app.widgets.key_bar import KeyBar
from labeller.app.widgets.panes import Panes
from labeller.app.widths import SIDE_PANE, side_pane_shown, width_class

SEARCH_HITS = 20
RECORD_VIEW = "-record-view"  # author.tcss: the record alone at full width (below 100 columns)
NO_LOCATOR = ("no locator: the answer is nowhere in the corpus yet; ctrl+l adds one, "
              "or mark the record unanswerable")

class AuthorScreen(SessionScreen):
    CSS_PATH = ["author.tcss", "document_view.tcss"]  # read when first shown, not at the app's start
    BINDINGS = AUTHOR_BINDINGS

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        # A new screen's CSS version is Textual's -1, so showing the mode the first time
        # refreshes the whole app's CSS twice (every source parsed again, every node of the
        # screen on show restyled: a fifth of the first open of a document). Nothing needs it:
        # the screen's widgets are styled from the current stylesheet as they mount, their
        # default CSS is scoped to them, and a theme change refreshes every screen anyway.
        # tests/test_app_first_open.py holds every node styled as a refresh would style it.
        adopt_app_css(self)
        self.record_id: str | None = None
        self.active = 0
        self.preview: Preview | None = None
        self.statuses: list[str] = []
        self.status_text = ""  # what the status line shows: the open record's id, status and why
        # where the author last put the active quote (a selection or a nudge): which of
        # several occurrences they meant, and where a nudge starts from
        self.anchor_hint: tuple[str, int, int] | None = None
        self.search_mark: tuple[str, int, int] | None = None
        self._tree_shown: tuple | None = None
        # the last accepted suggestion: (record, locator index, new locator, the one it replaced)
        self.was: tuple[str, int, LocatorDraft, LocatorDraft] | None = None
        self.find_text = ""
        self.gap: Gap | None = None  # the last place the unlabelled queue showed
        self._reveal = False
        self._reveal_when_wrapped: int | None = None  # a search hit opened while the view had no width
        # two lanes: counting occurrences (and resolving a unique quote) is instant, while the
        # core's suggestions for a refused quote can take a while on a large corpus; the slow
        # lane never holds up the answer for the next keystroke
        self._previews = LatestOnly(self, "preview", self._compute_preview, self._apply_preview)
        self._suggestions = LatestOnly(self, "suggestions", self._compute_suggestions, self._apply_preview)
        self._records = LatestOnly(self, "record", self._compute_record, self._apply_record)
        self._searches = LatestOnly(self, "search", self._compute_search, self._apply_search)
        self.panes = Panes(self, "#left", ("#document", "#right"), side_home="#search-input", home="#document",
                           beside=lambda: side_pane_shown(self.labeller.settings.panes,
                                                          width_class(self.app.size.width)))

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="record-status")
        with Horizontal(id="panes"):
            with TabbedContent(id="left"):
                with TabPane("Files", id="tab-files"):
                    yield CorpusTree(id="corpus-tree")
                with TabPane("Search", id="tab-search"):
                    yield SearchPanel(id="search")
            yield DocumentView(id="document")
            with VerticalScroll(id="right"):
                yield QuestionForm(id="form")
                yield LocatorTable(id="locators")
                yield Static(NO_LOCATOR, id="locators-empty")
                yield LocatorForm(sorted(self.session.project.corpus.docs), id="locator-form")
                yield Static("[b]⚠ the query copies the wording of its answer[/b]", id="copy-warning")
                yield PreviewPanel(id="preview")
                yield Static(LEGEND, id="legend")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#locators", LocatorTable).border_title = "locators"
        self.query_one("#locator-form", LocatorForm).border_title = "active locator"
        self.panes.lay_out()
        self.watch(self.query_one(DocumentView), "virtual_size", self._view_wrapped, init=False)
        if self.record_id is None:
            self._load_record()  # the empty state: what to do first

    # -- the layout per width class (app.widths): the corpus pane beside the document where it
    # fits and the author wants it (F9, per width class), else a full-width view (widgets.panes)

    def on_resize(self) -> None:
        self.panes.lay_out()
        self._fit_record()

    def on_descendant_focus(self) -> None:
        self._fit_record()

    def _fit_record(self) -> None:
        """Below 100 columns, the record alone at full width while one of its fields has the
        focus (the screen's ``-record-view`` class), the document beside it otherwise."""
        focused = self.focused
        alone = (width_class(self.app.size.width) == "narrow" and not self.panes.viewing
                 and focused is not None and self.query_one("#right") in focused.ancestors)
        self.set_class(alone, RECORD_VIEW)
        view = self.query_one(DocumentView)
        if not self.panes.viewing and view.display == alone:
            view.display = not alone
            if not alone and view.doc is not None:  # back beside the record: the cursor where it was
                self.call_after_refresh(view.scroll_cursor_visible, center=True)

    def toggle_corpus_pane(self) -> None:
        """F9: the side pane where the width class has one (remembered for that class), else
        the full-width corpus view."""
        cls = width_class(self.app.size.width)
        if cls not in SIDE_PANE:
            tab = self.query_one(TabbedContent).active  # the view opens on the tab it was left at
            self.panes.focus(self.query_one("#document" if self.panes.viewing else
                                            "#corpus-tree" if tab == "tab-files" else "#search-input"))
            return
        shown = not self.panes.beside()
        self.labeller.remember_pane(cls, shown)
        self.panes.lay_out()
        self.notify(f"corpus pane {'shown' if shown else 'hidden'} (remembered for {cls} terminals)")

    # -- from the session ---------------------------------------------------------------------

    def refresh_from_session(self) -> None:
        if not self.is_mounted:
            return
        s = self.session
        counts = s.last_build.summary["labels_per_doc"] if s.last_build else {}
        shown = (list(s.project.corpus.docs), counts)
        if shown != self._tree_shown:
            self._tree_shown = shown
            self.query_one(CorpusTree).show_docs(*shown)
        wanted = self.labeller.current
        if wanted is not None and wanted[0] in s.drafts:
            if wanted[0] != self.record_id or wanted[1] != self.active:
                self.open_record(*wanted)
            else:
                self._load_record()
        elif self.record_id is not None and self.record_id not in s.drafts:
            self.record_id = None
            self._load_record()

    def open_record(self, record_id: str, index: int = 0) -> None:
        self.record_id = record_id
        self.active = index
        self.anchor_hint = None
        self.preview = None
        self.statuses = []
        self._reveal = True
        self.labeller.current = (record_id, index)
        self._load_record()
        self.panes.focus(self.query_one("#form-query", Input))

    def _load_record(self) -> None:
        form = self.query_one(QuestionForm)
        loc_form = self.query_one(LocatorForm)
        table = self.query_one(LocatorTable)
        if self.record_id is None:
            self.sub_title = ""
            self._show_status("no corpus documents: add Markdown files to the corpus folder, then press f8"
                              if not len(self.session.project.corpus)
                              else "no question open: press ctrl+n to create one, F2 lists them")
            loc_form.disabled = True
            table.display = False
            self.query_one(PreviewPanel).show(None, self.session.project.corpus)
            return
        draft = self.session.draft(self.record_id)
        form.load(draft)
        self.active = min(self.active, max(0, len(draft.locators) - 1))
        self._show_locators(draft, self.statuses)
        loc_form.load(draft.locators[self.active] if draft.locators else None)
        loc_form.disabled = not draft.locators
        self._update_title()
        self._request()

    def _show_locators(self, draft, statuses: list[str]) -> None:
        """The locator list, or (a record with none, or no record) the words that say so in its place."""
        table = self.query_one(LocatorTable)
        table.show(draft, statuses, self.active)
        table.display = bool(draft.locators)
        self.query_one("#locators-empty").display = not draft.locators

    def _update_title(self) -> None:
        """The record's id in the title, its status (and why) in the status line, whole."""
        record_id, _ = self._open()
        status, why = self.session.status(record_id)
        if status == STATUS_PENDING and self.status_text.startswith(f"{record_id} · "):
            return  # keep the last status until the record is resolved again: no flicker
        dirty = " · unsaved" if self.session.is_dirty(record_id) else ""
        if self.sub_title != visible_line(record_id):
            self.sub_title = visible_line(record_id)
        self._show_status(f"{record_id} · {status}{dirty}" + (f" · {why}" if why else ""))

    def _show_status(self, text: str) -> None:
        line = visible_line(text)
        if line != self.status_text:
            self.status_text = line
            self.query_one("#record-status", Static).update(Text(line))

    @property
    def draft(self) -> Draft | None:
        return self.session.drafts.get(self.record_id) if self.record_id else None

    def _open(self) -> tuple[str, Draft]:
        """The open record's id and draft, for the handlers that only run while one is open
        (each entry point bails out on ``self.draft is None`` before it gets here)."""
        record_id, draft = self.record_id, self.draft
        assert record_id is not None and draft is not None, "no question is open"
        return record_id, draft

    # -- resolution in workers ----------------------------------------------------------------

    def _request(self) -> None:
        draft = self.draft
        if draft is None:
            return
        if not self.session.ready:
            # the corpus is still being chunked and indexed; the app refreshes this screen
            # when it is done, which asks again
            self.query_one("#preview-status", Static).update("reading the corpus…")
            return
        if draft.locators:
            # the record's own resolution (statuses of every locator) follows the preview:
            # run alongside, it would compute the same suggestions a second time per key
            self._previews.request(draft, self.active)
        else:
            self._records.request(draft)
            self.preview = None
            self._show_copy_warning(False)  # a warning leaves with its cause (issue 38)
            self.query_one(PreviewPanel).show(None, self.session.project.corpus)
            self._draw_marks()

    def _compute_preview(self, draft: Draft, index: int, interim) -> Preview:
        return live_preview(self.session.project, draft, index)

    def _compute_suggestions(self, draft: Draft, index: int, interim) -> Preview:
        return preview_locator(self.session.project, draft, index, last_build=self.session.committed_build())

    def _apply_preview(self, args: tuple, result) -> None:
        draft, index = args
        if isinstance(result, Exception):
            self.notify(visible_line(f"resolution failed: {result}"), severity="error", markup=False)
            return
        if draft.id != self.record_id or index != self.active:
            return
        _, open_draft = self._open()  # the id check above: the draft's record is the open one
        current = open_draft.locators[index] if index < len(open_draft.locators) else None
        lane = next_lane(result, current, self.preview)
        if lane in ("record", "record-only"):
            self._records.request(open_draft)
        elif lane == "suggestions":
            self._suggestions.request(draft, index)
        if lane is None or lane == "record-only":
            return
        self.preview = result
        self.query_one(PreviewPanel).show(result, self.session.project.corpus, self._selected_start(),
                                          was=self._was(result.locator))
        self._show_copy_warning(result.copies_answer)
        focused = self.focused
        if result.span is not None and focused is not None and self.query_one("#right") not in focused.ancestors:
            self.query_one(PreviewPanel).scroll_visible(animate=False)  # a selection's span and chunk ids
        # an answer to an older keystroke still updates the panel, but only the current
        # locator's answer may switch the document under the author's eyes
        self._draw_marks(navigate=result.locator == current)

    def _show_copy_warning(self, shown: bool) -> None:
        warning = self.query_one("#copy-warning", Static)
        if warning.display != shown:
            warning.display = shown

    def _was(self, shown: LocatorDraft) -> LocatorDraft | None:
        """The locator an accepted suggestion replaced, while the accepted one is on screen."""
        if self.was is not None and self.was[:3] == (self.record_id, self.active, shown):
            return self.was[3]
        return None

    def _compute_record(self, draft: Draft, interim):
        return resolve_locators(self.session.project, draft)

    def _apply_record(self, args: tuple, result) -> None:
        (draft,) = args
        if isinstance(result, Exception):
            self.notify(visible_line(f"resolution failed: {result}"), severity="error", markup=False)
            return
        record, statuses = result
        if record is not None:
            self.session.store_record(record)
        if draft.id != self.record_id or self.session.drafts.get(draft.id) != draft:
            return
        if statuses == self.statuses and record is None:
            return
        self.statuses = statuses
        self._show_locators(draft, statuses)
        self._update_title()
        self._draw_marks(navigate=False)

    def _compute_search(self, text: str, interim):
        return self.session.search(text, SEARCH_HITS)

    def _apply_search(self, args: tuple, result) -> None:
        if isinstance(result, Exception):
            self.notify(visible_line(f"search failed: {result}"), severity="error", markup=False)
            return
        self.query_one(SearchPanel).show_hits(result)

    # -- the document view ------------------------------------------------------------------

    def _selected_start(self) -> int | None:
        return self.anchor_hint[1] if self.anchor_hint else None

    def show_document(self, doc_id: str) -> None:
        project = self.session.project
        view = self.query_one(DocumentView)
        if view.doc is None or view.doc.doc_id != doc_id:
            view.show_document(project.corpus[doc_id], partial(structure_styles, project, doc_id),
                               project.chunks.get(doc_id, []))

    def _draw_marks(self, navigate: bool = True) -> None:
        """Mark the document view; with ``navigate``, first show the document the active
        locator points at (and scroll to it when ``_reveal`` is set)."""
        p = self.preview
        view = self.query_one(DocumentView)
        target, reveal_at = locator_place(p, self.session.project.corpus, self._selected_start())
        if target is None and self.search_mark is not None:
            target = self.search_mark[0]
        if navigate and target is not None:
            self.show_document(target)
        if view.doc is None:
            return
        record = self.session.result(self.record_id) if self.record_id else None
        view.set_marks([Mark(*m) for m in marks_in(view.doc.doc_id, p, record.spans if record else (),
                                                   self.search_mark)])
        view.set_gutter(labelled_lines(view.doc, self.session.results, self.session.drafts, self.record_id))
        if navigate and self._reveal and reveal_at is not None and target == view.doc.doc_id:
            self._reveal = False
            view.reveal(reveal_at)

    # -- messages from the widgets ------------------------------------------------------------

    def on_question_form_changed(self, event: QuestionForm.Changed) -> None:
        if event.record_id != self.record_id:
            return
        self.session.update(self.record_id, **{event.field: event.value})
        self._update_title()
        self._request()

    def on_locator_form_changed(self, event: LocatorForm.Changed) -> None:
        draft = self.draft
        if draft is None or not draft.locators:
            return
        if self.anchor_hint is not None and not hint_holds(self.session.project.corpus, self.anchor_hint,
                                                           event.locator.quote):
            self.anchor_hint = None  # typed away from the selected place
        self._set_active_locator(event.locator, reveal=True, typed=True)

    def _set_active_locator(self, loc: LocatorDraft, *, reveal: bool, typed: bool = False) -> None:
        # typing into the locator is one undo step; a selection or a nudge is one step each
        record_id, _ = self._open()
        self.session.set_locator(record_id, self.active, loc, coalesce=typed)
        self._reveal = reveal
        self._show_locators(self._open()[1], self.statuses)  # the new draft
        self._update_title()
        self._request()

    def on_locator_table_chosen(self, event: LocatorTable.Chosen) -> None:
        if event.index == self.active:
            return
        record_id, draft = self._open()  # the table lists the open record's locators
        self.active = event.index
        self.labeller.current = (record_id, self.active)
        self.anchor_hint = None
        self.preview = None
        self._reveal = True
        self.query_one(LocatorForm).load(draft.locators[self.active])
        self._request()

    def on_locator_table_remove_requested(self, event: LocatorTable.RemoveRequested) -> None:
        record_id, _ = self._open()  # the table lists the open record's locators
        self.session.remove_locator(record_id, event.index)
        self.active = max(0, min(self.active, len(self._open()[1].locators) - 1))  # the new draft
        self.anchor_hint = None
        self._load_record()

    def on_document_view_selected(self, event: DocumentView.Selected) -> None:
        draft = self.draft
        if draft is None:
            self.notify("open a question first (F2), or create one with ctrl+n", severity="warning")
            return
        with self.session.history.step():  # a selection on a record without locators: one undo step
            record_id, _ = self._open()
            if not draft.locators:
                self.session.add_locator(record_id)
                self.active = 0
                _, draft = self._open()  # drafts are immutable: adding the locator replaced it
            self.anchor_hint = anchor_hint(self.session.project.corpus, event.doc_id, event.start, event.end)
            loc = self.session.locator_for_range(draft.locators[self.active], event.doc_id, event.start,
                                                 event.end)
            self.query_one(LocatorForm).load(loc)
            self._set_active_locator(loc, reveal=False)

    def on_preview_panel_suggestion_chosen(self, event: PreviewPanel.SuggestionChosen) -> None:
        self._accept(event.suggestion)

    def on_preview_panel_suggestion_highlighted(self, event: PreviewPanel.SuggestionHighlighted) -> None:
        place = event.place
        if place is None and event.suggestion.get("quote"):
            place = self.session.locate_suggestion(event.suggestion)
        if place is None:
            return
        self.show_document(place.doc)
        self._draw_marks(navigate=False)
        view = self.query_one(DocumentView)
        view.set_marks([*view.marks, Mark(place.start, place.end, "hit")])
        view.reveal(place.start)

    def _accept(self, suggestion: dict) -> None:
        record_id, draft = self._open()  # suggestions are shown for the open record's locator
        old = draft.locators[self.active]
        loc = self.session.apply_suggestion(record_id, self.active, suggestion)
        self.was = (record_id, self.active, loc, old)
        if "char_start" in suggestion:
            self.anchor_hint = (suggestion["doc"], suggestion["char_start"], suggestion["char_end"])
        self.query_one(LocatorForm).load(loc)
        self._reveal = True
        self._show_locators(self._open()[1], self.statuses)  # the new draft
        self._update_title()
        self._request()

    def on_corpus_tree_document_chosen(self, event: CorpusTree.DocumentChosen) -> None:
        self.show_document(event.doc_id)
        self.search_mark = None
        self._draw_marks(navigate=False)
        if self.panes.viewing:
            self.panes.focus(self.query_one(DocumentView))

    def on_search_panel_query(self, event: SearchPanel.Query) -> None:
        if self.session.ready:
            self._searches.request(event.text)

    def on_search_panel_hit_chosen(self, event: SearchPanel.HitChosen) -> None:
        self.panes.focus(self.query_one(DocumentView))
        self._show_at(event.doc_id, event.start, event.end)

    def _show_at(self, doc_id: str, start: int, end: int) -> None:
        """Show ``doc_id`` with ``[start, end)`` marked as a hit and the cursor at its start."""
        self.search_mark = (doc_id, start, end)
        self.show_document(doc_id)
        self._draw_marks(navigate=False)
        view = self.query_one(DocumentView)
        if view.size.width:
            view.reveal(start)
        else:  # back from the corpus view: the text is wrapped at the view's width only once it has one
            self._reveal_when_wrapped = start

    def _view_wrapped(self) -> None:
        if self._reveal_when_wrapped is not None and self.query_one(DocumentView).size.width:
            self.query_one(DocumentView).reveal(self._reveal_when_wrapped)
            self._reveal_when_wrapped = None

    # -- actions --------------------------------------------------------------------------

    def action_add_locator(self) -> None:
        if self.draft is None:
            return
        record_id, _ = self._open()
        self.active = self.session.add_locator(record_id)
        self.labeller.current = (record_id, self.active)
        self.anchor_hint = None
        self.preview = None
        self._load_record()
        self.panes.focus(self.query_one("#loc-quote", Input))

    def action_accept_suggestion(self) -> None:
        chosen = self.query_one(PreviewPanel).chosen()
        if chosen is None:
            self.notify("no suggestion to accept", severity="warning")
            return
        self._accept(chosen)

    def action_next_broken(self) -> None:
        broken = self.session.broken_records()
        if not broken:
            self.notify("no broken labels")
            return
        rid = broken[next_index(broken, self.record_id)]
        self.open_record(rid, self.session.first_refused_locator(rid))

    def action_focus_search(self) -> None:
        self.query_one(TabbedContent).active = "tab-search"
        self.panes.focus(self.query_one("#search-input", Input))

    def action_focus_document(self) -> None:
        """Esc: to the document (from the corpus view, back to it)."""
        self.panes.focus(self.query_one(DocumentView))

    def action_jump(self, selector: str) -> None:
        widget = self.query_one(selector)
        if widget.disabled or not widget.display:
            self.notify("nothing there yet: " + ("no suggestions" if selector == "#preview-suggestions"
                                                 else "open a question (F2) or press ctrl+n"), severity="warning")
            return
        self.panes.focus(widget)

    def action_chunk_ids(self) -> None:
        p = self.preview
        what = f"locator {self.active + 1}" if self.record_id is not None else "no question"
        full_ids(self.app, [c.chunk_id for c in p.chunks] if p is not None and p.span is not None else [], what)

    def action_pick(self, n: int) -> None:
        if not self.query_one(PreviewPanel).pick(n - 1):
            self.notify(f"no suggestion {n} to accept", severity="warning")

    def action_find(self) -> None:
        if self.query_one(DocumentView).doc is None:
            self.notify("no document shown: open a question, a search hit or a file", severity="warning")
            return

        def done(text: str | None) -> None:
            if text:
                self.find_text = text
                self.action_find_again(True)

        self.app.push_screen(Ask("Find in the document", "text (case ignored)", self.find_text), done)

    def action_find_again(self, forward: bool) -> None:
        if not self.find_text:
            self.notify("nothing to find yet: press / first", severity="warning")
            return
        view = self.query_one(DocumentView)
        if view.find(self.find_text, forward) is None:
            self.notify(visible_line(f"not in this document: {self.find_text}"), severity="warning", markup=False)
        self.panes.focus(view)

    def action_go_to_line(self) -> None:
        view = self.query_one(DocumentView)
        doc = view.doc
        if doc is None:
            self.notify("no document shown", severity="warning")
            return

        def done(text: str | None) -> None:
            if text is None:
                return
            if not text.strip().isdigit():
                self.notify(f"a line number, please (1–{len(doc.line_starts)})", severity="warning")
                return
            view.go_to_line(int(text))
            self.panes.focus(view)

        self.app.push_screen(Ask("Go to line", f"1–{len(doc.line_starts)}"), done)

    def action_next_unlabelled(self) -> None:
        gaps = self.session.unlabelled()
        if not gaps:
            self.notify("every document and section has a label")
            return
        at = next_index(gaps, self.gap)
        self.gap = gaps[at]
        self._show_at(self.gap.doc_id, self.gap.start, self.gap.end)
        self.notify(visible_line(f"unlabelled {at + 1}/{len(gaps)}: {self.gap.describe()}"), markup=False)

    def action_nudge(self, how: str) -> None:
        draft = self.draft
        if draft is None or not draft.locators:
            return
        pos = anchor_position(self.preview, self._selected_start(), self.anchor_hint)
        if pos is None:
            self.notify("nothing to nudge: the quote has no place in the corpus yet", severity="warning")
            return
        moved = nudged(self.session.project.corpus, pos, how)
        if isinstance(moved, str):  # it cannot move that way: say why
            self.app.bell()
            self.notify(moved, severity="warning", markup=False)
            return
        (doc_id, s, e), self.anchor_hint = moved
        old = draft.locators[self.active]
        loc = self.session.locator_for_range(old, doc_id, s, e)
        for note in context_change((old.prefix, old.suffix), (loc.prefix, loc.suffix)):
            self.notify(visible_line(note), markup=False)
        self.query_one(LocatorForm).load(loc)
        self._set_active_locator(loc, reveal=True)
