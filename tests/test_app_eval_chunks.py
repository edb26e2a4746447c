"""The eval tab over a chunk file (issue 14 item 4) and its Chunkers view (issue 15 item 3)."""

from __future__ import annotations

import json

import pytest

from helpers_app import make_app, run_async, settle, write_small_project
from labeller.app.screens.chunkers import ChunkersView, _marked
from labeller.app.screens.eval import DrillDownScreen, EvalScreen
from labeller.cli import main
from labeller.app.session.chunkings import END, START, chunking_choices, span_boundaries

SIZE = (150, 45)
WINDOWS = "fixed-chars-v1:size=100,overlap=20"


@pytest.fixture
def project(tmp_path):
    return write_small_project(tmp_path / "proj")


def write_chunk_file(root, spec=WINDOWS):
    """A chunk file written by ``labeller chunks --out``, as another pipeline would hand it over."""
    out = root / "windows.jsonl"
    assert main(["chunks", "--chunker", spec, "--out", str(out), "--root", str(root)]) == 0
    return out


async def open_eval(pilot):
    await settle(pilot)
    await pilot.press("f6")
    await settle(pilot)
    assert isinstance(pilot.app.screen, EvalScreen)
    return pilot.app.screen


async def run_over(pilot, screen, path):
    await pilot.press("ctrl+o")
    await settle(pilot)
    field = screen.query_one("#eval-chunks")
    assert screen.focused is field
    field.value = str(path)
    await pilot.press("enter")
    await settle(pilot)


def text_of(widget) -> str:
    return str(widget.render())


@run_async
async def test_eval_over_a_chunk_file_says_which_chunking(project):
    path = write_chunk_file(project)
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_eval(pilot)
        await run_over(pilot, screen, path)
        report = screen.result.report
        chunking = report["chunking"]
        assert chunking["name"] == "windows" and chunking["n_chunks"] == 7  # the file's stem, its chunks
        header = text_of(screen.query_one("#eval-chunking"))
        assert "windows" in header and chunking["digest"][:12] in header and "7 chunks" in header
        assert f"chunk file {path}" in header
        assert f"precision_Ω {chunking['precision_omega']['value']:.3f}" in header
        # the character metrics beside the chunk-level ones, each labelled for what it can be compared with
        chars = screen.query_one("#eval-chars")
        k = report["config"]["shipped_k"]
        assert [chars.get_row_at(i)[0] for i in range(chars.row_count)] == [f"recall@{k}", f"precision@{k}",
                                                                            f"iou@{k}"]
        stat = report["aggregate"]["chars"][f"precision@{k}"]
        assert chars.get_row_at(1)[1].startswith(f"{stat['value']:.3f}")
        assert "comparable across chunkings" in str(chars.border_title)
        assert "not comparable across chunkings" in str(screen.query_one("#eval-metrics").border_title)
        # the drill-down shows that chunking's retrieved chunks (their ids are not the project's)
        queries = screen.query_one("#eval-queries")
        queries.focus()
        queries.move_cursor(row=0)
        await pilot.press("enter")
        await settle(pilot)
        drill = app.screen
        assert isinstance(drill, DrillDownScreen)
        assert drill.drill.retrieved, "a foreign chunking's hits are found in its own chunks"
        ids = {r.chunk.chunk_id for r in drill.drill.retrieved}
        assert ids <= {r.id for r in screen.result.chunks.chunking.ranges}
        assert not ids & {c.chunk_id for c in app.session.project.all_chunks}

        # emptying the field goes back to the project's own chunks
        await pilot.press("escape")
        await settle(pilot)
        screen.query_one("#eval-chunks").value = ""
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert screen.result.report["chunking"]["name"] == "md-struct-v1:max_chars=1800"
        assert "this project's chunker" in text_of(screen.query_one("#eval-chunking"))


@run_async
async def test_a_refused_chunk_file_is_shown_line_by_line(project):
    bad = project / "bad.jsonl"
    good = {"id": "c1", "doc": "ops/oncall.md", "start": 0, "end": 10}
    bad.write_text("\n".join([json.dumps(good), json.dumps({"id": "c1", "doc": "ops/oncall.md", "start": 0,
                                                             "end": 5}),
                              json.dumps({"id": "c3", "doc": "nowhere.md", "start": 0, "end": 5}),
                              "{not json"]) + "\n", encoding="utf-8")
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_eval(pilot)
        await run_over(pilot, screen, bad)
        assert screen.result is None
        assert "eval failed" in text_of(screen.query_one("#eval-status"))
        shown = text_of(screen.query_one("#eval-chunking"))
        assert "refused" in shown
        for line, cid in ((2, "c1"), (3, "c3")):
            assert f"{bad}:{line} (id {cid})" in shown
        assert f"{bad}:4" in shown
        assert "duplicate" in shown.lower() and "nowhere.md" in shown
        # a path that is no file at all: the same, never a crash
        await run_over(pilot, screen, project / "missing.jsonl")
        assert "not found" in text_of(screen.query_one("#eval-chunking"))
        assert app.is_running


def test_chunking_choices_list_the_registry_and_the_project_own(project):
    from labeller.app.session.session import AuthoringSession
    from labeller.core.chunkers import REGISTRY

    session = AuthoringSession.open(project)
    choices = chunking_choices(session.project)
    assert choices[0] == ("md-struct-v1:max_chars=1800", True)
    assert sorted(spec.split(":")[0] for spec, _ in choices) == sorted(REGISTRY)  # the default one is listed once
    assert [own for _, own in choices].count(True) == 1


def test_boundaries_are_marked_where_each_chunking_cuts():
    assert str(_marked("abcdef", [(0, START), (2, END), (2, START), (6, END)])) == "├ab┤├cdef┤"


@run_async
async def test_chunkers_view_compares_two_chunkings(project):
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_eval(pilot)
        screen.query_one("#eval-tabs").active = "tab-chunkers"
        await settle(pilot)
        assert not screen.query_one("#eval-top").display
        view = screen.query_one(ChunkersView)
        choice = view.query_one("#chunkers-choice")
        assert view.chosen() == ["md-struct-v1:max_chars=1800"]
        await pilot.click("#chunkers-run")
        await settle(pilot)
        assert "at least two" in text_of(view.query_one("#chunkers-status")) and view.comparison is None
        # a spec typed in joins the list, ticked; a bad one is refused with its reason
        field = view.query_one("#chunkers-spec")
        field.focus()
        field.value = "fixed-chars-v1:size=oops"
        await pilot.press("enter")
        await settle(pilot)
        assert "not a chunker spec" in text_of(view.query_one("#chunkers-status"))
        field.value = "fixed-chars-v1:overlap=20,size=100"
        await pilot.press("enter")
        await settle(pilot)
        assert view.chosen() == ["md-struct-v1:max_chars=1800", WINDOWS]
        await pilot.click("#chunkers-run")
        await settle(pilot)
        data = view.comparison.data
        assert [e["name"] for e in data["chunkings"]] == ["md-struct-v1:max_chars=1800", WINDOWS]
        table = view.query_one("#chunkers-table")
        labels = [str(table.get_row_at(i)[0]) for i in range(table.row_count)]
        assert labels[0] == "chunks" and "precision_Ω (ceiling)" in labels
        assert [str(c) for c in table.get_row_at(0)[1:]] == ["5", "7"]
        omega = table.get_row_at(labels.index("precision_Ω (ceiling)"))
        second = data["chunkings"][1]
        assert str(omega[2]).startswith(f"{second['precision_omega']['value']:.3f}")
        assert f"Δ {second['deltas']['precision_omega']['value']:+.3f}" in str(omega[2])
        assert data["verdict"][0]["line"] in text_of(view.query_one("#chunkers-verdict"))
        assert "not comparable" in text_of(view.query_one("#chunkers-note"))

        # a label edited after the comparison: the view says its numbers are older than the golden set
        app.session.update("q002", query="How quickly are pages answered?")
        screen.refresh_from_session()
        await settle(pilot)
        assert "older than the golden set: the labels changed" in text_of(view.query_one("#chunkers-status"))

        # pick a query: each chunking's boundaries over its gold span
        queries = view.query_one("#chunkers-queries")
        assert queries.row_count == data["config"]["queries"] == 3
        ids = [str(queries.get_row_at(i)[0]) for i in range(queries.row_count)]
        queries.focus()
        queries.move_cursor(row=ids.index("q001"))
        await settle(pilot)
        shown = text_of(view.query_one("#chunkers-spans"))
        spans = span_boundaries(app.session.project, view.comparison, "q001")
        span = spans[0]
        # q001's paragraph [45, 154) of rotate.md: md-struct's chunk is that paragraph (it cuts exactly at the
        # span's edges); the 100-char windows [28, 128) and [108, 208) start at 108 and end at 128 inside it
        assert (span.start, span.end) == (45, 154)
        assert span.rows[0].marks == ((0, START), (154 - 45, END)) and span.rows[0].chunks == 1
        assert span.rows[1].marks == ((108 - 45, START), (128 - 45, END)) and span.rows[1].chunks == 2
        assert [r.rank for r in span.rows] == [row["hit_ranks"][0] for row in (
            next(q for q in r.report["queries"] if q["query_id"] == "q001") for r in view.comparison.results)]
        assert "2 chunk(s) over the span" in shown and "1 chunk(s) over the span" in shown
        text = span.text
        assert "├" + text + "┤" in shown
        assert text[:63] + "├" + text[63:83] + "┤" + text[83:] in shown


def test_chunkers_view_snapshot(snap_compare, project):
    async def run_before(pilot):
        screen = await open_eval(pilot)
        screen.query_one("#eval-tabs").active = "tab-chunkers"
        await settle(pilot)
        view = screen.query_one(ChunkersView)
        field = view.query_one("#chunkers-spec")
        field.focus()
        field.value = WINDOWS
        await pilot.press("enter")
        await settle(pilot)
        view.run_comparison()
        await settle(pilot)
        field.cursor_blink = False  # a blinking cursor would make the picture depend on the clock
        await pilot.pause()

    assert snap_compare(make_app(project), terminal_size=(150, 60), run_before=run_before)
