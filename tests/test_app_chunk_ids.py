"""Issue 38's fourth rule: one numbering and full ids. A chunk is ``chunk N/M`` (from 1) in
the editor's resolution, its document view and the review's record view alike; its full id
is a key away in the editor (alt+i) and in review (i): shown whole and on the clipboard."""

from __future__ import annotations

from rich.console import Console

from helpers_app import make_app, open_record, run_async, settle, small  # noqa: F401  (small: a fixture)
from labeller.app.widgets.chunk_names import chunk_name
from labeller.app.widgets.record_view import record_view
from labeller.core.build import resolve_record


def rendered(renderable) -> str:
    console = Console(width=200, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


@run_async
async def test_a_chunk_has_one_name_everywhere_and_its_full_id_is_copied(small, monkeypatch):
    monkeypatch.setenv("LABELLER_REVIEWER", "tester")
    app = make_app(small)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_record(pilot, "q001")
        screen = app.screen
        chunks = screen.preview.chunks
        assert chunks
        names = [chunk_name(c.ordinal, c.n_in_doc) for c in chunks]
        assert all(n in str(screen.query_one("#preview-status").render()) for n in names)
        await pilot.press("alt+i")
        await settle(pilot)
        ids = [c.chunk_id for c in chunks]
        assert app.clipboard == "\n".join(ids) and all(len(i) == 64 for i in ids)

        project = app.session.project
        q = app.session.draft("q001").to_question()
        review_text = rendered(record_view(project, q, resolve_record(project, q)))
        assert all(n in review_text for n in names), review_text
        assert f"#{chunks[0].ordinal}" not in review_text  # the review's old 0-based "#4"

        await pilot.press("f7")
        await settle(pilot)
        review = app.screen
        while review.session.record_id != "q001":
            await pilot.press("n")
            await settle(pilot)
        app.copy_to_clipboard("")
        await pilot.press("i")
        await settle(pilot)
        assert app.clipboard == "\n".join(resolve_record(project, q).chunk_ids)
