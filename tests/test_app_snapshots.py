"""Pictures of the main screens (pytest-textual-snapshot), on the small fixed project.

Regenerate after a deliberate change with ``pytest tests/test_app_snapshots.py --snapshot-update``
and look at the report before committing the new SVGs.
"""

from __future__ import annotations

import pytest

from helpers_app import make_app, settle, type_into, write_small_project
from labeller.app.session.session import AuthoringSession

SIZE = (140, 40)


@pytest.fixture
def project(tmp_path):
    return write_small_project(tmp_path / "proj")


def snap(snap_compare, root, steps=None):
    async def run_before(pilot):
        await settle(pilot)
        if steps is not None:
            await steps(pilot)
            await settle(pilot)
        for widget in pilot.app.screen.query("Input, TextArea"):
            widget.cursor_blink = False  # a blinking cursor would make the picture depend on the clock
        await pilot.pause()

    return snap_compare(make_app(root), terminal_size=SIZE, run_before=run_before)


def test_questions_screen(snap_compare, project):
    assert snap(snap_compare, project)


def test_author_resolved(snap_compare, project):
    async def steps(pilot):
        pilot.app.open_record("q001")

    assert snap(snap_compare, project, steps)


def test_author_ambiguous(snap_compare, project):
    async def steps(pilot):
        pilot.app.open_record("q001")
        await settle(pilot)
        await type_into(pilot, "#loc-quote", "keys rotate")

    assert snap(snap_compare, project, steps)


def test_author_not_found(snap_compare, project):
    async def steps(pilot):
        pilot.app.open_record("q001")
        await settle(pilot)
        await type_into(pilot, "#loc-quote", "rotate the secret")

    assert snap(snap_compare, project, steps)


def test_author_light_theme(snap_compare, project):
    async def steps(pilot):
        pilot.app.open_record("q002")
        await settle(pilot)
        await pilot.press("ctrl+t")

    assert snap(snap_compare, project, steps)


def test_coverage_screen(snap_compare, project):
    async def steps(pilot):
        await pilot.press("f4")

    assert snap(snap_compare, project, steps)


def test_broken_labels_screen(snap_compare, project):
    session = AuthoringSession.open(project)
    session.prepare()
    session.rebuild(session.save_questions())
    doc = project / "corpus" / "guide" / "rotate.md"
    doc.write_text(doc.read_text().replace("issue a new API key", "issue a fresh API key"), encoding="utf-8")

    async def steps(pilot):
        await pilot.press("f5")
        await settle(pilot)
        # "1 record(s) have broken labels" lasts 8 s: whether it was still up depended on the clock
        pilot.app.clear_notifications()

    assert snap(snap_compare, project, steps)


def test_broken_labels_moves(snap_compare, tmp_path, capsys):
    """A reorganised corpus: the moves grouped above the broken labels, the accept key shown."""
    from helpers_moves import reorganised

    root = reorganised(tmp_path, capsys)

    async def steps(pilot):
        await pilot.press("f5")

    assert snap(snap_compare, root, steps)


def test_help_screen(snap_compare, project):
    async def steps(pilot):
        await pilot.press("f1")

    assert snap(snap_compare, project, steps)


def test_restore_dialog(snap_compare, project):
    session = AuthoringSession.open(project)
    session.update("q002", query="How quickly are pages answered?")

    assert snap(snap_compare, project)
