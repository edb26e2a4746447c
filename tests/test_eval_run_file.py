"""TREC run files: round trip, strict parsing, and chunk-id validation against the project."""

from __future__ import annotations

import pytest

from labeller.errors import InvalidInput
from labeller.eval.retrievers import Hit
from labeller.eval.retrievers.run_file import RunFileRetriever, format_run, parse_run, read_run, write_run


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
