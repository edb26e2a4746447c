"""md-struct-v1 reproduced exactly (SPEC §4), on hand-checked examples and real docs."""

import hashlib

import pytest

from conftest import SHARED_CORPORA
from labeller.core.chunkers import get_chunker
from labeller.core.chunkers.md_struct_v1 import MdStructV1
from labeller.core.corpus import load_corpus, make_document

DOC = ("intro line\n\n# Top\npara one\n\n## Sub\n```code\n# inside fence\n```\nafter fence\n***\nlast\n")


def spans(chunks):
    return [(c.start, c.end) for c in chunks]


def test_hand_checked_sections_blocks_and_fields():
    doc = make_document("g.md", DOC)
    chunks = MdStructV1(1800).chunk(doc)
    assert spans(chunks) == [(0, 11), (18, 27), (35, 83)]
    assert [c.heading_path for c in chunks] == ["g.md", "g.md > Top", "g.md > Top > Sub"]
    assert [c.heading for c in chunks] == ["", "Top", "Sub"]
    assert [c.breadcrumb for c in chunks] == ["Top", "Top > Top", "Top > Top > Sub"]
    assert chunks[2].text == "```code\n# inside fence\n```\nafter fence\n***\nlast\n"
    assert [c.ordinal for c in chunks] == [0, 1, 2]


def test_packing_is_greedy_and_blocks_end_at_closing_fence():
    doc = make_document("g.md", DOC)
    assert spans(MdStructV1(30).chunk(doc))[2:] == [(35, 62), (62, 83)]


def test_oversized_block_is_hard_split_at_line_boundaries():
    doc = make_document("h.md", "aaaaaaaaa\nbbbbbbbbb\nccccccccc\n")
    assert spans(MdStructV1(25).chunk(doc)) == [(0, 20), (20, 30)]
    one_long_line = make_document("l.md", "x" * 50 + "\n")
    assert spans(MdStructV1(10).chunk(one_long_line)) == [(0, 51)]


def test_chunk_id_formula_and_embed_text():
    doc = make_document("g.md", DOC)
    c = MdStructV1(1800).chunk(doc)[1]
    assert c.embed_text == "g.md > Top\n\npara one"
    expected = hashlib.sha256(b"g.md\x00md-struct-v1\x00g.md > Top\n\npara one\x00").hexdigest()
    assert c.chunk_id == expected


def test_heading_rules():
    text = "#NoSpace\n####### seven\n  # indented\n# Closing ##\n\nbody\n"
    chunks = MdStructV1(1800).chunk(make_document("x.md", text))
    # only "# Closing ##" is a heading; its title keeps the closing hashes
    assert chunks[-1].heading == "Closing ##"
    assert chunks[0].text.startswith("#NoSpace")


def test_whitespace_only_preamble_is_no_section_and_front_matter_gives_title():
    text = "---\ntitle: From Front Matter\n---\n# H1\n\nbody\n"
    chunks = MdStructV1(1800).chunk(make_document("f.md", text))
    # the front matter is not special to md-struct: "---" lines count as blank
    assert chunks[0].text == "title: From Front Matter\n"
    assert chunks[-1].breadcrumb == "From Front Matter > H1"
    nohead = MdStructV1(1800).chunk(make_document("dir/plain.md", "\n\n  \nonly text\n"))
    assert [c.breadcrumb for c in nohead] == ["plain.md"]


def test_ids_stable_under_an_edit_elsewhere():
    base = "# A\n\nalpha text\n\n# B\n\nbeta text\n"
    edited = "# A\n\nalpha text, now edited and longer\n\n# B\n\nbeta text\n"
    a = MdStructV1(1800).chunk(make_document("d.md", base))
    b = MdStructV1(1800).chunk(make_document("d.md", edited))
    assert a[1].chunk_id == b[1].chunk_id
    assert a[1].start != b[1].start
    assert a[0].chunk_id != b[0].chunk_id


def test_duplicate_embed_texts_share_an_id():
    text = "# A\n## FAQ\n\nsame body\n\n## FAQ\n\nsame body\n"
    chunks = MdStructV1(1800).chunk(make_document("d.md", text))
    assert len(chunks) == 2 and chunks[0].chunk_id == chunks[1].chunk_id
    assert chunks[0].start != chunks[1].start


def test_unknown_chunker_is_invalid_input():
    from labeller.errors import InvalidInput

    with pytest.raises(InvalidInput):
        get_chunker("nope", max_chars=10)


def check_chunks(doc, chunks):
    last_end = 0
    for c in chunks:
        assert c.text == doc.text[c.start:c.end]
        assert c.start >= last_end and c.end > c.start
        assert c.text.strip()
        last_end = c.end


def test_every_textual_doc_chunks_to_canonical_slices():
    root = SHARED_CORPORA / "textual-docs"
    if not root.is_dir():
        pytest.skip(f"real corpus not present at {root}")
    corpus = load_corpus(root)
    assert len(corpus) > 200
    chunker = MdStructV1(1800)
    n = 0
    for doc in corpus:
        chunks = chunker.chunk(doc)
        check_chunks(doc, chunks)
        n += len(chunks)
    assert n > len(corpus)
