"""The review screen at 80×24, 100×30 and wide: the record editor keeps in view what it edits
(the review status, the query, the quote) with every key of its key bar and the focused JSON
drawn whole; a long query or quote wraps under its own first column, not back to column 0.
"""

from __future__ import annotations

import re

import pytest

from helpers_app import assert_focus_on_screen, on_screen, run_async, settle
from helpers_review import QUESTIONS, make_project
from labeller.app.review_app import ScreenApp
from labeller.app.screens.records import RecordEditor
from labeller.app.screens.review import ReviewScreen
from labeller.app.widgets.key_bar import KeyBar
from labeller.app.widgets.textual_adapter import FooterKey
from labeller.config import load_config
from labeller.core.project import Project

EDITOR_SIZES = [(80, 24), (100, 30), (160, 48)]
WIDTHS = [80, 100, 140]  # one of each width class (app.widths)

COMMENT = "the answer needs the restore schedule too"
# long enough to wrap twice at 140 columns, words of every length
LONG_QUERY = ("When a key rotation is announced in the ops channel and the primary region has been done "
              "first, how long do the old keys stay valid, which services must be redeployed, and who "
              "signs off on the rotation once every region has been redeployed and checked by on-call?")
LONG_LINE = ("Old keys stay valid for a grace period of twenty-four hours after the rotation, during which "
             "every service that still holds one must be redeployed with the new key; the on-call engineer "
             "checks each region's dashboards before the rotation is signed off in the ops channel.")
QUOTE = "every service that still holds one must be redeployed with the new key"


def lines_of(widget) -> list[str]:
    """Every line the widget draws (its whole height, scrolled into view or not)."""
    return [widget.render_line(y).text for y in range(widget.size.height)]


@pytest.mark.parametrize("size", EDITOR_SIZES, ids=[f"{w}x{h}" for w, h in EDITOR_SIZES])
@run_async
async def test_the_record_editor_shows_what_it_edits_with_its_keys(tmp_path, size):
    project = make_project(tmp_path / "p")
    q1 = QUESTIONS[0]
    app = ScreenApp(lambda: ReviewScreen(project, ["q1", "q2"], "ann"))
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("f", *COMMENT, "enter")  # a decision with a comment: the status to show
        await settle(pilot)
        await pilot.press("p", "e")
        await settle(pilot)
        editor = app.screen
        assert isinstance(editor, RecordEditor)
        assert_focus_on_screen(app, "ed-text")
        for selector in ("#ed-title", "#ed-context", "#ed-error", "KeyBar"):
            assert on_screen(editor.query_one(selector)), selector
        keys = list(editor.query_one(KeyBar).query(FooterKey))
        assert {k.description for k in keys} >= {b.description for b in editor.BINDINGS if b.show}
        assert all(on_screen(k) for k in keys)
        context = " ".join(" ".join(lines_of(editor.query_one("#ed-context"))).split())
        for shown in ("review 1/2", "flagged", COMMENT, q1["query"], q1["locators"][0]["quote"]):
            assert shown in context, (shown, context)
        area = editor.query_one("#ed-text")
        assert area.region.height >= editor.query_one("#ed-context").region.height  # the JSON has the room

        area.load_text(area.text.replace('"id"', '"id":', 1))  # malformed: the error shows, nothing moves off
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.screen is editor
        error = editor.query_one("#ed-error")
        assert on_screen(error) and "malformed JSON" in " ".join(lines_of(error))
        assert_focus_on_screen(app, "ed-text")
        assert on_screen(editor.query_one(KeyBar))


@run_async
async def test_the_editor_context_is_one_line_a_row_whatever_the_record(tmp_path):
    """A long query and more locators than the summary lists: each row one line (cut with an
    ellipsis, the JSON below holds every word), the locators past the limit counted."""
    from labeller.app.widgets.record_view import SUMMARY_LOCATORS

    quotes = ["every ninety days", "nightly at 02:00", "30 days", "Restores are tested monthly",
              "snapshots are taken hourly"]
    project = make_project(tmp_path / "p", [{"id": "q1", "query": LONG_QUERY, "expected_answer": "",
                                             "locators": [{"doc": "ops.md", "quote": q} for q in quotes]}])
    app = ScreenApp(lambda: ReviewScreen(project, ["q1"], "ann"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        editor = app.screen
        context = editor.query_one("#ed-context")
        lines = [line.rstrip() for line in lines_of(context) if line.strip() and not line.strip().startswith("─")]
        assert [line.split()[0] for line in lines] == ["status", "query", *["quote"] * SUMMARY_LOCATORS, "…"]
        assert lines[1].endswith("…") and LONG_QUERY.startswith(lines[1].split(None, 1)[1][:-1])
        assert lines[-1].split() == ["…", "and", str(len(quotes) - SUMMARY_LOCATORS), "more", "locators"]
        assert on_screen(context) and on_screen(editor.query_one(KeyBar))
        assert_focus_on_screen(app, "ed-text")
        assert editor.query_one("#ed-text").region.height > context.region.height


def hanging(lines: list[str], first: int, column: int, stop) -> list[str]:
    """The lines that continue line ``first`` (until ``stop`` matches one), each checked to
    start at ``column``: blank before it, text from it."""
    out = []
    for line in lines[first + 1:]:
        if stop(line):
            break
        assert not line[:column].strip() and line[column] != " ", f"not hanging at column {column}: {line!r}"
        out.append(line[column:].rstrip())
    return out


def long_record_project(root) -> Project:
    """One record whose query and quoted document line each wrap at 140 columns."""
    make_project(root, [{"id": "q1", "query": LONG_QUERY, "expected_answer": "Twenty-four hours.",
                         "locators": [{"doc": "long.md", "quote": QUOTE}]}])
    (root / "corpus" / "long.md").write_text(f"# Rotation\n\n{LONG_LINE}\n", encoding="utf-8")
    return Project(load_config(root))


@pytest.mark.parametrize("width", WIDTHS)
@run_async
async def test_a_long_query_and_quote_wrap_under_their_first_column(tmp_path, width):
    project = long_record_project(tmp_path / "p")
    app = ScreenApp(lambda: ReviewScreen(project, ["q1"], "ann"))
    async with app.run_test(size=(width, 30)) as pilot:
        await settle(pilot)
        lines = lines_of(app.screen.query_one("#rv-record"))

        first = next(i for i, line in enumerate(lines) if line.lstrip().startswith("query"))
        column = lines[first].index(LONG_QUERY.split()[0])
        rest = hanging(lines, first, column, lambda line: line.lstrip().startswith("expected"))
        assert rest, "the query fits on one line: nothing to check"
        assert " ".join([lines[first][column:], *rest]).split() == LONG_QUERY.split()

        first = next(i for i, line in enumerate(lines) if "▌" in line)  # the quote's document line
        column = lines[first].index("▌") + 2
        rest = hanging(lines, first, column, lambda line: re.match(r"\s*(\d+ |┆|└)", line) is not None)
        assert rest, "the line fits on one line: nothing to check"
        assert " ".join([lines[first][column:], *rest]).split() == LONG_LINE.split()
