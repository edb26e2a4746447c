"""``LabellerApp``: the authoring app's shell — modes, global keys, save, journal, palette.

Each screen reached by a key (the question list, the authoring workspace, coverage,
broken labels, the eval, help, review mode) declares a ``ModeSpec`` in its own module,
listed in ``labeller.app.screens.modes.SCREENS``; from that list the app makes its key bindings,
its palette commands and the help screen's groups. A new screen is one new module plus
one line there.

The app holds the one ``AuthoringSession`` (``labeller.app.session``); screens read it and
call it, widgets never touch it. Global work lives here: loading the heavy parts of the
project in a worker, the journal restore at start, saving with its conflict check and
the rebuild of the golden set, and quitting without losing anything.

Start-up is two steps, so that the question list is on screen at once however large the
corpus: the first screen needs only the configuration and questions.jsonl (read before the
UI, so a bad one is a clean exit 2 on the terminal) and the modules it shows; the corpus is
read, chunked and every label resolved by the ``prepare`` worker, the statuses showing
"…" until then. Saving is refused until the corpus is read (``SaveOutcome.loading``); a
corpus refused at start (a symlink, a file too large) ends the app with the refusal in
``refusal`` and exit code 2.
"""

from __future__ import annotations

import gc
import weakref
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Iterable, cast

from textual.app import App, ScreenStackError, SystemCommand
from textual.binding import Binding
from textual.keys import format_key
from textual.screen import ModalScreen, Screen

from labeller.app.journal import JournalError
from labeller.app.settings import load_keymap, load_settings, save_settings
from labeller.app.widths import BREAKPOINTS
from labeller.app.screens.modes import SCREENS
from labeller.app.screens.base import SessionScreen
from labeller.app.screens.dialogs import quit_dialog, restore_dialog
from labeller.app.session.journal_diff import journal_changes
from labeller.app.screens.field_keys import after_typed_keys
from labeller.app.screens.host import BindingGroups
from labeller.app.widgets.markup import visible_line
from labeller.app.widgets.textual_adapter import build_mode
from labeller.errors import EXIT_INVALID, LabellerError
from labeller.registry import load_target

if TYPE_CHECKING:  # imported where they are used, not at start-up (the first screen needs none of them)
    import threading

    from labeller.app.screens.author import AuthorScreen
    from labeller.app.session.drafts import Draft
    from labeller.app.session.saving import SaveOutcome
    from labeller.app.session.session import AuthoringSession
    from labeller.core.build import BuildResult
    from labeller.core.project import Project


# Actions a modal dialog must not be interrupted by.
_GLOBAL_ACTIONS = {"switch_mode", "open_screen", "save", "new_question", "reload_corpus", "undo", "redo"}



def _freeze_heap() -> None:
    """Move what the loaded project allocated out of the cycle collector's reach.

    The corpus, chunks and session are millions of long-lived objects; every full
    collection walks them all (55-100 ms on a 1 MB document's project, landing in two of
    three first opens of a record). Frozen after each load (start, reload, review), the
    collector walks only what came since; the previous load's objects are unfrozen first,
    so a reload's garbage is still collected.
    """
    gc.unfreeze()
    gc.collect()
    gc.freeze()

class LabellerApp(App):
    CSS_PATH = "labeller.tcss"
    TITLE = "labeller"
    MODES = {m.name: m.make for m in SCREENS if m.is_mode}  # a screen's module is imported when first shown
    DEFAULT_MODE = next(iter(MODES))
    HORIZONTAL_BREAKPOINTS = BREAKPOINTS  # the width classes (app.widths): -narrow, -medium, -wide
    BINDINGS = [
        *[Binding(m.key, m.action, m.title, priority=True, tooltip=m.help, id=f"go.{m.name}") for m in SCREENS],
        Binding("ctrl+s", "save", "Save", priority=True, id="app.save",
                tooltip="Write questions.jsonl; rebuild the golden set and manifest if every label resolves"),
        Binding("ctrl+z", "undo", "Undo", priority=True, id="app.undo",
                tooltip="Undo the last change to the golden set (edits, locators, suggestions, deletes, restores)"),
        Binding("ctrl+shift+z,ctrl+y", "redo", "Redo", priority=True, id="app.redo", show=False,
                tooltip="Redo the last undone change"),
        Binding("ctrl+n", "new_question", "New question", priority=True, show=False, id="app.new_question",
                tooltip="Create a question with a fresh id and open it"),
        Binding("f8", "reload_corpus", "Reload corpus", priority=True, id="app.reload_corpus",
                tooltip="Read the corpus again after editing it, and re-resolve every label"),
        Binding("f9", "toggle_tree", "Toggle the corpus pane", show=False, id="app.toggle_tree",
                tooltip="Show or hide the corpus pane (files and search); remembered"),
        Binding("ctrl+t", "toggle_dark", "Toggle light/dark theme", show=False, id="app.toggle_theme",
                tooltip="Switch between the dark and the light theme (remembered)"),
        Binding("ctrl+q", "quit", "Quit", priority=True, show=False, id="app.quit",
                tooltip="Quit (unsaved edits stay in the journal and are offered next time)"),
    ]

    def __init__(self, session: AuthoringSession, *, watch_corpus: bool = True, first_mode: str | None = None,
                 **kwargs) -> None:
        """``watch_corpus=False`` (tests, screenshots) leaves the corpus to ``check_corpus``
        and the check before every rebuild, so nothing happens on a clock. ``first_mode``: the
        screen shown first instead of the question list (``labeller app --queue``: the queue).

        Reads the user's keymap first: an unknown binding id there is an ``InvalidInput``
        (exit 2) before anything is shown."""
        keymap = load_keymap(binding_ids)
        assert first_mode is None or first_mode in self.MODES, first_mode
        super().__init__(**kwargs)
        self.first_mode = first_mode
        self.keymap = keymap
        self.settings, self._settings_problem = load_settings()
        self.session = session
        self.watch_corpus = watch_corpus
        self._stop_watching: threading.Event | None = None
        self.current: tuple[str, int] | None = None  # the record (and locator) open in the editor
        self.last_save = ""
        self.sub_title = visible_line(session.config.root.name)
        self.refusal: LabellerError | None = None  # why the app ended at start (the corpus was refused)
        self._prepared_once = False
        self._prepare_when_shown = False  # on_mount found no journal to offer: prepare after the first frame

    def clear_selection(self) -> None:
        """Textual's, but a no-op while no screen is on the stack yet. Every ``Input`` calls it
        when it mounts (its selection's watcher); on Python 3.12 the first mode's inputs can
        mount before its screen is on the stack, and Textual 8.2 then raised
        ``ScreenStackError`` (it catches only ``NoScreen``): the app died at start."""
        try:
            super().clear_selection()
        except ScreenStackError:
            pass

    # -- start: journal, then the heavy loading in a worker ----------------------------------

    def on_mount(self) -> None:
        self.set_keymap(self.keymap)
        if self.first_mode is not None:
            self.switch_mode(self.first_mode)  # before the journal's question, which then shows over it
        if self._settings_problem:
            self.notify(visible_line(self._settings_problem), severity="warning", timeout=10, markup=False)
        if self.settings.theme in self.available_themes:
            self.theme = self.settings.theme
        self.theme_changed_signal.subscribe(self, self._theme_changed)
        try:
            entry = self.session.journal.read()
        except JournalError as exc:
            aside = self.session.journal.set_aside()
            self.notify(visible_line(f"{exc}; moved it to {aside.name}"), severity="error", timeout=15,
                        markup=False)
            entry = None
        if entry is not None and (entry.drafts or entry.deleted):
            changed = entry.base_sha256 != self.session.qfile.source_sha256
            self.push_screen(restore_dialog(journal_changes(entry, self.session.drafts), entry.questions, changed),
                             partial(self._restore_chosen, entry))
        else:
            self._prepare_when_shown = True

    def on_ready(self) -> None:
        """The first frame is on screen (Textual's ``Ready``): only now start the heavy work,
        whose imports and reading would otherwise compete with drawing it."""
        if self._prepare_when_shown:
            self._prepare_when_shown = False
            self.prepare()

    @property
    def start_pending(self) -> bool:
        """True until the first frame's ``Ready`` has started the loading worker. Textual posts
        ``Ready`` after a test's pilot is handed over, so "no worker running" alone is no proof that
        the loading is done: it may not have started yet (``app.pilot.settle`` reads this)."""
        return self._prepare_when_shown

    def _restore_chosen(self, entry, choice: str | None) -> None:
        if choice == "restore":
            ids = self.session.restore(entry)
            self.notify(f"restored {len(ids)} record(s) from the journal; they are unsaved")
        elif choice == "discard":
            self.session.journal.clear()
            self.notify("discarded the journal")
        self.refresh_screens()
        self.prepare()

    def prepare(self) -> None:
        """Read the corpus if it is not read yet and resolve every draft again, in a worker (at
        start, after a reload, after review)."""
        drafts = self.session.snapshot()
        # held weakly: Textual keeps a finished worker (and this closure) a while, and a project
        # read away by a reload must not be kept alive by it, and so frozen (``_freeze_heap``)
        project = weakref.ref(self.session.project)

        def work() -> None:
            try:
                self.session.prepare()
                result = self.session.compute(drafts)
            except LabellerError as exc:
                self.call_from_thread(self._not_prepared, exc, project)
                return
            self.call_from_thread(self._prepared, result, project, drafts)

        self.run_worker(work, thread=True, group="prepare")

    def _not_prepared(self, exc: LabellerError, project_ref: weakref.ref[Project]) -> None:
        project = project_ref()
        if not self._prepared_once and project is not None and not project.corpus_loaded:
            # the corpus was refused at start: as before the UI existed, a clean exit 2 with the
            # reason (``labeller app`` prints it); the journal keeps any restored edits
            self.refusal = exc
            self.exit(return_code=EXIT_INVALID)
            return
        # e.g. a chunker bug, or a corpus reloaded into a refusal: loud, and the app stays open to save edits
        self.notify(visible_line(str(exc)), severity="error", timeout=60, markup=False)

    def _build_author_screen(self) -> None:
        """Build the author screen while idle (Textual builds a mode's screen when it is first
        shown: a third of the first open of a record), so that opening one only shows it
        (issue 17.7). Not while the app is closing, which walks the screens being added to."""
        if self.is_running and self.return_code is None:  # None until exit() is called
            build_mode(self, "author")
            self.call_after_refresh(_freeze_heap)

    def _prepared(self, result: BuildResult, project: weakref.ref[Project], drafts: list[Draft]) -> None:
        if project() is not self.session.project:
            return  # the corpus was read again meanwhile; the newer preparation stores its own
        if not self._prepared_once and self.watch_corpus:
            self._start_watching()  # from the corpus as read; a change before that, the rebuild's check sees
        self._prepared_once = True
        self.session.store(result)
        # drafts edited while the corpus loaded were not in that snapshot: resolve them now
        before = {d.id: d for d in drafts}
        edited = [i for i in self.session.order if self.session.drafts[i] is not before.get(i)]
        if edited:
            self._resolve(edited)
        # warm the search index now, so the first search in the editor does not wait for it
        self.run_worker(self.session.warm_search, thread=True, group="index")
        self.call_after_refresh(self._build_author_screen)
        broken = self.session.broken_records()
        if broken:
            self.notify(f"{len(broken)} record(s) have broken labels: F5 walks through them", severity="warning",
                        timeout=8)
        self.refresh_screens()

    def refresh_screens(self) -> None:
        for screen in self.screen_stack:
            if isinstance(screen, SessionScreen):
                screen.refresh_from_session()

    def help_groups(self) -> BindingGroups:
        return binding_groups(self.keymap, with_ids=True)

    # -- remembered choices: theme, corpus pane ---------------------------------------------

    def _remember(self, **changes) -> None:
        self.settings = replace(self.settings, **changes)
        try:
            save_settings(self.settings)
        except (OSError, LabellerError) as exc:  # a settings.json that is a symlink is not replaced
            self.notify(visible_line(f"settings not saved: {exc}"), severity="warning", markup=False)

    def _theme_changed(self, theme) -> None:
        if theme.name != self.settings.theme:
            self._remember(theme=theme.name)

    def action_toggle_tree(self) -> None:
        """The corpus pane is the author screen's (it says what F9 does at each width)."""
        toggle = getattr(self.screen, "toggle_corpus_pane", None)
        if toggle is None:
            self.notify("the corpus pane is on the author screen (F3)")
        else:
            toggle()

    def remember_pane(self, width_class: str, shown: bool) -> None:
        self._remember(panes={**self.settings.panes, width_class: "shown" if shown else "hidden"})

    def key_for(self, binding_id: str) -> str:
        """The key(s) of a binding as the author's keymap has them."""
        return self.keymap.get(binding_id) or next(b.key for _, b in scoped_bindings() if b.id == binding_id)

    def status_line(self) -> str:
        s = self.session
        n_dirty = sum(1 for i in s.order if s.is_dirty(i)) + len(s.deleted_ids())
        parts = [f"{len(s.order)} questions", f"{n_dirty} unsaved change(s)" if n_dirty else "all saved"]
        if s.loading:
            parts.append("reading the corpus…")
        elif not s.ready:
            parts.append("resolving labels…")
        if self.last_save:
            parts.append(f"last save: {self.last_save}")
        return " · ".join(parts)

    # -- navigation ---------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action in _GLOBAL_ACTIONS and isinstance(self.screen, ModalScreen):
            return False
        return True

    def open_record(self, record_id: str, index: int = 0) -> None:
        """Open a record in the authoring workspace (switching to it)."""
        self.current = (record_id, index)
        if self.current_mode == "author":
            cast("AuthorScreen", self.screen).open_record(record_id, index)
        else:
            self.switch_mode("author")

    async def action_new_question(self) -> None:
        record_id = self.session.new_record()
        if self.current_mode != "author":
            # the keys typed right after ctrl+n are read once the new form has the focus
            self.current = (record_id, 0)
            await self.switch_mode("author")
        self.open_record(record_id)

    def action_undo(self) -> None:
        self._history_moved(self.session.undo(), "undid", "nothing to undo")

    def action_redo(self) -> None:
        self._history_moved(self.session.redo(), "redid", "nothing to redo")

    def _history_moved(self, ids: list[str], verb: str, nothing: str) -> None:
        """Show what undo/redo changed, on every screen, and resolve those records again."""
        if not ids:
            self.notify(nothing)
            return
        shown = ", ".join(ids[:5]) + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")
        self.notify(visible_line(f"{verb} a change to {shown}"), markup=False)
        if self.current is not None and self.current[0] not in self.session.drafts:
            self.current = None
        self.refresh_screens()
        self._resolve(ids)

    def records_changed(self, ids: list[str]) -> None:
        self.refresh_screens()
        self._resolve(ids)

    def _resolve(self, ids: list[str]) -> None:
        """Resolve some records again in a worker (their statuses show "…" until then)."""
        if not self.session.ready:
            return  # the full resolution still to come covers them
        drafts = [self.session.drafts[i] for i in ids if i in self.session.drafts]

        def work() -> None:
            try:
                result = self.session.compute(drafts)
            except LabellerError as exc:
                self.call_from_thread(self.notify, visible_line(str(exc)), severity="error", markup=False)
                return
            self.call_from_thread(self._resolved, result)

        self.run_worker(work, thread=True, group="resolve")

    def _resolved(self, result: BuildResult) -> None:
        for rec in result.records:
            self.session.store_record(rec)
        self.refresh_screens()

    def action_open_screen(self, name: str) -> None:
        """Open a pushed screen (help, review) by its ``ModeSpec``."""
        spec = next(m for m in SCREENS if m.name == name)
        assert spec.open is not None, f"{name} is a mode, not a pushed screen"
        spec.open(self)

    # -- saving -----------------------------------------------------------------------------

    def action_save(self) -> None:
        after_typed_keys(self.screen, self._save_now)  # text typed just before Ctrl+S is saved too

    def _save_now(self) -> None:
        # records this save writes with no split: an eval scores them, but no dev/test/holdout
        # choice was made (issue 38: such a record was saved without a word)
        unsplit = [i for i in self.session.order if self.session.is_dirty(i) and i in self.session.drafts
                   and self.session.drafts[i].split is None and not self.session.drafts[i].problems()]
        out = self.session.save_questions()
        if out.conflict:  # merged record by record, the conflicts asked about, then saved again
            from labeller.app.screens.conflict import save_over_disk

            save_over_disk(self, self.action_save)
            return
        if not out.written:
            self.last_save = out.message()
            self.notify(visible_line(out.message()), severity="error", timeout=15, markup=False)
            self.refresh_screens()
            return
        self.notify("saved questions.jsonl; rebuilding the golden set…")
        if unsplit:
            listed = ", ".join(unsplit[:5]) + (f" and {len(unsplit) - 5} more" if len(unsplit) > 5 else "")
            self.notify(visible_line(f"saved with no split: {listed}; choose dev, test or holdout in the editor's "
                                     "split field (what lets an eval keep tuning apart from testing)"),
                        severity="warning", timeout=15, markup=False)
        self.refresh_screens()

        def work() -> None:
            self.session.rebuild(out)
            self.call_from_thread(self._rebuilt, out)

        self.run_worker(work, thread=True, group="rebuild")

    def _rebuilt(self, out: SaveOutcome) -> None:
        self.session.finish_save(out)
        self.last_save = out.message()
        self.notify(visible_line(out.message()), severity="information" if out.artifact_written else "warning",
                    timeout=10, markup=False)
        self.refresh_screens()
        if out.fresh_project is not None:
            self.prepare()  # every draft resolved again on the corpus as it is now
        if self.session.review_return is not None and not self.session.dirty:
            self.action_open_screen("review")  # an edit made from review: back to its record in the queue

    def action_reload_corpus(self) -> None:
        self.session.reload_corpus()
        self.notify("reading the corpus again…")
        self.prepare()

    # -- the corpus on disk -----------------------------------------------------------------
    #
    # A watcher thread (watchfiles: the OS's own change notification, batched) tells the app
    # that something under the corpus folder changed; ``check_corpus`` then compares digests
    # and reloads only when a document really changed. The watcher only makes the app
    # notice sooner: every rebuild checks the digests itself (``AuthoringSession.rebuild``).

    def check_corpus(self) -> None:
        """Compare the loaded corpus with the files on disk (in a worker); when it changed,
        read it again and resolve every draft again. The watcher calls this; so can tests."""
        def work() -> None:
            try:
                fresh = self.session.fresh_project()
            except LabellerError as exc:  # e.g. a symlink appeared: say so, keep the loaded corpus
                self.call_from_thread(self.notify, visible_line(f"corpus not reloaded: {exc}"), severity="error",
                                      timeout=15, markup=False)
                return
            if fresh is not None:
                self.call_from_thread(self._corpus_changed, fresh)

        self.run_worker(work, thread=True, group="corpus-check", exclusive=True)

    def _corpus_changed(self, fresh) -> None:
        if fresh.corpus.digest == self.session.project.corpus.digest:
            return  # a second check saw the same change
        self.session.reload_corpus(fresh)
        self.notify("the corpus changed on disk: read it again and re-resolving every label")
        self.refresh_screens()
        self.prepare()

    def _start_watching(self) -> None:
        import threading

        import watchfiles

        stop = self._stop_watching = threading.Event()
        folder = self.session.config.corpus

        def watch() -> None:
            try:
                for _changes in watchfiles.watch(folder, stop_event=stop, raise_interrupt=False):
                    self.call_from_thread(self.check_corpus)
            except Exception as exc:  # the hash check before every rebuild still holds
                if not stop.is_set():
                    self.call_from_thread(self.notify, visible_line(f"not watching the corpus: {exc}"),
                                          severity="warning", markup=False)

        threading.Thread(target=watch, name="corpus-watcher", daemon=True).start()

    def on_unmount(self) -> None:
        if self._stop_watching is not None:
            self._stop_watching.set()

    # -- quitting ---------------------------------------------------------------------------

    async def action_quit(self) -> None:
        if not self.session.dirty:
            self.exit()
            return

        def chosen(choice: str | None) -> None:
            if choice == "quit":
                self.exit(message="unsaved edits are kept in the journal and offered on the next start")
            elif choice == "save":
                out = self.session.save_questions()
                if out.conflict or not out.written:
                    self.notify(visible_line(out.message() + "; not quitting"), severity="error", timeout=15,
                                markup=False)
                    return
                self.session.rebuild(out)
                self.exit(message=out.message())

        self.push_screen(quit_dialog(), chosen)

    # -- command palette ----------------------------------------------------------------------

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        # every app-wide binding by its name, with its key as the keymap has it
        for m in SCREENS:
            yield SystemCommand(m.command, f"{m.help} ({key_display(self.key_for(f'go.{m.name}'))})",
                                partial(self.run_action, m.action))
        for binding in _own_bindings(LabellerApp):
            if binding.id is None or binding.id.startswith("go."):
                continue
            yield SystemCommand(binding.description, f"{binding.tooltip} ({key_display(self.key_for(binding.id))})",
                                partial(self.run_action, binding.action))
        # and the keys of the screen on top (the editor's nudges, the eval's run, ...)
        for binding in _own_bindings(type(screen)):
            if binding.id is None or binding.action.startswith(("focus_document", "dismiss", "app.")):
                continue
            yield SystemCommand(binding.description, f"{key_display(self.key_for(binding.id))} on this screen",
                                partial(screen.run_action, binding.action))


def key_display(key: str) -> str:
    """A binding's key(s) as the footer shows them (``^s``, ``[``, ``f2``)."""
    out = []
    for k in key.split(","):
        mods, _, base = k.rpartition("+")
        shown = {"enter": "enter", "escape": "esc", "delete": "del"}.get(base) or format_key(base)
        out.append(("^" if mods == "ctrl" else f"{mods}+" if mods else "") + shown)
    return " / ".join(out)


def _own_bindings(cls) -> list[Binding]:
    """The bindings a labeller class declares itself (not those it inherits from Textual)."""
    found: list[Binding] = []
    for klass in reversed(cls.__mro__):
        if klass.__module__.startswith("labeller.") and "BINDINGS" in klass.__dict__:
            found.extend(b for b in klass.__dict__["BINDINGS"] if isinstance(b, Binding))
    return found


def scoped_bindings() -> list[tuple[str, Binding]]:
    """Every binding of the app with where it applies, in the help screen's order (this
    imports every screen: asked for by help, the palette and a keymap file, not at start)."""
    from labeller.app.screens.conflict import ConflictScreen
    from labeller.app.screens.eval import DrillDownScreen, LeakScreen
    from labeller.app.screens.records import RecordEditor
    from labeller.app.widgets.fields import SafeInput
    from labeller.app.widgets.fields_area import SafeTextArea
    from labeller.app.widgets.locators import LocatorTable
    from labeller.app.widgets.question_list import QuestionTable

    found = [("everywhere", b) for b in _own_bindings(LabellerApp)]
    for m in SCREENS:
        found += [(f"{m.title} ({m.key})", b) for b in _own_bindings(m.screen)]
    for where, cls in (("eval drill-down", DrillDownScreen), ("leak report", LeakScreen),
                       ("record editor (review)", RecordEditor), ("question list", QuestionTable),
                       ("locator list", LocatorTable), ("save conflict", ConflictScreen),
                       ("text fields", SafeInput), ("answer field", SafeTextArea)):
        found += [(where, b) for b in _own_bindings(cls)]
    return found


# Screens whose keys a keymap may move but F1 does not list one by one: the dialogs (F1's
# "dialogs" rows say esc cancels each) and the screens only a stand-alone command runs
# (``labeller annotate`` / ``adjudicate``: the README's review section lists their keys).
UNLISTED_SCREENS = ("ask:Ask", "dialogs:Choice", "records:CommentScreen", "annotate:AnnotateScreen",
                    "adjudicate:AdjudicateScreen", "judging:PoolScreen")


def binding_ids() -> set[str]:
    """The ids a keymap file may name: every binding F1 lists and those of ``UNLISTED_SCREENS``
    (one keymap serves the app and the stand-alone review apps)."""
    unlisted = [b for at in UNLISTED_SCREENS for b in _own_bindings(load_target(at, "labeller.app.screens"))]
    return {b.id for _, b in scoped_bindings() if b.id} | {b.id for b in unlisted if b.id}


def binding_groups(keymap: dict[str, str] | None = None, *, with_ids: bool = False) -> list:
    """Every key of the app by where it applies (keys as ``keymap`` remaps them): rows of
    (key, what it does) for the README table, plus the binding's id for the help screen, whose
    compact table says what a key does by the binding's short name (the palette explains it)."""
    keymap = keymap or {}
    groups: dict[str, list] = {}
    for where, b in scoped_bindings():
        does = b.description if with_ids else b.tooltip or b.description
        row = (key_display(keymap.get(b.id, b.key) if b.id else b.key), does)
        groups.setdefault(where, []).append(row + (b.id or "",) if with_ids else row)
    palette = "Command palette" if with_ids else "Command palette: every action by name"
    fixed = [(key_display(App.COMMAND_PALETTE_BINDING), palette),
             ("tab / shift+tab", "Move between fields")]
    groups["everywhere"] += [row + ("",) if with_ids else row for row in fixed]
    dialogs = [("esc", "Cancel"), ("enter", "Press the focused button")]
    groups["dialogs"] = [row + ("",) if with_ids else row for row in dialogs]
    return list(groups.items())
