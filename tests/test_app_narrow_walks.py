"""The rest of issue 27's "done when", keyboard only at 80×24 and 100×30 on a copy of the
bundled example: run an eval and read every value (each Tab stop drawn whole, every value of
the chunk-level, document-level and character tables shown on screen and equal to the
report's numbers, the per-query table and a drill-down), review records (accept, flag with a
comment, edit), judge a pool, annotate and adjudicate. Writing a label is
``test_app_author_narrow.py``'s walk.
"""

from __future__ import annotations

import asyncio

import pytest

from helpers_app import (assert_focus_on_screen, copy_bundled_example, make_app,
                         on_screen, run_async, settle)
from labeller.app.screens.eval import DrillDownScreen

SIZES = [(80, 24), (100, 30)]
IDS = [f"{w}x{h}" for w, h in SIZES]


async def run_eval(pilot):
    """F6, Ctrl+R, and wait for the eval's worker to finish (the bundled example takes a few seconds)."""
    await settle(pilot)
    await pilot.press("f6")
    await settle(pilot)
    await pilot.press("ctrl+r")
    screen = pilot.app.screen
    for _ in range(600):
        await settle(pilot)
        if screen.result is not None:
            return screen
        await asyncio.sleep(0.1)
    raise AssertionError("the eval did not finish")


def shown_lines(table) -> list[str]:
    """The lines the table draws now (its header and the rows scrolled into its window)."""
    return [table.render_line(y).text for y in range(table.size.height)]


def expected_cells(stat: dict) -> list[str]:
    """One aggregate of the report's JSON as the table must show it: the value, its interval, its n."""
    if stat["value"] is None:
        return ["no data", f"n={stat['n']}"]
    cells = [f"{stat['value']:.3f}", f"n={stat['n']}"]
    if stat.get("ci_low") is not None:
        cells += [f"{stat['ci_low']:.3f}", f"{stat['ci_high']:.3f}"]
    return cells


async def read_every_row(pilot, table, expected: dict[str, list[str]]) -> set[str]:
    """Walk the focused table's rows with Down; at each, the cursor's row is drawn (the table
    whole on screen, the row in its window) with every value the report has for it."""
    seen = set()
    await pilot.press("home")
    for i in range(table.row_count):
        if i:
            await pilot.press("down")
        await settle(pilot)
        assert table.cursor_row == i
        assert on_screen(table), f"#{table.id} is not drawn whole ({table.region})"
        name = str(table.get_row_at(i)[0])
        line = next((text for text in shown_lines(table) if text.split() and text.split()[0] == name), None)
        assert line is not None, f"#{table.id}: the row {name} is not in the table's window"
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
