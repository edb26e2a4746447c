"""Showing untrusted text safely in a terminal.

Queries and documents come from anywhere; an escape sequence inside one must print as
visible text, never act on the terminal. Rich markup is escaped too.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from itertools import islice
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


def json_chunks(value, batch: int = 1 << 16, **kw) -> Iterator[str]:
    """``json_dumps(value, **kw)`` as consecutive pieces (joined, the very same text), so a
    large document is written as it is encoded, never held whole. ``indent`` must be given:
    only then does ``json.dumps`` itself encode piece by piece (in pure Python), so the
    pieces are its text. A non-finite number fails as in ``json_dumps``, after some pieces
    were yielded: the writer must drop what it wrote (``atomic_write_chunks`` does)."""
    if kw.get("indent") is None:
        raise ValueError("json_chunks needs an indent (json.dumps encodes whole without one)")
    pieces = json.JSONEncoder(ensure_ascii=False, allow_nan=False, **kw).iterencode(value)
    try:
        while True:
            text = "".join(islice(pieces, batch))
            if not text:
                return
            yield escape_invisible(text)
    except ValueError:
        _raise_non_finite(value)


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
