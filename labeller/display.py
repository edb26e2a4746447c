"""Showing untrusted text safely in a terminal.

Queries and documents come from anywhere; an escape sequence inside one must print as
visible text, never act on the terminal. Rich markup is escaped too.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
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
    the very same text), so a large document is written as it is encoded, never held whole.

    ``json.dumps`` with an indent encodes in pure Python, a value at a time (the larger part of
    writing a 20,000-query report). Its C encoder takes no indent, but its item separator may
    hold the newline and the spaces of one depth: so each container whose items are all
    scalars (a query's metrics, a span, a list of ranks) is encoded in one C call at its
    depth, and only the containers above them are walked here, writing what the pure encoder
    writes around them (``tests/test_display_json.py`` compares the two on random values).
    A non-finite number fails as in ``json_dumps``, after some pieces were yielded: the
    writer must drop what it wrote (``atomic_write_chunks`` does)."""
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
            text = keys.get((type(key), key))  # a report repeats its keys in every row (True == 1: typed)
            if text is None:
                text = keys[(type(key), key)] = _flat(_json_key(key), 0, indent, sort_keys, flat)
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
