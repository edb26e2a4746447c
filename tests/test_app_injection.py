"""No record, document or file name can act on the terminal from inside the app (issue 18).

A hostile record (OSC 52, which replaces the clipboard; a title change; clear screen; a C1
CSI; a bidi override; BEL; CR) is written into a project built here, the app opens it and
every screen and widget that shows record text is visited. The gate is what the terminal
would receive: every segment of every strip the screen's compositor renders (the exact
text Textual writes to the terminal, minus its own cursor moves) must be free of control
characters. A failure names the widgets whose own ``render_lines`` carry them.

The editor fields also keep the real value (``widgets.fields``): an untouched field saves
the record byte for byte, an edit elsewhere in it keeps the control characters.
"""

from __future__ import annotations

import asyncio
import json
import re

import pytest

from helpers_app import make_app, open_record, run_async, settle, write_small_project
from labeller.app.review_app import ScreenApp
from labeller.app.screens.adjudicate import AdjudicateScreen
from labeller.app.screens.annotate import AnnotateScreen
from labeller.app.screens.ask import Ask
from labeller.app.screens.eval import DrillDownScreen, LeakScreen
from labeller.app.screens.records import RecordEditor
from labeller.app.screens.review import ReviewScreen
from labeller.app.widgets.fields import SafeInput
from labeller.app.widgets.fields_area import SafeTextArea
from labeller.app.widgets.markup import edited_raw, display_line
from labeller.display import CONTROL

SIZE = (150, 45)

# what the red-team pass put in a query: each one acts on a terminal that receives it raw
OSC52 = "\x1b]52;c;ZWNobyBwd25lZA==\x07"  # clipboard := "echo pwned"
TITLE = "\x1b]0;pwned\x07"  # window title
CLEAR = "\x1b[2J"  # clear screen
C1_CSI = "\x9b31m"  # one-byte CSI (C1), red text
BIDI = "\u202e"  # right-to-left override
HOSTILE = f"{OSC52}{TITLE}{CLEAR}{C1_CSI} {BIDI}rev{BIDI}\x07\r"
IN_DOC = f"{OSC52}{C1_CSI}{BIDI}"  # survives canonicalisation (no CR) inside a document line

# a file name is text from the project too: the tree, the doc field, tables and titles show it
EVIL_NAME = f"ev{TITLE}{C1_CSI}il{BIDI}.md"

# a raw control character, or a line break inside one rendered row
RAW = re.compile(f"{CONTROL.pattern}|\n")

HOSTILE_DOC = f"# Hostile {IN_DOC}heading\n\nThe marker{IN_DOC}phrase lives here.\n"
# quotes two golden queries (a leak the eval tab reports) next to hostile text
LEAK_NOTE = (f"# Notes {IN_DOC}\n\nWe keep asking{IN_DOC} how fast must on-call answer a page? and "
             "which day is the eu rotation window? every week.\n")


def hostile_project(root):
    write_small_project(root)
    (root / "corpus" / "notes" / "hostile.md").write_text(HOSTILE_DOC, encoding="utf-8")
    (root / "corpus" / "notes" / "leak.md").write_text(LEAK_NOTE, encoding="utf-8")
    (root / "corpus" / "notes" / EVIL_NAME).write_text("# Named\n\nA document with a hostile name.\n", encoding="utf-8")
    q = root / "golden" / "questions.jsonl"
    lines = q.read_text(encoding="utf-8").splitlines()
    rec = json.loads(lines[1])
    assert rec["id"] == "q001"
    rec.update(query="How do I rotate the key" + HOSTILE, expected_answer="Run keys rotate" + HOSTILE,
               tags=["ops" + HOSTILE])
    rec["locators"].append({"doc": "notes/hostile.md", "quote": f"marker{IN_DOC}phrase"})
    rec["locators"].append({"doc": f"notes/{EVIL_NAME}", "quote": "hostile name"})
    lines[1] = json.dumps(rec)  # ensure_ascii: the file itself holds \u001b escapes, as a JSON writer would
    broken = {"id": "q005", "query": "broken" + HOSTILE, "expected_answer": "x" + HOSTILE,
              "locators": [{"quote": "nowhere" + IN_DOC + "to be found"}], "tags": [HOSTILE]}
    lines.append(json.dumps(broken))
    q.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


@pytest.fixture
def hostile(tmp_path):
    return hostile_project(tmp_path / "proj")


def leaks(app) -> list[str]:
    """Every rendered segment of the current screen that holds a raw control character,
    with the widgets that drew one."""
    screen = app.screen
    bad = [seg.text for strip in screen._compositor.render_strips() for seg in strip
           if seg.text and RAW.search(seg.text)]
    if not bad:
        return []
    culprits = set()
    for widget in screen.walk_children(with_self=True):
        if not widget.display or widget.size.area == 0:
            continue
        for strip in widget.render_lines(widget.size.region):
            if any(seg.text and RAW.search(seg.text) for seg in strip):
                culprits.add(f"{type(widget).__name__}#{widget.id}")
    return [f"{type(screen).__name__}: {sorted(culprits)}", *map(repr, bad[:5])]


class Visits:
    """The screens visited, each checked; the test asserts none leaked and all were seen."""

    def __init__(self, app) -> None:
        self.app = app
        self.seen: list[str] = []
        self.found: list[str] = []

    async def check(self, pilot, what: str) -> None:
        await settle(pilot)
        self.seen.append(what)
        self.found += [f"{what}: {line}" for line in leaks(self.app)]


@run_async
async def test_no_screen_sends_a_records_control_characters_to_the_terminal(hostile, monkeypatch):
    monkeypatch.setenv("LABELLER_REVIEWER", "tester")
    app = make_app(hostile)
    async with app.run_test(size=SIZE) as pilot:
        v = Visits(app)
        await v.check(pilot, "question list")  # its detail panel shows the highlighted record
        app.screen.query_one("#questions").move_cursor(row=0)
        await v.check(pilot, "question list, q001 highlighted")

        app.open_record("q001")
        await v.check(pilot, "author: q001 (form, locators, preview, tree)")
        form_query = app.screen.query_one("#form-query", SafeInput)
        assert form_query.raw == "How do I rotate the key" + HOSTILE, "the editor holds the real value"
        app.screen.active = 1  # the locator quoting the hostile document
        app.open_record("q001", 1)
        await v.check(pilot, "author: hostile locator, document view")
        app.open_record("q001", 2)
        await v.check(pilot, "author: the document with a hostile name")
        assert app.screen.query_one("#loc-doc", SafeInput).raw == f"notes/{EVIL_NAME}"
        shown = "".join(seg.text for strip in app.screen._compositor.render_strips() for seg in strip)
        assert "ev\u241b]0;pwned\u2407" in shown, "the hostile name is on screen (tree, document title), as stand-ins"
        app.open_record("q005")
        await v.check(pilot, "author: broken q005 (refusal, suggestions)")

        # the Ask prompt prefilled with what the author searched last, and its notification
        app.screen.find_text = HOSTILE
        app.screen.action_find()
        await v.check(pilot, "ask prompt")
        assert isinstance(app.screen, Ask)
        await pilot.press("enter")  # "not in this document: ..." as a notification
        await v.check(pilot, "find notification")
        app.notify("undo " + HOSTILE)  # the shell's notifications take record ids and messages
        await v.check(pilot, "a notification")

        await pilot.press("f4")
        await v.check(pilot, "coverage")
        await pilot.press("f5")
        await v.check(pilot, "broken labels")
        await pilot.press("f1")
        await v.check(pilot, "help and key bar")
        await pilot.press("escape")

        # the eval runs on the file as saved, which must build: the broken record goes first
        app.session.delete_record("q005")
        app.action_save()
        await v.check(pilot, "saved (its notification)")
        await pilot.press("f6")
        await settle(pilot)
        await pilot.press("ctrl+r")
        await v.check(pilot, "eval: per-query rows")
        screen = app.screen
        queries = screen.query_one("#eval-queries")
        queries.focus()
        for row in range(queries.row_count):
            queries.move_cursor(row=row)
            await pilot.press("enter")
            await settle(pilot)
            assert isinstance(app.screen, DrillDownScreen)
            await v.check(pilot, f"eval drill-down {app.screen.drill.query_id}")
            await pilot.press("escape")
            await settle(pilot)
        screen.query_one("#eval-tabs").active = "tab-leaks"
        await v.check(pilot, "eval: leaks panel")
        leaks_table = screen.query_one("#eval-leaks")
        assert leaks_table.row_count, "the leak note is found"
        if leaks_table.row_count:
            leaks_table.focus()
            await pilot.press("enter")
            await settle(pilot)
            assert isinstance(app.screen, LeakScreen)
            await v.check(pilot, "leak screen")
            await pilot.press("escape")

        await pilot.press("f7")
        await settle(pilot)
        assert isinstance(app.screen, ReviewScreen)
        for _ in app.screen.record_ids:
            await v.check(pilot, f"review {app.screen.record_ids[app.screen.index]}")
            if "q001" == app.screen.record_ids[app.screen.index]:
                break
            await pilot.press("s")  # skip
        await pilot.press("e")  # in the app, "edit" opens the live editor on that record
        await v.check(pilot, "review: edit in the author screen")

    assert not v.found, "\n".join(v.found)
    for needed in ("ask prompt", "coverage", "broken labels", "eval: per-query rows", "eval: leaks panel",
                   "leak screen", "review q001", "review: edit in the author screen"):
        assert needed in v.seen, f"{needed} was not visited"
    assert sum(seen.startswith("eval drill-down") for seen in v.seen) == 3, v.seen


def test_review_annotate_and_adjudicate_screens_show_control_characters_visibly(hostile):
    from labeller.config import load_config
    from labeller.core.project import Project
    from labeller.review.annotations import load_annotations

    project = Project(load_config(hostile))
    ann = load_annotations(project.config, "bob")
    ann.path.parent.mkdir(parents=True, exist_ok=True)
    ann.path.write_text(json.dumps({"record_id": "q001", "locators": [
        {"doc": "notes/hostile.md", "quote": f"marker{IN_DOC}phrase"}]}) + "\n", encoding="utf-8")
    found: list[str] = []

    async def visit(make, what: str) -> None:
        app = ScreenApp(make)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            found.extend(f"{what}: {line}" for line in leaks(app))

    asyncio.run(visit(lambda: AnnotateScreen(project, ["q001", "q005"], "carol", show_expected=True), "annotate"))
    asyncio.run(visit(lambda: AdjudicateScreen(project, "bob", "carol", ["q001"]), "adjudicate"))

    async def edit_in_review() -> None:  # the stand-alone review's record editor (JSON in a TextArea)
        app = ScreenApp(lambda: ReviewScreen(project, ["q001", "q005"], "alice"))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            found.extend(f"review: {line}" for line in leaks(app))
            await pilot.press("e")
            await settle(pilot)
            assert isinstance(app.screen, RecordEditor)
            found.extend(f"record editor: {line}" for line in leaks(app))

    asyncio.run(edit_in_review())
    assert not found, "\n".join(found)


# -- the editor fields keep the real value ---------------------------------------------------

def test_an_edit_of_the_visible_form_keeps_every_control_character_it_did_not_touch():
    raw = f"a{OSC52}b{BIDI}c"
    shown = display_line(raw)
    assert not RAW.search(shown) and len(shown) == len(raw)
    assert edited_raw(raw, shown, shown) == raw
    assert edited_raw(raw, shown, shown + "!") == raw + "!"  # typed at the end
    assert edited_raw(raw, shown, "X" + shown[1:]) == "X" + raw[1:]  # the first letter replaced
    cut = shown.index("b")
    assert edited_raw(raw, shown, shown[:cut - 1] + shown[cut:]) == raw[:cut - 1] + raw[cut:], \
        "deleting the BEL's stand-in deletes the BEL, nothing else"
    assert edited_raw(raw, shown, "") == ""


@run_async
async def test_saving_an_untouched_or_edited_hostile_record_loses_nothing(hostile):
    path = hostile / "golden" / "questions.jsonl"
    before = path.read_bytes()
    app = make_app(hostile)
    async with app.run_test(size=SIZE) as pilot:
        await open_record(pilot, "q001")
        assert not app.session.is_dirty("q001"), "showing the record changed nothing"
        # a paste of a raw control character is kept, and shown as its stand-in
        answer = app.screen.query_one("#form-answer", SafeTextArea)
        answer.focus()
        answer.move_cursor(answer.document.end)
        answer.insert("\x1b[0m!")
        tags = app.screen.query_one("#form-tags", SafeInput)
        tags.focus()
        await pilot.pause()
        tags.action_home()  # focus selected the whole field
        await pilot.press("x")  # typed at the start: the tag's control characters stay
        query = app.screen.query_one("#form-query", SafeInput)
        query.focus()
        await pilot.pause()
        query.action_end()
        await pilot.press("backspace")  # deletes the CR's stand-in, i.e. the CR
        await settle(pilot)
        assert not RAW.search(answer.text) and not RAW.search(query.value)
        draft = app.session.drafts["q001"]
        assert draft.query == "How do I rotate the key" + HOSTILE[:-1]
        assert draft.expected_answer == "Run keys rotate" + HOSTILE + "\x1b[0m!"
        assert list(draft.tags) == ["xops" + HOSTILE.rstrip("\r")]  # the form strips a tag's edges (CR is one)
        app.action_save()
        await settle(pilot)
    after = path.read_bytes()
    old_lines, new_lines = before.splitlines(keepends=True), after.splitlines(keepends=True)
    assert len(old_lines) == len(new_lines)
    changed = [i for i, (a, b) in enumerate(zip(old_lines, new_lines)) if a != b]
    assert changed == [1], "only q001's line changed; the broken hostile record q005 was written back as it was"
    rec = json.loads(new_lines[1])
    assert rec["query"] == "How do I rotate the key" + HOSTILE[:-1]
    assert rec["expected_answer"] == "Run keys rotate" + HOSTILE + "\x1b[0m!"


@run_async
async def test_the_save_conflict_screen_shows_both_hostile_versions_visibly(hostile):
    from labeller.app.screens.conflict import ConflictScreen
    from labeller.app.session.session import AuthoringSession

    app = make_app(hostile)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.session.update("q001", query="mine" + HOSTILE)
        other = AuthoringSession.open(hostile)  # another app instance saves the same record
        other.prepare()
        other.update("q001", query="theirs" + HOSTILE, tags=[HOSTILE])
        assert other.save_questions().written
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, ConflictScreen)
        assert not leaks(app), leaks(app)
