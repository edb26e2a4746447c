"""The pool queue of review mode (issue 28.3): the session model, then the screen under Pilot."""

from __future__ import annotations

import asyncio
import io
import json

from conftest import q, write_project
from rich.console import Console
from textual.widgets import Static

from labeller.app.review_app import ScreenApp
from labeller.app.screens.judging import PoolScreen
from labeller.app.session.judging import PoolSession
from labeller.cli import main
from labeller.config import load_config
from labeller.core.judgments import load_judgments
from labeller.core.project import Project

DOCS = {
    "keys.md": "# Keys\n\nThe API key is rotated every ninety days.\n\n# Storage\n\nKeys are stored in the vault.\n\n"
               "# Audit\n\nEvery key rotation is logged for audit.\n",
    "ops.md": "# Rotation\n\nOperators rotate the key by hand when a breach is suspected.\n\n# Backups\n\n"
              "Backups run nightly.\n",
}
QUESTIONS = [q("q1", {"doc": "keys.md", "quote": "rotated every ninety days"}, query="key rotated stored vault audit backups operators"),
             q("q2", {"doc": "ops.md", "quote": "Backups run nightly"}, query="backups key rotation audit vault")]


def setup(tmp_path):
    root = write_project(tmp_path / "p", DOCS, QUESTIONS)
    pool = tmp_path / "pool.jsonl"
    assert main(["pool", "--root", str(root), "--depth", "3", "--out", str(pool)]) == 0
    return Project(load_config(root)), pool


def text_of(screen, selector: str) -> str:
    console = Console(width=200, file=io.StringIO(), color_system=None)
    with console.capture() as cap:
        console.print(screen.query_one(selector, Static).content)
    return cap.get()


def test_session_records_verdicts_and_resumes(tmp_path):
    project, pool = setup(tmp_path)
    entries = [json.loads(line) for line in pool.read_text(encoding="utf-8").splitlines()]
    assert len(entries) >= 3
    s = PoolSession(project, pool, "ann")
    s.load()
    assert (s.index, s.done) == (0, 0)
    s.decide(True)
    s.skip()  # entry 1 left for later
    s.decide(False)  # entry 2
    mine = [(j.query_id, j.relevant, j.judge) for j in load_judgments(project).judgments]
    assert mine == [(entries[0]["query_id"], True, "ann"), (entries[2]["query_id"], False, "ann")]
    again = PoolSession(project, pool, "ann")
    again.load()
    assert again.done == 2 and again.index == 1  # resumes at the first entry left
    other = PoolSession(project, pool, "bob")
    other.load()
    assert (other.done, other.index) == (0, 0)  # another judge starts afresh


def test_pool_screen_keys(tmp_path):
    project, pool = setup(tmp_path)
    entries = [json.loads(line) for line in pool.read_text(encoding="utf-8").splitlines()]

    async def session() -> None:
        app = ScreenApp(lambda: PoolScreen(project, pool, "ann"))
        async with app.run_test(size=(120, 45)) as pilot:
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, PoolScreen)
            assert f"pool 1/{len(entries)}  judged 0/{len(entries)}" in text_of(screen, "#pl-head")
            body = text_of(screen, "#pl-entry")
            first = entries[0]
            assert f"question {first['query_id']}" in body and first["text"].strip().splitlines()[0] in body
            assert "labelled (1 span)" in body
            await pilot.press("x")
            assert f"judged 1/{len(entries)}" in text_of(screen, "#pl-head")
            await pilot.press("s")
            await pilot.press("P")
            await pilot.pause()
    asyncio.run(session())
    judged = load_judgments(project).judgments
    assert [(j.query_id, j.relevant) for j in judged] == [(entries[0]["query_id"], False),
                                                          (entries[2]["query_id"], True)]
    promoted = {x.id: x for x in project.load_questions().questions}[entries[2]["query_id"]]
    assert judged[1].locator in promoted.locators
