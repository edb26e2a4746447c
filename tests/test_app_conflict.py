"""Two writers of questions.jsonl: the app merges record by record and asks about the records
both changed (issue 18: "two app instances saving the same record silently drop one edit").

The other writer is a second ``AuthoringSession`` on the same project (what a second app
instance is) or a plain file edit. Each expected file is computed by an oracle that never
merges: a fresh session opened on the file as the other writer left it, given the edits
the author's choices keep, saved. The merged save must equal it byte for byte, which also
says that every line nobody changed stayed as the other writer left it.
"""

from __future__ import annotations

import json

import pytest

from helpers_app import make_app, open_record, run_async, settle, type_into, write_small_project
from labeller.app.screens.conflict import ConflictScreen
from labeller.app.session.conflicts import compare_with_disk
from labeller.app.session.session import AuthoringSession

SIZE = (150, 45)
MINE_Q3 = "Which weekday is the eu window, in the app?"
THEIRS_Q3 = "Which weekday is the eu window, on disk?"
MINE_Q2 = "How quickly must on-call answer a page?"


@pytest.fixture
def small(tmp_path):
    return write_small_project(tmp_path / "proj")


def qpath(root):
    return root / "golden" / "questions.jsonl"


def other_writer(root, **edits) -> bytes:
    """A second session on the project saves ``edits`` ({id: fields, or None to delete});
    returns the file it left."""
    other = AuthoringSession.open(root)
    other.prepare()
    for rid, fields in edits.items():
        if fields is None:
            other.delete_record(rid)
        else:
            other.update(rid, **fields)
    assert other.save_questions().written
    return qpath(root).read_bytes()


def oracle(tmp_path, disk: bytes, **edits) -> bytes:
    """What a session opened on ``disk`` writes after ``edits``: the expected merged file."""
    root = write_small_project(tmp_path / "oracle")
    qpath(root).write_bytes(disk)
    return other_writer(root, **edits)


def lines_of(data: bytes) -> dict[str, bytes]:
    return {json.loads(ln)["id"]: ln for ln in data.splitlines() if ln.startswith(b"{")}


@run_async
async def test_changes_on_different_records_merge_without_a_dialog(small, tmp_path):
    app = make_app(small)
    async with app.run_test(size=SIZE) as pilot:
        await open_record(pilot, "q003")
        await type_into(pilot, "#form-query", MINE_Q3)
        await settle(pilot)
        # the other writer edits q001 and adds a record, by hand in the file
        text = qpath(small).read_text(encoding="utf-8").replace("How do I rotate", "How can I rotate")
        extra = json.dumps({"id": "q100", "query": "Who escalates?", "expected_answer": "duty manager",
                            "locators": [{"quote": "Escalate to the duty manager"}]})
        qpath(small).write_text(text + extra + "\n", encoding="utf-8")
        theirs = qpath(small).read_bytes()
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert not isinstance(app.screen, ConflictScreen), "no record changed on both sides: no dialog"
        assert app.session.draft("q001").query.startswith("How can I rotate"), "their edit came in"
        assert "q100" in app.session.drafts
        assert not app.session.dirty
    saved = qpath(small).read_bytes()
    assert saved == oracle(tmp_path, theirs, q003={"query": MINE_Q3})
    assert lines_of(saved)["q001"] == lines_of(theirs)["q001"] and lines_of(saved)["q100"] == lines_of(theirs)["q100"]


async def _conflict(pilot, app, root) -> bytes:
    """Both sides edit q003; the app also edits q002, the other writer q001. Returns the
    other writer's file, with the dialog open."""
    app.open_record("q002")
    await settle(pilot)
    await type_into(pilot, "#form-query", MINE_Q2)
    app.open_record("q003")
    await settle(pilot)
    await type_into(pilot, "#form-query", MINE_Q3)
    await settle(pilot)
    theirs = other_writer(root, q003={"query": THEIRS_Q3}, q001={"tags": ["ops", "keys"]})
    await pilot.press("ctrl+s")
    await settle(pilot)
    assert isinstance(app.screen, ConflictScreen)
    assert qpath(root).read_bytes() == theirs, "nothing is written before the author chooses"
    return theirs


def pane(screen, which: str) -> str:
    return str(screen.query_one(f"#conflict-{which}").render())


@pytest.mark.parametrize("key", ["m", "t"])
@run_async
async def test_a_record_changed_on_both_sides_shows_both_and_the_choice_decides(small, tmp_path, key):
    app = make_app(small)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        theirs = await _conflict(pilot, app, small)
        screen = app.screen
        assert list(screen.conflicts) == ["q003"], "only the record both changed is asked about"
        assert MINE_Q3 in pane(screen, "mine") and THEIRS_Q3 in pane(screen, "theirs")
        await pilot.press("ctrl+s")  # no choice yet: refused, the dialog stays
        await settle(pilot)
        assert isinstance(app.screen, ConflictScreen)
        await pilot.press(key)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert not isinstance(app.screen, ConflictScreen)
        saved = qpath(small).read_bytes()
        mine_kept = {"q002": {"query": MINE_Q2}} | ({"q003": {"query": MINE_Q3}} if key == "m" else {})
        assert saved == oracle(tmp_path, theirs, **mine_kept)
        assert lines_of(saved)["q001"] == lines_of(theirs)["q001"], "their other edit came in untouched"
        if key == "t":
            assert lines_of(saved)["q003"] == lines_of(theirs)["q003"]
            # taking theirs is one undo step: my version comes back, unsaved, and saves
            await pilot.press("ctrl+z")
            await settle(pilot)
            assert app.session.draft("q003").query == MINE_Q3 and app.session.is_dirty("q003")
            await pilot.press("ctrl+s")
            await settle(pilot)
            assert not isinstance(app.screen, ConflictScreen), "the file is the one the app wrote: no conflict"
            assert qpath(small).read_bytes() == oracle(tmp_path / "again", saved, q003={"query": MINE_Q3})


@run_async
async def test_escape_writes_nothing_and_keeps_every_edit(small):
    app = make_app(small)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        theirs = await _conflict(pilot, app, small)
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, ConflictScreen)
        assert qpath(small).read_bytes() == theirs
        assert app.session.draft("q003").query == MINE_Q3 and app.session.draft("q002").query == MINE_Q2
        await pilot.press("ctrl+s")  # the next save asks again
        await settle(pilot)
        assert isinstance(app.screen, ConflictScreen)


@pytest.mark.parametrize("key", ["M", "T"])
@run_async
async def test_several_conflicts_deletes_and_adds_decided_for_all(small, tmp_path, key):
    app = make_app(small)
    async with app.run_test(size=SIZE) as pilot:
        await open_record(pilot, "q003")
        await type_into(pilot, "#form-query", MINE_Q3)
        app.session.delete_record("q002")  # deleted here, edited on disk
        app.open_record("q004")
        await settle(pilot)
        await type_into(pilot, "#form-query", "What is the guest wifi password?")  # edited here, deleted there
        await settle(pilot)
        theirs = other_writer(small, q003={"query": THEIRS_Q3}, q002={"query": "How fast, on disk?"}, q004=None)
        await pilot.press("ctrl+s")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ConflictScreen)
        kinds = {rid: c.kind for rid, c in screen.conflicts.items()}
        assert kinds == {"q002": "deleted here, edited on disk", "q003": "edited on both sides",
                         "q004": "edited here, deleted on disk"}
        assert list(screen.conflicts) == ["q003", "q004", "q002"], "the author's order, then what they deleted"
        screen.query_one("#conflict-list").move_cursor(row=2)
        await settle(pilot)
        assert "(deleted)" in pane(screen, "mine") and "How fast, on disk?" in pane(screen, "theirs")
        screen.query_one("#conflict-list").move_cursor(row=0)
        await pilot.press(key)
        await pilot.press("ctrl+s")
        await settle(pilot)
    saved = qpath(small).read_bytes()
    if key == "T":
        assert saved == theirs
    else:
        expected = oracle(tmp_path, theirs, q003={"query": MINE_Q3}, q002=None)
        # q004 comes back where it was (after q003), as the app had it
        assert [*lines_of(saved)] == ["q001", "q003", "q004"]
        assert json.loads(lines_of(saved)["q004"])["query"] == "What is the guest wifi password?"
        assert [ln for ln in saved.splitlines() if b'"q004"' not in ln] == expected.splitlines()


def test_the_same_change_on_both_sides_is_no_conflict(small):
    mine = AuthoringSession.open(small)
    mine.prepare()
    mine.update("q003", query=THEIRS_Q3)
    mine.update("q001", query="Changed here only?")
    other_writer(small, q003={"query": THEIRS_Q3}, q002={"query": "Changed there only?"})
    merge = mine.merge_with_disk()
    assert merge.conflicts == () and merge.taken == ("q002",)
    assert compare_with_disk(mine.baseline, mine.drafts, mine.order, lambda rid: False, merge.disk).taken == \
        ("q002", "q003"), "records the app did not change are all taken"
