"""The chunker family (fixed-chars-v1, words-v1, recursive-v1, sections-v1): hand-checked
examples, the rules' properties on random text, and recursive-v1 against LangChain's
``RecursiveCharacterTextSplitter`` on two real corpora."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import REPO, SHARED_CORPORA, write_project
from labeller.cli import main
from labeller.core.chunkers import REGISTRY, chunker_spec, get_chunker
from labeller.core.chunkers.fixed_chars_v1 import FixedCharsV1
from labeller.core.chunkers.recursive_v1 import RecursiveV1
from labeller.core.chunkers.sections_v1 import SectionsV1
from labeller.core.chunkers.slices import body_start
from labeller.core.chunkers.words_v1 import WordsV1
from labeller.core.corpus import load_corpus, make_document
from labeller.errors import InvalidInput

FM = "---\ntitle: Guide\n# a YAML comment\n---\n"
DOC = FM + "\nintro words\n\n# Alpha\n\npara one\n\n## Beta\n\n```\n# not a heading\n```\n\n# Gamma\nlast line\n\n\n"
BODY = len(FM)  # 38: the body starts after the front matter


def spans(chunks):
    return [(c.start, c.end) for c in chunks]


def texts(chunks):
    return [c.text for c in chunks]


# --- hand-checked examples -------------------------------------------------------------

def test_fixed_chars_windows_step_and_end_at_the_text_end():
    doc = make_document("d.md", DOC)
    chunks = FixedCharsV1(size=30, overlap=10).chunk(doc)
    n = len(doc.text)
    assert n == 125
    assert spans(chunks) == [(38, 68), (58, 88), (78, 108), (98, 125)]
    assert texts(chunks)[0] == "\nintro words\n\n# Alpha\n\npara on"


def test_fixed_chars_drops_whitespace_only_windows():
    doc = make_document("w.md", "a" + " " * 30 + "b\n")
    assert spans(FixedCharsV1(size=10, overlap=0).chunk(doc)) == [(0, 10), (30, 33)]


def test_words_windows_share_overlap_words_and_hug_their_words():
    doc = make_document("w.md", "one two  three\n\nfour five\tsix seven\n")
    chunks = WordsV1(size=3, overlap=1).chunk(doc)
    assert texts(chunks) == ["one two  three", "three\n\nfour five", "five\tsix seven"]
    assert spans(chunks) == [(0, 14), (9, 25), (21, 35)]


def test_words_tokenizer_is_unicode_whitespace():
    # U+3000 (ideographic space) and U+00A0 separate words as str.isspace says; CJK runs are one word
    doc = make_document("j.md", "日本語の文\u3000テキスト\u00a0です\n")
    assert texts(WordsV1(size=1, overlap=0).chunk(doc)) == ["日本語の文", "テキスト", "です"]


def test_words_regex_whitespace_is_str_isspace():
    # the documented tokenizer: \S+ splits exactly where str.isspace (SPEC §2's whitespace) says
    space = re.compile(r"\s")
    assert [i for i in range(sys.maxunicode + 1) if bool(space.match(chr(i))) != chr(i).isspace()] == []


def test_recursive_hand_checked():
    doc = make_document("r.md", "aaaa bbbb\n\ncccc dddd eeee\nffff\n")
    chunks = RecursiveV1(size=12, overlap=5).chunk(doc)
    # "\n\n" cuts two pieces; the second (21 chars) is split at "\n" then at " "
    assert texts(chunks) == ["aaaa bbbb", "cccc dddd", "dddd eeee", "ffff"]
    assert spans(chunks) == [(0, 9), (11, 20), (16, 25), (26, 30)]


def test_sections_whole_section_when_it_fits_else_own_part_then_subsections():
    doc = make_document("s.md", DOC)
    whole = SectionsV1(size=1000).chunk(doc)
    assert spans(whole) == [(39, 123)]  # the body without its leading and trailing blank lines
    parts = SectionsV1(size=40).chunk(doc)
    assert texts(parts) == ["intro words\n", "# Alpha\n\npara one\n", "## Beta\n\n```\n# not a heading\n```\n",
                            "# Gamma\nlast line\n"]
    assert [c.heading for c in parts] == ["", "Alpha", "Beta", "Gamma"]
    assert [c.breadcrumb for c in parts] == ["Guide", "Guide > Alpha", "Guide > Alpha > Beta", "Guide > Gamma"]


def test_fields_front_matter_and_headings_in_force():
    doc = make_document("g/d.md", DOC)
    assert body_start(doc.text) == BODY
    for chunker in (FixedCharsV1(30, 10), WordsV1(3, 1), RecursiveV1(30, 10), SectionsV1(40)):
        chunks = chunker.chunk(doc)
        assert chunks and all(c.start >= BODY for c in chunks), chunker  # front matter lies in no chunk
        assert [c.ordinal for c in chunks] == list(range(len(chunks)))
        for c in chunks:
            # the innermost md-struct heading in force at the chunk's start; the YAML comment is none
            before = [m for m in re.finditer(r"(?m)^(#+) (.*)$", doc.text)
                      if BODY <= m.start() <= c.start and "not a heading" not in m.group(2)]
            assert c.heading == (before[-1].group(2) if before else ""), (chunker, c)
            assert c.breadcrumb.startswith("Guide")  # the front-matter title
            assert c.heading_path.startswith("g/d.md")
    assert WordsV1(3, 1).unchunked_lines(doc)[:3] == [(0, 4), (4, 17), (17, 34)]


def test_title_falls_back_to_first_h1_then_base_name():
    assert FixedCharsV1(100, 0).chunk(make_document("a/b.md", "x\n## Sub\ny\n"))[0].breadcrumb == "b.md"
    # the window starts before "# Top", so no heading is in force yet; the title is still that H1
    assert FixedCharsV1(100, 0).chunk(make_document("a/b.md", "x\n# Top\ny\n"))[0].breadcrumb == "Top"
    assert FixedCharsV1(100, 0).chunk(make_document("a/b.md", "# Top\ny\n"))[0].breadcrumb == "Top > Top"


def test_chunk_id_formula_is_doc_full_spec_offsets_and_text():
    doc = make_document("d.md", DOC)
    c = RecursiveV1(size=30, overlap=10).chunk(doc)[0]
    data = b"".join(p.encode() + b"\x00" for p in ("d.md", "recursive-v1:size=30,overlap=10", str(c.start),
                                                      str(c.end), c.text))
    assert c.chunk_id == hashlib.sha256(data).hexdigest()
    # another setting of the same rule never shares ids; repeated text in one document does not either
    assert not {x.chunk_id for x in RecursiveV1(31, 10).chunk(doc)} & {x.chunk_id for x in RecursiveV1(30, 10).chunk(doc)}
    rep = make_document("r.md", "same words\n" * 40)
    ids = [x.chunk_id for x in FixedCharsV1(11, 0).chunk(rep)]
    assert len(ids) == 40 and len(set(ids)) == 40


def test_specs_and_refused_settings():
    assert chunker_spec(FixedCharsV1()) == "fixed-chars-v1:size=1000,overlap=200"
    assert chunker_spec(SectionsV1()) == "sections-v1:size=1800"
    chunker = get_chunker("recursive-v1:size=800,overlap=100")
    assert isinstance(chunker, RecursiveV1) and chunker.settings == {"size": 800, "overlap": 100}
    assert chunker_spec(get_chunker("words-v1")) == "words-v1:size=200,overlap=40"
    for bad in ("fixed-chars-v1:size=10,overlap=10", "words-v1:size=0", "recursive-v1:size=ten",
                "sections-v1:overlap=1"):
        with pytest.raises(InvalidInput, match=re.escape(bad)):
            get_chunker(bad)
    for make in (FixedCharsV1, WordsV1, RecursiveV1):
        for size, overlap in ((0, 0), (10, 10), (10, 11), (10, -1)):
            with pytest.raises(ValueError):
                make(size=size, overlap=overlap)
    with pytest.raises(ValueError):
        SectionsV1(size=0)


def test_front_matter_only_and_empty_documents_have_no_chunks():
    for text in ("---\ntitle: x\n---\n", "\n", "   \n\n"):
        doc = make_document("e.md", text)
        for chunker in (FixedCharsV1(5, 1), WordsV1(5, 1), RecursiveV1(5, 1), SectionsV1(5)):
            assert chunker.chunk(doc) == [], (chunker, text)


# --- properties on random text ---------------------------------------------------------

ALPHABET = st.sampled_from(["a", "b", "cd", " ", "  ", "\n", "\n\n", "\t", "\u3000", "#", "# ", "```", "-", "é",
                            "---\n", "title: t\n"])  # front matter, when the text starts with "---\n"
TEXT = st.lists(ALPHABET, max_size=120).map("".join)
WINDOW = st.integers(1, 40).flatmap(lambda size: st.tuples(st.just(size), st.integers(0, size - 1)))
PROPS = settings(max_examples=200, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])


def check_slices(doc, chunks):
    body = body_start(doc.text)
    for c in chunks:
        assert body <= c.start < c.end <= len(doc.text)
        assert c.text == doc.text[c.start:c.end]
        assert not c.text.isspace()
    assert len({c.chunk_id for c in chunks}) == len(chunks)


def check_covers_non_whitespace(doc, chunks):
    covered = set()
    for c in chunks:
        covered.update(range(c.start, c.end))
    body = body_start(doc.text)
    missing = [i for i, ch in enumerate(doc.text) if i >= body and not ch.isspace() and i not in covered]
    assert not missing


@PROPS
@given(TEXT, WINDOW)
def test_fixed_chars_properties(raw, window):
    size, overlap = window
    doc = make_document("p.md", raw)
    chunker = FixedCharsV1(size, overlap)
    chunks = chunker.chunk(doc)
    check_slices(doc, chunks)
    check_covers_non_whitespace(doc, chunks)
    raw_spans = list(chunker.spans(doc.text, body_start(doc.text)))
    for (a, b), (c, d) in zip(raw_spans, raw_spans[1:]):
        assert b - a == size and c - a == size - overlap and b - c == overlap  # every window but the last is full
    if raw_spans:
        assert raw_spans[-1][1] == len(doc.text) and raw_spans[-1][1] - raw_spans[-1][0] <= size


@PROPS
@given(TEXT, WINDOW)
def test_words_properties(raw, window):
    size, overlap = window
    doc = make_document("p.md", raw)
    chunks = WordsV1(size, overlap).chunk(doc)
    check_slices(doc, chunks)
    check_covers_non_whitespace(doc, chunks)
    words = [m.span() for m in re.finditer(r"\S+", doc.text)]
    for a, b in zip(chunks, chunks[1:]):
        shared = [w for w in words if a.start <= w[0] and w[1] <= a.end and b.start <= w[0] and w[1] <= b.end]
        assert len(shared) == overlap
    for c in chunks:
        assert len(re.findall(r"\S+", c.text)) <= size and not c.text[0].isspace() and not c.text[-1].isspace()


@PROPS
@given(TEXT, WINDOW)
def test_recursive_properties_and_langchain_texts(raw, window):
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    size, overlap = window
    doc = make_document("p.md", raw)
    chunks = RecursiveV1(size, overlap).chunk(doc)
    check_slices(doc, chunks)
    check_covers_non_whitespace(doc, chunks)
    for c in chunks:
        assert len(c.text) <= size and c.text == c.text.strip()
    for a, b in zip(chunks, chunks[1:]):
        assert a.start <= b.start and a.end <= b.end and (a.start, a.end) != (b.start, b.end)
        assert a.end - b.start <= overlap  # consecutive chunks share at most `overlap`
    theirs = RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=overlap).split_text(doc.text)
    # LangChain keeps a single whitespace code point at size=1 and may repeat a range; labeller does neither
    theirs = [t for t in theirs if not t.isspace()]
    assert dedupe(texts(chunks)) == dedupe(theirs)


def dedupe(seq):
    return [x for i, x in enumerate(seq) if i == 0 or seq[i - 1] != x]


@PROPS
@given(TEXT, st.integers(1, 60))
def test_sections_properties(raw, size):
    doc = make_document("p.md", raw)
    chunker = SectionsV1(size)
    chunks = chunker.chunk(doc)
    check_slices(doc, chunks)
    for a, b in zip(chunks, chunks[1:]):
        assert a.end <= b.start  # no overlap, document order
    for c in chunks:  # within size, unless one line alone is longer (md-struct-v1's packing keeps lines whole)
        assert len(c.text) <= size or c.text.count("\n") <= 1, c
    # every line the rule does not call blank lies in exactly one chunk, heading lines included
    blank = set(chunker.unchunked_lines(doc))
    pos = 0
    for line in doc.text.splitlines(keepends=True):
        span = (pos, pos + len(line))
        pos += len(line)
        if span in blank:
            continue
        assert sum(c.start <= span[0] and span[1] <= c.end for c in chunks) == 1, (line, spans(chunks))


@pytest.mark.parametrize("spec", ["fixed-chars-v1:size=300,overlap=100", "words-v1:size=60,overlap=15",
                                  "recursive-v1:size=500,overlap=100", "sections-v1:size=900"])
def test_family_on_a_real_corpus(spec):
    root = SHARED_CORPORA / "textual-docs"
    if not root.is_dir():
        pytest.skip(f"textual-docs: the real corpus is not present at {root}")
    chunker = get_chunker(spec)
    n = 0
    for doc in load_corpus(root):
        chunks = chunker.chunk(doc)
        check_slices(doc, chunks)
        if not spec.startswith("sections"):
            check_covers_non_whitespace(doc, chunks)
        n += len(chunks)
    assert n > 500


# --- recursive-v1 against LangChain on real corpora ------------------------------------

REAL_CORPORA = [pytest.param("bundled corpus/", REPO / "corpus", id="bundled"),
                pytest.param("textual-docs", SHARED_CORPORA / "textual-docs", id="textual-docs")]


@pytest.mark.parametrize("label,root", REAL_CORPORA)
@pytest.mark.parametrize("size,overlap", [(1000, 200), (400, 50), (200, 0), (60, 20)])
def test_recursive_equals_langchain_on_real_corpora(label, root, size, overlap):
    """Chunk texts must equal LangChain's, every one. Start offsets must equal LangChain's
    ``start_index`` too, except where LangChain's ``text.find`` lands on an earlier copy of
    the same text (the documented divergence): there it must be an earlier copy indeed."""
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    if not root.is_dir():
        pytest.skip(f"{label}: the real corpus is not present at {root}")
    corpus = load_corpus(root)
    splitter = RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=overlap, add_start_index=True)
    ours_chunker = RecursiveV1(size=size, overlap=overlap)
    n_chunks = n_moved = 0
    for doc in corpus:
        body = body_start(doc.text)
        theirs = [(d.page_content, d.metadata["start_index"] + body)
                  for d in splitter.create_documents([doc.text[body:]])]
        ours = [(c.text, c.start) for c in ours_chunker.chunk(doc)]
        assert [t for t, _ in ours] == [t for t, _ in theirs], doc.doc_id
        for (text, start), (_, their_start) in zip(ours, theirs):
            if start != their_start:
                n_moved += 1
                assert their_start < start and doc.text[their_start:their_start + len(text)] == text, doc.doc_id
        n_chunks += len(ours)
    assert n_chunks > len(corpus)
    assert n_moved <= n_chunks // 100  # the divergence is the rare repeated-text case, not a drift


# --- the CLI: labeller chunks / labeller chunkers --------------------------------------

CLI_DOCS = {
    "a.md": "---\ntitle: A doc\n---\n# One\n\n" + "alpha beta gamma delta. " * 12 + "\n\n## Two\n\nshort tail\n",
    "sub/b.md": "plain text without headings, " * 8 + "\n",
}


def chunk_file_lines(data: bytes) -> list[dict]:
    lines = data.decode("utf-8").splitlines()
    rows = [json.loads(line) for line in lines]
    for line, row in zip(lines, rows):
        assert list(row) == ["doc", "end", "id", "start"]  # SPEC §10 offsets form, keys sorted
        assert line == json.dumps(row, ensure_ascii=False, sort_keys=True)
    return rows


def test_chunks_writes_a_chunk_file_matching_the_chunker(tmp_path, capsys):
    root = write_project(tmp_path / "p", CLI_DOCS)
    out = tmp_path / "chunks.jsonl"
    spec = "recursive-v1:size=120,overlap=30"
    assert main(["chunks", "--root", str(root), "--chunker", spec, "--out", str(out)]) == 0
    assert "under recursive-v1:size=120,overlap=30" in capsys.readouterr().out
    rows = chunk_file_lines(out.read_bytes())
    corpus = load_corpus(root / "corpus")
    expected = [{"doc": c.doc_id, "end": c.end, "id": c.chunk_id, "start": c.start}
                for doc in corpus for c in RecursiveV1(size=120, overlap=30).chunk(doc)]
    assert rows == expected and len(rows) > 4
    assert {r["doc"] for r in rows} == {"a.md", "sub/b.md"}
    assert len({r["id"] for r in rows}) == len(rows)
    for r in rows:
        text = corpus.docs[r["doc"]].text
        assert 0 <= r["start"] < r["end"] <= len(text) and text[r["start"]:r["end"]].strip()
    first = out.read_bytes()
    assert main(["chunks", "--root", str(root), "--chunker", spec, "--out", str(out), "--format", "json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary == {"chunker": spec, "chunks": len(rows), "docs": 2, "ok": True, "written": str(out)}
    assert out.read_bytes() == first  # deterministic
    # without --out the same bytes go to stdout, the summary to stderr
    proc = subprocess.run([sys.executable, "-m", "labeller.cli", "chunks", "--root", str(root), "--chunker", spec],
                          capture_output=True, env={**os.environ, "PYTHONPATH": str(REPO)}, check=False)
    assert proc.returncode == 0 and proc.stdout == first and b"wrote" in proc.stderr


def test_chunks_defaults_to_the_project_chunker(tmp_path, capsys):
    root = write_project(tmp_path / "p", CLI_DOCS, toml="[build]\nmax_chars = 100\n")
    out = tmp_path / "c.jsonl"
    assert main(["chunks", "--root", str(root), "--out", str(out)]) == 0
    capsys.readouterr()
    corpus = load_corpus(root / "corpus")
    chunker = get_chunker("md-struct-v1", max_chars=100)
    assert [r["id"] for r in chunk_file_lines(out.read_bytes())] == [c.chunk_id for d in corpus
                                                                     for c in chunker.chunk(d)]


def test_chunks_refuses_repeated_ids_and_bad_specs_writing_nothing(tmp_path, capsys):
    root = write_project(tmp_path / "p", {"d.md": "# A\nsame text\n\n# A\nsame text\n"})
    out = tmp_path / "c.jsonl"
    out.write_text("old\n")
    # md-struct-v1 gives the two identical sections one id (SPEC §4): no valid chunk file exists
    assert main(["chunks", "--root", str(root), "--chunker", "md-struct-v1", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "unique ids" in err and "d.md:4-14, d.md:19-29" in err
    assert out.read_text() == "old\n"
    assert main(["chunks", "--root", str(root), "--chunker", "md-struct-v1", "--out", str(out), "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False and [e["kind"] for e in report["errors"]] == ["duplicate_id"]
    assert out.read_text() == "old\n"
    for bad in ("recursive-v1:size=5,overlap=9", "nope-v1", "words-v1:size="):
        assert main(["chunks", "--root", str(root), "--chunker", bad, "--out", str(out)]) == 2
        assert bad.split(":")[0] in capsys.readouterr().err
        assert out.read_text() == "old\n"
    # the family's ids include offsets, so the same document gives a valid file
    assert main(["chunks", "--root", str(root), "--chunker", "sections-v1:size=14", "--out", str(out)]) == 0
    assert [(r["start"], r["end"]) for r in chunk_file_lines(out.read_bytes())] == [(0, 14), (15, 29)]


def test_chunkers_lists_every_registered_chunker_with_parameters(capsys):
    assert main(["chunkers", "--format", "json"]) == 0
    listed = {c["name"]: c for c in json.loads(capsys.readouterr().out)["chunkers"]}
    assert sorted(listed) == sorted(REGISTRY)
    assert listed["recursive-v1"]["parameters"] == [{"default": 1000, "name": "size", "type": "int"},
                                                    {"default": 200, "name": "overlap", "type": "int"}]
    assert listed["md-struct-v1"]["parameters"] == [{"default": 1800, "name": "max_chars", "type": "int"}]
    assert listed["sections-v1"]["default_spec"] == "sections-v1:size=1800"
    assert "LangChain" in listed["recursive-v1"]["summary"]
    assert main(["chunkers"]) == 0
    text = capsys.readouterr().out
    for name in REGISTRY:
        assert f"--chunker {chunker_spec(get_chunker(name))}" in text

