"""The eval's and coverage's tables at 80×24, 100×30 and 160×48 (issue 27): every column of
every table shows whole, and the per-query table is a Tab stop that scrolls into view."""

from __future__ import annotations

import pytest

from helpers_app import make_app, run_async, run_eval, settle, small  # noqa: F401 (small: a fixture)

SIZES = [(80, 24), (100, 30), (160, 48)]
IDS = [f"{w}x{h}" for w, h in SIZES]


def shows_every_column(table) -> bool:
    """No column is cut or hidden to the right: the table needs no sideways scrolling."""
    return table.virtual_size.width <= table.scrollable_content_region.width


def on_screen(screen, widget) -> bool:
    """Some of the widget is drawn inside the screen, between the header and the key bar."""
    return widget.region.height > 0 and screen.region.overlaps(widget.region)



@pytest.mark.parametrize("size", SIZES, ids=IDS)
@run_async
async def test_every_eval_value_shows_whole(small, size):
    app = make_app(small)
    async with app.run_test(size=size) as pilot:
        screen = await run_eval(pilot)
        for selector in ("#eval-metrics", "#eval-chars"):
            table = screen.query_one(selector)
            assert table.row_count > 0
            assert shows_every_column(table), selector
            table.focus()
            await settle(pilot)
            assert on_screen(screen, table), selector


@pytest.mark.parametrize("size", SIZES, ids=IDS)
@run_async
async def test_the_query_table_is_a_tab_stop_and_scrolls_into_view(small, size):
    app = make_app(small)
    async with app.run_test(size=size) as pilot:
        screen = await run_eval(pilot)
        queries = screen.query_one("#eval-queries")
        screen.set_focus(None)
        stops = []
        for _ in range(12):
            await pilot.press("tab")
            await settle(pilot)
            stops.append(app.focused)
            if app.focused is queries:
                break
        assert app.focused is queries, [getattr(w, "id", None) for w in stops]
        assert on_screen(screen, queries)
        assert queries.region.height >= 4  # its header and rows, not a sliver


@pytest.mark.parametrize("size", SIZES, ids=IDS)
@run_async
async def test_coverage_keeps_every_count_whatever_the_names(small, size):
    long = "a-rather-long-folder-name/with-a-subfolder/and-a-long-document-name.md"
    doc = small / "corpus" / long
    doc.parent.mkdir(parents=True)
    doc.write_text("# Long\n\nThe long document answers this.\n", encoding="utf-8")
    qpath = small / "golden" / "questions.jsonl"
    qpath.write_text(qpath.read_text(encoding="utf-8") + '{"id": "q005", "query": "What does the long document '
                     f'answer?", "expected_answer": "This.", "locators": [{{"doc": "{long}", "quote": "answers this"}}], '
                     '"tags": ["a-tag-name-as-long-as-a-sentence-to-push-the-counts-out"]}\n', encoding="utf-8")
    app = make_app(small)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("f4")
        await settle(pilot)
        for selector in ("#coverage-docs", "#coverage-tags"):
            table = app.screen.query_one(selector)
            columns = list(table.columns.values())
            assert any(long in map(str, table.get_row_at(i)) or "a-tag-name-as-long-as-a-sentence-to-push-the-counts-out"
                       in map(str, table.get_row_at(i)) for i in range(table.row_count))
            shown = table.scrollable_content_region.width
            x = 0
            for column in columns:
                x += column.get_render_width(table)
                if str(column.label) in ("spans", "records"):
                    assert x <= shown, f"{selector}: the {column.label} column is cut at {size}"
