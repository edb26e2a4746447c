"""``display.json_chunks``: the C-encoder-backed writer gives ``json_dumps``'s very text."""

from __future__ import annotations

import collections
import dataclasses
import datetime
import enum
import json
import math
import uuid

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labeller import display
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
    """``1``, ``True`` and ``1.0`` are one dict key to Python but ``"1"``, ``"true"`` and ``"1.0"`` in JSON;
    so are ``-0.0`` and ``0.0``."""
    value = [{1: [0]}, {True: [0]}, {1.0: [0]}, {0: [0]}, {False: [0]}, {None: [0]}, {-0.0: [0]}, {0.0: [0]}]
    for indent in (0, 2):
        assert "".join(json_chunks(value, indent=indent)) == json_dumps(value, indent=indent)


# --- orjson's text where it is json's (display._orjson_text) ---------------------------------

_TINY_FLOATS = st.floats(min_value=1e-11, max_value=2e-4).flatmap(lambda x: st.sampled_from([x, -x]))
_BUILT_IN = st.one_of(st.none(), st.booleans(), st.integers(-(2**63), 2**64 - 1), _TINY_FLOATS,
                      st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=8),
                      st.sampled_from(["\u2028", "\u202e", "\x1b[31m", "\x7f", "\u00e9\u65e5", '"\\', "0.00001", "1e-7"]))
_REPORTISH = st.recursive(_BUILT_IN, lambda inner: st.one_of(
    st.lists(inner, max_size=5), st.lists(inner, max_size=3).map(tuple),
    st.dictionaries(st.text(max_size=6), inner, max_size=5)), max_leaves=40)


def _json_text(value, sort_keys: bool) -> bytes:
    return json.dumps(value, ensure_ascii=False, allow_nan=False, indent=2, sort_keys=sort_keys).encode()


def test_this_orjson_is_the_one_the_fast_path_was_checked_against():
    """Without it every test below would pass on json's own path and say nothing."""
    assert display._orjson_agrees()


@settings(max_examples=600, deadline=None)
@given(value=_REPORTISH, sort_keys=st.booleans())
def test_orjson_text_is_json_text_for_built_in_values(value, sort_keys):
    text = display._orjson_text(value, sort_keys)
    assert text is not None  # built-in types, string keys, 64-bit integers, finite floats: always taken
    assert text == _json_text(value, sort_keys)
    assert "".join(json_chunks(value, indent=2, sort_keys=sort_keys)) == json_dumps(value, indent=2, sort_keys=sort_keys)


def test_every_character_is_escaped_as_json_escapes_it():
    chars = [chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000]
    value = {"".join(chars[i:i + 64]): "".join(chars[i:i + 64]) for i in range(0, len(chars), 64)}
    assert display._orjson_text(value, True) == _json_text(value, True)
    assert "".join(json_chunks(value, indent=2, sort_keys=True)) == json_dumps(value, indent=2, sort_keys=True)


def test_random_doubles_of_every_exponent_are_written_as_repr():
    rng = np.random.default_rng(37)
    bits = rng.integers(0, 2**64, 200_000, dtype=np.uint64, endpoint=False)
    values = [x for x in bits.view(np.float64).tolist() if math.isfinite(x)]
    values += [round(x, 6) for x in rng.random(50_000).tolist()] + [i / 20_000 for i in range(2_000)]
    assert display._orjson_text(values, False) == _json_text(values, False)


@pytest.mark.parametrize("value", [["f\x03nan"], {"f\x04-inf": 1}], ids=repr)
def test_strings_that_look_like_a_non_finite_float_go_to_json(value):
    assert display._orjson_text(value, True) is None
    assert "".join(json_chunks(value, indent=2, sort_keys=True)) == json_dumps(value, indent=2, sort_keys=True)


def test_a_tiny_number_inside_a_string_is_left_as_written():
    value = {'k": 1e-7': ["0.00001", ": 1e-7,", 'x": 0.00001'], "n": [1e-7, 0.00001], "m": 2e-5}
    assert display._orjson_text(value, True) == _json_text(value, True)


class _Kind(enum.StrEnum):
    A = "a"


class _Level(enum.IntEnum):
    ONE = 1


class _Plain(enum.Enum):
    X = "x"


@dataclasses.dataclass
class _Row:
    a: int


@pytest.mark.parametrize("value", [
    {"a": math.nan}, [1, [math.inf]], {"x": [-math.inf]}, {"k": _Kind.A}, [_Level.ONE], {"p": _Plain.X},
    [_Row(1)], {"d": datetime.date(2026, 12, 6)}, [uuid.UUID(int=7)], {1: "int key"}, [2**64], [-(2**63) - 1],
    ["\ud800"], [{1, 2}], [b"bytes"], collections.OrderedDict(a=1), [np.float64(0.5)]], ids=repr)
def test_what_orjson_would_write_differently_or_json_refuses_goes_to_json(value):
    """Non-finite floats (orjson: null), subclasses and types orjson writes but json refuses,
    keys other than strings, huge integers, lone surrogates: declined, json's path decides."""
    assert display._orjson_text(value, True) is None
    try:
        expected = json_dumps(value, indent=2, sort_keys=True)
    except (TypeError, ValueError) as exc:
        with pytest.raises(type(exc)):
            "".join(json_chunks(value, indent=2, sort_keys=True))
        return
    assert "".join(json_chunks(value, indent=2, sort_keys=True)) == expected


def test_a_report_is_written_by_the_fast_path(tmp_path):
    """The eval report holds exact built-in types only (a span's block as a plain string)."""
    from labeller.core.resolve import Span
    from labeller.core.vocab import BlockKind

    span = Span("d.md", 0, 5, BlockKind.PARAGRAPH, 0, 5).as_json()
    assert type(span["block"]) is str
    assert display._orjson_text({"queries": [{"answer_spans": [span], "m": 0.5}]}, True) is not None
