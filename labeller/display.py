"""Showing untrusted text safely in a terminal.

Queries and documents come from anywhere; an escape sequence inside one must print as
visible text, never act on the terminal. Rich markup is escaped too.
"""

from __future__ import annotations

import json
import marshal
import math
import re
from collections.abc import Iterator
from functools import cache
from typing import NoReturn

from rich.markup import escape

# C1 controls, DEL, U+2028/9, bidi overrides and isolates, lone surrogates: see ``INVISIBLE``.
_INVISIBLE_CLASS = r"\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff"
CONTROL = re.compile(rf"[\x00-\x08\x0b-\x1f{_INVISIBLE_CLASS}]")


def _visible(m: re.Match) -> str:
    ch = m.group(0)
    code = ord(ch)
    if code < 0x20:
        return chr(0x2400 + code)  # the Unicode "control picture" for it: ␛ for ESC
    return f"\\u{code:04x}"


def visible(text: str) -> str:
    """Control characters (escape sequences, bidi overrides, U+2028) as visible stand-ins;
    tabs and newlines kept. No markup escaping: for Textual ``Content`` and plain output."""
    return CONTROL.sub(_visible, text)


def safe(text: str) -> str:
    """``visible`` text with Rich markup escaped, for Rich console output and Rich cells."""
    return escape(visible(text))


def visible_line(text: str) -> str:
    """``visible`` on one line (newlines shown as ⏎): for plain ``print``, where Rich markup
    means nothing and escaping it would print a stray backslash."""
    return visible(text.replace("\n", "⏎ ").replace("\t", " "))


def safe_line(text: str) -> str:
    """Like ``safe`` but on one line: newlines shown as ⏎ for compact listings (Rich output)."""
    return escape(visible_line(text))


# Characters JSON and YAML may carry raw (``ensure_ascii=False`` / ``allow_unicode``) that
# still act on a terminal or an editor: C1 controls (U+009B is a one-byte CSI), DEL, line and
# paragraph separators, bidi overrides and isolates (they reorder what a reviewer reads), and
# lone surrogates (they cannot be encoded at all). Both formats escape C0 themselves.
INVISIBLE = re.compile(rf"[{_INVISIBLE_CLASS}]")


def escape_invisible(text: str) -> str:
    """Every ``INVISIBLE`` character as ``\\uXXXX``: the one escape form JSON and YAML's
    double-quoted scalars share, so the text a parser reads back is unchanged — only valid
    where the caller knows each such character sits inside a JSON string or a double-quoted
    YAML scalar."""
    return INVISIBLE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def json_dumps(value, **kw) -> str:
    """``json.dumps(value, ensure_ascii=False, **kw)`` with the ``INVISIBLE`` characters as
    ``\\uXXXX`` escapes: the same JSON value, readable UTF-8 for every other character, and
    nothing that acts on the terminal that prints it (they occur only inside strings, where
    an escape is equivalent). Every JSON labeller prints or exports goes through here.

    ``Infinity`` and ``NaN`` are not JSON: a strict reader (``eval --run``, jq, most
    languages) refuses the whole file. Every input that could make one is bounded upstream,
    so a non-finite number here is a bug: it fails (exit 3, nothing written) naming where
    the number sits, rather than writing a file nobody can read or hiding it as null."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False, **kw)
    except ValueError:
        _raise_non_finite(value)
    return escape_invisible(text)


def json_chunks(value, *, indent: int, sort_keys: bool = False, batch: int = 1 << 14) -> Iterator[str]:
    """``json_dumps(value, indent=indent, sort_keys=sort_keys)`` as consecutive pieces (joined,
    the very same text).

    With ``indent=2`` (every report) orjson writes the text in one C call wherever it is
    provably json's (``_orjson_text``): held whole as UTF-8 (a 20,000-query report's 64 MB),
    passed on in pieces of about ``batch`` x 64 bytes, each ending a line. Otherwise the
    document is written as it is encoded, never held whole: ``json.dumps`` with an indent encodes in pure Python, a value at a time (the larger part of
    writing a 20,000-query report). Its C encoder takes no indent, but its item separator may
    hold the newline and the spaces of one depth: so each container whose items are all
    scalars (a query's metrics, a span, a list of ranks) is encoded in one C call at its
    depth, and only the containers above them are walked here, writing what the pure encoder
    writes around them (``tests/test_display_json.py`` compares the two on random values).
    A non-finite number fails as in ``json_dumps``, after some pieces were yielded: the
    writer must drop what it wrote (``atomic_write_chunks`` does)."""
    text = _orjson_text(value, sort_keys) if indent == 2 else None
    if text is not None:
        yield from _text_pieces(text, batch << 6)
        return
    out: list[str] = []
    flat: dict[int, json.JSONEncoder] = {}
    try:
        if _nested(value):
            for _ in _encode(value, 0, indent, sort_keys, flat, {}, set(), out):
                if len(out) >= batch:
                    yield escape_invisible("".join(out))
                    out.clear()
        else:
            out.append(_flat(value, 0, indent, sort_keys, flat))
        yield escape_invisible("".join(out))
    except ValueError:
        _raise_non_finite(value)


# ``marshal``'s format 1 writes a float as ``f``, a length byte and its 17-digit ``%g`` text:
# an infinity or a NaN as one of these, a float from 1e-9 to 1e-4 with an exponent of -05 to
# -09 (orjson writes 0.0000ddd or de-N there, json de-05 ... de-09). The same bytes inside a
# string only send the value to json's path, or the text to the search below.
_NON_FINITE = (b"f\x03nan", b"f\x03inf", b"f\x04-inf")
_MAYBE_TINY = re.compile(rb"e-0[5-9]")
_TINY_EXPONENT = re.compile(rb"e-[0-9](?![0-9])")
# Such a number where a value sits in indented JSON: alone on its line after the indent, or
# after a key (a whole JSON string and ": "), then an optional comma. A string cannot hold a
# raw newline, so text inside a string never matches.
_TINY_VALUE = re.compile(rb'^( *(?:"(?:[^"\\\n]|\\.)*": )?)(-?(?:0\.0000[0-9]+|[0-9](?:\.[0-9]+)?e-[0-9]))(,?)$',
                         re.MULTILINE)


def _orjson_text(value, sort_keys: bool) -> bytes | None:
    """``json.dumps(value, ensure_ascii=False, allow_nan=False, indent=2, sort_keys=sort_keys)``
    as UTF-8, written by orjson (one C call: a 20,000-query report in 0.1 s against 1.6 s), or
    None where orjson's text could differ or json would refuse the value (the caller then
    takes json's path, which writes or refuses it as before).

    orjson writes json's text for exact ``dict`` (string keys), ``list``, ``tuple``, ``str``,
    64-bit ``int``, finite ``float``, ``bool`` and ``None`` (``tests/test_display_json.py``
    compares the two on random values, every character and random doubles of every
    exponent), except floats from 1e-9 to 1e-4, rewritten here as ``repr`` writes them.
    Everything else is declined before or by orjson: ``marshal`` takes exact built-in types
    only (no subclass, enum, dataclass or date, which orjson would write and json refuse),
    and its bytes show a non-finite float (orjson writes null, json refuses) or one to
    rewrite without a walk in Python; orjson refuses integers past 64 bits, other keys than
    strings, lone surrogates, sets, bytes and nesting past 255 (json's path then decides).
    Used only when this orjson writes ``_PROBE`` as json does (``_orjson_agrees``)."""
    if not _orjson_agrees():
        return None
    return _orjson_dumps(value, sort_keys)


def _orjson_dumps(value, sort_keys: bool) -> bytes | None:
    import orjson  # here: the app's first screen writes no JSON

    try:
        exact = marshal.dumps(value, 1)
        if any(form in exact for form in _NON_FINITE):
            return None
        tiny = _MAYBE_TINY.search(exact) is not None
        del exact
        text = orjson.dumps(value, option=orjson.OPT_INDENT_2 | (orjson.OPT_SORT_KEYS if sort_keys else 0))
    except (ValueError, orjson.JSONEncodeError):  # marshal: not built-in, or too deep
        return None
    # (two searches, each led by a literal: one pattern of both read 64 MB in 0.27 s)
    if tiny and (b"0.0000" in text or _TINY_EXPONENT.search(text)):
        text = _TINY_VALUE.sub(lambda m: m[1] + float.__repr__(float(m[2])).encode() + m[3], text)
    return text


_PROBE = {"floats": [0.0, -0.0, 1.0, 0.1, 1 / 3, 2 / 3 * 1e-5, 1e-4, 5e-5, 1e-5, 1.5e-7, 1e-10, 5e-324,
                     123456.789, 1e15, 1e16, 1.7976931348623157e308, -2.5e-8, 9999999999999998.0],
          "ints": [0, -1, 2**63 - 1, -(2**63), 2**64 - 1], "other": [True, False, None, [], {}, ()],
          "é\u2028\x7f": "\x00\x1f\x7f\"\\/\u00e9\u65e5\U0001f600", "B": {"b": 1, "a": [1.25, {"Z": "z"}]}}


@cache
def _orjson_agrees() -> bool:
    """This orjson writes ``_PROBE`` (floats of each written form, edge integers, escapes,
    key order) as json does: a future orjson that formats differently is not used."""
    return all(_orjson_dumps(_PROBE, s) == json.dumps(_PROBE, ensure_ascii=False, indent=2, sort_keys=s).encode()
               for s in (False, True))


def _text_pieces(text: bytes, size: int) -> Iterator[str]:
    """``escape_invisible`` of ``text`` decoded, in pieces cut after a newline about every
    ``size`` bytes (a newline is never inside a character). Every ``INVISIBLE`` character is
    DEL or past ASCII: an ASCII text without DEL has nothing to escape."""
    escape = not text.isascii() or b"\x7f" in text
    start = 0
    while start < len(text):
        end = text.find(b"\n", start + size)
        end = len(text) if end < 0 else end + 1
        piece = text[start:end].decode("utf-8")
        yield escape_invisible(piece) if escape else piece
        start = end


_CONTAINERS = (dict, list, tuple)


def _nested(o) -> bool:
    """``o`` is a container holding a container (so walked here, not encoded in one C call).
    The values' distinct types are few: each is looked at once."""
    if isinstance(o, dict):
        types = set(map(type, o.values()))
    elif isinstance(o, (list, tuple)):
        types = set(map(type, o))
    else:
        return False
    return any(issubclass(t, _CONTAINERS) for t in types)


def _flat(o, depth: int, indent: int, sort_keys: bool, flat: dict[int, json.JSONEncoder]) -> str:
    """A scalar, or a container of scalars, at ``depth``: one call of the C encoder whose item
    separator is a newline and the indent of ``depth + 1``."""
    enc = flat.get(depth)
    if enc is None:
        enc = flat[depth] = json.JSONEncoder(ensure_ascii=False, allow_nan=False, sort_keys=sort_keys,
                                             separators=(",\n" + " " * (indent * (depth + 1)), ": "))
    text = enc.encode(o)
    if not isinstance(o, _CONTAINERS) or not o:
        return text
    return text[0] + "\n" + " " * (indent * (depth + 1)) + text[1:-1] + "\n" + " " * (indent * depth) + text[-1]


def _encode(o, depth: int, indent: int, sort_keys: bool, flat: dict[int, json.JSONEncoder],
            keys: dict[tuple[type, object], str], seen: set[int], out: list[str]) -> Iterator[None]:
    """Append the JSON of ``o``, a container holding containers, at ``depth`` to ``out``, as
    ``json``'s pure encoder writes it; yields after each item and once written, so a caller can
    pass on what is written so far."""
    if id(o) in seen:
        raise ValueError("Circular reference detected")
    seen.add(id(o))
    inner = "\n" + " " * (indent * (depth + 1))
    separator = inner
    keyed = isinstance(o, dict)
    out.append("{" if keyed else "[")
    for item in (sorted(o.items()) if sort_keys else o.items()) if keyed else o:
        if keyed:
            key, v = item
            # A report repeats its keys in every row. Typed, as True == 1; a float by its text, as -0.0 == 0.0.
            slot = (type(key), key) if type(key) is not float else (float, float.__repr__(key))
            text = keys.get(slot)
            if text is None:
                text = keys[slot] = _flat(_json_key(key), 0, indent, sort_keys, flat)
            out.append(separator + text + ": ")
        else:
            v = item
            out.append(separator)
        separator = "," + inner
        if _nested(v):
            yield from _encode(v, depth + 1, indent, sort_keys, flat, keys, seen, out)
        else:
            out.append(_flat(v, depth + 1, indent, sort_keys, flat))
            yield  # a long list of flat rows (a report's queries) is passed on as it grows
    out.append("\n" + " " * (indent * depth) + ("}" if keyed else "]"))
    seen.discard(id(o))
    yield


def _json_key(key) -> str:
    """A dict key as ``json`` writes it: a string as is, a number's repr, true/false/null."""
    if isinstance(key, str):
        return key
    if isinstance(key, float):
        if not math.isfinite(key):
            raise ValueError("Out of range float values are not JSON compliant: " + repr(key))
        return float.__repr__(key)
    if key is True or key is False or key is None:
        return json.dumps(key)
    if isinstance(key, int):
        return int.__repr__(key)
    raise TypeError(f"keys must be str, int, float, bool or None, not {key.__class__.__name__}")


def _raise_non_finite(value) -> NoReturn:
    """Re-raise the encoder's ValueError naming where the non-finite number sits."""
    where = _non_finite_at(value, "")
    if where is None:
        raise
    raise ValueError(f"cannot write JSON: the number at {where or 'the top'} is not finite "
                     f"(JSON has no Infinity or NaN)") from None


def _non_finite_at(value, where: str) -> str | None:
    """The path (``.key[3]``) of the first non-finite float in ``value``; None if none."""
    if isinstance(value, float) and not math.isfinite(value):
        return where
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, (list, tuple)) else ()
    for key, item in items:
        found = _non_finite_at(item, f"{where}[{key}]" if isinstance(key, int) else f"{where}.{key}")
        if found is not None:
            return found
    return None
