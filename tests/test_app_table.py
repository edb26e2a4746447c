"""The app's tables show rows at their measured widths whenever a frame is drawn (widgets/table.py)."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import DataTable

from helpers_app import run_async
from labeller.app.widgets.table import Table


class TwoTables(App):
    # a fixed size, as the app's panes have: a table that grows is resized, and a resize alone redraws it
    CSS = "DataTable { height: 4; width: 30; }"

    def compose(self) -> ComposeResult:
        yield Table(id="ours")
        yield DataTable(id="textual")


def fill_and_draw(table: DataTable) -> str:
    """Fill the table and draw its first row at once, before the table goes idle: what a
    screen refresh does when it lands between the two (the order a loaded machine gives)."""
    table.add_column("id")
    table.add_row("q001")
    return table.render_line(1).text


@run_async
async def test_rows_drawn_before_the_measurement_are_drawn_again_after_it():
    app = TwoTables()
    async with app.run_test(size=(40, 10)) as pilot:
        ours, textual = app.query_one("#ours", Table), app.query_one("#textual", DataTable)
        # before the measurement both draw the row at the header's width, "id" being two characters
        assert fill_and_draw(ours).split() == fill_and_draw(textual).split() == ["q0"]
        await pilot.pause()  # the tables go idle: their columns are measured
        assert ours.render_line(1).text.split() == ["q001"]
        # Textual's own table keeps the row it cached before (Textual #4470); if this fails, Textual
        # fixed it and labeller.app.widgets.table can go
        assert textual.render_line(1).text.split() == ["q0"]
