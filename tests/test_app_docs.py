"""The README's key table lists exactly the app's bindings: no key added, renamed or dropped
silently on either side.

Three sets are compared, each way:

* every binding declared by any screen or widget of ``labeller.app`` (found by importing every
  module of the package, not from a list kept by hand), as the footer shows it;
* the rows of the README's "Keys" table;
* ``binding_groups()``, from which the help screen (F1) and that table are written.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from pathlib import Path

from textual.binding import Binding
from textual.dom import DOMNode

import labeller.app
from labeller.app.app import binding_groups, key_display

REPO = Path(__file__).resolve().parents[1]
ROW = re.compile(r"^\| (?P<where>[^|`]+?) \| `(?P<key>[^`]+)` \| (?P<does>.+?) \|$")

# Screens that only a stand-alone command runs (``labeller annotate`` / ``adjudicate``), never
# the authoring app; their keys are explained in the README's review-round section instead.
STANDALONE = {"labeller.app.screens.annotate.AnnotateScreen", "labeller.app.screens.adjudicate.AdjudicateScreen",
              "labeller.app.screens.judging.PoolScreen"}

# Rows that are keys of Textual itself (focus moves, the palette, a focused button), not
# bindings labeller declares; the table names them because a user needs them.
TEXTUAL_ROWS = {
    ("^p", "Command palette: every action by name"),
    ("tab / shift+tab", "Move between fields"),
    ("enter", "Press the focused button"),
}


def readme_rows() -> set[tuple[str, str, str]]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("\n### Keys\n", 1)[1].split("\n#", 1)[0]
    rows = set()
    for line in section.splitlines():
        if line.startswith("| ") and "`" in line:
            m = ROW.match(line)
            assert m, f"a README key-table row not in the form | where | `key` | does |: {line!r}"
            rows.add((m["where"], m["key"], m["does"]))
    return rows


def declared_bindings() -> dict[str, set[tuple[str, str]]]:
    """class path -> (key as shown, what it does) for every labeller.app class declaring BINDINGS."""
    found: dict[str, set[tuple[str, str]]] = {}
    modules = [labeller.app] + [importlib.import_module(m.name) for m in
                                pkgutil.walk_packages(labeller.app.__path__, "labeller.app.")]
    for module in modules:
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ != module.__name__ or not issubclass(cls, DOMNode) or "BINDINGS" not in cls.__dict__:
                continue
            rows = {(key_display(b.key), b.tooltip or b.description)
                    for b in cls.__dict__["BINDINGS"] if isinstance(b, Binding)}
            if rows:
                found[f"{cls.__module__}.{cls.__qualname__}"] = rows
    return found


def _listing(title: str, rows) -> str:
    return title + ":\n" + "\n".join(" | ".join(r) for r in sorted(rows))


def test_the_readers_see_the_table_and_the_screens():
    assert len(readme_rows()) > 30
    classes = declared_bindings()
    assert "labeller.app.app.LabellerApp" in classes and "labeller.app.screens.author.AuthorScreen" in classes
    assert STANDALONE <= set(classes)


def test_the_table_is_what_the_help_screen_shows():
    shown = {(where, key, does) for where, rows in binding_groups() for key, does in rows}
    documented = readme_rows()
    assert not shown - documented, _listing("in the app's help, missing from the README's key table", shown - documented)
    assert not documented - shown, _listing("in the README's key table, not in the app's help", documented - shown)


def test_every_binding_of_every_screen_is_in_the_table():
    documented = {(key, does) for _, key, does in readme_rows()}
    missing = sorted((cls, key, does) for cls, rows in declared_bindings().items() if cls not in STANDALONE
                     for key, does in rows if (key, does) not in documented)
    assert not missing, _listing("bindings the README's key table does not list", missing)


def test_every_row_of_the_table_is_a_binding():
    declared = {row for cls, rows in declared_bindings().items() if cls not in STANDALONE for row in rows}
    invented = sorted((where, key, does) for where, key, does in readme_rows()
                      if (key, does) not in declared | TEXTUAL_ROWS)
    assert not invented, _listing("README key-table rows that no screen or widget binds", invented)
