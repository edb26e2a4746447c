"""How a chunk is named on every screen (issue 38): counted from 1, as people count, with the
number of chunks of its document (``chunk 5/10``), the same in the editor's resolution, its
document view, the review's rulers and the annotate preview; and its id, whose first eight
hex digits tell chunks of one document apart but match nothing in a chunk or run file, so
the full id is a key away (``full_ids``: shown whole and put on the clipboard)."""

from __future__ import annotations

SHORT_ID = 8  # hex digits of a chunk id shown in a line; the full id on demand


def chunk_name(ordinal: int, n_in_doc: int) -> str:
    """A chunk by its place in its document: ``ordinal`` is the chunker's 0-based one."""
    return f"chunk {ordinal + 1}/{n_in_doc}"


def short_id(chunk_id: str) -> str:
    return f"{chunk_id[:SHORT_ID]}…" if len(chunk_id) > SHORT_ID else chunk_id


def full_ids(app, chunk_ids: list[str], what: str) -> None:
    """Show ``chunk_ids`` whole and copy them to the clipboard, one a line (Textual's
    ``copy_to_clipboard``: the terminal's OSC 52, so it reaches the clipboard over ssh too)."""
    if not chunk_ids:
        app.notify(f"no chunk ids: {what} has no answer-bearing chunk", severity="warning")
        return
    app.copy_to_clipboard("\n".join(chunk_ids))
    app.notify("\n".join(chunk_ids), title=f"{what}: {len(chunk_ids)} chunk id(s), copied", timeout=30,
               markup=False)
