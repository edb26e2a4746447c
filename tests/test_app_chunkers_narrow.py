"""The eval's Chunkers tab at 80×24 and 100×30, keyboard only: the tab opened, three chunkings
ticked and compared; then once round the Tab chain every stop is drawn whole, both tables are
reached, every row of each is brought into its window with the arrow keys and every column
of the comparison with Right (the table is wider than the terminal and scrolls sideways).
"""

from __future__ import annotations

import pytest
from rich.cells import cell_len
from textual.widgets import DataTable, SelectionList

from helpers_app import (assert_focus_on_screen, make_app, on_screen, row_on_screen, run_async, settle, tab_round,
                         write_small_project)
from labeller.app.screens.chunkers import ChunkersView

SIZES = [(80, 24), (100, 30)]
TICKED = 3  # the project's own chunking and the next two in the list


def shown_lines(table) -> list[str]:
    return [table.render_line(y).text for y in range(table.size.height)]


async def tab_to(pilot, test) -> None:
    for _ in range(30):
        if test(pilot.app.screen.focused):
            return
        await pilot.press("tab")
        await settle(pilot)
    raise AssertionError(f"Tab never reached it (focus on {pilot.app.screen.focused!r})")


async def every_row(pilot, table) -> set[str]:
    """Down from the first row to the last: each row's label is drawn on the screen (issue 38:
    the table is as tall as its rows, the screen scrolls to its cursor)."""
    seen = set()
    await pilot.press("home")
    for i in range(table.row_count):
        if i:
            await pilot.press("down")
        await settle(pilot)
        label = str(table.get_row_at(i)[0])
        line = row_on_screen(table, i)
        assert table.cursor_row == i and line is not None, (i, table.region)
        assert line.split()[:len(label.split())] == label.split(), f"#{table.id}: row {label!r} not drawn"
        seen.add(label)
    return seen


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@run_async
async def test_the_chunkers_tab_is_compared_and_read_keyboard_only(tmp_path, size):
    app = make_app(write_small_project(tmp_path / "proj"))
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("f6")
        await settle(pilot)
        screen = app.screen
        await tab_to(pilot, lambda w: type(w).__name__ == "ContentTabs")
        await pilot.press("right", "right", "right")  # Queries, Leaks, Diagnostics, Chunkers
        await settle(pilot)
        view = screen.query_one(ChunkersView)
        assert view.display and screen.query_one("#eval-tabs").active == "tab-chunkers"

        await tab_to(pilot, lambda w: isinstance(w, SelectionList))
        assert_focus_on_screen(app, "chunkers-choice")
        for _ in range(TICKED - 1):
            await pilot.press("down", "space")
        await settle(pilot)
        specs = view.chosen()
        assert len(specs) == TICKED
        # empty before a comparison: no bare table, the status says what to do (issue 38)
        assert not any(table.region.area for table in view.query(DataTable))
        assert "press Compare" in str(view.query_one("#chunkers-status").render())
        await tab_to(pilot, lambda w: w.id == "chunkers-run")
        await pilot.press("enter")
        await settle(pilot)
        assert view.comparison is not None
        assert [e["name"] for e in view.comparison.data["chunkings"]] == specs
        status = view.query_one("#chunkers-status")  # the comparison's header, every line of it in its column
        assert status.region.height >= 2 and view.query_one("#chunkers-side").region.contains_region(status.region)

        ids = [w.id for w in await tab_round(pilot, 30)]  # once round the Tab chain
        assert {"chunkers-choice", "chunkers-spec", "chunkers-run", "chunkers-table", "chunkers-queries"} <= set(ids)

        await tab_to(pilot, lambda w: w.id == "chunkers-table")
        table = screen.focused
        assert len(await every_row(pilot, table)) == table.row_count
        assert table.max_scroll_x > 0, "the table fits: nothing to scroll to"
        columns = [column.get_render_width(table) for column in table.columns.values()]
        window = table.scrollable_content_region.width - columns[0]  # the labels stay: a fixed column
        step = window - max(columns[1:])  # columns scrolled between looks: each is whole at one of them
        assert step > 0, (window, columns)
        seen = []
        for _ in range(table.virtual_size.width):  # Right until the last column is in view
            lines = shown_lines(table)
            seen.append(lines)
            if table.scroll_x >= table.max_scroll_x:
                break
            await pilot.press(*["right"] * step)
        assert table.scroll_x >= table.max_scroll_x and row_on_screen(table, table.cursor_row) is not None
        for i, spec in enumerate(specs, 1):
            assert any(f"{i} {spec}" in lines[0] for lines in seen), f"column {i} {spec} never shown whole"
        label = str(table.get_row_at(table.cursor_row)[0])  # the row's label stays beside the last column
        assert any(line.lstrip().startswith(label) for line in seen[-1]), seen[-1]

        await tab_to(pilot, lambda w: w.id == "chunkers-queries")
        queries = screen.focused
        assert queries.row_count == view.comparison.data["config"]["queries"]
        assert len(await every_row(pilot, queries)) == queries.row_count
