"""TREC run files: round trip, strict parsing, and chunk-id validation against the project."""

from __future__ import annotations

import hashlib
import math
import random
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import q

from labeller.errors import InvalidInput
from labeller.eval.retrievers import Hit, run_file, top_k
from labeller.eval.retrievers.run_file import (BLOCK_BYTES, RunFileRetriever, format_run, parse_run, read_run,
                                               write_run)


def test_round_trip_keeps_every_hit_and_exact_score(tmp_path):
    results = {
        "q1": [Hit("c" * 64, 12.345678901234567), Hit("a" * 64, 0.1 + 0.2), Hit("b" * 64, 0.30000000000000004)],
        "q2": [Hit("d" * 64, -1e-300)],
        "q3": [],
    }
    path = tmp_path / "bm25.run"
    write_run(path, results, tag="bm25")
    back = read_run(path)
    assert back.tags == {"bm25"}
    for qid, hits in results.items():
        assert sorted(back.hits.get(qid, []), key=lambda h: h.chunk_id) == sorted(hits, key=lambda h: h.chunk_id)
    lines = path.read_text().splitlines()
    # trec order: the tie between a and b at 0.30000000000000004 goes to b (descending id)
    assert [line.split()[2][0] + line.split()[3] for line in lines[:3]] == ["c1", "b2", "a3"]
    assert format_run(read_run(path).hits, "bm25") == path.read_text()


def test_the_rank_column_is_not_trusted(tmp_path):
    run = parse_run("q1 Q0 low 1 0.5 x\nq1 Q0 high 2 0.9 x\n")
    r = RunFileRetriever(tmp_path / "r.run", run)
    assert [h.chunk_id for h in r.retrieve("q1", "", 2)] == ["high", "low"]
    assert r.retrieve("q9", "", 2) == [] and r.missing(["q1", "q9"]) == ["q9"]


@pytest.mark.parametrize("text, message, line", [
    ("q1 Q0 d1 1 0.5\n", "expected 6 fields", 1),
    ("\nq1 Q0 d1 1 high tag\n", "must be an integer and score", 2),
    ("q1 Q0 d1 x 0.5 tag\n", "must be an integer", 1),
    ("q1 Q0 d1 1 nan tag\n", "not a finite number", 1),
    ("q1 Q0 d1 1 0.5 t\nq1 Q0 d1 2 0.4 t\n", "appears twice", 2),
])
def test_malformed_lines_are_refused_with_their_line(text, message, line):
    with pytest.raises(InvalidInput, match=message) as exc:
        parse_run(text, "x.run")
    assert exc.value.line == line and exc.value.exit_code == 2


def test_unwritable_ids_are_refused():
    with pytest.raises(InvalidInput, match="whitespace"):
        format_run({"q 1": [Hit("a", 1.0)]}, "tag")
    with pytest.raises(InvalidInput, match="tag"):
        format_run({"q1": [Hit("a", 1.0)]}, "two words")


def test_docids_must_be_chunk_ids_of_this_corpus(make_project, tmp_path):
    project = make_project({"a.md": "# A\n\nalpha text\n"})
    good = project.all_chunks[0].chunk_id
    path = tmp_path / "ext.run"
    path.write_text(f"q1 Q0 {good} 1 2.0 ext\nq1 Q0 not-a-chunk 2 1.0 ext\n")
    with pytest.raises(InvalidInput, match="not-a-chunk.*not a chunk id") as exc:
        RunFileRetriever.for_project(project, path)
    assert exc.value.line == 2
    path.write_text(f"q1 Q0 {good} 1 2.0 ext\n")
    r = RunFileRetriever.for_project(project, path)
    assert r.describe()["tags"] == ["ext"] and len(r.describe()["sha256"]) == 64


def test_a_run_file_that_is_not_utf8_or_missing_is_invalid_input(tmp_path):
    bad = tmp_path / "bad.run"
    bad.write_bytes(b"q1 Q0 \xff 1 1.0 t\n")
    with pytest.raises(InvalidInput, match="UTF-8"):
        read_run(bad)
    with pytest.raises(InvalidInput, match="not found"):
        read_run(tmp_path / "absent.run")


def _whole_file_reference(data: bytes, path: str) -> tuple:
    """How a run file was read before it was streamed (whole text, one set of every pair):
    the hits, tags and first line of each docid, or the (message, line) of the refusal."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return ("error", f"not valid UTF-8 at byte {exc.start}", None)
    hits: dict[str, list[Hit]] = {}
    tags, seen, first_line = set(), set(), {}
    for lineno, line in enumerate(text.splitlines(), 1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 6:
            return ("error", f"expected 6 fields 'qid Q0 docid rank score tag', found {len(parts)}", lineno)
        qid, _, docid, rank, score, tag = parts
        try:
            int(rank)
            value = float(score)
        except ValueError:
            return ("error", f"rank {rank!r} must be an integer and score {score!r} a number", lineno)
        if not math.isfinite(value):
            return ("error", f"score {score!r} is not a finite number", lineno)
        if (qid, docid) in seen:
            return ("error", f"docid {docid!r} appears twice for query {qid!r}", lineno)
        seen.add((qid, docid))
        hits.setdefault(qid, []).append(Hit(docid, value))
        tags.add(tag)
        first_line.setdefault(docid, lineno)
    return ("ok", hits, tags, first_line, hashlib.sha256(data).hexdigest())


def _read(path, block: int) -> tuple:
    try:
        run = read_run(path)
    except InvalidInput as exc:
        return ("error", exc.reason, exc.line)
    return ("ok", run.hits, run.tags, dict(zip(run.docids, run.first_lines)), run.sha256)


RUN_LINES = ["q1 Q0 a 1 3.5 t", "q2 Q0 a 1 2 t", "", "  ", "q1 Q0 b 2 1e-3 u", "q10 Q0 é 1 -0.0 t",
             "q1 Q0 c 3 7 t\r", "q2\tQ0 b\x0c2 1.5 t", "q3 Q0 d 1 1 t\u2028q3 Q0 e 2 1 t", "q4 Q0 a 1 0 t\x85"]
BAD_LINES = ["q1 Q0 a 1 3.5", "q1 Q0 x one 1 t", "q1 Q0 x 1 inf t", "q1 Q0 a 9 0.1 t", "q2 Q0 a 9 0.1 t"]


@pytest.mark.parametrize("block", [1, 7, 64, BLOCK_BYTES])
def test_a_streamed_run_reads_as_the_whole_file_did(tmp_path, monkeypatch, block):
    """Blocks of any size (a line cut anywhere, CR LF, form feeds, Unicode line breaks), and
    for every problem the same first one in file order: a repeat before a malformed line
    wins, a malformed line before a repeat wins, invalid UTF-8 anywhere wins."""
    monkeypatch.setattr(run_file, "BLOCK_BYTES", block)
    rng = random.Random(block)
    cases = [RUN_LINES, RUN_LINES[::-1]]
    for _ in range(40):
        lines = rng.sample(RUN_LINES, rng.randrange(1, len(RUN_LINES)))
        for _ in range(rng.randrange(3)):
            lines.insert(rng.randrange(len(lines) + 1), rng.choice(BAD_LINES))
        cases.append(lines)
    path = tmp_path / "x.run"
    for lines in cases:
        for end in ("\n", "\r\n"):
            data = end.join(lines).encode("utf-8") + (end.encode() if rng.random() < 0.5 else b"")
            if rng.random() < 0.2:
                cut = rng.randrange(len(data) + 1)
                data = data[:cut] + b"\xff" + data[cut:]
            path.write_bytes(data)
            assert _read(path, block) == _whole_file_reference(data, str(path)), data


_QIDS, _DOCIDS = ["q1", "q2", "q10"], ["a", "b", "c1", "c10", "zz"]
_run_line = st.one_of(
    st.builds(lambda q, d, r, s, t, sep: sep.join([q, "Q0", d, r, s, t]),
              st.sampled_from(_QIDS), st.sampled_from(_DOCIDS),  # repeats and ties come from the small pools
              st.sampled_from(["1", "2", "+3", "1_0", "x"]),
              st.sampled_from(["1", "0.5", "-0.0", "1e-3", "2.50", "inf", "nan", "high", "1_5.0"]),
              st.sampled_from(["t", "u"]), st.sampled_from([" ", "\t", "  ", " \t "])),
    st.sampled_from(["", "  ", "q1 Q0 a 1 3.5", "q1 Q0 a 1 3.5 t extra", "q3 Q0 a 1 1 t\x0b", "q4 Q0 é 1 2 t",
                     "q1 Q0 a\x00 1 1 t", "q1 Q0 a 1 1 t\x00", f"q2 Q0 {'x' * 300} 1 1 t"]),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_run_line, max_size=30), st.sampled_from(["\n", "\r\n"]), st.booleans(),
       st.sampled_from([1, 16, 64, BLOCK_BYTES]))
def test_the_one_pass_column_reader_equals_the_reference_reader(lines, end, last_end, block):
    """Generated runs (ties, a docid twice for a query, signs and underscores in numbers,
    malformed lines, odd whitespace, CR LF, any block size) read by columns give what the
    whole-file reference gives: the same hits, tags, first lines, digest, or the same first
    problem on the same line."""
    data = (end.join(lines) + (end if last_end else "")).encode("utf-8")
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as mp:
        mp.setattr(run_file, "BLOCK_BYTES", block)
        path = Path(tmp) / "x.run"
        path.write_bytes(data)
        assert _read(path, block) == _whole_file_reference(data, str(path)), data


def test_a_well_formed_ascii_run_is_read_by_columns_only(tmp_path, monkeypatch):
    """The line reader is for the odd and the broken: a clean run never reaches it (else the
    one-pass reader would silently be the slow one)."""
    text = "".join(f"q{i % 7} Q0 d{i} {i} {1.0 / (i + 1)!r} t\r\n" for i in range(500))
    monkeypatch.setattr(run_file._RunParser, "_feed_lines", lambda self, text: pytest.fail("line reader used"))
    run = parse_run(text)
    assert sum(len(h) for h in run.hits.values()) == 500 and run.first_lines[-1] == 500


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_QIDS), st.sampled_from(_DOCIDS + ["a1", "A", "B"]),
                          st.sampled_from([0.0, -0.0, 1.0, 0.5, 2.0, -1.0])), max_size=40),
       st.integers(0, 12))
def test_top_of_a_run_is_trec_order_of_its_hits(rows, k):
    """``Run.top`` (numpy) ranks as ``top_k`` over ``Hit`` objects does: score descending,
    ties (0.0 and -0.0 too) by docid descending."""
    seen = set()
    text = "".join(f"{q} Q0 {d} 1 {s!r} t\n" for q, d, s in rows if (q, d) not in seen and not seen.add((q, d)))
    run = parse_run(text)
    for qid in [*_QIDS, "absent"]:
        assert run.top(qid, k) == top_k(run.hits_of(qid), k)
        ids, scores = run.top_columns(qid, k)  # what eval reads (``Rankings``), each column on its own
        assert (ids, scores) == ([h.chunk_id for h in run.top(qid, k)], [h.score for h in run.top(qid, k)])


@pytest.mark.parametrize("odd", ["a\x00", "é"])
def test_an_id_read_by_the_line_reader_is_not_confused_with_another_by_the_column_reader(tmp_path, monkeypatch, odd):
    """A block the line reader takes (an id with NUL or non-ASCII) then blocks the column
    reader takes: ``a\\x00`` is not ``a`` (a fixed-width bytes array would drop the NUL)."""
    monkeypatch.setattr(run_file, "BLOCK_BYTES", 16)
    data = f"q1 Q0 {odd} 1 1 t\nq2 Q0 a 1 1 t\nq3 Q0 {odd} 1 2 t\nq3 Q0 a 2 1 t\n".encode("utf-8")
    path = tmp_path / "x.run"
    path.write_bytes(data)
    assert _read(path, 16) == _whole_file_reference(data, str(path))


@settings(max_examples=200, deadline=None)
@given(st.lists(_run_line, max_size=30), st.sampled_from([1, 16, BLOCK_BYTES]),
       st.sets(st.sampled_from(_QIDS + ["q3", "q4"])), st.sets(st.sampled_from(_DOCIDS + ["é", "a\x00"])))
def test_a_run_read_for_scoring_keeps_the_rows_of_golden_queries_and_chunk_ids(lines, block, golden, known):
    """``keep_queries``/``known_docids`` (what ``eval --run`` passes) change nothing eval
    scores: a valid run ranks each golden query as the whole read does, restricted to known
    docids, and the unknown docids are those of the file, in order of first appearance."""
    data = "\n".join(lines).encode("utf-8")
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as mp:
        mp.setattr(run_file, "BLOCK_BYTES", block)
        path = Path(tmp) / "x.run"
        path.write_bytes(data)
        try:
            whole = read_run(path)
        except InvalidInput:
            return  # the problems of a bad run: the reference tests above
        run = read_run(path, keep_queries=golden, known_docids=known)
    assert set(run.docids) <= known and set(run.hits) <= golden
    for qid in golden:
        assert run.top(qid, 30) == [h for h in whole.top(qid, 30) if h.chunk_id in known]
    first = sorted((line, d) for d, line in zip(whole.docids, whole.first_lines) if d not in known)
    assert list(run.unknown.items()) == [(d, line) for line, d in first] and not run.unknown_more


def test_unknown_docids_are_counted_up_to_a_bound(make_project, tmp_path, monkeypatch):
    """A refused run names its first unknown docid and line; the count stops at
    UNKNOWN_COUNTED (a hostile run has millions, each once kept to be counted)."""
    project = make_project({"a.md": "# A\n\nalpha text\n"})
    good = project.all_chunks[0].chunk_id
    monkeypatch.setattr(run_file, "UNKNOWN_COUNTED", 3)
    path = tmp_path / "ext.run"
    for n, count in ((3, "3 unknown"), (4, "more than 3 unknown")):
        path.write_text(f"q1 Q0 {good} 1 9 t\n" + "".join(f"q{i} Q0 stray{i % n} 1 1 t\n" for i in range(9)))
        with pytest.raises(InvalidInput, match=f"'stray0' is not a chunk id.*; {count} docid") as exc:
            RunFileRetriever.for_project(project, path)
        assert exc.value.line == 2 and exc.value.path == str(path)


def test_rows_of_queries_outside_the_golden_set_are_not_kept(make_project, tmp_path):
    project = make_project({"a.md": "# A\n\nalpha text\n"}, [q("golden", {"quote": "alpha text"})])
    golden = "golden"
    good = project.all_chunks[0].chunk_id
    path = tmp_path / "ext.run"
    path.write_text(f"{golden} Q0 {good} 1 2.0 t\nstranger Q0 {good} 1 2.0 t\n")
    r = RunFileRetriever.for_project(project, path)
    assert golden in r.run and "stranger" not in r.run and r.retrieve(golden, "", 5) == [Hit(good, 2.0)]


@pytest.mark.parametrize("block", [1, 16, BLOCK_BYTES])
def test_a_run_of_too_many_distinct_tags_is_refused_at_the_first_one_too_many(tmp_path, monkeypatch, block):
    """Every tag is kept (the report's fingerprint lists them): a run of a new tag a line is
    refused on the line of the first tag past MAX_TAGS, in any block; a repeat before it wins."""
    monkeypatch.setattr(run_file, "BLOCK_BYTES", block)
    monkeypatch.setattr(run_file, "MAX_TAGS", 3)
    path = tmp_path / "x.run"
    lines = [f"q1 Q0 d{i} 1 1 {'t' if i % 2 else f't{i}'}\n" for i in range(12)]  # t0, t, t2, t, t4, ...
    path.write_text("".join(lines))
    with pytest.raises(InvalidInput, match="more than 3 distinct tags.*'t4' is one too many") as exc:
        read_run(path)
    assert exc.value.line == 5 and exc.value.path == str(path)
    path.write_text("".join(lines[:3] + [lines[0]] + lines[3:]))  # line 4 repeats d0 for q1
    with pytest.raises(InvalidInput, match="appears twice") as exc:
        read_run(path)
    assert exc.value.line == 4
    path.write_text("".join(lines[:4]))
    assert read_run(path).tags == {"t0", "t", "t2"}


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.text(alphabet="ab", min_size=1, max_size=6), min_size=1, max_size=12), max_size=6))
def test_interned_ids_are_numbered_by_first_appearance_across_blocks(blocks):
    """``_Sorted.intern`` over several blocks (ids of growing width merged into the sorted table)
    numbers each id as a dict filled in order would."""
    from labeller.eval.retrievers.run_file import _Sorted

    table: dict[str, int] = {}
    sorted_ids, expected = _Sorted(), {}
    for block in blocks:
        codes = sorted_ids.intern(np.array([b.encode() for b in block], dtype=bytes), table, lambda row: None)
        for b in block:
            expected.setdefault(b, len(expected))
        assert codes.tolist() == [expected[b] for b in block]
    assert table == expected


def _kept_read(path, golden, known) -> tuple:
    run = read_run(path, keep_queries=golden, known_docids=known)
    return (list(run._queries), run.docids, list(run.first_lines), run.hits, run.tags, run.unknown, run.sha256)


# Well-formed runs (each query's docids distinct), some lines only the line reader takes
# (a vertical tab, a non-ASCII or NUL id), ids in no sorted order within a block.
def _run_of(rows: list[tuple[str, str, str]]) -> str:
    """A line per (query, docid) pair, first kept, scores by line."""
    pairs: dict[tuple[str, str], str] = {}
    for qid, docid, odd in rows:
        pairs.setdefault((qid, docid), odd)
    return "\n".join(f"{q} Q0 {d} 1 {i} t{odd}" for i, ((q, d), odd) in enumerate(pairs.items()))


_valid_runs = st.lists(st.tuples(st.sampled_from(_QIDS + ["q3", "q4"]), st.sampled_from(_DOCIDS + ["é", "a\x00"]),
                                 st.sampled_from(["", "\x0b"])), max_size=30).map(_run_of)


@settings(max_examples=300, deadline=None)
@given(_valid_runs, st.sampled_from([1, 16, 64, BLOCK_BYTES]),
       st.sets(st.sampled_from(_QIDS + ["q3", "q4"])), st.sets(st.sampled_from(_DOCIDS + ["é", "a\x00"])))
def test_kept_ids_are_numbered_by_the_column_reader_as_by_the_line_reader(text, block, golden, known):
    """With ``keep_queries``/``known_docids`` the column reader numbers the kept ids by their
    places in the sorted kept and known ids (``_Sorted.intern``'s ``at``), not by a second
    search of their bytes: the same numbers, first lines, hits and unknown docids as the
    line reader's, blocks of either reader mixed."""
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as mp:
        mp.setattr(run_file, "BLOCK_BYTES", block)
        path = Path(tmp) / "x.run"
        path.write_bytes(text.encode("utf-8"))
        columns = _kept_read(path, golden, known)
        mp.setattr(run_file._RunParser, "_feed_columns", lambda self, text: False)
        assert columns == _kept_read(path, golden, known)


def test_the_run_is_read_and_the_report_encoded_with_the_collector_paused(make_project, tmp_path, monkeypatch):
    """Reading a run (with the golden ids) and encoding a report make no reference cycles; the
    collector's full passes there walked the loaded chunk set and the report. Paused, then on again."""
    import gc

    from labeller.eval import report as report_module

    project = make_project({"a.md": "# A\n\nalpha text\n"}, [q("golden", {"quote": "alpha text"})])
    path = tmp_path / "ext.run"
    path.write_text(f"golden Q0 {project.all_chunks[0].chunk_id} 1 2.0 t\n")
    seen: list[bool] = []
    read, render = run_file.read_run, report_module.render_chunks
    monkeypatch.setattr(run_file, "read_run", lambda *a, **k: (seen.append(gc.isenabled()), read(*a, **k))[1])
    monkeypatch.setattr(report_module, "render_chunks", lambda r: (seen.append(gc.isenabled()), render(r))[1])
    assert gc.isenabled()
    RunFileRetriever.for_project(project, path)
    report_module.write_report(tmp_path / "r.json", {"a": 1})
    assert seen == [False, False] and gc.isenabled()


_SHORT_IDS = st.text(alphabet="ab~\x01 9", min_size=1, max_size=8).map(str.encode)


@settings(max_examples=300, deadline=None)
@given(st.lists(_SHORT_IDS, min_size=1, max_size=30), st.lists(_SHORT_IDS, max_size=30))
def test_short_ids_are_found_by_integers_where_their_bytes_are(known, fields):
    """``_member`` with ``_short_keys`` (ids of up to 8 bytes read as big-endian integers)
    finds each field where the search of the bytes finds it, prefixes of one another too."""
    from labeller.eval.retrievers.run_file import _member, _short_keys

    ids = np.sort(np.array(known, dtype=bytes))
    col = np.array(fields + known[:3], dtype=bytes)
    by_keys, by_bytes = _member(col, ids, _short_keys(ids)), _member(col, ids)
    assert _short_keys(col) is not None
    assert by_keys[0].tolist() == by_bytes[0].tolist() and by_keys[1].tolist() == by_bytes[1].tolist()


def test_ids_past_8_bytes_are_searched_as_bytes():
    from labeller.eval.retrievers.run_file import _member, _short_keys

    ids = np.array([b"chunk-000000001", b"chunk-000000002"], dtype=bytes)
    assert _short_keys(ids) is None
    assert _member(np.array([b"chunk-000000002", b"chunk-0"]), ids, None)[0].tolist() == [True, False]


@pytest.mark.parametrize("kept", [True, False])
@pytest.mark.parametrize("block", [256, BLOCK_BYTES])
def test_a_block_of_many_new_ids_in_no_order_numbers_them_as_the_line_reader(tmp_path, monkeypatch, block, kept):
    """Each block meets many ids for the first time, in no sorted order (the generated runs
    above rarely put two new ids in one column-read block): the same numbers and first lines."""
    rng = random.Random(block)
    docids = [f"d{rng.getrandbits(20):x}" for _ in range(300)]
    lines = [f"q{i % 7} Q0 {d} 1 {i} t" for i, d in enumerate(dict.fromkeys(docids))]
    path = tmp_path / "x.run"
    path.write_text("\n".join(lines) + "\n")
    golden, known = ({f"q{i}" for i in range(0, 7, 2)}, set(docids[::3])) if kept else (None, None)
    monkeypatch.setattr(run_file, "BLOCK_BYTES", block)
    columns = _kept_read(path, golden, known)
    monkeypatch.setattr(run_file._RunParser, "_feed_columns", lambda self, text: False)
    assert columns == _kept_read(path, golden, known)
    assert len(columns[1]) > 20
