import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import q
from labeller.core.build import build
from labeller.core.hitrules import any_overlap, coverage, parse_hit_rule, span_containment, union_coverage
from labeller.errors import InvalidInput


def test_rule_definitions():
    assert any_overlap((0, 10), (9, 12)) and not any_overlap((0, 10), (10, 12))
    assert span_containment((0, 10), (2, 10)) and not span_containment((0, 10), (2, 11))
    assert coverage((0, 10), (5, 15)) == 0.5
    assert union_coverage([(0, 10), (5, 12), (14, 20)], (0, 20)) == 18 / 20


def test_rule_names_parse():
    assert parse_hit_rule("coverage>=0.5").name == "coverage>=0.5"
    assert parse_hit_rule("union_coverage>=1").threshold == 1.0
    for bad in ("overlap", "coverage>=1.5", "coverage>0.5"):
        with pytest.raises(InvalidInput):
            parse_hit_rule(bad)


intervals = st.tuples(st.integers(0, 50), st.integers(1, 30)).map(lambda t: (t[0], t[0] + t[1]))


@given(st.lists(intervals, max_size=6), intervals)
def test_union_coverage_never_above_one_and_counts_overlap_once(chunks, span):
    u = union_coverage(chunks + chunks, span)
    assert 0 <= u <= 1
    assert u == union_coverage(chunks, span)
    for c in chunks:
        if span_containment(c, span):
            assert any_overlap(c, span) and coverage(c, span) == 1 and u == 1


STRADDLE = "# A\n\n" + "word " * 10 + "\n" + "more " * 10 + "\n\nsecond para\n"


def test_span_straddling_two_chunks(make_project):
    # max_chars small enough that the two lines of one paragraph are hard-split into two chunks
    p = make_project({"s.md": STRADDLE}, [q("q1", {"quote": "word more"})], toml="[build]\nmax_chars = 60\n")
    res = build(p, p.load_questions().questions)
    assert res.ok and len(res.records[0].chunk_ids) == 2
    assert res.records[0].coverage == [1.0]
    rule = parse_hit_rule("span_containment")
    span = res.records[0].spans[0]
    assert not [c for c in p.chunks["s.md"] if rule.chunk_hits((c.start, c.end), (span.start, span.end))]


def test_build_under_containment_refuses_a_straddling_span(make_project):
    p = make_project({"s.md": STRADDLE}, [q("q1", {"quote": "word more"})],
                     toml='[build]\nmax_chars = 60\nhit_rule = "span_containment"\n')
    res = build(p, p.load_questions().questions)
    assert [r.kind for r in res.refusals] == ["no_hit"]
