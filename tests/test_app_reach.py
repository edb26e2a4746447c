"""Issue 38's first rule: nothing a screen computes is out of keyboard reach. At 80×24 and
120×40 on a copy of the bundled example: every row of the eval's metric tables (nDCG@k,
all@k and judged@k among them) is brought onto the screen by the table's own cursor, with no
scroll box inside the scrolling screen; every part of the eval (tables and sub-tabs) has a
key, a palette entry and a focus that looks different; an empty Leaks tab says in words that
it is clean. Then every screen and every eval tab is walked for a nested scroll box and for an
empty table with no words.
"""

from __future__ import annotations


import pytest

from helpers_app import (copy_bundled_example, make_app, nested_scrolls, row_on_screen, run_async, run_eval, settle,
                         silent_empty_tables, small)  # noqa: F401  (small is a fixture)
from labeller.app.screens.eval import TAB_KEYS
from labeller.eval.leaks import CLEAN
from labeller.eval.present import ReportView

SIZES = [(80, 24), (120, 40)]
IDS = [f"{w}x{h}" for w, h in SIZES]



def look(widget) -> tuple:
    """What the focus may change in how a widget is drawn."""
    s = widget.styles
    return (s.border_top, s.background_tint, s.tint, s.background, s.color)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
@run_async
async def test_every_metric_row_is_read_with_the_keyboard(tmp_path, size):
    app = make_app(copy_bundled_example(tmp_path / "example"))
    async with app.run_test(size=size) as pilot:
        screen = await run_eval(pilot)
        assert nested_scrolls(screen) == []
        agg = screen.result.report["aggregate"]
        report = ReportView(screen.result.model)
        shown = {"chunk": [r.name for r in report.metric_pairs()], "chars": [n for n, _ in report.chars_pairs()]}
        for key, table_id, level in (("alt+m", "eval-metrics", "chunk"), ("alt+c", "eval-chars", "chars")):
            await pilot.press(key)
            await settle(pilot)
            table = screen.focused
            assert table.id == table_id
            assert table.row_count == len(shown[level])  # every row, in the table itself
            assert table.max_scroll_y == 0, "the table shows all its rows: the screen is what scrolls"
            await pilot.press("home")
            names = set()
            for i in range(table.row_count):
                if i:
                    await pilot.press("down")
                await settle(pilot)
                line = row_on_screen(table, i)
                name = str(table.get_row_at(i)[0])
                assert line is not None and name in line, f"{table_id} row {i} ({name}) is not drawn on the screen"
                stat = agg[level][name]
                if stat["value"] is not None:
                    assert f"{stat['value']:.3f}" in line
                names.add(name)
            assert names == set(shown[level]) and names <= set(agg[level])
        k = screen.session.config.eval.shipped_k
        assert {f"ndcg@{k}", f"all@{k}", f"judged@{k}"} <= set(agg["chunk"])


@pytest.mark.parametrize("size", SIZES, ids=IDS)
@run_async
async def test_every_eval_part_has_a_key_a_palette_entry_and_a_visible_focus(small, size):
    app = make_app(small)
    async with app.run_test(size=size) as pilot:
        screen = await run_eval(pilot)
        titles = [c.title for c in app.get_system_commands(screen)]
        tabs = screen.query_one("#eval-tabs")
        for key, part, title, kind, _ in TAB_KEYS:
            assert any(title.lower() in t.lower() and kind in t for t in titles), f"no palette entry for {title}"
            await pilot.press(key)
            await settle(pilot)
            focused = screen.focused
            assert focused is not None
            if part.startswith("tab-"):
                assert tabs.active == part
                pane = tabs.get_pane(part)
                assert pane in focused.ancestors or focused is tabs.query_one("Tabs"), f"{key}: focus on {focused!r}"
            else:
                assert focused.id == part
            region = focused.region.intersection(screen.region)
            assert region.area > 0, f"{key}: the focused {focused!r} is not on the screen"
            lit = look(focused)
            screen.query_one("#eval-run").focus()
            await settle(pilot)
            assert look(focused) != lit, f"{key}: {focused!r} looks the same focused and not"
        # "leak" in the palette finds the Leaks tab (it offered the theme toggle)
        assert any("leak" in t.lower() for t in titles)


@run_async
async def test_an_empty_leaks_tab_says_it_is_clean(small):
    app = make_app(small)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await run_eval(pilot)
        assert screen.result.report["findings"] == []
        await pilot.press("alt+l")
        await settle(pilot)
        words = screen.query_one("#eval-leaks-empty")
        assert words.display and f"clean: {CLEAN}" in str(words.render())
        assert not screen.query_one("#eval-leaks").display
        assert words.region.intersection(screen.region).area > 0


# F5 (broken labels) is left out here: that screen is being reworked on another branch, which
# holds it to the same rule; F1 and F7 are dialogs over these (help scrolls alone, review asks a name).
SCREEN_KEYS = ["f2", "f3", "f4", "f6"]


@pytest.mark.parametrize("size", SIZES, ids=IDS)
@run_async
async def test_no_screen_or_tab_nests_a_scroll_box_or_leaves_an_empty_table_wordless(small, size):
    app = make_app(small)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        for key in SCREEN_KEYS:
            await pilot.press(key)
            await settle(pilot)
            assert nested_scrolls(app.screen) == [], key
            assert silent_empty_tables(app.screen) == [], key
        screen = await run_eval(pilot)
        for key, part, *_ in TAB_KEYS:
            await pilot.press(key)
            await settle(pilot)
            assert nested_scrolls(screen) == [], key
            assert silent_empty_tables(screen) == [], key
