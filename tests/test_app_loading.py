"""Start-up: the question list is shown before the corpus is read, and fills in after.

The corpus loader is held on an ``Event`` the test releases (never a sleep), so "before the
corpus is loaded" is a fact of the test, not a race: while it is held, the app must already
show every question with a pending status, refuse to save, and still resolve everything
once it is let go. The loader refuses to run on the UI thread, so a start-up that reads the
corpus before the first screen fails here instead of hanging.
"""

from __future__ import annotations

import asyncio
import threading

import pytest

from helpers_app import make_app, run_async, settle, write_small_project
from labeller.app.screens.questions import QuestionsScreen
from labeller.app.session.statuses import STATUS_PENDING, STATUS_RESOLVED, STATUS_UNANSWERABLE
from labeller.app.widgets.question_list import QuestionTable
from labeller.core import project as project_module

SIZE = (150, 45)


def hold_the_corpus(monkeypatch) -> tuple[threading.Event, threading.Event]:
    """Make every corpus read wait for ``release``; ``entered`` says a read is waiting."""
    entered, release = threading.Event(), threading.Event()
    real = project_module.load_corpus

    def held(*args, **kwargs):
        if threading.current_thread() is threading.main_thread():
            raise AssertionError("the corpus was read on the UI thread, before the first screen")
        entered.set()
        release.wait()
        return real(*args, **kwargs)

    monkeypatch.setattr(project_module, "load_corpus", held)
    return entered, release


def statuses(app) -> dict[str, str]:
    table = app.screen.query_one(QuestionTable)
    return {str(key.value): table.get_cell(key, "status").plain for key in table.rows}


@run_async
async def test_the_question_list_shows_before_the_corpus_is_read_and_fills_in_after(tmp_path, monkeypatch):
    root = write_small_project(tmp_path / "proj")
    questions = root / "golden" / "questions.jsonl"
    entered, release = hold_the_corpus(monkeypatch)
    app = make_app(root)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert await asyncio.to_thread(entered.wait, 60), "the loading worker never started"
            await pilot.pause()
            assert isinstance(app.screen, QuestionsScreen)
            assert not app.session.project.corpus_loaded
            assert statuses(app) == {"q001": STATUS_PENDING, "q002": STATUS_PENDING, "q003": STATUS_PENDING,
                                     "q004": STATUS_UNANSWERABLE}  # an unanswerable record needs no corpus
            assert "reading the corpus…" in app.status_line()

            # saving now is refused: nothing written, the edit kept (it is in the journal)
            before = questions.read_bytes()
            app.session.update("q001", query="How is the API key rotated?")
            app.action_save()
            await pilot.pause()
            assert questions.read_bytes() == before
            assert "still being read" in app.last_save
            assert app.session.is_dirty("q001") and app.session.journal.read() is not None

            release.set()
            await settle(pilot)
            assert app.session.project.corpus_loaded and app.session.ready
            assert statuses(app) == {"q001": STATUS_RESOLVED, "q002": STATUS_RESOLVED, "q003": STATUS_RESOLVED,
                                     "q004": STATUS_UNANSWERABLE}
            assert "reading the corpus" not in app.status_line()

            app.action_save()  # and now it saves and rebuilds
            await settle(pilot)
            assert "How is the API key rotated?" in questions.read_text(encoding="utf-8")
            assert (root / "golden" / "golden-set.v1.jsonl").is_file(), app.last_save
    finally:
        release.set()  # never leave the worker thread waiting, whatever failed


@run_async
async def test_a_corpus_refused_at_start_ends_the_app_with_its_reason(tmp_path):
    root = write_small_project(tmp_path / "proj")
    (root / "corpus" / "link.md").symlink_to(root / "corpus" / "ops" / "oncall.md")
    app = make_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
    assert app.return_code == 2
    assert app.refusal is not None and "symlink" in str(app.refusal)


def test_settle_waits_for_an_animation_to_end(tmp_path):
    """Textual scrolls a newly focused widget into view over several frames of the clock; a
    ``settle`` that returned meanwhile let a click land where the widget had been (the eval
    tab's header click on a loaded machine). An animation (a second long, far longer than a
    settle's pauses) is under way: ``settle`` returns only once it has ended."""

    class Box:
        value = 0.0

    box = Box()
    app = make_app(write_small_project(tmp_path / "proj"))

    async def run() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            app.animator.animate(box, "value", 1.0, duration=1.0)
            await settle(pilot)
            assert box.value == 1.0
            await settle(pilot)  # nothing under way: returns at once
            assert box.value == 1.0

    asyncio.run(run())


def test_settle_waits_for_a_late_ready(tmp_path, monkeypatch):
    """Textual posts ``Ready`` (which starts the loading) after the pilot is handed over; under
    load it can arrive after a first ``settle`` found no worker running, and a snapshot taken
    then catches the start's toast on the next screen (the flaky broken-labels snapshot). Here
    ``Ready`` is held back for as long as the test wants: ``settle`` must not call the app
    settled while it is held, and must wait for the loading once it is let through."""
    from labeller.app.app import LabellerApp

    real = LabellerApp.on_ready
    monkeypatch.setattr(LabellerApp, "on_ready", lambda self: None)  # Ready not handled yet
    app = make_app(write_small_project(tmp_path / "proj"))

    async def run() -> None:
        async with app.run_test(size=SIZE) as pilot:
            with pytest.raises(RuntimeError, match="did not settle"):
                await settle(pilot, rounds=3)
            assert app.start_pending and not app.session.project.corpus_loaded
            real(app)  # Ready arrives at last
            await settle(pilot)
            assert not app.start_pending and app.session.project.corpus_loaded
            assert statuses(app)["q001"] == STATUS_RESOLVED

    asyncio.run(run())
