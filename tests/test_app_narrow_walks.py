"""The rest of issue 27's "done when", keyboard only at 80×24 and 100×30 on a copy of the
bundled example: run an eval and read every value (each Tab stop drawn whole, every value of
the chunk-level, document-level and character tables shown on screen and equal to the
report's numbers, the per-query table and a drill-down), review records (accept, flag with a
comment, edit), judge a pool, annotate and adjudicate. Writing a label is
``test_app_author_narrow.py``'s walk.
"""

from __future__ import annotations


import pytest
from rich.cells import cell_len

from helpers_app import (assert_focus_on_screen, copy_bundled_example, make_app, run_eval,
                         on_screen, row_on_screen, run_async, settle, tab_round)
from labeller.app.screens.eval import DrillDownScreen

SIZES = [(80, 24), (100, 30)]
IDS = [f"{w}x{h}" for w, h in SIZES]



def expected_cells(stat: dict) -> list[str]:
    """One aggregate of the report's JSON as the table must show it: the value, its interval, its n."""
    if stat["value"] is None:
        return ["no data", f"n={stat['n']}"]
    cells = [f"{stat['value']:.3f}", f"n={stat['n']}"]
    if stat.get("ci_low") is not None:
        cells += [f"{stat['ci_low']:.3f}", f"{stat['ci_high']:.3f}"]
    return cells


async def read_every_row(pilot, table, expected: dict[str, list[str]]) -> set[str]:
    """Walk the focused table's rows with Down; at each, the cursor's row is drawn on the screen
    (issue 38: the table is as tall as its rows and the screen scrolls to the cursor) with every
    value the report has for it."""
    seen = set()
    await pilot.press("home")
    for i in range(table.row_count):
        if i:
            await pilot.press("down")
        await settle(pilot)
        assert table.cursor_row == i
        name = str(table.get_row_at(i)[0])
        line = row_on_screen(table, i)
        assert line is not None and line.split()[0] == name, f"#{table.id}: the row {name} is not drawn"
        missing = [cell for cell in expected[name] if cell not in line]
        assert not missing, f"#{table.id} {name}: {missing} not shown in {line!r}"
        seen.add(name)
    return seen


@pytest.mark.parametrize("size", SIZES, ids=IDS)
@run_async
async def test_an_eval_is_run_and_every_value_read_keyboard_only(tmp_path, size):
    app = make_app(copy_bundled_example(tmp_path / "example"))
    async with app.run_test(size=size) as pilot:
        screen = await run_eval(pilot)
        agg = screen.result.report["aggregate"]
        metrics = {name: expected_cells(stat) + (expected_cells(agg["doc"][name]) if name in agg["doc"] else [])
                   for name, stat in agg["chunk"].items()}
        chars = {name: expected_cells(stat) for name, stat in agg["chars"].items()}
        read: dict[str, set[str]] = {}
        stops = []
        for _ in range(20):  # once round the Tab chain
            await pilot.press("tab")
            await settle(pilot)
            assert_focus_on_screen(app)
            focused = screen.focused
            if focused in stops:
                break
            stops.append(focused)
            if focused.id in ("eval-metrics", "eval-chars"):  # its title whole: "╭─ " title " ─╮"
                assert cell_len(str(focused.border_title)) + 6 <= focused.outer_size.width, focused.border_title
            if focused.id == "eval-metrics":
                read["metrics"] = await read_every_row(pilot, focused, metrics)
            elif focused.id == "eval-chars":
                read["chars"] = await read_every_row(pilot, focused, chars)
        ids = [w.id for w in stops]
        assert {"eval-run", "eval-retriever", "eval-chunks", "eval-metrics", "eval-chars", "eval-queries"} <= set(ids)
        assert read["metrics"] == set(agg["chunk"])  # every chunk-level row, with its document-level value
        assert read["chars"] >= {f"{m}@{screen.session.config.eval.shipped_k}" for m in ("recall", "precision")}

        while screen.focused.id != "eval-queries":  # the per-query table, then one query's drill-down
            await pilot.press("tab")
            await settle(pilot)
        queries = screen.focused
        assert queries.row_count == screen.result.report["config"]["records"]["scored"]
        first = str(queries.get_row_at(0)[0])
        await pilot.press("home", "enter")
        await settle(pilot)
        drill = app.screen
        assert isinstance(drill, DrillDownScreen) and drill.drill.query_id == first
        assert on_screen(drill.query_one("#drill-query"))
        for _ in range(2):  # the gold spans, then what was retrieved
            await pilot.press("tab")
            await settle(pilot)
            assert_focus_on_screen(app)
            assert drill.focused.id in ("drill-gold", "drill-retrieved")
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is screen


def review_log(root):
    from labeller.config import load_config
    from labeller.review.log import read_review_log

    return read_review_log(load_config(root).layout.review_log)


async def read_to_the_end(pilot, scroll) -> None:
    """The focused scroll window is drawn whole and Page Down reaches its last line."""
    assert pilot.app.screen.focused is scroll and on_screen(scroll)
    for _ in range(50):
        if scroll.scroll_y >= scroll.max_scroll_y:
            break
        await pilot.press("pagedown")
        await settle(pilot)
    assert scroll.scroll_y >= scroll.max_scroll_y


@pytest.mark.parametrize("size", SIZES, ids=IDS)
@run_async
async def test_records_are_reviewed_keyboard_only(tmp_path, size, monkeypatch):
    """F7 in the app: the reviewer's name asked, a record accepted, one flagged with a comment,
    one sent to the live editor; every dialog and the record drawn where it can be read."""
    monkeypatch.delenv("LABELLER_REVIEWER", raising=False)
    root = copy_bundled_example(tmp_path / "example")
    app = make_app(root)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("f7")
        await settle(pilot)
        assert_focus_on_screen(app, "ask-input")
        await pilot.press("end", *["backspace"] * len(app.screen.focused.value), *"ann", "enter")
        await settle(pilot)
        review = app.screen
        assert type(review).__name__ == "ReviewScreen" and review.reviewer == "ann"
        ids = list(review.record_ids[:3])
        assert on_screen(review.query_one("#rv-head"))
        await read_to_the_end(pilot, review.query_one("#rv-body"))
        await pilot.press("a")  # accept the first, on to the second
        await settle(pilot)
        await pilot.press("f")
        await settle(pilot)
        assert_focus_on_screen(app, "cm-input")
        await pilot.press(*"the answer is longer", "enter")
        await settle(pilot)
        assert app.screen is review and review.record_ids[review.index] == ids[2]
        await pilot.press("e")  # the third: opened in the live editor, its query field in view
        await settle(pilot)
        assert type(app.screen).__name__ == "AuthorScreen" and app.current == (ids[2], 0)
        assert_focus_on_screen(app)
    log = review_log(root)
    assert [(e.record_id, e.decision, e.comment or "") for e in log.entries] == [
        (ids[0], "accept", ""), (ids[1], "flag", "the answer is longer")]


@pytest.mark.parametrize("size", SIZES, ids=IDS)
@run_async
async def test_the_review_editor_edits_a_record_keyboard_only(tmp_path, size):
    """``labeller review`` alone: ``e`` edits the record's JSON (the review editor) with the
    arrow keys and typing, every line of it reachable; Ctrl+S writes it."""
    from labeller.app.review_app import ScreenApp
    from labeller.app.screens.records import RecordEditor
    from labeller.app.screens.review import ReviewScreen
    from labeller.config import load_config
    from labeller.core.project import Project

    root = copy_bundled_example(tmp_path / "example")
    project = Project(load_config(root))
    rid = project.load_questions().questions[0].id
    app = ScreenApp(lambda: ReviewScreen(project, [rid], "ann"))
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        editor = app.screen
        assert isinstance(editor, RecordEditor)
        area = editor.query_one("#ed-text")
        assert_focus_on_screen(app, "ed-text")
        lines = area.text.splitlines()
        row = next(i for i, line in enumerate(lines) if line.lstrip().startswith('"query"'))
        for _ in range(3 * len(lines)):  # down to the query's line, wrapped lines above it or not
            if area.cursor_location[0] == row:
                break
            await pilot.press("down")
        target = lines[row].index('"query": "') + len('"query": "')  # the query's first character
        await pilot.press("home")
        column = area.cursor_location[1]
        await pilot.press(*(["right"] * (target - column) if target > column else ["left"] * (column - target)))
        await pilot.press(*"Now, ")
        await settle(pilot)
        first, last = area.scroll_offset.y, area.scroll_offset.y + area.scrollable_content_region.height
        assert first <= area.cursor_location[0] < last  # the line being typed in is in view
        assert on_screen(editor.query_one("#ed-error"))
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.screen is not editor, (str(editor.query_one("#ed-error").visual), area.text[:400], area.cursor_location)
    edited = {q.id: q for q in Project(load_config(root)).load_questions().questions}[rid]
    assert edited.query.startswith("Now, ") and edited.query[len("Now, "):] in area.text
    assert [(e.record_id, e.decision) for e in review_log(root).entries] == [(rid, "edit")]


@run_async
async def test_the_pool_is_judged_at_80x24(tmp_path):
    from labeller.app.review_app import ScreenApp
    from labeller.app.screens.judging import PoolScreen
    from labeller.cli import main
    from labeller.config import load_config
    from labeller.core.judgments import load_judgments
    from labeller.core.project import Project

    root = copy_bundled_example(tmp_path / "example")
    pool = tmp_path / "pool.jsonl"
    # the example ships judgments for its top 5: the next pool starts below them
    assert main(["pool", "--root", str(root), "--depth", "10", "--out", str(pool)]) == 0
    project = Project(load_config(root))
    app = ScreenApp(lambda: PoolScreen(project, pool, "ann"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        for selector in ("#pl-head", "KeyBar"):
            assert on_screen(screen.query_one(selector)), selector
        assert screen.query_one("#pl-body").region.height >= 8  # room to read a passage
        await read_to_the_end(pilot, screen.query_one("#pl-body"))
        await pilot.press("x")  # not relevant, on to the next
        await settle(pilot)
        await read_to_the_end(pilot, screen.query_one("#pl-body"))
        await pilot.press("r")
        await settle(pilot)
        assert screen.index == 2
    assert [j.relevant for j in load_judgments(project).judgments if j.judge == "ann"] == [False, True]


@run_async
async def test_annotate_and_adjudicate_at_80x24(tmp_path):
    """Blind annotation: every Tab stop drawn whole, a quote typed and added; adjudication:
    both sides and the keys on screen, a choice made."""
    from helpers_review import make_project
    from test_review_agreement import BOB, write_annotations

    from labeller.app.review_app import ScreenApp
    from labeller.app.screens.adjudicate import AdjudicateScreen
    from labeller.app.screens.annotate import AnnotateScreen
    from labeller.review.annotations import load_annotations

    project = make_project(tmp_path / "p")
    app = ScreenApp(lambda: AnnotateScreen(project, ["q1", "q2"], "bob"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        for selector in ("#an-head", "#an-query", "KeyBar"):
            assert on_screen(screen.query_one(selector)), selector
        assert {"an-quote", "an-doc", "an-locs"} <= {w.id for w in await tab_round(pilot, 8)}
        if screen.focused.id in ("an-quote", "an-doc"):
            await pilot.press("escape")  # out of the field: letters are commands again
        await pilot.press("slash", *"keys rotate")
        await settle(pilot)
        assert_focus_on_screen(app, "an-quote")
        assert on_screen(screen.query_one("#an-preview-box"))
        await pilot.press("enter")
        await settle(pilot)
    assert [loc.quote for loc in load_annotations(project.config, "bob").get("q1")] == ["keys rotate"]

    write_annotations(project, "bob", BOB)
    app = ScreenApp(lambda: AdjudicateScreen(project, "bob", "carol", ["q3"]))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        for selector in ("#ad-head", "#ad-record", "KeyBar"):
            assert on_screen(screen.query_one(selector)), selector
        for side in screen.query(".ad-side"):
            assert on_screen(side) and side.region.height >= 5 and side.region.width >= 30
        await pilot.press("b")
        await settle(pilot)
    quotes = [loc.quote for q in project.load_questions().questions if q.id == "q3" for loc in q.locators]
    assert quotes == ["retention is set per bucket"]


@run_async
async def test_a_tab_in_a_burst_moves_the_keys_after_it_to_the_next_field_of_annotate(tmp_path):
    """The shared Tab binding (``screens/field_keys.py``) beyond the author screen: keys queued
    behind a Tab land in the field it went to, not the one it left."""
    from helpers_app import burst
    from helpers_review import make_project

    from labeller.app.review_app import ScreenApp
    from labeller.app.screens.annotate import AnnotateScreen

    app = ScreenApp(lambda: AnnotateScreen(make_project(tmp_path / "p"), ["q1"], "bob"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        await settle(pilot)
        await burst(pilot, "a", "b", "tab", "c", "d")
        screen = app.screen
        assert (screen.query_one("#an-quote").value, screen.query_one("#an-doc").value) == ("ab", "cd")


@run_async
async def test_ctrl_s_in_a_burst_saves_what_was_typed_into_the_review_editor(tmp_path):
    """Typing then Ctrl+S at once (a tmux walk sent them together) saved the JSON as it was
    before the last keys, and what followed was typed into the editor."""
    from helpers_app import burst
    from helpers_review import make_project

    from labeller.app.review_app import ScreenApp
    from labeller.app.screens.records import RecordEditor
    from labeller.app.screens.review import ReviewScreen

    project = make_project(tmp_path / "p")
    app = ScreenApp(lambda: ReviewScreen(project, ["q1"], "ann"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        editor = app.screen
        assert isinstance(editor, RecordEditor)
        area = editor.query_one("#ed-text")
        lines = area.text.splitlines()
        row = next(i for i, line in enumerate(lines) if line.lstrip().startswith('"query"'))
        area.move_cursor((row, lines[row].rindex('"')))  # before the query's closing quote
        await burst(pilot, *" now", "ctrl+s")
        await settle(pilot)
        assert app.screen is not editor, str(editor.query_one("#ed-error").visual)
    assert {q.id: q for q in project.load_questions().questions}["q1"].query == "How often is the API key rotated? now"
