"""A query row's metrics rounded by one C pass (``report.rnd_values``) are ``rnd`` of each
value, key order kept, ``None`` kept (issue 37 point 7)."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from labeller.eval.report import rnd, rnd_values

_values = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10**6, 10**6), st.none(),
                    st.floats(0, 1))


@given(st.dictionaries(st.text(min_size=1, max_size=8), _values, max_size=12))
def test_rounded_values_are_rnd_of_each(values):
    got = rnd_values(values)
    expected = {k: rnd(v) for k, v in values.items()}
    assert list(got) == list(expected)
    assert json.dumps(got) == json.dumps(expected)  # NaN compares unequal; its text does not
    assert [type(v) for v in got.values()] == [type(v) for v in expected.values()]
