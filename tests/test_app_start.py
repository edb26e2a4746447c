"""The app's start, held by what the first screen loads rather than by a clock (issue 19.5).

The start is measured by ``benchmarks/app_bench.py`` (a fresh interpreter to the first
frame, against a minimal Textual app); what keeps it short is that the first screen, the
question list, pays only for what it shows. This test starts the app the same way — a
fresh ``python``, headless, stopped at Textual's ``Ready`` (the first frame drawn) — and
checks that nothing of the other screens or of the resolving/eval path was imported, and
that only the app's own stylesheet was read (each other screen reads its ``screens/*.tcss``
when first shown).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_FIRST_FRAME = """
import json, sys
from labeller.app.app import LabellerApp
from labeller.app.session.session import AuthoringSession

def first_screen(app):
    sheets = sorted(str(where).replace("\\\\", "/").rsplit("/labeller/", 1)[-1]
                    for where, _ in app.stylesheet.source if str(where).endswith(".tcss"))
    print(json.dumps({"screen": type(app.screen).__name__, "modules": sorted(sys.modules),
                      "stylesheets": sheets, "rows": app.screen.query_one("#questions").row_count,
                      "records": len(app.session.order)}))
    app.exit()

LabellerApp.on_ready = first_screen
LabellerApp(AuthoringSession.open(sys.argv[1]), watch_corpus=False).run(headless=True, size=(150, 45))
"""

# Libraries and modules the first frame has no use for: the resolving core, the eval and its
# search library, fuzzy matching, Markdown parsing, the plots, the corpus watcher, Textual's
# TextArea (the list's filter is a one-line field), and every screen but the question list.
NOT_AT_START = ("rapidfuzz", "whoosh", "markdown_it", "numpy", "duckdb", "ahocorasick", "plotext",
                "textual_plotext", "watchfiles", "rich.markdown", "labeller.core.build", "labeller.core.resolve",
                "labeller.core.anchors", "labeller.eval", "labeller.commands", "labeller.interop",
                "labeller.app.widgets.document_view", "labeller.app.widgets.preview", "textual.widgets._text_area",
                *(f"labeller.app.screens.{name}" for name in ("author", "coverage", "stale", "eval", "help",
                                                                "review", "conflict", "chunkers")))


def test_the_first_screen_loads_only_what_it_shows(tmp_path):
    project = tmp_path / "example"
    for name in ("corpus", "golden"):
        shutil.copytree(ROOT / name, project / name)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    proc = subprocess.run([sys.executable, "-c", _FIRST_FRAME, str(project)], capture_output=True, text=True,
                          timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    shown = json.loads(proc.stdout.strip().splitlines()[-1])
    assert shown["screen"] == "QuestionsScreen"
    assert shown["rows"] == shown["records"] > 0, "the first frame shows every question"
    loaded = [m for m in shown["modules"] if any(m == p or m.startswith(p + ".") for p in NOT_AT_START)]
    assert loaded == [], f"imported before the first frame: {loaded}"
    assert shown["stylesheets"] == ["app/labeller.tcss"], shown["stylesheets"]


def test_an_input_mounting_before_any_screen_is_on_the_stack_does_not_end_the_app(tmp_path):
    """Every ``Input`` clears the app's text selection when it mounts; on Python 3.12 the first
    mode's inputs mounted before its screen was on the stack, and Textual raised
    ``ScreenStackError`` from ``App.clear_selection``: the app died at start. With no screen
    on the stack at all, the call is a no-op."""
    from labeller.app.app import LabellerApp
    from labeller.app.session.session import AuthoringSession

    project = tmp_path / "example"
    for name in ("corpus", "golden"):
        shutil.copytree(ROOT / name, project / name)
    app = LabellerApp(AuthoringSession.open(project), watch_corpus=False)
    app.clear_selection()  # not running: no screen on the stack
