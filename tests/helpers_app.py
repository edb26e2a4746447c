"""Projects and helpers for the app's tests (``tests/test_app_*.py``).

Snapshot tests and most flows use a small fixed project written here, so that their
pictures and numbers never move when the bundled example grows; the end-to-end session
test runs on a copy of the bundled example when it is present.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from textual import events

from labeller.app.pilot import settle  # noqa: F401  (re-exported for callers)

REPO = Path(__file__).resolve().parents[1]

ROTATE = """\
---
title: Key rotation
---
# Rotating keys

Run `keys rotate` to issue a new API key, then redeploy every service.
The old key stays valid for 24 hours.

## Checklist

- Announce the rotation in the ops channel.
- Run keys rotate on the primary region first.
- Redeploy services.

| Region | Window |
|---|---|
| eu | Tuesday |
| us | Thursday |
"""

ONCALL = """\
# On-call

The on-call engineer answers pages within 15 minutes.
Escalate to the duty manager after 30 minutes.

```bash
pager ack --all
```
"""

# U+2028 is a line separator to str.splitlines() (and so to Textual's TextArea) but not a
# line break in canonical text; offsets after it must still be right.
SEPARATOR = "# Separators\n\nFirst part\u2028second part of the same line.\nThe target phrase lives here.\n"

QUESTIONS = [
    "// fixture questions: comments are kept on save",
    {"id": "q001", "query": "How do I rotate the API key?", "expected_answer": "Run keys rotate, then redeploy.",
     "locators": [{"doc": "guide/rotate.md", "quote": "issue a new API key"}], "tags": ["ops"], "split": "dev"},
    {"id": "q002", "query": "How fast must on-call answer a page?", "expected_answer": "Within 15 minutes.",
     "locators": [{"quote": "answers pages within 15 minutes"}], "tags": ["oncall"], "split": "test"},
    {"id": "q003", "query": "Which day is the eu rotation window?", "expected_answer": "Tuesday",
     "locators": [{"doc": "guide/rotate.md", "quote": "Tuesday"}], "tags": ["ops"]},
    {"id": "q004", "query": "What is the office wifi password?", "expected_answer": "", "locators": [],
     "unanswerable": True},
]


def write_small_project(root: Path) -> Path:
    """A four-question project over three documents (one with U+2028), fully resolvable."""
    docs = {"guide/rotate.md": ROTATE, "ops/oncall.md": ONCALL, "notes/separators.md": SEPARATOR}
    for name, text in docs.items():
        path = root / "corpus" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="")
    golden = root / "golden"
    golden.mkdir(parents=True, exist_ok=True)
    lines = [q if isinstance(q, str) else json.dumps(q, ensure_ascii=False) for q in QUESTIONS]
    (golden / "questions.jsonl").write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return root


@pytest.fixture
def small(tmp_path):
    """The small fixed project, fresh for each test (import it by name to use it as a fixture)."""
    return write_small_project(tmp_path / "proj")


def bundled_example_present() -> bool:
    return (REPO / "corpus").is_dir() and (REPO / "golden" / "questions.jsonl").is_file()


def copy_bundled_example(root: Path) -> Path:
    """A throwaway copy of the bundled example (corpus/, golden/, labeller.toml if any)."""
    root.mkdir(parents=True, exist_ok=True)
    shutil.copytree(REPO / "corpus", root / "corpus")
    shutil.copytree(REPO / "golden", root / "golden")
    if (REPO / "labeller.toml").is_file():
        shutil.copy2(REPO / "labeller.toml", root / "labeller.toml")
    return root


def make_app(root: Path, **kwargs):
    from labeller.app.app import LabellerApp
    from labeller.app.session.session import AuthoringSession

    kwargs.setdefault("watch_corpus", False)  # corpus changes are checked by calling check_corpus
    return LabellerApp(AuthoringSession.open(root), **kwargs)


async def type_into(pilot, selector: str, text: str) -> None:
    """Focus a field, clear it and type ``text`` key by key, as the author would."""
    widget = pilot.app.screen.query_one(selector)
    widget.focus()
    await pilot.pause()
    widget.value = ""
    await pilot.press(*text)  # Pilot turns each character into its key event


def run_async(test):
    """Run an ``async def`` test with ``asyncio.run`` (the suite has no async plugin)."""
    import asyncio
    import functools
    import inspect

    @functools.wraps(test)
    def wrapper(*args, **kwargs):
        return asyncio.run(test(*args, **kwargs))

    wrapper.__signature__ = inspect.signature(test)
    return wrapper


async def paste_into(pilot, selector: str, text: str) -> None:
    """Put ``text`` in a field in one change (a paste), for text whose every prefix need not resolve."""
    widget = pilot.app.screen.query_one(selector)
    widget.focus()
    await pilot.pause()
    widget.value = text


async def open_record(pilot, record_id: str) -> None:
    """Wait for the app to load, open ``record_id`` in the editor and wait for its labels to
    resolve: how most editor tests begin."""
    await settle(pilot)
    pilot.app.open_record(record_id)
    await settle(pilot)


def on_screen(widget) -> bool:
    """Shown (it and every container up to its screen displayed) and drawn whole: its region
    lies inside the screen and inside every container's (a scroll window or a row clips it)."""
    screen = widget.screen
    containers = widget.ancestors[:widget.ancestors.index(screen)]
    if not widget.display or not all(c.display for c in containers):
        return False
    region = widget.region
    return (region.area > 0 and screen.region.contains_region(region)
            and all(c.region.contains_region(region) for c in containers))


def assert_focus_on_screen(app, expected_id: str | None = None) -> None:
    focused = app.screen.focused
    assert focused is not None, "nothing has the focus"
    if expected_id is not None:
        assert focused.id == expected_id, f"focus on {focused!r}, not #{expected_id}"
    if getattr(focused, "row_count", 0) and focused.outer_size.height > app.screen.scrollable_content_region.height:
        # a table as tall as its rows, taller than the screen (issue 38): its cursor row is drawn
        assert row_on_screen(focused, focused.cursor_row) is not None, f"{focused!r}: its cursor row is not drawn"
        return
    assert on_screen(focused), f"{focused!r} has the focus but is not drawn whole ({focused.region})"


async def burst(pilot, *keys: str) -> None:
    """Post ``keys`` the way a terminal delivers a paste or fast typing: all queued before the
    app handles the first (``pilot.press`` waits after each key)."""
    for key in keys:
        char = {"tab": "\t", "shift+tab": None}.get(key, key if len(key) == 1 else None)
        pilot.app.post_message(events.Key(key, char))
    await settle(pilot)


async def tab_round(pilot, limit: int) -> list:
    """Press Tab until the focus comes back to a widget it already visited (at most ``limit``
    presses), asserting that each focused widget is drawn whole; the widgets visited, in order."""
    stops: list = []
    for _ in range(limit):
        await pilot.press("tab")
        await settle(pilot)
        assert_focus_on_screen(pilot.app)
        if pilot.app.screen.focused in stops:
            break
        stops.append(pilot.app.screen.focused)
    return stops


def nested_scrolls(screen) -> list[str]:
    """Each shown widget that scrolls vertically (rows hidden below or above it) inside a shown
    container that scrolls too: a scroll box in a scroll box, whose rows only a mouse wheel
    over the inner one finds (issue 38). Empty when there is none."""
    from textual.widget import Widget

    found = []
    for widget in screen.query("*"):
        if not widget.display or not widget.allow_vertical_scroll or not all(
                a.display for a in widget.ancestors if isinstance(a, Widget)):
            continue
        outer = [a for a in widget.ancestors if isinstance(a, Widget) and a.allow_vertical_scroll]
        if outer:
            found.append(f"{widget!r} ({widget.max_scroll_y} rows hidden) inside {outer[0]!r}")
    return found


def silent_empty_tables(screen) -> list[str]:
    """Each shown table with no row: an empty state as a bare header, where words should say
    what it means (issue 38). Empty when there is none."""
    from textual.widget import Widget
    from textual.widgets import DataTable

    return [repr(t) for t in screen.query(DataTable)
            if t.display and not t.row_count and all(a.display for a in t.ancestors if isinstance(a, Widget))]


def row_on_screen(table, row: int) -> str | None:
    """The text of the table's ``row`` as drawn on the screen now, or None when that row is not
    drawn (outside the table's window or scrolled off the screen)."""
    rows = table.ordered_rows
    y = table.content_region.y + table.header_height + sum(r.height for r in rows[:row]) - round(table.scroll_y)
    screen = table.screen
    if not 0 <= y < screen.size.height:
        return None
    if not table.content_region.contains(table.content_region.x, y):
        return None
    from textual.errors import NoWidget

    try:
        at, _ = screen.get_widget_at(table.content_region.x, y)
    except NoWidget:
        return None
    if at is not table:
        return None
    return table.render_line(y - table.content_region.y).text


async def run_eval(pilot):
    """F6, Ctrl+R, and wait for the eval's worker to finish (the bundled example takes a few
    seconds); the eval screen, its ``result`` set."""
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


@asynccontextmanager
async def on_refused_record(root, record_id: str = "r-1"):
    """The app on ``root`` (its committed build read), the author screen open on the record's
    first refused locator."""
    from labeller.app.app import LabellerApp
    from labeller.app.session.session import AuthoringSession
    from labeller.commands.committed_corpus import last_build

    app = LabellerApp(AuthoringSession.open(root, last_build_reader=last_build), watch_corpus=False)
    async with app.run_test(size=(150, 45)) as pilot:
        await settle(pilot)
        app.open_record(record_id, app.session.first_refused_locator(record_id))
        await settle(pilot)
        yield app, pilot
