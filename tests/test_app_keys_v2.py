"""Keys a new user reaches without the palette, and labels nobody has to guess:

* "Reload corpus" has a key (F8, id ``app.reload_corpus``, remappable) shown in the key
  bar, F1 and the palette; pressing it after editing a document re-resolves the labels;
* the key bar wraps its keys onto more rows and never cuts a label short, at 80, 100 and
  160 columns on every screen, and lays itself out again when the terminal is resized; it
  takes at most two rows (issue 38): where more would be needed, it leaves out whole groups
  of keys reached another way (the screen keys F2-F10 first), each still in F1 and the palette;
* records whose expected answer is empty (the build summary's ``no_answer``) are marked
  in the question list, and the status filter "no answer" lists only them.
"""

from __future__ import annotations

import json

import pytest

from helpers_app import make_app, run_async, settle, write_small_project
from labeller.app.session.filters import NO_ANSWER, QuestionFilter, no_answer
from labeller.app.session.drafts import Draft
from labeller.app.settings import KEYMAP_FILE, config_dir
from labeller.app.widgets.key_bar import MAX_ROWS, SPARE, KeyBar, spared, wrap_keys
from labeller.app.widgets.question_list import QuestionTable
from labeller.core.models import Question

SIZES = [(80, 24), (100, 30), (160, 48)]
SIZE = (160, 48)


@pytest.fixture
def small(tmp_path):
    return write_small_project(tmp_path / "proj")


def bar_lines(screen) -> list[str]:
    """The key bar's rows as the terminal shows them."""
    region = screen.query_one(KeyBar).region
    strips = screen._compositor.render_strips()
    return [strips[y].text[region.x:region.right] for y in range(region.y, region.bottom)]


def expected_labels(app) -> list[str]:
    """"<key> <description>" of every binding the screen shows in its footer, the palette's included,
    but for those the bar left out at this width."""
    left_out = set(app.screen.query_one(KeyBar).left_out)
    return [f"{app.get_key_display(b)} {b.description}" for _, b, _, _ in app.screen.active_bindings.values()
            if (b.show or b.key == app.COMMAND_PALETTE_BINDING) and (b.id is None or b.id not in left_out)]


def assert_every_label_whole(app) -> None:
    lines = bar_lines(app.screen)
    labels = expected_labels(app)
    assert len(labels) >= 7
    cut = [label for label in labels if not any(label in line for line in lines)]
    assert not cut, f"labels cut or missing in the key bar at {app.size.width} columns: {cut}\n" + "\n".join(lines)
    assert len(lines) <= MAX_ROWS, "\n".join(lines)
    # what the bar leaves out is a spare group's, named in F1 and the palette, and never Help or Save
    left_out = app.screen.query_one(KeyBar).left_out
    help_ids = {binding_id for _, rows in app.help_groups() for _, _, binding_id in rows}
    palette = {c.title for c in app.get_system_commands(app.screen)}
    bindings = {b.id: b for _, b, _, _ in app.screen.active_bindings.values() if b.id}
    for binding_id in left_out:
        assert any(group(binding_id) for group in SPARE) and binding_id in help_ids, binding_id
        assert any(bindings[binding_id].description in title for title in palette), binding_id
    assert not {"go.help", "app.save"} & set(left_out)


# -- the key bar -------------------------------------------------------------------------------

def test_wrap_keys_fills_each_row_and_keeps_the_order():
    assert wrap_keys([10, 10, 10], 30) == [[0, 1, 2]]
    assert wrap_keys([10, 10, 11], 30) == [[0, 1], [2]]
    assert wrap_keys([40, 5], 30) == [[0], [1]]  # too wide for any row: a row of its own
    assert wrap_keys([], 30) == []


def test_spared_leaves_out_whole_groups_in_order_only_when_needed():
    ids = ["screen.own", "go.help", "go.questions", "go.author", "app.save", "app.undo", ""]
    assert spared(ids, [10] * 7, 70) == set()  # all fit one row
    assert spared(ids, [10] * 7, 30) == {2, 3}  # the screen keys go, together; F1 Help stays
    assert spared(ids, [10] * 7, 20) == {2, 3, 5}  # then undo; Save, Help and the screen's own stay


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@pytest.mark.parametrize("mode", ["questions", "author", "coverage", "stale", "eval"])
@run_async
async def test_no_key_label_is_cut_short(small, mode, size):
    app = make_app(small)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        if mode == "author":
            app.open_record("q001")
        elif mode != "questions":
            app.switch_mode(mode)
        await settle(pilot)
        assert_every_label_whole(app)
        if mode == "questions":
            assert any("del Delete question" in line for line in bar_lines(app.screen))


@run_async
async def test_the_key_bar_wraps_again_when_the_terminal_is_resized(small):
    app = make_app(small)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        wide = bar_lines(app.screen)
        assert not app.screen.query_one(KeyBar).left_out  # every key fits at 160 columns
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        assert_every_label_whole(app)
        assert "go.eval" in app.screen.query_one(KeyBar).left_out  # laid out again for 80 columns
        await pilot.resize_terminal(160, 48)
        await settle(pilot)
        assert_every_label_whole(app)
        assert bar_lines(app.screen) == wide


# -- Reload corpus on a key ----------------------------------------------------------------------

@run_async
async def test_f8_reads_the_edited_corpus_and_resolves_again(small):
    app = make_app(small)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.session.status("q003")[0] == "resolved"
        assert any("f8 Reload corpus" in line for line in bar_lines(app.screen))
        doc = small / "corpus" / "guide" / "rotate.md"
        doc.write_text(doc.read_text(encoding="utf-8").replace("Tuesday", "Wednesday"), encoding="utf-8")
        await pilot.press("f8")
        await settle(pilot)
        assert app.session.status("q003")[0] == "not found"
        table = app.screen.query_one(QuestionTable)
        assert str(table.get_cell("q003", "status")) == "not found", "the list shows the new status"
        assert app.session.status("q001")[0] == "resolved"


@run_async
async def test_reload_corpus_is_in_help_and_the_palette_and_can_be_moved(small):
    config_dir().mkdir(parents=True, exist_ok=True)
    (config_dir() / KEYMAP_FILE).write_text('[keymap]\n"app.reload_corpus" = "f10"\n', encoding="utf-8")
    app = make_app(small)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        keys = {binding_id: key for key, _, binding_id in dict(app.help_groups())["everywhere"]}
        assert keys["app.reload_corpus"] == "f10"
        commands = [c for c in app.get_system_commands(app.screen) if c.title == "Reload corpus"]
        assert len(commands) == 1 and "(f10)" in commands[0].help
        doc = small / "corpus" / "guide" / "rotate.md"
        doc.write_text(doc.read_text(encoding="utf-8").replace("Tuesday", "Wednesday"), encoding="utf-8")
        await pilot.press("f8")  # moved away: the old key does nothing
        await settle(pilot)
        assert app.session.status("q003")[0] == "resolved"
        await pilot.press("f10")
        await settle(pilot)
        assert app.session.status("q003")[0] == "not found"


# -- records without an expected answer -------------------------------------------------------------

def test_no_answer_is_the_build_summarys_rule():
    """The list's marker and the build summary's count agree on every kind of record."""
    cases = [Draft(id="a", query="q?", expected_answer="", locators=()),
             Draft(id="b", query="q?", expected_answer="  \n", locators=()),
             Draft(id="c", query="q?", expected_answer="yes", locators=()),
             Draft(id="d", query="q?", expected_answer="", unanswerable=True),
             Draft(id="e", query="q?", expected_answer="", unanswerable=False)]
    assert [no_answer(d) for d in cases] == [True, True, False, False, True]
    for d in cases:
        assert no_answer(d) == Question.model_construct(**d.as_json()).no_answer
    assert QuestionFilter(no_answer=True).matches(cases[0], "resolved")
    assert not QuestionFilter(no_answer=True).matches(cases[2], "resolved")


@run_async
async def test_records_without_an_answer_are_marked_and_filtered(small):
    qpath = small / "golden" / "questions.jsonl"
    with qpath.open("a", encoding="utf-8") as fh:  # two imported records: a label, no answer
        for rid in ("imp-1", "imp-2"):
            fh.write(json.dumps({"id": rid, "query": f"Imported question {rid}?", "expected_answer": "",
                                 "locators": [{"doc": "ops/oncall.md", "quote": "pager ack --all"}]}) + "\n")
    app = make_app(small)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = app.screen.query_one(QuestionTable)
        cell = {rid: str(table.get_cell(rid, "status")) for rid in app.session.order}
        assert cell["imp-1"] == cell["imp-2"] == f"resolved, {NO_ANSWER}"
        assert cell["q001"] == "resolved" and cell["q004"] == "unanswerable", "a negative has no answer by design"
        status = app.screen.query_one("#filter-status")
        status.value = NO_ANSWER
        await settle(pilot)
        assert [str(k.value) for k in table.rows] == ["imp-1", "imp-2"]
        assert table.border_title == "questions (2 of 6)"
        # writing an answer takes the record off the list
        app.session.update("imp-1", expected_answer="Acknowledge every page.")
        app.refresh_screens()
        await settle(pilot)
        assert [str(k.value) for k in table.rows] == ["imp-2"]
        status.clear()
        await settle(pilot)
        assert table.row_count == 6
