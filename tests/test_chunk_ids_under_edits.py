"""What an edit does to md-struct-v1's chunk ids: the documented guarantee (docs/rules.md), tested.

A chunk id is a function of the document id, the chunker and the chunk's embed text
(heading path and text), so a chunk keeps its id exactly when an edit leaves its text and
headings alone. Greedy packing runs from each section's start; hence the guarantee:
chunks of other sections keep their ids, and in the edited section every chunk before the
one holding the edit keeps its id, except the chunk just before it when the edit lies in
that chunk's first block (the block may now fit the earlier chunk, or no longer fit it).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from labeller.core.chunkers.md_struct_v1 import MdStructV1
from labeller.core.corpus import make_document

MAX_CHARS = 120
word = st.text("abcdefghij", min_size=1, max_size=9)
paragraph = st.lists(word, min_size=1, max_size=14).map(" ".join)
section = st.lists(paragraph, min_size=1, max_size=7)


def render(sections: list[list[str]]) -> tuple[str, list[list[int]]]:
    """The document, and the offset where each paragraph starts."""
    text, starts = "", []
    for i, paras in enumerate(sections):
        text += f"# Heading {i}\n\n"
        starts.append([])
        for p in paras:
            starts[-1].append(len(text))
            text += p + "\n\n"
    return text, starts


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.lists(section, min_size=1, max_size=4), st.data())
def test_an_edit_keeps_every_chunk_id_the_readme_promises(sections, data):
    s = data.draw(st.integers(0, len(sections) - 1), label="section")
    p = data.draw(st.integers(0, len(sections[s]) - 1), label="paragraph")
    replacement = data.draw(paragraph, label="new text")
    chunker = MdStructV1(MAX_CHARS)
    old_text, starts = render(sections)
    edited = [list(paras) for paras in sections]
    edited[s][p] = replacement
    new_text, _ = render(edited)
    old = chunker.chunk(make_document("d.md", old_text))
    new_ids = {c.chunk_id for c in chunker.chunk(make_document("d.md", new_text))}
    at = starts[s][p]
    mine = [c for c in old if c.heading == f"Heading {s}"]
    j = next(i for i, c in enumerate(mine) if c.start <= at < c.end)
    kept = [c for c in old if c.heading != f"Heading {s}"] + mine[:max(j - 1, 0)]
    if j > 0 and mine[j].start != at:  # the edit is not in the first block of its chunk
        kept.append(mine[j - 1])
    assert all(c.chunk_id in new_ids for c in kept)


def test_the_chunk_before_an_edited_one_can_change():
    """What the README used to deny: shortening the first block of a chunk lets the chunk
    before it take that block, so the earlier chunk's text, and id, change."""
    chunker = MdStructV1(30)
    before = chunker.chunk(make_document("x.md", "# H\n\n" + "a" * 12 + "\n\n" + "b" * 20 + "\n"))
    after = chunker.chunk(make_document("x.md", "# H\n\n" + "a" * 12 + "\n\n" + "b" * 10 + "\n"))
    assert len(before) == 2 and len(after) == 1
    assert before[0].chunk_id not in {c.chunk_id for c in after}
