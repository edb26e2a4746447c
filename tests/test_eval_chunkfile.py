"""Chunk files (SPEC §10): both forms, the digest, and every refusal with its line and id."""

from __future__ import annotations

import hashlib
import json
import os

import pytest

from labeller.config import EvalConfig
from labeller.core.chunkfile import Chunking, ChunkRange, foreign_chunks, parse_chunk_file, read_chunk_file
from labeller.core.corpus import Corpus, make_document
from labeller.core.vocab import Place
from labeller.errors import InvalidInput

A = "# Alpha\n\nThe kestrel nests\non the ridge.\n\nShared line.\n"
B = "---\ntitle: Bee doc\n---\nShared line.\n\nbeta  facts here\n"


@pytest.fixture
def corpus():
    return Corpus.from_documents([make_document("a.md", A), make_document("b.md", B)])


def lines(*objs) -> str:
    return "".join((o if isinstance(o, str) else json.dumps(o)) + "\n" for o in objs)


def parse(corpus, *objs, max_chunks=100, strict=False) -> Chunking:
    return parse_chunk_file(lines(*objs), corpus, path="c.jsonl", max_chunks=max_chunks, strict=strict)


def refusal(corpus, *objs, strict=True, **kw) -> InvalidInput:
    """A malformed file's refusal; ``strict``: an unplaceable chunk refuses it too."""
    with pytest.raises(InvalidInput) as err:
        parse(corpus, *objs, strict=strict, **kw)
    assert err.value.exit_code == 2
    return err.value


def test_offsets_and_texts_give_the_same_ranges_and_digest(corpus):
    s = A.index("The kestrel")
    e = A.index("ridge.") + len("ridge.")
    by_offsets = parse(corpus, {"id": "c1", "doc": "a.md", "start": s, "end": e},
                       {"id": "c2", "doc": "b.md", "start": 0, "end": 12})
    # the passage copied with its line wrap as a space, no doc: located in the whole corpus
    by_text = parse(corpus, {"id": "c2", "doc": "b.md", "text": B[:12]},
                    {"id": "c1", "text": "The kestrel nests on the ridge.", "source": "kept, ignored"})
    assert by_offsets.ranges == by_text.ranges == (ChunkRange("c1", Place("a.md", s, e)),
                                                   ChunkRange("c2", Place("b.md", 0, 12)))
    assert by_offsets.digest == by_text.digest
    expected = hashlib.sha256(f"c1\0a.md\0{s}\0{e}\0c2\0b.md\0{0}\0{12}\0".encode()).hexdigest()
    assert by_offsets.digest == expected
    assert by_offsets.n_chunks == 2 and by_offsets.mean_chars == ((e - s) + 12) / 2


def test_a_text_is_not_trimmed_and_a_trailing_whitespace_run_is_matched_whole(corpus):
    c = parse(corpus, {"id": "x", "doc": "b.md", "text": "beta facts here\n"})
    s = B.index("beta")
    assert c.ranges[0].place == Place("b.md", s, len(B))
    c = parse(corpus, {"id": "y", "doc": "b.md", "text": " beta facts"})  # leading run kept: starts at "\n\n"
    assert c.ranges[0].place == Place("b.md", B.index("\n\nbeta"), s + len("beta  facts"))


def test_a_text_is_located_in_its_doc_only(corpus):
    c = parse(corpus, {"id": "s", "doc": "b.md", "text": "Shared line."})
    assert c.ranges[0].place == Place("b.md", B.index("Shared"), B.index("Shared") + 12)


def test_overlapping_chunks_are_allowed_and_found_by_overlap(corpus):
    c = parse(corpus, *({"id": f"w{i}", "doc": "a.md", "start": i, "end": i + 10} for i in range(0, 40, 5)))
    assert [r.id for r in c.overlapping("a.md", 12, 16)] == ["w5", "w10", "w15"]
    assert c.overlapping("b.md", 0, 5) == []


def test_both_forms_that_agree_are_accepted_and_disagreeing_ones_refused(corpus):
    ok = parse(corpus, {"id": "c", "doc": "b.md", "start": 0, "end": 3, "text": "---"})
    assert ok.ranges[0].place == Place("b.md", 0, 3)
    err = refusal(corpus, {"id": "c", "doc": "b.md", "start": 0, "end": 3, "text": "--"})
    assert "c.jsonl:1" in str(err) and "record 'c'" in str(err) and "disagree" in str(err)


@pytest.mark.parametrize("obj, reason", [
    ('{"id": "a", "doc": ', "not a JSON object"),
    ("[1, 2]", "not a JSON object"),
    ({"id": None, "doc": "a.md", "start": 0, "end": 1}, "id None must be a non-empty string"),
    ({"id": "has space", "doc": "a.md", "start": 0, "end": 1}, "without whitespace"),
    ({"id": "", "doc": "a.md", "start": 0, "end": 1}, "must be a non-empty string"),
    *(({"id": f"ws{ch}id", "doc": "a.md", "start": 0, "end": 1}, "without whitespace") for ch in "\t\x1c\x85\u2028\u3000"),
    ({"id": "u", "doc": "nope.md", "start": 0, "end": 1}, "unknown document 'nope.md'"),
    ({"id": "u", "doc": "../a.md", "text": "Alpha"}, "unknown document '../a.md'"),
    ({"id": "o", "doc": "a.md", "start": 0, "end": len(A) + 1}, "offsets out of range"),
    ({"id": "o", "doc": "a.md", "start": 5, "end": 5}, "offsets out of range"),
    ({"id": "o", "doc": "a.md", "start": -1, "end": 5}, "offsets out of range"),
    ({"id": "f", "doc": "a.md", "start": 1.5, "end": 5}, "start must be whole numbers"),
    ({"id": "f", "doc": "a.md", "start": 1, "end": "5"}, "end must be whole numbers"),
    ({"id": "f", "doc": "a.md", "start": True, "end": 5}, "start must be whole numbers"),
    ({"id": "h", "doc": "a.md", "start": 1}, "end must be whole numbers"),
    ({"id": "n", "start": 1, "end": 2}, "offsets need doc"),
    ({"id": "e", "doc": "a.md"}, "needs doc, start and end, or text"),
    ({"id": "t", "text": ""}, "non-empty string"),
    ({"id": "t", "text": " \n "}, "only whitespace"),
    ({"id": "t", "text": "no such passage"}, "text not found in the corpus"),
    ({"id": "t", "doc": "a.md", "text": "beta"}, "text not found in a.md"),
    ("[" * 100_000, "nested too deeply"),
])
def test_each_refusal_names_line_and_id(corpus, obj, reason):
    good = {"id": "good", "doc": "a.md", "start": 0, "end": 3}
    err = refusal(corpus, good, obj)
    assert reason in str(err)
    assert str(err).startswith("c.jsonl:2")
    if isinstance(obj, dict) and isinstance(obj.get("id"), str) and obj["id"] and not any(
            ch.isspace() for ch in obj["id"]):  # an id that is one
        assert f"record {obj['id']!r}" in str(err)


def test_a_chunk_without_an_id_gets_doc_and_its_ordinal_in_file_order(corpus):
    chunking = parse(corpus, {"doc": "a.md", "start": 0, "end": 3}, {"doc": "b.md", "start": 0, "end": 3},
                     {"doc": "a.md", "text": "The kestrel nests"}, {"id": "own", "doc": "a.md", "start": 1, "end": 4},
                     {"text": "on the ridge."})
    assert sorted(r.id for r in chunking.ranges) == ["#1", "a.md#1", "a.md#2", "b.md#1", "own"]
    assert {r.id: r.place.start for r in chunking.ranges}["a.md#2"] == A.index("The kestrel")
    err = refusal(corpus, {"doc": "a.md", "start": 0, "end": 3}, {"id": "a.md#1", "doc": "a.md", "start": 1, "end": 3})
    assert "duplicate id (first on line 1)" in str(err)


def test_an_unplaceable_chunk_is_left_out_and_named_unless_strict(corpus):
    chunking = parse(corpus, {"id": "good", "doc": "a.md", "start": 0, "end": 3},
                     {"id": "gone", "doc": "a.md", "text": "no such passage anywhere"})
    assert [r.id for r in chunking.ranges] == ["good"] and chunking.unplaced_ids == {"gone"}
    assert chunking.unplaced[0]["line"] == 2 and "text not found in a.md" in chunking.unplaced[0]["message"]
    err = refusal(corpus, {"id": "good", "doc": "a.md", "start": 0, "end": 3},
                  {"id": "gone", "doc": "a.md", "text": "no such passage anywhere"})
    assert "--strict" in str(err) and str(err).startswith("c.jsonl:2")


def test_an_ambiguous_text_lists_its_occurrences(corpus):
    err = refusal(corpus, {"id": "amb", "text": "Shared line."})
    assert "found 2 times in the corpus, at a.md:6:1, b.md:4:1" in str(err) and "record 'amb'" in str(err)
    # overlapping counts; in file order, a passage every occurrence of which lies before the
    # previous chunk of its document cannot be placed (SPEC §10.1)
    err = refusal(corpus, {"id": "last", "doc": "a.md", "start": len(A) - 2, "end": len(A) - 1},
                  {"id": "ov", "doc": "a.md", "text": "e"})
    assert "found 8 times in a.md, at a.md:3:3, a.md:3:6," in str(err)
    assert "none of them at or after the previous chunk of a.md" in str(err)


def test_duplicate_ids_name_both_lines_and_every_problem_is_listed(corpus):
    err = refusal(corpus, {"id": "d", "doc": "a.md", "start": 0, "end": 1}, {"id": "d", "doc": "a.md", "start": 1,
                                                                              "end": 2}, {"id": "x", "text": "zzz"})
    assert "c.jsonl:2" in str(err) and "duplicate id (first on line 1)" in str(err) and "2 problems" in str(err)
    assert [(d["line"], d["id"]) for d in err.details] == [(2, "d"), (3, "x")]


def test_the_chunk_count_bound_is_configurable(corpus):
    objs = [{"id": f"c{i}", "doc": "a.md", "start": i, "end": i + 1} for i in range(3)]
    assert parse(corpus, *objs, max_chunks=3).n_chunks == 3
    assert "over the bound of 2 ([eval] chunk_file_max_chunks)" in str(refusal(corpus, *objs, max_chunks=2))


def test_the_file_reader_is_bounded_strict_and_refuses_symlinks(tmp_path, corpus):
    bounds = {"max_bytes": EvalConfig().chunk_file_max_bytes, "max_chunks": EvalConfig().chunk_file_max_chunks}
    f = tmp_path / "pipe.jsonl"
    f.write_text(lines({"id": "c", "doc": "a.md", "start": 0, "end": 3}))
    c = read_chunk_file(f, corpus, **bounds)
    assert c.name == "pipe" and c.origin == "file"
    assert read_chunk_file(f, corpus, name="mine", **bounds).name == "mine"
    with pytest.raises(InvalidInput, match="over the bound .*chunk_file_max_bytes"):
        read_chunk_file(f, corpus, max_bytes=10, max_chunks=5)
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"id": "c", "text": "\xff"}\n')
    with pytest.raises(InvalidInput, match="not valid UTF-8 at byte offset 21"):
        read_chunk_file(bad, corpus, **bounds)
    link = tmp_path / "link.jsonl"
    os.symlink(f, link)
    with pytest.raises(InvalidInput, match="symlink"):
        read_chunk_file(link, corpus, **bounds)


def test_foreign_chunks_get_an_empty_heading_and_the_document_title(corpus):
    c = parse(corpus, {"id": "b1", "doc": "b.md", "text": "beta  facts"}, {"id": "a1", "doc": "a.md", "start": 0,
                                                                            "end": 7})
    a1, b1 = foreign_chunks(c, corpus)
    assert (a1.chunk_id, a1.text, a1.heading, a1.breadcrumb, a1.heading_path) == ("a1", "# Alpha", "", "a.md", "a.md:1")
    assert (b1.text, b1.breadcrumb, b1.heading_path) == ("beta  facts", "Bee doc", "b.md:6")


def test_answer_bearing_chunks_of_labeller_own_chunking_equal_the_build(make_project):
    from labeller.core.build import build
    from labeller.core.chunkfile import answer_bearing

    docs = {"a.md": "# A\n\n" + "".join(f"Para {i:02d} " + "word " * 60 + "\n\n" for i in range(12))}
    qs = [{"id": f"q{i}", "query": f"q{i}", "expected_answer": "", "locators": [{"doc": "a.md", "quote": f"Para {i:02d}"}]}
          for i in range(12)] + [{"id": "sec", "query": "s", "expected_answer": "", "locators": [
              {"doc": "a.md", "heading": "A"}]}]
    project = make_project(docs, qs)
    chunking = Chunking.of_chunks("md-struct-v1", project.all_chunks)
    result = build(project, project.load_questions().questions)
    assert result.ok and len({c.chunk_id for c in project.all_chunks}) > 2
    for rec in result.records:
        assert answer_bearing(chunking, [Place(s.doc_id, s.start, s.end) for s in rec.spans], project.hit_rule) \
            == rec.chunk_ids


def test_answer_bearing_under_each_rule_on_overlapping_windows():
    from labeller.core.chunkfile import answer_bearing
    from labeller.core.hitrules import parse_hit_rule

    windows = Chunking("w", [ChunkRange(f"w{i}", Place("d", 10 * i, 10 * i + 20)) for i in range(9)], "file")
    span = [Place("d", 25, 45)]
    assert answer_bearing(windows, span, parse_hit_rule("any_overlap")) == ["w1", "w2", "w3", "w4"]
    assert answer_bearing(windows, span, parse_hit_rule("span_containment")) == []
    assert answer_bearing(windows, span, parse_hit_rule("coverage>=0.75")) == ["w2", "w3"]  # 15/20 each
    assert answer_bearing(windows, span, parse_hit_rule("union_coverage>=1")) == ["w1", "w2", "w3", "w4"]
    assert answer_bearing(windows, [Place("d", 95, 130)], parse_hit_rule("union_coverage>=0.5")) == []
