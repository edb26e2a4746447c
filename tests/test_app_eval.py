"""The eval tab: the runner's numbers, the per-query table, the drill-down and the leaks panel."""

from __future__ import annotations

import pytest

from helpers_app import make_app, run_async, settle, write_small_project
from labeller.app.screens.eval import DrillDownScreen, EvalScreen, LeakScreen
from labeller.app.widgets.document_view import DocumentView

SIZE = (150, 45)

# A note about the evaluation that quotes two golden queries (one in a heading, one in the body).
LEAK_NOTE = """\
# Eval notes: How do I rotate the API key?

We keep asking how fast must on-call answer a page? and it keeps ranking first.
"""


@pytest.fixture
def project(tmp_path):
    root = write_small_project(tmp_path / "proj")
    (root / "corpus" / "notes" / "eval-notes.md").write_text(LEAK_NOTE, encoding="utf-8")
    return root


@run_async
async def test_eval_tab_runs_and_drills_down(project):
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f6")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, EvalScreen)
        await pilot.press("ctrl+r")
        await settle(pilot)
        report = screen.result.report
        metrics = screen.query_one("#eval-metrics")
        assert metrics.row_count == len(report["aggregate"]["chunk"])
        name, chunk_cell, _ = metrics.get_row_at(0)
        stat = report["aggregate"]["chunk"][name]
        assert chunk_cell.startswith(f"{stat['value']:.3f}") and f"n={stat['n']}" in chunk_cell

        queries = screen.query_one("#eval-queries")
        assert queries.row_count == report["config"]["records"]["scored"] == 3
        ranks = [queries.get_row_at(i)[1] for i in range(queries.row_count)]
        order = lambda r: (r == "miss", r if r != "miss" else 0)  # noqa: E731
        assert ranks == sorted(ranks, key=order, reverse=True), "misses and late hits first"
        queries.focus()  # the screen scrolls the table into view
        await settle(pilot)
        await pilot.click("#eval-queries", offset=(2, 1))  # the "id" header (under the border): sort by id
        await settle(pilot)
        assert [queries.get_row_at(i)[0] for i in range(queries.row_count)] == ["q001", "q002", "q003"]

        queries.focus()
        queries.move_cursor(row=0)
        await pilot.press("enter")
        await settle(pilot)
        drill = app.screen
        assert isinstance(drill, DrillDownScreen)
        qid = drill.drill.query_id
        row = next(r for r in report["queries"] if r["query_id"] == qid)
        assert [g.rank for g in drill.drill.gold] == row["hit_ranks"]
        assert [r.chunk.chunk_id for r in drill.drill.retrieved] == [h.chunk_id for h in screen.result.hits[qid]]
        assert any(r.hits_gold for r in drill.drill.retrieved) == (row["hit_ranks"] != [None])
        await pilot.press("escape")
        await settle(pilot)

        # the leaks panel: one finding, opening on the quoted text
        assert len(report["findings"]) == 1 and report["findings"][0]["path"] == "notes/eval-notes.md"
        leaks = screen.query_one("#eval-leaks")
        assert leaks.row_count == 1
        screen.query_one("#eval-tabs").active = "tab-leaks"
        leaks.focus()
        await pilot.press("enter")
        await settle(pilot)
        leak = app.screen
        assert isinstance(leak, LeakScreen)
        view = leak.query_one(DocumentView)
        text = view.doc.text
        marked = [text[m.start:m.end].lower() for m in view._marks]
        assert "how do i rotate the api key?" in marked
        assert "how fast must on-call answer a page?" in marked


@run_async
async def test_eval_refused_when_the_golden_set_does_not_build(project):
    qpath = project / "golden" / "questions.jsonl"
    qpath.write_text(qpath.read_text().replace('"quote": "Tuesday"', '"quote": "Wednesday"'), encoding="utf-8")
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f6")
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert app.screen.result is None
        assert "does not build" in str(app.screen.query_one("#eval-status").render())



async def eval_run(pilot, app):
    """F6, Ctrl+R and the eval finished: the eval screen, and a reader of its status line."""
    await settle(pilot)
    await pilot.press("f6")
    await pilot.press("ctrl+r")
    await settle(pilot)
    screen = app.screen
    return screen, lambda: str(screen.query_one("#eval-status").render())

@run_async
async def test_results_and_leak_panel_say_when_they_are_older_than_the_labels_or_corpus(project):
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen, status = await eval_run(pilot, app)
        assert screen.age() == [] and "older" not in status()

        app.session.update("q002", query="How quickly is a page answered?")  # a label changes
        app.refresh_screens()
        await settle(pilot)
        assert screen.age() == ["the labels changed since this eval ran"]
        assert "older than the golden set" in status()
        app.action_undo()
        await settle(pilot)
        assert screen.age() == [] and "older" not in status(), "back to the labels the eval scored"

        doc = project / "corpus" / "ops" / "oncall.md"
        doc.write_text(doc.read_text(encoding="utf-8") + "\nA new line.\n", encoding="utf-8")
        app.check_corpus()
        await settle(pilot)
        assert screen.age() == ["the corpus changed since this eval ran"]
        assert "corpus changed" in status()

        screen.query_one("#eval-tabs").active = "tab-leaks"
        screen.query_one("#eval-leaks").focus()
        await pilot.press("enter")
        await settle(pilot)
        leak = app.screen
        assert isinstance(leak, LeakScreen)
        assert "corpus changed since this eval ran" in str(leak.query_one("#leak-age").render())


@run_async
async def test_an_unfinished_draft_never_ages_the_eval(project):
    """No save writes a draft that is not a valid record yet, so no eval can score it: with one
    open, the warning still clears after Ctrl+S and after Ctrl+R once the eval scored the
    golden set as saved (issue 27)."""
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen, status = await eval_run(pilot, app)
        draft = app.session.new_record()
        assert app.session.draft(draft).problems(), "a new question is not a record yet"
        app.refresh_screens()
        await settle(pilot)
        assert screen.age() == [] and "older" not in status()

        app.session.update("q002", query="How quickly is a page answered?")  # a real change, then saved
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "older than the golden set" in status(), "the eval scored the labels before this save"
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert screen.age() == [] and "older" not in status()
        assert draft in app.session.order, "the unfinished draft is still there"
