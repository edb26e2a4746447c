"""The author screen's keys: one list, so the screen's module holds what the keys do and this
one what they are (F1, the palette, the README's key table and keymap.toml read them from
``AuthorScreen.BINDINGS``). Every binding has an id, ``author.…``, which a keymap file names."""

from __future__ import annotations

from textual.binding import Binding

from labeller.app.screens.field_keys import field_tab_bindings

AUTHOR_BINDINGS: list[Binding | tuple[str, str] | tuple[str, str, str]] = [  # the type Screen.BINDINGS has
    Binding("ctrl+n", "app.new_question", "New question", show=True, id="author.new_question", priority=True,
            tooltip="Create a question with a fresh id and open it (the app's ctrl+n, shown in this footer)"),
    Binding("ctrl+l", "add_locator", "Add locator", show=True, id="author.add_locator", tooltip="Add a locator to the question"),
    Binding("ctrl+g", "accept_suggestion", "Accept", show=True, id="author.accept_suggestion",
            tooltip="Accept the highlighted suggestion (nearest passage, unique extension, section)"),
    Binding("ctrl+b", "next_broken", "Next broken label", show=False, id="author.next_broken",
            tooltip="Open the next record whose label is refused (stale ones first)"),
    Binding("ctrl+f", "focus_search", "Search", show=True, id="author.search",
            tooltip="Search the corpus (the eval's BM25 index); Enter on a hit opens it"),
    Binding("left_square_bracket", "nudge('grow_start')", "Quote: add a word at the start", show=False, id="author.grow_start"),
    Binding("left_curly_bracket", "nudge('shrink_start')", "Quote: drop the first word", show=False, id="author.shrink_start"),
    Binding("right_curly_bracket", "nudge('shrink_end')", "Quote: drop the last word", show=False, id="author.shrink_end"),
    Binding("right_square_bracket", "nudge('grow_end')", "Quote: add a word at the end", show=False, id="author.grow_end"),
    Binding("escape", "focus_document", "Document", show=False, id="author.document",
            tooltip="Focus the document view (where the nudge keys work)"),
    Binding("alt+q", "jump('#form-query')", "Query", show=False, id="author.jump-query",
            tooltip="Jump to the query field", priority=True),
    Binding("alt+a", "jump('#form-answer')", "Answer", show=False, id="author.jump-answer",
            tooltip="Jump to the expected answer", priority=True),
    Binding("alt+w", "jump('#loc-quote')", "Quote", show=False, id="author.jump-quote",
            tooltip="Jump to the active locator's quote", priority=True),
    Binding("alt+r", "jump('#preview')", "Resolution", show=False, id="author.jump-resolution",
            tooltip="Jump to the resolution of the active locator (its span and chunk ids)", priority=True),
    Binding("alt+i", "chunk_ids", "Chunk ids", show=False, id="author.chunk-ids", priority=True,
            tooltip="Show the active locator's answer-bearing chunk ids whole and copy them to the clipboard"),
    *field_tab_bindings("author"),  # keys typed right after a Tab land in the next field
    Binding("alt+s", "jump('#preview-suggestions')", "Suggestions", show=False, id="author.jump-suggestions",
            tooltip="Jump to the suggestions (moving over one shows it in the document)",
            priority=True),
    *[Binding(str(n), f"pick({n})", f"Pick suggestion {n}", show=False, id=f"author.pick-{n}",
              tooltip=f"Accept suggestion {n} (outside a text field)") for n in range(1, 10)],
    Binding("slash", "find", "Find", show=False, id="author.find",
            tooltip="Find in the document (outside a text field); n / N: next / previous"),
    Binding("n", "find_again(True)", "Find next", show=False, id="author.find-next",
            tooltip="Next match of the last find"),
    Binding("N", "find_again(False)", "Find previous", show=False, id="author.find-previous",
            tooltip="Previous match of the last find"),
    Binding("colon", "go_to_line", "Go to line", show=False, id="author.go-to-line",
            tooltip="Go to a line of the document"),
    Binding("u", "next_unlabelled", "Next unlabelled", show=False, id="author.next-unlabelled",
            tooltip="Show the next document or section no label touches, least covered first"),
]
