"""Small things seen at 80×24 (issue 27, point 5): keys that went sideways or drew nothing."""

from __future__ import annotations

import json

import pytest

from helpers_app import make_app, run_async, settle, write_small_project

SIZE = (80, 24)


@pytest.fixture
def many(tmp_path):
    """The small project with forty more (unanswerable) questions: a list longer than the screen."""
    root = write_small_project(tmp_path / "proj")
    qpath = root / "golden" / "questions.jsonl"
    extra = [json.dumps({"id": f"q{i:03d}", "query": f"Question number {i}, long enough to need a wide query "
                         "column?", "expected_answer": "", "locators": [], "unanswerable": True})
             for i in range(5, 45)]
    qpath.write_text(qpath.read_text(encoding="utf-8") + "".join(line + "\n" for line in extra), encoding="utf-8")
    return root


def cursor_row_shown(table) -> bool:
    """The cursor's row lies inside the rows the table draws (below its header)."""
    rows_shown = table.scrollable_content_region.height - 1
    return table.scroll_y <= table.cursor_row < table.scroll_y + rows_shown


@run_async
async def test_home_and_end_go_to_the_first_and_last_row(many):
    app = make_app(many)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#questions")
        table.focus()
        assert table.max_scroll_x > 0, "the query column is wider than the screen: End could scroll sideways"
        await pilot.press("end")
        await settle(pilot)
        assert table.cursor_row == table.row_count - 1 and table.scroll_x == 0
        assert cursor_row_shown(table)
        await pilot.press("home")
        await settle(pilot)
        assert table.cursor_row == 0 and table.scroll_y == 0


@run_async
async def test_deleting_the_last_rows_keeps_the_highlighted_row_drawn(many):
    app = make_app(many)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#questions")
        table.focus()
        for _ in range(2):
            table.move_cursor(row=table.row_count - 1)
            await settle(pilot)
            await pilot.press("delete")
            await settle(pilot)
            await pilot.press("enter")  # the dialog's Delete
            await settle(pilot)
        assert table.row_count == 42 and table.cursor_row == 41
        assert cursor_row_shown(table), (table.scroll_y, table.max_scroll_y)


@run_async
async def test_help_shows_every_binding_id_whole_at_80_columns(many):
    """The ids are what a keymap.toml names: each must be readable in one piece, as typed."""
    from rich.console import Console
    import io

    app = make_app(many)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f1")
        await settle(pilot)
        keys = app.screen.query_one("#help-keys")
        console = Console(width=keys.content_region.width, record=True, file=io.StringIO())
        console.print(keys.content)
        lines = console.export_text().splitlines()
        ids = [binding_id for _, rows in app.help_groups() for _, _, binding_id in rows if binding_id]
        assert "app.new_question" in ids
        cut = [binding_id for binding_id in ids if not any(binding_id in line for line in lines)]
        assert cut == []


@run_async
async def test_ambiguous_occurrences_wrap_under_their_labels_at_80_columns(many):
    """Each occurrence's context and extension lines, however the panel's width wraps them, stay
    indented under the occurrence and are drawn whole (never cut at the panel's edge)."""
    from textual.content import Content
    from textual.widgets import OptionList

    from helpers_app import type_into

    app = make_app(many)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.open_record("q001")
        await settle(pilot)
        await type_into(pilot, "#loc-quote", "keys rotate")
        await pilot.press("escape")  # to the document: the record beside it, in its narrow column
        await settle(pilot)
        options = app.screen.query_one(OptionList)
        width = options.scrollable_content_region.width
        assert 0 < width < 60, "a narrow panel, where the lines must wrap"
        for i in range(options.option_count):
            prompt = options.get_option_at_index(i).prompt
            # as drawn at this width (a plain Content prompt is wrapped by the widget itself)
            drawn = prompt.laid_out(width) if hasattr(prompt, "laid_out") else Content("\n").join(prompt.wrap(width))
            lines = drawn.plain.split("\n")
            assert all(len(line) <= width for line in lines)
            assert all(line.startswith("    ") for line in lines[1:]), lines
            under = " ".join(line.strip() for line in lines[1:])
            assert "picked by: keys rotate" in under, under


async def nudge(pilot, key: str) -> None:
    from labeller.app.widgets.document_view import DocumentView

    pilot.app.screen.query_one(DocumentView).focus()
    await pilot.press(key)
    await settle(pilot)


def notices(app) -> list[str]:
    """Every notification from now on, as text (the app's own ``notify`` keeps showing them)."""
    seen: list[str] = []
    show = app.notify

    def notify(message, *args, **kwargs):
        seen.append(str(message))
        return show(message, *args, **kwargs)

    app.notify = notify
    return seen


@run_async
async def test_a_nudge_that_cannot_move_says_why(tmp_path):
    app = make_app(write_small_project(tmp_path / "proj"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.open_record("q003")  # quote "Tuesday": one word
        await settle(pilot)
        seen = notices(app)
        await nudge(pilot, "right_curly_bracket")
        assert app.session.draft("q003").locators[0].quote == "Tuesday"
        assert any("one word" in n for n in seen), seen


@run_async
async def test_a_nudge_says_when_it_moves_text_into_or_out_of_the_context(tmp_path):
    from helpers_app import paste_into

    app = make_app(write_small_project(tmp_path / "proj"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.open_record("q001")
        await settle(pilot)
        await paste_into(pilot, "#loc-quote", "Run keys rotate on")  # the checklist's copy, unique
        await settle(pilot)
        assert app.screen.preview.status == "resolved"
        seen = notices(app)
        # dropping "Run" and "on" leaves "keys rotate", which occurs twice: a context picks this copy
        await nudge(pilot, "left_curly_bracket")
        await nudge(pilot, "right_curly_bracket")
        loc = app.session.draft("q001").locators[0]
        assert loc.quote == "keys rotate" and (loc.prefix or loc.suffix)
        assert any("added" in n and "picks this copy" in n for n in seen), seen
        assert app.screen.preview.status == "resolved"

        # growing it to "keys rotate on" makes it unique again: the context goes, and it is said
        seen.clear()
        await nudge(pilot, "right_square_bracket")
        loc = app.session.draft("q001").locators[0]
        assert loc.quote == "keys rotate on" and not (loc.prefix or loc.suffix)
        assert any("dropped" in n for n in seen), seen


@run_async
async def test_a_toast_with_a_file_name_shows_it_as_written(tmp_path, monkeypatch):
    """A path is untrusted text: read as Textual markup, ``[work]`` in a folder's name vanished
    from the toast (or a stray ``[`` broke it), the garbled file-name toasts of issue 27."""
    from labeller.app.session.review import ReviewSession
    from labeller.errors import InvalidInput

    monkeypatch.setenv("LABELLER_REVIEWER", "tester")
    message = "cannot write /home/me/[work]/proj/golden/reviews.jsonl: permission denied"

    def refuse(self, *args, **kwargs):
        raise InvalidInput(message)

    monkeypatch.setattr(ReviewSession, "decide", refuse)
    app = make_app(write_small_project(tmp_path / "proj"))
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("f7")
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        toasts = [toast.render().plain for toast in app.screen.query("Toast")]
        assert any(message in " ".join(text.split()) for text in toasts), toasts


@pytest.mark.parametrize("which", ["annotate", "adjudicate"])
@run_async
async def test_every_key_of_annotate_and_adjudicate_is_on_screen(tmp_path, which):
    """They had Textual's one-row Footer, which cut the last keys ("esc Leave in…") at 80."""
    from textual.widgets._footer import FooterKey

    from helpers_review import make_project
    from labeller.app.review_app import ScreenApp
    from labeller.app.screens.adjudicate import AdjudicateScreen
    from labeller.app.screens.annotate import AnnotateScreen
    from test_review_agreement import BOB, write_annotations

    project = make_project(tmp_path / "proj")
    write_annotations(project, "bob", BOB)
    make = {"annotate": lambda: AnnotateScreen(project, ["q1", "q2"], "bob"),
            "adjudicate": lambda: AdjudicateScreen(project, "bob", "carol", ["q2", "q3", "q1"])}[which]
    app = ScreenApp(make)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        keys = [k for k in app.screen.query(FooterKey) if k.description]
        cut = [k.description for k in keys
               if k.region.width == 0 or not app.screen.region.contains_region(k.region)
               or k.region.width < len(k.description)]
        assert len(keys) >= 6 and cut == []
