"""A query row's metrics rounded by one C pass (``report.rnd_values``) are ``rnd`` of each
value, key order kept, ``None`` kept (issue 37 point 7)."""

from __future__ import annotations

import json
import math
import random

from hypothesis import given
from hypothesis import strategies as st

from labeller.eval.report import rnd, rnd_many, rnd_values

_values = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10**6, 10**6), st.none(),
                    st.floats(0, 1))


@given(st.dictionaries(st.text(min_size=1, max_size=8), _values, max_size=12))
def test_rounded_values_are_rnd_of_each(values):
    got = rnd_values(values)
    expected = {k: rnd(v) for k, v in values.items()}
    assert list(got) == list(expected)
    assert json.dumps(got) == json.dumps(expected)  # NaN compares unequal; its text does not
    assert [type(v) for v in got.values()] == [type(v) for v in expected.values()]


_floats = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.floats(-2, 2), st.floats(-2000, 2000),
                    # halves at the sixth decimal and their neighbours: where a product's rounding could cross
                    st.integers(-10**9, 10**9).map(lambda n: (n + 0.5) / 1e6),
                    st.integers(-10**9, 10**9).map(lambda n: math.nextafter((n + 0.5) / 1e6, math.inf)),
                    st.integers(-10**9, 10**9).map(lambda n: math.nextafter((n + 0.5) / 1e6, -math.inf)))


@given(st.lists(st.dictionaries(st.text(min_size=1, max_size=4), _floats, max_size=8), max_size=6))
def test_many_rows_rounded_at_once_are_rnd_values_of_each(rows):
    """``rnd_many`` (one numpy pass over every query row's floats) is ``rnd_values`` of each row."""
    got = rnd_many(rows)
    expected = [rnd_values(r) for r in rows]
    assert json.dumps(got) == json.dumps(expected) and [list(r) for r in got] == [list(r) for r in expected]
    assert [[repr(v) for v in r.values()] for r in got] == [[repr(v) for v in r.values()] for r in expected]


@given(st.lists(st.dictionaries(st.text(min_size=1, max_size=4), _values, max_size=8), max_size=6))
def test_many_rows_with_none_or_ints_are_rnd_values_of_each(rows):
    got = rnd_many(rows)
    expected = [rnd_values(r) for r in rows]
    assert json.dumps(got) == json.dumps(expected)
    assert [[type(v) for v in r.values()] for r in got] == [[type(v) for v in r.values()] for r in expected]


def test_many_rows_on_one_run_of_every_kind_of_value():
    """Deterministic: 200,000 values spread over the ranges a report holds, each one compared."""
    rng = random.Random(7)
    values = [rng.random() for _ in range(100_000)] + [rng.randrange(10**7) / rng.choice((7, 3, 10**6, 2 * 10**6))
                                                       for _ in range(100_000)]
    rows = [dict(zip(map(str, range(50)), values[i:i + 50])) for i in range(0, len(values), 50)]
    assert [[repr(v) for v in r.values()] for r in rnd_many(rows)] == \
        [[repr(v) for v in rnd_values(r).values()] for r in rows]
