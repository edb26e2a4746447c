"""The authoring app driven through Pilot, on throwaway copies of real projects.

Every test waits for the app to settle (``helpers_app.settle``: all messages handled, all
workers done) instead of sleeping, so nothing here depends on timing.
"""

from __future__ import annotations

import io

import json

import pytest
from rich.console import Console

from helpers_app import (  # noqa: F401 (small: a fixture)
    bundled_example_present, copy_bundled_example, make_app, open_record, paste_into, run_async, settle, small, type_into,
    write_small_project)
from labeller.app.screens.author import AuthorScreen
from labeller.app.screens.dialogs import Choice
from labeller.app.screens.help import HelpScreen
from labeller.app.session.drafts import LocatorDraft
from labeller.app.session.preview import preview_locator
from labeller.app.session.session import AuthoringSession
from labeller.app.widgets.document_view import DocumentView
from labeller.app.widgets.preview import PreviewPanel
from labeller.config import load_config
from labeller.core.anchors import fold_quote
from labeller.core.build import build
from labeller.core.check import check
from labeller.core.project import Project

SIZE = (150, 45)


@pytest.fixture
def example(tmp_path):
    """The bundled example when it exists (the README's first command opens it), else the small one."""
    if bundled_example_present():
        return copy_bundled_example(tmp_path / "example")
    return write_small_project(tmp_path / "example")


def find_quotes(root):
    """A unique quote, an ambiguous one (with a unique extension) in one document, from the corpus."""
    project = Project(load_config(root))
    index = project.resolver.index
    unique = ambiguous = None
    for chunk in project.all_chunks:
        words = chunk.text.split()
        for n in range(len(words) - 5):
            if not all(w.isalpha() for w in words[n:n + 5]):
                continue
            quote = " ".join(words[n:n + 5])
            if unique is None and index.count(fold_quote(quote), None, limit=2) == 1:
                unique = (chunk.doc_id, quote)
        for word in words:
            if ambiguous is None and word.isalpha() and len(word) > 3 and index.count(word, chunk.doc_id, 3) == 2:
                ambiguous = (chunk.doc_id, word)
        if unique and ambiguous:
            return unique, ambiguous
    raise AssertionError("the corpus has no usable quotes")


@run_async
async def test_author_a_question_end_to_end(example):
    (doc_id, quote), (amb_doc, amb_word) = find_quotes(example)
    before = (example / "golden" / "questions.jsonl").read_text(encoding="utf-8")
    app = make_app(example)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        n_before = len(app.session.order)
        await pilot.press("ctrl+n")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AuthorScreen)
        rid = screen.record_id
        await type_into(pilot, "#form-query", "Which passage should this new test question find?")
        await settle(pilot)

        # select the answer in the document view: the selection becomes the locator
        screen.show_document(doc_id)
        view = screen.query_one(DocumentView)
        (occ,) = app.session.project.resolver.index.find_all([quote], doc_id)[quote]
        start, end = occ.start, occ.end
        view.select_offsets(start, end)
        await settle(pilot)
        loc = app.session.draft(rid).locators[0]
        assert (loc.doc, loc.quote) == (doc_id, quote)
        assert screen.preview.status == "resolved"
        assert screen.preview.span.quote_start == start
        kinds = {m.kind for m in view._marks}
        assert {"match", "span", "chunk"} <= kinds
        assert screen.preview.chunks, "answer-bearing chunks are listed"

        # an ambiguous quote: refused with every occurrence and its unique extension
        await paste_into(pilot, "#loc-doc", amb_doc)
        await type_into(pilot, "#loc-quote", amb_word)
        await settle(pilot)
        assert screen.preview.status == "ambiguous"
        assert len(screen.preview.refusal.occurrences) == 2
        assert sum(m.kind == "occurrence" for m in view._marks) == 2
        assert app.session.draft(rid).locators[0].quote == amb_word, "a suggestion is never applied on its own"
        await pilot.press("ctrl+g")  # pick the highlighted occurrence: pinned by its shortest context
        await settle(pilot)
        assert screen.preview.status == "resolved"
        picked = app.session.draft(rid).locators[0]
        assert picked.quote == amb_word, "picking an occurrence never widens the quote"
        assert picked.prefix or picked.suffix

        # a quote that is nowhere: not found, with nearest passages offered
        await paste_into(pilot, "#loc-quote", "zqxj wholly absent phrase")
        await settle(pilot)
        assert screen.preview.status == "not found"
        assert not screen.preview.pending

        # back to the unique quote, then save
        await paste_into(pilot, "#loc-doc", doc_id)
        await type_into(pilot, "#loc-quote", quote)
        await settle(pilot)
        assert screen.preview.status == "resolved"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "rebuilt" in app.last_save, app.last_save
        assert not app.session.journal.exists()

    lines = (example / "golden" / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    comments = [ln for ln in before.splitlines() if ln.strip().startswith("//")]
    assert comments == [ln for ln in lines if ln.strip().startswith("//")], "comment lines are kept"
    records = [json.loads(ln) for ln in lines if ln.strip() and not ln.strip().startswith("//")]
    assert len(records) == n_before + 1
    old_ids = [json.loads(ln)["id"] for ln in before.splitlines() if ln.strip() and not ln.strip().startswith("//")]
    assert [r["id"] for r in records[:-1]] == old_ids, "ids are never renumbered or reordered"
    assert records[-1] == {"id": rid, "query": "Which passage should this new test question find?",
                           "expected_answer": "", "locators": [{"doc": doc_id, "quote": quote}]}
    # the rebuilt artifact is exactly what `labeller build` makes of the saved file
    project = Project(load_config(example))
    result = build(project, project.load_questions().questions)
    assert check(result, project.config.layout.artifact, project.config.layout.manifest).ok
    artifact = [json.loads(ln) for ln in project.config.layout.artifact.read_text(encoding="utf-8").splitlines()]
    assert artifact[-1]["query_id"] == rid and artifact[-1]["answer_bearing_chunk_ids"]


@run_async
async def test_selection_offsets_survive_u2028(small):
    """Textual's TextArea splits rows at U+2028; the view's offsets must still be canonical."""
    app = make_app(small)
    async with app.run_test(size=SIZE) as pilot:
        await open_record(pilot, "q001")
        screen = app.screen
        screen.show_document("notes/separators.md")
        view = screen.query_one(DocumentView)
        text = app.session.project.corpus["notes/separators.md"].text
        assert "\u2028" in text
        view.focus()
        # the target is on the 4th LF line; with a U+2028 split it would be the 5th row
        view.move_cursor((3, 4))
        await pilot.press(*["shift+right"] * len("target phrase"))
        await settle(pilot)
        loc = app.session.draft("q001").locators[0]
        assert loc.quote == "target phrase"
        assert screen.preview.span.quote_start == text.index("target phrase")
        # a selection across the separator folds it like any whitespace
        view.move_cursor((2, 6))
        await pilot.press(*["shift+right"] * len("part\u2028second"))
        await settle(pilot)
        assert app.session.draft("q001").locators[0].quote == "part second"
        assert screen.preview.status == "resolved"
        assert screen.preview.span.quote_start == text.index("part\u2028second")


@run_async
async def test_selection_offsets_in_a_crlf_document(small):
    """A CRLF file is shown (and selected in) as its canonical LF text."""
    (small / "corpus" / "notes" / "crlf.md").write_bytes(b"# CRLF\r\n\r\nOne line.\r\nThe crlf target.\r\n")
    app = make_app(small)
    async with app.run_test(size=SIZE) as pilot:
        await open_record(pilot, "q001")
        screen = app.screen
        screen.show_document("notes/crlf.md")
        view = screen.query_one(DocumentView)
        text = app.session.project.corpus["notes/crlf.md"].text
        assert "\r" not in text and "\r" not in view.text
        view.select_offsets(text.index("crlf target"), text.index("crlf target") + len("crlf target"))
        await settle(pilot)
        assert app.session.draft("q001").locators[0].quote == "crlf target"
        assert screen.preview.span.quote_start == text.index("crlf target")


@run_async
async def test_mouse_drag_in_the_document_makes_an_anchor(small):
    app = make_app(small)
    async with app.run_test(size=SIZE) as pilot:
        await open_record(pilot, "q002")
        view = app.screen.query_one(DocumentView)
        assert view.doc.doc_id == "ops/oncall.md"
        # row 2 of the document ("The on-call engineer answers pages ..."), columns 4 to 19
        x = 1 + view.gutter_width + 4  # past the border and the line numbers
        await pilot.mouse_down(view, offset=(x, 3))
        await pilot.hover(view, offset=(x + 15, 3))
        await pilot.mouse_up(view, offset=(x + 15, 3))
        await settle(pilot)
        text = app.session.project.corpus["ops/oncall.md"].text
        start, end = view.selected_offsets()
        assert text.index("The on-call") <= start < end <= text.index(" answers")
        quote = app.session.draft("q002").locators[0].quote
        assert quote == text[start:end].strip() and quote in "on-call engineer"
        assert app.screen.preview.status == "resolved"
        assert app.screen.preview.span.quote_start == text.index(quote)


@run_async
async def test_nudge_moves_the_quote_by_words(small):
    app = make_app(small)
    async with app.run_test(size=SIZE) as pilot:
        await open_record(pilot, "q001")
        screen = app.screen
        screen.query_one(DocumentView).focus()
        await pilot.press("left_square_bracket")
        await settle(pilot)
        assert app.session.draft("q001").locators[0].quote == "to issue a new API key"
        # a word is a run of non-space characters: the quote first grows to the end of "key,"
        await pilot.press("right_square_bracket")
        await settle(pilot)
        assert app.session.draft("q001").locators[0].quote == "to issue a new API key,"
        await pilot.press("right_square_bracket")
        await settle(pilot)
        assert app.session.draft("q001").locators[0].quote == "to issue a new API key, then"
        await pilot.press("left_curly_bracket", "right_curly_bracket", "right_curly_bracket")
        await settle(pilot)
        assert app.session.draft("q001").locators[0].quote == "issue a new API"
        assert screen.preview.status == "resolved"
        assert screen.preview.span.quote_start == app.session.project.corpus["guide/rotate.md"].text.index("issue")


@run_async
async def test_copy_warning(small):
    app = make_app(small)
    async with app.run_test(size=SIZE) as pilot:
        await open_record(pilot, "q001")
        screen = app.screen
        assert not screen.preview.copies_answer
        await type_into(pilot, "#form-query", "issue a new API key then redeploy every service")
        await settle(pilot)
        assert screen.preview.copies_answer
        assert screen.query_one("#copy-warning").display
        assert app.session.status("q001")[0] == "resolved", "a warning, not a refusal"


@run_async
async def test_crash_recovery_from_the_journal(small):
    app = make_app(small)
    async with app.run_test(size=SIZE) as pilot:
        await open_record(pilot, "q002")
        await type_into(pilot, "#form-query", "How quickly are pages answered?")
        await settle(pilot)
        app.exit()  # no save: as if the terminal died
    journal = small / ".labeller" / "journal.json"
    assert journal.exists()
    assert "How quickly are pages answered?" not in (small / "golden" / "questions.jsonl").read_text()

    app2 = make_app(small)
    async with app2.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app2.screen, Choice), "the journal is offered, not applied silently"
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app2.screen, Choice), "Escape does not dismiss it: a choice must be made"
        await pilot.click("#restore")
        await settle(pilot)
        assert app2.session.draft("q002").query == "How quickly are pages answered?"
        assert app2.session.is_dirty("q002")
        assert app2.session.status("q002")[0] == "resolved"

    app3 = make_app(small)
    async with app3.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.click("#discard")
        await settle(pilot)
        assert app3.session.draft("q002").query == "How fast must on-call answer a page?"
        assert not journal.exists()


@run_async
async def test_unfinished_draft_is_kept_not_written(small):
    qpath = small / "golden" / "questions.jsonl"
    app = make_app(small)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+n")
        await settle(pilot)
        rid = app.screen.record_id
        await type_into(pilot, "#form-query", "A question without an anchor yet?")
        await settle(pilot)
        assert app.session.status(rid)[0] == "incomplete"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "kept in the journal" in app.last_save
        assert "golden set and manifest rebuilt" in app.last_save, "the saved file still builds"
    assert rid not in qpath.read_text()
    assert rid in (small / ".labeller" / "journal.json").read_text()


@run_async
async def test_stale_labels_are_walked_through(small):
    session = AuthoringSession.open(small)
    session.prepare()
    out = session.save_questions()
    assert session.rebuild(out).artifact_written
    doc = small / "corpus" / "guide" / "rotate.md"
    doc.write_text(doc.read_text().replace("issue a new API key", "issue a fresh API key"), encoding="utf-8")

    app = make_app(small)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.session.status("q001")[0] == "stale"
        assert app.session.broken_records() == ["q001"]
        await pilot.press("f5")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AuthorScreen) and screen.record_id == "q001"
        assert screen.preview.status == "not found"
        suggestions = screen.preview.refusal.suggestions
        assert any("fresh API key" in s["quote"] for s in suggestions)
        panel = screen.query_one(PreviewPanel)
        options = panel.query_one("#preview-suggestions")
        options.highlighted = next(i for i, s in enumerate(suggestions) if "fresh API key" in s["quote"])
        await pilot.press("ctrl+g")
        await settle(pilot)
        assert screen.preview.status == "resolved"
        assert app.session.broken_records() == []


@run_async
async def test_question_list_filters(small):
    app = make_app(small)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#questions")
        assert table.row_count == 4
        await type_into(pilot, "#filter-text", "rotation")
        await settle(pilot)
        assert [k.value for k in table.rows] == ["q003"]
        await type_into(pilot, "#filter-text", "")
        app.screen.query_one("#filter-status").value = "unanswerable"
        await settle(pilot)
        assert [k.value for k in table.rows] == ["q004"]
        app.screen.query_one("#filter-status").clear()
        app.screen.query_one("#filter-tag").value = "ops"
        await settle(pilot)
        assert [k.value for k in table.rows] == ["q001", "q003"]
        app.screen.query_one("#filter-split").value = "dev"
        await settle(pilot)
        assert [k.value for k in table.rows] == ["q001"]
        table.focus()
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, AuthorScreen) and app.screen.record_id == "q001"


@run_async
async def test_search_jumps_to_the_passage(small):
    app = make_app(small)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f3")
        await settle(pilot)
        await pilot.press("ctrl+f")
        await type_into(pilot, "#search-input", "escalate duty manager")
        await settle(pilot)
        hits = app.screen.query_one("#search-hits")
        assert hits.option_count >= 1
        hits.focus()
        await pilot.press("enter")
        await settle(pilot)
        view = app.screen.query_one(DocumentView)
        assert view.doc.doc_id == "ops/oncall.md"
        assert any(m.kind == "hit" for m in view._marks)


@run_async
async def test_coverage_is_the_build_summary(small):
    app = make_app(small)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f4")
        await settle(pilot)
        docs = app.screen.query_one("#coverage-docs")
        unlabelled = app.screen.query_one("#coverage-unlabelled")
        tags = app.screen.query_one("#coverage-tags")
        rows = {docs.get_row_at(i)[1]: docs.get_row_at(i)[0] for i in range(docs.row_count)}
        assert rows == {"guide/rotate.md": 2, "ops/oncall.md": 1}
        assert [unlabelled.get_row_at(i)[0] for i in range(unlabelled.row_count)] == ["notes/separators.md"]
        assert {tags.get_row_at(i)[2]: tags.get_row_at(i)[0] for i in range(tags.row_count)} == {
            "(no tag)": 1, "oncall": 1, "ops": 2}


@run_async
async def test_help_palette_and_theme(small):
    app = make_app(small)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f1")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        console = Console(width=80, record=True, file=io.StringIO())
        console.print(app.screen.query_one("#help-keys").content)  # the rows as they wrap at 80 columns
        shown = console.export_text()
        for key in ("^s", "f2", "f3", "[", "]", "{", "}", "^g", "app.save", "help.close"):
            assert key in shown
        await pilot.press("escape")
        titles = {c.title for c in app.get_system_commands(app.screen)}
        assert {"Save", "New question", "Go to Author", "Toggle light/dark theme"} <= titles
        theme = app.theme
        await pilot.press("ctrl+t")
        assert app.theme != theme


@run_async
async def test_delete_question(small):
    app = make_app(small)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.screen.query_one("#questions").focus()
        await pilot.press("down", "delete")
        await settle(pilot)
        await pilot.click("#ok")
        await settle(pilot)
        assert "q002" not in app.session.drafts
        await pilot.press("ctrl+s")
        await settle(pilot)
    assert '"q002"' not in (small / "golden" / "questions.jsonl").read_text()


def test_preview_uses_the_core_resolution(small):
    """The live preview is ``resolve_record``'s answer, span for span."""
    session = AuthoringSession.open(small)
    session.prepare()
    draft = session.draft("q002")
    p = preview_locator(session.project, draft, 0)
    core = build(session.project, [draft.to_question()]).records[0]
    assert (p.span.doc_id, p.span.start, p.span.end) == (core.spans[0].doc_id, core.spans[0].start, core.spans[0].end)
    assert [c.chunk_id for c in p.chunks] == core.chunk_ids
    bad = session.set_locator("q002", 0, LocatorDraft(quote="keys rotate"))
    assert preview_locator(session.project, bad, 0).status == "ambiguous"


@run_async
async def test_quit_with_unsaved_edits_asks_and_keeps_the_journal(small):
    app = make_app(small)
    async with app.run_test(size=SIZE) as pilot:
        await open_record(pilot, "q001")
        await type_into(pilot, "#form-query", "How is the API key rotated?")
        await settle(pilot)
        await pilot.press("ctrl+q")
        await settle(pilot)
        assert isinstance(app.screen, Choice)
        await pilot.click("#cancel")
        await settle(pilot)
        assert app.is_running
        await pilot.press("ctrl+q")
        await settle(pilot)
        await pilot.click("#save")
        await settle(pilot)
    assert not app.is_running
    assert "How is the API key rotated?" in (small / "golden" / "questions.jsonl").read_text()
    assert (small / "golden" / "golden-set.v1.jsonl").exists(), "save and quit rebuilds the golden set too"
    assert not (small / ".labeller" / "journal.json").exists()


@run_async
async def test_reload_corpus_after_an_edit(small):
    app = make_app(small)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.session.status("q003")[0] == "resolved"
        doc = small / "corpus" / "guide" / "rotate.md"
        doc.write_text(doc.read_text().replace("Tuesday", "Wednesday"), encoding="utf-8")
        app.action_reload_corpus()
        await settle(pilot)
        assert app.session.status("q003")[0] == "not found"


@run_async
async def test_every_screen_is_reached_from_its_mode_spec(small, monkeypatch):
    """One ``ModeSpec`` per screen, pushed or not, gives it its key, palette command and help
    group: nothing else has to be written for a screen to be reachable."""
    from labeller.app.app import LabellerApp, binding_groups
    from labeller.app.screens.modes import SCREENS

    monkeypatch.setenv("LABELLER_REVIEWER", "alice")
    keys = {b.key: b.action for b in LabellerApp.BINDINGS}
    groups = {where for where, _ in binding_groups()}
    app = make_app(small)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        titles = {c.title for c in app.get_system_commands(app.screen)}
        for m in SCREENS:
            assert keys[m.key] == m.action and m.command in titles
            assert f"{m.title} ({m.key})" in groups or not m.screen.__dict__.get("BINDINGS")
            await pilot.press(m.key)
            await settle(pilot)
            assert isinstance(app.screen, m.screen), m.name
            if not m.is_mode:
                await pilot.press("escape")
                await settle(pilot)
    assert len({m.name for m in SCREENS}) == len({m.key for m in SCREENS}) == len(SCREENS)


def test_screens_are_a_registry_another_package_extends(monkeypatch):
    """``SCREENS`` comes from one ``Registry`` with the ``labeller.screens`` entry-point group:
    a package's ``ModeSpec`` comes after the built-in screens and cannot replace one."""
    import importlib.metadata
    from types import SimpleNamespace

    from labeller.app.screens import modes
    from labeller.app.screens.spec import ModeSpec
    from labeller.registry import Registry

    extra = ModeSpec("extra", "Extra", "f12", "A plugin's screen", "coverage:CoverageScreen")
    impostor = ModeSpec("help", "Not help", "f11", "Would replace help", "coverage:CoverageScreen")
    fake = [SimpleNamespace(name="extra", value="pkg:extra", load=lambda: extra),
            SimpleNamespace(name="help", value="pkg:impostor", load=lambda: impostor)]
    monkeypatch.setattr(importlib.metadata, "entry_points",
                        lambda group: fake if group == modes.SCREEN_SPECS.group else [])
    fresh = Registry(modes.SCREEN_SPECS.package, dict(modes.SCREEN_SPECS), group=modes.SCREEN_SPECS.group)
    specs = fresh.implementations()
    assert specs == [*modes.SCREENS, extra] and impostor not in specs
    assert modes.SCREEN_SPECS.group == "labeller.screens"
