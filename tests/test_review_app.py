"""Pilot tests of the review, blind annotation and adjudication screens, run standalone."""

from __future__ import annotations

import asyncio
import io
import json

from rich.console import Console
from textual.widgets import Input, Static, TextArea

from labeller.app.review_app import ScreenApp
from labeller.app.screens.adjudicate import AdjudicateScreen
from labeller.app.screens.annotate import AnnotateScreen
from labeller.app.screens.records import CommentScreen, RecordEditor
from labeller.app.screens.review import ReviewScreen
from labeller.review.annotations import load_annotations
from labeller.review.log import read_review_log, record_digest

from helpers_review import make_project
from test_review_agreement import BOB, write_annotations

SIZE = (120, 45)


def text_of(screen, selector: str) -> str:
    """What a Static shows, as plain text (Rich renders it; no terminal needed)."""
    console = Console(width=200, file=io.StringIO(), color_system=None)
    with console.capture() as cap:
        console.print(screen.query_one(selector, Static).content)
    return cap.get()


def questions(project) -> dict:
    return {q.id: q for q in project.load_questions().questions}


def run(coro) -> None:
    asyncio.run(coro)


def test_review_session_accept_flag_edit(tmp_path):
    project = make_project(tmp_path)
    before = questions(project)

    async def session() -> None:
        app = ScreenApp(lambda: ReviewScreen(project, ["q1", "q2", "q3"], "alice"))
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, ReviewScreen)
            shown = text_of(screen, "#rv-record")
            # the query, the expected answer, the span with its kind, place and chunk boundary
            assert "How often is the API key rotated?" in shown and "Every ninety days." in shown
            assert "span 1/1 paragraph ops.md:3-3  [14, 84)  70 chars" in shown
            assert "┌─ chunk 1/" in shown and "└─ end of chunk 1/" in shown  # counted from 1, as the editor counts
            assert "unreviewed" in text_of(screen, "#rv-head")

            await pilot.press("a")  # accept q1, move on
            assert screen.index == 1

            await pilot.press("f")  # flag q2: a comment is asked for first
            assert isinstance(app.screen, CommentScreen)
            await pilot.press("enter")  # an empty comment is refused
            assert isinstance(app.screen, CommentScreen)
            app.screen.query_one(Input).value = "the restore schedule belongs in the answer too"
            await pilot.press("enter")
            assert app.screen is screen and screen.index == 2

            await pilot.press("e")  # edit q3 in place
            editor = app.screen
            assert isinstance(editor, RecordEditor)
            record = json.loads(editor.query_one(TextArea).text)
            assert record == before["q3"].as_json()
            editor.query_one(TextArea).load_text(json.dumps(record | {"locators": [{"quote": "no such row"}]}))
            await pilot.press("ctrl+s")  # refused: the locator does not resolve; the editor stays open
            assert app.screen is editor
            assert "not_found" in text_of(editor, "#ed-error")
            editor.query_one(TextArea).load_text(json.dumps(record | {"query": "How long is a backup kept?"}))
            await pilot.press("ctrl+s")
            await pilot.pause()
            assert app.screen is screen
            assert "needs re-review" in text_of(screen, "#rv-head")
            assert "How long is a backup kept?" in text_of(screen, "#rv-record")

    run(session())
    after = questions(project)
    assert after["q3"].query == "How long is a backup kept?"
    log = read_review_log(project.config.layout.review_log)
    assert [(e.record_id, e.decision, e.reviewer) for e in log.entries] == [
        ("q1", "accept", "alice"), ("q2", "flag", "alice"), ("q3", "edit", "alice")]
    assert log.latest("q2").comment == "the restore schedule belongs in the answer too"
    assert log.latest("q3").record_digest == record_digest(before["q3"])  # the version that was reviewed
    assert log.statuses(list(after.values())) == {"q1": "reviewed", "q2": "flagged", "q3": "needs_rereview",
                                                  "q4": "unreviewed"}


def test_review_shows_a_negative_and_a_broken_label(tmp_path):
    project = make_project(tmp_path)
    text = project.config.questions.read_text(encoding="utf-8").replace('"quote": "30 days"', '"quote": "45 days"')
    project.config.questions.write_text(text, encoding="utf-8")

    async def session() -> None:
        app = ScreenApp(lambda: ReviewScreen(project, ["q3", "q4"], "alice"))
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert "refused (not_found)" in text_of(app.screen, "#rv-record")
            await pilot.press("n")
            assert "unanswerable (negative" in text_of(app.screen, "#rv-record")
            await pilot.press("q")
            await pilot.pause()

    run(session())


def test_review_survives_files_going_bad_under_it(tmp_path):
    project = make_project(tmp_path)
    questions_path = project.config.questions

    async def session() -> None:
        app = ScreenApp(lambda: ReviewScreen(project, ["q1", "q2"], "alice"))
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            screen = app.screen
            questions_path.write_text(questions_path.read_text(encoding="utf-8") + "{not json\n", encoding="utf-8")
            await pilot.press("a")  # the accept is logged; re-reading the broken file is reported, not fatal
            assert app.screen is screen and screen.index == 1
            assert "1 problem(s) in the questions file" in text_of(screen, "#rv-head")
            assert "How often is the API key rotated?" not in text_of(screen, "#rv-record")
            assert "When do backups run?" in text_of(screen, "#rv-record")  # the last good view

    run(session())
    assert [e.record_id for e in read_review_log(project.config.layout.review_log).entries] == ["q1"]


def test_blind_annotation_never_shows_the_golden_labels(tmp_path):
    project = make_project(tmp_path)

    async def session() -> None:
        app = ScreenApp(lambda: AnnotateScreen(project, ["q1", "q2"], "bob"))
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            screen = app.screen
            svg = app.export_screenshot()
            assert "rotated?" in svg  # the query is there ...
            for hidden in ("ninety", "Every", "ops.md"):  # ... but not A's quote, answer or document
                assert hidden not in svg

            await pilot.press("slash")
            assert isinstance(screen.focused, Input)
            screen.query_one("#an-quote", Input).value = "keys rotate"
            await pilot.pause()
            assert "would label paragraph ops.md:3-3" in text_of(screen, "#an-preview")
            await pilot.press("enter")
            screen.query_one("#an-quote", Input).value = "Run keys rotate"  # the same block again
            await pilot.press("enter")
            screen.query_one("#an-quote", Input).value = "the"  # ambiguous: refused, with occurrences shown
            await pilot.pause()
            assert "refused (ambiguous)" in text_of(screen, "#an-preview")
            await pilot.press("enter")
            screen.query_one("#an-quote", Input).value = "Deploys happen"
            await pilot.press("enter")
            assert [loc.quote for loc in load_annotations(project.config, "bob").get("q1")] == ["keys rotate",
                                                                                              "Deploys happen"]
            await pilot.press("escape")  # leave the input; letters are commands again
            assert not isinstance(screen.focused, Input)
            await pilot.press("d")  # remove the highlighted (first) locator
            assert [loc.quote for loc in load_annotations(project.config, "bob").get("q1")] == ["Deploys happen"]
            await pilot.press("n", "u")  # q2: "no answer"
            assert "no answer" in text_of(screen, "#an-head")
            await pilot.press("q")
            await pilot.pause()

    run(session())
    ann = load_annotations(project.config, "bob")
    assert list(ann.records) == ["q1", "q2"] and ann.get("q2") == []
    assert questions(project)["q1"].locators[0].quote == "every ninety days"  # questions.jsonl untouched


def test_annotation_can_show_the_expected_answer_on_request(tmp_path):
    project = make_project(tmp_path)

    async def session() -> None:
        app = ScreenApp(lambda: AnnotateScreen(project, ["q1"], "bob", show_expected=True))
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            shown = text_of(app.screen, "#an-query")
            assert "rotated?" in shown and "expected answer: Every ninety days." in shown
            assert "ops.md" not in app.export_screenshot()  # the locators stay hidden

    run(session())
    assert not load_annotations(project.config, "bob").path.exists()  # looking writes nothing


def test_adjudication_keep_merge_and_write_new(tmp_path):
    project = make_project(tmp_path)
    write_annotations(project, "bob", BOB)

    async def session() -> None:
        app = ScreenApp(lambda: AdjudicateScreen(project, "bob", "carol", ["q2", "q3", "q1"]))
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            screen = app.screen
            a_side, b_side = text_of(screen, "#ad-a"), text_of(screen, "#ad-b")
            assert "A  questions.jsonl" in a_side and "B  bob" in b_side
            assert a_side.count("same on both sides") == 1 and "only on this side" not in a_side
            assert b_side.count("same on both sides") == 1 and b_side.count("only on this side") == 1
            assert "char F1 0.81" in text_of(screen, "#ad-head")

            await pilot.press("m")  # q2: merge
            assert screen.index == 1
            await pilot.press("b")  # q3: keep B
            assert screen.index == 2
            await pilot.press("w")  # q1: write a new record by hand
            editor = app.screen
            assert isinstance(editor, RecordEditor)
            record = json.loads(editor.query_one(TextArea).text)
            assert record["locators"] == [{"doc": "ops.md", "quote": "every ninety days"}]  # A and B: one span
            editor.query_one(TextArea).load_text(json.dumps(record | {"expected_answer": "Every 90 days."}))
            await pilot.press("ctrl+s")
            await pilot.pause()
            assert app.screen is screen
            assert "adjudicated against bob: new by carol" in text_of(screen, "#ad-head")

    run(session())
    qs = questions(project)
    assert [loc.as_json() for loc in qs["q2"].locators] == [{"quote": "nightly at 02:00"},
                                                            {"quote": "snapshots are taken hourly"}]
    assert [loc.as_json() for loc in qs["q3"].locators] == [{"doc": "ops.md", "quote": "retention is set per bucket"}]
    assert qs["q1"].expected_answer == "Every 90 days."
    log = read_review_log(project.config.layout.review_log)
    assert [(e.record_id, e.comment) for e in log.entries] == [("q2", "adjudicated against bob: merge"),
                                                              ("q3", "adjudicated against bob: keep_b"),
                                                              ("q1", "adjudicated against bob: new")]
    assert log.statuses(list(qs.values())) == {"q1": "reviewed", "q2": "reviewed", "q3": "reviewed",
                                               "q4": "unreviewed"}
