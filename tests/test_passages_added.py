"""Text a pipeline added, and the checks on every looser placement (SPEC §10.1 *Added text*, issue 36).

A contextual-retrieval pipeline prepends a sentence to each chunk, docling's
``contextualize`` the heading path: the passage is placed on its source part alone, the
rest named as added characters; a placement by the rendered or aligned tier is verified
(its words in order in the range, the range not much longer than the text) and never lands
on text the passage does not hold; a refusal says how close the best attempt came.
"""

from __future__ import annotations

import pytest

from labeller.core.corpus import Corpus, make_document
from labeller.core.passages import Passage, PassageLocator, Placement
from labeller.core.passages.aligned import words

PARA = "Some **bold** and `code` with [a link](http://x.example/p) and a picture here, then more plain words."
DOC = f"# Head one\n\nIntro sentence of the page.\n\n{PARA}\n\n- item one\n- item two\n\nLast words.\n"
CONTEXT = "This chunk comes from the Head one page. It explains things.\n\n"


@pytest.fixture
def corpus() -> Corpus:
    return Corpus.from_documents([make_document("t.md", DOC)])


def place(corpus: Corpus, text: str, doc: str | None = "t.md") -> Placement | str:
    got = PassageLocator(corpus).place([Passage(doc, text)], ordered=True)[0]
    assert got is not None
    return got


def test_a_prepended_context_is_named_as_added_and_the_range_is_the_source_part(corpus):
    got = place(corpus, CONTEXT + PARA)
    assert isinstance(got, Placement) and got.tier == "exact"
    assert DOC[got.place.start:got.place.end] == PARA
    assert (got.added_before, got.added_after) == (len(CONTEXT), 0)
    rendered = "Some bold and code with a link and a picture here, then more plain words."
    got = place(corpus, "Head one > Section\n" + rendered)  # a heading path, before a loader's rendering
    assert isinstance(got, Placement) and got.tier == "rendered"
    assert DOC[got.place.start:got.place.end] == PARA and got.added_before == len("Head one > Section\n")


def test_an_appended_note_is_added_after(corpus):
    got = place(corpus, PARA + "\n\nSource: the handbook, page 3.")
    assert isinstance(got, Placement) and DOC[got.place.start:got.place.end] == PARA
    assert (got.added_before, got.added_after) == (0, len("\n\nSource: the handbook, page 3."))


def test_added_text_longer_than_the_source_part_is_not_placed(corpus):
    got = place(corpus, "A generated context that runs on and on, longer than the words it introduces.\n\nitem one")
    assert isinstance(got, str) and got.startswith("text not found in t.md")


def test_a_stray_match_far_off_does_not_stretch_the_range_to_a_heading():
    filler = " ".join(f"filler{i}" for i in range(10))
    para = " ".join(f"word{i}" for i in range(40))
    doc = f"# Overview\n\n{filler}.\n\n{para}.\n"
    corpus = Corpus.from_documents([make_document("s.md", doc)])
    # "overview" matches the heading ten words before the paragraph; one word of the
    # paragraph is changed so neither literal tier can place it
    passage = "Overview: " + para.replace("word7 ", "changed ")
    got = place(corpus, passage, doc="s.md")
    assert isinstance(got, Placement) and got.tier == "aligned"
    assert got.place.start == doc.index("word0") and got.place.end == doc.index("word39") + len("word39")


def test_a_placement_spread_over_much_more_text_than_the_passage_is_refused():
    doc = " ".join(f"a{i} filler{i}" for i in range(30)) + "\n"
    corpus = Corpus.from_documents([make_document("w.md", doc)])
    passage = " ".join(f"a{i}" for i in range(30))  # every word there, in order, but spread over three times the text
    got = place(corpus, passage, doc="w.md")
    assert isinstance(got, str) and "over 1.2 × its" in got and "at best" in got


def test_a_refusal_names_the_best_share_reached_and_where(corpus):
    got = place(corpus, "Intro sentence of the galaxy far away, nothing like the page at all.")
    assert isinstance(got, str) and "at best 4 of its 13 words (31%) in order at t.md:3:1" in got


def test_words_leave_underscores_and_emphasis_markers_out():
    assert words("_emphasis_ __init__ snake_case **bold** *it*") == ["emphasis", "init", "snake", "case", "bold",
                                                                      "it"]
    doc = "A __dunder__ name and _under_ words with more text to make a passage of some length here.\n"
    corpus = Corpus.from_documents([make_document("u.md", doc)])
    got = place(corpus, "A dunder name and under words • with more text to make a passage of some length here",
                doc="u.md")  # a loader dropped the underscores and added a bullet: only the words match
    assert isinstance(got, Placement) and got.tier == "aligned" and got.place.start == 0


def test_a_rendered_placement_is_verified_on_the_rendered_words_too():
    doc = "It responds to keys and mouse events (**I**nput) and shows a list of `ListItem`s here.\n"
    corpus = Corpus.from_documents([make_document("m.md", doc)])
    for text in ("responds to keys and mouse events (Input)", "shows a list of ListItems here."):
        got = place(corpus, text, doc="m.md")  # the source's words split "I nput", "ListItem s"
        assert isinstance(got, Placement) and got.tier == "rendered" and not got.added, text


def test_a_heading_path_before_a_short_chunk_is_never_its_place():
    """docling's ``contextualize``: every chunk under a heading repeats its path. A short
    chunk after the first under it (a tab label, here) is outweighed by its path: the path
    alone places, on the heading the previous chunk already passed, with the chunk itself
    as "added" text — and the source's next text after the heading is that first chunk, not
    this one. Neither may stand: the chunk is left unplaced, never put on the heading."""
    doc = ("# Margin settings\n\n## Basic usage example\n\nIn the example below we add a large margin to a label.\n\n"
           '=== "Output"\n\n    the output\n')
    corpus = Corpus.from_documents([make_document("m.md", doc)])
    path = "Margin settings\nBasic usage example\n"
    first, second = PassageLocator(corpus).place(
        [Passage("m.md", path + "In the example below we add a large margin to a label."),
         Passage("m.md", path + '=== "Output"')], ordered=True)
    assert isinstance(first, Placement) and doc[first.place.start:first.place.end].endswith("large margin to a label.")
    assert isinstance(second, str), (second, doc[second.place.start:second.place.end])


def test_the_largest_part_wins_over_a_sentence_the_literal_search_left_out():
    """docling writes ``"`block` ."`` where the source has ``"`block`."``: the passage after
    its heading path is not found as written, its second sentence is; the part with the
    first sentence is found by its words, and the larger part is the placement."""
    first = "The kind is stored in each entry under the key `block`."
    second = ("Review tools use it to warn when the labels of a team are dominated by one kind, which usually means "
              "the authors found an easy pattern and stopped looking elsewhere.")
    doc = f"# Guide\n\n## Kinds\n\nAn unrelated paragraph stands between the heading and it.\n\n{first} {second}\n"
    corpus = Corpus.from_documents([make_document("k.md", doc)])
    path = "Guide\nKinds\n"
    got = place(corpus, path + first.replace("`.", "` .") + " " + second, "k.md")
    assert isinstance(got, Placement) and got.added_before == len(path)
    assert doc[got.place.start:got.place.end].rstrip(".") == f"{first} {second}".rstrip(".")


def test_a_heading_path_line_matched_by_a_stray_word_before_the_chunk_is_added_text():
    """The path's first line matches a word a few words before the chunk: the aligned range
    would reach back over "notes for more", text the passage does not hold. The line is
    added text; the chunk is placed on itself."""
    chunk = ("The chunk text is here with many words of its own, so the path is a small share of them, and every one "
             "of them stands in the source in this order.")
    doc = f"# Guide\n\nSee the alpha notes for more.\n\n{chunk}\n"
    corpus = Corpus.from_documents([make_document("a.md", doc)])
    got = place(corpus, "Alpha\n" + chunk, "a.md")
    assert isinstance(got, Placement) and got.added_before == len("Alpha\n")
    assert doc[got.place.start:got.place.end] == chunk


def test_an_html_block_a_loader_dropped_does_not_cut_the_next_paragraph_off():
    """What docling's Markdown backend made of an MkDocs page (the Textual blog's "Anatomy of
    a Textual User Interface", rebuilt here in small): the admonition's indented body became
    a code block under its ``!!! note`` line, each inline link its own ``[text](target)`` line,
    and the ``<iframe>`` between two paragraphs was left out; ``HybridChunker`` joined it all
    into one chunk. Its words are all the source's, in order, but the iframe's attributes
    stand between the last sentence and the rest — forty words no loader writes, which cut
    that sentence off as a stray end match and left the chunk under 95%. The link targets
    keep the rendered text's words under 95% too. The chunk is placed on its whole source."""
    iframe = ('<iframe width="100%" style="aspect-ratio:1512 / 982" src="https://www.youtube.com/embed/hr5JvQS4d_w" '
              'title="Mother AI" frameborder="0" allow="accelerometer; autoplay; clipboard-write; encrypted-media; '
              'gyroscope; picture-in-picture; web-share" referrerpolicy="strict-origin-when-cross-origin" '
              'allowfullscreen></iframe>')
    doc = ('# A page\n\n!!! note "My bad"\n\n    The date is wrong on this post.\n    I will not fix it.\n\n'
           "I recently wrote a [TUI](https://en.wikipedia.org/wiki/Text-based_user_interface) to chat to an AI agent "
           "in the terminal.\nI'm not the first (shout out to [Elia](https://github.com/darrenburns/elia)), but I "
           "*may* be the first to have it reply as if it were the AI from the movies.\n\n"
           f"Here's a video of it in action:\n\n{iframe}\n\nNow let's dissect the code like Bishop would.\n")
    chunk = ('!!! note "My bad"\n```\nThe date is wrong on this post.\nI will not fix it.\n```\nI recently wrote a\n'
             "[TUI](https://en.wikipedia.org/wiki/Text-based_user_interface)\nto chat to an AI agent in the terminal. "
             "I'm not the first (shout out to\n[Elia](https://github.com/darrenburns/elia)\n), but I\n*may*\nbe the "
             "first to have it reply as if it were the AI from the movies.\nHere's a video of it in action:\n"
             "Now let's dissect the code like Bishop would.")
    corpus = Corpus.from_documents([make_document("a.md", doc)])
    got = place(corpus, chunk, "a.md")
    assert isinstance(got, Placement) and got.tier == "aligned" and not got.added, got
    assert doc[got.place.start:got.place.end] == doc[doc.index("note"):doc.index("would") + len("would")]


def test_words_inside_markup_do_not_chain_a_stray_alignment_over_dropped_text():
    """The other side of the rule above: a run of matches that faces the gap on a word the
    rendering drops is measured with the gap's markup words. On a page of ``<a href>`` lines
    (Textual's ``scrollbar_colors/index.md``), a short chunk's words also occur inside the
    first line's link targets (``./bar_back``, ``types/color``, ``types/percentage``): read as
    text, those matches would make one run there, on a line the chunk is not."""
    line = ('<a href="./{0}">{1}</a>: <a href="../types/color">&lt;color&gt;</a> '
            '[<a href="../types/percentage">&lt;percentage&gt;</a>];\n\n')
    doc = "# Bar colors\n\n## Syntax\n\n" + line.format("bar_back", "bar-back") + line.format("bar_color", "bar-color")
    corpus = Corpus.from_documents([make_document("c.md", doc)])
    got = place(corpus, "bar-color : <color> [ <percentage> ];", "c.md")
    assert isinstance(got, Placement), got
    assert got.place.start >= doc.index("bar-color"), doc[got.place.start:got.place.end]
