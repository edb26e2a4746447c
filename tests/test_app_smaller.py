"""Issue 38's smaller items (38.12) and the eval's curve (38.10), each held at 80×24 and 120×40:
a checkbox reads ticked or not without colour; the question list never shows a horizontal
scrollbar (its lone thumb read as a stray glyph); the editor's colour legend is one line per
colour; an ambiguous quote's list says "pin to a document" when it starts with pins; the
near-verbatim warning leaves with its cause and comes back with it; the restore dialog says
what each record's unsaved edit changes; the recall@k curve shows from 120 columns with its
legend outside the plot, and below that a line says where it went.
"""

from __future__ import annotations

import pytest

from helpers_app import make_app, on_screen, open_record, paste_into, run_async, settle, small  # noqa: F401
from labeller.app.journal import JournalEntry
from labeller.app.session.drafts import Draft
from labeller.app.session.journal_diff import journal_changes
from labeller.app.session.session import AuthoringSession
from labeller.app.widgets.preview import LEGEND, LEGEND_ROWS
from labeller.app.widths import CURVE_COLUMNS

SIZES = [(80, 24), (120, 40)]
IDS = [f"{w}x{h}" for w, h in SIZES]
BOXES = ("#form-unanswerable", "#loc-exact", "#loc-whole")


def drawn(widget) -> list[str]:
    """The widget's lines as a terminal without colour shows them."""
    return [widget.render_line(y).text for y in range(widget.size.height)]


@pytest.mark.parametrize("size", SIZES, ids=IDS)
@run_async
async def test_the_editor_at_a_glance_without_colour(small, size):
    """Checkboxes, the colour legend and the question list, each read as plain text."""
    app = make_app(small)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        table = app.screen.query_one("QuestionTable")
        assert table.virtual_size.width > table.scrollable_content_region.width or size[0] > 80, \
            "at 80 columns the rows are wider than the list (the case that showed a scrollbar)"
        assert not table.show_horizontal_scrollbar, "the question list never scrolls sideways"

        await open_record(pilot, "q001")
        screen = app.screen
        for selector in BOXES:
            box = screen.query_one(selector)
            box.value = False
            await pilot.pause()
            off = drawn(box)[0]
            box.value = True
            await pilot.pause()
            on = drawn(box)[0]
            assert on != off, f"{selector} looks the same ticked and unticked: {on!r}"
            assert "X" in on and "X" not in off

        legend = screen.query_one("#legend")
        lines = LEGEND.plain.splitlines()
        assert len(lines) == len(LEGEND_ROWS) + 2, "a title, one line per colour, the gutter's mark"
        assert legend.size.height == len(lines), "no legend line wraps in the record column"
        for style, name, meaning in LEGEND_ROWS:
            assert any(line.split()[:len(name.split())] == name.split() and line.endswith(meaning) for line in lines)


@run_async
async def test_an_ambiguous_quote_list_says_pin_when_it_starts_with_documents(small):
    (small / "corpus" / "notes" / "keys.md").write_text("# Keys\n\nThe old key stays valid for a day.\n",
                                                       encoding="utf-8")
    app = make_app(small)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_record(pilot, "q002")  # no doc: the quote is looked for in every document
        screen = app.screen
        await paste_into(pilot, "#loc-quote", "old key stays valid")  # once in rotate.md, once in keys.md
        await settle(pilot)
        status = str(screen.query_one("#preview-status").render())
        options = screen.query_one("#preview-suggestions")
        first = str(options.get_option_at_index(0).prompt.head)
        assert first.startswith("1 pin to"), first
        assert "pin to a document, or pick an occurrence" in status, status

        await paste_into(pilot, "#loc-quote", "minutes")  # twice in oncall.md alone: no document to pin
        await settle(pilot)
        status = str(screen.query_one("#preview-status").render())
        assert "ambiguous" in status and "pin to" not in status
        assert "occurrences (Enter or ctrl+g picks one" in status


@pytest.mark.parametrize("size", SIZES, ids=IDS)
@run_async
async def test_the_copy_warning_leaves_with_its_quote_and_comes_back_with_it(small, size):
    app = make_app(small)
    async with app.run_test(size=size) as pilot:
        await open_record(pilot, "q001")
        screen = app.screen
        warning = screen.query_one("#copy-warning")
        await paste_into(pilot, "#form-query", "issue a new API key then redeploy every service")
        await settle(pilot)
        assert warning.display
        await paste_into(pilot, "#loc-quote", "")  # the quote gone: an incomplete locator, no span
        await settle(pilot)
        assert screen.preview.span is None and not warning.display
        assert "copies" not in str(screen.query_one("#preview-status").render())
        await paste_into(pilot, "#loc-quote", "issue a new API key")  # the cause back: the warning too
        await settle(pilot)
        assert warning.display
        app.open_record("q002")  # another record, whose query copies nothing
        await settle(pilot)
        assert not screen.query_one("#copy-warning").display


def test_the_journal_says_what_each_record_changed(small):
    session = AuthoringSession.open(small)
    on_file = dict(session.drafts)
    q1 = on_file["q001"].as_json()
    edited = {**q1, "query": "How is the API key rotated, step by step, in every region?", "split": "test",
              "locators": [{"doc": "guide/rotate.md", "quote": "issue a new API key, then redeploy"}]}
    new = Draft(id="q005", query="Who owns the pager rota?").as_json()
    entry = JournalEntry("golden/questions.jsonl", None, drafts=[edited, new], deleted=["q003"])
    lines = journal_changes(entry, on_file)
    assert lines[0] == ("q001: query 'How do I rotate the API key?' → 'How is the API key rotated,…'; "
                        "locator 1 quote 'issue a new API key' → 'issue a new API key, then r…'; split 'dev' → 'test'")
    assert lines[1] == "q005 (new): query 'Who owns the pager rota?'"
    assert lines[2] == "q003 (deleted): query 'Which day is the eu rotatio…'"


def test_two_long_values_with_one_start_are_shown_from_where_they_differ():
    """A repair that inserts a word late in a quote: cut at the same length, both sides would
    read 'It does not embed anything …'."""
    from labeller.app.session.journal_diff import record_change

    old = {"locators": [{"doc": "index.md", "quote": "It does not embed anything or call a model"}]}
    new = {"locators": [{"doc": "index.md", "quote": "It does not embed anything or call a language model"}]}
    assert record_change(old, new) == "locator 1 quote '… call a model' → '… call a language model'"


@run_async
async def test_the_restore_dialog_shows_what_changed(small):
    session = AuthoringSession.open(small)
    session.update("q002", query="How quickly are pages answered?")  # left in the journal
    app = make_app(small)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        body = str(app.screen.query_one(".dialog-body").render())
        assert "q002: query 'How fast must on-call answe…' → 'How quickly are pages answe…'" in body


@run_async
async def test_the_curve_shows_from_120_columns_with_its_legend_outside_the_plot(small):
    app = make_app(small)
    async with app.run_test(size=(CURVE_COLUMNS, 40)) as pilot:
        await settle(pilot)
        await pilot.press("f6")
        await settle(pilot)
        await pilot.press("ctrl+r")
        screen = app.screen
        while screen.result is None:
            await settle(pilot)
        plot, legend, note = (screen.query_one(s) for s in ("#eval-plot", "#eval-legend", "#eval-curve-note"))
        assert on_screen(plot) and on_screen(legend) and not note.display
        assert not plot.region.overlaps(legend.region), "the legend is drawn outside the plot"
        assert "chunk level" in legend.render().plain and "document level" in legend.render().plain
        rows = drawn(plot)
        assert rows[2].startswith("1.00┤"), rows[:3]  # the 1.0 line, under the title and the frame
        assert not any("level" in row or "recall@k " in row[6:] for row in rows[1:]), "no legend inside the plot"
        assert plot.region.x >= screen.query_one("#eval-metrics").region.right, "beside the metrics table"

        await pilot.resize_terminal(CURVE_COLUMNS - 1, 40)
        await settle(pilot)
        assert not plot.display and not legend.display and note.display
        assert f"shows at {CURVE_COLUMNS} columns or wider" in str(note.render())


def test_the_journal_lines_are_bounded(small):
    on_file = dict(AuthoringSession.open(small).drafts)
    drafts = [Draft(id=f"n{i:03d}" + "x" * 5000, query="q " * 5000).as_json() for i in range(30)]
    lines = journal_changes(JournalEntry("golden/questions.jsonl", None, drafts=drafts), on_file)
    assert len(lines) == 13 and lines[-1] == "… and 18 more record(s)"
    assert max(len(line) for line in lines) < 120
