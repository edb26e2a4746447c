"""A chunk file of offsets is checked by columns (``_offset_lines``): what it gives must be the
line reader's, line for line, and any file it cannot vouch for goes to the line reader, which
words each problem. Generated files of offset lines, most well formed, some with one of the
line reader's problems."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import labeller.core.chunkfile as chunkfile
from labeller.core.chunkfile import parse_chunk_file
from labeller.core.corpus import Corpus, make_document
from labeller.errors import InvalidInput

CORPUS = Corpus.from_documents([make_document("a.md", "alpha " * 20), make_document("b b.md", "beta\n" * 30)])
SIZES = {d.doc_id: len(d.text) for d in CORPUS}

# One bad value for a field, each a problem the line reader words (or, for ids, refuses).
BAD = {
    "id": st.sampled_from(["", "a b", "a\u00a0b", "x\ty", 7, None, True, ["x"]]),
    "doc": st.sampled_from(["c.md", 3, None, "A.MD"]),
    "start": st.sampled_from([-1, 1.0, True, "0", None, 10**30, 200]),
    "end": st.sampled_from([0, 1.5, False, "9", None, 10**30, 10_000]),
}


@st.composite
def offset_files(draw) -> str:
    n = draw(st.integers(1, 12))
    rows = []
    for i in range(n):
        doc = draw(st.sampled_from(sorted(SIZES)))
        start = draw(st.integers(0, SIZES[doc] - 1))
        end = draw(st.integers(start + 1, SIZES[doc]))
        rows.append({"id": f"c{i}", "doc": doc, "start": start, "end": end})
    lines = [json.dumps(r) for r in rows]
    kind = draw(st.sampled_from(["none", "field", "field", "field", "extra", "missing", "json", "other", "blank", "dup"]))
    at = draw(st.integers(0, n - 1))
    if kind == "field":
        key = draw(st.sampled_from(sorted(BAD)))
        rows[at][key] = draw(BAD[key])
        lines[at] = json.dumps(rows[at])
    elif kind == "extra":
        lines[at] = json.dumps(rows[at] | {"text": "alpha"})
    elif kind == "missing":
        lines[at] = json.dumps({k: v for k, v in rows[at].items() if k != draw(st.sampled_from(sorted(BAD)))})
    elif kind == "json":
        lines[at] = draw(st.sampled_from(["{", "[1, 2]", "7", '"x"', lines[at] + " {}"]))
    elif kind == "other":
        lines[at] = json.dumps(dict(reversed(rows[at].items())), indent=None, separators=(",", ":"))
    elif kind == "dup":
        rows[at]["id"] = f"c{draw(st.integers(0, n - 1))}"
        lines[at] = json.dumps(rows[at])
    elif kind == "blank":
        lines.insert(at, "   ")
    return "".join(line + "\n" for line in lines)


def outcome(text: str):
    """The chunking's ranges and digest, or the refusal's message and listed problems."""
    try:
        chunking = parse_chunk_file(text, CORPUS, path="c.jsonl", max_chunks=100)
    except InvalidInput as exc:
        return "refused", str(exc), exc.details
    return "read", chunking.ranges, chunking.digest, chunking.located


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(offset_files())
def test_the_column_reader_gives_the_line_readers_chunks_and_refusals(monkeypatch, text):
    columns = outcome(text)
    with monkeypatch.context() as m:
        m.setattr(chunkfile, "_offset_lines", lambda raw_lines, corpus: None)
        assert columns == outcome(text)


def test_a_well_formed_file_of_offsets_is_read_by_columns():
    text = "".join(json.dumps({"id": f"c{i}", "doc": "a.md", "start": 10 * i, "end": 10 * i + 10}) + "\n"
                   for i in range(12))
    raw = list(chunkfile.nonblank_lines(text))
    got = chunkfile._offset_lines(raw, CORPUS)
    assert got is not None and [ln.id for ln in got] == [f"c{i}" for i in range(12)]
    assert [ln.line for ln in got] == list(range(1, 13)) and got[3].place == ("a.md", 30, 40)


@pytest.mark.parametrize("bad", [{"id": "c1"}, {"start": 5, "end": 5}, {"end": SIZES["a.md"] + 1}, {"doc": "b.md"}, {"id": "c 9"}])
def test_the_column_reader_leaves_a_file_with_a_problem_to_the_line_reader(bad):
    rows = [{"id": f"c{i}", "doc": "a.md", "start": i, "end": i + 1} for i in range(3)]
    rows[2] |= bad
    raw = list(chunkfile.nonblank_lines("".join(json.dumps(r) + "\n" for r in rows)))
    assert chunkfile._offset_lines(raw, CORPUS) is None


def _row(i: int) -> str:
    return json.dumps({"id": f"c{i}", "doc": "a.md", "start": i, "end": i + 1})


# Files whose lines, joined as one JSON array, would parse into one flat object a line while
# some line is not an object on its own: the column reader parses the file in one call, and
# must still refuse what the line reader refuses.
ACROSS_LINES = {
    "an object over two lines, two on another": [_row(0) + ", " + _row(1)[:-1].rsplit(",", 1)[0],
                                                 '"end": 2}', _row(2)],
    "a string over two lines": ['{"id": "x}', '{", "doc": "a.md", "start": 0, "end": 1}', _row(2) + ", " + _row(3)],
    "two objects on one line": [_row(0) + ", " + _row(1)],
    "two objects, no comma": [_row(0) + _row(1), _row(2)],
}


@pytest.mark.parametrize("lines", ACROSS_LINES.values(), ids=ACROSS_LINES.keys())
def test_lines_that_parse_only_together_are_refused_as_the_line_reader_refuses_them(monkeypatch, lines):
    text = "".join(line + "\n" for line in lines)
    assert chunkfile._offset_lines(list(chunkfile.nonblank_lines(text)), CORPUS) is None
    columns = outcome(text)
    with monkeypatch.context() as m:
        m.setattr(chunkfile, "_offset_lines", lambda raw_lines, corpus: None)
        assert columns == outcome(text)
    assert columns[0] == "refused"


def _digest_by_range(chunking) -> str:
    """SPEC §10's digest as written there: each range's bytes fed on their own."""
    import hashlib

    h = hashlib.sha256()
    for r in chunking.ranges:
        h.update(b"\x00".join((r.id.encode("utf-8"), r.place.doc.encode("utf-8"), str(r.place.start).encode("ascii"),
                               str(r.place.end).encode("ascii"))) + b"\x00")
    return h.hexdigest()


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.text(min_size=1, max_size=5),
                          st.sampled_from(["a.md", "é/ü.md"]), st.integers(0, 10**6), st.integers(1, 10**6)),
                max_size=9), st.sampled_from([1, 2, 1 << 14]))
def test_the_digest_by_batches_is_the_digest_by_range(monkeypatch, rows, batch):
    from labeller.core.chunkfile import Chunking, ChunkRange
    from labeller.core.vocab import Place

    monkeypatch.setattr(chunkfile, "_DIGEST_BATCH", batch)
    chunking = Chunking("x", [ChunkRange(i, Place(d, s, s + n)) for i, d, s, n in rows], origin="file")
    try:
        expected = _digest_by_range(chunking)
    except UnicodeEncodeError:  # a lone surrogate: refused both ways
        with pytest.raises(UnicodeEncodeError):
            chunking.digest
        return
    assert chunking.digest == expected
