"""Keys that can be moved and choices that are remembered: every binding has an id, a
user keymap file remaps them (unknown ids refused), the theme and the corpus pane's
state survive a restart, the question list sorts from the keyboard, and ↓/Enter go
from the filter and search boxes into their lists."""

from __future__ import annotations

import importlib
import inspect
import json
import pkgutil

import pytest
from textual.binding import Binding
from textual.dom import DOMNode

import labeller.app

from helpers_app import make_app, open_record, run_async, settle, small, type_into  # noqa: F401 (small: a fixture)
from labeller.app.app import LabellerApp, binding_groups, binding_ids, scoped_bindings
from labeller.app.settings import KEYMAP_FILE, SETTINGS_FILE, config_dir, load_settings
from labeller.app.widgets.question_list import QuestionTable
from labeller.errors import InvalidInput

SIZE = (160, 48)


def write_keymap(text: str) -> None:
    config_dir().mkdir(parents=True, exist_ok=True)
    (config_dir() / KEYMAP_FILE).write_text(text, encoding="utf-8")


def test_every_binding_has_a_unique_id():
    ids = [b.id for _, b in scoped_bindings()]
    assert all(ids), [b for _, b in scoped_bindings() if not b.id]
    assert len(ids) == len(set(ids))


def declared_bindings() -> list[tuple[str, Binding]]:
    """(class, binding) for every binding any class of ``labeller.app`` declares itself, found by
    importing every module of the package (not from a list kept by hand)."""
    found = []
    for name in ["labeller.app"] + [m.name for m in pkgutil.walk_packages(labeller.app.__path__, "labeller.app.")]:
        module = importlib.import_module(name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == name and issubclass(cls, DOMNode) and "BINDINGS" in cls.__dict__:
                found += [(cls.__qualname__, b) for b in cls.__dict__["BINDINGS"]]
    return found


def test_every_binding_of_every_screen_and_app_has_an_id_a_keymap_may_name():
    declared = declared_bindings()
    assert {"LabellerApp", "AnnotateScreen", "AdjudicateScreen", "RecordEditor"} <= {cls for cls, _ in declared}
    no_id = [(cls, b.key if isinstance(b, Binding) else b) for cls, b in declared
             if not isinstance(b, Binding) or not b.id]
    assert not no_id, f"bindings without an id (a keymap cannot move them): {no_id}"
    ids = [b.id for _, b in declared]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
    assert set(ids) == binding_ids(), "a keymap must be able to name every binding, and only those"


def test_a_keymap_and_theme_take_effect_in_the_stand_alone_review_app(tmp_path):
    from labeller.app.review_app import ScreenApp
    from labeller.app.screens.annotate import AnnotateScreen
    from helpers_review import make_project

    project = make_project(tmp_path)
    write_keymap('[keymap]\n"annotate.next" = "j"\n')
    (config_dir() / SETTINGS_FILE).write_text(json.dumps({"theme": "textual-light"}), encoding="utf-8")

    async def session() -> None:
        app = ScreenApp(lambda: AnnotateScreen(project, ["q1", "q2", "q3"], "bob"))
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            screen = app.screen
            assert app.theme == "textual-light"
            await pilot.press("n")  # the old key no longer moves
            assert screen.index == 0
            await pilot.press("j")
            assert screen.index == 1

    run_async(session)()


@run_async
async def test_a_keymap_file_moves_save_to_another_key(small):
    write_keymap('[keymap]\n"app.save" = "ctrl+w"\n')
    app = make_app(small)
    qpath = small / "golden" / "questions.jsonl"
    before = qpath.read_bytes()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.session.update("q002", query="How quickly is a page answered?")
        await pilot.press("ctrl+s")  # the old key no longer saves
        await settle(pilot)
        assert qpath.read_bytes() == before
        await pilot.press("ctrl+w")
        await settle(pilot)
        assert "How quickly is a page answered?" in qpath.read_text(encoding="utf-8")
        # F1 and the palette show the key as remapped
        keys = {binding_id: key for key, _, binding_id in dict(app.help_groups())["everywhere"]}
        assert keys["app.save"] == "^w"
        save = next(c for c in app.get_system_commands(app.screen) if c.title == "Save")
        assert "^w" in save.help


@pytest.mark.parametrize("text, reason", [
    ('[keymap]\n"app.sav" = "ctrl+w"\n', "unknown binding id(s): app.sav"),
    ('[keymap]\n"app.save" = ""\n', "app.save: keys must be a string"),
    ('[keymap]\n"app.save" = 3\n', "app.save: keys must be a string"),
    ('[keys]\n"app.save" = "ctrl+w"\n', "unknown key(s) keys"),
    ('[keymap\n', "cannot parse the keymap file"),
])
def test_a_bad_keymap_is_refused_with_the_file_and_reason(small, text, reason):
    write_keymap(text)
    with pytest.raises(InvalidInput) as err:
        make_app(small)
    assert reason in str(err.value) and KEYMAP_FILE in str(err.value)


@run_async
async def test_theme_and_corpus_pane_are_remembered(small):
    app = make_app(small)
    async with app.run_test(size=SIZE) as pilot:
        await open_record(pilot, "q001")
        assert app.screen.query_one("#left").display
        theme = app.theme
        await pilot.press("ctrl+t", "f9")
        await settle(pilot)
        assert app.theme != theme and not app.screen.query_one("#left").display
        chosen = app.theme
    saved = json.loads((config_dir() / SETTINGS_FILE).read_text(encoding="utf-8"))
    assert saved == {"theme": chosen, "panes": {"wide": "hidden"}}

    again = make_app(small)
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        again.open_record("q001")
        await settle(pilot)
        assert again.theme == chosen and not again.screen.query_one("#left").display
        await pilot.press("f9")
        await settle(pilot)
        assert again.screen.query_one("#left").display
    assert load_settings()[0].panes == {"wide": "shown"}


@run_async
async def test_the_corpus_pane_is_remembered_per_width_class(small):
    """Shown at 100 columns (where it starts hidden), it stays as it was at 160: a pane wanted
    on a medium terminal must not squeeze a wide one, and the other way round."""
    app = make_app(small)
    async with app.run_test(size=(100, 30)) as pilot:
        await open_record(pilot, "q001")
        assert not app.screen.query_one("#left").display
        await pilot.press("f9")
        await settle(pilot)
        assert app.screen.query_one("#left").display
        await pilot.resize_terminal(160, 48)
        await settle(pilot)
        assert app.screen.query_one("#left").display  # wide: its default, untouched
        await pilot.press("f9")
        await settle(pilot)
        assert not app.screen.query_one("#left").display
        await pilot.resize_terminal(100, 30)
        await settle(pilot)
        assert app.screen.query_one("#left").display  # medium's own choice
    assert load_settings()[0].panes == {"medium": "shown", "wide": "hidden"}


@pytest.mark.parametrize(("old", "panes"), [("shown", {"medium": "shown"}), ("hidden", {"wide": "hidden"}),
                                            ("auto", {})])
def test_the_old_global_pane_setting_is_kept_where_it_was_chosen(old, panes):
    """``tree`` was one flag over a default that was shown from 120 columns: ``shown`` was
    chosen where the pane started hidden (a medium terminal), ``hidden`` where it started shown."""
    config_dir().mkdir(parents=True, exist_ok=True)
    (config_dir() / SETTINGS_FILE).write_text(json.dumps({"theme": "nord", "tree": old}), encoding="utf-8")
    settings, problem = load_settings()
    assert problem is None and settings.panes == panes and settings.theme == "nord"


@pytest.mark.parametrize("text", ['{"tree": "sideways"}', '{"panes": {"narrow": "shown"}}',
                                  '{"panes": {"wide": "maybe"}}', '{"panes": ["wide"]}'])
def test_an_unreadable_settings_file_gives_the_defaults_and_says_why(text):
    config_dir().mkdir(parents=True, exist_ok=True)
    (config_dir() / SETTINGS_FILE).write_text(text, encoding="utf-8")
    settings, problem = load_settings()
    assert settings.panes == {} and "panes a table of medium, wide -> shown or hidden" in problem


def table_ids(table: QuestionTable) -> list[str]:
    return [row.key.value for row in table.ordered_rows]


@run_async
async def test_the_sort_key_cycles_the_question_list_columns(small):
    app = make_app(small)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = app.screen.query_one(QuestionTable)
        table.focus()
        file_order = table_ids(table)
        table.move_cursor(row=file_order.index("q003"))
        statuses = {rid: app.session.status(rid)[0] for rid in file_order}
        await pilot.press("s")  # id
        assert table.sort_by == "id" and table_ids(table) == sorted(file_order)
        await pilot.press("s")  # status
        assert table.sort_by == "status"
        assert [statuses[i] for i in table_ids(table)] == sorted(statuses[i] for i in file_order)
        assert table.current_id == "q003"  # the cursor stays on its record
        for _ in range(5):  # review, hop, split, query, then back to the file's order
            await pilot.press("s")
        assert table.sort_by == "file order" and table_ids(table) == file_order
        assert "▲" not in "".join(str(c.label) for c in table.columns.values())


@run_async
async def test_down_and_enter_go_from_the_filter_and_search_boxes_into_their_lists(small):
    app = make_app(small)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        await type_into(pilot, "#filter-text", "rotate")
        await pilot.press("down")
        assert isinstance(app.focused, QuestionTable)
        await pilot.press("slash", "enter")
        assert isinstance(app.focused, QuestionTable)
        await pilot.press("enter")  # and Enter opens the record
        await settle(pilot)
        assert app.current_mode == "author"
        await pilot.press("ctrl+f")
        await type_into(pilot, "#search-input", "rotate")
        await settle(pilot)
        await pilot.press("down")
        assert app.focused.id == "search-hits"
