"""``display.json_chunks``: the C-encoder-backed writer gives ``json_dumps``'s very text."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labeller.display import json_chunks, json_dumps

_KEYS = st.one_of(st.text(max_size=6), st.integers(-5, 5), st.floats(allow_nan=False, allow_infinity=False),
                  st.booleans(), st.none())
_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False),
                     st.text(max_size=8), st.sampled_from(["\u2028", "\u202e", "\x1b[31m", "\u00e9\u65e5", '"\\']))
_VALUES = st.recursive(_SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=5), st.lists(inner, max_size=3).map(tuple),
    st.dictionaries(st.text(max_size=6), inner, max_size=5),
    st.dictionaries(_KEYS, inner, max_size=4)), max_leaves=40)


@settings(max_examples=400, deadline=None)
@given(value=_VALUES, indent=st.integers(0, 3), sort_keys=st.booleans(), batch=st.integers(1, 8))
def test_the_pieces_are_json_dumps_text(value, indent, sort_keys, batch):
    try:
        expected = json_dumps(value, indent=indent, sort_keys=sort_keys)
    except TypeError:  # sort_keys over keys of mixed types: json refuses, and so must the pieces
        with pytest.raises(TypeError):
            "".join(json_chunks(value, indent=indent, sort_keys=sort_keys, batch=batch))
        return
    assert "".join(json_chunks(value, indent=indent, sort_keys=sort_keys, batch=batch)) == expected


@pytest.mark.parametrize("where, value", [(".a[1].b", {"a": [1, {"b": math.inf}]}), (".x", {"x": math.nan, "y": [[]]}),
                                          ("[0]", [math.nan, {"k": [1]}])])
def test_a_non_finite_number_is_named_where_it_sits(where, value):
    with pytest.raises(ValueError) as caught:
        "".join(json_chunks(value, indent=2))
    assert f"at {where} is not finite" in str(caught.value)


def test_a_large_nested_value_comes_in_several_pieces_that_join_to_the_text():
    value = {"queries": [{"id": f"q{i}", "ranks": [i, i + 1], "m": {"r@1": i / 7}} for i in range(2000)]}
    pieces = list(json_chunks(value, indent=2, sort_keys=True, batch=64))
    assert len(pieces) > 1
    assert "".join(pieces) == json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)


def test_keys_equal_in_python_but_written_differently_keep_their_own_text():
    """``1``, ``True`` and ``1.0`` are one dict key to Python but ``"1"``, ``"true"`` and ``"1.0"`` in JSON."""
    value = [{1: [0]}, {True: [0]}, {1.0: [0]}, {0: [0]}, {False: [0]}, {None: [0]}]
    assert "".join(json_chunks(value, indent=2)) == json_dumps(value, indent=2)
